#!/usr/bin/env bash
# logp.sh - the LogP parameters of the compute-node path, two experiments
# (docs/logp.md), each a series of cluster runs of `ini-bench --logp`:
#
#   knobs    seed 000's knob check (section 3.3, its Table 2 and Fig. 3):
#            every knob (Δo = overhead spinning and overhead_sleep asleep,
#            Δg = gap, ΔG = per_byte, ΔL = latency, O asleep, as the
#            chapter-5 runs spend it) at 4 settings and the base, each
#            run measuring o_s, o_r, g, G and L and the LogP signature;
#            tables of desired against measured and the others' values.
#   overlap  seed 003's overlap analysis (sections 4.3, 5.2): o_s, o_r and
#            EEL of compute node to compute node (the CPU overlap test,
#            computation swept past the knee, ini-bench --logp --tests
#            overlap) beside ini-bench's layers measured in the same series
#            (reliable, compute-to-compute, kernel UDP, UCX, libfabric).
#
#   tools/bench/logp.sh knobs|overlap [--quick] [--reps N] [--seed S]
#        [--knobs LIST] [--values KNOB=V1,V2,...] [--cores A,B]
#        [--load-limit X] [--out DIR] [--plan]
#   tools/bench/logp.sh tables DIR       the tables and plots again from DIR
#
# Every point --reps times (7; --quick: 1), all runs in one seeded random
# order, the machine's load recorded per run (tools/thesis/runs.sh's loop).
# Output, the layout of tools/inimeasure/runs.py: meta.txt; runs.tsv, one row
# per run; reports.jsonl, one line per run: its identifying columns,
# "knob_spec", and "programs": what the run wrote (logp.json, the --logp
# report; ini0/ini1.counters.json, the INIs' counters; ini-bench.json,
# ini-bench's report); errors.log only when something failed; then
# tools/inimeasure/logp.py's tables (.txt, .csv), figure data (.dat) and PNGs.
# The full run (no --quick, --knobs, --values, --reps >= 5) writes
# docs/results/logp-knobs or docs/results/logp-overlap; any other run
# writes runs/logp-EXPERIMENT-<quick|partial>-DATE unless --out is given,
# and never into docs/results.  The compute node that measures runs alone
# on CPU A; the INIs and the other compute node share CPU B (--cores,
# default 0,1).  Exit status 0, 1 when runs failed, 2 on bad arguments.
PROG=logp; . "$(dirname "$0")/../lib/options.sh"
CMDLINE="tools/bench/logp.sh $*"
show_help() { help_between '^#   tools\/bench\/logp.sh knobs' '^#   tools\/bench\/logp.sh tables'; exit 0; }

[ $# -ge 1 ] || die "expected an experiment: knobs, overlap or tables (--help)"
EXP=$1; shift
case $EXP in
knobs|overlap) ;;
tables) [ $# = 1 ] || die "tables: expected one directory"
        [ -r "$1/runs.tsv" ] || die "tables: $1/runs.tsv: no such file"
        exec python3 -m inimeasure.logp "$(sed -n 's/^experiment=\([a-z]*\).*/\1/p' "$1/meta.txt")" "$1" ;;
-h|--help) show_help ;;
*) die "'$EXP' is not an experiment (knobs, overlap, tables; --help)" ;;
esac

QUICK=0 REPS=7 SEED= KNOBS="overhead,overhead_sleep,gap,per_byte,latency,O" CORES=0,1 LOADLIM=none OUT= PLAN=0 VALUES=() PARTIAL=0
# --values may be given more than once; a run of some knobs or values is partial
option_other() { [ "$1" = --values ] || return 0; need "$@"; VALUES+=("$2"); PARTIAL=1 OPT_SHIFT=2; }
parse_options "--knobs=KNOBS --knobs:PARTIAL=1 --quick:QUICK=1 --reps=REPS --seed=SEED --cores=CORES
    --load-limit=LOADLIM --out=OUT --plan:PLAN=1" "$@"

# Knob settings: from about the base figures of this path up to many
# times them (docs/logp.md); --quick: one large setting each, milliseconds,
# so that the integration test can judge the move on a loaded machine,
# where a waiting INI or compute node gets its core back milliseconds late.
declare -A KV=( [overhead]="1,5,20,50" [overhead_sleep]="20,50,100,200" [gap]="2,5,20,50" [per_byte]="1,2,5,10"
                [latency]="5,20,50,100" [O]="5,10,20,50" )
if [ $QUICK = 1 ]; then
    [ "$REPS" = 7 ] && REPS=1
    KV=( [overhead]="1000" [overhead_sleep]="1000" [gap]="5000" [per_byte]="500" [latency]="10000" [O]="2000" )
