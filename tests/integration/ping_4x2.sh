#!/usr/bin/env bash
# ping_4x2: conf/4x2.cfg (4 clusters, 2 PEs each; one inid per INI, more
# daemons and compute threads than the machine has cores) under the launcher
# with adaptive idling, so daemons and PEs must sleep and wake each other
# through the doorbells instead of spinning.  Every PE pings the PEs of all
# three other clusters in turn with up to 2 requests in flight; passes when
# the run exits 0 and every cluster verified its PEs x 100 x 7 round trips
# with 0 errors, with every daemon's log and counters in the run directory.
set -u
cd "$(dirname "$0")/../.."
CONFIG=conf/4x2.cfg
SIZES=0,1,100,1472,1473,9000,65000
COUNT=100

fail() { echo "ping_4x2: FAIL: $*"; exit 1; }
[ -x build/bin/ini-cluster ] && [ -x build/bin/ini-ping ] && [ -x build/bin/inid ] || fail "build first (make)"

RUN_DIR=$(mktemp -d /tmp/ini-ping-4x2.XXXXXX)
OUT="$RUN_DIR.out"
build/bin/ini-cluster run "$CONFIG" --idle adaptive --run-dir "$RUN_DIR" --timeout 600 -- \
    build/bin/ini-ping --sizes "$SIZES" --count "$COUNT" --window 2 --pattern all > "$OUT" 2>&1
rc=$?
cat "$OUT"
[ "$rc" -eq 0 ] || fail "ini-cluster exited with $rc"
[ "$(tail -n 1 "$OUT")" = "run directory: $RUN_DIR" ] || fail "last line is not 'run directory: $RUN_DIR'"

n_sizes=$(echo "$SIZES" | tr ',' '\n' | wc -l)
mapfile -t pes < <(grep -o 'pes *= *\[[^]]*\]' "$CONFIG" | sed 's/[^,]//g' | awk '{print length($0) + 1}')
[ "${#pes[@]}" -eq 4 ] || fail "$CONFIG should have 4 clusters, found ${#pes[@]}"
for c in "${!pes[@]}"; do
    want="verified $((pes[c] * COUNT * n_sizes)) messages, 0 errors"
    got=$(grep '^verified ' "$RUN_DIR/cluster$c.out" | tail -n 1)
    [ "$got" = "$want" ] || fail "cluster $c: '$got', expected '$want'"
done
n_inis=$(grep -c 'ip *= *"' "$CONFIG")
for ((i = 0; i < n_inis; i++)); do
    [ -s "$RUN_DIR/ini$i.log" ] || fail "no $RUN_DIR/ini$i.log"
    [ -s "$RUN_DIR/ini$i.counters.json" ] || fail "no $RUN_DIR/ini$i.counters.json"
    grep -q '"idle_mode": *"adaptive"' "$RUN_DIR/ini$i.counters.json" || grep -q 'idle adaptive' "$RUN_DIR/ini$i.log" ||
        fail "inid $i did not run in adaptive idle mode"
done
echo "ping_4x2: PASS (${#pes[@]} clusters, $n_inis daemons on $(nproc) cores)"
rm -rf "$RUN_DIR" "$OUT"
