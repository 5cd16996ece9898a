#!/usr/bin/env bash
# start_loop: the short form of tools/soak/start-loop (issue 48: one inid
# start in 60 once crashed in memif's probe, before ready).  RUNS (default
# 5) `ini-cluster run`s of /bin/true on 16 clusters x 1 INI (memif, a full
# mesh of 120 links), 16 daemon starts each: every run exits 0, with no
# daemon that crashed or was not ready, and the table has a row per run.
# The long form (1,040 starts, before and after) is in docs/results/soak/.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start start_loop build/bin/ini-cluster build/bin/inid
RUNS=${1:-5}
tools/soak/start-loop --runs "$RUNS" --out "$TMP/start-loop.tsv" > "$TMP/out" 2>&1
rc=$?
rows=$(awk -F'\t' 'NR > 1' "$TMP/start-loop.tsv" | wc -l)
bad=$(awk -F'\t' 'NR > 1 && ($2 != 0 || $5 != "-")' "$TMP/start-loop.tsv")
if [ $rc = 0 ] && [ "$rows" = "$RUNS" ] && [ -z "$bad" ]; then
    ok "$(cat "$TMP/out")"
else
    fail "exit $rc, $rows rows of $RUNS: $(cat "$TMP/out")"
    echo "$bad"
    for d in "$TMP"/run-*; do [ -d "$d" ] && tail -5 "$d/out"; done
fi
test_end
