#!/usr/bin/env bash
# hosts_lan: the INIs are ordinary IPv4 hosts on the LAN.  Two namespace
# hosts (lib/hosts.sh, tools/cluster/ini-lab) run one cluster each, brought
# up over ssh with `ini-cluster up` (then `status`, and `down` at the end,
# across hosts); a plain Linux namespace on the same bridge
#
#  1. `ping -c 3` each INI: every echo is answered (ARP and ICMP echo by
#     stack/arp.c), also the largest that fits a frame (ping -s 1472 at MTU
#     1500), and one byte more (-s 1473, two fragments), which the INI
#     collects and answers fragment for fragment (docs/deploy.md);
#  2. while ini-ping sends 65,000-byte messages between the clusters, a
#     capture on the bridge (tcpdump -w) holds IPv4 UDP fragments that
#     tshark, with no hints, decodes and reassembles into whole datagrams
#     (65,000 bytes + 30 of transport header + 16 of MAC, on by default
#     on a LAN, + 8 of UDP header, from 44
#     fragments at MTU 1500; the daemons run with --segment off, the
#     thesis's IP fragments), and not one frame of another EtherType than
#     IPv4 and ARP.
# Needs root and network namespaces (else exit 77).
set -u
cd "$(dirname "$0")/../.."
NAME=hosts_lan
. tests/integration/lib/hosts.sh
hosts_need_root $NAME
for tool in tcpdump tshark ping; do
    command -v $tool > /dev/null || { echo "$NAME: SKIP: $tool missing (tools/install-deps.sh installs it)"; rm -rf "$HOSTS_TMP"; exit 77; }
done
[ -n "${KEEP:-}" ] || trap hosts_teardown EXIT
CLUSTER=$PWD/build/bin/ini-cluster PING=$PWD/build/bin/ini-ping
failures=0
fail() { echo "$NAME: FAIL: $*"; failures=$((failures + 1)); }

hosts_setup 2
hosts_sshd || { echo "$NAME: FAIL: sshd setup"; exit 1; }
T=$HOSTS_TMP
"$CLUSTER" gen 2 1 1 --hosts h0,h1 --device d0 -o "$T/2h.cfg" > /dev/null || { echo "$NAME: FAIL: gen"; exit 1; }
head() { ip netns exec "${HOSTS_NS}-head" "$CLUSTER" "$@" --ssh "$HOSTS_SSH" --run-dir "$T/up"; }

hosts_in lan tcpdump -i br0 -s 0 -B 32768 -U -w "$T/lan.pcap" > "$T/tcpdump.log" 2>&1 &
cap_pid=$!
sleep 0.5
head up "$T/2h.cfg" --segment off > "$T/up.log" 2>&1 || { fail "up across hosts failed"; cat "$T/up.log"; exit 1; }
if head status "$T/2h.cfg" > "$T/status.log" 2>&1 && [ "$(grep -c 'running, ready' "$T/status.log")" = 2 ]; then
    echo "ok:   up/status across 2 hosts: both daemons running, ready"
else
    fail "status across hosts"; cat "$T/status.log"
fi

# 1. ping from a plain Linux host
for ip in 198.18.0.1 198.18.0.2; do
    if hosts_in peer ping -c 3 -W 2 "$ip" > "$T/ping-$ip.log" 2>&1 && grep -q '3 received' "$T/ping-$ip.log"; then
        echo "ok:   ping -c 3 $ip from a plain namespace: 3 answered"
    else
        fail "ping $ip"; cat "$T/ping-$ip.log"
    fi
done
# The largest echo request of one frame is answered, and so is a
# fragmented one (ping -s 1473): stack/arp.c collects its fragments.
if hosts_in peer ping -c 2 -W 2 -s 1472 198.18.0.1 > "$T/ping-1472.log" 2>&1 && grep -q '2 received' "$T/ping-1472.log"; then
    echo "ok:   ping -s 1472 (one frame) answered"
else
    fail "ping -s 1472"; cat "$T/ping-1472.log"
fi
if hosts_in peer ping -c 2 -W 2 -s 1473 198.18.0.1 > "$T/ping-1473.log" 2>&1 && grep -q '2 received' "$T/ping-1473.log"; then
    echo "ok:   ping -s 1473 (two fragments) answered"
else
    fail "ping -s 1473 (two fragments) not answered"; cat "$T/ping-1473.log"
fi

# 2. 65,000-byte messages between the clusters, the programs started in
# each host with the environment `up` printed.
pids=()
for c in 0 1; do
    # up prints one shell line per cluster: export INI_CLUSTER=C ... # cluster C
    env_line=$(grep -o "export INI_CLUSTER=$c .*" "$T/up.log" | sed -n "1s/ *# cluster [0-9]*$//p")
    [ -n "$env_line" ] || { fail "up printed no environment for cluster $c"; cat "$T/up.log"; continue; }
    hosts_in "h$c" bash -c "$env_line; exec $PING --sizes 65000 --count 3" > "$T/ping$c.out" 2>&1 &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "ini-ping exit status $?"; done
for c in 0 1; do
    grep -q '^verified 3 messages, 0 errors' "$T/ping$c.out" || { fail "cluster $c: ini-ping"; tail -5 "$T/ping$c.out"; }
done
head down "$T/2h.cfg" > "$T/down.log" 2>&1 || { fail "down across hosts"; cat "$T/down.log"; }
grep -q 'stopped 1 daemon' "$T/down.log" && [ "$(grep -c 'stopped 1 daemon' "$T/down.log")" = 2 ] \
    && echo "ok:   down across 2 hosts: 1 daemon stopped on each" || { fail "down output"; cat "$T/down.log"; }
sleep 0.5
kill "$cap_pid" 2> /dev/null
wait "$cap_pid" 2> /dev/null
grep -E 'captured|dropped' "$T/tcpdump.log" | sed 's/^/info: tcpdump: /'

frags=$(tshark -r "$T/lan.pcap" -Y 'ip.src == 198.18.0.1 && ip.dst == 198.18.0.2 && ip.proto == 17 && (ip.flags.mf == 1 || ip.frag_offset > 0)' 2> /dev/null | wc -l)
whole=$(tshark -r "$T/lan.pcap" -Y 'ip.src == 198.18.0.1 && udp.length == 65054 && ip.fragment.count == 44' -T fields -e ip.id 2> /dev/null | sort -u | wc -l)
others=$(tshark -r "$T/lan.pcap" -Y 'not ip and not arp' 2> /dev/null | wc -l)
if [ "$frags" -ge 44 ] && [ "$whole" -ge 3 ]; then
    echo "ok:   capture: $frags IPv4 fragment frames from INI 0; tshark reassembles $whole UDP datagrams of 65,054 bytes (65,000 + 30 transport + 16 MAC + 8 UDP) from 44 fragments each"
else
    fail "capture: $frags fragment frames, $whole reassembled 65,054-byte UDP datagrams of 44 fragments (want >= 44 and >= 3)"
fi
[ "$others" = 0 ] || fail "capture: $others frames neither IPv4 nor ARP"

[ -n "${KEEP:-}" ] || hosts_teardown
hosts_finish
