#!/usr/bin/env bash
# models.sh - chapter 6 (mva), LoPC and LoGPC against the synthetic
# workload: runs tools/synth/fig63.sh (ini-synth, figure 6-3's W, o, O)
# REPS times for N = 1..8 into OUT/rep<k> (seed k), then
# tools/inimeasure/models.py on them: per N the measured cycle time and INI
# queue length beside each model's prediction at the parameters the runs
# achieved, with relative errors (OUT/models.txt, OUT/models.csv).
#
#   tools/sweeps/models.sh [--reps N] [--duration SEC] [--N LIST] [--out DIR] [--combine-only]
#                          [--time real|virtual] [--cycles N]
#
# Defaults: 3 repetitions of 12 s per N (about 10 minutes per repetition on
# a quiet machine: fig63.sh waits up to a minute before each N while other
# runs use the machine), OUT = runs/models-DATE.  --combine-only skips the
# runs and recomputes the tables from OUT/rep*/fig6-3.csv.  --time and
# --cycles go to fig63.sh: --time virtual runs N cycles per compute node
# on the emulated machine (default 200) in place of --duration.
PROG=models.sh; . "$(dirname "$0")/../lib/options.sh"
reps=3 duration=12 nlist=1,2,3,4,5,6,7,8 out= combine=0 time=real cycles=200
while [ $# -gt 0 ]; do
    case $1 in
    --combine-only) combine=1; shift; continue ;;
    -h|--help) help_header; exit 0 ;;
    esac
    [ $# -ge 2 ] || die "$1: unknown option or missing value"
    case $1 in
    --reps) reps=$2 ;; --duration) duration=$2 ;; --N) nlist=$2 ;; --out) out=$2 ;;
    --time) time=$2 ;; --cycles) cycles=$2 ;;
    *) die "unknown option '$1'" ;;
    esac
    shift 2
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "--reps: '$reps' is not a positive integer"
case $time in real|virtual) ;; *) die "--time: '$time' is not real or virtual" ;; esac
[ -n "$out" ] || out=runs/models-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out" || exit 1
make -s build/bin/ini-model >/dev/null || { echo "models.sh: build failed" >&2; exit 1; }
if [ $combine = 0 ]; then
    for k in $(seq 1 "$reps"); do
        echo "models.sh: repetition $k/$reps -> $out/rep$k" >&2
        tools/synth/fig63.sh --N "$nlist" --duration "$duration" --time "$time" --cycles "$cycles" --seed "$k" \
            --out "$out/rep$k" ||
            echo "models.sh: repetition $k had a failed run (kept what it measured)" >&2
    done
fi
python3 -m inimeasure.models "$out"
