#!/usr/bin/env bash
# vtime_rxfault: receive-side faults and the capture in virtual time
# (docs/virtual-time.md, "Faults and captures").
#   1. The fault mix of vtime_ping part 8 on the receiving side (--fault
#      side=rx,...), traced and captured, twice: every message verified;
#      the receivers' transports notice it (NAKs sent, resends, checksum
#      drops > 0) and the rx injectors' counters show each fault (> 0);
#      the same cycles both times (also the committed ones), the traces
#      and the captures byte-identical; each INI's capture holds, inbound,
#      exactly the frames its rx injectors judged (captured before them).
#   2. A capture of a run with no fault, twice: the cycles of vtime_ping
#      part 2 (the capture does not move the emulated machine), the files
#      identical, and on memif as many frames received by one INI as the
#      other sent.
#   3. A capture of vtime_ping part 8's run (the mix at the senders),
#      twice: its cycles (the capture moves nothing), the files identical,
#      each frame a sender's injector dropped recorded with its note, and
#      each INI received what its peer recorded sent less those.
#   4. A delay's known answer: every frame delayed (delay=1) by 100 us at
#      the senders, then by 250 us at the receivers: each round trip of
#      ini-ping (64 and 1,000 B, 3 each, 2 clusters x 1 node x 1 INI) is
#      the undelayed one plus twice the delay (a held frame leaves, or
#      comes in, at its release, not when its INI is next free).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start vtime_rxfault build/bin/ini-cluster build/bin/inid build/bin/ini-ping
L=build/bin/ini-cluster
COUNT=tests/integration/lib/pcapng_count.py

vcycles() { sed -n 's/^virtual time: \([0-9]*\) cycles (.*/\1/p' "$TMP/$1.out"; }
same_files() {     # A B FILE...: how many of the files exist, non-empty, identical in A and B
    local a=$1 b=$2 n=0 f
    shift 2
    for f in "$@"; do
        [ -s "$TMP/$a/$f" ] && cmp -s "$TMP/$a/$f" "$TMP/$b/$f" && n=$((n + 1))
    done
    echo $n
}
sum_of() { grep -o "$1" "$TMP/$2.out" | awk -v k="$3" '{ s += $k } END { print s + 0 }'; }
fault_count() {    # RUN NAME: the INIs' rx fault counter NAME, summed
    python3 -c 'import json, sys
print(sum(json.load(open("%s/ini%d.counters.json" % (sys.argv[1], i)))["faults"][sys.argv[2]] for i in (0, 1)))' \
        "$TMP/$1" "$2"
}

# --- 1. the fault mix at the receivers
FAULT=side=rx,drop=0.05,dup=0.02,reorder=0.02,corrupt=0.01,seed=5
frun() {
    timeout 300 $L run conf/default.cfg --time virtual --timeout 240 --fault $FAULT --trace detailed --capture \
        --run-dir "$TMP/$1" -- build/bin/ini-ping --sizes 64,1000,9000 --count 50 > "$TMP/$1.out" 2>&1
}
frun f1; rf1=$?
frun f2; rf2=$?
naks=$(sum_of 'NAKs [0-9]* sent' f1 2) resent=$(sum_of '+ [0-9]* (NAK)' f1 2) bad=$(sum_of 'checksum drops [0-9]*' f1 3)
kinds=0
for k in dropped duplicated reordered corrupted; do
    [ "$(fault_count f1 $k)" -gt 0 ] 2> /dev/null && kinds=$((kinds + 1))
done
tfiles=$(cd "$TMP/f1" && ls -- *.trace 2> /dev/null)
# shellcheck disable=SC2086    # the names have no blanks
traces=$(same_files f1 f2 $tfiles) ntraces=$(echo $tfiles | wc -w)
caps=$(same_files f1 f2 ini0.pcapng ini1.pcapng)
judged_ok=0
for i in 0 1; do
    in=$(python3 $COUNT "$TMP/f1/ini$i.pcapng" | awk '{ print $2 }')
    judged=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["faults"]["frames"])' "$TMP/f1/ini$i.counters.json")
    [ -n "$in" ] && [ "$in" = "$judged" ] && [ "$in" -gt 0 ] && judged_ok=$((judged_ok + 1))
done
if [ "$rf1$rf2" = 00 ] && [ -n "$(vcycles f1)" ] && [ "$(vcycles f1)" = "$(vcycles f2)" ] &&
   [ "$(grep -c 'verified 300 messages, 0 errors' "$TMP/f1.out" "$TMP/f2.out" | awk -F: '{ s += $2 } END { print s }')" = 4 ] &&
   [ "$naks" -gt 0 ] && [ "$resent" -gt 0 ] && [ "$bad" -gt 0 ] && [ $kinds = 4 ]; then
    ok "rx faults ($FAULT): every message verified twice, $naks NAKs sent, $resent resent, $bad corrupt frames dropped, $(vcycles f1) cycles twice"
else
    fail "rx faults: status $rf1 $rf2, cycles '$(vcycles f1)' '$(vcycles f2)', NAKs $naks, resent $resent, checksum drops $bad, $kinds of 4 fault kinds counted; see $TMP/f1.out"
fi
if [ "$ntraces" -ge 4 ] && [ "$traces" = "$ntraces" ] && [ "$caps" = 2 ] && [ $judged_ok = 2 ]; then
    ok "rx faults: $traces trace files and 2 captures byte-identical in two runs; each capture's inbound frames = its rx injectors' ($(python3 $COUNT "$TMP/f1/ini0.pcapng") at ini0)"
