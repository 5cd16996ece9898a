#!/usr/bin/env bash
# em3d.sh - EM3D's experiments (issue 35, docs/em3d.md), over runs.sh's
# run loop and layout (meta.txt, runs.tsv, reports.jsonl; docs/results/README.md).
#
#   tools/thesis/em3d.sh [--uniform K [--beta B] | --calibration FILE] [--quick] [--replay] [--parts curve,sqrt]
#        [--reps N] [--seed N] [--out DIR] [--plan] [--layout CxP] [--shares LIST] [--variants LIST]
#        [--inis LIST] [--policies LIST] [--nodes N] [--degree D] [--steps S]
#        [--sqrt-sizes LIST] [--sqrt-share F] [--sqrt-variants LIST]
#
# curve  time per edge against the share of inter-cluster edges (--shares,
#        default 0,0.1,0.2,0.4,0.6,0.8; no intra-cluster edges) for every
#        version (--variants), on --layout (default 4x4: 16 compute nodes
#        in clusters of 4) with 1, 2 and 4 INIs per cluster (--inis) and
#        the three policies.  With one INI per cluster a policy has
#        nothing to choose: those points run once, under the first of
#        --policies (both parts; the tables say so).
# sqrt   the thesis's sqrt argument tested directly: 2 clusters of c
#        compute nodes (--sqrt-sizes, default 1,4,16), each node's share of
#        edges off the node fixed (--sqrt-share S, default 0.4) and the part
#        of it that leaves the cluster set by the surface-to-volume rule,
#        inter = S / sqrt(c), intra = S - inter (a cluster of c nodes as a
#        sqrt(c) x sqrt(c) block of a 2-D decomposition: its traffic out
#        grows as sqrt(c), its work as c); 1 and sqrt(c) INIs per cluster;
#        --sqrt-variants (default ghost,bulk), the three policies; and
#        each point's twin without inter-cluster edges (exp sqrt0: inter
#        0, the same intra), whose time gives the chapter-6 model its W.
#        The
#        per-INI utilization and queue are in each run's report
#        (reports.jsonl), tabled beside the thesis's tables 5.8/5.9 by
#        tools/inimeasure/em3d_tables.py.
# Every point --reps times (default 5), all runs of both parts in one
# seeded random order.  Modes, as tools/thesis/experiments.sh: --uniform K
# (every processor K times slower from its own CPU time: MGS_DILATE and
# MGS_DILATE_PROTOCOL for the compute and protocol threads, which em3d's
# message versions read too, the INIs K*beta through the dilate and beta
# knobs, idle yield 0) or --calibration FILE (the INIs' O per cluster
# size and the dilation the file was measured at; sizes without an O are
# left out of the sqrt part and meta.txt says so); neither: undilated.
# Tables: tools/inimeasure/em3d_tables.py (the curves, the sqrt table) and
# tools/inimeasure/em3d_predict.py (the chapter-6 model beside the curve).
# --replay: the 1-INI runs of every version (the curve's and the sqrt
# test's) are traced in detail and replayed at once (ini-trace whatif)
# with each other INI count (the sqrt test's: sqrt(c)) under each policy
# and as they ran; the replayed over the measured program span
# goes into reports.jsonl (field replay_POLICY_iN) and em3d_predict.py puts the
# replay's time per edge beside the model's.  (MGS records the Simple and
# Ghost runs' requests; the message versions record theirs themselves,
# tools/apps/em3d/em3d_am_trace.c, and are replayed in node mode, docs/traces.md.)
# Detailed tracing costs those runs some time.
# Output: the full run (both parts, the defaults, >= 5 reps) writes
# docs/results/em3d-uniform-betaB or docs/results/em3d-calibrated; any
# other run runs/em3d-quick|partial-DATE unless --out.  --plan prints the
# plan and writes nothing.  --quick: 2x2 and the sqrt part at sizes 1 and
# 2, small graphs, static, ghost and bulk, one repetition (about a
# minute; tests/integration/em3d_quick.sh).
PROG=em3d.sh; . "$(dirname "$0")/../lib/options.sh"
CMDLINE="tools/thesis/em3d.sh $*"
QUICK=0 PLAN=0 REPLAY=0 REPS=5 SEED= OUT= UNIFORM= BETA=1 CALIB= PARTS=curve,sqrt LAYOUT=4x4
SHARES=0,0.1,0.2,0.4,0.6,0.8 VARIANTS=simple,ghost,get,put,bulk INIS=1,2,4 POLICIES=static,round-robin,load-aware
NODES=500 DEGREE=20 STEPS=5 SQRT_SIZES=1,4,16 SQRT_SHARE=0.4 SQRT_VARIANTS=ghost,bulk
DEFAULTS="$PARTS $LAYOUT $SHARES $VARIANTS $INIS $POLICIES $NODES $DEGREE $STEPS $SQRT_SIZES $SQRT_SHARE $SQRT_VARIANTS"
show_help() { help_between '^#   tools' '^#        \[--sqrt-sizes'; }
parse_options "--quick:QUICK=1 --replay:REPLAY=1 --plan:PLAN=1 --uniform=UNIFORM --beta=BETA
    --calibration=CALIB --parts=PARTS --reps=REPS --seed=SEED --out=OUT --layout=LAYOUT
    --shares=SHARES --variants=VARIANTS --inis=INIS --policies=POLICIES --nodes=NODES
    --degree=DEGREE --steps=STEPS --sqrt-sizes=SQRT_SIZES --sqrt-share=SQRT_SHARE
    --sqrt-variants=SQRT_VARIANTS" "$@"
