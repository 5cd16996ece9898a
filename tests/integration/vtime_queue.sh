#!/usr/bin/env bash
# vtime_queue: the virtual-time mode's queueing known answer.  One cluster
# of 2 compute nodes and 1 INI; node 0 sends a Poisson stream (declared
# exponential gaps) to node 1 through the INI, whose service in the thesis
# cost set is a constant D (2,331 cycles).  ini-vtime-queue reports the
# mean time in the INI; M/D/1's is D (1 + rho / (2 (1 - rho))).  Checked:
# at rho 0.5 and 0.8 (20,000 messages each) within 5% of M/D/1, every
# message arrived in order, and the rho 0.5 run again gives the same mean
# to the digit (the same seed, the same run).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start vtime_queue build/bin/ini-cluster build/bin/inid build/bin/ini-vtime-queue
L=build/bin/ini-cluster
$L gen 1 2 1 -o "$TMP/one.cfg" > /dev/null

qrun() {    # NAME RHO: the queue line of a run, or "" when it failed
    timeout 300 $L run "$TMP/one.cfg" --time virtual --timeout 240 --run-dir "$TMP/$1" -- \
        build/bin/ini-vtime-queue --rho "$2" --count 20000 > "$TMP/$1.out" 2>&1 &&
        grep -o 'queue: .*' "$TMP/$1.out"
}
for rho in 0.5 0.8; do
    line=$(qrun "r$rho" "$rho")
    ratio=$(echo "$line" | sed -n 's/.*ratio \([0-9.]*\); 0 errors$/\1/p')
    if [ -n "$ratio" ] && awk -v r="$ratio" 'BEGIN { exit !(r >= 0.95 && r <= 1.05) }'; then
        ok "rho $rho: $line"
    else
        fail "rho $rho: '$line' (want a ratio within 5% of M/D/1, 0 errors); see $TMP/r$rho.out"
    fi
done
again=$(qrun again 0.5)
first=$(grep -o 'queue: .*' "$TMP/r0.5.out")
if [ -n "$again" ] && [ "$again" = "$first" ]; then
    ok "rho 0.5 again: the same line"
else
    fail "rho 0.5 again: '$again' against '$first'"
fi
test_end
