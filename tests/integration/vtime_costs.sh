#!/usr/bin/env bash
# vtime_costs: the virtual-time mode's named cost sets through
# `ini-cluster run --time virtual --vt-costs NAME` (ini/vtime/vt_cost.c).
#   1. Known answer with the `stack` set (this stack's own costs,
#      docs/results/vtime-stack-costs.txt): 2 clusters x 1 compute node x
#      1 INI, each node pinging the other once (ini-ping --count 1, 64
#      and 1,000 bytes in two runs): the round trip is exactly the cost
#      model's walk, computed here from the set's numbers as vt_cost.c
#      holds them.  Each INI event costs its messages' work
#      (per_message + per_byte x bytes, rounded), after which its outputs
#      leave; then its pass (per_pass) keeps the INI busy.  The walk: the
#      ping is taken at the hand-over, sent, and waits at the peer INI for
#      the end of that INI's own ping's pass; delivered; its bare ACK back
#      costs the sender's INI a pass; the pong record waits for that pass;
#      the pong waits at the first INI for its pong's pass.  With a
#      per_pass of 0 it is 2 x (handover + send + wire + recv + deliver).
#      Also: it is not the thesis set's (516.0 us at 64 B), and the
#      counters give the passes' cycles (busy.pass_cycles = per_pass x
#      work_turns), and its traces read (critical, timeline).
#   2. An unknown set is refused: exit 2, one line naming it and the sets.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start vtime_costs build/bin/ini-cluster build/bin/inid build/bin/ini-ping
L=build/bin/ini-cluster

# The set's numbers as vt_cost.c holds them: the want line for B bytes.
want() {    # SET BYTES: the round trip in us as ini-ping prints it, and its cycles
    python3 - "$1" "$2" <<'PY'
import re, sys
name, n = sys.argv[1], int(sys.argv[2])
src = open("ini/vtime/vt_cost.c").read()
body = re.search(r'\.name = "%s",(.*?)\n};' % name, src, re.S).group(1)
side = lambda s: {k: float(v) for k, v in re.findall(r'\.(\w+) = ([-0-9.]+)', re.search(r'\.%s = \{([^}]*)\}' % s, body).group(1))}
one = lambda k: float(re.search(r'\.%s = ([-0-9.]+)' % k, body).group(1))
msg = lambda d: round(d["per_message"] + d["per_byte"] * n)
S, R, P = msg(side("send")), msg(side("recv")), round(max(side("send")["per_pass"], side("recv")["per_pass"]))
h, W, D = int(one("handover")), int(one("wire")), int(one("deliver"))
sent = h + S; free = sent + P                   # both INIs take their node's ping
took = max(sent + W, free); free = took + R + P  # the peer's ping, after that pass
dlv = took + R + D                              # delivered; its bare ACK leaves at took + R
free = max(took + R + W, free) + P              # the peer's ACK, a pass of its own
took = max(dlv + h, free); free = took + S + P  # the pong record
took = max(took + S + W, free)                  # the peer's pong, after that pass
c = took + R + D
print("%.1f %d" % (c * 50 / 1000, c))
PY
}

$L gen 2 1 1 -o "$TMP/c211.cfg" > /dev/null
pass=$(python3 -c 'import re; print(round(float(re.search(r"\.name = \"stack\",.*?per_pass = ([0-9.]+)", open("ini/vtime/vt_cost.c").read(), re.S).group(1))))')
for n in 64 1000; do
    timeout 300 $L run "$TMP/c211.cfg" --time virtual --vt-costs stack --trace detailed --timeout 240 --run-dir "$TMP/run$n" -- \
        build/bin/ini-ping --sizes $n --count 1 > "$TMP/stack$n.out" 2>&1; rc=$?
    read -r w c <<< "$(want stack $n)"
    got=$(awk -v n=$n '$1 == n { print $3, $7 }' "$TMP/stack$n.out")
    pc=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["busy"]["pass_cycles"], d["loop"]["work_turns"])' \
         "$TMP/run$n/ini0.counters.json" 2> /dev/null)
    if [ $rc = 0 ] && [ "$got" = "$w $w" ] && [ "$w" != 516.0 ] && [ "${pc% *}" = $((pass * ${pc#* })) ] &&
       grep -q 'verified 1 messages, 0 errors' "$TMP/stack$n.out"; then
        ok "stack set: $n B round trip $w us ($c cycles) = the cost model's walk; passes $pc (cycles, turns)"
    else
        fail "stack set: $n B: exit $rc, round trip (min max) '$got' (want $w twice), passes '$pc' (per_pass $pass); see $TMP/stack$n.out"
    fi
done

# The traced run reads back: a set with a hand-over of its own once made
# the compute nodes' trace refused ("record 1 (ACTION): ends before it
# starts (1 < 4)"), the action stamped at the send's arrival at the INI.
if build/bin/ini-trace critical "$TMP/run64" > "$TMP/critical.txt" 2>&1 &&
   build/bin/ini-trace timeline "$TMP/run64" -o "$TMP/timeline.json" > /dev/null 2>&1; then
    ok "stack set's traces read: critical and timeline ($(grep -c '"ph"' "$TMP/timeline.json") events)"
else
    fail "stack set's traces refused: $(tail -1 "$TMP/critical.txt")"
fi

$L run "$TMP/c211.cfg" --time virtual --vt-costs nope -- build/bin/ini-ping --count 1 > "$TMP/nope.out" 2>&1; rn=$?
if [ $rn = 2 ] && grep -q "^ini-cluster: --vt-costs: 'nope' is not a cost set (thesis, stack)$" "$TMP/nope.out"; then
    ok "unknown set refused: exit 2, $(head -1 "$TMP/nope.out")"
else
    fail "--vt-costs nope: exit $rn: $(head -2 "$TMP/nope.out")"
fi
test_end
