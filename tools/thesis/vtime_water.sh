#!/usr/bin/env bash
# vtime_water.sh: Water on MGS in virtual time across the thesis's table 5.5
# layouts, and the 64-node machine (docs/virtual-time.md; predictions in
# docs/results/vtime-water/predictions.txt, written before the runs).
#
#   tools/thesis/vtime_water.sh [--out DIR] [--reps N] [--nodes 16|64|both] [--mode memif|af_packet]
#
# Cells: 16 nodes as clusters of 1, 2, 4, 8, each with one INI per cluster
# and with one INI per node (the null: no INI shared); 64 nodes as 16
# clusters of 4 with 1, 2 and 4 INIs (4 only with --mode af_packet: memif
# gives an INI at most 32 ports, and 64 INIs need 63).  Water: 343 molecules, 2 steps, the
# lock-based mode (the thesis's), static policy, `thesis` costs, declared
# work at --work-scale 13.92.  Replicate 2 runs with two spinning jobs
# loading both host cores.  One row per run in DIR/runs.tsv (the host's
# seconds too: the emulation's cost).  DIR defaults to a new directory
# under /tmp: a quick run never overwrites committed results.
PROG=vtime_water.sh; . "$(dirname "$0")/../lib/options.sh"
OUT="" REPS=2 NODES=both SCALE=13.92 MODE=memif
parse_options "--out=OUT --reps=REPS --nodes=NODES --mode=MODE" "$@"
[ -n "$OUT" ] || OUT=$(mktemp -d /tmp/vtime-water.XXXXXX)
mkdir -p "$OUT/runs"
L=build/bin/ini-cluster W=build/bin/water RANDOM_IN=tools/apps/water/data/random.in
TSV=$OUT/runs.tsv
[ -f "$TSV" ] || printf 'nodes\tclusters\tpes\tinis\trep\tload\tcycles\tmcycles\tevents\thandovers\thost_s\tmsgs\tavg_bytes\tini_util_mean\tini_util_max\tanswer_ok\tcommit\n' > "$TSV"

# run_cell CLUSTERS PES INIS REP: one run, one row
run_cell() {
    local c=$1 p=$2 i=$3 rep=$4 nodes=$(( $1 * $2 )) name="$1x$2x$3-r$4" load=0 h1= h2=
    local cfg=$OUT/runs/$1x$2x$3.cfg dir=$OUT/runs/$name
    [ -f "$cfg" ] || $L gen "$c" "$p" "$i" --mode "$MODE" -o "$cfg" > /dev/null
    printf '  1.5e-16   343  2   6\n -1      3000     2  0\n%d 6.212752\n' "$nodes" > "$OUT/runs/in$nodes"
    if [ "$rep" = 2 ]; then
        load=2; ( while :; do :; done ) & h1=$!; ( while :; do :; done ) & h2=$!
    fi
    local t0=$(date +%s.%N)
    timeout 3000 $L run "$cfg" --time virtual --timeout 2900 --run-dir "$dir" -- \
        "$W" --mgs --work-scale $SCALE --random "$RANDOM_IN" < "$OUT/runs/in$nodes" > "$dir.out" 2>&1
    local rc=$? t1=$(date +%s.%N)
    [ -n "$h1" ] && { kill $h1 $h2; wait $h1 $h2; } 2>/dev/null
    python3 -m inimeasure.vtime_row "$dir" "$dir.out" "$rc" "$t0" "$t1" "$nodes $c $p $i $rep $load" \
        "$(git rev-parse --short HEAD)" >> "$TSV"
    tail -1 "$TSV"
}

cells16() { for c in 1 2 4 8; do echo "$((16 / c)) $c 1"; [ $c -gt 1 ] && echo "$((16 / c)) $c $c"; done; }
cells64() { echo "16 4 1"; echo "16 4 2"; [ "$MODE" = af_packet ] && echo "16 4 4"; }
{ case $NODES in 16) cells16 ;; 64) cells64 ;; *) cells16; cells64 ;; esac; } > "$OUT/cells"
while read -r c p i; do
    for rep in $(seq 1 "$REPS"); do run_cell "$c" "$p" "$i" "$rep"; done
done < "$OUT/cells"
echo "vtime_water.sh: rows in $TSV"
