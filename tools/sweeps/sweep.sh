#!/usr/bin/env bash
# sweep.sh - communication parameters varied one at a time (seed 000, Martin
# et al.) on Water on MGS and on ini-synth, on top of the calibrated regime.
# Each knob alone (O, Δo = overhead_us, Δg = gap_us, ΔG = per_byte_ns,
# ΔL = latency_us) over several values, every point --reps times, all runs in
# one seeded random order (interleaved), the machine's load recorded per run.
# Then tools/inimeasure/sweep_fit.py: run time and slowdown against each knob,
# the linear fit with R² and residuals, and seed 000's predicted slope from
# the message counts of the base runs beside the measured one; tables, CSV
# and PNG plots.  See docs/sweeps.md.
#
#   tools/sweeps/sweep.sh [--quick] [--reps N] [--seed S] [--calibration FILE]
#        [--layouts "2x8:2 4x4:2"] [--policies static,round-robin]
#        [--knobs O,overhead,gap,per_byte,latency] [--values KNOB=V1,V2,...]
#        [--no-water] [--no-synth] [--load-limit X] [--out DIR] [--plan] [--time real]
#
# Workloads:
#   water  Water on MGS (343 molecules, 2 steps, 16 compute nodes) per
#          layout CxP:I (C clusters of P nodes, I INIs per cluster) and policy
#          (--policy and --ini-policy of the launcher); the INI's O is the
#          calibration file's O for cluster size P (O_mode=sleep,O_dist=exp),
#          and the O knob is swept as an addition to it.
#   synth  ini-synth, 2 clusters x 4 nodes x 1 INI, W 2000 us, o 50 us
#          (exponential, sleeping), a fixed number of cycles per node, base
#          O 100 us (sleep, exp); its "run time" is cycles x mean cycle time.
# Δo is spent sleeping (overhead_mode=sleep): the compute side of this
# machine is 16+ threads on 2 cores, and a spinning Δo would take the cores
# from the other nodes, which a node's own processor would not.
#
# Output: docs/results/sweeps/ for the full run (every workload, layout and
# policy, at least seed 000's four knobs Δo, Δg, ΔG, ΔL, --reps >= 5); any
# other run writes runs/sweeps-<quick|partial>-DATE unless --out is given,
# and never into docs/results/sweeps.  The layout of tools/inimeasure/runs.py
# (the run loop is tools/thesis/runs.sh, shared with experiments.sh):
# meta.txt; runs.tsv, one row per run; reports.jsonl, one line per base
# run with the counts the predictions come from (the ini-trace report, the
# programs' mgs-cluster*.json or synth-cluster*.json, the --knob given);
# errors.log only when something failed; then sweep_fit.py's files.
# --plan prints meta.txt and the run order and writes nothing.  Real time
# only: --time virtual is refused (exit 2), as every point is a knob and
# the virtual machine charges no knob to a clock (docs/virtual-time.md).
# Exit status 0, 1 when runs failed, 2 on bad arguments.
PROG=sweep; . "$(dirname "$0")/../lib/options.sh"
CMDLINE="tools/sweeps/sweep.sh $*"

QUICK=0 REPS=5 SEED= CALIB= LAYOUTS="2x8:2 4x4:2" POLICIES="static,round-robin"
KNOBS="O,overhead,gap,per_byte,latency" WATER=1 SYNTH=1 LOADLIM=none OUT= PLAN=0 VALUES=() TIME=real
NMOL=343 NSTEP=2 SYNTH_CYCLES=300 SAMPLE_S=1
# --values may be given more than once
option_other() { [ "$1" = --values ] || return 0; need "$@"; VALUES+=("$2"); OPT_SHIFT=2; }
show_help() { help_between '^#   tools' '^#        \[--no-water'; }
parse_options "--quick:QUICK=1 --reps=REPS --seed=SEED --calibration=CALIB --layouts=LAYOUTS
    --policies=POLICIES --knobs=KNOBS --no-water:WATER=0 --no-synth:SYNTH=0 --load-limit=LOADLIM
    --out=OUT --plan:PLAN=1 --time=TIME" "$@"
case $TIME in
    real) ;;
    virtual) die "--time virtual: knobs are not modelled in virtual time (docs/virtual-time.md); vary --vt-costs instead" ;;
    *) die "--time: '$TIME' is not real or virtual" ;;
esac

# Knob values (the base, 0, is shared by all knobs of a workload).  Chosen
# from the base runs' message counts so that the predicted slowdown spans
# about 1x to 3x (docs/sweeps.md); --values KNOB=... overrides.
# Water's values are twice the single-run range check's (1x-3x at no
# dilation): with the calibration's dilation the base run is about 4 times
# longer, and the same values would move it by less than its spread.
declare -A WV=( [O]="50,100,200,300,400" [overhead]="30,60,120,180,240" [gap]="100,200,400,600,800"
                [per_byte]="200,400,800,1400,2000" [latency]="200,400,800,1400,2000" )
