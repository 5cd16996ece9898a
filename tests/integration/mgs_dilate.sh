#!/usr/bin/env bash
# mgs_dilate: MGS_DILATE (docs/experiments.md, "Time dilation") makes the
# compute nodes sleep, never changes what they compute.  Water on MGS,
# standalone (one cluster, 4 compute threads, 64 molecules, 2 steps,
# --deterministic --full):
#   - MGS_DILATE=20 gives the same full-precision output as no dilation;
#   - its counters (mgs-cluster0.json) count the sleeps: dilate_sleeps > 0
#     and dilate_sleep_us > 0, and both are 0 without dilation;
#   - MGS_DILATE=0.5 and MGS_DILATE=abc are refused: non-zero exit, one
#     first line of stderr names MGS_DILATE and the range.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
water_test_start mgs_dilate

printf '1.5e-16 64 2 6 -1 3000 1 0 4 6.212752\n' > "$TMP/water.in"
run() { # NAME [env...] -> $TMP/NAME.out, $TMP/NAME/mgs-cluster0.json
    local name=$1; shift
    mkdir -p "$TMP/$name"
    env "$@" MGS_RUN_DIR="$TMP/$name" "$WATER" --mgs --random "$RANDOM_IN" --deterministic --full \
        < "$TMP/water.in" > "$TMP/$name.out" 2> "$TMP/$name.err"
}
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$TMP/$1/mgs-cluster0.json" "$2"; }
times() { grep -vE '^(COMPUTESTART|COMPUTEEND|COMPUTETIME|Measured Time|Intramolecular time|Intermolecular time|Other time)' "$1"; }

if run plain && run dilated MGS_DILATE=20; then
    if grep -q '^FULL 2 ' "$TMP/plain.out" && cmp -s <(times "$TMP/plain.out") <(times "$TMP/dilated.out"); then
        ok "MGS_DILATE=20: output identical to the undilated run (full precision)"
    else
        fail "MGS_DILATE=20 changed Water's output"; diff <(times "$TMP/plain.out") <(times "$TMP/dilated.out") | head -5
    fi
    s=$(field dilated dilate_sleeps) us=$(field dilated dilate_sleep_us)
    s0=$(field plain dilate_sleeps) us0=$(field plain dilate_sleep_us)
    if [ "$s" -gt 0 ] && [ "$us" -gt 0 ] && [ "$s0" = 0 ] && [ "$us0" = 0 ]; then
        ok "counters: $s sleeps, $us us with MGS_DILATE=20; none without"
    else
        fail "counters: dilated $s sleeps / $us us, plain $s0 / $us0"
    fi
else
    fail "Water on standalone MGS failed"; tail -5 "$TMP"/*.err
fi

for bad in 0.5 abc; do
    if run bad MGS_DILATE=$bad; then
        fail "MGS_DILATE=$bad accepted"
    elif head -n 1 "$TMP/bad.err" | grep -q "MGS_DILATE=$bad: expected a factor from 1 to 1000"; then
        ok "MGS_DILATE=$bad refused: $(head -n 1 "$TMP/bad.err")"
    else
        fail "MGS_DILATE=$bad: expected a first line naming MGS_DILATE, got: $(head -3 "$TMP/bad.err")"
    fi
done
test_end