else
    fail "rx faults: $traces of $ntraces traces (>= 4 wanted), $caps of 2 captures identical, $judged_ok of 2 INIs' inbound frames = judged; see $TMP/f1 $TMP/f2"
fi
vt_golden ping-rxfault-default "$(vcycles f1)"

# --- 2. a capture of a run with no fault
crun() {
    timeout 300 $L run conf/default.cfg --time virtual --timeout 240 --capture --run-dir "$TMP/$1" -- \
        build/bin/ini-ping --sizes 64,1400,16000 --count 8 > "$TMP/$1.out" 2>&1
}
crun c1; rc1=$?
crun c2; rc2=$?
read -r _ in0 _ out0 _ < <(python3 $COUNT "$TMP/c1/ini0.pcapng" 2> /dev/null || echo x 0 x 0 x)
read -r _ in1 _ out1 _ < <(python3 $COUNT "$TMP/c1/ini1.pcapng" 2> /dev/null || echo x 0 x 0 x)
if [ "$rc1$rc2" = 00 ] && [ "$(vcycles c1)" = "$(vcycles c2)" ] && [ "$(same_files c1 c2 ini0.pcapng ini1.pcapng)" = 2 ] &&
   [ "$out0" -gt 0 ] && [ "$out0" = "$in1" ] && [ "$out1" = "$in0" ]; then
    ok "capture: 2 files byte-identical in two runs; ini0 sent $out0 frames, ini1 received $in1; ini1 sent $out1, ini0 received $in0"
else
    fail "capture: status $rc1 $rc2, cycles '$(vcycles c1)' '$(vcycles c2)', $(same_files c1 c2 ini0.pcapng ini1.pcapng) of 2 identical, ini0 out $out0 in $in0, ini1 out $out1 in $in1"
fi
vt_golden ping-default "$(vcycles c1)"

# --- 3. a capture of the senders' fault mix
trun() {
    timeout 300 $L run conf/default.cfg --time virtual --timeout 240 --capture \
        --fault drop=0.05,dup=0.02,reorder=0.02,corrupt=0.01,seed=5 --run-dir "$TMP/$1" -- \
        build/bin/ini-ping --sizes 64,1000,9000 --count 50 > "$TMP/$1.out" 2>&1
}
trun t1; rt1=$?
trun t2; rt2=$?
read -r _ in0 _ out0 _ _ _ drop0 < <(python3 $COUNT "$TMP/t1/ini0.pcapng" 2> /dev/null || echo x 0 x 0 x 0 x 0)
read -r _ in1 _ out1 _ _ _ drop1 < <(python3 $COUNT "$TMP/t1/ini1.pcapng" 2> /dev/null || echo x 0 x 0 x 0 x 0)
fd0=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["faults"]["dropped"])' "$TMP/t1/ini0.counters.json" 2> /dev/null)
fd1=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["faults"]["dropped"])' "$TMP/t1/ini1.counters.json" 2> /dev/null)
if [ "$rt1$rt2" = 00 ] && [ "$(vcycles t1)" = "$(vcycles t2)" ] && [ "$(same_files t1 t2 ini0.pcapng ini1.pcapng)" = 2 ] &&
   [ "$drop0" -gt 0 ] && [ "$drop0" = "$fd0" ] && [ "$drop1" = "$fd1" ] &&
   [ "$in1" = $((out0 - drop0)) ] && [ "$in0" = $((out1 - drop1)) ]; then
    ok "capture of tx faults: 2 files identical twice; ini0 recorded $out0 out, $drop0 of them dropped (its injector: $fd0), ini1 received $in1"
else
    fail "capture of tx faults: status $rt1 $rt2, cycles '$(vcycles t1)' '$(vcycles t2)', ini0 out $out0 dropped $drop0 (injector $fd0) in $in0, ini1 out $out1 dropped $drop1 (injector $fd1) in $in1"
fi
vt_golden ping-fault-default "$(vcycles t1)"
# --- 4. a delay's known answer
$L gen 2 1 1 -o "$TMP/c211.cfg" > /dev/null
drun() {    # NAME [FAULT]: min and max round trip per size, "64:min:max 1000:min:max"
    timeout 300 $L run "$TMP/c211.cfg" --time virtual --timeout 240 ${2:+--fault $2} -- \
        build/bin/ini-ping --sizes 64,1000 --count 3 > "$TMP/$1.out" 2>&1 || echo "exit $?"
    awk '$1 == 64 || $1 == 1000 { printf "%s:%s:%s ", $1, $3, $7 }' "$TMP/$1.out" | head -c 60
}
base=$(drun d0) tx=$(drun dtx side=tx,delay=1,delay_us=100,seed=1) rx=$(drun drx side=rx,delay=1,delay_us=250,seed=1)
want=$(python3 -c '
import sys
def plus(line, us):
    out = []
    for cell in line.split():
        n, lo, hi = cell.split(":")
        out.append("%s:%.1f:%.1f" % (n, float(lo) + 2 * us, float(hi) + 2 * us))
    return " ".join(out)
print(plus(sys.argv[1], 100) + "|" + plus(sys.argv[1], 250))' "$base" 2> /dev/null)
if [ -n "$base" ] && [ "$(echo $tx)|$(echo $rx)" = "$want" ]; then
    ok "delay known answer: undelayed $base; +100 us at the senders $tx; +250 us at the receivers $rx"
else
    fail "delay: undelayed '$base', senders '$tx', receivers '$rx' (want '$want'); see $TMP/d*.out"
fi
test_end