declare -A SV=( [O]="25,50,75,100,125" [overhead]="100,200,400,600,800" [gap]="100,200,300,400,500"
                [per_byte]="2000,4000,8000,12000,16000" [latency]="250,500,1000,1500,2000" )
if [ $QUICK = 1 ]; then
    [ "$LAYOUTS" = "2x8:2 4x4:2" ] && LAYOUTS="2x8:2"
    [ "$POLICIES" = "static,round-robin" ] && POLICIES="static"
    [ "$REPS" = 5 ] && REPS=1
    NMOL=64 NSTEP=1 SYNTH_CYCLES=60 SAMPLE_S=0.25
    WV=( [O]="200" [overhead]="100" [gap]="200" [per_byte]="400" [latency]="500" )
    SV=( [O]="100" [overhead]="400,800" [gap]="400" [per_byte]="16000" [latency]="1000,2000" )
fi
for v in "${VALUES[@]}"; do
    [[ $v =~ ^(water|synth)?:?(O|overhead|gap|per_byte|latency)=[0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*$ ]] ||
        die "--values: '$v' is not [water:|synth:]KNOB=V1,V2,... (KNOB: O, overhead, gap, per_byte, latency)"
    k=${v%%=*}; vals=${v#*=}
    case $k in water:*) WV[${k#water:}]=$vals ;; synth:*) SV[${k#synth:}]=$vals ;; *) WV[$k]=$vals; SV[$k]=$vals ;; esac
done
posint --reps "$REPS"
loadlimit --load-limit "$LOADLIM"
[ -z "$SEED" ] && SEED=$(date +%s)
nonneg --seed "$SEED"
for k in ${KNOBS//,/ }; do
    case $k in O|overhead|gap|per_byte|latency) ;; *) die "--knobs: unknown knob '$k' (O, overhead, gap, per_byte, latency)" ;; esac
done
for pol in ${POLICIES//,/ }; do
    case $pol in static|round-robin|load-aware) ;; *) die "--policies: unknown policy '$pol'" ;; esac
done
for lay in $LAYOUTS; do
    [[ $lay =~ ^([0-9]+)x([0-9]+):([0-9]+)$ ]] || die "--layouts: '$lay' is not CLUSTERSxPES:INIS (e.g. 2x8:2)"
    [ $((BASH_REMATCH[1] * BASH_REMATCH[2])) = 16 ] || die "--layouts: $lay has not 16 compute nodes (Water's NumProcs)"
    [ "${BASH_REMATCH[3]}" -ge 1 ] && [ "${BASH_REMATCH[3]}" -le "${BASH_REMATCH[2]}" ] || die "--layouts: $lay: INIs per cluster must be 1..${BASH_REMATCH[2]}"
done
[ $WATER = 1 ] || [ $SYNTH = 1 ] || die "--no-water and --no-synth: nothing to run"

# The calibrated O per cluster size (tools/thesis/calibrate.sh's file).  A
# quick or partial run without one uses FALLBACK_O for every size (said in
# meta.txt); the full run needs the file.
FALLBACK_O=50
if [ $WATER = 1 ]; then
    [ -z "$CALIB" ] && [ -r docs/results/thesis-calibration.txt ] && CALIB=docs/results/thesis-calibration.txt
    if [ -n "$CALIB" ]; then
        [ -r "$CALIB" ] || die "--calibration: cannot read $CALIB"
        bad=$(awk '!/^[ \t]*(#|$)/ && !($1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+(\.[0-9]*)?$/) {print FILENAME ":" NR ": expected SIZE O_US"; exit}' "$CALIB")
        [ -z "$bad" ] || die "--calibration: $bad"
        for lay in $LAYOUTS; do
            P=${lay%%:*}; P=${P#*x}
            awk -v c="$P" '!/^[ \t]*#/ && $1 == c {f = 1} END {exit !f}' "$CALIB" || die "--calibration: $CALIB has no line for cluster size $P"
        done
    fi
fi
# The calibration's regime (tools/thesis/regime.sh): Water runs with the
# same dilation and idle yield, or its O means nothing.
. "$ROOT/tools/thesis/regime.sh"
DILATE=1 YIELD=
if [ -n "$CALIB" ]; then
    regime_read "$CALIB"
    DILATE=${REGIME_DILATE:-1} YIELD=$REGIME_YIELD
fi
base_O() {  # cluster size -> calibrated O (us)
    if [ -n "$CALIB" ]; then awk -v c="$1" '!/^[ \t]*#/ && $1 == c {print $2; exit}' "$CALIB"; else echo $FALLBACK_O; fi
}

FULL=0
if [ $QUICK = 0 ] && [ $WATER = 1 ] && [ $SYNTH = 1 ] && [ "$LAYOUTS" = "2x8:2 4x4:2" ] &&
   [ "$POLICIES" = "static,round-robin" ] && [[ ,$KNOBS, == *,overhead,gap,per_byte,latency,* ]] &&
   [ "$REPS" -ge 5 ] && [ ${#VALUES[@]} = 0 ]; then
    FULL=1
fi
if [ $WATER = 1 ] && [ -z "$CALIB" ]; then
    [ $FULL = 1 ] && die "the full sweep needs the calibration (--calibration FILE; tools/thesis/calibrate.sh writes docs/results/thesis-calibration.txt)"
    echo "sweep: no calibration file: the base O is $FALLBACK_O us at every cluster size (not the calibrated regime)" >&2
fi
if [ -z "$OUT" ]; then
    if [ $FULL = 1 ]; then OUT=docs/results/sweeps
    else OUT=runs/sweeps-$([ $QUICK = 1 ] && echo quick || echo partial)-$(date +%Y%m%d-%H%M%S); fi
fi
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
[ $FULL = 0 ] && [ "$OUT" = "$ROOT/docs/results/sweeps" ] && die "a partial or quick run does not write into docs/results/sweeps"

CLUSTER=$ROOT/build/bin/ini-cluster TRACE=$ROOT/build/bin/ini-trace WATER_BIN=$ROOT/build/bin/water
SYNTH_BIN=$ROOT/build/bin/ini-synth TIMED=$ROOT/tools/thesis/timed-water.sh
RANDOM_IN=${WATER_RANDOM:-$ROOT/tools/apps/water/data/random.in}
make -s build/bin/ini-cluster build/bin/inid build/bin/ini-trace build/bin/water build/bin/ini-synth build/bin/ini-model >/dev/null ||
    { echo "sweep: build failed" >&2; exit 1; }
[ $WATER = 0 ] || [ -r "$RANDOM_IN" ] || { echo "sweep: data file $RANDOM_IN missing" >&2; exit 1; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$ROOT/tools/thesis/runs.sh"
# Private copies of the binaries: a rebuild in the tree during the sweep
# must not change them between runs.  ini-cluster finds inid beside it.
mkdir -p "$tmp/bin" && cp "$CLUSTER" "$ROOT/build/bin/inid" "$TRACE" "$WATER_BIN" "$SYNTH_BIN" "$tmp/bin/" ||
    { echo "sweep: cannot copy the binaries" >&2; exit 1; }
CLUSTER=$tmp/bin/ini-cluster TRACE=$tmp/bin/ini-trace WATER_BIN=$tmp/bin/water SYNTH_BIN=$tmp/bin/ini-synth
water_input "$NMOL" "$NSTEP" "$tmp/water.in"

# ---- the plan: every (workload, point, rep) in one seeded random order ----
# A point: WORKLOAD KNOB VALUE, with WORKLOAD water:CxP:I:POLICY or synth.
: > "$tmp/points"
if [ $WATER = 1 ]; then
    for lay in $LAYOUTS; do
        for pol in ${POLICIES//,/ }; do
            wl="water:${lay%%:*}:${lay#*:}:$pol"
            echo "$wl base 0" >> "$tmp/points"
            for k in ${KNOBS//,/ }; do for v in ${WV[$k]//,/ }; do echo "$wl $k $v" >> "$tmp/points"; done; done
        done
    done
fi
if [ $SYNTH = 1 ]; then
    echo "synth base 0" >> "$tmp/points"
    for k in ${KNOBS//,/ }; do for v in ${SV[$k]//,/ }; do echo "synth $k $v" >> "$tmp/points"; done; done
fi
runs_plan "$tmp/points" "$REPS" "$SEED" > "$tmp/plan"
NRUNS=$(wc -l < "$tmp/plan")
{
    echo "# $CMDLINE"
    echo "reps=$REPS seed=$SEED layouts=\"$LAYOUTS\" policies=$POLICIES knobs=$KNOBS runs=$NRUNS load_limit=$LOADLIM"
    echo "water=$WATER nmol=$NMOL nstep=$NSTEP synth=$SYNTH synth_cycles=$SYNTH_CYCLES quick=$QUICK full=$FULL"
    echo "water: dilate=$DILATE idle_yield_us=${YIELD:-default} (from the calibration)"
    echo "date=$(date -Iseconds) commit=$(git rev-parse --short HEAD 2>/dev/null || echo -) calibration=\"${CALIB:-none: base O $FALLBACK_O us}\""
    for k in ${KNOBS//,/ }; do echo "water_values_$k=${WV[$k]} synth_values_$k=${SV[$k]}"; done
    [ -n "$CALIB" ] && sed 's/^/calibration_file: /' "$CALIB"
} > "$tmp/meta.txt"
echo "sweep: $NRUNS runs ($REPS per point), seed $SEED; output $OUT"
if [ $PLAN = 1 ]; then cat "$tmp/meta.txt" "$tmp/plan"; exit 0; fi
runs_open "$OUT" workload knob value
cp "$tmp/meta.txt" "$OUT/meta.txt"
# The load sample before each run: 1 s, a quarter in --quick.
RUNS_TMP=$tmp RUNS_TRACE=$TRACE RUNS_LOADLIM=$LOADLIM RUNS_SAMPLE_S=$SAMPLE_S

# The --knob value of one run: the workload's base O plus the swept knob.
knob_spec() {  # BASE_O KNOB VALUE
    local O=$1 k=$2 v=$3 spec
    [ "$k" = O ] && O=$(awk -v a="$O" -v b="$v" 'BEGIN{printf "%g", a + b}')
    spec="O=$O,O_mode=sleep,O_dist=exp,overhead_mode=sleep"
    case $k in
    overhead) spec="$spec,overhead_us=$v" ;; gap) spec="$spec,gap_us=$v" ;;
    per_byte) spec="$spec,per_byte_ns=$v" ;; latency) spec="$spec,latency_us=$v" ;;
    esac
    echo "$spec"
}

# ---- one run (runs_loop calls it with the plan's fields) ----
sweep_run() {  # WORKLOAD KNOB VALUE REP
    local wl=$1 k=$2 v=$3 rep=$4 dir=$tmp/run cfg spec rc keep=() f
    if [ "$wl" = synth ]; then
        cfg=$tmp/synth.cfg
        [ -f "$cfg" ] || { "$CLUSTER" gen 2 4 1 -o "$cfg" > /dev/null &&
            sed -i -e 's/idle    = { mode = "auto"/idle    = { mode = "adaptive"/' \
                   -e 's/send_timeout_us = [0-9]*/send_timeout_us = 2000000/' "$cfg"; } || exit 1
        spec=$(knob_spec 100 "$k" "$v")
        runs_launch "$dir" /dev/null timeout 300 "$CLUSTER" run "$cfg" --trace summary --knob "$spec" \
            --run-dir "$dir" --timeout 250 -- \
            "$SYNTH_BIN" --W-us 2000 --o-us 50 --mode sleep --dist exp --cycles "$SYNTH_CYCLES" \
            --seed "$rep" --timeout-ms 30000
        rc=$?
        # run time: the cycles of a node times its mean cycle time, mean over the nodes
        RUN_TIME=$(python3 - "$dir" <<'EOF' 2>/dev/null
import glob, json, sys
pes = [p for f in glob.glob(sys.argv[1] + "/synth-cluster*.json") for p in json.load(open(f))["per_pe"]]
print("%.6f" % (sum(p["cycles"] * p["R_us"] for p in pes) / len(pes) / 1e6) if pes else "")
EOF
)
    else
        IFS=: read -r _ cp I pol <<< "$wl"
        local C=${cp%x*} P=${cp#*x}
        cfg=$tmp/$C-$P-$I.cfg
        if [ ! -f "$cfg" ]; then
            "$CLUSTER" gen "$C" "$P" "$I" -o "$cfg" > /dev/null || exit 1
            regime_config "$cfg" "$YIELD" || exit 2
        fi
        spec=$(knob_spec "$(base_O "$P")" "$k" "$v")
        runs_launch "$dir" "$tmp/water.in" env MGS_DILATE="$DILATE" timeout 600 "$CLUSTER" run "$cfg" \
            --policy "$pol" --ini-policy "$pol" --trace summary --knob "$spec" \
            --run-dir "$dir" --timeout 500 -- "$TIMED" "$WATER_BIN" --mgs --random "$RANDOM_IN"
        rc=$?
        grep -q '^Exited Happily' "$dir/cluster0.out" 2>/dev/null || { [ "$rc" = 0 ] && rc=1; }
        RUN_TIME=$(water_time "$dir")
    fi
    if [ "$rc" != 0 ] || [ -z "$RUN_TIME" ]; then
        RUN_TIME=; runs_fail "$dir" "exit $rc"; return
    fi
    if [ "$k" = base ]; then
        # The counts the predicted slopes come from.
        for f in "$dir"/mgs-cluster*.json "$dir"/synth-cluster*.json; do [ -f "$f" ] && keep+=(--program "$f"); done
        runs_report "$dir" --field "knob_spec=$spec" "${keep[@]}"
    fi
    RUN_STATUS=ok RUN_NOTE="$RUN_TIME s"
}

runs_loop "$tmp/plan" sweep_run
python3 -m inimeasure.sweep_fit "$OUT" || RUNS_FAILED=$((RUNS_FAILED + 1))
echo "sweep: $(runs_summary); results in $OUT"
[ "$RUNS_FAILED" = 0 ]
