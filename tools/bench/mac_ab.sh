#!/usr/bin/env bash
# mac_ab.sh - two builds' MAC cost in the stack alone, A/B in turns on one
# machine (docs/results/mac-fast/): each turn runs, for build A and build
# B (the order flipped every turn, so a drift of the load falls on both),
# ini-bench --inproc with the MAC off and on (that order flipped too):
#   inproc_64k_cycles   --layer reliable --size 65000 --count 400,
#                       send + receive cycles per message
#   inproc_rtt_cycles   --pingpong --size 8 --count 20000, cycles per
#                       round trip (both INIs)
#
#   tools/bench/mac_ab.sh OUT_DIR TURNS NAME_A BENCH_A NAME_B BENCH_B
#   SEGMENT=on|off (default off: IP fragments, ini-bench's default; the
#   system's default is on) picks the 64 KB run's --segment.
# OUT_DIR/runs.tsv: turn, build, mac, measure, value, load (1-minute load
# average at the run); OUT_DIR/raw.txt: every run's output, each under a
# "==> tTURN-BUILD-MAC-WHAT.txt <==" line (one file, the layout
# tests/integration/results_tables.sh wants).  Rows are appended: a
# second batch adds to the table, never replaces it.
set -u
OUT=${1:?usage: mac_ab.sh OUT_DIR TURNS NAME_A BENCH_A NAME_B BENCH_B}
TURNS=${2:?turns}
declare -A BENCH=([${3:?name A}]=${4:?bench A} [${5:?name B}]=${6:?bench B})
A=$3 B=$5
for n in "$A" "$B"; do [ -x "${BENCH[$n]}" ] || { echo "mac_ab: BENCH_$n ${BENCH[$n]} not executable" >&2; exit 1; }; done
mkdir -p "$OUT"
TSV=$OUT/runs.tsv
[ -s "$TSV" ] || printf 'turn\tbuild\tmac\tmeasure\tvalue\tload\n' > "$TSV"
first=$(($(tail -n +2 "$TSV" | cut -f1 | sort -n | tail -1) + 1))

# keep NAME FILE: FILE's text appended to raw.txt under "==> NAME <==".
keep() { { echo "==> $1 <=="; cat "$2"; } >> "$OUT/raw.txt"; }

one() {   # one TURN BUILD MAC
    local turn=$1 build=$2 mac=$3 flag= raw=$OUT/.run.txt load
    [ "$mac" = on ] && flag=--mac
    load=$(cut -d' ' -f1 /proc/loadavg)
    "${BENCH[$build]}" --inproc --layer reliable --size 65000 --count 400 --segment "${SEGMENT:-off}" $flag \
        > "$raw" 2>&1
    keep "t$turn-$build-$mac-64k.txt" "$raw"
    printf '%s\t%s\t%s\tinproc_64k_cycles\t%s\t%s\n' "$turn" "$build" "$mac" \
        "$(awk '$1 == "reliable" { print $4 }' "$raw")" "$load" >> "$TSV"
    "${BENCH[$build]}" --inproc --pingpong --size 8 --count 20000 $flag > "$raw" 2>&1
    keep "t$turn-$build-$mac-rtt.txt" "$raw"
    printf '%s\t%s\t%s\tinproc_rtt_cycles\t%s\t%s\n' "$turn" "$build" "$mac" \
        "$(awk '/cycles per round trip/ { for (i = 1; i < NF; i++) if ($i == "total") print $(i + 1) }' "$raw")" \
        "$load" >> "$TSV"
    rm -f "$raw"
}

for turn in $(seq "$first" $((first + TURNS - 1))); do
    builds="$A $B" macs="off on"
    [ $((turn % 2)) = 0 ] && builds="$B $A"
    [ $((turn / 2 % 2)) = 1 ] && macs="on off"
    echo "mac_ab: turn $turn (order: $builds, mac $macs), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    for b in $builds; do
        for m in $macs; do
            one "$turn" "$b" "$m"
        done
    done
done
echo "mac_ab: $(($(wc -l < "$TSV") - 1)) rows in $TSV" >&2
