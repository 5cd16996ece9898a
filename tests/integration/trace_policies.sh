#!/usr/bin/env bash
# trace_policies: ini-ping under each scheduling policy on 2 clusters of 4
# compute nodes and 2 INIs, with detailed traces.  `ini-trace report` must
# give the send and receive breakdowns, the cluster table and a misrouting
# section with numbers for the 2-INI clusters, in every format; and the
# traces must show each policy spreading the messages as loadbal.h says
# (tests/integration/lib/trace_spread.py states what is asserted):
#   static       each INI carries exactly its compute nodes' messages (from
#                the config's `static` lists, interleaved here so that no
#                other mapping passes) and receives exactly those for its
#                compute nodes;
#   round-robin  each compute node's messages are split evenly, within one,
#                over its cluster's INIs, and each INI's messages to a
#                cluster over that cluster's INIs;
#   load-aware   messages given to a busy INI while a sibling is idle: at
#                most half as many as round-robin makes on the same
#                workload (compute nodes race, so not zero).
cd "$(dirname "$0")/../.."
PROG=trace_policies; . tools/lib/options.sh   # PYTHONPATH for trace_spread.py
TMP=$(mktemp -d /tmp/ini-trace-policies.XXXXXX)
fails=0
fail() { echo "trace_policies: FAIL: $*"; fails=$((fails + 1)); }

cfg=$TMP/2x4x2.cfg
STATIC=1,0,0,1,3,2,2,3   # each compute node's INI: the static lists written below, joined
build/bin/ini-cluster gen 2 4 2 | sed -e 's/static = \[0, 0, 1, 1\]/static = [1, 0, 0, 1]/' \
    -e 's/static = \[2, 2, 3, 3\]/static = [3, 2, 2, 3]/' > "$cfg"
[ "$(grep -c 'static = \[\(1, 0, 0, 1\|3, 2, 2, 3\)\]' "$cfg")" -eq 2 ] ||
    { fail "ini-cluster gen 2 4 2 no longer writes the static lists this test rewrites"; exit 1; }
for policy in static round-robin load-aware; do
    dir=$TMP/$policy
    build/bin/ini-cluster run "$cfg" --policy "$policy" --ini-policy "$policy" \
        --trace detailed --run-dir "$dir" --timeout 300 -- \
        build/bin/ini-ping --sizes 0,1000,4000 --count 60 --window 2 > "$TMP/$policy.out" 2>&1 ||
        { fail "$policy: run failed"; tail -5 "$TMP/$policy.out"; continue; }
    for c in 0 1; do
        grep -qx "verified $((4 * 3 * 60)) messages, 0 errors" "$dir/cluster$c.out" ||
            fail "$policy: cluster $c: $(grep verified "$dir/cluster$c.out")"
    done
    build/bin/ini-trace report "$dir" > "$TMP/$policy.txt" 2> "$TMP/$policy.err" ||
        { fail "$policy: ini-trace report: $(cat "$TMP/$policy.err")"; continue; }
    # The thesis numbers the cluster and misrouting tables by policy:
    # 5.3/5.6 static, 5.4/5.7 round-robin.
    for table in "Table 5.1" "Table 5.2" "Table 5.[34]" "Table 5.[67]"; do
        grep -q "$table" "$TMP/$policy.txt" || fail "$policy: no $table in the report"
    done
    grep -A3 "Table 5.[67]" "$TMP/$policy.txt" | grep -Eq "^0 +4 +2 +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+%" ||
        fail "$policy: no misrouting numbers for cluster 0"
    grep -q "n/a" "$TMP/$policy.txt" && fail "$policy: misrouting not computed for a 2-INI cluster"
    build/bin/ini-trace report "$dir" --format json > "$TMP/$policy.json" ||
        fail "$policy: json report failed"
    python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
missing = [k for k in ("send_breakdown", "receive_breakdown", "clusters", "misrouting") if k not in r]
sys.exit("no " + ", ".join(missing) if missing else 0)' "$TMP/$policy.json" 2> "$TMP/$policy.json.err" ||
        fail "$policy: json report: $(cat "$TMP/$policy.json.err")"
    build/bin/ini-trace report "$dir" --format csv > "$TMP/$policy.csv" || fail "$policy: csv report failed"

    # The spread, from the traces: load-aware is judged against round-robin's run.
    baseline=()
    [ "$policy" = load-aware ] && baseline=("$TMP/round-robin")
    python3 tests/integration/lib/trace_spread.py "$dir" "$STATIC" "$policy" "$policy" "${baseline[@]}" \
        > "$TMP/$policy.spread" 2>&1
    rc=$?
    sed 's/^/    /' "$TMP/$policy.spread" | grep -v FAIL
    [ "$rc" -eq 0 ] || while IFS= read -r line; do fail "$policy: ${line#FAIL: }"; done \
        < <(grep '^FAIL: ' "$TMP/$policy.spread" || echo "FAIL: trace_spread.py exited with $rc")
done
[ "$fails" -eq 0 ] || { echo "trace_policies: runs kept in $TMP"; exit 1; }
rm -rf "$TMP"
echo "trace_policies: PASS"
