#!/usr/bin/env bash
# vtime_host_clock: the host's clock does not reach virtual time.  Water on
# MGS in virtual time (64 molecules, 2 steps, declared work) under two
# host clocks, CLOCK_MONOTONIC moved by an LD_PRELOAD library
# (lib/clockshift.c): once as if the host had been up 1,000 s, once 30
# hours.  Both runs must give the same virtual cycles, the same answer and
# the same MGS diff bytes.  Before Water read its timings from the node's
# virtual clock, it stored host milliseconds in shared memory, and a
# 4-byte value (above 2^24 ms, 4 h 40 min of uptime) made one diff a byte
# longer than a 3-byte one: a 16-cluster run moved by 6 cycles.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
water_test_start vtime_host_clock build/bin/ini-cluster build/bin/inid
L=build/bin/ini-cluster
. tests/integration/lib/vtime_water.sh

cc -shared -fPIC -O1 -o "$TMP/clockshift.so" tests/integration/lib/clockshift.c -ldl ||
    { fail "cannot build lib/clockshift.c"; test_end; exit 1; }
up_ms=$(awk '{printf "%d", $1 * 1000}' /proc/uptime)
# runs Water with CLOCK_MONOTONIC reading about AT milliseconds: NAME CONFIG INPUT AT
# (under ASan, SAN=1, the preloaded library comes before ASan's runtime:
# allowed, since it only wraps clock_gettime)
srun() {
    timeout 600 $L run "$2" --time virtual --timeout 550 --run-dir "$TMP/$1" -- \
        env LD_PRELOAD="$TMP/clockshift.so" CLOCK_SHIFT_MS=$(($4 - up_ms)) \
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
        "$WATER" --mgs --deterministic --random "$RANDOM_IN" < "$3" > "$TMP/$1.out" 2>&1
}
diff_bytes() { cat "$TMP/$1"/mgs-cluster*.json | grep -o '"diff_bytes": [0-9]*' | awk '{s += $2} END {print s + 0}'; }

$L gen 4 1 1 -o "$TMP/c411.cfg" > /dev/null
input 64 4 > "$TMP/in64"
srun young "$TMP/c411.cfg" "$TMP/in64" 1000000; r1=$?
srun old "$TMP/c411.cfg" "$TMP/in64" 108000000; r2=$?
c1=$(vcycles young) c2=$(vcycles old) d1=$(diff_bytes young) d2=$(diff_bytes old)
start1=$(grep -o 'COMPUTESTART[^=]*= [0-9]*' "$TMP/young.out" | head -1)
if [ "$r1$r2" = 00 ] && [ -n "$c1" ] && [ "$c1" = "$c2" ] && [ "$d1" = "$d2" ] &&
   diff <(no_times < "$TMP/young.out") <(no_times < "$TMP/old.out") > /dev/null; then
    ok "host up 1,000 s or 30 h: $c1 cycles, $d1 diff bytes and the same answer in both ($start1 ms: virtual)"
else
    fail "host clock leaks: status $r1 $r2, cycles '$c1' '$c2', diff bytes '$d1' '$d2'"
fi
test_end
