#!/usr/bin/env bash
# ping_default: conf/default.cfg (2 clusters x 2 PEs x 1 INI, memif) under
# the launcher, every message size class: empty, tiny, around the Ethernet
# payload (1472 fits one frame, 1473 needs two fragments), jumbo, many
# fragments, and the 65000-byte maximum; 100 verified round trips per size
# per PE.  Passes when the run exits 0, every cluster printed
# "verified N messages, 0 errors" with N = its PEs x 100 x 11, and the run
# directory holds every daemon's log and counters.
set -u
cd "$(dirname "$0")/../.."
CONFIG=conf/default.cfg
SIZES=0,1,100,1400,1472,1473,1600,9000,14800,32768,65000
COUNT=100

fail() { echo "ping_default: FAIL: $*"; exit 1; }
[ -x build/bin/ini-cluster ] && [ -x build/bin/ini-ping ] && [ -x build/bin/inid ] || fail "build first (make)"

RUN_DIR=$(mktemp -d /tmp/ini-ping-default.XXXXXX)
OUT="$RUN_DIR.out"
build/bin/ini-cluster run "$CONFIG" --run-dir "$RUN_DIR" --timeout 300 -- \
    build/bin/ini-ping --sizes "$SIZES" --count "$COUNT" > "$OUT" 2>&1
rc=$?
cat "$OUT"
[ "$rc" -eq 0 ] || fail "ini-cluster exited with $rc"
[ "$(tail -n 1 "$OUT")" = "run directory: $RUN_DIR" ] || fail "last line is not 'run directory: $RUN_DIR'"

# Expected per cluster: its PEs (counted in the config) x COUNT x sizes.
n_sizes=$(echo "$SIZES" | tr ',' '\n' | wc -l)
mapfile -t pes < <(grep -o 'pes *= *\[[^]]*\]' "$CONFIG" | sed 's/[^,]//g' | awk '{print length($0) + 1}')
[ "${#pes[@]}" -ge 2 ] || fail "cannot read the clusters of $CONFIG"
for c in "${!pes[@]}"; do
    want="verified $((pes[c] * COUNT * n_sizes)) messages, 0 errors"
    got=$(grep '^verified ' "$RUN_DIR/cluster$c.out" | tail -n 1)
    [ "$got" = "$want" ] || fail "cluster $c: '$got', expected '$want'"
done
n_inis=$(grep -c 'ip *= *"' "$CONFIG")
for ((i = 0; i < n_inis; i++)); do
    [ -s "$RUN_DIR/ini$i.log" ] || fail "no $RUN_DIR/ini$i.log"
    [ -s "$RUN_DIR/ini$i.counters.json" ] || fail "no $RUN_DIR/ini$i.counters.json"
done
echo "ping_default: PASS (${#pes[@]} clusters, $n_inis INIs, $n_sizes sizes x $COUNT per PE)"
rm -rf "$RUN_DIR" "$OUT"
