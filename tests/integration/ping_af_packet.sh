#!/usr/bin/env bash
# ping_af_packet: conf/af_packet.cfg under the launcher: the INIs talk
# through real Ethernet frames, over veth pairs joined by a Linux bridge in
# network namespaces (DPDK net_af_packet ports).  The same sizes as
# ping_default (one frame, two fragments at 1473, up to 45 fragments at
# 65000), 100 verified round trips per size per PE.  Passes when the run
# exits 0, every cluster printed "verified N messages, 0 errors" with
# N = its PEs x 100 x 11, the run directory holds every daemon's log and
# counters, and the namespaces are gone afterwards.  Skipped (exit 0) without
# root or `ip netns`.
set -u
cd "$(dirname "$0")/../.."
CONFIG=conf/af_packet.cfg
SIZES=0,1,100,1400,1472,1473,1600,9000,14800,32768,65000
COUNT=100

fail() { echo "ping_af_packet: FAIL: $*"; exit 1; }
# af_packet mode builds network namespaces: root and iproute2 only.
if [ "$(id -u)" -ne 0 ]; then echo "ping_af_packet: SKIP: needs root (network namespaces)"; exit 0; fi
if ! ip netns list > /dev/null 2>&1; then echo "ping_af_packet: SKIP: 'ip netns' is unavailable"; exit 0; fi
[ -x build/bin/ini-cluster ] && [ -x build/bin/ini-ping ] && [ -x build/bin/inid ] || fail "build first (make)"

RUN_DIR=$(mktemp -d /tmp/ini-ping-af-packet.XXXXXX)
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
echo "ping_af_packet: PASS (${#pes[@]} clusters, $n_inis INIs, $n_sizes sizes x $COUNT per PE)"
tag=$(sed -n 's/.* --tag \([^ ]*\) .*/\1/p' "$RUN_DIR/launcher.log" | head -n 1)
[ -n "$tag" ] && ip netns list | grep -q "ini-$tag-" && fail "namespaces of run $tag left behind"
rm -rf "$RUN_DIR" "$OUT"
