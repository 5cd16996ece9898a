#!/usr/bin/env bash
# strangers_lan: frames from a stranger on the emulated LAN, with no
# security setting (docs/security.md "Strangers refused", "Who is trusted"):
# conf/af_packet.cfg as shipped, so the MAC is on under the run key the
# launcher draws (RUN_DIR/run.key, 0600; STRANGERS_KEY=file uses a machine
# key in security.key_file instead), brought up with `ini-cluster up`; a third, plain
# namespace gets a veth on the run's bridge (ini-TAG-lan, cluster_net.c)
# and sends raw frames with tests/integration/lib/strangers.py, only to the
# two INIs, for a bounded count and time:
#
#  a. while ini-ping runs: DATA with no MAC and with a wrong one (UDP
#     checksum and CRC right, from the other INI's address), ACKs and NAKs
#     with no or a wrong MAC, DATA frames of a tcpdump capture of this run
#     sent again, and DATA from the stranger's own address.  ini-ping: 0
#     errors; each INI counted every forged frame as a MAC failure (or, the
#     ACK too short to hold a tag, a bad header), every one from the
#     stranger's address as rx_not_peer, and every replay as a duplicate or
#     out of window; nothing forged was delivered; both INIs' counters say
#     the MAC was on (stack.mac) and the summary says "MAC: on (run key)".
#  b. ini-ping at 64 bytes between the two INIs, without and then with a
#     flood of 1,000-byte datagrams, first and middle fragments (half from
#     a spoofed INI address) at the rate the script manages: 0 errors both
#     times; the rates (echoes/s, ini-ping's `rate` line) are printed.
#
# Needs root, network namespaces and tcpdump (else exit 77).  About 20 s.
set -u
cd "$(dirname "$0")/../.."
NAME=strangers_lan
skip() { echo "$NAME: SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces)"
ip netns list > /dev/null 2>&1 || skip "'ip netns' is unavailable"
command -v tcpdump > /dev/null || skip "tcpdump missing (tools/install-deps.sh installs it)"
command -v python3 > /dev/null || skip "python3 missing"
[ -x build/bin/ini-cluster ] && [ -x build/bin/ini-ping ] || { echo "$NAME: FAIL: build first (make)"; exit 1; }
STR=inistr$$
ip netns add "$STR" 2> /dev/null || skip "cannot create network namespaces"

L=build/bin/ini-cluster
W=$(mktemp -d /tmp/ini-strangers.XXXXXX)
failures=0
fail() { echo "$NAME: FAIL: $*"; failures=$((failures + 1)); }
CFG=$W/lan.cfg
cleanup() {
    [ -f "$W/run/state" ] && $L down "$CFG" --run-dir "$W/run" > /dev/null 2>&1
    ip netns del "$STR" 2> /dev/null
    rm -rf "$W"
}
trap cleanup EXIT
if [ "${STRANGERS_KEY:-run}" = file ]; then
    head -c 32 /dev/urandom > "$W/ini.key"
    chmod 600 "$W/ini.key"
    sed 's/^version = 1;/version = 1;\nsecurity = { key_file = "ini.key"; };/' conf/af_packet.cfg > "$CFG"
    MAC_SAYS="MAC: on (security.key_file)"
else
    grep -q security conf/af_packet.cfg && { echo "$NAME: FAIL: conf/af_packet.cfg has a security setting"; exit 1; }
    cp conf/af_packet.cfg "$CFG"
    MAC_SAYS="MAC: on (run key)"
fi

# up CONFIG: the daemons, and the stranger's veth on the run's bridge.
up() {
    rm -rf "$W/run"
    $L up "$CFG" --run-dir "$W/run" > "$W/up.out" 2>&1 || { cat "$W/up.out"; fail "up failed"; exit 1; }
    TAG=$(awk '$1 == "tag" { print $2 }' "$W/run/state")
    LAN=ini-$TAG-lan
    ip link add s0 netns "$STR" type veth peer name "s$TAG" netns "$LAN"
    ip -n "$LAN" link set "s$TAG" master inibr0 up
    ip netns exec "$STR" sh -c 'echo 1 > /proc/sys/net/ipv6/conf/s0/disable_ipv6' 2> /dev/null
    ip -n "$STR" link set s0 arp off up
}
down() {
    $L down "$CFG" --run-dir "$W/run" > "$W/down.out" 2>&1 || { cat "$W/down.out"; fail "down failed"; }
}
# run_ping SIZES COUNT OUT: ini-ping in both clusters at once (window 8).
run_ping() {
    local pids=() c
    for c in 0 1; do
        ( . "$W/run/cluster$c.env"; exec build/bin/ini-ping --sizes "$1" --count "$2" --window 8 ) \
            > "$W/$3.$c" 2>&1 &
        pids+=($!)
    done
    for c in 0 1; do wait "${pids[$c]}" || fail "$3: cluster $c: ini-ping exited with $?"; done
    for c in 0 1; do
        local want="verified $((2 * $2 * $(tr ',' '\n' <<<"$1" | wc -l))) messages, 0 errors"
        [ "$(grep '^verified' "$W/$3.$c")" = "$want" ] || { fail "$3: cluster $c: not '$want'"; cat "$W/$3.$c"; }
    done
}
# rate OUT: the two clusters' echoes/s, summed.
rate() { awk '$1 == "rate" { s += $2 } END { printf "%d", s }' "$W/$1.0" "$W/$1.1"; }
counters() { python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$W/run/ini$1.counters.json"; }

# ---- a. forged and replayed frames ---------------------------------------
up
ip netns exec "$LAN" tcpdump -i inibr0 -s 0 -U -c 400 -w "$W/cap.pcap" \
    'udp port 7400 and ip[6:2] & 0x3fff = 0' > "$W/tcpdump.log" 2>&1 &
cap=$!
sleep 0.5
run_ping 0,64,1000 300 warm
kill "$cap" 2> /dev/null; wait "$cap" 2> /dev/null
( sleep 0.3; ip netns exec "$STR" python3 tests/integration/lib/strangers.py forge s0 "$W/cap.pcap" 100 \
      > "$W/forge.json" 2> "$W/forge.err" ) &
forger=$!
run_ping 0,64,1000 1500 forged
wait "$forger" || { fail "strangers.py forge: $(cat "$W/forge.err")"; }
if [ "${STRANGERS_KEY:-run}" = run ]; then
    [ "$(stat -c '%a %s' "$W/run/run.key" 2> /dev/null)" = "600 32" ] || fail "run.key: not 32 bytes, mode 600"
fi
down
grep -qxF "$MAC_SAYS" "$W/down.out" || fail "down's summary does not say '$MAC_SAYS'"
for i in 0 1; do
    grep -q '"mac": 1' "$W/run/ini$i.counters.json" || fail "INI $i: counters do not say the MAC was on"
done
if [ -s "$W/forge.json" ]; then
    python3 - "$W/forge.json" "$W/run" <<'PY' || fail "forged frames: counters"
import json, sys
sent = json.load(open(sys.argv[1]))
ok = True
for ini, ip in ((0, "198.18.0.1"), (1, "198.18.0.2")):
    c = json.load(open("%s/ini%d.counters.json" % (sys.argv[2], ini)))
    t, link, s = c["transport"], c["link"], sent[ip]
    forged = sum(s[k] for k in ("data_nomac", "data_badmac", "ack_nomac", "ack_badmac", "nak_badmac"))
    refused = t["mac_fail"] + t["bad_header"]
    print("info: INI %d: sent it %d forged, %d replayed, %d from the stranger's address; mac_fail %d, "
          "bad_header %d, rx_not_peer %d, duplicates %d, out_of_window %d, delivered %d, bad_ack %d, crc_errors %d"
          % (ini, forged, s["replay"], s["stranger_src"], t["mac_fail"], t["bad_header"],
             link["rx_not_peer"], t["duplicates"], t["out_of_window"], t["msgs_delivered"], t["bad_ack"],
             t["crc_errors"]))
    checks = [
        (refused == forged, "mac_fail + bad_header = %d, forged %d" % (refused, forged)),
        (t["mac_fail"] >= s["data_nomac"] + s["data_badmac"] + s["ack_badmac"] + s["nak_badmac"],
         "mac_fail %d below the forged frames long enough to hold a tag" % t["mac_fail"]),
        (link["rx_not_peer"] == s["stranger_src"], "rx_not_peer %d, sent %d" % (link["rx_not_peer"], s["stranger_src"])),
        (t["duplicates"] + t["out_of_window"] >= s["replay"],
         "duplicates + out_of_window %d < %d replays" % (t["duplicates"] + t["out_of_window"], s["replay"])),
        # A replay carries the stale ack of its time: counted, ignored.
        (t["bad_ack"] <= s["replay"] and t["crc_errors"] == 0, "a forged ACK or DATA got past the MAC"),
    ]
    for good, why in checks:
        if not good:
            print("INI %d: %s" % (ini, why))
            ok = False
sys.exit(0 if ok else 1)
PY
    # Exactly what ini-ping sent was delivered: 2 clusters x 2 PEs x
    # (warm-up 300 + 1,500) x 3 sizes requests and as many echoes, and the
    # DONE messages (each PE to the 2 PEs of the other cluster).
    for i in 0 1; do
        d=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["transport"]["msgs_delivered"])' \
            "$W/run/ini$i.counters.json")
        [ "$d" = $((2 * 2 * 1800 * 3 + 2 * 2 * 2)) ] || fail "INI $i delivered $d messages, not what ini-ping sent"
    done
    echo "ok:   a. forged, replayed and stranger's frames during ini-ping: 0 errors, all counted, none delivered"
else
    fail "strangers.py forge printed nothing"
fi

# ---- b. a flood while ini-ping runs ----------------------------------------
# Each in a run of its own, so that the counters are that phase's.
retx() { python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["transport"]
print(t["retx_timer"] + t["retx_nak"])' "$W/run/ini$1.counters.json"; }
up
run_ping 64 20000 quiet
down
quiet_retx="$(retx 0) + $(retx 1)"
up
ip netns exec "$STR" python3 tests/integration/lib/strangers.py flood s0 "$W/cap.pcap" 6 \
    > "$W/flood.json" 2> "$W/flood.err" &
flooder=$!
sleep 0.3
run_ping 64 20000 flooded
wait "$flooder" || fail "strangers.py flood: $(cat "$W/flood.err")"
down
quiet=$(rate quiet) flooded=$(rate flooded)
echo "info: ini-ping 64 B, 2 clusters x 2 PEs, window 8: $quiet echoes/s without the flood" \
     "(retransmissions $quiet_retx), $flooded with it (retransmissions $(retx 0) + $(retx 1))"
echo "info: flood: $(cat "$W/flood.json")"
for i in 0 1; do
    python3 - "$W/run/ini$i.counters.json" <<'PY' || fail "INI $i: counters after the flood"
import json, sys
c = json.load(open(sys.argv[1]))
t, ip, link = c["transport"], c["ip"], c["link"]
print("info: INI %d under the flood: mac_fail %d, rx_not_peer %d, reassembly timeouts %d, evictions %d"
      % (c["ini"], t["mac_fail"], link["rx_not_peer"], ip["reassembly_timeouts"], ip["reassembly_evictions"]))
assert t["mac_fail"] > 0 and link["rx_not_peer"] > 0, "the flood did not reach the INI"
assert t["crc_errors"] == 0 and t["bad_ack"] == 0, "a flood frame got past the MAC"
PY
done
[ "$failures" = 0 ] && echo "ok:   b. flood from a third namespace during ini-ping: 0 errors"

[ "$(ip netns list | grep -c "ini-$TAG-")" = 0 ] || fail "namespaces of run $TAG left behind"
[ "$failures" = 0 ] && echo "$NAME: PASS" || echo "$NAME: $failures failed"
[ "$failures" = 0 ]
