#!/usr/bin/env bash
# Water --deterministic: for a given thread count the full-precision output
# (`--full`, %.17g energies of every step) must be bit-identical from run to
# run, whatever the thread timing: 16 threads run 20 times, 3 threads (uneven
# split) 10 times; all stdout except the wall-clock timing lines must match
# the first run byte for byte. For information, also reports how many
# distinct outputs the default (lock-order dependent) mode gave in 20 runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
water_test_start water_deterministic

run() { # threads flags... -> stdout without timing lines
    local p=$1; shift
    printf '1.5e-16 512 3 6 -1 3000 1 0 %s 6.212752\n' "$p" \
        | "$WATER" --random "$RANDOM_IN" --full "$@" \
        | grep -vE '^(COMPUTESTART|COMPUTEEND|COMPUTETIME|Measured Time|Intramolecular time|Intermolecular time|Other time)'
}

repeat() { # threads runs flags...
    local p=$1 runs=$2; shift 2
    run "$p" "$@" > "$TMP/first"
    grep -q '^FULL 3 ' "$TMP/first" || { echo "no FULL line for step 3"; return; }
    local differing=0
    for ((r = 2; r <= runs; r++)); do
        run "$p" "$@" > "$TMP/again"
        cmp -s "$TMP/first" "$TMP/again" || differing=$((differing + 1))
    done
    echo "$differing"
}

for spec in "16 20" "3 10"; do
    set -- $spec
    differing=$(repeat "$1" "$2" --deterministic)
    if [ "$differing" = 0 ]; then
        ok "--deterministic P=$1: $2 runs bit-identical"
    else
        fail "--deterministic P=$1: $differing (of $(($2 - 1)) repeated runs differing)"
    fi
done

distinct=$(for r in $(seq 20); do run 16 | grep '^FULL' | md5sum; done | sort -u | wc -l)
echo "info: default mode P=16: $distinct distinct full-precision outputs in 20 runs"

test_end
