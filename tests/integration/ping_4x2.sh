#!/usr/bin/env bash
# ping_4x2: conf/4x2.cfg, 4 clusters with 2 INIs each: 8 daemons and 8
# compute threads on a 2-core machine, in the adaptive idle mode; every
# compute node pings every other cluster.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/ping.sh
ping_run ping_4x2 conf/4x2.cfg 0,1,100,1472,1473,9000,65000 100 --idle adaptive --timeout 600 -- \
    --window 2 --pattern all
[ "${#PING_PES[@]}" -eq 4 ] || ping_fail "conf/4x2.cfg should have 4 clusters, found ${#PING_PES[@]}"
for ((i = 0; i < PING_INIS; i++)); do
    grep -q '"idle_mode": *"adaptive"' "$RUN_DIR/ini$i.counters.json" ||
        ping_fail "inid $i did not run in adaptive idle mode"
done
echo "ping_4x2: PASS (${#PING_PES[@]} clusters, $PING_INIS daemons on $(nproc) cores)"
ping_cleanup
