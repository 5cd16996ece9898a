#!/usr/bin/env bash
# callgrind-stack.sh - instructions per message of the INI's stack path,
# send and receive apart, from callgrind on ini-bench --inproc (two INIs in
# one process, the memif driver left out: see tools/bench/bench_inproc.c).
#
#   tools/bench/callgrind-stack.sh [COUNT] [WINDOW] [SIZE] [SEGMENT]   (defaults 20000, 16, 8, off)
#
# SEGMENT on: a message longer than a frame goes as transport segments (the
# configuration's default); off: as IP fragments (the thesis's transport,
# and what the committed counts were taken with).
#
# For each layer it runs the program under callgrind once per direction,
# collecting only inside that direction's functions (--toggle-collect):
#   send     ip_*_send (+ ip_rel_ack: processing the ACKs of what was sent)
#   receive  ip_*_recv (IP, UDP, transport, delivery copy, ACKs sent)
# and prints the totals per message (instructions, simulated D1/LL misses)
# and the reliable layer's ping-pong (ini-bench --inproc --pingpong) per
# round trip,
# then, for the reliable layer, every function's own share per message and
# the same grouped by cause: checksum, CRC (and both in one pass; both inline for
# one-frame messages), IP fragmentation and
# reassembly, allocation (pbufs, mbufs), copies, timers, protocol code
# (lwIP headers, our transport), glue (the link and header prediction).
set -eu
cd "$(dirname "$0")/../.."
N=${1:-20000}
W=${2:-16}
SIZE=${3:-8}
SEG=${4:-off}
case $SEG in on|off) ;; *) echo "callgrind-stack: SEGMENT: expected on or off, got '$SEG'" >&2; exit 2 ;; esac
BIN=build/bin/ini-bench
[ -x "$BIN" ] || { echo "callgrind-stack: build first (make build/bin/ini-bench)" >&2; exit 2; }
command -v valgrind > /dev/null || { echo "callgrind-stack: valgrind is not installed" >&2; exit 2; }
TMP=$(mktemp -d /tmp/callgrind-stack.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# run NAME LAYER FUNCTIONS...
run() {
    local name=$1 layer=$2
    shift 2
    local toggles=()
    # "*": link-time optimisation may clone a function (ip_rel_reply.constprop.0).
    for f in "$@"; do toggles+=(--toggle-collect="$f*"); done
    valgrind --tool=callgrind --cache-sim=yes --callgrind-out-file="$TMP/$name.out" "${toggles[@]}" \
        "$BIN" --inproc --layer "$layer" --count "$N" --window "$W" --size "$SIZE" --segment "$SEG" > "$TMP/$name.log" 2>&1 ||
        { cat "$TMP/$name.log" >&2; exit 1; }
    callgrind_annotate --auto=no --show=Ir,D1mr,D1mw,DLmr,DLmw --threshold=100 "$TMP/$name.out" \
        2> /dev/null > "$TMP/$name.txt"
}

# Per-function rows of an annotation: Ir D1mr D1mw DLmr DLmw file:function
rows() {
    awk '/file:function/ { on = 1; next }
         on && NF {
             gsub(/\([^)]*\)/, ""); gsub(/,/, "")
             if ($1 !~ /^[0-9]+$/) next
             name = $6
             if (name ~ /^\?\?\?/ && NF >= 7) name = name "@" $7   # no symbol: keep the library
             print $1, $2, $3, $4, $5, name
         }' "$TMP/$1.txt"
}

total() {
    awk '/PROGRAM TOTALS/ { gsub(/\([^)]*\)/, ""); gsub(/,/, ""); print $1, $2, $3, $4, $5; exit }' "$TMP/$1.txt"
}

