#!/usr/bin/env bash
# em3d_quick: tools/thesis/em3d.sh --quick in the uniform mode (K = 5):
# both parts (the curve on 2x2, the sqrt test at cluster sizes 1 and 2),
# one repetition.  Checks the layout of the output (docs/results/README.md):
# meta.txt names the mode, runs.tsv has a row per planned run and every
# run is ok, reports.jsonl has each run's report and em3d's RESULT fields
# with a positive time per edge, and the tables (curve, sqrt, the model's
# predictions for both parts, the sqrt points' from their twins without
# inter-cluster edges) have rows.  Then --replay on simple's curve and
# bulk's sqrt test at clusters of 4: the 1-INI runs are replayed at 2
# INIs and both prediction tables carry the replay's figure.
# Refusals: a partial run into docs/results/em3d-*, an unknown version.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start em3d_quick build/bin/em3d build/bin/ini-cluster build/bin/inid build/bin/ini-trace
S=tools/thesis/em3d.sh

tools/thesis/em3d.sh --quick --out docs/results/em3d-uniform-beta1 --uniform 5 > "$TMP/refuse.out" 2>&1
[ $? = 2 ] && grep -q 'partial run does not write' "$TMP/refuse.out" && ok "a quick run refuses docs/results/em3d-*" ||
    { fail "quick run into docs/results"; cat "$TMP/refuse.out"; }
$S --quick --variants bulk,warp > "$TMP/bad.out" 2>&1
[ $? = 2 ] && grep -q "unknown version 'warp'" "$TMP/bad.out" && ok "unknown version refused" || fail "unknown version"

planned=$($S --quick --uniform 5 --seed 7 --plan | grep -c '^curve \|^sqrt0\? ')
timeout 600 $S --quick --uniform 5 --seed 7 --out "$TMP/q" > "$TMP/q.log" 2>&1 || { fail "em3d.sh --quick: exit $?"; tail -20 "$TMP/q.log"; }
grep -q '^mode=uniform dilate=5 ' "$TMP/q/meta.txt" && ok "meta.txt: uniform, K = 5" || fail "meta.txt: $(sed -n 2p "$TMP/q/meta.txt")"
rows=$(($(wc -l < "$TMP/q/runs.tsv") - 1))
okrows=$(awk -F'\t' 'NR > 1 && $11 == "ok"' "$TMP/q/runs.tsv" | wc -l)
[ "$rows" = "$planned" ] && [ "$okrows" = "$planned" ] && ok "runs.tsv: $rows runs, all ok" ||
    { fail "runs.tsv: $rows rows, $okrows ok, $planned planned"; cat "$TMP/q/errors.log" 2> /dev/null | head -30; }
python3 - "$TMP/q/reports.jsonl" "$planned" <<'PY' && ok "reports.jsonl: each run's report and RESULT" || fail "reports.jsonl"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == int(sys.argv[2]), len(lines)
for r in lines:
    e = r["programs"]["em3d.json"]
    assert e["check"] == "ok" and float(e["us_per_edge"]) > 0, e
    assert r["report"]["machine"]["utilization"] is not None, r["report"]["machine"]
PY
for t in curve sqrt predict predict-sqrt; do
    n=$(($(wc -l < "$TMP/q/em3d-$t.csv") - 1))
    [ "$n" -gt 0 ] && ok "em3d-$t: $n rows" || fail "em3d-$t.csv has no rows"
done

# --replay: the 1-INI runs of simple's curve and of bulk's sqrt test at
# clusters of 4 replayed at 2 INIs, the replay's time per edge beside the
# model's
timeout 600 $S --quick --uniform 5 --replay --variants simple --sqrt-sizes 4 --seed 7 --out "$TMP/r" > "$TMP/r.log" 2>&1 ||
    { fail "em3d.sh --quick --replay: exit $?"; tail -20 "$TMP/r.log"; }
n=$(grep -cE '"replay_static_i2": ?"[0-9.]+"' "$TMP/r/reports.jsonl")
[ "$n" = 3 ] && ok "--replay: the three 1-INI runs replayed at 2 INIs" || fail "--replay: $n runs with replay_static_i2, wanted 3"
awk -F, '$3 == 2 && $5 == 0.6 && $13 ~ /^[0-9.]+ \(/ {found=1} END {exit !found}' "$TMP/r/em3d-predict.csv" &&
    ok "em3d-predict: the replay's prediction at 2 INIs: $(awk -F, '$3 == 2 && $5 == 0.6 {print $13}' "$TMP/r/em3d-predict.csv")" ||
    { fail "em3d-predict.csv has no replay prediction"; cat "$TMP/r/em3d-predict.csv"; }
awk -F, '$2 == 4 && $3 == 2 && $14 ~ /^[0-9.]+ \(/ {found=1} END {exit !found}' "$TMP/r/em3d-predict-sqrt.csv" &&
    ok "em3d-predict-sqrt: model $(awk -F, '$2 == 4 && $3 == 2 {print $12, "(" $13 "), replay", $14}' "$TMP/r/em3d-predict-sqrt.csv") at clusters of 4, 2 INIs" ||
    { fail "em3d-predict-sqrt.csv has no replay prediction"; cat "$TMP/r/em3d-predict-sqrt.csv"; }
test_end
