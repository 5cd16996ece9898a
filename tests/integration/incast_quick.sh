#!/usr/bin/env bash
# incast_quick: many clusters into one (issue 50), on the af_packet LAN
# and across lab hosts over ssh.
#  1. LAN (tools/ping/incast.sh): eight clusters of one compute node and
#     one INI; the compute nodes of seven send 30 messages of 65,000
#     bytes each to compute node 0 (ini-ping --incast, one sender alone
#     first), which checks every byte;
#  2. hosts (tools/ping/incast_hosts.sh): three namespace hosts of
#     tools/cluster/ini-lab, a cluster each, launched over ssh, with
#     network.port auto on their device d0 (a veth); two senders x 30.
# Asserts outcomes, not speed, of each:
#   - every message verified (senders x 30 + 30 solo), 0 errors, exit
#     status 0, and the table's row says so;
#   - retransmissions (every INI, by NAK and timer) under 5% of the data
#     frames the senders sent;
#   - the target's NAKs at most 2 per frame it received after a loss (0
#     when none was lost): NAKs cannot storm;
#   - the target's port is DPDK's af_packet driver with its ring of
#     4,096 slots (auto's choice in segment mode for the LAN's veths and
#     the hosts' virtual d0: its EAL line) and was never reopened:
#     port.wedge_resets is in its counters file and 0 (the wedge check is
#     af_xdp's only: ini/daemon/inid_wedge.c);
#   - no namespace left behind (the run's, the lab's).
# The goodput of both phases is printed (speed belongs to the benchmark:
# docs/results/incast/).  Needs root and `ip netns` (else it exits 77:
# skipped); part 2 needs sshd (else it is skipped with a note).
set -u
cd "$(dirname "$0")/../.."
fail() { echo "incast_quick: FAIL: $*"; exit 1; }
if [ "$(id -u)" -ne 0 ]; then echo "incast_quick: SKIP: needs root (network namespaces)"; exit 77; fi
if ! ip netns list > /dev/null 2>&1; then echo "incast_quick: SKIP: 'ip netns' is unavailable"; exit 77; fi
[ -x build/bin/ini-cluster ] && [ -x build/bin/ini-ping ] && [ -x build/bin/inid ] || fail "build first (make)"
TMP=$(mktemp -d /tmp/ini-incast-quick.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
COUNT=30

# check WHAT SENDERS RC IFACE: the run of part WHAT (its table TMP/WHAT.tsv,
# its directory TMP/runs/WHAT-*), exit status RC, the target's interface.
check() {
    local what=$1 senders=$2 rc=$3 iface=$4 run want verified expected frames retx naks lost resets tag
    run=$(ls -d "$TMP"/runs/"$what"-* | head -n 1)
    grep -v '^\[c[1-9]' "$run/output.txt" 2> /dev/null
    [ "$rc" -eq 0 ] || fail "$what: the run exited with $rc (see above)"
    want=$(((senders + 1) * COUNT))
    grep -q "^verified $want messages, 0 errors\$" "$run/cluster0.out" ||
        fail "$what: cluster 0: '$(grep '^verified' "$run/cluster0.out")', expected 'verified $want messages, 0 errors'"
    # The row's columns (tools/inimeasure/incast.py): verified 7, expected 8,
    # data_frames 12, retx 13, naks_sent 15, lost_frames 16.
    read -r verified expected frames retx naks lost < <(awk -F'\t' 'NR == 2 {print $7, $8, $12, $13, $15, $16}' "$TMP/$what.tsv")
    [ "$verified" = "$want" ] && [ "$expected" = "$want" ] || fail "$what: the table says $verified of $expected, expected $want"
    [ "$frames" -gt 0 ] || fail "$what: no data frames counted"
    [ $((retx * 20)) -lt "$frames" ] || fail "$what: $retx retransmissions for $frames data frames: 5% or more"
    [ "$naks" -le $((2 * lost)) ] || fail "$what: $naks NAKs for $lost frames lost: more than 2 per lost frame"
    grep -q -- "--vdev=net_af_packet0,iface=$iface,framecnt=4096 " "$run/ini0.log" ||
        fail "$what: the target's EAL line has no --vdev=net_af_packet0,iface=$iface,framecnt=4096: $(head -n 1 "$run/ini0.log")"
    resets=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["port"]["wedge_resets"])' "$run/ini0.counters.json" 2>&1)
    [ "$resets" = 0 ] || fail "$what: the target's port.wedge_resets is '$resets', expected 0"
    tag=$(sed -n 's/.* --tag \([^ ]*\) .*/\1/p' "$run/launcher.log" 2> /dev/null | head -n 1)
    [ -n "$tag" ] && ip netns list | grep -q "ini-$tag-" && fail "$what: namespaces of run $tag left behind"
    echo "ok:   $what: $want messages checked; $frames data frames, $retx retransmissions, $naks NAKs, $lost lost;" \
         "solo, incast: $(grep -h '^solo:\|^incast:' "$run/cluster0.out" | sed 's/.*: \([0-9.]* Gbit\/s\)$/\1/' | paste -sd' ' -)"
}

bash tools/ping/incast.sh lan 7 $COUNT 65000 "$TMP/lan.tsv" 300 > "$TMP/lan.row" 2>&1
check lan 7 $? i0
if command -v sshd > /dev/null || [ -x /usr/sbin/sshd ]; then
    # Its lab is inc<its PID> (tools/ping/incast_hosts.sh).
    bash tools/ping/incast_hosts.sh hosts 2 $COUNT 65000 "$TMP/hosts.tsv" 300 > "$TMP/hosts.row" 2>&1 &
    lab=inc$!
    wait $!
    rc=$?
    [ -d "$TMP/runs" ] && ls -d "$TMP"/runs/hosts-* > /dev/null 2>&1 || { cat "$TMP/hosts.row"; fail "hosts: no run directory"; }
    check hosts 2 $rc d0
    ip netns list | grep -q "^$lab-" && fail "hosts: the lab's namespaces ($lab-*) left behind"
else
    echo "note: no sshd (tools/install-deps.sh installs openssh-server): the hosts part skipped"
fi
echo "incast_quick: PASS"