# --quick: its values for the options not given
quick() { [[ " $GIVEN " == *" $1 "* ]] || printf -v "$2" '%s' "$3"; }
if [ $QUICK = 1 ]; then
    quick --layout LAYOUT 2x2; quick --shares SHARES 0,0.6; quick --variants VARIANTS ghost,bulk
    quick --inis INIS 1,2; quick --policies POLICIES static; quick --nodes NODES 100; quick --steps STEPS 2
    quick --reps REPS 1; quick --sqrt-sizes SQRT_SIZES 1,2; quick --sqrt-variants SQRT_VARIANTS bulk
fi
share() { awk -v s="$2" 'BEGIN{exit !(s ~ /^[0-9]*\.?[0-9]+$/ && s >= 0 && s <= 1)}' || die "$1: '$2' is not a share from 0 to 1"; }
posint --reps "$REPS"; posint --nodes "$NODES"; posint --degree "$DEGREE"; posint --steps "$STEPS"
[[ $LAYOUT =~ ^([0-9]+)x([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" -ge 2 ] || die "--layout: '$LAYOUT' is not CxP with C >= 2"
CC=${LAYOUT%x*} CP=${LAYOUT#*x}
for s in ${SHARES//,/ }; do share --shares "$s"; done
share --sqrt-share "$SQRT_SHARE"
for v in ${VARIANTS//,/ } ${SQRT_VARIANTS//,/ }; do
    case $v in simple|ghost|get|put|bulk) ;; *) die "--variants: unknown version '$v'" ;; esac
done
for i in ${INIS//,/ }; do posint --inis "$i"; [ "$i" -le "$CP" ] || die "--inis: $i INIs in clusters of $CP"; done
for p in ${POLICIES//,/ }; do case $p in static|round-robin|load-aware) ;; *) die "--policies: unknown policy '$p'" ;; esac; done
for c in ${SQRT_SIZES//,/ }; do posint --sqrt-sizes "$c"; done
for p in ${PARTS//,/ }; do case $p in curve|sqrt) ;; *) die "--parts: expected curve and/or sqrt, not '$p'" ;; esac; done
[ -z "$SEED" ] && SEED=$(date +%s)
nonneg --seed "$SEED"

# ---- the mode: the knobs of the INI runs and the threads' dilation ----
. "$ROOT/tools/thesis/regime.sh"
KNOB= DILATE=1 YIELD= MODE=undilated
if [ -n "$UNIFORM" ]; then
    [ -z "$CALIB" ] || die "--uniform and --calibration are two modes: give one"
    awk -v k="$UNIFORM" -v b="$BETA" 'BEGIN{exit !(k >= 1 && k <= 1000 && b >= 0.001 && b <= 1000)}' ||
        die "--uniform K: 1..1000, --beta B: 0.001..1000"
    KNOB="dilate=$UNIFORM,beta=$BETA" DILATE=$UNIFORM YIELD=0 MODE=uniform
    export MGS_DILATE_PROTOCOL=$UNIFORM
elif [ -n "$CALIB" ]; then
    [ -r "$CALIB" ] || die "--calibration: cannot read $CALIB"
    regime_read "$CALIB"
    DILATE=${REGIME_DILATE:-1} YIELD=$REGIME_YIELD MODE=calibrated
fi
export MGS_DILATE=$DILATE
o_for() { [ -z "$CALIB" ] || awk -v c="$1" '!/^[ \t]*#/ && $1 == c {print $2; exit}' "$CALIB"; }
knob_for() {   # cluster size -> --knob of its runs; 1 when the calibration has no O for it
    local o
    if [ -n "$CALIB" ]; then
        o=$(o_for "$1"); [ -n "$o" ] || return 1
        echo "O=$o"
    else
        echo "$KNOB"
    fi
}

# ---- the plan: exp variant clusters pes inis policy inter intra ----
sqrt_inis() { awk -v c="$1" 'BEGIN{r = sqrt(c); printf "%d", (r == int(r)) ? r : int(r + 0.5)}'; }   # c -> sqrt(c) INIs, rounded
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
: > "$tmp/points"; skipped=
policies_for() {   # INIs per cluster -> the policies its points run under
    if [ "$1" = 1 ]; then echo "${POLICIES%%,*}"; else echo "${POLICIES//,/ }"; fi
}
if [[ ,$PARTS, == *,curve,* ]]; then
    knob_for "$CP" > /dev/null || die "--calibration: $CALIB has no O for clusters of $CP"
    for v in ${VARIANTS//,/ }; do for s in ${SHARES//,/ }; do for i in ${INIS//,/ }; do for p in $(policies_for "$i"); do
        echo "curve $v $CC $CP $i $p $s 0" >> "$tmp/points"
    done; done; done; done
fi
if [[ ,$PARTS, == *,sqrt,* ]]; then
    for c in ${SQRT_SIZES//,/ }; do
        if ! knob_for "$c" > /dev/null; then skipped="$skipped $c"; continue; fi
        r=$(sqrt_inis "$c")
        inter=$(awk -v s="$SQRT_SHARE" -v c="$c" 'BEGIN{printf "%.4f", s / sqrt(c)}')
        intra=$(awk -v s="$SQRT_SHARE" -v i="$inter" 'BEGIN{printf "%.4f", s - i}')
        for v in ${SQRT_VARIANTS//,/ }; do for i in $(printf '%s\n' 1 "$r" | sort -un); do for p in $(policies_for "$i"); do
            echo "sqrt $v 2 $c $i $p $inter $intra" >> "$tmp/points"
            echo "sqrt0 $v 2 $c $i $p 0 $intra" >> "$tmp/points"   # its twin: the model's W
        done; done; done
    done
fi
. "$ROOT/tools/thesis/runs.sh"
runs_plan "$tmp/points" "$REPS" "$SEED" > "$tmp/plan"
NRUNS=$(wc -l < "$tmp/plan")
[ "$NRUNS" -gt 0 ] || die "nothing to run"

PARTIAL=1
[ $QUICK = 0 ] && [ "$REPS" -ge 5 ] && [ "$MODE" != undilated ] &&
    [ "$PARTS $LAYOUT $SHARES $VARIANTS $INIS $POLICIES $NODES $DEGREE $STEPS $SQRT_SIZES $SQRT_SHARE $SQRT_VARIANTS" = "$DEFAULTS" ] && PARTIAL=0
if [ -z "$OUT" ]; then
    if [ $PARTIAL = 0 ]; then
        OUT=docs/results/em3d-$([ "$MODE" = uniform ] && echo "uniform-beta$BETA" || echo calibrated)
    else
        OUT=runs/em3d-$([ $QUICK = 1 ] && echo quick || echo partial)-$(date +%Y%m%d-%H%M%S)
    fi
fi
OUT=$(realpath -m "$OUT")
[ $PARTIAL = 1 ] && [[ $OUT == "$ROOT"/docs/results/em3d-* ]] && die "a partial run does not write into $OUT"
{
    echo "# $CMDLINE"
    echo "mode=$MODE dilate=$DILATE idle_yield_us=${YIELD:-default}${UNIFORM:+ uniform=$UNIFORM beta=$BETA} calibration=\"${CALIB:-none}\""
    echo "parts=$PARTS layout=$LAYOUT shares=$SHARES variants=$VARIANTS inis=$INIS policies=$POLICIES"
    echo "nodes=$NODES degree=$DEGREE steps=$STEPS sqrt_sizes=$SQRT_SIZES sqrt_share=$SQRT_SHARE sqrt_variants=$SQRT_VARIANTS"
    echo "reps=$REPS seed=$SEED runs=$NRUNS partial=$PARTIAL replay=$REPLAY${skipped:+ sqrt_sizes_without_O=\"${skipped# }\"}"
    echo "date=$(date -Iseconds) commit=$(git rev-parse --short HEAD 2>/dev/null || echo -)"
    echo "cpu=\"$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)\" cores=$(nproc) kernel=$(uname -r)"
} > "$tmp/meta.txt"
echo "em3d.sh: $NRUNS runs ($REPS per point), mode $MODE, seed $SEED; output $OUT"
if [ $PLAN = 1 ]; then cat "$tmp/meta.txt" "$tmp/plan"; exit 0; fi

CLUSTER=$ROOT/build/bin/ini-cluster EM3D=$ROOT/build/bin/em3d
for b in "$CLUSTER" "$EM3D" "$ROOT/build/bin/ini-trace" "$ROOT/build/bin/inid"; do
    [ -x "$b" ] || { echo "em3d.sh: $b not built (run make)" >&2; exit 1; }
done
mkdir -p "$OUT" || exit 1
runs_open "$OUT" exp variant clusters pes inis policy inter intra
cp "$tmp/meta.txt" "$OUT/meta.txt"
RUNS_TMP=$tmp RUNS_TRACE=$ROOT/build/bin/ini-trace
: > "$tmp/empty"

# em3d_run EXP VARIANT C P I POLICY INTER INTRA REP: one run (runs_loop)
em3d_run() {
    local v=$2 C=$3 P=$4 I=$5 pol=$6 inter=$7 intra=$8 cfg=$tmp/$3-$4-$5.cfg dir=$tmp/run k
    if [ ! -f "$cfg" ]; then
        "$CLUSTER" gen "$C" "$P" "$I" -o "$cfg" > /dev/null && regime_config "$cfg" "$YIELD" || { rm -f "$cfg"; exit 1; }
    fi
    k=$(knob_for "$P")
    local replay=0 fields=() i2 r others=$INIS
    [ $REPLAY = 1 ] && { [ "$1" = curve ] || [ "$1" = sqrt ]; } && [ "$I" = 1 ] && replay=1
    # the sqrt part's other INI count: sqrt(c), rounded
    [ "$1" = sqrt ] && others=$(sqrt_inis "$P")
    runs_launch "$dir" "$tmp/empty" timeout 900 "$CLUSTER" run "$cfg" --policy "$pol" --ini-policy "$pol" \
        --trace "$([ $replay = 1 ] && echo detailed || echo summary)" ${k:+--knob "$k"} --run-dir "$dir" --timeout 800 -- "$EM3D" --variant "$v" \
        --nodes "$NODES" --degree "$DEGREE" --steps "$STEPS" --inter "$inter" --intra "$intra" --seed "$RUN_REP"
    local rc=$? line
    line=$(grep '^RESULT ' "$dir/cluster0.out" 2> /dev/null)
    if [ $rc != 0 ] || [[ $line != *" check=ok"* ]]; then
        runs_fail "$dir" "exit $rc${line:+, check=${line##*check=}}"; rm -rf "$dir"; return
    fi
    # the RESULT line's fields as the run's program record
    python3 -c 'import json,sys; print(json.dumps({k: v for k, v in (f.split("=", 1) for f in sys.argv[1].split()[1:])}))' \
        "$line" > "$tmp/em3d.json"
    if [ $replay = 1 ]; then   # the replayed / measured program span as it ran, and at each other INI count and policy
        r=$("$RUNS_TRACE" whatif "$dir" 2> /dev/null |
            sed -n 's/.*program span.*measured \([0-9.]*\) s, replayed \([0-9.]*\) s.*/\1 \2/p')
        r=$(awk '$1 > 0 {printf "%.6f", $2 / $1}' <<< "$r")
        [ -n "$r" ] && fields+=(--field "replay_as_run=$r")
        for i2 in ${others//,/ }; do
            [ "$i2" = 1 ] && continue
            for p2 in ${POLICIES//,/ }; do
                r=$("$RUNS_TRACE" whatif "$dir" --inis-per-cluster "$i2" --policy "$p2" 2> /dev/null |
                    sed -n 's/.*program span.*measured \([0-9.]*\) s, replayed \([0-9.]*\) s.*/\1 \2/p')
                r=$(awk '$1 > 0 {printf "%.6f", $2 / $1}' <<< "$r")
                [ -n "$r" ] && fields+=(--field "replay_${p2}_i$i2=$r")
            done
        done
    fi
    # what the replay keeps from a run: an INI's CPU time per message pass
    # (the dilation's count, under --uniform), over every INI of the run
    r=$(python3 - "$dir" <<'PY'
import glob, json, sys
cpu = passes = 0
for f in glob.glob(sys.argv[1] + "/ini*.counters.json"):
    c = json.load(open(f))
    t = c["transport"]
    cpu += c.get("dilation", {}).get("cpu_ns", 0)
    passes += t["msgs_sent"] + t["msgs_delivered"] + c["messages"]["local"]
if cpu and passes:
    print("%.1f" % (cpu / passes))
PY
)
    [ -n "$r" ] && fields+=(--field "ini_cpu_ns_per_pass=$r")
    runs_report "$dir" --program "$tmp/em3d.json" "${fields[@]}"
    RUN_TIME=$(sed 's/.* seconds=\([^ ]*\).*/\1/' <<< "$line")
    RUN_STATUS=ok RUN_NOTE="$(sed 's/.* us_per_edge=\([^ ]*\).*/\1/' <<< "$line") us per edge"
    rm -rf "$dir"
}
runs_loop "$tmp/plan" em3d_run
python3 -m inimeasure.em3d_tables "$OUT" > /dev/null || RUNS_FAILED=$((RUNS_FAILED + 1))
# the chapter-6 model beside the curve (needs the share-0 runs)
python3 -m inimeasure.em3d_predict "$OUT" 2> "$tmp/predict.err" ||
    echo "em3d.sh: no model predictions: $(cat "$tmp/predict.err")"
echo "em3d.sh: $(runs_summary); tables in $OUT"
[ "$RUNS_FAILED" = 0 ]
