#!/usr/bin/env bash
# Runs every unit test (build/bin/test_*) and every integration test
# (tests/integration/*.sh), then prints one closing line "N passed, N failed".
cd "$(dirname "$0")/.."
pass=0; fail=0; failed=()
for t in build/bin/test_*; do
    [ -x "$t" ] || continue
    echo "=== unit: $(basename "$t")"
    if "$t"; then pass=$((pass+1)); else fail=$((fail+1)); failed+=("$(basename "$t")"); fi
done
for t in tests/integration/*.sh; do
    [ -f "$t" ] || continue
    echo "=== integration: $(basename "$t" .sh)"
    if timeout 900 bash "$t"; then pass=$((pass+1)); else fail=$((fail+1)); failed+=("$(basename "$t" .sh)"); fi
done
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
