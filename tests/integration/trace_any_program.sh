#!/usr/bin/env bash
# trace_any_program: the trace tools answer for a program that records
# nothing itself (issue 46, point 2): the compute-node library writes its
# actions and requests (ini/cn/cn_trace.c).  ini-ping (200 pings) and
# examples/pingpong, each traced (detailed) on conf/default.cfg:
#
#  1. the compute-node traces say the library wrote them (header flags
#     NODE_HANDLERS | LIBRARY) and hold actions and requests;
#  2. `whatif` prints a measured span > 0 and a replayed one > 0;
#  3. no NaN in the output of whatif, report, critical or profile;
#  4. `timeline` writes a valid trace-event file (inimeasure.check_timeline)
#     with one flow per message at least for most messages, and names the
#     INIs' services by handler ("h1 out"), not "? out";
#  5. `critical` follows the run as one step (no barrier, no mark) with
#     messages on its path.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start trace_any_program build/bin/ini-cluster build/bin/inid build/bin/ini-trace build/bin/ini-ping
CLUSTER=$PWD/build/bin/ini-cluster TRACE=$PWD/build/bin/ini-trace

# check NAME DIR: the checks 1-5 on the traced run in DIR
check() {
    local name=$1 dir=$2
    python3 - "$dir" <<'PY' || fail "$name: the compute-node traces are not the library's (see above)"
import struct, sys
for c in (0, 1):
    b = open("%s/cn%d.trace" % (sys.argv[1], c), "rb").read()
    flags, = struct.unpack_from("<H", b, 14)
    kinds = [b[128 + 48 * i] for i in range((len(b) - 128) // 48)]
    if flags != 3 or kinds.count(3) == 0 or kinds.count(4) == 0:
        sys.exit("cn%d.trace: flags %d, %d actions, %d requests" % (c, flags, kinds.count(3), kinds.count(4)))
PY
    local cmd
    for cmd in whatif report critical profile; do
        "$TRACE" "$cmd" "$dir" > "$TMP/$name.$cmd" 2>&1 || fail "$name: ini-trace $cmd: $(tail -1 "$TMP/$name.$cmd")"
        ! grep -qiwE -- '-?nan' "$TMP/$name.$cmd" || fail "$name: NaN in ini-trace $cmd: $(grep -iwE -- '-?nan' "$TMP/$name.$cmd" | head -1)"
    done
    local span
    span=$(sed -n 's/.*program span.*measured \([0-9.]*\) s, replayed \([0-9.]*\) s.*/\1 \2/p' "$TMP/$name.whatif")
    if awk -v s="$span" 'BEGIN { split(s, a, " "); exit !(a[1] > 0 && a[2] > 0) }'; then
        ok "$name: whatif span measured/replayed $span s"
    else
        fail "$name: whatif span '$span': $(grep 'program span' "$TMP/$name.whatif")"
    fi
    "$TRACE" timeline "$dir" -o "$TMP/$name.json" > "$TMP/$name.tl" 2>&1 || fail "$name: timeline: $(tail -1 "$TMP/$name.tl")"
    PYTHONPATH=tools python3 -m inimeasure.check_timeline "$TMP/$name.json" > "$TMP/$name.check" 2>&1 ||
        fail "$name: check_timeline: $(tail -1 "$TMP/$name.check")"
    python3 - "$TMP/$name.json" <<'PY' && ok "$name: timeline flows and names" || fail "$name: timeline flows or names"
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
flows = sum(1 for e in ev if e.get("ph") == "s")
msgs = sum(1 for e in ev if e.get("ph") == "X" and e.get("name", "").endswith(" out"))
bad = [e["name"] for e in ev if e.get("name", "").startswith("?") or "wait: ?" in e.get("name", "")]
print("  %d flows, %d sending services, %d unnamed" % (flows, msgs, len(bad)))
sys.exit(0 if msgs > 0 and flows >= msgs * 0.9 and not bad else 1)
PY
    grep -q '^Critical path of the run (no barrier or mark: one step)' "$TMP/$name.critical" &&
        awk '$1 == "0" && $NF > 0 { found = 1 } END { exit !found }' "$TMP/$name.critical" &&
        ok "$name: critical follows the run: $(grep '^0 ' "$TMP/$name.critical")" ||
        fail "$name: critical: $(head -3 "$TMP/$name.critical")"
}

timeout 200 "$CLUSTER" run conf/default.cfg --trace detailed --run-dir "$TMP/ping" --timeout 150 -- \
    build/bin/ini-ping --count 200 > "$TMP/ping.log" 2>&1 || fail "ini-ping: $(tail -1 "$TMP/ping.log")"
check ini-ping "$TMP/ping"

# examples/pingpong, built as a user builds it (examples.sh)
mkdir -p "$TMP/include/ini"
ln -s "$PWD"/ini/cn/ini_cn.h "$PWD"/ini/config/config.h "$PWD/loadbal/ini_policy.h" "$TMP/include/ini/"
if cc -Wall -Wextra -Werror -O2 -I"$TMP/include" -o "$TMP/pingpong" examples/pingpong.c \
        build/libini.a -lconfig -lpthread -lm 2> "$TMP/cc.err"; then
    timeout 200 "$CLUSTER" run conf/default.cfg --trace detailed --run-dir "$TMP/pp" --timeout 150 -- \
        "$TMP/pingpong" > "$TMP/pp.log" 2>&1 || fail "pingpong: $(tail -1 "$TMP/pp.log")"
    check pingpong "$TMP/pp"
else
    fail "examples/pingpong.c does not build: $(head -1 "$TMP/cc.err")"
fi
test_end
