#!/usr/bin/env bash
# mac_cost.sh - what the transport's MAC costs (issue 49; docs/performance.md,
# "The MAC's cost"), A/B in turns on this machine: each turn measures, for
# each network mode, the MAC off and on (the order flipped every turn, so
# a drift of the machine's load falls on both), and every turn is kept.
#
#   tools/bench/mac_cost.sh OUT_DIR [TURNS] [MODES]
#       TURNS (default 5) turns; MODES (default "memif af_packet";
#       af_packet needs root and ip netns) each from conf/default.cfg or
#       conf/af_packet.cfg with security = { mac = "on"|"off"; }.
#
# Measures per (turn, mode, mac), with the programs as shipped:
#   rtt_p50_us   ini-ping --sizes 8 --pattern pairs --window 1: the median
#                round trip of each cluster's PEs (two rows, c0 and c1)
#   bw_MBps      ini-ping --sizes 65000 --window 8 --pattern pairs: each
#                cluster's echoes/s x 65,000 x 2 (request and echo), summed
# and once per turn and mac (no network, the stack's own work):
#   inproc_rtt_cycles   ini-bench --inproc --pingpong --size 8
#   inproc_64k_cycles   ini-bench --inproc --layer reliable --size 65000,
#                       send + receive cycles per message
# OUT_DIR/runs.tsv: turn, mode, mac, measure, value; OUT_DIR/raw/: every
# program's output.
set -u
cd "$(dirname "$0")/../.."
OUT=${1:?usage: mac_cost.sh OUT_DIR [TURNS] [MODES]}
TURNS=${2:-5}
MODES=${3:-memif af_packet}
L=build/bin/ini-cluster P=build/bin/ini-ping B=build/bin/ini-bench
for b in $L $P $B build/bin/inid; do [ -x "$b" ] || { echo "mac_cost: $b not built (make)" >&2; exit 1; }; done
mkdir -p "$OUT/raw" "$OUT/cfg"
TSV=$OUT/runs.tsv
[ -s "$TSV" ] || printf 'turn\tmode\tmac\tmeasure\tvalue\n' > "$TSV"

config() {
    local src=conf/default.cfg
    [ "$1" = af_packet ] && src=conf/af_packet.cfg
    sed "s/^version = 1;/version = 1;\nsecurity = { mac = \"$2\"; };/" $src > "$OUT/cfg/$1-$2.cfg"
    echo "$OUT/cfg/$1-$2.cfg"
}
row() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" >> "$TSV"; }

# ping TURN MODE MAC WHAT ARGS...: one ini-cluster run of ini-ping, its
# output kept as raw/tTURN-MODE-MAC-WHAT.txt; its run directory removed.
ping_run() {
    local turn=$1 mode=$2 mac=$3 what=$4
    shift 4
    local raw=$OUT/raw/t$turn-$mode-$mac-$what.txt dir
    dir=$(mktemp -d /tmp/ini-mac-cost.XXXXXX)
    $L run "$(config "$mode" "$mac")" --run-dir "$dir/run" -- $P "$@" > "$raw" 2>&1 ||
        echo "mac_cost: turn $turn $mode mac $mac $what: ini-cluster exited $? (see $raw)" >&2
    rm -rf "$dir"
    grep -q "^MAC: $mac" "$raw" || echo "mac_cost: $raw does not say 'MAC: $mac'" >&2
    echo "$raw"
}

measure_mode() {
    local turn=$1 mode=$2 mac=$3 raw
    raw=$(ping_run "$turn" "$mode" "$mac" rtt --sizes 8 --count 3000 --pattern pairs)
    sed 's/^\[c1\] *//' "$raw" | awk '$1 == 8 && NF == 7 { print $4 }' | while read -r p50; do
        row "$turn" "$mode" "$mac" rtt_p50_us "$p50"
    done
    raw=$(ping_run "$turn" "$mode" "$mac" bw --sizes 65000 --count 300 --window 8 --pattern pairs)
    row "$turn" "$mode" "$mac" bw_MBps "$(sed 's/^\[c1\] *//' "$raw" |
        awk '$1 == "rate" { s += $2 } END { printf "%.1f", s * 65000 * 2 / 1e6 }')"
}

measure_inproc() {
    local turn=$1 mac=$2 flag= raw
    [ "$mac" = on ] && flag=--mac
    raw=$OUT/raw/t$turn-inproc-$mac-rtt.txt
    $B --inproc --pingpong --size 8 --count 20000 $flag > "$raw" 2>&1
    row "$turn" inproc "$mac" inproc_rtt_cycles "$(awk '/cycles per round trip/ { for (i = 1; i < NF; i++) if ($i == "total") print $(i + 1) }' "$raw")"
    raw=$OUT/raw/t$turn-inproc-$mac-64k.txt
    $B --inproc --layer reliable --size 65000 --count 400 $flag > "$raw" 2>&1
    row "$turn" inproc "$mac" inproc_64k_cycles "$(awk '$1 == "reliable" { print $4 }' "$raw")"
}

for turn in $(seq "$TURNS"); do
    order="off on"
    [ $((turn % 2)) = 0 ] && order="on off"
    echo "mac_cost: turn $turn of $TURNS (order: $order), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    for mac in $order; do
        measure_inproc "$turn" "$mac"
        for mode in $MODES; do
            measure_mode "$turn" "$mode" "$mac"
        done
    done
done
echo "mac_cost: $(($(wc -l < "$TSV") - 1)) rows in $TSV" >&2
