#!/usr/bin/env bash
# vtime_ping: the virtual-time mode (`ini-cluster run --time virtual`,
# docs/architecture.md "Virtual time") through the real stack.
#   1. Known answer: 2 clusters x 1 compute node x 1 INI, the thesis cost
#      set, nothing else on the machine's path: a round trip of B bytes
#      (one frame) is exactly the cost model's sum, twice
#      round(2330.6 + 2.5370 B) + round(2502.1 + 2.5821 B) cycles
#      (64 B: 10,320 cycles, 516.0 us at 20 MHz; 1,000 B: 19,904, 995.2 us).
#   2. Determinism: conf/default.cfg (2 x 2 x 1, contention at each INI),
#      three sizes, run twice, and once with another job loading both
#      cores: the same virtual time to the cycle and the same table.
#   3. A planted causality violation (INI_VT_PLANT_EARLY: a send stamped
#      a cycle before the sender's clock) stops the run, named, exit 1.
#   4. Independence from the daemon count: 8 clusters (8 daemons on the
#      host's 2 cores), each node pinging the next cluster's: every node's
#      round trips are the 2-daemon machine's, 516.0 and 995.2 us.
#   5. The synthetic workload (ini-synth --cycles 200, W and o declared):
#      twice the same virtual time and the same per-cluster lines; without
#      --cycles it refuses (exit 2: a host-time --duration is not
#      deterministic).
#   6. A knob (--knob O=...) is refused in virtual time (exit 2, one
#      line): the virtual-time loop charges no knob to a clock.
#   7. af_packet with 3 INIs on the LAN's bridge, which floods a unicast
#      frame to every port until it has learnt the MAC: twice the same
#      cycles, flooded frames set aside (> 0), none counted lost.
#   8. The fault mix in virtual time (drops, duplicates, reorders and
#      corruption at the senders, seeded): every message verified,
#      resends and checksum drops counted (> 0), the same cycles twice.
#   9. A full ring: 20 messages of 65,000 B with 16 outstanding on
#      2 x 1 x 1 fill each node's ring to its INI, busy 440,000 cycles a
#      message: the node waits for its INI's clock (it once crept a cycle
#      a hand-over and the run outlived its timeout): every message
#      verified, the same cycles twice, and as with 64 outstanding (the
#      INI is the bottleneck either way).
# Every run also verifies every message (ini-ping's checks).  The cycles
# of 2 and 5 are also the committed ones (vt_golden, vtime_golden.tsv).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start vtime_ping build/bin/ini-cluster build/bin/inid build/bin/ini-ping
L=build/bin/ini-cluster

vrun() {    # NAME CONFIG PING-ARGS...: runs, output in $TMP/NAME.out; its status
    local name=$1 cfg=$2
    shift 2
    timeout 300 $L run "$cfg" --time virtual --timeout 240 --run-dir "$TMP/$name" -- \
        build/bin/ini-ping "$@" > "$TMP/$name.out" 2>&1
}
vcycles() { sed -n 's/^virtual time: \([0-9]*\) cycles (.*/\1/p' "$TMP/$1.out"; }
table() { grep -E '^(\[c[0-9]\] )? +[0-9]+ +[0-9]+ ' "$TMP/$1.out" | sort; }   # the clusters' lines come in the host's order
verified() { grep -c "verified .* messages, 0 errors" "$TMP/$1.out"; }

# --- 1. known answer
$L gen 2 1 1 -o "$TMP/c211.cfg" > /dev/null
if vrun known "$TMP/c211.cfg" --sizes 64,1000 --count 10; then
    want64=$(python3 -c 'r=round; print(2*(r(2330.6+2.5370*64)+r(2502.1+2.5821*64))*50/1000)')
    want1k=$(python3 -c 'r=round; print(2*(r(2330.6+2.5370*1000)+r(2502.1+2.5821*1000))*50/1000)')
    got64=$(awk '$1 == 64 { print $3, $7 }' "$TMP/known.out")
    got1k=$(awk '$1 == 1000 { print $3, $7 }' "$TMP/known.out")
    exp64=$(printf '%.1f %.1f' "$want64" "$want64"); exp1k=$(printf '%.1f %.1f' "$want1k" "$want1k")
    if [ "$got64" = "$exp64" ] && [ "$got1k" = "$exp1k" ] && [ "$(verified known)" = 2 ]; then
        ok "known answer: round trips (min max) 64 B $got64 us, 1000 B $got1k us = the cost model's sums"
    else
        fail "known answer: 64 B '$got64' (want $exp64), 1000 B '$got1k' (want $exp1k); see $TMP/known.out"
    fi
