#!/usr/bin/env bash
# sweeps_quick: tools/sweeps/sweep.sh --quick (Water 2x8 with 2 INIs per
# cluster, static, 64 molecules, 1 step; ini-synth 60 cycles; every knob at
# the base and one or two values, 1 repetition) runs every point, writes the
# fits, points, tables and plots, and the values are sane: one fit per
# workload and knob, R² in [0, 1], positive base run times and predicted
# slopes, and on ini-synth (whose slowdowns are large even in a short run)
# a run time that grows with Δo and ΔL, the ΔL slope within a factor 3 of
# the round-trip prediction (2 ΔL per cycle).  Water's slopes are not
# judged: its quick runs last a fraction of a second.  Bad arguments: one
# line, exit 2.  No timing assertions beyond these signs.
set -u
cd "$(dirname "$0")/../.."
fail() { echo "sweeps_quick: FAIL: $*"; exit 1; }
out=$(mktemp -d /tmp/sweeps-quick.XXXXXX)
trap 'rm -rf "$out"' EXIT

for bad in "--layouts 3x3:1" "--knobs foo" "--values gap=abc" "--reps 0" "--policies rr" "--out"; do
    err=$(tools/sweeps/sweep.sh --quick $bad 2>&1 >/dev/null); rc=$?
    [ $rc = 2 ] || fail "sweep.sh $bad: exit $rc, expected 2"
    [ "$(printf '%s\n' "$err" | grep -c .)" -ge 1 ] || fail "sweep.sh $bad: no message"
done
err=$(tools/sweeps/sweep.sh --quick --out docs/results/sweeps 2>&1); rc=$?
[ $rc = 2 ] && echo "$err" | grep -q 'does not write into docs/results/sweeps' ||
    fail "a quick run must refuse docs/results/sweeps (exit $rc: $err)"

tools/sweeps/sweep.sh --quick --seed 7 --out "$out" || fail "sweep.sh --quick exited with $?"
for f in sweeps.txt fits.csv points.csv raw/runs.tsv raw/meta.txt; do
    [ -s "$out/$f" ] || fail "no $out/$f"
done
[ "$(tail -n +2 "$out/raw/runs.tsv" | wc -l)" = 14 ] || fail "raw/runs.tsv: expected 14 runs"
tail -n +2 "$out/raw/runs.tsv" | awk -F'\t' '!($5 > 0 && $6 ~ /^[0-9.]+$/ && $9 ~ /^(ok|loaded)$/) { bad = 1; print "bad run: " $0 } END { exit bad }' ||
    fail "a run lacks its run time or load"
fits="$out/fits.csv"
cat "$fits"
[ "$(tail -n +2 "$fits" | wc -l)" = 10 ] || fail "fits.csv: expected 10 fits (2 workloads x 5 knobs)"
tail -n +2 "$fits" | awk -F, '!($7 >= 0 && $7 <= 1 && $9 > 0 && $11 > 0 && $12 > 0) { bad = 1; print "bad fit: " $0 } END { exit bad }' ||
    fail "a fit is out of range (R², base run time, slowdown or predicted slope)"
synth() { awk -F, -v k="$1" -v c="$2" '$1 == "synth" && $2 == k { print $c }' "$fits"; }
awk -v s="$(synth overhead 5)" 'BEGIN { exit !(s > 0) }' || fail "ini-synth: run time does not grow with Δo"
awk -v s="$(synth latency 5)" -v p="$(synth latency 12)" 'BEGIN { exit !(s > 0 && s / p > 1/3 && s / p < 3) }' ||
    fail "ini-synth: ΔL slope $(synth latency 5) s/us, predicted $(synth latency 12)"
grep -q '^== water:2x8:2:static' "$out/sweeps.txt" && grep -q '^== synth' "$out/sweeps.txt" || fail "sweeps.txt lacks a workload"
if command -v gnuplot >/dev/null; then
    for png in synth.png water_2x8_2_static.png; do
        head -c 8 "$out/$png" 2>/dev/null | od -An -c | grep -q 'P   N   G' || fail "$out/$png is not a PNG"
    done
fi
echo "sweeps_quick: PASS"
