#!/usr/bin/env bash
# falsify.sh - the calibrated mode of the chapter 5 experiments made
# falsifiable (docs/experiments.md, "The calibrated mode, tested"): four
# experiments, each a pair of runs of tools/thesis/experiments.sh (one
# seeded random order each, the runs.sh layout) or a prediction and its
# runs, and their comparison.
#
#   tools/thesis/falsify.sh ablation|k600|predict|fixed-o [--quick] [--reps N] [--seed N] [--out DIR]
#
# ablation  the O server with no network stack: the committed calibration
#           (docs/results/thesis-calibration.txt, K = 300) at clusters of 4
#           and 8, static, once with inid (the stack) and once with
#           cluster-fake-inid (the same O server in front of a forwarder);
#           compare.py puts every figure of the two side by side (OUT/stack,
#           OUT/forwarder, OUT/comparison.txt)
# k600      whether the results have stopped moving with K: clusters of 8,
#           static and round-robin, calibrated and run at K = 300 and at
#           K = 600 on the same build (OUT/k300, OUT/k600, OUT/comparison.txt)
# predict   O fitted at clusters of 8 only (calibrate.sh --sizes 8), the
#           O = 0 inputs measured at clusters of 1, 2, 4 (calibrate.sh
#           --no-verify: no-INI run time, passes, native service; its O
#           not used), the chapter 6 model's prediction of utilization,
#           queue and run time written (OUT/prediction.txt, its SHA-256
#           and time in OUT/falsify.txt) BEFORE clusters of 1, 2, 4 run
#           with O_8 (OUT/runs); then the check (OUT/prediction-check.txt)
# fixed-o   fixed instead of exponential O at clusters of 8, static and
#           round-robin, the committed calibration (OUT/exp, OUT/fixed,
#           OUT/comparison.txt)
#
# --reps N (default 5), --seed N (default: the time; each run of the pair
# gets its own, recorded).  Output: docs/results/calibrated-WHAT for the
# full form, else runs/falsify-WHAT-DATE; a --quick or --reps < 5 run
# never writes into docs/results.  --quick: a calibration of its own at
# K = 10 on 64 molecules, 1 step, 1 repetition, fewer cells: a minute or
# two, for the test (tests/integration/thesis_falsify.sh).  OUT/falsify.txt
# logs every step with its time.
PROG=falsify; . "$(dirname "$0")/../lib/options.sh"
CMDLINE="tools/thesis/falsify.sh $*"
show_help() { help_usage; }
WHAT=${1:-}
case $WHAT in ablation|k600|predict|fixed-o) shift ;; -h|--help) show_help; exit 0 ;;
    *) die "expected ablation, k600, predict or fixed-o (see the header of $0)" ;; esac
QUICK=0 REPS=5 SEED=$(date +%s) OUT=
parse_options "--quick:QUICK=1 --reps=REPS --seed=SEED --out=OUT" "$@"
posint --reps "$REPS"
nonneg --seed "$SEED"
if [ -z "$OUT" ]; then
    if [ $QUICK = 0 ] && [ "$REPS" -ge 5 ]; then OUT=docs/results/calibrated-$WHAT
    else OUT=runs/falsify-$WHAT-$(date +%Y%m%d-%H%M%S); fi
