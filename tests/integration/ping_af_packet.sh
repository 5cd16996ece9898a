#!/usr/bin/env bash
# ping_af_packet: the data path over a Linux bridge: each cluster in its own
# network namespace, each INI on a veth through DPDK's af_packet driver.
# Needs root and `ip netns` (else it exits 77: skipped); the namespaces must
# be gone afterwards.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/ping.sh
if [ "$(id -u)" -ne 0 ]; then echo "ping_af_packet: SKIP: needs root (network namespaces)"; exit 77; fi
if ! ip netns list > /dev/null 2>&1; then echo "ping_af_packet: SKIP: 'ip netns' is unavailable"; exit 77; fi
COUNT=100
ping_run ping_af_packet conf/af_packet.cfg 0,1,100,1400,1472,1473,1600,9000,14800,32768,65000 $COUNT \
    --timeout 300 --
tag=$(sed -n 's/.* --tag \([^ ]*\) .*/\1/p' "$RUN_DIR/launcher.log" | head -n 1)
[ -n "$tag" ] && ip netns list | grep -q "ini-$tag-" && ping_fail "namespaces of run $tag left behind"
echo "ping_af_packet: PASS (${#PING_PES[@]} clusters, $PING_INIS INIs, $PING_SIZES sizes x $COUNT per PE)"
ping_cleanup