else
    fail "known-answer run failed: $(tail -3 "$TMP/known.out")"
fi

# --- 2. determinism, alone and loaded
ARGS=(--sizes 64,1400,16000 --count 8)
vrun d1 conf/default.cfg "${ARGS[@]}"; r1=$?
vrun d2 conf/default.cfg "${ARGS[@]}"; r2=$?
( while :; do :; done ) & h1=$!
( while :; do :; done ) & h2=$!
vrun d3 conf/default.cfg "${ARGS[@]}"; r3=$?
kill $h1 $h2 2>/dev/null; wait $h1 $h2 2>/dev/null
c1=$(vcycles d1) c2=$(vcycles d2) c3=$(vcycles d3)
if [ $r1$r2$r3 = 000 ] && [ -n "$c1" ] && [ "$c1" = "$c2" ] && [ "$c1" = "$c3" ] &&
   [ "$(table d1)" = "$(table d2)" ] && [ "$(table d1)" = "$(table d3)" ] &&
   [ "$(verified d1)$(verified d2)$(verified d3)" = 222 ]; then
    ok "deterministic: $c1 cycles in 3 runs (one with both cores loaded), the same round-trip tables, every message verified"
else
    fail "not deterministic: status $r1 $r2 $r3, cycles '$c1' '$c2' '$c3'; see $TMP/d*.out"
fi
vt_golden ping-default "$c1"

# --- 3. a planted causality violation
INI_VT_PLANT_EARLY=3 vrun plant "$TMP/c211.cfg" --sizes 64 --count 10; rp=$?
if [ $rp -ne 0 ] && grep -q "stopped: virtual time: causality: pe [01] sent to ini [01] a message stamped" "$TMP/plant.out"; then
    ok "planted violation caught: exit $rp, $(grep -o 'causality: [^;]*' "$TMP/plant.out" | head -1)"
else
    fail "planted violation not caught (exit $rp): $(grep 'virtual time' "$TMP/plant.out")"
fi

# --- 4. the service does not follow how many daemons share the cores
$L gen 8 1 1 -o "$TMP/c811.cfg" > /dev/null
if vrun eight "$TMP/c811.cfg" --pattern pairs --sizes 64,1000 --count 10; then
    rows=$(table eight | sed 's/^\[c[0-9]*\] //' | awk '{ print $1, $3, $7 }' | sort | uniq -c | tr -s ' ')
    want=$(printf " 8 1000 995.2 995.2\n 8 64 516.0 516.0")
    if [ "$rows" = "$want" ] && [ "$(grep -c 'verified 20 messages, 0 errors' "$TMP/eight.out")" = 8 ]; then
        ok "8 daemons: all 8 nodes' round trips (min max) as with 2: 516.0 and 995.2 us"
    else
        fail "8 daemons: round trips '$rows', want '$want'; see $TMP/eight.out"
    fi
else
    fail "8-cluster run failed: $(tail -3 "$TMP/eight.out")"
fi

# --- 5. ini-synth in virtual time
srun() { timeout 300 $L run conf/default.cfg --time virtual --timeout 240 --run-dir "$TMP/$1" -- \
             build/bin/ini-synth "${@:2}" > "$TMP/$1.out" 2>&1; }
srun s1 --cycles 200; q1=$?
srun s2 --cycles 200; q2=$?
l1=$(grep -E 'cluster [01]: 2 PEs, 400 cycles, mean R .*, 0 errors' "$TMP/s1.out" | sort)
l2=$(grep -E 'cluster [01]: 2 PEs, 400 cycles, mean R .*, 0 errors' "$TMP/s2.out" | sort)
if [ $q1$q2 = 00 ] && [ "$(echo "$l1" | wc -l)" = 2 ] && [ "$l1" = "$l2" ] && [ "$(vcycles s1)" = "$(vcycles s2)" ]; then
    ok "ini-synth twice: $(vcycles s1) cycles both times; $(echo $l1 | tr -d '[]')"
else
    fail "ini-synth not deterministic: status $q1 $q2, cycles $(vcycles s1) $(vcycles s2); see $TMP/s1.out $TMP/s2.out"
fi
vt_golden synth-default "$(vcycles s1)"
srun s3 --duration 1; q3=$?
if [ $q3 -ne 0 ] && grep -q "ini-synth: --time virtual: give --cycles N" "$TMP/s3.out"; then
    ok "ini-synth without --cycles refused in virtual time"
