#!/usr/bin/env bash
# trace_tools: ini-trace's timeline, critical and profile on a fresh
# traced run (Water, 64 molecules, 2 steps, MGS on 2 clusters of 4 compute
# nodes with 2 INIs each, round-robin, O = 100 us), and their refusals.
#
#  1. timeline: the file passes tools/inimeasure/check_timeline.py, which checks
#     it against the trace event format (phases, fields, nesting of each
#     thread's slices, async begin/end pairs, every flow's start, steps and
#     end inside a slice of their thread) and against the run's report:
#     each INI has one service slice per message of its trace, and the
#     slices' union is its busy time; a window (--from/--to) and a sample
#     (--sample) give valid files too, with fewer messages;
#  2. critical: every step's segments sum to its length, its queue share
#     is in [0, 1], and the steps tile the run's span;
#  3. profile: its messages by type sum to the messages the INIs sent
#     (the report's outbound records), its sender x receiver matrix too;
#  4. refusals, one line each with status 2: a version-1 INI trace, a
#     run without compute-node traces, a damaged compute-node trace, a
#     missing -o, an unknown flag; and with status 1, one line naming the
#     file and counter, counters out of range, not a number or a FIFO (a
#     run without counters is replayed without a window).
set -u
cd "$(dirname "$0")/../.."
PROG=trace_tools; . tools/lib/options.sh   # PYTHONPATH for python3 -m inimeasure.*
. tests/integration/lib/common.sh
water_test_start trace_tools build/bin/ini-cluster build/bin/inid build/bin/ini-trace
TRACE=$PWD/build/bin/ini-trace
printf '  1.5e-16   64  2   6\n -1      3000     3  0\n8 6.212752\n' > "$TMP/water.in"
build/bin/ini-cluster gen 2 4 2 -o "$TMP/c.cfg" > /dev/null || { fail gen; exit 1; }
RUN=$TMP/run
timeout 300 build/bin/ini-cluster run "$TMP/c.cfg" --policy round-robin --ini-policy round-robin --trace summary \
    --knob O=100,O_mode=sleep --run-dir "$RUN" --timeout 250 -- "$WATER" --mgs --random "$RANDOM_IN" \
    < "$TMP/water.in" > "$TMP/run.log" 2>&1 || { fail "the run: $(tail -1 "$TMP/run.log")"; exit 1; }
"$TRACE" report "$RUN" --format json > "$TMP/report.json" || { fail "report"; exit 1; }

# 1. timeline
if "$TRACE" timeline "$RUN" -o "$TMP/tl.json" > "$TMP/tl.out" &&
   python3 -m inimeasure.check_timeline "$TMP/tl.json" --report "$TMP/report.json" > "$TMP/check.out"; then
    ok "timeline: $(head -1 "$TMP/check.out" | sed 's/^[^:]*: //'); services and busy time equal the report's"
else
    fail "timeline: $(cat "$TMP/tl.out" "$TMP/check.out" 2>/dev/null | tail -3)"
fi
"$TRACE" timeline "$RUN" -o "$TMP/window.json" --from 0.5 --to 0.7 > /dev/null &&
    python3 -m inimeasure.check_timeline "$TMP/window.json" > /dev/null && ok "timeline --from/--to: valid" ||
    fail "timeline --from/--to: $(python3 -m inimeasure.check_timeline "$TMP/window.json" | tail -1)"
"$TRACE" timeline "$RUN" -o "$TMP/sample.json" --sample 7 > "$TMP/sample.out" &&
    python3 -m inimeasure.check_timeline "$TMP/sample.json" > /dev/null && grep -q "(sampled)" "$TMP/sample.out" &&
    ok "timeline --sample 7: valid, $(cut -d: -f3 "$TMP/sample.out")" || fail "timeline --sample"

# 2. critical, 3. profile
"$TRACE" critical "$RUN" --format json > "$TMP/crit.json" || fail "critical"
"$TRACE" profile "$RUN" --format json > "$TMP/prof.json" || fail "profile"
python3 - "$TMP" <<'EOF' && ok "critical: segments sum to each step; profile: counts equal the report's" || failures=$((failures + 1))
import json, sys
tmp = sys.argv[1]
c, p, r = (json.load(open("%s/%s.json" % (tmp, n))) for n in ("crit", "prof", "report"))
bad = []
prev_end = None
for s in c["steps"]:
    total = sum(s["ms"].values())
    if abs(total - s["length_ms"]) > 1e-6 * max(1, s["length_ms"]):
        bad.append("step %d: segments %.6f ms, length %.6f ms" % (s["step"], total, s["length_ms"]))
    if not 0 <= s["queue_share"] <= 1:
        bad.append("step %d: queue share %g" % (s["step"], s["queue_share"]))
    if prev_end is not None and abs(s["start_ms"] - prev_end) > 1e-9:
        bad.append("step %d starts at %.6f, the one before ended at %.6f" % (s["step"], s["start_ms"], prev_end))
    prev_end = s["start_ms"] + s["length_ms"]
