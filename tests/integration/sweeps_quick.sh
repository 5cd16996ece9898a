#!/usr/bin/env bash
# sweeps_quick: tools/sweeps/sweep.sh --quick (Water 2x8 with 2 INIs per
# cluster, static, 64 molecules, 1 step; ini-synth 60 cycles; every knob at
# the base and one or two values, 1 repetition) runs every point, writes the
# fits, points, tables and plots, and the values are sane: one fit per
# workload and knob, R² in [0, 1], positive base run times, slowdowns and
# predicted slopes, and ini-synth's predictions equal to what its exact
# counts give.  Measured slopes are not judged (no timing assertions: the
# quick runs last a fraction of a second on a shared machine).  Bad
# arguments: one line, exit 2.  Then the model tables from committed inputs.
set -u
cd "$(dirname "$0")/../.."
PROG=sweeps_quick; . tools/lib/options.sh   # PYTHONPATH for python3 -m inimeasure.*
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
for f in sweeps.txt fits.csv points.csv runs.tsv meta.txt reports.jsonl; do
    [ -s "$out/$f" ] || fail "no $out/$f"
done
[ -e "$out/raw" ] && fail "a raw/ directory beside the runs table"
[ "$(tail -n +2 "$out/runs.tsv" | wc -l)" = 14 ] || fail "runs.tsv: expected 14 runs"
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
     !($c["status"] == "ok" && $c["runtime_s"] > 0 && $c["load_before"] ~ /^[0-9.]+$/ && $c["flag"] ~ /^(ok|loaded)$/) { bad = 1; print "bad run: " $0 }
     END { exit bad }' "$out/runs.tsv" || fail "a run lacks its run time or load"
# One report per base run (Water and ini-synth, 1 rep each), with the
# programs' counters the predictions come from.
python3 - "$out/reports.jsonl" <<'EOF' || fail "reports.jsonl: not one line per base run with its counters"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
got = sorted((l["workload"], l["knob"], l["rep"], sorted(l["programs"])[0].split("-")[0], bool(l["report"])) for l in lines)
sys.exit(got != [("synth", "base", 1, "synth", True), ("water:2x8:2:static", "base", 1, "mgs", True)])
EOF
fits="$out/fits.csv"
cat "$fits"
[ "$(tail -n +2 "$fits" | wc -l)" = 10 ] || fail "fits.csv: expected 10 fits (2 workloads x 5 knobs)"
tail -n +2 "$fits" | awk -F, '!($7 >= 0 && $7 <= 1 && $9 > 0 && $11 > 0 && $12 > 0) { bad = 1; print "bad fit: " $0 } END { exit bad }' ||
    fail "a fit is out of range (R², base run time, slowdown or predicted slope)"
synth() { awk -F, -v k="$1" -v c="$2" '$1 == "synth" && $2 == k { print $c }' "$fits"; }
# Predictions come from counts, which are exact: every node runs 60 cycles
# and every request is served once, so ΔL's prediction is 2 x 60 round
# trips and Δo's (seed 000) 2 x (60 requests + 60 replies), in s per us.
awk -v p="$(synth latency 12)" 'BEGIN { exit !(p > 0.00011999 && p < 0.00012001) }' ||
    fail "ini-synth: ΔL prediction $(synth latency 12), expected 2 x 60 x 1e-6"
awk -v p="$(synth overhead 12)" 'BEGIN { exit !(p > 0.00023999 && p < 0.00024001) }' ||
    fail "ini-synth: Δo prediction $(synth overhead 12), expected 2 x 120 x 1e-6"
grep -q '^== water:2x8:2:static' "$out/sweeps.txt" && grep -q '^== synth' "$out/sweeps.txt" || fail "sweeps.txt lacks a workload"
if command -v gnuplot >/dev/null; then
    for png in synth.png water_2x8_2_static.png; do
        head -c 8 "$out/$png" 2>/dev/null | od -An -c | grep -q 'P   N   G' || fail "$out/$png is not a PNG"
    done
fi
# The model tables from committed inputs (no runs): the three models
# against the synthetic workload at N = 1..8, and chapter 6 for Water on
# the committed thesis results.
python3 -m inimeasure.models docs/results/sweeps/models-raw --out "$out/models" > /dev/null || fail "models.py failed"
[ "$(tail -n +2 "$out/models/models.csv" | wc -l)" = 8 ] || fail "models.csv: expected N = 1..8"
tail -n +2 "$out/models/models.csv" | awk -F, '!($4 > 0 && $5 > 0 && $10 > 0 && $14 < $10) { bad = 1; print "bad row: " $0 } END { exit bad }' ||
    fail "models.csv: a row lacks a measurement, or LoPC's queue is not below chapter 6's"
python3 -m inimeasure.water_model docs/results/thesis --out "$out/water" > /dev/null || fail "water_model.py failed"
rows=$(tail -n +2 "$out/water/water-model.csv" | wc -l)
[ "$rows" -ge 10 ] || fail "water-model.csv: $rows configurations, expected at least 10"
grep -q '^mva  : median |error|' "$out/water/water-model.txt" || fail "water-model.txt lacks the error summary"
python3 -m inimeasure.water_model /nonexistent 2>/dev/null; [ $? = 1 ] || fail "water_model.py on a missing directory: expected exit 1"
echo "sweeps_quick: PASS"
