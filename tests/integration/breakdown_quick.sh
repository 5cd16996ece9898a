#!/usr/bin/env bash
# breakdown_quick: tools/thesis/breakdown.sh with 2 runs: both tables have a
# row for every size with figures in every module's column, each run's
# report says the breakdown was available (detailed traces), and bad
# arguments get a one-line error and exit 2.
set -u
cd "$(dirname "$0")/../.."
TMP=$(mktemp -d /tmp/ini-breakdown-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "breakdown_quick: FAIL: $*"; exit 1; }

tools/thesis/breakdown.sh 2 "$TMP/bd" off > "$TMP/out" 2> "$TMP/err" || fail "exit $?: $(tail -n 1 "$TMP/err")"
for t in "Table 5.1 (send)" "Table 5.2 (receive)"; do
    rows=$(sed -n "/^$t/,/^\$/p" "$TMP/bd.txt" | grep -cE '^ +(0|100|200|1400|1600|65000) ')
    [ "$rows" -eq 6 ] || fail "$t: $rows of 6 size rows"
done
grep -q "n/a" "$TMP/bd.txt" && fail "a cell without figures: $(grep -m1 n/a "$TMP/bd.txt")"
python3 -c "
import json, sys
lines = [json.loads(l) for l in open('$TMP/bd/reports.jsonl')]
assert [l['run'] for l in lines] == [1, 2], 'not one line per run'
for l in lines:
    d = l['report']
    assert d['send_breakdown']['available'] and d['receive_breakdown']['available'] and d['dropped'] == 0, \
        'run %d: breakdown not available or records dropped' % l['run']
" || fail "reports.jsonl"
[ "$(ls "$TMP/bd")" = reports.jsonl ] || fail "files beside reports.jsonl: $(ls "$TMP/bd")"
# The tables again from what was kept: the same.
cp "$TMP/bd.txt" "$TMP/bd.first"
tools/thesis/breakdown.sh --tables "$TMP/bd" && cmp -s "$TMP/bd.txt" "$TMP/bd.first" ||
    fail "breakdown.sh --tables does not give the run's tables again"
echo "ok:   2 runs, both tables, 6 sizes, every module, tables again from reports.jsonl"

for args in "abc" "2 $TMP/x maybe"; do
    # shellcheck disable=SC2086
    out=$(tools/thesis/breakdown.sh $args 2>&1); rc=$?
    [ "$rc" -eq 2 ] || fail "breakdown.sh $args: exit $rc, expected 2"
    [ "$(echo "$out" | wc -l)" -eq 1 ] || fail "breakdown.sh $args: not one line: $out"
    echo "ok:   breakdown.sh $args: $out"
done
echo "breakdown_quick: PASS"
