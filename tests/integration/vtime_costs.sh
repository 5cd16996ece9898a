#!/usr/bin/env bash
# vtime_costs: the virtual-time mode's named cost sets through
# `ini-cluster run --time virtual --vt-costs NAME` (ini/vtime/vt_cost.c).
#   1. Known answer with the `stack` set (this stack's own costs,
#      docs/results/vtime-stack-costs.txt): 2 clusters x 1 compute node x
#      1 INI, ini-ping of 64 and 1,000 bytes (one segment): every round trip
#      is exactly the cost model's sum, computed here from the set's numbers
#      as vt_cost.c holds them,
#        2 x (handover + round(send) + wire + round(recv) + deliver)
#      with side = per_pass + per_message + per_byte x bytes; and it is not
#      the thesis set's (516.0 us at 64 B).
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
cost = lambda d: round(d["per_pass"] + d["per_message"] + d["per_byte"] * n)
c = 2 * (int(one("handover")) + cost(side("send")) + int(one("wire")) + cost(side("recv")) + int(one("deliver")))
print("%.1f %d" % (c * 50 / 1000, c))
PY
}

$L gen 2 1 1 -o "$TMP/c211.cfg" > /dev/null
timeout 300 $L run "$TMP/c211.cfg" --time virtual --vt-costs stack --timeout 240 --run-dir "$TMP/run" -- \
    build/bin/ini-ping --sizes 64,1000 --count 10 > "$TMP/stack.out" 2>&1; rc=$?
read -r w64 c64 <<< "$(want stack 64)"
read -r w1k c1k <<< "$(want stack 1000)"
got64=$(awk '$1 == 64 { print $3, $7 }' "$TMP/stack.out")
got1k=$(awk '$1 == 1000 { print $3, $7 }' "$TMP/stack.out")
if [ $rc = 0 ] && [ "$got64" = "$w64 $w64" ] && [ "$got1k" = "$w1k $w1k" ] && [ "$w64" != 516.0 ] &&
   [ "$(grep -c 'verified .* messages, 0 errors' "$TMP/stack.out")" = 2 ]; then
    ok "stack set: round trips (min max) 64 B $got64 us ($c64 cycles), 1000 B $got1k us ($c1k cycles) = the cost model's sums"
else
    fail "stack set: exit $rc, 64 B '$got64' (want $w64 twice), 1000 B '$got1k' (want $w1k twice); see $TMP/stack.out"
fi

$L run "$TMP/c211.cfg" --time virtual --vt-costs nope -- build/bin/ini-ping --count 1 > "$TMP/nope.out" 2>&1; rn=$?
if [ $rn = 2 ] && grep -q "^ini-cluster: --vt-costs: 'nope' is not a cost set (thesis, stack)$" "$TMP/nope.out"; then
    ok "unknown set refused: exit 2, $(head -1 "$TMP/nope.out")"
else
    fail "--vt-costs nope: exit $rn: $(head -2 "$TMP/nope.out")"
fi
test_end