fi
case $(cd "$(dirname "$OUT")" 2>/dev/null && pwd)/$(basename "$OUT") in
"$ROOT"/docs/results/*) [ $QUICK = 0 ] && [ "$REPS" -ge 5 ] || die "a --quick or --reps < 5 run does not write into docs/results" ;;
esac
mkdir -p "$OUT" || exit 1
T=$ROOT/tools/thesis
EXP=(bash "$T/experiments.sh") CAL=(bash "$T/calibrate.sh") CAL_COMMITTED=docs/results/thesis-calibration.txt
FAKE=build/bin/cluster-fake-inid     # relative: meta.txt names no path of this machine
LOG=$OUT/falsify.txt
log() { echo "$(date +%s.%N) $*" >> "$LOG"; echo "falsify: $*"; }
: > "$LOG"
log "start: $CMDLINE (commit $(git rev-parse --short HEAD 2>/dev/null || echo -))"

# The quick form: a small workload and a calibration of its own.
WORK=() CELLS4="4x4:1,2,4" CELLS8="2x8:1,2,4,8" K_LO=300 K_HI=600
if [ $QUICK = 1 ]; then
    REPS=1 WORK=(--nmol 64 --steps 1) CELLS4="4x4:1" CELLS8="2x8:1,2" K_LO=10 K_HI=20
fi
QCAL=(--reps 1 --verify-reps 1 --nmol 64 --steps 1)
# calibration SIZES K FILE [--no-verify]: calibrate.sh, quick or full
calibration() {
    local sizes=$1 k=$2 file=$3
    shift 3
    if [ $QUICK = 1 ]; then "${CAL[@]}" --sizes "$sizes" --dilate "$k" "${QCAL[@]}" --out "$file" "$@"
    else "${CAL[@]}" --sizes "$sizes" --dilate "$k" --out "$file" "$@"; fi > "$file.log" 2>&1 ||
        { tail -5 "$file.log" >&2; die "calibrate.sh --sizes $sizes --dilate $k failed"; }
    log "calibration $file (sizes $sizes, K = $k)"
}
# exp DIR SEED ARGS...: one experiments.sh run
exp() {
    local dir=$1 seed=$2
    shift 2
    log "runs $dir: experiments.sh $* --seed $seed"
    "${EXP[@]}" "$@" "${WORK[@]}" --reps "$REPS" --seed "$seed" --out "$OUT/$dir" > "$OUT/$dir.log" 2>&1 ||
        { tail -5 "$OUT/$dir.log" >&2; die "experiments.sh for $dir failed (log: $OUT/$dir.log)"; }
    log "runs $dir: $(grep '^experiments: .* runs, ' "$OUT/$dir.log" | tail -n 1)"
}
compare() {
    python3 -m inimeasure.compare "$OUT/$1" "$OUT/$2" --names "$1,$2" --margin 0.05 --out "$OUT/comparison.txt" > /dev/null ||
        die "compare.py failed"
    log "compared: $OUT/comparison.txt"
}
CAL_FILE=$CAL_COMMITTED
[ $QUICK = 1 ] && [ "$WHAT" != k600 ] && [ "$WHAT" != predict ] && { calibration 8 "$K_LO" "$OUT/calibration.txt"; CAL_FILE=$OUT/calibration.txt; }
KNOB=O_mode=sleep,O_dist=exp

case $WHAT in
ablation)
    cells="$CELLS4 $CELLS8"; [ $QUICK = 1 ] && cells=$CELLS8
    exp stack $SEED --calibration "$CAL_FILE" --knob $KNOB --cells "$cells" --policies static
    exp forwarder $((SEED + 1)) --calibration "$CAL_FILE" --knob $KNOB --cells "$cells" --policies static --daemon "$FAKE"
    compare stack forwarder ;;
k600)
    calibration 8 "$K_LO" "$OUT/calibration-k$K_LO.txt"
    calibration 8 "$K_HI" "$OUT/calibration-k$K_HI.txt"
    exp "k$K_LO" $SEED --calibration "$OUT/calibration-k$K_LO.txt" --knob $KNOB --cells "$CELLS8" --policies static,round-robin
    exp "k$K_HI" $((SEED + 1)) --calibration "$OUT/calibration-k$K_HI.txt" --knob $KNOB --cells "$CELLS8" --policies static,round-robin
    compare "k$K_LO" "k$K_HI" ;;
predict)
    k=$K_LO; others=1,2,4 cells="16x1:1 8x2:1,2 4x4:1,2,4"
    [ $QUICK = 1 ] && others=4 cells="4x4:1,2"
    calibration 8 "$k" "$OUT/calibration-8.txt"
    calibration "$others" "$k" "$OUT/measured-o0.txt" --no-verify
    python3 -m inimeasure.predict predict "$OUT/calibration-8.txt" "$OUT/measured-o0.txt" --out "$OUT/prediction.txt" > /dev/null ||
        die "predict.py failed"
    log "prediction written: $OUT/prediction.txt sha256 $(sha256sum "$OUT/prediction.txt" | cut -d' ' -f1)"
    o8=$(awk '!/^#/ && $1 == 8 {print $2}' "$OUT/calibration-8.txt")
    { for c in ${others//,/ }; do echo "$c $o8"; done; grep '^#@' "$OUT/calibration-8.txt"; } > "$OUT/calibration-o8.txt"
    exp runs $SEED --calibration "$OUT/calibration-o8.txt" --knob $KNOB --cells "$cells" --policies static
    python3 -m inimeasure.predict check "$OUT/prediction.txt" "$OUT/runs" --out "$OUT/prediction-check.txt" > /dev/null ||
        die "predict.py check failed"
    log "checked: $OUT/prediction-check.txt: $(tail -n 1 "$OUT/prediction-check.txt")" ;;
fixed-o)
    exp exp $SEED --calibration "$CAL_FILE" --knob $KNOB --cells "$CELLS8" --policies static,round-robin
    exp fixed $((SEED + 1)) --calibration "$CAL_FILE" --knob O_mode=sleep,O_dist=fixed --cells "$CELLS8" --policies static,round-robin
    compare exp fixed ;;
esac
log "done: $OUT"
