#!/usr/bin/env bash
# vtime_grid_tables: the virtual-time grid's tools give known answers.
# The queue at arrival counted from a trace's intervals
# (inimeasure.vtime_qarrival) is 0.75 on four hand-built records; the
# committed runs (docs/results/vtime-grid/runs.tar.xz) make the README's
# grid table again, row for row; the grid's driver refuses a bad cell with
# one line naming --cells and exit 2.  No run of the emulated machine.
set -u
cd "$(dirname "$0")/../.."
PROG=vtime_grid_tables; . tools/lib/options.sh   # PYTHONPATH for python3 -m inimeasure.*
fail() { echo "vtime_grid_tables: FAIL: $*"; exit 1; }
tmp=$(mktemp -d /tmp/vtime-grid-tables.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# records (kind, t1, done) in serving order: the first finds none, the
# second (same cycle) the first, the third both, the fourth none (all done
# at or before its arrival): 3 over 4
q=$(python3 -c 'from inimeasure import vtime_qarrival as v; print(v.ini_queue([(1,10,20),(1,10,30),(1,15,16),(1,30,40)]))')
[ "$q" = "(3, 4)" ] || fail "hand-built queue at arrival: expected (3, 4), got $q"
echo "queue at arrival, hand-built: 3 over 4 messages"

D=docs/results/vtime-grid
ROW='^\| [1248]:[1248] \| [0-9.]+ \| [0-9.]+ \| [+-]'   # a row of the grid table (its model error signed)
cp "$D"/runs.tsv "$D"/reports.jsonl "$D"/predictions.txt "$D"/qarrival.tsv "$tmp"/ || fail "copy the committed tables"
tar -xJf "$D/runs.tar.xz" -C "$tmp" || fail "unpack runs.tar.xz"
python3 -m inimeasure.vtime_grid_tables "$tmp" > "$tmp/tables.md" || fail "vtime_grid_tables exited $?"
want=$(grep -cE "$ROW" "$D/README.md")
[ "$want" = 10 ] || fail "README: expected 10 grid rows, found $want"
grep -E "$ROW" "$tmp/tables.md" > "$tmp/got"
grep -E "$ROW" "$D/README.md" > "$tmp/want"
diff "$tmp/want" "$tmp/got" || fail "the grid table differs from the README's"
echo "the README's grid table made again: 10 rows equal"

err=$(bash tools/thesis/vtime_grid.sh --out "$tmp/x" --cells 4:8 2>&1); rc=$?
[ $rc = 2 ] && [ "$(wc -l <<< "$err")" = 1 ] && [[ $err == *--cells* ]] ||
    fail "--cells 4:8: expected one line naming --cells and exit 2, got rc=$rc: $err"
echo "bad cell refused: $err"
echo "vtime_grid_tables: PASS"
