#!/usr/bin/env bash
# calibrate_math: tools/inimeasure/calibrate.py's arithmetic on fixed inputs
# (no runs).  With the committed calibration's measurements:
#   - a verify file of the service per pass alone reproduces the committed
#     corrected O for every size (the sleep-only correction);
#   - with the passes per INI measured at O_c (P1) the corrected O keeps the
#     demand: (O' + s1 - O_c) * P1 = D * T0, and P1 = P_c gives the
#     sleep-only result;
#   - medians are taken over several verify runs.
set -u
cd "$(dirname "$0")/../.."
PROG=calibrate_math; . tools/lib/options.sh   # PYTHONPATH for python3 -m inimeasure.*
fail() { echo "calibrate_math: FAIL: $*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/measured" <<'M'
1 5.3579 5.6151 5.3434 | 7588.875 7521.625 7526.75 | 11.2929989908051 10.4752561971955 10.0758922726889
8 2.6901 2.4981 2.2675 | 10033 9821 9643 | 6.5 6.5 6.5
M
printf '1 525.50\n8 370.74\n' > "$tmp/v-sleep"
python3 -m inimeasure.calibrate "$tmp/measured" "$tmp/a" cmd 343 2 "$tmp/v-sleep" knob > /dev/null || fail "calibrate.py exited with $?"
o() { awk -v c="$2" '!/^#/ && $1 == c {print $2}' "$1"; }
[ "$(o "$tmp/a" 1)" = 423.84 ] || fail "size 1: O' $(o "$tmp/a" 1), committed 423.84"
[ "$(o "$tmp/a" 8)" = 313.28 ] || fail "size 8: O' $(o "$tmp/a" 8), committed 313.28"
# P1 = P_c (median 9821) over three runs: the same as the sleep alone.
printf '1 520 525.50 530 | 7400 7527 7600\n8 370.74 360 380 | 9821 9000 9900\n' > "$tmp/v-same"
python3 -m inimeasure.calibrate "$tmp/measured" "$tmp/b" cmd 343 2 "$tmp/v-same" knob > /dev/null || fail "calibrate.py (P1) exited with $?"
[ "$(o "$tmp/b" 8)" = 313.28 ] || fail "size 8, P1 = P: O' $(o "$tmp/b" 8), expected 313.28"
# P1 a fifth lower: the demand D * T0 = 345.26 us * 9821 passes is kept.
printf '8 370.74 | 7857\n' > "$tmp/v-fewer"
python3 -m inimeasure.calibrate "$tmp/measured" "$tmp/c" cmd 343 2 "$tmp/v-fewer" knob > /dev/null || fail "calibrate.py (fewer) exited with $?"
awk -v oc="$(o "$tmp/c" 8)" 'BEGIN { d = (oc + 370.74 - 338.76) * 7857; exit !(d > 345.26 * 9821 * 0.999 && d < 345.26 * 9821 * 1.001) }' ||
    fail "size 8, P1 = 7857: O' $(o "$tmp/c" 8) does not keep the demand"
grep -q "O' = D \* T0 / P1 - (s1 - O)" "$tmp/c" || fail "the derivation line is missing from the file"
echo "calibrate_math: PASS"
