#!/usr/bin/env bash
# vtime_trace: traces of a virtual-time run are on the emulated machine's
# clock (docs/virtual-time.md, "Traces"), so every ini-trace tool reads
# emulated time with no flag.
#   1. Determinism: a traced ini-ping (2 clusters x 1 node x 1 INI, the
#      thesis costs, detailed traces) run twice gives byte-identical
#      ini*.trace and cn*.trace files (same records, same virtual times).
#   2. Known answer: the report's figures for it are the cost model's.
#      At 64 B the send INI's time is round(2330.6 + 2.5370 x 64) = 2,493
#      cycles and the receive INI's round(2502.1 + 2.5821 x 64) = 2,667:
#      the message time 5,160 cycles = 258.0 us at 20 MHz, half the round
#      trip ini-ping prints (516.0 us); the header says virtual time at
#      20 MHz.  critical's path (the ping computes nothing) is all INI
#      service and as long as the run's virtual time, on the emulated clock.
#   3. Replay agrees with the live system (docs/results/vtime-whatif, the
#      short form): `ini-trace whatif --inis-per-cluster 2` from a virtual
#      1-INI ini-synth run (2 clusters x 8 nodes, W and o declared, seed 4)
#      predicts the virtual 2-INI run's program span within 5% (measured:
#      0.3475 s predicted, 0.3464 s live, +0.3%), and replays its own run
#      to within 1%.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start vtime_trace build/bin/ini-cluster build/bin/inid build/bin/ini-ping build/bin/ini-synth build/bin/ini-trace
L=build/bin/ini-cluster
TR=build/bin/ini-trace

# --- 1. the same traces twice
$L gen 2 1 1 -o "$TMP/c211.cfg" > /dev/null
ping_run() {
    timeout 300 $L run "$TMP/c211.cfg" --time virtual --trace detailed --timeout 240 --run-dir "$TMP/$1" -- \
        build/bin/ini-ping --sizes 64 --count 10 > "$TMP/$1.out" 2>&1
}
ping_run p1; r1=$?
ping_run p2; r2=$?
same=0
for f in ini0.trace ini1.trace cn0.trace cn1.trace; do
    [ -s "$TMP/p1/$f" ] && cmp -s "$TMP/p1/$f" "$TMP/p2/$f" && same=$((same + 1))
done
if [ $r1$r2 = 00 ] && [ $same = 4 ]; then
    ok "traced virtual ping twice: 4 trace files byte-identical ($(stat -c %s "$TMP/p1/ini0.trace") bytes for ini0)"
else
    fail "traces differ or runs failed: status $r1 $r2, $same of 4 files identical; see $TMP/p1 $TMP/p2"
fi

# --- 2. the report's known answer
$TR report "$TMP/p1" --format csv > "$TMP/report.csv" 2> "$TMP/report.err"
$TR report "$TMP/p1" > "$TMP/report.txt" 2>&1
# rows of table 5.1/5.2 for 64 B: total cycles (mean per message)
send=$(awk -F, '/^send_breakdown/ { s = 1; next } s && $1 == 64 { print $9; exit }' "$TMP/report.csv")
recv=$(awk -F, '/^receive_breakdown/ { s = 1; next } s && $1 == 64 { print $9; exit }' "$TMP/report.csv")
rtt=$(awk '$1 == 64 { print $3; exit }' "$TMP/p1.out")
msg_us=$(python3 -c "print('%.1f' % (($send + $recv) / 20.0))" 2>/dev/null)
if [ "$send" = 2493 ] && [ "$recv" = 2667 ] && [ "$rtt" = 516.0 ] && [ "$msg_us" = 258.0 ] &&
   grep -q "virtual time, the emulated machine's clock 20.000 MHz" "$TMP/report.txt"; then
    ok "report at 64 B: send $send + receive $recv cycles = $msg_us us, half of ini-ping's round trip $rtt us"
else
    fail "report at 64 B: send '$send' recv '$recv' (want 2493 2667), ini-ping's round trip '$rtt'; see $TMP/report.*"
fi
# critical: the ping computes nothing, so its path is all INI service, as
# long as the run's virtual time (ini-ping's line, in cycles at 20 MHz)
$TR critical "$TMP/p1" > "$TMP/critical.txt" 2>&1
vt_ms=$(sed -n 's/^virtual time: \([0-9]*\) cycles at 20 MHz.*/\1/p' "$TMP/p1.out" | head -1 |
        awk '{ printf "%.3f", $1 / 20000 }')
crit=$(awk '$1 == "all" { print $3, $9 }' "$TMP/critical.txt")
if [ -n "$vt_ms" ] && [ "$crit" = "$vt_ms 100.0%" ] &&
   grep -q "clock: virtual time: every stamp on the emulated machine's clock (20.000 MHz)" "$TMP/critical.txt"; then
    ok "critical on the emulated clock: path $vt_ms ms = the run's virtual time, 100% INI service"
else
    fail "critical: 'all' row '$crit' (want '$vt_ms 100.0%'), or no virtual clock line; see $TMP/critical.txt"
fi

# --- 3. whatif from 1 INI predicts 2 INIs
for k in 1 2; do
    $L gen 2 8 $k -o "$TMP/c28$k.cfg" > /dev/null
    timeout 600 $L run "$TMP/c28$k.cfg" --time virtual --trace summary --policy round-robin \
        --ini-policy round-robin --timeout 500 --run-dir "$TMP/s$k" -- \
        build/bin/ini-synth --cycles 100 --seed 4 > "$TMP/s$k.out" 2>&1 || fail "synth with $k INIs: $(tail -2 "$TMP/s$k.out")"
done
span() { sed -n "s/.*program span[^:]*: measured [0-9.]* s, replayed \([0-9.]*\) s.*/\1/p"; }
measured() { sed -n "s/.*program span[^:]*: measured \([0-9.]*\) s.*/\1/p"; }
self=$($TR whatif "$TMP/s1" 2>&1 | span)
m1=$($TR whatif "$TMP/s1" 2>&1 | measured)
pred=$($TR whatif "$TMP/s1" --inis-per-cluster 2 --policy round-robin 2>&1 | span)
live=$($TR whatif "$TMP/s2" 2>&1 | measured)
verdict=$(python3 -c "
p, l, s, m = float('$pred'), float('$live'), float('$self'), float('$m1')
e, es = 100 * (p - l) / l, 100 * (s - m) / m
print('ok' if abs(e) <= 5 and abs(es) <= 1 else 'bad', '%+.1f%% %+.1f%%' % (e, es))" 2>/dev/null)
if [ "${verdict%% *}" = ok ]; then
    ok "whatif from 1 INI: 2 INIs predicted $pred s, live $live s (error, self-replay: ${verdict#* })"
else
    fail "whatif from 1 INI: predicted '$pred' s, live '$live' s, self '$self' of '$m1' s (${verdict#* }); see $TMP/s*"
fi
test_end
