#!/usr/bin/env bash
# synth_fig63_quick: the figure 6-3 experiment in its CI size
# (tools/synth/fig63.sh --quick: N = 1, 2, 4, 5 s each) writes its CSV with
# one row per N, every row carrying a positive measured queue length and
# the model's prediction, and (when gnuplot is installed) the PNG.  The
# numbers themselves are not judged here: 5-second runs are too short for
# that (docs/synth.md has the full experiment).
set -u
cd "$(dirname "$0")/../.."
fail() { echo "synth_fig63_quick: FAIL: $*"; exit 1; }
out=$(mktemp -d /tmp/synth-fig63.XXXXXX)
trap 'rm -rf "$out"' EXIT

tools/synth/fig63.sh --quick --out "$out" || fail "fig63.sh --quick exited with $?"
csv="$out/fig6-3.csv"
[ -s "$csv" ] || fail "no $csv"
cat "$csv"
head -n 1 "$csv" | grep -q '^N,Q_measured,Q_model,rel_err,' || fail "unexpected CSV header"
ns=$(tail -n +2 "$csv" | cut -d, -f1 | paste -sd, -)
[ "$ns" = "1,2,4" ] || fail "CSV rows for N = $ns, expected 1,2,4"
tail -n +2 "$csv" | awk -F, '!($2 > 0 && $3 > 0 && $9 > 0 && $15 > 0) { bad = 1; print "bad row: " $0 } END { exit bad }' ||
    fail "a row lacks a measurement or a prediction"
if command -v gnuplot >/dev/null; then
    [ -s "$out/fig6-3.png" ] || fail "no $out/fig6-3.png"
    head -c 8 "$out/fig6-3.png" | od -An -c | grep -q 'P   N   G' || fail "$out/fig6-3.png is not a PNG"
fi
echo "synth_fig63_quick: PASS"