if len(c["steps"]) < 4:
    bad.append("only %d steps" % len(c["steps"]))
sent = sum(i["msgs_out"] for cl in r["clusters"] for i in cl["inis"])
by_type = sum(t["msgs"] for t in p["types"].values())
matrix = sum(sum(row) for row in p["matrix"])
if not sent == by_type == matrix:
    bad.append("messages: the INIs sent %d, profile by type %d, matrix %d" % (sent, by_type, matrix))
for b in bad:
    print("trace_tools: FAIL: " + b)
sys.exit(1 if bad else 0)
EOF

# 4. refusals
cp -r "$RUN" "$TMP/v1" && python3 - "$TMP/v1/ini0.trace" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], "rb").read()); b[8] = 1; open(sys.argv[1], "wb").write(b)
EOF
expect_error "whatif on a version-1 trace" "version-2" "ini-trace: " "$TRACE" whatif "$TMP/v1"
cp -r "$RUN" "$TMP/nocn" && rm "$TMP/nocn"/cn*.trace
expect_error "timeline without compute-node traces" "no cn<CLUSTER>.trace" "ini-trace: " "$TRACE" timeline "$TMP/nocn" -o "$TMP/x.json"
cp -r "$RUN" "$TMP/bad" && truncate -s -7 "$TMP/bad/cn1.trace"
expect_error "critical on a truncated compute-node trace" "cn1.trace" "ini-trace: " "$TRACE" critical "$TMP/bad"
expect_error "timeline without -o" "-o FILE.json" "ini-trace: " "$TRACE" timeline "$RUN"
expect_error "an unknown flag" "--bogus" "ini-trace: " "$TRACE" whatif "$RUN" --bogus
expect_error "a bad policy" "--policy" "ini-trace: " "$TRACE" whatif "$RUN" --policy fastest
# The counters beside the traces (the replay's window, ACK timer and turn
# cost): a value out of range or not a number is refused naming the file
# and the counter, a FIFO in their place is refused rather than read (no
# hang), and a run without them is replayed as before (no window).
# They are read while replaying, after the command line and the traces were
# taken, so the refusal is the replay's failure: status 1, not 2.
# counters DIR EXPR: the INI 0 counters of DIR rewritten by the sed EXPR
counters() { cp -r "$RUN" "$TMP/$1" && sed -i "$2" "$TMP/$1/ini0.counters.json"; }
# refused WHAT NEEDLE DIR: whatif on DIR exits 1 with one line holding NEEDLE
refused() {
    local rc=0
    timeout 20 "$TRACE" whatif "$3" > "$TMP/refused.out" 2> "$TMP/refused.err" || rc=$?
    if [ $rc = 1 ] && [ "$(wc -l < "$TMP/refused.err")" = 1 ] && [ ! -s "$TMP/refused.out" ] &&
       grep -q "^ini-trace: " "$TMP/refused.err" && grep -qF -- "$2" "$TMP/refused.err"; then
        ok "$1: $(cat "$TMP/refused.err")"
    else
        fail "$1: status $rc, wanted '$2':"; cat "$TMP/refused.err" "$TMP/refused.out"
    fi
}
grep -q '^  "stack": {.*"window": ' "$RUN/ini0.counters.json" || fail "no stack.window in $RUN/ini0.counters.json"
counters huge 's/\("window": \)[0-9]*/\11e300/'
refused "whatif on a window of 1e300" "ini0.counters.json: stack.window: '1e300'" "$TMP/huge"
counters word 's/\("cycles": \)[0-9]*/\1many/'
refused "whatif on busy cycles that are no number" "ini0.counters.json: busy.cycles: 'many'" "$TMP/word"
cp -r "$RUN" "$TMP/fifo" && rm "$TMP/fifo/ini0.counters.json" && mkfifo "$TMP/fifo/ini0.counters.json"
refused "whatif with a FIFO for counters" "ini0.counters.json: not a regular file" "$TMP/fifo"
cp -r "$RUN" "$TMP/cut" && head -c 200 "$RUN/ini0.counters.json" > "$TMP/cut/ini0.counters.json"
refused "whatif with a counters file cut short" "ini0.counters.json: damaged: not one JSON object" "$TMP/cut"
cp -r "$RUN" "$TMP/garbage" && echo garbage > "$TMP/garbage/ini0.counters.json"
refused "whatif with garbage for counters" "ini0.counters.json: damaged: not one JSON object" "$TMP/garbage"
cp -r "$RUN" "$TMP/nocounters" && rm "$TMP/nocounters"/ini*.counters.json
if "$TRACE" whatif "$RUN" > "$TMP/withcounters.out" 2>&1 && grep -q "window of [0-9]* slots" "$TMP/withcounters.out" &&
   "$TRACE" whatif "$TMP/nocounters" > "$TMP/nocounters.out" 2>&1 && grep -q "no counters beside the traces" "$TMP/nocounters.out"; then
    ok "whatif with counters models the window, without them replays without it"
else
    fail "whatif with and without counters:"; cat "$TMP/withcounters.out" "$TMP/nocounters.out"
fi
test_end
