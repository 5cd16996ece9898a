#!/usr/bin/env bash
# Water: the worked example of WATER_SPEC.md section 15 (N = 512, 3 steps)
# must be reproduced digit for digit with 1, 2, 4 and 8 threads, in the
# default (lock-based) and the deterministic mode:
#  - the complete stdout for NPRINT = 3 against tools/apps/water/fixtures/example_nprint3.out
#    (transcribed from the spec; the thread count appears in two lines, and
#    the seven wall-clock timing lines are compared by label only);
#  - the energy blocks for NPRINT = 1 against example_nprint1_blocks.out;
#  - random.in is read from the current directory when --random is not given.
set -euo pipefail
cd "$(dirname "$0")/../.."
WATER=$PWD/build/bin/water
RANDOM_IN=${WATER_RANDOM:-$PWD/tools/apps/water/data/random.in}
FIXTURES=tools/apps/water/fixtures
[ -x "$WATER" ] || { echo "FAIL: $WATER not built (run make)"; exit 1; }
[ -r "$RANDOM_IN" ] || { echo "FAIL: data file $RANDOM_IN missing"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# standard input of the spec with NPRINT=$1 and NumProcs=$2
standard_input() { printf '  1.5e-16   512  3   6\n -1      3000     %s  0\n%s 6.212752\n' "$1" "$2"; }
# wall-clock values are not reproducible: keep only the labels
mask_times() {
    sed -E 's/^((COMPUTESTART \(after initialization\)|COMPUTEEND|COMPUTETIME \(after initialization\)|(Measured|Intramolecular|Intermolecular|Other) time( only)? \(2nd timestep onward\)|Measured Time \(2nd timestep onward\)) = ).*$/\1<time>/'
}
expected_for() { # the one-thread fixture adjusted to P=$1
    sed -e "s/^Using 1 procs/Using $1 procs/" \
        -e "s/^\(NUMBER OF PROCESSORS       = \) *1\$/\1$(printf '%8d' "$1")/" "$FIXTURES/example_nprint3.out"
}

failures=0
check() { # name expected actual
    if diff -u "$2" "$3" > "$tmp/diff"; then
        echo "ok:   $1"
    else
        echo "FAIL: $1"; cat "$tmp/diff"; failures=$((failures + 1))
    fi
}

# the timing lines must all be present, with numbers
standard_input 3 1 | "$WATER" --random "$RANDOM_IN" > "$tmp/plain"
timing_lines=$(grep -cE '^(COMPUTESTART|COMPUTEEND|COMPUTETIME|Measured Time|Intramolecular time only|Intermolecular time only|Other time)[^=]* = [0-9]+$' "$tmp/plain" || true)
[ "$timing_lines" = 7 ] && echo "ok:   7 timing lines" || { echo "FAIL: $timing_lines timing lines"; failures=$((failures + 1)); }

for p in 1 2 4 8; do
    expected_for "$p" | mask_times > "$tmp/expected"
    for mode in default deterministic; do
        flag=(); [ "$mode" = deterministic ] && flag=(--deterministic)
        standard_input 3 "$p" | "$WATER" --random "$RANDOM_IN" "${flag[@]}" | mask_times > "$tmp/out"
        check "NPRINT=3 P=$p $mode: full output as in spec 15" "$tmp/expected" "$tmp/out"
        standard_input 1 "$p" | "$WATER" --random "$RANDOM_IN" "${flag[@]}" \
            | sed -n '/^\*\*\*\*\* NEW RUN/,/^COMPUTESTART/p' | sed '1d;$d' > "$tmp/blocks"
        check "NPRINT=1 P=$p $mode: energy blocks as in spec 15" "$FIXTURES/example_nprint1_blocks.out" "$tmp/blocks"
    done
done

# default data file: random.in in the current directory
mkdir "$tmp/cwd" && cp "$RANDOM_IN" "$tmp/cwd/random.in"
expected_for 2 | mask_times > "$tmp/expected"
(cd "$tmp/cwd" && standard_input 3 2 | "$WATER") | mask_times > "$tmp/out"
check "random.in taken from the current directory" "$tmp/expected" "$tmp/out"

[ "$failures" -eq 0 ] && echo "water_example: all passed" || echo "water_example: $failures failed"
[ "$failures" -eq 0 ]
