#!/usr/bin/env bash
# replay_check.sh - checks `ini-trace whatif` against real runs
# (docs/traces.md, "Checked against real runs"): traced runs with one INI
# per cluster, made exactly as the chapter-5 grid in docs/results/thesis
# was (its calibration, knobs, dilation and stack, through
# tools/thesis/experiments.sh), each replayed with 1, 2, 4, 8 INIs per
# cluster and every policy, the predictions against the grid's medians.
#
#   tools/trace/replay_check.sh [--quick] [--reps N] [--out DIR] [--grid DIR]
#        [--calibration FILE] [--traces ARCHIVE] [--seed N]
#
#   default   the 1-INI static cells of every layout (16x1 8x2 4x4 2x8), 5
#             reps, all targets; output docs/results/replay-check
#   --quick   clusters of 8 (2x8), 1 rep, targets 1 INI static and
#             round-robin, 2 INIs static; output runs/replay-check-quick-DATE
#   --traces  replay the runs of an earlier check (its traces.tar.xz)
#             instead of running them again
#
# In OUT: runs/ (experiments.sh's layout: meta.txt, runs.tsv,
# reports.jsonl, with its no-INI and INI-delay baselines), traces.tar.xz
# (every traced run's ini*.trace, cn*.trace, clocks.tsv and time-c*.txt:
# one archive, not loose files), predictions.tsv and replay-check.txt/.csv
# (tools/inimeasure/replay_check.py).  A partial run (--quick, --reps < 5)
# refuses to write into docs/results/replay-check.
PROG=replay_check; . "$(dirname "$0")/../lib/options.sh"
QUICK=0 REPS=5 OUT= GRID=docs/results/thesis CALIB=docs/results/thesis-calibration.txt TRACES= SEED=
parse_options "--quick:QUICK=1 --reps=REPS --out=OUT --grid=GRID --calibration=CALIB --traces=TRACES
    --seed=SEED" "$@"
posint --reps "$REPS"
[ -d "$GRID" ] && [ -f "$GRID/runs.tsv" ] || die "--grid: $GRID is not an experiment directory (no runs.tsv)"
CELLS="16x1:1 8x2:1 4x4:1 2x8:1" TARGETS=
if [ $QUICK = 1 ]; then
    CELLS="2x8:1" TARGETS="1:static,1:round-robin,2:static"
    [ "$REPS" = 5 ] && REPS=1
fi
PARTIAL=$([ $QUICK = 1 ] || [ "$REPS" -lt 5 ] && echo 1 || echo 0)
if [ -z "$OUT" ]; then
    OUT=$([ $PARTIAL = 1 ] && echo "runs/replay-check-$([ $QUICK = 1 ] && echo quick || echo partial)-$(date +%Y%m%d-%H%M%S)" ||
          echo docs/results/replay-check)
fi
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
# the runs' tables and meta.txt carry the command line: a path from the
# tree's top, not this machine's
OUT_REL=$(realpath --relative-to="$ROOT" "$OUT")
[ $PARTIAL = 1 ] && [ "$OUT" = "$ROOT/docs/results/replay-check" ] &&
    die "a partial run (--quick, --reps < 5) does not write into docs/results/replay-check"
for b in ini-trace ini-cluster water inid; do
    [ -x "build/bin/$b" ] || die "build/bin/$b not built (run make)"
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

if [ -n "$TRACES" ]; then
    [ -r "$TRACES" ] || die "--traces: cannot read $TRACES"
    tar -xJf "$TRACES" -C "$tmp" || die "--traces: $TRACES is not a tar.xz of traced runs"
    [ "$(readlink -f "$TRACES")" = "$OUT/traces.tar.xz" ] || cp "$TRACES" "$OUT/traces.tar.xz"
else
    # The grid's own way of running (its calibration, knob, dilation and
    # stack): experiments.sh, keeping each INI run's traces (runs.sh).
    RUNS_KEEP=$tmp/traces tools/thesis/experiments.sh --cells "$CELLS" --policies static --reps "$REPS" \
        --calibration "$CALIB" --knob O_mode=sleep,O_dist=exp ${SEED:+--seed "$SEED"} --out "$OUT_REL/runs" || exit 1
    (cd "$tmp" && tar -cJf "$OUT/traces.tar.xz" traces) || die "cannot write $OUT/traces.tar.xz"
    echo "replay_check: traces of $(ls "$tmp/traces" | wc -l) run(s) in $OUT/traces.tar.xz ($(du -h "$OUT/traces.tar.xz" | cut -f1))"
fi
python3 -m inimeasure.replay_check --traces "$tmp/traces" --grid "$GRID" --out "$OUT" ${TARGETS:+--targets "$TARGETS"}
