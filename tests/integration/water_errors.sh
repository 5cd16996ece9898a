#!/usr/bin/env bash
# Water: malformed input and a missing or short data file end the program
# with exit status 2 and a single "water: ..." line on stderr that says what
# is wrong (naming the data file when it is the culprit), and nothing on
# stdout. Also: -h prints the usage and exits 0.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
water_test_start water_errors

water_rejects() { # description input expected-substring [water args...]
    local what=$1 input=$2 needle=$3
    shift 3
    expect_error "$what" "$needle" "water: " "$WATER" "$@" <<< "$input"
}

R=(--random "$RANDOM_IN")
water_rejects "nine fields"      "1.5e-16 512 3 6 -1 3000 3 0 1"              "found 9"            "${R[@]}"
water_rejects "eleven fields"    "1.5e-16 512 3 6 -1 3000 3 0 1 6.2 9"        "found 11"           "${R[@]}"
water_rejects "non-number"       "1.5e-16 512 3 six -1 3000 3 0 1 6.212752"   "NORDER"             "${R[@]}"
water_rejects "non-cube NMOL"    "1.5e-16 500 3 6 -1 3000 3 0 1 6.212752"     "not a perfect cube" "${R[@]}"
water_rejects "NMOL too big"     "1.5e-16 729 3 6 -1 3000 3 0 1 6.212752"     "$RANDOM_IN"         "${R[@]}"
water_rejects "P = 0"            "1.5e-16 512 3 6 -1 3000 3 0 0 6.212752"     "NumProcs"           "${R[@]}"
water_rejects "P > 256"          "1.5e-16 512 3 6 -1 3000 3 0 300 6.212752"   "NumProcs"           "${R[@]}"
water_rejects "P > NMOL"         "1.5e-16 8 3 6 -1 3000 3 0 9 6.212752"       "NumProcs"           "${R[@]}"
water_rejects "NORDER 5"         "1.5e-16 512 3 5 -1 3000 3 0 1 6.212752"     "NORDER must be 6"   "${R[@]}"
water_rejects "NPRINT 0"         "1.5e-16 512 3 6 -1 3000 0 0 1 6.212752"     "NPRINT must be >= 1" "${R[@]}"
water_rejects "missing data file" "1.5e-16 512 3 6 -1 3000 3 0 1 6.212752"    "$TMP/none.in"       --random "$TMP/none.in"
head -c 2000 "$RANDOM_IN" > "$TMP/short.in"
water_rejects "short data file"  "1.5e-16 512 3 6 -1 3000 3 0 1 6.212752"     "$TMP/short.in"      --random "$TMP/short.in"
# Without --random: random.in in the current directory, else the copy
# beside the program (installed: ../share/ini/water/; built: the
# repository's tools/apps/water/data/).  A copy of the program with neither
# beside it says where it looked.
mkdir -p "$TMP/bin"
cp "$WATER" "$TMP/bin/water"
(cd "$TMP" && printf '1.5e-16 8 3 6 -1 3000 3 0 1 6.2\n' | bin/water > out 2> err) && status=0 || status=$?
if [ "$status" = 2 ] && [ "$(wc -l < "$TMP/err")" = 1 ] && grep -q 'no data file random.in (tried random.in in the current directory, .*/share/ini/water/random.in' "$TMP/err"; then
    ok "no random.in anywhere: $(cat "$TMP/err")"
else
    fail "no random.in anywhere: status $status: $(cat "$TMP/err")"
fi
(cd "$TMP" && printf '1.5e-16 8 1 6 -1 3000 1 0 1 6.2\n' | "$WATER" > out 2> err) && status=0 || status=$?
if [ "$status" = 0 ] && grep -q '^  *1 ' "$TMP/out"; then
    ok "the built program, run elsewhere, reads the repository's tools/apps/water/data/random.in"
else
    fail "the built program, run elsewhere: status $status: $(head -3 "$TMP/err")"
fi
water_rejects "unknown option"   "1.5e-16 512 3 6 -1 3000 3 0 1 6.212752"     "--bogus"            --bogus

if "$WATER" -h | grep -q '^usage: water'; then ok "-h prints usage"; else fail "-h"; fi

test_end
