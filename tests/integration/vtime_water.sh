#!/usr/bin/env bash
# vtime_water: Water on MGS in the virtual-time mode (docs/virtual-time.md,
# "MGS on every node"), through the real stack.
#   1. The right answer: 2 clusters x 2 nodes x 1 INI, 64 molecules, 2
#      steps, --deterministic: every line but the wall-clock timings equals
#      the plain-threads run with 4 threads.
#   2. MGS on every node: no protocol thread; each of the 4 nodes ran
#      protocol steps of its own (mgs-cluster<C>.json, nodes[].protocol_steps
#      > 0), and a node's final clock is at most the run's.
#   3. Determinism: the same virtual time to the cycle in 3 runs, one with
#      another job loading both cores.
#   4. The thesis's 16-node machine (2 clusters x 8 nodes x 1 INI, 343
#      molecules, 2 steps as in seed 002): the right answer (XTT as the
#      threads run) and a virtual time; vtime.json names 18 processors.
#   6. A cluster's own messages are handled in the order sent: on 2 x 4 x
#      1 (64 molecules) some reach their node before an earlier one was
#      handled (mgs-cluster<C>.json, local_held > 0) and are held; the
#      answer is the threads run's (a RECALL handled before its SWGRANT
#      stopped a run before the hold, docs/virtual-time.md).
#   5. On the af_packet LAN (veth pairs, a bridge), where the links carry
#      the MTU plus the 8-byte stamp behind each frame: 64 molecules on
#      2 x 2 x 1, the threads run's output, the same cycles in 2 runs, 0
#      frames counted lost, 0 resends.
# The cycles of 3 and 5 are also the committed ones
# (vt_golden, tests/integration/vtime_golden.tsv).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
water_test_start vtime_water build/bin/ini-cluster build/bin/inid
L=build/bin/ini-cluster

. tests/integration/lib/vtime_water.sh
vrun() {    # NAME CONFIG INPUT: Water on MGS in virtual time, output in $TMP/NAME.out; its status
    timeout 600 $L run "$2" --time virtual --timeout 550 --run-dir "$TMP/$1" -- \
        "$WATER" --mgs --deterministic --random "$RANDOM_IN" < "$3" > "$TMP/$1.out" 2>&1
}

$L gen 2 2 1 -o "$TMP/c221.cfg" > /dev/null
input 64 4 > "$TMP/in64"
"$WATER" --deterministic --random "$RANDOM_IN" < "$TMP/in64" > "$TMP/threads64.out" 2>&1

# --- 1, 2: the answer, and the protocol on every node
if vrun v1 "$TMP/c221.cfg" "$TMP/in64"; then
    if diff <(no_times < "$TMP/threads64.out") <(no_times < "$TMP/v1.out") > "$TMP/v1.diff"; then
        ok "64 molecules on 2 x 2 nodes in virtual time: the threads run's output ($(vcycles v1) cycles)"
    else
        fail "64 molecules: output differs from the threads run; see $TMP/v1.diff"
    fi
    steps=$(python3 - "$TMP/v1" "$(vcycles v1)" <<'EOF'
import json, sys, glob
d, end = sys.argv[1], int(sys.argv[2])
out = []
for f in sorted(glob.glob(d + '/mgs-cluster*.json')):
    for n in json.load(open(f))['nodes']:
        ok = n['protocol_steps'] > 0 and 0 < n['vtime_cycles'] <= end
        out.append('%d:%d%s' % (n['pe'], n['protocol_steps'], '' if ok else '!'))
print(' '.join(out))
EOF
)
    if [ "$(wc -w <<< "$steps")" = 4 ] && ! grep -q '!' <<< "$steps"; then
        ok "every node ran its own protocol steps (pe:steps $steps)"
    else
        fail "protocol steps per node: '$steps' (want 4 nodes, each > 0, clock <= the run's)"
    fi
else
    fail "64-molecule run failed: $(tail -3 "$TMP/v1.out")"
fi

