#!/usr/bin/env bash
# make_run: `make run`'s script (tools/thesis/make-run.sh) on a built tree:
# it needs nothing outside the repository (Water's data file is
# tools/apps/water/data/random.in; $WATER_RANDOM is unset for the test), it exits
# 0, and its summary's utilization and queue length of every INI are the
# numbers of the INI's row in table 5.3 (docs/traces.md, "Utilization and
# queue length: one definition").
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start make_run build/bin/ini-cluster build/bin/inid build/bin/water build/bin/ini-trace
unset WATER_RANDOM
bash tools/thesis/make-run.sh > "$TMP/out" 2>&1
rc=$?
run=$(sed -n 's/.*Run directory: \(runs\/make-run-[^ ]*\)$/\1/p' "$TMP/out" | head -n 1)
if [ "$rc" != 0 ]; then
    fail "make-run.sh exited with $rc"; tail -20 "$TMP/out"
else
    ok "make-run.sh exited 0 (run directory $run)"
fi
# Table 5.3's rows: cluster, size, ios/clu, INI, ..., queue len, q@arrive, utilization, share.
awk '/^Table 5\.[34]:/ { t = 1; next } t && /^$/ { t = 0 } t && $4 ~ /^[0-9]+$/ { print $4, $(NF-3), $(NF-1) }' "$TMP/out" > "$TMP/table"
sed -n 's/^INI \([0-9]*\): *cluster [0-9]*, utilization \([0-9.]*\) and queue length \([0-9.]*\) .*/\1 \3 \2/p' "$TMP/out" > "$TMP/summary"
n=$(wc -l < "$TMP/table")
if [ "$n" -ge 2 ] && cmp -s "$TMP/table" "$TMP/summary"; then
    ok "the summary's utilization and queue length equal table 5.3's for all $n INIs: $(tr '\n' ';' < "$TMP/table")"
else
    fail "table 5.3 (INI, queue len, utilization) and the summary differ:"
    paste "$TMP/table" "$TMP/summary"
fi
[ -n "$run" ] && rm -rf "$run"
test_end
