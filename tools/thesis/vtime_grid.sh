#!/usr/bin/env bash
# vtime_grid.sh: the thesis's Water grid (tables 5.3-5.9) in virtual time,
# traced, each run reported (issue 45, points 2-4; docs/results/vtime-grid).
#
#   tools/thesis/vtime_grid.sh --out DIR --cells LIST [--costs thesis|stack] [--reps N]
#                              [--compute declared|measured] [--vt-k K] [--tag WORD]
#
# LIST: cells "P:I" separated by commas, P compute nodes a cluster (1, 2,
# 4, 8; 16 / P clusters) and I INIs a cluster (I <= P), e.g. 1:1,2:1,4:1,8:1
# (the one-INI column, run first: tools/thesis/vtime_grid_predict.sh writes
# the predictions of the other cells from it).  Water: 343 molecules, 2
# steps, the lock-based mode, static policy, declared work at --work-scale
# 13.92 (as tools/thesis/vtime_water.sh).  Each run is traced (--trace
# summary); one row per run in DIR/runs.tsv (the costs, the compute mode,
# the cell, virtual cycles, the host's seconds and load, messages, the INIs'
# busy share, the report's utilization, queue at arrival, time-average
# queue and misrouting rates) and its `ini-trace report --format json` a
# line of DIR/reports.jsonl.  The run directories stay in DIR/runs/.
PROG=vtime_grid; . "$(dirname "$0")/../lib/options.sh"
OUT="" CELLS="" COSTS=thesis REPS=1 COMPUTE=declared K=50 TAG=""
parse_options "--out=OUT --cells=CELLS --costs=COSTS --reps=REPS --compute=COMPUTE --vt-k=K --tag=TAG" "$@"
[ -n "$OUT" ] || die "--out: required (a quick run goes to a directory under /tmp)"
[ -n "$CELLS" ] || die "--cells: required (e.g. 1:1,2:1,4:1,8:1)"
case $COSTS in thesis|stack) ;; *) die "--costs: expected thesis or stack, got '$COSTS'" ;; esac
case $COMPUTE in declared|measured) ;; *) die "--compute: expected declared or measured, got '$COMPUTE'" ;; esac
posint --reps "$REPS"
posint --vt-k "$K"
for cell in ${CELLS//,/ }; do
    [[ $cell =~ ^(1|2|4|8):(1|2|4|8)$ ]] || die "--cells: '$cell' is not P:I with P and I in 1, 2, 4, 8"
    [ "${cell#*:}" -le "${cell%:*}" ] || die "--cells: '$cell' has more INIs than nodes a cluster"
done
mkdir -p "$OUT/runs" || exit 1
L=build/bin/ini-cluster W=build/bin/water T=build/bin/ini-trace RANDOM_IN=tools/apps/water/data/random.in
for b in $L $W $T; do [ -x "$b" ] || die "$b: not built (run make)"; done
TSV=$OUT/runs.tsv
[ -f "$TSV" ] || printf 'costs\tcompute\tk\ttag\tnodes\tclusters\tpes\tinis\trep\tload\tcycles\tmcycles\tevents\thandovers\thost_s\tmsgs\tavg_bytes\tini_util_mean\tini_util_max\tanswer_ok\tcommit\tutilization\tqueue_at_arrival\tqueue_len\tmis_count\tmis_time\n' > "$TSV"
printf '  1.5e-16   343  2   6\n -1      3000     2  0\n16 6.212752\n' > "$OUT/runs/in16"

# the next free replicate number of a run name's prefix
next_rep() { local n=1; while [ -e "$1-r$n" ]; do n=$((n + 1)); done; echo $n; }

# run_cell P I: one traced run, one row and one report line
run_cell() {
    local p=$1 i=$2 c=$((16 / $1)) cfg=$OUT/runs/c$1-i$2.cfg
    local base=$OUT/runs/$COSTS-$COMPUTE${TAG:+-$TAG}-c$1-i$2 rep dir load
    rep=$(next_rep "$base"); dir=$base-r$rep
    [ -f "$cfg" ] || $L gen "$c" "$p" "$i" -o "$cfg" > /dev/null || die "ini-cluster gen $c $p $i failed"
    local extra=()
    [ "$COMPUTE" = measured ] && extra=(--vt-compute measured --vt-k "$K")
    load=$(cut -d' ' -f1 /proc/loadavg)
    local t0=$(date +%s.%N)
    timeout 3000 $L run "$cfg" --time virtual --vt-costs "$COSTS" "${extra[@]}" --trace summary \
        --timeout 2900 --run-dir "$dir" -- "$W" --mgs --work-scale 13.92 --random "$RANDOM_IN" \
        < "$OUT/runs/in16" > "$dir.out" 2>&1
    local rc=$? t1=$(date +%s.%N)
    $T report "$dir" --format json > "$dir.report.json" 2> "$dir.report.err" || : > "$dir.report.json"
    python3 -m inimeasure.vtime_grid_row "$dir" "$dir.out" "$rc" "$t0" "$t1" \
        "$COSTS $COMPUTE $K ${TAG:--} 16 $c $p $i $rep $load" "$(git rev-parse --short HEAD)" \
        "$dir.report.json" "$OUT/reports.jsonl" >> "$TSV"
    tail -1 "$TSV"
}

for rep in $(seq 1 "$REPS"); do
    for cell in ${CELLS//,/ }; do run_cell "${cell%:*}" "${cell#*:}"; done
done
echo "vtime_grid.sh: rows in $TSV"