# --- 3: determinism, alone and loaded
vrun v2 "$TMP/c221.cfg" "$TMP/in64"; r2=$?
( while :; do :; done ) & h1=$!
( while :; do :; done ) & h2=$!
vrun v3 "$TMP/c221.cfg" "$TMP/in64"; r3=$?
kill $h1 $h2 2>/dev/null; wait $h1 $h2 2>/dev/null
c1=$(vcycles v1) c2=$(vcycles v2) c3=$(vcycles v3)
if [ "$r2$r3" = 00 ] && [ -n "$c1" ] && [ "$c1" = "$c2" ] && [ "$c1" = "$c3" ]; then
    ok "deterministic: $c1 cycles in 3 runs, one with both cores loaded"
else
    fail "not deterministic: status $r2 $r3, cycles '$c1' '$c2' '$c3'"
fi
vt_golden water64-c221 "$c1"

# --- 4: the thesis's 16-node machine
$L gen 2 8 1 -o "$TMP/c281.cfg" > /dev/null
input 343 16 > "$TMP/in343"
"$WATER" --deterministic --random "$RANDOM_IN" < "$TMP/in343" > "$TMP/threads343.out" 2>&1
want=$(grep -o 'XTT = [0-9.]*' "$TMP/threads343.out")
if vrun big "$TMP/c281.cfg" "$TMP/in343"; then
    got=$(grep -o 'XTT = [0-9.]*' "$TMP/big.out" | sort -u)
    slots=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["slots"]))' "$TMP/big/vtime.json")
    if [ -n "$want" ] && [ "$got" = "$want" ] && [ "$slots" = 18 ]; then
        ok "16 nodes (2 x 8, 1 INI each), 343 molecules: $got as the threads run, $(vcycles big) cycles, $slots processors"
    else
        fail "16-node run: '$got' (want '$want'), $slots processors (want 18)"
    fi
else
    fail "16-node run failed: $(tail -3 "$TMP/big.out")"
fi

# --- 5: af_packet
$L gen 2 2 1 --mode af_packet -o "$TMP/a221.cfg" > /dev/null
vrun a1 "$TMP/a221.cfg" "$TMP/in64"; ra1=$?
vrun a2 "$TMP/a221.cfg" "$TMP/in64"; ra2=$?
a1=$(vcycles a1) a2=$(vcycles a2)
lost=$(cat "$TMP"/a1/ini*.log "$TMP"/a2/ini*.log | grep -c 'never came (counted lost)')
resent=$(grep -h '^INI ' "$TMP/a1.out" "$TMP/a2.out" | grep -vc 'retransmitted 0 (timer) + 0 (NAK)')
if [ "$ra1$ra2" = 00 ] && diff <(no_times < "$TMP/threads64.out") <(no_times < "$TMP/a1.out") > "$TMP/a1.diff" &&
   [ -n "$a1" ] && [ "$a1" = "$a2" ] && [ "$lost" = 0 ] && [ "$resent" = 0 ]; then
    ok "af_packet: 64 molecules on 2 x 2 x 1, the threads run's output, $a1 cycles in 2 runs, 0 frames lost, 0 resends"
else
    fail "af_packet: status $ra1 $ra2, cycles '$a1' '$a2', $lost frame losses, $resent INIs resent; see $TMP/a1.diff"
fi
vt_golden water64-c221-af_packet "$a1"

# --- 6: local messages handled in the order sent
$L gen 2 4 1 -o "$TMP/c241.cfg" > /dev/null
input 64 8 > "$TMP/in64x8"
"$WATER" --deterministic --random "$RANDOM_IN" < "$TMP/in64x8" > "$TMP/threads64x8.out" 2>&1
if vrun l1 "$TMP/c241.cfg" "$TMP/in64x8"; then
    held=$(cat "$TMP"/l1/mgs-cluster*.json | grep -o '"local_held": [0-9]*' | awk '{s += $2} END {print s + 0}')
    if diff <(no_times < "$TMP/threads64x8.out") <(no_times < "$TMP/l1.out") > "$TMP/l1.diff" && [ "$held" -gt 0 ]; then
        ok "2 x 4 x 1: $held local messages reached their node early and were held; the threads run's output"
    else
        fail "2 x 4 x 1: $held local messages held (want > 0), output: see $TMP/l1.diff"
    fi
else
    fail "2 x 4 x 1 run failed: $(tail -3 "$TMP/l1.out")"
fi
vt_golden water64-c241 "$(vcycles l1)"
test_end
