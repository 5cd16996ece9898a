#!/usr/bin/env bash
# Water: full-precision energies (`water --full`, %.17g) of the spec's worked
# example with NPRINT = 1 (steps 1..3) against the values listed in
# WATER_SPEC.md section 15 (fixture tools/apps/water/fixtures/example_full.txt):
#  - 1 thread, both modes: every value bit-identical;
#  - 2, 3, 4, 8, 16, 64 and 256 threads, both modes: relative difference
#    at most 1e-12 for every value (the spec quotes ~4e-13 for P > 1).
# Prints the largest relative difference of every run.
set -euo pipefail
cd "$(dirname "$0")/../.."
WATER=build/bin/water
COMPARE=build/bin/water_compare
RANDOM_IN=${WATER_RANDOM:-tools/apps/water/data/random.in}
EXPECTED=tools/apps/water/fixtures/example_full.txt
for f in "$WATER" "$COMPARE"; do [ -x "$f" ] || { echo "FAIL: $f not built (run make)"; exit 1; }; done
[ -r "$RANDOM_IN" ] || { echo "FAIL: data file $RANDOM_IN missing"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

failures=0
run_and_compare() { # threads tolerance mode-flag...
    local p=$1 tol=$2; shift 2
    printf '1.5e-16 512 3 6 -1 3000 1 0 %s 6.212752\n' "$p" \
        | "$WATER" --random "$RANDOM_IN" --full "$@" > "$tmp/out"
    local label="P=$p ${*:-default}"
    if result=$("$COMPARE" --tol "$tol" "$EXPECTED" "$tmp/out"); then
        echo "ok:   $label (tolerance $tol): $result"
    else
        echo "FAIL: $label (tolerance $tol): $result"; failures=$((failures + 1))
    fi
}

run_and_compare 1 0
run_and_compare 1 0 --deterministic
for p in 2 3 4 8 16 64 256; do
    run_and_compare "$p" 1e-12
    run_and_compare "$p" 1e-12 --deterministic
done

[ "$failures" -eq 0 ] && echo "water_precision: all passed" || echo "water_precision: $failures failed"
[ "$failures" -eq 0 ]
