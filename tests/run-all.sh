#!/usr/bin/env bash
# Runs every unit test (build/bin/test_*) and every integration test
# (tests/integration/*.sh), prints each one's result and time, and closes
# with the one line "tests: N passed, M failed, K skipped".
#
# A test passes by exiting 0 and fails by any other status except 77, which
# means it could not run here (automake's convention: missing root, a
# missing tool) and is counted as skipped, not passed.  A cmocka program
# whose every case called skip() is skipped too; one that skipped only some
# cases passes, and its line says how many it skipped.
cd "$(dirname "$0")/.."
SKIP=77
pass=0; fail=0; skip=0; failed=(); skipped=()
out=$(mktemp /tmp/ini-run-all.XXXXXX)
# A failed test's last lines, shown again under the summary: CI keeps only
# the tail of a long run's output, and that tail should say why.
failures=$(mktemp /tmp/ini-run-all-failures.XXXXXX)
trap 'rm -f "$out" "$failures"' EXIT

# run KIND NAME COMMAND...: runs one test, shows its output, tallies it.
run() {
    local kind=$1 name=$2
    shift 2
    echo "=== $kind: $name"
    local t0 t1 rc
    t0=$(date +%s.%N)
    # Into a file, shown afterwards: a daemon a test leaves behind cannot
    # hold a pipe open and stall the run.
    "$@" > "$out" 2>&1
    rc=$?
    cat "$out"
    t1=$(date +%s.%N)
    local secs note=""
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    # cmocka's summary: "[  PASSED  ] N test(s)." and "[  SKIPPED ] N test(s)".
    local cases_ok cases_skipped
    cases_ok=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -n 1)
    cases_skipped=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$out" | tail -n 1)
    if [ "$rc" -eq 0 ] && [ "${cases_skipped:-0}" -gt 0 ]; then
        if [ "${cases_ok:-0}" -eq 0 ]; then rc=$SKIP; else note="; $cases_skipped cases skipped"; fi
    fi
    if [ "$rc" -eq 0 ]; then
        pass=$((pass + 1)); echo "--- PASS $name ($secs s$note)"
    elif [ "$rc" -eq "$SKIP" ]; then
        skip=$((skip + 1)); skipped+=("$name"); echo "--- SKIP $name ($secs s)"
    else
        fail=$((fail + 1)); failed+=("$name"); echo "--- FAIL $name ($secs s, exit status $rc)"
        { echo "--- $name: its last lines (exit status $rc)"; tail -n 25 "$out"; } >> "$failures"
    fi
}

for t in build/bin/test_*; do
    [ -x "$t" ] || continue
    run unit "$(basename "$t")" "$t"
done
for t in tests/integration/*.sh; do
    [ -f "$t" ] || continue
    run integration "$(basename "$t" .sh)" timeout 900 bash "$t"
done
[ ${#skipped[@]} -gt 0 ] && echo "skipped: ${skipped[*]}"
[ ${#failed[@]} -gt 0 ] && cat "$failures" && echo "failed: ${failed[*]}"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
