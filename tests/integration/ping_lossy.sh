#!/usr/bin/env bash
# ping_lossy: the reliable transport under inid's own fault injection.
# conf/default.cfg with 2% of frames dropped, duplicated, reordered and
# corrupted (a fixed seed, so a failure repeats), 100 round trips per size
# per PE from empty to 65000 bytes, 2 in flight.  Every message must still
# arrive exactly once, in order and intact: the run exits 0 and every
# cluster prints "verified N messages, 0 errors" with N = its PEs x 100 x 5.
set -u
cd "$(dirname "$0")/../.."
CONFIG=conf/default.cfg
FAULTS=drop=0.02,dup=0.02,reorder=0.02,corrupt=0.02,seed=7
SIZES=0,100,1473,9000,65000
COUNT=100

fail() { echo "ping_lossy: FAIL: $*"; exit 1; }
[ -x build/bin/ini-cluster ] && [ -x build/bin/ini-ping ] && [ -x build/bin/inid ] || fail "build first (make)"

RUN_DIR=$(mktemp -d /tmp/ini-ping-lossy.XXXXXX)
OUT="$RUN_DIR.out"
build/bin/ini-cluster run "$CONFIG" --fault "$FAULTS" --run-dir "$RUN_DIR" --timeout 300 -- \
    build/bin/ini-ping --sizes "$SIZES" --count "$COUNT" --window 2 > "$OUT" 2>&1
rc=$?
cat "$OUT"
[ "$rc" -eq 0 ] || fail "ini-cluster exited with $rc"
[ "$(tail -n 1 "$OUT")" = "run directory: $RUN_DIR" ] || fail "last line is not 'run directory: $RUN_DIR'"

n_sizes=$(echo "$SIZES" | tr ',' '\n' | wc -l)
mapfile -t pes < <(grep -o 'pes *= *\[[^]]*\]' "$CONFIG" | sed 's/[^,]//g' | awk '{print length($0) + 1}')
[ "${#pes[@]}" -ge 2 ] || fail "cannot read the clusters of $CONFIG"
for c in "${!pes[@]}"; do
    want="verified $((pes[c] * COUNT * n_sizes)) messages, 0 errors"
    got=$(grep '^verified ' "$RUN_DIR/cluster$c.out" | tail -n 1)
    [ "$got" = "$want" ] || fail "cluster $c: '$got', expected '$want'"
done
echo "ping_lossy: PASS (faults $FAULTS)"
rm -rf "$RUN_DIR" "$OUT"
