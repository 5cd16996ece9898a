#!/usr/bin/env bash
# ping_default: the data path on conf/default.cfg (2 clusters x 2 compute
# nodes x 1 INI, memif): every size from empty to 65,000 bytes, around the
# fragmentation boundary, verified end to end by ini-ping.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/ping.sh
COUNT=100
ping_run ping_default conf/default.cfg 0,1,100,1400,1472,1473,1600,9000,14800,32768,65000 $COUNT --timeout 300 --
echo "ping_default: PASS (${#PING_PES[@]} clusters, $PING_INIS INIs, $PING_SIZES sizes x $COUNT per PE)"
ping_cleanup
