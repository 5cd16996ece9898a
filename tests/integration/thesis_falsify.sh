#!/usr/bin/env bash
# thesis_falsify: the quick form of each experiment of tools/thesis/falsify.sh
# (the calibrated mode made falsifiable), into a temporary directory; about
# a minute each.  Checks:
#   ablation  both runs (stack: inid; forwarder: cluster-fake-inid, whose
#             meta.txt names it) made their tables; the forwarder's INI runs
#             have traces (utilization in (0, 1]); comparison.txt compares
#             every INI cell of the two on run time, utilization, both
#             queues and message time, with a verdict per row
#   k600      two calibrations (K = 10 and 20 in the quick form) and two runs,
#             each at its K (meta.txt's dilate=), compared
#   predict   prediction.txt written (a row per configuration of clusters of
#             4, values in range) BEFORE the runs: its time and SHA-256 in
#             falsify.txt ahead of the first run's line, the file older than
#             the runs' meta.txt and unchanged since; the runs used O_8 for
#             every size; prediction-check.txt puts every predicted figure
#             beside the measured one
#   fixed-o   the two runs with O_dist=exp and O_dist=fixed, compared
# and that a quick run refuses to write into docs/results.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
water_test_start thesis_falsify build/bin/ini-cluster build/bin/inid build/bin/ini-trace build/bin/cluster-fake-inid \
    build/bin/ini-model
export WATER_RANDOM=$RANDOM_IN
F=tools/thesis/falsify.sh

run() { # WHAT: the quick form into $TMP/WHAT
    if $F "$1" --quick --seed 7 --out "$TMP/$1" > "$TMP/$1.log" 2>&1; then
        return 0
    fi
    fail "$1 --quick failed"; tail -8 "$TMP/$1.log"
    return 1
}
# compared A B CELLS...: comparison.txt has each cell with the five figures and a verdict
compared() {
    local d=$1 c fig n=0
    shift
    for c in "$@"; do
        for fig in "run time (ms)" "INI utilization" "queue (time avg)" "queue at arrival" "msg time (us)"; do
            grep -qE "^ *$c +$fig .*(equivalent|different|undecided at this power)\$" "$d/comparison.txt" ||
                { fail "$d/comparison.txt: no row for $c, $fig"; return 1; }
            n=$((n + 1))
        done
    done
    echo "$n"
}

if run ablation; then
    d=$TMP/ablation
    [ -s "$d/stack/table5_3_ini_static.txt" ] && [ -s "$d/forwarder/table5_3_ini_static.txt" ] ||
        fail "ablation: tables missing"
    grep -q 'daemon="build/bin/cluster-fake-inid"' "$d/forwarder/meta.txt" || fail "ablation: the forwarder's meta.txt does not name it"
    python3 -c '
import json, sys
u = [json.loads(l)["report"]["machine"]["utilization"] for l in open(sys.argv[1]) if "\"rep\"" in l]
assert u and all(0 < x <= 1 for x in u), u' "$d/forwarder/reports.jsonl" || fail "ablation: the forwarder's traces"
n=$(compared "$d" c8-i1-static c8-i2-static) && ok "ablation: stack and forwarder compared ($n rows with a verdict)"
fi

if run k600; then
    d=$TMP/k600
    grep -q 'dilate=10 ' "$d/k10/meta.txt" && grep -q 'dilate=20 ' "$d/k20/meta.txt" ||
        fail "k600: the runs are not at their calibration's K"
    n=$(compared "$d" c8-i1-static c8-i2-static c8-i1-round-robin) && ok "k600: K = 10 and 20 compared ($n rows)"
fi

if run predict; then
    d=$TMP/predict
    python3 - "$d/prediction.txt" <<'EOF' || fail "predict: prediction.txt"
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
assert [(r[0], r[1]) for r in rows] == [("4", "1"), ("4", "2"), ("4", "4")], rows
for r in rows:
    t, u, q = float(r[6]), float(r[7]), float(r[8])
    assert t > 0 and 0 < u < 1 and q > 0, r
EOF
    sum=$(sed -n 's/.*prediction written: .* sha256 \([0-9a-f]*\)$/\1/p' "$d/falsify.txt")
    pl=$(grep -n 'prediction written' "$d/falsify.txt" | cut -d: -f1)
    rl=$(grep -n 'runs runs: experiments.sh' "$d/falsify.txt" | cut -d: -f1)
    if [ -n "$sum" ] && [ "$sum" = "$(sha256sum "$d/prediction.txt" | cut -d' ' -f1)" ] && [ -n "$pl" ] && [ -n "$rl" ] &&
       [ "$pl" -lt "$rl" ] && [ "$d/prediction.txt" -ot "$d/runs/meta.txt" ]; then
        ok "predict: prediction written (sha256 ${sum:0:12}...) before the runs began, unchanged since"
    else
        fail "predict: the prediction was not provably written first (sha '$sum', lines $pl < $rl?)"
    fi
    o8=$(awk '!/^#/ && $1 == 8 {print $2}' "$d/calibration-8.txt")
    grep -q "knob_size_4=\"O=$o8," "$d/runs/meta.txt" || fail "predict: clusters of 4 did not run with O_8 = $o8"
    [ "$(grep -cE '^ +4 +[12] +(run time|utilization|queue) ' "$d/prediction-check.txt")" = 6 ] &&
        grep -q 'predicted figures lie inside the measured 95% interval' "$d/prediction-check.txt" &&
        ok "predict: $(tail -n 1 "$d/prediction-check.txt")" || fail "predict: prediction-check.txt"
fi

if run fixed-o; then
    d=$TMP/fixed-o
    grep -q 'O_dist=fixed' "$d/fixed/meta.txt" && grep -q 'O_dist=exp' "$d/exp/meta.txt" || fail "fixed-o: the knobs"
    n=$(compared "$d" c8-i1-static c8-i2-round-robin) && ok "fixed-o: exponential and fixed O compared ($n rows)"
fi

if $F ablation --quick --out docs/results/calibrated-ablation > "$TMP/refuse" 2>&1 || ! grep -q 'does not write into docs/results' "$TMP/refuse"; then
    fail "a quick run may write into docs/results"
else
    ok "a quick run refuses docs/results"
fi
test_end
