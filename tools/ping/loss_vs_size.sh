#!/usr/bin/env bash
# loss_vs_size.sh: delivery time against message size under frame loss,
# for messages longer than a frame sent as IP fragments (--segment off,
# the thesis's design) and as transport segments (--segment on).
# One message in flight per compute node (ini-ping --window 1), so the
# round trip is two deliveries back to back.  Every loss rate is run
# REPEATS times, each time both modes one right after the other, in turns
# (tools/bench/turns.sh: this machine's speed drifts, so modes are
# compared within a repeat, the order rotating), all sizes in one ini-ping
# run.  Prints one row per mode, loss, size and repeat
# (median and p90 round trip of COUNT round trips per compute node), then
# a summary: per mode, loss and size the median of the repeats' medians
# and their range, and the ratio to the same mode's lossless median.
#   usage: tools/ping/loss_vs_size.sh [COUNT [REPEATS]] > docs/results/FILE.txt
#   LOSSES="0 0.001 0.01 0.05 0.1" MODES="off on" SIZES="64 1400 ..." override the sets,
#   CONFIG=FILE the machine (default conf/default.cfg).
# docs/results/loss-vs-size.txt is the earlier run of IP fragments alone
# (one size per run, 20 round trips, no repeats).
set -euo pipefail
cd "$(dirname "$0")/../.."
case ${1-} in -h|--help) sed -n '2,/^set -eu/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
. tools/bench/turns.sh
COUNT=${1:-20}
REPEATS=${2:-5}
SIZES=${SIZES:-"64 1400 4000 9000 20000 40000 65000"}
LOSSES=${LOSSES:-"0 0.001 0.01 0.05 0.1"}
MODES=${MODES:-"off on"}
CONFIG=${CONFIG:-conf/default.cfg}
TMP=$(mktemp -d /tmp/ini-loss.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
list=$(tr ' ' ',' <<<"$SIZES")
printf "# delivery time under loss: %s (window %s), ini-ping --window 1, %d round trips per PE and size,\n" \
    "$CONFIG" "$(grep -o 'window = [0-9]*' "$CONFIG" | head -1 | grep -o '[0-9]*$')" "$COUNT"
printf "# %d repeats; segment off = IP fragments, on = transport segments; round trip = two deliveries;\n" "$REPEATS"
printf "# SEND timeout %s us; frames = frames per message each way\n" \
    "$(grep -o 'send_timeout_us = [0-9]*' "$CONFIG" | grep -o '[0-9]*$')"
printf "# started %s, load average %s\n" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf "%7s %8s %6s %6s %6s %12s %12s\n" segment loss bytes frames repeat "p50_rtt_us" "p90_rtt_us"
for rep in $(seq 1 "$REPEATS"); do
    for loss in $LOSSES; do
        for mode in $(turn_order "$rep" $MODES); do
            fault=""; [ "$loss" = 0 ] || fault="--fault drop=$loss,seed=$rep"
            out=$TMP/out-$mode-$loss-$rep
            build/bin/ini-cluster run "$CONFIG" $fault --segment "$mode" --run-dir "$TMP/run-$mode-$loss-$rep" \
                --timeout 1800 -- \
                build/bin/ini-ping --sizes "$list" --count "$COUNT" --window 1 --timeout-ms 120000 > "$out" 2>&1 ||
                { echo "run failed: segment $mode loss $loss repeat $rep" >&2; tail -3 "$out" >&2; exit 1; }
            rm -rf "$TMP/run-$mode-$loss-$rep"
            for size in $SIZES; do
                # IP fragments: 1,480 bytes of the UDP datagram each; segments:
                # 1,458 bytes of message each (MTU - IP - UDP - 14 of header and CRC).
                if [ "$mode" = off ]; then frames=$(( (size + 16 + 14 + 8 + 1479) / 1480 ))
                else frames=$(( (size + 16 + 1457) / 1458 )); fi
                read -r p50 p90 < <(awk -v s="$size" '$1 == s && NF >= 7 { print $4, $5; exit }' "$out")
                printf "%7s %8s %6s %6s %6s %12s %12s\n" "$mode" "$loss" "$size" "$frames" "$rep" "$p50" "$p90"
            done
        done
    done
done | tee "$TMP/rows"
echo
echo "# summary: median over the repeats of the p50 round trip [lowest - highest], us; x: against the same mode without loss"
printf "%7s %8s %6s %6s %12s %25s %8s\n" segment loss bytes frames "p50_rtt_us" "range" "x"
awk '!/^#/ && NF == 7 && $1 != "segment" { k = $1 " " $2 " " $3; v[k] = v[k] " " $6; f[k] = $4 }
     END {
        for (k in v) {
            n = split(substr(v[k], 2), a, " ");
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
            med[k] = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2; lo[k] = a[1]; hi[k] = a[n]
        }
        for (k in v) {
            split(k, p, " "); base = p[1] " 0 " p[3];
            printf "%7s %8s %6s %6s %12.1f %25s %8.2f\n", p[1], p[2], p[3], f[k], med[k],
                   sprintf("[%.1f - %.1f]", lo[k], hi[k]), (base in med && med[base] > 0) ? med[k] / med[base] : 0
        }
     }' "$TMP/rows" | sort -k1,1 -k2,2g -k3,3n
