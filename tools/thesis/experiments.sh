#!/usr/bin/env bash
# The thesis's chapter 5 experiments (sections 5.2-5.5): Water (343
# molecules, 2 steps) on MGS, 16 compute nodes in clusters of 1, 2, 4, 8,
# with 1, 2, 4 .. (cluster size) INIs per cluster, static / round-robin /
# load-aware INI scheduling, plus the "no INI" (cluster-fake-inid) and
# "INI delay" (fake inid + INI_FAKE_DELAY_US) baselines.  Every cell is run
# --reps times, all runs in one seeded random order (interleaved across
# cells), with the load of the machine recorded per run.  Tables and
# figures: tools/inimeasure/tables.py.  See docs/experiments.md.
#
#   tools/thesis/experiments.sh [--quick] [--reps N] [--reps-at SIZES:N] [--cells SPEC] [--policies LIST]
#        [--knob SPEC] [--calibration FILE] [--uniform K [--beta B]] [--daemon PATH] [--seed N] [--load-limit X]
#        [--nmol N] [--steps N] [--out DIR] [--plan] [--dilate K] [--idle-yield US]
#
# Two modes.  Calibrated (--calibration, --dilate): the compute threads
# dilated K times, the INIs' service a fitted O.  Uniform (--uniform K):
# every processor K times slower from its own CPU time (compute and MGS
# protocol threads, and the INIs K*beta: the knobs dilate and beta), no O,
# nothing fitted; each INI run's CPU profile (tools/inimeasure/cpu_profile.py)
# goes into reports.jsonl.  --reps-at 4,8:10 runs the cells of clusters of
# 4 and 8 ten times (others --reps).  --daemon PATH: the INI runs' daemon
# (default inid; build/bin/cluster-fake-inid takes O and traces too: the
# calibrated mode with no network stack, tools/thesis/falsify.sh ablation).
#
# Output directory: the full default run (every cell, --reps 5 or more,
# 343 molecules, 2 steps) writes docs/results/thesis with --calibration,
# docs/results/thesis-uniform-betaB with --uniform (B: the beta),
# docs/results/thesis-uncalibrated without calibration or knobs; every other
# run writes runs/experiments-<quick|partial>-DATE unless --out names a
# directory, and a partial run refuses to write into those two.  In it:
# meta.txt, runs.tsv (one row per run), reports.jsonl (each INI run's
# ini-trace report), errors.log (only when something failed),
# delay-calibration.txt, and the tables (tools/inimeasure/runs.py, runs.sh).
# --plan prints meta.txt and the run order and writes nothing.
PROG=experiments; . "$(dirname "$0")/../lib/options.sh"
CMDLINE="tools/thesis/experiments.sh $*"
QUICK=0 OUT= REPS=5 CELLS= POLICIES="static,round-robin,load-aware" KNOB= CALIB= SEED= LOADLIM=none
NMOL=343 NSTEP=2 PLAN=0 PARTIAL=0 DILATE= YIELD= UNIFORM= BETA=1 REPS_AT= DAEMON=
DEFAULT_CELLS="16x1:1 8x2:1,2 4x4:1,2,4 2x8:1,2,4,8"
show_help() { help_between '^#   tools' '^#        \[--nmol'; }
parse_options "--quick:QUICK=1 --out=OUT --reps=REPS --cells=CELLS --policies=POLICIES --knob=KNOB
    --calibration=CALIB --seed=SEED --load-limit=LOADLIM --nmol=NMOL --steps=NSTEP --plan:PLAN=1
    --dilate=DILATE --idle-yield=YIELD --uniform=UNIFORM --beta=BETA --reps-at=REPS_AT
    --daemon=DAEMON" "$@"
posint --reps "$REPS"; nonneg --nmol "$NMOL"; posint --steps "$NSTEP"; loadlimit --load-limit "$LOADLIM"
[ -z "$REPS_AT" ] || [[ $REPS_AT =~ ^[1248](,[1248])*:[1-9][0-9]*$ ]] || die "--reps-at: expected SIZES:N (e.g. 4,8:10), got '$REPS_AT'"
[ -z "$SEED" ] && SEED=$(date +%s)
nonneg --seed "$SEED"
if [ $QUICK = 1 ]; then
    CELLS=${CELLS:-"4x4:1,2"}
    [ "$POLICIES" = "static,round-robin,load-aware" ] && POLICIES="static,round-robin"
    [ "$REPS" = 5 ] && REPS=1