fi
for v in "${VALUES[@]}"; do
    [[ $v =~ ^(overhead|overhead_sleep|gap|per_byte|latency|O)=[0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*$ ]] ||
        die "--values: '$v' is not KNOB=V1,V2,... (KNOB: overhead, overhead_sleep, gap, per_byte, latency, O)"
    KV[${v%%=*}]=${v#*=}
done
posint --reps "$REPS"
loadlimit --load-limit "$LOADLIM"
[[ $CORES =~ ^([0-9]+),([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" -lt "$(nproc)" ] && [ "${BASH_REMATCH[2]}" -lt "$(nproc)" ] ||
    die "--cores: expected two CPU numbers A,B of this machine, got '$CORES'"
CORE_B=${CORES#*,}
[ -z "$SEED" ] && SEED=$(date +%s)
nonneg --seed "$SEED"
for k in ${KNOBS//,/ }; do
    case $k in overhead|overhead_sleep|gap|per_byte|latency|O) ;;
    *) die "--knobs: unknown knob '$k' (overhead, overhead_sleep, gap, per_byte, latency, O)" ;; esac
done
[ "$EXP" = overlap ] && [ $PARTIAL = 1 ] && die "--knobs and --values are for the knobs experiment"

FULL=0
[ $QUICK = 0 ] && [ $PARTIAL = 0 ] && [ "$REPS" -ge 5 ] && FULL=1
if [ -z "$OUT" ]; then
    if [ $FULL = 1 ]; then OUT=docs/results/logp-$EXP
    else OUT=runs/logp-$EXP-$([ $QUICK = 1 ] && echo quick || echo partial)-$(date +%Y%m%d-%H%M%S); fi
fi
OUT=$(realpath -m "$OUT")
[ $FULL = 0 ] && [[ $OUT == "$ROOT/docs/results"* ]] && die "a partial or quick run does not write into docs/results"
[ $PLAN = 1 ] || mkdir -p "$OUT" || exit 1

make -s build/bin/ini-cluster build/bin/inid build/bin/ini-bench >/dev/null || { echo "logp: build failed" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$ROOT/tools/thesis/runs.sh"
# Private copies of the binaries: a rebuild in the tree during the series
# must not change them between runs.  ini-cluster finds inid beside it.
mkdir -p "$tmp/bin" && cp build/bin/ini-cluster build/bin/inid build/bin/ini-bench "$tmp/bin/" ||
    { echo "logp: cannot copy the binaries" >&2; exit 1; }
CLUSTER=$tmp/bin/ini-cluster BENCH=$tmp/bin/ini-bench

# Two clusters of one compute node and one INI over memif; both INIs on
# CPU B with the serving compute node, waiting in turns (no spin, a yield
# of 1 ms before sleeping), so that CPU A is the measuring node's alone.
# A long SEND timer: no frame is lost on memif, and a retransmission that
# a loaded machine's late ACK would cause is not what is measured.
cat > "$tmp/logp.cfg" <<EOF
version = 1;
network = { mode = "memif"; };
policy  = { compute = "static"; ini = "static"; };
stack   = { window = 64; send_timeout_us = 100000; max_message = 65000; };
idle    = { mode = "adaptive"; spin_us = 0; yield_us = 1000; };
clusters = (
  { id = 0; pes = [0]; inis = ( { id = 0; core = $CORE_B; ip = "198.18.0.1"; } ); },
  { id = 1; pes = [1]; inis = ( { id = 1; core = $CORE_B; ip = "198.18.0.2"; } ); }
);
EOF

# ---- the plan ----
: > "$tmp/points"
if [ "$EXP" = knobs ]; then
    echo "base 0" >> "$tmp/points"
    for k in ${KNOBS//,/ }; do for v in ${KV[$k]//,/ }; do echo "$k $v" >> "$tmp/points"; done; done
    COLS=(knob value)
    # --quick: bursts and window small, so that a gap of 500 us is seconds
    LOGP_ARGS=(--tests signature --cores "$CORES")
    [ $QUICK = 1 ] && LOGP_ARGS+=(--quick --window 4 --bursts 1,4,16,64 --deltas 0,20 --count 20)
else
    printf 'ini-bench\nlogp\n' > "$tmp/points"
    COLS=(tool)
    LOGP_ARGS=(--tests overlap --cores "$CORES")
    BENCH_ARGS=(--layers reliable,compute-to-compute,kernel-udp,ucx-am-tcp,ucx-am-sm,ofi-rxd-udp
                --cores "$CORES" --depths 1,8,64 --sizes 8,65000 --format json --no-plot)
    [ $QUICK = 1 ] && { LOGP_ARGS+=(--quick --count 200); BENCH_ARGS+=(--quick --runs 3); }
fi
runs_plan "$tmp/points" "$REPS" "$SEED" > "$tmp/plan"
NRUNS=$(wc -l < "$tmp/plan")
{
    echo "# $CMDLINE"
    echo "experiment=$EXP reps=$REPS seed=$SEED runs=$NRUNS cores=$CORES load_limit=$LOADLIM quick=$QUICK full=$FULL"
    echo "date=$(date -Iseconds) commit=$(git rev-parse --short HEAD 2>/dev/null || echo -) machine=\"$(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)\""
    echo "logp_args=${LOGP_ARGS[*]}"
    [ "$EXP" = overlap ] && echo "bench_args=${BENCH_ARGS[*]}"
    if [ "$EXP" = knobs ]; then for k in ${KNOBS//,/ }; do echo "values_$k=${KV[$k]}"; done; fi
    sed 's/^/config: /' "$tmp/logp.cfg"
} > "$tmp/meta.txt"
echo "logp $EXP: $NRUNS runs ($REPS per point), seed $SEED; output $OUT"
if [ $PLAN = 1 ]; then cat "$tmp/meta.txt" "$tmp/plan"; exit 0; fi
runs_open "$OUT" "${COLS[@]}"
cp "$tmp/meta.txt" "$OUT/meta.txt"
RUNS_TMP=$tmp RUNS_TRACE=/bin/false RUNS_LOADLIM=$LOADLIM
[ $QUICK = 1 ] && RUNS_SAMPLE_S=0.25

# The --knob of a point: one knob, the others at 0.  O asleep, as the
# chapter-5 runs spend it (docs/config.md), but fixed, not drawn; Δo both
# ways, spinning (the default) and asleep (as tools/sweeps/sweep.sh spends
# it).
knob_spec() {  # KNOB VALUE
    case $1 in
    base) echo "" ;; overhead) echo "overhead_us=$2" ;; overhead_sleep) echo "overhead_us=$2,overhead_mode=sleep" ;;
    gap) echo "gap_us=$2" ;;
    per_byte) echo "per_byte_ns=$2" ;; latency) echo "latency_us=$2" ;; O) echo "O_us=$2,O_mode=sleep,O_dist=fixed" ;;
    esac
}

# One cluster run of ini-bench --logp with the knob SPEC; its report and
# the INIs' counters join reports.jsonl.
logp_cluster_run() {  # SPEC ID_FIELDS...
    local spec=$1 dir=$tmp/run knob=() t0 rc f keep=()
    [ -n "$spec" ] && knob=(--knob "$spec")
    t0=$(date +%s.%N)
    runs_launch "$dir" /dev/null timeout 900 "$CLUSTER" run "$tmp/logp.cfg" "${knob[@]}" --run-dir "$dir" \
        --timeout 800 -- "$BENCH" --logp "${LOGP_ARGS[@]}"
    rc=$?
    RUN_TIME=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.3f", b - a}')
    grep '^{"mode": "logp"' "$dir/cluster0.out" > "$tmp/logp.json" 2>/dev/null
    if [ "$rc" != 0 ] || [ ! -s "$tmp/logp.json" ]; then
        RUN_TIME=; runs_fail "$dir" "exit $rc"; return 1
    fi
    keep=(--program "$tmp/logp.json")
    for f in "$dir"/ini0.counters.json "$dir"/ini1.counters.json; do [ -f "$f" ] && keep+=(--program "$f"); done
    runs_add "$RUNS_OUT" "${RUN_IDS[@]}" --field "knob_spec=$spec" "${keep[@]}"
    RUN_NOTE=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print("rtt %.1f us" % d["rtt_us"] + ("; o_s %.2f o_r %.2f g %.2f L %.1f us, G %.3f ns/B" % tuple(d[k] for k in ("o_s_us", "o_r_us", "g_us", "L_us", "G_ns_per_byte")) if "g_us" in d else "") + ("; overlap o_s %.2f o_r %.2f us" % (d["overlap_send"]["o_us"], d["overlap_recv"]["o_us"]) if "overlap_send" in d else ""))' "$tmp/logp.json")
    RUN_STATUS=ok
}

knobs_run() {  # KNOB VALUE REP
    logp_cluster_run "$(knob_spec "$1" "$2")"
}

overlap_run() {  # TOOL REP
    [ "$1" = logp ] && { logp_cluster_run ""; return; }
    local t0 rc
    t0=$(date +%s.%N)
    /usr/bin/time -f "%U %S" -o "$tmp/cpu" timeout 1800 "$BENCH" "${BENCH_ARGS[@]}" > "$tmp/ini-bench.json" 2> "$tmp/log"
    rc=$?
    RUN_TIME=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.3f", b - a}')
    read -r RUN_CPU_USER RUN_CPU_SYS < <(tail -n 1 "$tmp/cpu" 2>/dev/null)
    # A layer that failed makes the exit status 1 but the others are kept.
    if ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/ini-bench.json" 2> /dev/null; then
        RUN_TIME=; runs_fail "$tmp" "exit $rc, no JSON"; return
    fi
    [ "$rc" != 0 ] && runs_error "ini-bench rep $RUN_REP: exit $rc (the layers it measured are kept)" "$tmp/log"
    runs_add "$RUNS_OUT" "${RUN_IDS[@]}" --program "$tmp/ini-bench.json"
    RUN_STATUS=ok RUN_NOTE="ini-bench exit $rc"
}

runs_loop "$tmp/plan" "${EXP}_run"
python3 -m inimeasure.logp "$EXP" "$OUT" || RUNS_FAILED=$((RUNS_FAILED + 1))
echo "logp $EXP: $(runs_summary); results in $OUT"
[ "$RUNS_FAILED" = 0 ]
