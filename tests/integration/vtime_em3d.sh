#!/usr/bin/env bash
# vtime_em3d: EM3D in the virtual-time mode (docs/virtual-time.md), through
# the real stack on 2 clusters x 2 nodes x 1 INI (memif), 2 steps.
#   1. get (active messages) and ghost (MGS): check=ok, the same virtual
#      time to the cycle in 2 runs, and RESULT's seconds on the emulated
#      machine's clock (clock=virtual, above 0, at most the run's).
#   2. Declared work (em3d.h, em3d_update_work: 13 instructions a vertex
#      and 7 an edge, times --work-scale): ghost at --work-scale 10 takes
#      9 x 4 half-steps x 250 vertices x (13 + 7 x 20) = 1,377,000 cycles
#      more than at 1 (within 1%: each half-step ends in a barrier and
#      every node declares the same work, so the update is on the path).
# The cycles of 1 are also the committed ones (vt_golden,
# tests/integration/vtime_golden.tsv).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start vtime_em3d build/bin/ini-cluster build/bin/inid build/bin/em3d
L=build/bin/ini-cluster
$L gen 2 2 1 -o "$TMP/c221.cfg" > /dev/null

vcycles() { sed -n 's/^virtual time: \([0-9]*\) cycles (.*/\1/p' "$TMP/$1.out"; }
erun() {    # NAME ARGS...: em3d in virtual time, output in $TMP/NAME.out; its status
    local name=$1; shift
    timeout 300 $L run "$TMP/c221.cfg" --time virtual --timeout 250 --run-dir "$TMP/$name" -- \
        build/bin/em3d --steps 2 "$@" > "$TMP/$name.out" 2>&1
}

# --- 1
for v in get ghost; do
    erun ${v}1 --variant $v; r1=$?
    erun ${v}2 --variant $v; r2=$?
    c1=$(vcycles ${v}1) c2=$(vcycles ${v}2)
    secs=$(grep -o 'seconds=[0-9.]* .*clock=virtual' "$TMP/${v}1.out" | sed 's/seconds=\([0-9.]*\) .*/\1/')
    if [ "$r1$r2" = 00 ] && grep -q 'check=ok' "$TMP/${v}1.out" && grep -q 'check=ok' "$TMP/${v}2.out" &&
       [ -n "$c1" ] && [ "$c1" = "$c2" ] && [ -n "$secs" ] &&
       python3 -c 'import sys; s = float(sys.argv[1]); sys.exit(not 0 < s <= int(sys.argv[2]) / 20e6)' "$secs" "$c1"; then
        ok "$v: check=ok, $c1 cycles in 2 runs, RESULT seconds=$secs on the emulated clock"
    else
        fail "$v: status $r1 $r2, cycles '$c1' '$c2'; $(grep -h -o 'check=[a-zA-Z]*' "$TMP/${v}1.out" "$TMP/${v}2.out" | tr '\n' ' ')"
    fi
    vt_golden em3d-$v-c221 "$c1"
done

# --- 2
erun scale10 --variant ghost --work-scale 10; r=$?
base=$(vcycles ghost1) big=$(vcycles scale10)
if [ "$r" = 0 ] && [ -n "$base" ] && [ -n "$big" ] && grep -q 'check=ok' "$TMP/scale10.out" &&
   python3 -c 'import sys; d = int(sys.argv[2]) - int(sys.argv[1]); sys.exit(abs(d - 1377000) > 13770)' "$base" "$big"; then
    ok "declared work: --work-scale 10 adds $((big - base)) cycles (want 1,377,000 within 1%)"
else
    fail "declared work: status $r, $base cycles at scale 1, '$big' at 10 (want 1,377,000 more)"
fi
test_end
