#!/usr/bin/env bash
# incast_quick: many clusters into one on the af_packet LAN (issue 50).
# Eight clusters of one compute node and one INI; the compute nodes of
# seven send 30 messages of 65,000 bytes each to compute node 0
# (ini-ping --incast, one sender alone first), which checks every byte.
# Asserts outcomes, not speed:
#   - every message verified (7 x 30 + 30 solo), 0 errors, exit status 0;
#   - retransmissions (every INI, by NAK and timer) under 5% of the data
#     frames the senders sent;
#   - the target's NAKs at most 2 per frame it received after a loss (0
#     when none was lost): NAKs cannot storm;
#   - the target's port is DPDK's af_packet driver with its ring of
#     4,096 slots (the LAN's default in segment mode: its EAL line) and
#     was never reopened: port.wedge_resets is in its counters file and 0
#     (the wedge check is af_xdp's only: ini/daemon/inid_wedge.c);
#   - no namespace left behind.
# The goodput of both phases is printed (speed belongs to the benchmark:
# tools/ping/incast.sh, docs/results/incast/).  Needs root and `ip netns`
# (else it exits 77: skipped).
set -u
cd "$(dirname "$0")/../.."
fail() { echo "incast_quick: FAIL: $*"; exit 1; }
if [ "$(id -u)" -ne 0 ]; then echo "incast_quick: SKIP: needs root (network namespaces)"; exit 77; fi
if ! ip netns list > /dev/null 2>&1; then echo "incast_quick: SKIP: 'ip netns' is unavailable"; exit 77; fi
[ -x build/bin/ini-cluster ] && [ -x build/bin/ini-ping ] && [ -x build/bin/inid ] || fail "build first (make)"
TMP=$(mktemp -d /tmp/ini-incast-quick.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
SENDERS=7 COUNT=30
bash tools/ping/incast.sh quick $SENDERS $COUNT 65000 "$TMP/runs.tsv" 300 > "$TMP/row" 2>&1
rc=$?
RUN=$(ls -d "$TMP"/runs/quick-* | head -n 1)
cat "$RUN/output.txt" 2>/dev/null | grep -v '^\[c[1-9]'
[ "$rc" -eq 0 ] || fail "the run exited with $rc (see above)"
want=$(((SENDERS + 1) * COUNT))
grep -q "^verified $want messages, 0 errors\$" "$RUN/cluster0.out" ||
    fail "cluster 0: '$(grep '^verified' "$RUN/cluster0.out")', expected 'verified $want messages, 0 errors'"
# The row's columns (tools/inimeasure/incast.py): verified 7, expected 8,
# data_frames 12, retx 13, naks_sent 15, lost_frames 16.
read -r verified expected frames retx naks lost < <(awk -F'\t' 'NR == 2 {print $7, $8, $12, $13, $15, $16}' "$TMP/runs.tsv")
[ "$verified" = "$want" ] && [ "$expected" = "$want" ] || fail "the table says $verified of $expected, expected $want"
[ "$frames" -gt 0 ] || fail "no data frames counted"
[ $((retx * 20)) -lt "$frames" ] || fail "$retx retransmissions for $frames data frames: 5% or more"
[ "$naks" -le $((2 * lost)) ] || fail "$naks NAKs for $lost frames lost: more than 2 per lost frame"
grep -q -- '--vdev=net_af_packet0,iface=i0,framecnt=4096 ' "$RUN/ini0.log" ||
    fail "the target's EAL line has no --vdev=net_af_packet0,iface=i0,framecnt=4096: $(head -n 1 "$RUN/ini0.log")"
resets=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["port"]["wedge_resets"])' "$RUN/ini0.counters.json" 2>&1)
[ "$resets" = 0 ] || fail "the target's port.wedge_resets is '$resets', expected 0"
tag=$(sed -n 's/.* --tag \([^ ]*\) .*/\1/p' "$RUN/launcher.log" 2>/dev/null | head -n 1)
[ -n "$tag" ] && ip netns list | grep -q "ini-$tag-" && fail "namespaces of run $tag left behind"
echo "incast_quick: PASS ($want messages checked; $frames data frames, $retx retransmissions, $naks NAKs, $lost lost;" \
     "solo, incast: $(grep -h '^solo:\|^incast:' "$RUN/cluster0.out" | sed 's/.*: \([0-9.]* Gbit\/s\)$/\1/' | paste -sd' ' -))"