fi
[ -n "$CELLS" ] || CELLS=$DEFAULT_CELLS
# a partial run: anything but every cell, every policy, >= 5 reps, the thesis's workload
if [ $QUICK = 1 ] || [ "$CELLS" != "$DEFAULT_CELLS" ] || [ "$REPS" -lt 5 ] ||
   [ "$POLICIES" != "static,round-robin,load-aware" ] || [ "$NMOL" != 343 ] || [ "$NSTEP" != 2 ]; then
    PARTIAL=1
fi
for lay in $CELLS; do
    [[ $lay =~ ^[0-9]+x[0-9]+:[0-9]+(,[0-9]+)*$ ]] || die "--cells: '$lay' is not CLUSTERSxPES:INIS[,INIS...] (e.g. 2x8:1,2)"
done
for pol in ${POLICIES//,/ }; do
    case $pol in static|round-robin|load-aware) ;; *) die "--policies: unknown policy '$pol'" ;; esac
done

# Knobs per cluster size: O from the calibration file (lines "SIZE O_US ...",
# '#' comments), the other fields from --knob.
if [ -n "$CALIB" ]; then
    [ -r "$CALIB" ] || die "--calibration: cannot read $CALIB"
    bad=$(awk '!/^[ \t]*(#|$)/ && !($1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+(\.[0-9]*)?$/) {print FILENAME ":" NR ": expected SIZE O_US"; exit}' "$CALIB")
    [ -z "$bad" ] || die "--calibration: $bad"
fi
# Uniform dilation: the dilate and beta knobs for the INIs, and MGS's
# threads K times slower (MGS_DILATE, MGS_DILATE_PROTOCOL) in every run,
# the baselines' too; an idle daemon sleeps at once (yield 0), as a
# dedicated processor takes no core from the others.
if [ -n "$UNIFORM" ]; then
    [[ $UNIFORM =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v k="$UNIFORM" 'BEGIN{exit !(k >= 1 && k <= 1000)}' ||
        die "--uniform: expected a factor from 1 to 1000, got '$UNIFORM'"
    [[ $BETA =~ ^[0-9]*\.?[0-9]+$ ]] && awk -v b="$BETA" 'BEGIN{exit !(b >= 0.001 && b <= 1000)}' ||
        die "--beta: expected a factor from 0.001 to 1000, got '$BETA'"
    [ -z "$CALIB" ] || die "--uniform and --calibration are two modes: give one"
    [ -z "$DILATE" ] || [ "$DILATE" = "$UNIFORM" ] || die "--dilate $DILATE: --uniform $UNIFORM dilates every processor"
    case ",$KNOB," in *,O=*|*,O_us=*|*,dilate=*|*,K=*|*,beta=*) die "--knob: O and the dilation are set by --uniform" ;; esac
    KNOB="dilate=$UNIFORM,beta=$BETA${KNOB:+,$KNOB}" DILATE=$UNIFORM YIELD=${YIELD:-0}
    export MGS_DILATE_PROTOCOL=$UNIFORM
elif [ "$BETA" != 1 ]; then
    die "--beta needs --uniform"
fi
# Dilation and idle yield: the calibration's, which a run must use to be in
# the regime the calibration measured (tools/thesis/regime.sh).
. "$ROOT/tools/thesis/regime.sh"
if [ -n "$CALIB" ]; then
    regime_read "$CALIB"
    if [ -n "$REGIME_DILATE" ]; then
        [ -z "$DILATE" ] || [ "$DILATE" = "$REGIME_DILATE" ] || die "--dilate $DILATE: $CALIB was measured with dilate=$REGIME_DILATE"
        [ -z "$YIELD" ] || [ "$YIELD" = "$REGIME_YIELD" ] || die "--idle-yield $YIELD: $CALIB was measured with yield_us=$REGIME_YIELD"
        DILATE=$REGIME_DILATE YIELD=$REGIME_YIELD
    fi
fi
DILATE=${DILATE:-1}
factor --dilate "$DILATE" "a factor >= 1"
[ -z "$YIELD" ] || nonneg --idle-yield "$YIELD"
export MGS_DILATE=$DILATE
# gen_cfg C P I FILE: the generated configuration in the regime
gen_cfg() {
    "$CLUSTER" gen "$1" "$2" "$3" -o "$4" > /dev/null || exit 1
    regime_config "$4" "$YIELD" || exit 2
}
case ",$KNOB," in *,O=*|*,O_us=*) [ -n "$CALIB" ] && die "--knob sets O and --calibration too: give O in one place" ;; esac
knob_for() {    # SIZE -> the --knob value for INI runs of that cluster size ("" = none)
    local k=$KNOB o
    if [ -n "$CALIB" ]; then
        o=$(awk -v c="$1" '!/^[ \t]*#/ && $1 == c {print $2; exit}' "$CALIB")
        [ -n "$o" ] || die "--calibration: $CALIB has no line for cluster size $1"
        k="O=$o${k:+,$k}"
    fi
    echo "$k"
}

