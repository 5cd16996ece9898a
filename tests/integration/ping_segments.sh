#!/usr/bin/env bash
# ping_segments: issue 19's run.  Under drop 10%, dup 5%, reorder 5% and
# corrupt 1%, ini-ping's 400 messages of each of 0, 64, 1,600, 20,000 and
# 65,000 bytes per compute node with messages longer than a frame sent as
# transport segments (--segment on): every message verified once, intact;
# the counters show segments sent and received, none out of place, and no
# IP reassembly at all.  The time the run took is printed (not asserted:
# this machine is shared).  The same run with IP fragments took about 10
# minutes (docs/transport.md); ini-ping's own checks are in lib/ping.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/ping.sh
FAULTS=drop=0.1,dup=0.05,reorder=0.05,corrupt=0.01,seed=7
start=$(date +%s.%N)
ping_run ping_segments conf/default.cfg 0,64,1600,20000,65000 400 --fault "$FAULTS" --segment on --timeout 900 --
secs=$(echo "$(date +%s.%N) - $start" | bc)
sum() {
    python3 - "$RUN_DIR" "$1" <<'PY'
import glob, json, sys
tot = {}
for f in glob.glob(sys.argv[1] + "/ini*.counters.json"):
    d = json.load(open(f))
    vals = dict(d["transport"])
    vals.update({"ip_" + k: v for k, v in d["ip"].items()})
    for k, v in vals.items():
        tot[k] = tot.get(k, 0) + v
print(int(eval(sys.argv[2], {}, tot)))
PY
}
[ "$(sum segs_sent)" -gt 0 ] || ping_fail "no segment sent"
[ "$(sum segs_received)" -gt 0 ] || ping_fail "no segment received"
[ "$(sum seg_errors)" -eq 0 ] || ping_fail "$(sum seg_errors) segments out of place"
[ "$(sum 'ip_reassembly_drops + ip_reassembly_timeouts')" -eq 0 ] || ping_fail "IP reassembly was used"
[ "$(sum msgs_delivered)" -eq "$(sum msgs_sent)" ] || ping_fail "sent $(sum msgs_sent), delivered $(sum msgs_delivered)"
echo "ping_segments: PASS (faults $FAULTS; $(sum msgs_delivered) messages, $(sum segs_received) segments," \
     "$(sum retx_nak) retransmissions by NAK ($(sum retx_after_loss) after a loss, $(sum retx_spurious) spurious)," \
     "$(sum probes_sent) probes; $(printf '%.1f' "$secs") s)"
ping_cleanup
