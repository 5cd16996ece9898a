#!/usr/bin/env bash
# Water: malformed input and a missing or short data file end the program
# with exit status 2 and a single "water: ..." line on stderr that says what
# is wrong (naming the data file when it is the culprit), and nothing on
# stdout. Also: -h prints the usage and exits 0.
set -euo pipefail
cd "$(dirname "$0")/../.."
WATER=build/bin/water
RANDOM_IN=${WATER_RANDOM:-../shared/water/random.in}
[ -x "$WATER" ] || { echo "FAIL: $WATER not built (run make)"; exit 1; }
[ -r "$RANDOM_IN" ] || { echo "FAIL: data file $RANDOM_IN missing"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

failures=0
expect_error() { # description input expected-substring [water args...]
    local what=$1 input=$2 needle=$3; shift 3
    local status=0
    printf '%s\n' "$input" | "$WATER" "$@" > "$tmp/out" 2> "$tmp/err" || status=$?
    local lines; lines=$(wc -l < "$tmp/err")
    if [ "$status" = 2 ] && [ "$lines" = 1 ] && [ ! -s "$tmp/out" ] &&
       grep -q '^water: ' "$tmp/err" && grep -qF -- "$needle" "$tmp/err"; then
        echo "ok:   $what: $(cat "$tmp/err")"
    else
        echo "FAIL: $what: status $status, $lines stderr lines, wanted '$needle':"
        cat "$tmp/err" "$tmp/out"; failures=$((failures + 1))
    fi
}

R=(--random "$RANDOM_IN")
expect_error "nine fields"      "1.5e-16 512 3 6 -1 3000 3 0 1"              "found 9"            "${R[@]}"
expect_error "eleven fields"    "1.5e-16 512 3 6 -1 3000 3 0 1 6.2 9"        "found 11"           "${R[@]}"
expect_error "non-number"       "1.5e-16 512 3 six -1 3000 3 0 1 6.212752"   "NORDER"             "${R[@]}"
expect_error "non-cube NMOL"    "1.5e-16 500 3 6 -1 3000 3 0 1 6.212752"     "not a perfect cube" "${R[@]}"
expect_error "NMOL too big"     "1.5e-16 729 3 6 -1 3000 3 0 1 6.212752"     "$RANDOM_IN"         "${R[@]}"
expect_error "P = 0"            "1.5e-16 512 3 6 -1 3000 3 0 0 6.212752"     "NumProcs"           "${R[@]}"
expect_error "P > 256"          "1.5e-16 512 3 6 -1 3000 3 0 300 6.212752"   "NumProcs"           "${R[@]}"
expect_error "P > NMOL"         "1.5e-16 8 3 6 -1 3000 3 0 9 6.212752"       "NumProcs"           "${R[@]}"
expect_error "NORDER 5"         "1.5e-16 512 3 5 -1 3000 3 0 1 6.212752"     "NORDER must be 6"   "${R[@]}"
expect_error "NPRINT 0"         "1.5e-16 512 3 6 -1 3000 0 0 1 6.212752"     "NPRINT must be >= 1" "${R[@]}"
expect_error "missing data file" "1.5e-16 512 3 6 -1 3000 3 0 1 6.212752"    "$tmp/none.in"       --random "$tmp/none.in"
head -c 2000 "$RANDOM_IN" > "$tmp/short.in"
expect_error "short data file"  "1.5e-16 512 3 6 -1 3000 3 0 1 6.212752"     "$tmp/short.in"      --random "$tmp/short.in"
(cd "$tmp" && printf '1.5e-16 8 3 6 -1 3000 3 0 1 6.2\n' | "$OLDPWD/$WATER" > out 2> err) && status=0 || status=$?
if [ "$status" = 2 ] && grep -q 'random.in' "$tmp/err"; then
    echo "ok:   no random.in in the current directory: $(cat "$tmp/err")"
else
    echo "FAIL: no random.in in the current directory: status $status"; failures=$((failures + 1))
fi
expect_error "unknown option"   "1.5e-16 512 3 6 -1 3000 3 0 1 6.212752"     "--bogus"            --bogus

if "$WATER" -h | grep -q '^usage: water'; then echo "ok:   -h prints usage"; else echo "FAIL: -h"; failures=$((failures + 1)); fi

[ "$failures" -eq 0 ] && echo "water_errors: all passed" || echo "water_errors: $failures failed"
[ "$failures" -eq 0 ]