if [ -z "$OUT" ]; then
    if [ $PARTIAL = 1 ]; then
        OUT=runs/experiments-$([ $QUICK = 1 ] && echo quick || echo partial)-$(date +%Y%m%d-%H%M%S)
    elif [ -n "$CALIB" ]; then
        OUT=docs/results/thesis
    elif [ -n "$UNIFORM" ]; then
        OUT=docs/results/thesis-uniform-beta$BETA
    elif [ -z "$KNOB" ]; then
        OUT=docs/results/thesis-uncalibrated
    else
        OUT=runs/experiments-knob-$(date +%Y%m%d-%H%M%S)
    fi
fi
OUT=$(realpath -m "$OUT")     # made below, unless --plan
if [ $PARTIAL = 1 ]; then
    case $OUT in "$ROOT/docs/results/thesis"|"$ROOT/docs/results/thesis-uncalibrated"|"$ROOT"/docs/results/thesis-uniform-*)
        die "a partial run (--quick, --cells, --policies, --reps < 5, --nmol, --steps) does not write into $OUT" ;;
    esac
fi

CLUSTER=$ROOT/build/bin/ini-cluster TRACE=$ROOT/build/bin/ini-trace PING=$ROOT/build/bin/ini-ping
WATER=$ROOT/build/bin/water FAKE=$ROOT/build/bin/cluster-fake-inid
TIMED=$ROOT/tools/thesis/timed-water.sh
# The daemon of INI runs: inid unless --daemon or INI_EXPERIMENTS_INID names
# another (tests/integration/thesis_quick.sh wraps it to fail one start).
INID=${DAEMON:-${INI_EXPERIMENTS_INID:-}}
[ -z "$INID" ] || [ -x "$INID" ] || die "--daemon: $INID is not an executable"
[ -z "$INID" ] || INID=$(cd "$(dirname "$INID")" && pwd)/$(basename "$INID")
RANDOM_IN=${WATER_RANDOM:-$ROOT/tools/apps/water/data/random.in}
for b in "$CLUSTER" "$TRACE" "$WATER" "$FAKE" "$PING" "$ROOT/build/bin/inid"; do
    [ -x "$b" ] || { echo "experiments: $b not built (run make)" >&2; exit 1; }
