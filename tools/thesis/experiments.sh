#!/usr/bin/env bash
# The thesis's chapter 5 experiments (sections 5.2-5.5): Water (343
# molecules, 2 steps) on MGS, 16 compute nodes in clusters of 1, 2, 4, 8,
# with 1, 2, 4 .. (cluster size) INIs per cluster, static / round-robin /
# load-aware INI scheduling, plus the "no INI" (cluster-fake-inid) and
# "INI delay" (fake inid + INI_FAKE_DELAY_US) baselines.  Every cell is run
# --reps times, all runs in one seeded random order (interleaved across
# cells), with the load of the machine recorded per run.  Tables and
# figures: tools/thesis/tables.py.  See docs/experiments.md.
#
#   tools/thesis/experiments.sh [--quick] [--reps N] [--cells SPEC] [--policies LIST]
#        [--knob SPEC] [--calibration FILE] [--seed N] [--load-limit X]
#        [--nmol N] [--steps N] [--out DIR] [--plan] [--dilate K] [--idle-yield US]
#
# Output directory: the full default run (every cell, --reps 5 or more,
# 343 molecules, 2 steps) writes docs/results/thesis with --calibration,
# docs/results/thesis-uncalibrated without calibration or knobs; every other
# run writes runs/experiments-<quick|partial>-DATE unless --out names a
# directory, and a partial run refuses to write into those two.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
CMDLINE="tools/thesis/experiments.sh $*"
usage() {
    sed -n '/^#   tools/,/^#        \[--nmol/p' "$0" | sed 's/^# //' >&2
    exit 2
}
die() { echo "experiments: $*" >&2; exit 2; }
QUICK=0 OUT= REPS=5 CELLS= POLICIES="static,round-robin,load-aware" KNOB= CALIB= SEED= LOADLIM=none
NMOL=343 NSTEP=2 PLAN=0 PARTIAL=0 DILATE= YIELD=
DEFAULT_CELLS="16x1:1 8x2:1,2 4x4:1,2,4 2x8:1,2,4,8"
need() { [ $# -ge 2 ] || die "$1 needs a value"; }
while [ $# -gt 0 ]; do
    case $1 in
    --quick) QUICK=1 ;;
    --out) need "$@"; OUT=$2; shift ;;
    --reps) need "$@"; REPS=$2; shift ;;
    --cells) need "$@"; CELLS=$2; shift ;;
    --policies) need "$@"; POLICIES=$2; shift ;;
    --knob) need "$@"; KNOB=$2; shift ;;
    --calibration) need "$@"; CALIB=$2; shift ;;
    --seed) need "$@"; SEED=$2; shift ;;
    --load-limit) need "$@"; LOADLIM=$2; shift ;;
    --nmol) need "$@"; NMOL=$2; shift ;;
    --steps) need "$@"; NSTEP=$2; shift ;;
    --plan) PLAN=1 ;;
    --dilate) need "$@"; DILATE=$2; shift ;;
    --idle-yield) need "$@"; YIELD=$2; shift ;;
    -h|--help) usage ;;
    *) echo "experiments: unknown option $1" >&2; usage ;;
    esac
    shift