else
    fail "ini-synth --duration in virtual time: status $q3; see $TMP/s3.out"
fi
expect_error "a knob in virtual time" "are not modelled in virtual time" "ini-cluster: " \
    $L run conf/default.cfg --time virtual --knob O=100 -- build/bin/ini-synth --cycles 5

# --- 7: af_packet, 3 INIs
$L gen 3 1 1 --mode af_packet -o "$TMP/a311.cfg" > /dev/null
vrun a1 "$TMP/a311.cfg" --sizes 64,4000 --count 5; ra1=$?
vrun a2 "$TMP/a311.cfg" --sizes 64,4000 --count 5; ra2=$?
flooded=$(sed -n "s/.* \([0-9]*\) another INI's (flooded)/\1/p" "$TMP"/a1/ini*.log | awk '{s += $1} END {print s + 0}')
lost=$(cat "$TMP"/a1/ini*.log "$TMP"/a2/ini*.log | grep -c 'never came (counted lost)')
if [ "$ra1$ra2" = 00 ] && [ -n "$(vcycles a1)" ] && [ "$(vcycles a1)" = "$(vcycles a2)" ] &&
   [ "$(verified a1)$(verified a2)" = 33 ] && [ "$flooded" -gt 0 ] && [ "$lost" = 0 ]; then
    ok "af_packet, 3 INIs: $(vcycles a1) cycles twice, $flooded flooded frames set aside, none lost"
else
    fail "af_packet, 3 INIs: status $ra1 $ra2, cycles '$(vcycles a1)' '$(vcycles a2)', verified $(verified a1) $(verified a2), flooded $flooded, lost $lost"
fi

# --- 8: faults
FAULT=drop=0.05,dup=0.02,reorder=0.02,corrupt=0.01,seed=5
frun() { timeout 300 $L run conf/default.cfg --time virtual --timeout 240 --fault $FAULT --run-dir "$TMP/$1" -- \
             build/bin/ini-ping --sizes 64,1000,9000 --count 50 > "$TMP/$1.out" 2>&1; }
frun f1; rf1=$?
frun f2; rf2=$?
resent=$(grep -o '+ [0-9]* (NAK)' "$TMP/f1.out" | awk '{s += $2} END {print s + 0}')
bad=$(grep -o 'checksum drops [0-9]*' "$TMP/f1.out" | awk '{s += $3} END {print s + 0}')
if [ "$rf1$rf2" = 00 ] && [ -n "$(vcycles f1)" ] && [ "$(vcycles f1)" = "$(vcycles f2)" ] &&
   [ "$(grep -c 'verified 300 messages, 0 errors' "$TMP/f1.out")" -ge 1 ] && [ "$resent" -gt 0 ] && [ "$bad" -gt 0 ]; then
    ok "faults ($FAULT): every message verified, $resent resent, $bad corrupt frames dropped, $(vcycles f1) cycles twice"
else
    fail "faults: status $rf1 $rf2, cycles '$(vcycles f1)' '$(vcycles f2)', $resent resent, $bad checksum drops; see $TMP/f1.out"
fi
vt_golden ping-fault-default "$(vcycles f1)"

# --- 9: a full ring
$L gen 2 1 1 -o "$TMP/c211f.cfg" > /dev/null
for r in r16a r16b r64; do
    vrun $r "$TMP/c211f.cfg" --sizes 65000 --count 20 --window ${r:1:2}; echo $? > "$TMP/$r.rc"
done
if [ "$(cat "$TMP"/r16a.rc "$TMP"/r16b.rc "$TMP"/r64.rc | tr -d '\n')" = 000 ] && [ -n "$(vcycles r16a)" ] &&
   [ "$(vcycles r16a)" = "$(vcycles r16b)" ] && [ "$(vcycles r16a)" = "$(vcycles r64)" ] &&
   [ "$(verified r16a)$(verified r64)" = 22 ]; then
    ok "full ring: 20 x 65,000 B, 16 and 64 outstanding: every message verified, $(vcycles r16a) cycles each time"
else
    fail "full ring: status $(cat "$TMP"/r16a.rc "$TMP"/r16b.rc "$TMP"/r64.rc | tr '\n' ' '), cycles '$(vcycles r16a)' '$(vcycles r16b)' '$(vcycles r64)'; see $TMP/r16a.out"
fi
test_end
