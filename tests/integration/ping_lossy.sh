#!/usr/bin/env bash
# ping_lossy: the reliable transport under inid's own fault injection:
# conf/default.cfg with 2% of frames dropped, duplicated, reordered and
# corrupted; every message must still be verified exactly once, intact.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/ping.sh
FAULTS=drop=0.02,dup=0.02,reorder=0.02,corrupt=0.02,seed=7
ping_run ping_lossy conf/default.cfg 0,100,1473,9000,65000 100 --fault "$FAULTS" --timeout 300 -- --window 2
echo "ping_lossy: PASS (faults $FAULTS)"
ping_cleanup