echo "ini-bench --inproc under callgrind: $N messages of $SIZE bytes, window $W, segments $SEG ($(date -u +%Y-%m-%d), $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo
printf '%-10s %-8s %12s %10s %10s\n' layer side instr/msg D1miss/msg LLmiss/msg
for layer in raw udp-ip reliable; do
    case $layer in
        raw) s=(ip_raw_send); r=(ip_raw_recv) ;;
        udp-ip) s=(ip_udp_send); r=(ip_udp_recv) ;;
        reliable) s=(ip_rel_send ip_rel_ack); r=(ip_rel_recv) ;;
    esac
    run "$layer-send" "$layer" "${s[@]}"
    run "$layer-recv" "$layer" "${r[@]}"
    for side in send recv; do
        total "$layer-$side" | awk -v n="$N" -v l="$layer" -v s="$side" \
            '{ printf "%-10s %-8s %12.0f %10.2f %10.3f\n", l, s, $1 / n, ($2 + $3) / n, ($4 + $5) / n }'
    done
done
# The seed's round trip: A sends, B answers; each message carries the ACK
# of the one before (no bare ACKs).
valgrind --tool=callgrind --callgrind-out-file="$TMP/pingpong.out" --toggle-collect='ip_rel_send*' \
    --toggle-collect='ip_rel_recv*' --toggle-collect='ip_rel_reply*' --toggle-collect='ip_rel_ack*' \
    "$BIN" --inproc --pingpong --count "$N" --size "$SIZE" --segment "$SEG" > "$TMP/pingpong.log" 2>&1 ||
    { cat "$TMP/pingpong.log" >&2; exit 1; }
callgrind_annotate --auto=no "$TMP/pingpong.out" 2> /dev/null > "$TMP/pingpong.txt"
total pingpong | awk -v n="$N" '{ printf "reliable ping-pong: %.0f instructions per round trip, %.0f per message (send + receive)\n", $1 / n, $1 / n / 2 }'
sum() { total "$1" | awk -v n="$N" '{ print $1 / n }'; }
echo
awk -v s="$(sum reliable-send)" -v r="$(sum reliable-recv)" 'BEGIN {
    printf "reliable: send %.0f + receive %.0f = %.0f instructions per message (target for 8 bytes: 2,500; thesis, 0 bytes: 2,318 + 2,513 cycles)\n", s, r, s + r }'

for side in send recv; do
    echo
    echo "reliable $side: instructions per message by function (own cost, top 25)"
    rows "reliable-$side" | sort -k1,1nr | head -25 |
        awk -v n="$N" '{ printf "  %8.1f  %s\n", $1 / n, $6 }'
    echo "reliable $side: grouped by cause"
    rows "reliable-$side" | awk -v n="$N" -v side="$side" '
        {
            f = $6; c = "protocol: lwIP (IP, UDP, pbuf headers)"
            if (f ~ /udp_sendto/) c = "protocol: lwIP (IP, UDP, pbuf headers)"
            else if (f ~ /crc_sum/) c = "CRC32C and UDP checksum in one pass (messages of several frames)"
            else if (f ~ /crc/) c = "CRC32C of the message"
            else if (f ~ /chksum|sum_avx2|checksum\.c/) c = "Internet checksum (UDP, IP)"
            else if (f ~ /checksum\.h|adxintrin\.h/) c = "checksums and CRC32C inline (one-frame messages, checksum.h)"
            else if (f ~ /ip4_reass/ || (side == "recv" && f ~ /pbuf_cat|ip4_frag\.c/)) c = "IP reassembly (lwIP)"
            else if (f ~ /ip4_frag/) c = "IP fragmentation (lwIP)"
            else if (f ~ /memcpy|memmove|pbuf_copy_partial/) c = "copies"
            else if (f ~ /pbuf_alloc|pbuf_free|memp_|mem_malloc|mem_free|pbuf_alloced_custom|mempool|rte_pktmbuf|rte_mbuf\.h|pbuf_ref/) c = "allocation (pbufs, mbufs)"
            else if (f ~ /timer_list/) c = "timers"
            else if (f ~ /stack\/swp/) c = "protocol: transport (swp*.c, swp_internal.h)"
            else if (f ~ /netif_dpdk|stack\/dgram|stack\/stack/) c = "glue (netif_dpdk, dgram: the link, header prediction)"
            else if (f ~ /tools\/bench/) c = "benchmark harness"
            sum[c] += $1
        }
        END { for (c in sum) printf "  %8.1f  %s\n", sum[c] / n, c }' | sort -k1,1nr
done
