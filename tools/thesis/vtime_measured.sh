#!/usr/bin/env bash
# vtime_measured.sh: how far the host moves the virtual-time mode's
# measured compute (--vt-compute measured: a burst costs its thread's CPU
# time x K), beside declared work as the null (docs/virtual-time.md;
# predictions in docs/results/vtime-measured/predictions.txt, written
# before the runs).
#
#   tools/thesis/vtime_measured.sh [--out DIR] [--reps N] [--k K]
#
# Workloads: Water (--mgs --deterministic) with 64 and 216 molecules on
# 2 clusters x 2 nodes x 1 INI, 343 molecules on 4 x 4 x 1 (16 nodes).
# Each runs REPS times (default 5) under each load the script adds beside
# it: none, spin2 and spin8 (2 or 8 jobs spinning on the CPU: time
# slicing), mem2 (2 jobs copying 32 MiB blocks: caches and memory
# bandwidth taken).  Then one declared-work run per load (the null: its
# cycles must not move).  One row per run in DIR/runs.tsv, with the host's
# one-minute load at the start.  DIR defaults to a new directory under /tmp.
PROG=vtime_measured.sh; . "$(dirname "$0")/../lib/options.sh"
OUT="" REPS=5 K=50
parse_options "--out=OUT --reps=REPS --k=K" "$@"
[ -n "$OUT" ] || OUT=$(mktemp -d /tmp/vtime-measured.XXXXXX)
mkdir -p "$OUT/runs"
L=build/bin/ini-cluster W=build/bin/water RANDOM_IN=tools/apps/water/data/random.in
TSV=$OUT/runs.tsv COMMIT=$(git rev-parse --short HEAD)
CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1 | tr '\t' ' ')
[ -f "$TSV" ] || printf 'workload\tcompute\tload\trep\tcycles\thost_s\tloadavg\tanswer_ok\tcpu\tcommit\n' > "$TSV"

input() { printf '  1.5e-16   %s  2   6\n -1      3000     2  0\n%s 6.212752\n' "$1" "$2"; }   # MOLS NODES
xtt() { grep -m 1 -o 'XTT = [0-9.]*' "$1"; }

# start_load KIND: the jobs beside the run; their pids in LOADPIDS
start_load() {
    LOADPIDS=""
    local n=0 k
    case $1 in
        spin2) n=2 ;; spin8) n=8 ;;
        mem2) for k in 1 2; do
                  ( while :; do dd if=/dev/zero of=/dev/null bs=32M count=64 2> /dev/null; done ) &
                  LOADPIDS="$LOADPIDS $!"
              done ;;
    esac
    for ((k = 0; k < n; k++)); do ( while :; do :; done ) & LOADPIDS="$LOADPIDS $!"; done
    sleep 1
}
stop_load() { [ -n "$LOADPIDS" ] && { kill $LOADPIDS; wait $LOADPIDS; } 2> /dev/null; LOADPIDS=""; }

# run_one WORKLOAD MOLS CFG COMPUTE LOAD REP: one run, one row
run_one() {
    local name=$1-$4-$5-r$6 flags=(--vt-compute "$4")
    [ "$4" = measured ] && flags+=(--vt-k "$K")
    local la=$(cut -d' ' -f1 /proc/loadavg) t0=$(date +%s.%N)
    timeout 900 $L run "$3" --time virtual "${flags[@]}" --timeout 850 --run-dir "$OUT/runs/$name" -- \
        "$W" --mgs --deterministic --random "$RANDOM_IN" < "$OUT/runs/in$2" > "$OUT/runs/$name.out" 2>&1
    local rc=$? t1=$(date +%s.%N)
    local cyc=$(sed -n 's/^virtual time: \([0-9]*\) cycles.*/\1/p' "$OUT/runs/$name.out")
    local ok=0
    [ "$rc" = 0 ] && [ "$(xtt "$OUT/runs/$name.out")" = "$(xtt "$OUT/runs/threads$2.out")" ] && ok=1
    printf '%s\t%s\t%s\t%s\t%s\t%.2f\t%s\t%s\t%s\t%s\n' "$1" "$4" "$5" "$6" "${cyc:-NA}" \
        "$(echo "$t1 - $t0" | bc)" "$la" "$ok" "$CPU" "$COMMIT" >> "$TSV"
    tail -n 1 "$TSV"
}

trap stop_load EXIT
for w in "w64 64 2 2 1" "w216 216 2 2 1" "w343 343 4 4 1"; do
    set -- $w
    cfg=$OUT/runs/$3x$4x$5.cfg nodes=$(( $3 * $4 ))
    [ -f "$cfg" ] || $L gen "$3" "$4" "$5" -o "$cfg" > /dev/null
    input "$2" "$nodes" > "$OUT/runs/in$2"
    "$W" --deterministic --random "$RANDOM_IN" < "$OUT/runs/in$2" > "$OUT/runs/threads$2.out" 2>&1
    for load in none spin2 spin8 mem2; do
        start_load "$load"
        for rep in $(seq 1 "$REPS"); do run_one "$1" "$2" "$cfg" measured "$load" "$rep"; done
        run_one "$1" "$2" "$cfg" declared "$load" 1
        stop_load
    done
done
echo "vtime_measured.sh: rows in $TSV"