done
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "--reps: expected a positive integer, got '$REPS'"
[[ $NMOL =~ ^[0-9]+$ && $NSTEP =~ ^[1-9][0-9]*$ ]] || die "--nmol/--steps: expected positive integers"
[[ $LOADLIM =~ ^([0-9]+(\.[0-9]+)?|none)$ ]] || die "--load-limit: expected a number or none, got '$LOADLIM'"
[ -z "$SEED" ] && SEED=$(date +%s)
[[ $SEED =~ ^[0-9]+$ ]] || die "--seed: expected a non-negative integer"
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
[[ $DILATE =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--dilate: expected a factor >= 1, got '$DILATE'"
[ -z "$YIELD" ] || [[ $YIELD =~ ^[0-9]+$ ]] || die "--idle-yield: expected microseconds, got '$YIELD'"
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
    elif [ -z "$KNOB" ]; then
        OUT=docs/results/thesis-uncalibrated
    else
        OUT=runs/experiments-knob-$(date +%Y%m%d-%H%M%S)
    fi
fi
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
if [ $PARTIAL = 1 ]; then
    for protected in "$ROOT/docs/results/thesis" "$ROOT/docs/results/thesis-uncalibrated"; do
        [ "$OUT" = "$protected" ] && die "a partial run (--quick, --cells, --policies, --reps < 5, --nmol, --steps) does not write into $protected"
    done
fi

CLUSTER=$ROOT/build/bin/ini-cluster TRACE=$ROOT/build/bin/ini-trace PING=$ROOT/build/bin/ini-ping
WATER=$ROOT/build/bin/water FAKE=$ROOT/build/bin/cluster-fake-inid
TIMED=$ROOT/tools/thesis/timed-water.sh
# The daemon of INI runs: inid unless INI_EXPERIMENTS_INID names another
# (tests/integration/thesis_quick.sh wraps it to fail one start).
INID=${INI_EXPERIMENTS_INID:-}
RANDOM_IN=${WATER_RANDOM:-$ROOT/../shared/water/random.in}
for b in "$CLUSTER" "$TRACE" "$WATER" "$FAKE" "$PING" "$ROOT/build/bin/inid"; do
    [ -x "$b" ] || { echo "experiments: $b not built (run make)" >&2; exit 1; }
done
[ -r "$RANDOM_IN" ] || { echo "experiments: data file $RANDOM_IN missing" >&2; exit 1; }

RAW=$OUT/raw; rm -rf "$RAW"; mkdir -p "$RAW"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# Water's standard input (WATER_SPEC.md section 1) with NMOL, NSTEP and 16
# processes; NPRINT stays 3 as in the shipped input (so with 2 steps no
# potential energy is computed, as in the SPLASH input the thesis ran).
printf '  1.5e-16   %d  %d   6\n -1      3000     3  0\n16 6.212752\n' "$NMOL" "$NSTEP" > "$tmp/water.in"

# ---- the plan: every (cell, rep), in one seeded random order ----
sizes=
: > "$tmp/cells"
for lay in $CELLS; do
    cp_=${lay%%:*}; C=${cp_%x*}; P=${cp_#*x}; inis=${lay#*:}
    [ $((C * P)) = 16 ] || echo "experiments: note: $cp_ has $((C * P)) compute nodes, not 16" >&2
    for I in ${inis//,/ }; do
        [ "$I" -ge 1 ] && [ "$I" -le "$P" ] || die "--cells: $I INIs per cluster in $cp_ (1..$P)"
        for pol in ${POLICIES//,/ }; do echo "c${P}-i${I}-$pol $C $P $I ini $pol" >> "$tmp/cells"; done
    done
    echo "c${P}-noini $C $P 1 noini static" >> "$tmp/cells"
    echo "c${P}-delay $C $P 1 delay static" >> "$tmp/cells"
    sizes="$sizes $C:$P"
done
python3 - "$tmp/cells" "$REPS" "$SEED" > "$RAW/order.txt" <<'EOF'
import random, sys
cells = [l.split() for l in open(sys.argv[1]) if l.strip()]
runs = [c + [str(r)] for c in cells for r in range(1, int(sys.argv[2]) + 1)]
random.Random(int(sys.argv[3])).shuffle(runs)
for r in runs:
    print(" ".join(r))
EOF
NRUNS=$(wc -l < "$RAW/order.txt")
for s in $sizes; do knob_for "${s#*:}" > /dev/null || exit 2; done
{
    echo "# $CMDLINE"
    echo "nmol=$NMOL nstep=$NSTEP reps=$REPS cells=\"$CELLS\" policies=$POLICIES seed=$SEED load_limit=$LOADLIM runs=$NRUNS"
    echo "date=$(date -Iseconds) commit=$(git rev-parse --short HEAD 2>/dev/null || echo -) partial=$PARTIAL"
    echo "dilate=$DILATE idle_yield_us=${YIELD:-default}"
    echo "cpu=\"$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)\" cores=$(nproc) kernel=$(uname -r)"
    echo "knob=\"$KNOB\" calibration=\"${CALIB:-none}\""
    for s in $sizes; do P=${s#*:}; echo "knob_size_$P=\"$(knob_for "$P")\""; done
    [ -n "$CALIB" ] && sed 's/^/calibration_file: /' "$CALIB"
} > "$RAW/meta.txt"
echo "experiments: Water N=$NMOL, $NSTEP steps, 16 compute nodes; $NRUNS runs ($REPS per cell), seed $SEED; output $OUT"
if [ $PLAN = 1 ]; then
    cat "$RAW/meta.txt"; cat "$RAW/order.txt"; exit 0
fi

# ---- the machine's load ----
# cpu_busy: share of the machine's CPU time used in the second before a run,
# while none of ours runs, i.e. by other work; loadavg: /proc/loadavg's
# 1-minute figure, which also remembers our own previous runs.
cpu_busy() {
    local a b
    a=($(head -1 /proc/stat)); sleep 1; b=($(head -1 /proc/stat))
    local idle=$(( (b[4] + b[5]) - (a[4] + a[5]) )) total=0 i
    for i in 1 2 3 4 5 6 7 8; do total=$((total + b[i] - a[i])); done
    awk -v i=$idle -v t=$total 'BEGIN{printf("%.2f", (t > 0) ? 1 - i / t : 0)}'
}
loadavg() { cut -d' ' -f1 /proc/loadavg; }

# ---- one run ----
# one_run NAME C P I KIND(ini|noini|delay) POLICY REP
failures=0 nrun=0 loaded=0 restarts=0
START=$SECONDS
declare -a DURS=()
one_run() {
    local name=$1 C=$2 P=$3 I=$4 kind=$5 pol=$6 rep=$7
    local cfg=$tmp/$C-$P-$I.cfg dir=$tmp/run-$name-$rep args=(--trace summary) envs=()
    [ -f "$cfg" ] || gen_cfg "$C" "$P" "$I" "$cfg"
    case $kind in
    ini) local k; k=$(knob_for "$P"); [ -n "$k" ] && args+=(--knob "$k"); [ -n "$INID" ] && args+=(--inid "$INID") ;;
    noini) args=(--inid "$FAKE") ;;
    delay) args=(--inid "$FAKE"); envs=(INI_FAKE_DELAY_US="$(cat "$RAW/c$P-delay.us")") ;;
    esac
    local busy la0 la1 t0=$SECONDS flag=
    busy=$(cpu_busy); la0=$(loadavg)
    # /usr/bin/time: the CPU time of the whole run (launcher, daemons and
    # Water): what the daemons take from the compute threads on shared
    # cores, beside the no-INI runs' (raw/NAME-REP.cpu: user sys seconds).
    local rc attempt
    # A run whose daemons never became ready measured nothing: it is
    # started again (at most twice), its logs kept as NAME-REP.start-N.log
    # and counted in the summary.  Any later failure is a failure.
    for attempt in 1 2 3; do
        env "${envs[@]}" /usr/bin/time -f "%U %S" -o "$RAW/$name-$rep.cpu" timeout 600 "$CLUSTER" run "$cfg" \
            --policy "$pol" --ini-policy "$pol" "${args[@]}" \
            --run-dir "$dir" --timeout 500 -- "$TIMED" "$WATER" --mgs --random "$RANDOM_IN" \
            < "$tmp/water.in" > "$tmp/log" 2>&1
        rc=$?
        [ $rc != 0 ] && [ $attempt -lt 3 ] && grep -q '^ini-cluster: .*\(before ready\|not ready after\)' "$tmp/log" || break
        { cat "$tmp/log"; for f in "$dir"/ini*.log; do [ -f "$f" ] && { echo "== $f"; cat "$f"; }; done; } > "$RAW/$name-$rep.start-$attempt.log" 2>/dev/null
        echo "  RESTART $name rep $rep: daemons not ready (log: $RAW/$name-$rep.start-$attempt.log)"
        restarts=$((restarts + 1)); rm -rf "$dir"
    done
    la1=$(loadavg)
    nrun=$((nrun + 1))
    # Flagged: other work used more than half a core in the second before
    # the run (or, with --load-limit X, the load average exceeded X; it
    # counts our own previous run's 30-50 threads for about a minute, so
    # it reads 5-8 after our runs on an otherwise idle 2-core machine).
    if awk -v b="$busy" -v l="$la0" -v lim="$LOADLIM" 'BEGIN{exit !(b > 0.25 || (lim != "none" && l > lim + 0))}'; then
        flag=loaded; loaded=$((loaded + 1))
    fi
    echo "$la0 $la1 $busy ${flag:-ok}" > "$RAW/$name-$rep.load"
    if [ $rc != 0 ] || ! grep -q '^Exited Happily' "$dir/cluster0.out" 2>/dev/null; then
        echo "  FAIL $name rep $rep: exit $rc (log: $RAW/$name-$rep.log)"; cp "$tmp/log" "$RAW/$name-$rep.log"
        [ -d "$dir" ] && cp "$dir"/*.err "$dir"/*.log "$RAW/" 2>/dev/null
        failures=$((failures + 1)); rm -rf "$dir"; return 1
    fi
    local rt m=
    rt=$(cat "$dir"/time-c*.txt | awk 'NR==1{s=$1;e=$2} {if($1<s)s=$1; if($2>e)e=$2} END{printf "%.4f", (e-s)/1e9}')
    echo "$rt" > "$RAW/$name-$rep.time"
    if [ "$kind" = ini ]; then
        "$TRACE" report "$dir" --format json > "$RAW/$name-$rep.json" 2> "$RAW/$name-$rep.trace.err"
        m=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["machine"]; print(", util %.3f, msg %.1f us" % (d["utilization"], d["msg_ns"] / 1000))' "$RAW/$name-$rep.json" 2>/dev/null)
    fi
    DURS+=($((SECONDS - t0)))
    local eta
    eta=$(printf '%s\n' "${DURS[@]}" | sort -n | awk -v left=$((NRUNS - nrun)) '{v[NR]=$1} END{m=v[int((NR+1)/2)]; s=m*left; printf "%d:%02d:%02d", s/3600, s%3600/60, s%60}')
    printf '  [%3d/%d] %-24s rep %d: water %s s%s; load %s->%s, others %s%s; %ds, left ~%s\n' "$nrun" "$NRUNS" \
        "$name" "$rep" "$rt" "$m" "$la0" "$la1" "$busy" "${flag:+ [LOADED]}" $((SECONDS - t0)) "$eta"
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
    local C=$1 P=$2 k dir=$tmp/cal-$P cfg=$tmp/cal-2-1-1.cfg
    k=$(knob_for "$P")
    gen_cfg "$C" "$P" 1 "$tmp/cal-$C-$P.cfg"
    timeout 600 "$CLUSTER" run "$tmp/cal-$C-$P.cfg" --policy static --ini-policy static --trace summary \
        ${k:+--knob "$k"} --run-dir "$dir-w" --timeout 500 -- "$TIMED" "$WATER" --mgs --random "$RANDOM_IN" \
        < "$tmp/water.in" > "$tmp/cal.log" 2>&1 || { echo "experiments: delay calibration (Water, size $P) failed" >&2; cat "$tmp/cal.log" >&2; exit 1; }
    "$TRACE" report "$dir-w" --format json > "$RAW/c$P-delay-water.json" || exit 1
    local L
    L=$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["machine"]["msg_len"]))' "$RAW/c$P-delay-water.json")
    [ -f "$cfg" ] || gen_cfg 2 1 1 "$cfg"
    timeout 120 "$CLUSTER" run "$cfg" --trace summary ${k:+--knob "$k"} --run-dir "$dir-p" --timeout 100 -- \
        "$PING" --sizes "$L" --count 300 --window 1 --pattern pairs > "$tmp/cal.log" 2>&1 ||
        { echo "experiments: delay calibration (ini-ping, size $P) failed" >&2; cat "$tmp/cal.log" >&2; exit 1; }
    "$TRACE" report "$dir-p" --format json > "$RAW/c$P-delay-ping.json" || exit 1
    python3 - "$RAW/c$P-delay-ping.json" "$L" > "$RAW/c$P-delay.us" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))["machine"]
print("%.2f" % (m["msg_ns"] / 1000))
EOF
    echo "  delay calibration, cluster size $P: Water's mean message $L B; unloaded INI time (send + receive) $(cat "$RAW/c$P-delay.us") us${k:+ (knob $k)}"
    echo "size=$P msg_len=$L delay_us=$(cat "$RAW/c$P-delay.us") knob=\"$k\"" >> "$RAW/delay-calibration.txt"
    rm -rf "$dir-w" "$dir-p"
}
for s in $sizes; do calibrate_delay "${s%:*}" "${s#*:}"; done

while read -r name C P I kind pol rep; do
    one_run "$name" "$C" "$P" "$I" "$kind" "$pol" "$rep"
done < "$RAW/order.txt"
python3 "$ROOT/tools/thesis/tables.py" "$OUT" "$CMDLINE" > /dev/null || failures=$((failures + 1))
echo "experiments: $nrun runs, $failures failure(s), $restarts restart(s) of runs whose daemons never became ready, $loaded taken under load (kept, flagged); $((SECONDS - START)) s; tables in $OUT"
[ $failures = 0 ]