done
[ -r "$RANDOM_IN" ] || { echo "experiments: data file $RANDOM_IN missing" >&2; exit 1; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$ROOT/tools/thesis/runs.sh"
water_input "$NMOL" "$NSTEP" "$tmp/water.in"

# ---- the plan: every (cell, rep), in one seeded random order ----
sizes=
: > "$tmp/cells"
for lay in $CELLS; do
    cp_=${lay%%:*}; C=${cp_%x*}; P=${cp_#*x}; inis=${lay#*:}
    [ $((C * P)) = 16 ] || echo "experiments: note: $cp_ has $((C * P)) compute nodes, not 16" >&2
    more=   # --reps-at: this size's repetitions
    [[ ",${REPS_AT%%:*}," == *",$P,"* ]] && more=" reps=${REPS_AT#*:}"
    for I in ${inis//,/ }; do
        [ "$I" -ge 1 ] && [ "$I" -le "$P" ] || die "--cells: $I INIs per cluster in $cp_ (1..$P)"
        for pol in ${POLICIES//,/ }; do echo "c${P}-i${I}-$pol $C $P $I ini $pol$more" >> "$tmp/cells"; done
    done
    echo "c${P}-noini $C $P 1 noini static$more" >> "$tmp/cells"
    echo "c${P}-delay $C $P 1 delay static$more" >> "$tmp/cells"
    sizes="$sizes $C:$P"
done
runs_plan "$tmp/cells" "$REPS" "$SEED" > "$tmp/plan"
NRUNS=$(wc -l < "$tmp/plan")
for s in $sizes; do knob_for "${s#*:}" > /dev/null || exit 2; done
{
    echo "# $CMDLINE"
    echo "nmol=$NMOL nstep=$NSTEP reps=$REPS${REPS_AT:+ reps_at=$REPS_AT} cells=\"$CELLS\" policies=$POLICIES seed=$SEED load_limit=$LOADLIM runs=$NRUNS"
    echo "date=$(date -Iseconds) commit=$(git rev-parse --short HEAD 2>/dev/null || echo -) partial=$PARTIAL"
    echo "dilate=$DILATE idle_yield_us=${YIELD:-default}${UNIFORM:+ uniform=$UNIFORM beta=$BETA dilate_protocol=$UNIFORM}"
    echo "cpu=\"$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)\" cores=$(nproc) kernel=$(uname -r)"
    echo "knob=\"$KNOB\" calibration=\"${CALIB:-none}\" daemon=\"$([ -n "$INID" ] && echo "${INID#$ROOT/}" || echo inid)\""
    for s in $sizes; do P=${s#*:}; echo "knob_size_$P=\"$(knob_for "$P")\""; done
    [ -n "$CALIB" ] && sed 's/^/calibration_file: /' "$CALIB"
} > "$tmp/meta.txt"
echo "experiments: Water N=$NMOL, $NSTEP steps, 16 compute nodes; $NRUNS runs ($REPS per cell), seed $SEED; output ${OUT#"$ROOT"/}"
if [ $PLAN = 1 ]; then
    cat "$tmp/meta.txt" "$tmp/plan"; exit 0
fi
mkdir -p "$OUT" || exit 1
runs_open "$OUT" cell clusters pes inis kind policy
cp "$tmp/meta.txt" "$OUT/meta.txt"
rm -f "$OUT/delay-calibration.txt"
RUNS_TMP=$tmp RUNS_TRACE=$TRACE RUNS_LOADLIM=$LOADLIM RUNS_LABEL_COLS=1

# ---- one run (runs_loop calls it with the plan's fields) ----
# thesis_run NAME C P I KIND(ini|noini|delay) POLICY REP
thesis_run() {
    local name=$1 C=$2 P=$3 I=$4 kind=$5 pol=$6 rep=$7
    local cfg=$tmp/$C-$P-$I.cfg dir=$tmp/run args=(--trace summary) envs=() rc m=
    [ -f "$cfg" ] || gen_cfg "$C" "$P" "$I" "$cfg"
    case $kind in
    ini) local k; k=$(knob_for "$P"); [ -n "$k" ] && args+=(--knob "$k"); [ -n "$INID" ] && args+=(--inid "$INID") ;;
    noini) args=(--inid "$FAKE") ;;
    delay) args=(--inid "$FAKE"); envs=(INI_FAKE_DELAY_US="$(delay_us "$P")") ;;
    esac
    # The CPU time of the whole run (launcher, daemons and Water): what the
    # daemons take from the compute threads on shared cores, beside the
    # no-INI runs' (runs.tsv's cpu_user_s, cpu_sys_s).  A run whose daemons
    # never became ready measured nothing and is started again.
    runs_launch "$dir" "$tmp/water.in" env "${envs[@]}" timeout 600 "$CLUSTER" run "$cfg" \
        --policy "$pol" --ini-policy "$pol" "${args[@]}" \
        --run-dir "$dir" --timeout 500 -- "$TIMED" "$WATER" --mgs --random "$RANDOM_IN"
    rc=$?
    if [ $rc != 0 ] || ! grep -q '^Exited Happily' "$dir/cluster0.out" 2>/dev/null; then
        runs_fail "$dir" "exit $rc"; rm -rf "$dir"; return
    fi
    RUN_TIME=$(water_time "$dir")
    if [ "$kind" = ini ]; then
        local cpu=()   # uniform dilation: the run's CPU profile beside its report
        [ -n "$UNIFORM" ] && python3 -m inimeasure.cpu_profile "$dir" > "$tmp/cpu.json" && cpu=(--program "$tmp/cpu.json")
        runs_report "$dir" "${cpu[@]}"
        m=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["machine"]; print(", util %.3f, msg %.1f us" % (d["utilization"], d["msg_ns"] / 1000))' "$tmp/report.json" 2>/dev/null)
    fi
    RUN_STATUS=ok RUN_NOTE="water $RUN_TIME s$m"
    [ "$kind" = ini ] && runs_keep "$dir"
    rm -rf "$dir"
}

# ---- calibration of the "INI delay" baseline, once per cluster size ----
# The thesis delays every message by "the latency of a message with the
# average application message length ... sent through an unloaded INI
# node" (5800 cycles).  Here: Water's average message length L at this
# cluster size (one static run, 1 INI per cluster, the run's knobs), then
# ini-ping between two clusters of one compute node, one INI each, one
# message in flight (unloaded), messages of L bytes: D = mean time in the
# sending plus the receiving INI, from the traces.
calibrate_delay() {
    local C=$1 P=$2 k dir cfg=$tmp/cal-2-1-1.cfg L D
    dir=$tmp/cal-$P     # (after P is set: a local's words expand before it runs)
    k=$(knob_for "$P")
    gen_cfg "$C" "$P" 1 "$tmp/cal-$C-$P.cfg"
    timeout 600 "$CLUSTER" run "$tmp/cal-$C-$P.cfg" --policy static --ini-policy static --trace summary \
        ${k:+--knob "$k"} --run-dir "$dir-w" --timeout 500 -- "$TIMED" "$WATER" --mgs --random "$RANDOM_IN" \
        < "$tmp/water.in" > "$tmp/cal.log" 2>&1 || { echo "experiments: delay calibration (Water, size $P) failed" >&2; cat "$tmp/cal.log" >&2; exit 1; }
    "$TRACE" report "$dir-w" --format json > "$tmp/cal-water.json" || exit 1
    L=$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["machine"]["msg_len"]))' "$tmp/cal-water.json")
    [ -f "$cfg" ] || gen_cfg 2 1 1 "$cfg"
    timeout 120 "$CLUSTER" run "$cfg" --trace summary ${k:+--knob "$k"} --run-dir "$dir-p" --timeout 100 -- \
        "$PING" --sizes "$L" --count 300 --window 1 --pattern pairs > "$tmp/cal.log" 2>&1 ||
        { echo "experiments: delay calibration (ini-ping, size $P) failed" >&2; cat "$tmp/cal.log" >&2; exit 1; }
    "$TRACE" report "$dir-p" --format json > "$tmp/cal-ping.json" || exit 1
    D=$(python3 -c 'import json,sys; print("%.2f" % (json.load(open(sys.argv[1]))["machine"]["msg_ns"] / 1000))' "$tmp/cal-ping.json")
    for w in water ping; do
        runs_add "$OUT" --id "cell=c$P-delay" --id "calibration=$w" --report "$tmp/cal-$w.json" || exit 1
    done
    echo "  delay calibration, cluster size $P: Water's mean message $L B; unloaded INI time (send + receive) $D us${k:+ (knob $k)}"
    echo "size=$P msg_len=$L delay_us=$D knob=\"$k\"" >> "$OUT/delay-calibration.txt"
    rm -rf "$dir-w" "$dir-p"
}
delay_us() { sed -n "s/^size=$1 .*delay_us=\([0-9.]*\).*/\1/p" "$OUT/delay-calibration.txt"; }
for s in $sizes; do calibrate_delay "${s%:*}" "${s#*:}"; done

runs_loop "$tmp/plan" thesis_run
python3 -m inimeasure.tables "$OUT" "$CMDLINE" > /dev/null || RUNS_FAILED=$((RUNS_FAILED + 1))
echo "experiments: $(runs_summary); tables in ${OUT#"$ROOT"/}"
[ "$RUNS_FAILED" = 0 ]
