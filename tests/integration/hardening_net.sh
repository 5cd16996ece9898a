#!/usr/bin/env bash
# hardening_net: the data-path items of issue 17, each asserted on an
# outcome (messages verified, frame counts, exit status and message):
#   1. memif with MTU 9000: ini-ping of sizes around and beyond one jumbo
#      frame verifies every message with 0 errors, and each INI received
#      exactly the frames its peer sent (no chained buffers counted twice);
#   2. af_packet with MTU 9000, which DPDK 22.11's af_packet driver cannot
#      carry: refused before anything starts (exit 2, the field and why),
#      never a daemon that reports ready on a refused MTU;
#   3. an INI ignores SIGPIPE (a dead peer's doorbell FIFO cannot kill it).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
L=build/bin/ini-cluster
test_start hardening_net $L build/bin/inid build/bin/ini-ping

# json_int FILE KEY: the first integer value of "KEY" in a counters file.
json_int() { grep -o "\"$2\": *[0-9]*" "$1" | head -n 1 | grep -o '[0-9]*$'; }

# --- 1. memif, MTU 9000
sed 's/mtu = 1500/mtu = 9000/' conf/default.cfg > "$TMP/mtu9000.cfg"
$L run "$TMP/mtu9000.cfg" --timeout 120 --run-dir "$TMP/r1" -- \
    build/bin/ini-ping --sizes 0,1472,8972,8973,20000,65000 --count 20 > "$TMP/r1.out" 2>&1
rc=$?
v0=$(grep '^verified ' "$TMP/r1/cluster0.out" 2>/dev/null | tail -n 1)
v1=$(grep '^verified ' "$TMP/r1/cluster1.out" 2>/dev/null | tail -n 1)
if [ $rc -ne 0 ] || [ "$v0" != "verified 240 messages, 0 errors" ] || [ "$v1" != "$v0" ]; then
    fail "memif MTU 9000: exit $rc, '$v0' / '$v1'"; tail -n 8 "$TMP/r1.out" | sed 's/^/    /'
else
    tx0=$(json_int "$TMP/r1/ini0.counters.json" tx_frames); rx1=$(json_int "$TMP/r1/ini1.counters.json" rx_frames)
    tx1=$(json_int "$TMP/r1/ini1.counters.json" tx_frames); rx0=$(json_int "$TMP/r1/ini0.counters.json" rx_frames)
    if [ -n "$tx0" ] && [ "$tx0" = "$rx1" ] && [ "$tx1" = "$rx0" ]; then
        ok "memif MTU 9000: 240 messages per cluster, 0 errors, frames $tx0/$rx1 and $tx1/$rx0"
    else
        fail "memif MTU 9000: frames sent and received differ: ini0 tx $tx0 -> ini1 rx $rx1, ini1 tx $tx1 -> ini0 rx $rx0"
    fi
fi

# --- 2. af_packet, MTU 9000: refused with the reason, nothing started
$L gen 2 2 1 --mode af_packet | sed 's/mtu = 1500/mtu = 9000/' > "$TMP/af9000.cfg"
grep -q 'mtu = 9000' "$TMP/af9000.cfg" || fail "gen no longer writes 'mtu = 1500'"
$L run "$TMP/af9000.cfg" --timeout 60 --run-dir "$TMP/r2" -- \
    build/bin/ini-ping --sizes 8972 --count 5 > "$TMP/r2.out" 2>&1
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l < "$TMP/r2.out")" -eq 1 ] &&
   grep -Eq "af9000.cfg:[0-9]+: stack.mtu: .*af_packet" "$TMP/r2.out" && [ ! -e "$TMP/r2/launcher.log" ]; then
    ok "af_packet MTU 9000 refused: $(cat "$TMP/r2.out")"
else
    fail "af_packet MTU 9000: exit $rc (expected 2, one line naming stack.mtu and af_packet)"
    tail -n 5 "$TMP/r2.out" | sed 's/^/    /'
fi

# --- 3. inid ignores SIGPIPE
$L up conf/default.cfg --run-dir "$TMP/r3" > "$TMP/r3.out" 2>&1 || { fail "up: $(tail -n 3 "$TMP/r3.out")"; }
for pid in $(awk '$1 == "daemon" { print $3 }' "$TMP/r3/state" 2>/dev/null); do
    ign=$(awk '/^SigIgn:/ { print $2 }' /proc/$pid/status 2>/dev/null)
    # SIGPIPE is signal 13: bit 12 of the mask.
    if [ -n "$ign" ] && (( (16#$ign >> 12) & 1 )); then
        ok "inid pid $pid ignores SIGPIPE (SigIgn $ign)"
    else
        fail "inid pid $pid does not ignore SIGPIPE (SigIgn '$ign')"
    fi
done
$L down conf/default.cfg --run-dir "$TMP/r3" > /dev/null 2>&1

test_end
