#!/usr/bin/env bash
# loss_vs_size.sh: delivery time against message size under frame loss.
# One message in flight per compute node (ini-ping --window 1), so the
# round trip is two deliveries back to back; prints the median and p90
# round trip per size and loss rate, and the expected number of tries of a
# datagram of F fragments, 1/(1-p)^F.
#   usage: tools/ping/loss_vs_size.sh [COUNT] > docs/results/loss-vs-size.txt
set -eu
cd "$(dirname "$0")/../.."
COUNT=${1:-20}
SIZES="64 1400 4000 9000 20000 40000 65000"
TMP=$(mktemp -d /tmp/ini-loss.XXXXXX)
printf "# delivery time under loss: conf/default.cfg, ini-ping --window 1, %d round trips per PE and size\n" "$COUNT"
printf "# round trip = two deliveries; SEND timeout %s us\n" "$(grep -o 'send_timeout_us = [0-9]*' conf/default.cfg | grep -o '[0-9]*$')"
printf "%8s %6s %10s %12s %12s\n" loss bytes frames "p50_rtt_us" "p90_rtt_us"
for loss in 0 0.01 0.05 0.1; do
    for size in $SIZES; do
        frames=$(( (size + 16 + 14 + 8 + 1479) / 1480 ))
        fault=""; [ "$loss" = 0 ] || fault="--fault drop=$loss,seed=1"
        build/bin/ini-cluster run conf/default.cfg $fault --run-dir "$TMP/$loss-$size" --timeout 900 -- \
            build/bin/ini-ping --sizes "$size" --count "$COUNT" --window 1 --timeout-ms 60000 > "$TMP/out" 2>&1 ||
            { echo "run failed: loss $loss size $size" >&2; tail -3 "$TMP/out" >&2; exit 1; }
        read -r p50 p90 < <(awk -v s="$size" '$1 == s && NF >= 7 { print $4, $5; exit }' "$TMP/out")
        printf "%8s %6s %10s %12s %12s\n" "$loss" "$size" "$frames" "$p50" "$p90"
    done
done
rm -rf "$TMP"
