#!/usr/bin/env bash
# dissector: tools/wireshark/ini.lua decodes INI's transport and active-message
# headers.
#   1. A pcap written by tools/wireshark/test-pcap.py (frames built by the
#      layout of stack/swp.c and ini/cn/msg.h): DATA, ACK and NAK in 8-, 16- and
#      32-bit sequence widths, a message in three IPv4 fragments, one in three
#      transport segments, a retransmission, a PROBE, a SYNC and its answer, a wrong CRC,
#      a frame under EtherType 0x88b5 (captures of the LAN before it carried
#      plain IPv4).  Every field of every
#      frame is compared with what the script wrote.
#      An ACK shows its ack alone (its seq is unused), the repeated DATA
#      frame is marked as a retransmission of the first.
#   2. A capture of the launcher (--capture, memif) of ini-ping with 2% of
#      the frames dropped on receipt: every DATA frame an INI sent again is
#      marked a retransmission, as many as the INI's counters say it made;
#      no ACK shows a seq.  Without the script, the capture read with
#      `-d udp.port==7400,data` (docs/launcher.md) shows no QUIC and
#      nothing malformed.
#   3. The same under sending-side faults (--fault drop=0.02, side tx):
#      the frames the injector dropped are in the capture (a pcapng
#      comment says so, ini_swp.fault_dropped, as many as its counters),
#      and again every resend is marked a retransmission, as many as the
#      counters say.
#   4. --capture-snap 128: no frame [BAD CRC]; the truncated DATA frames
#      say their CRC is unchecked, the whole ones (empty messages) have a
#      correct CRC.
#   5. `make install DESTDIR=... PREFIX=/usr/local` puts the script in the
#      folder tshark loads Lua plugins from (tshark -G folders); tshark,
#      loading it from there (a test HOME whose personal plugin folder is
#      the installed one) and given no -X or -d option, shows the launcher's
#      capture with no QUIC, nothing malformed, every UDP frame as INI.
#   6. As root with `ip netns`: real traffic (with the MAC, the LAN's default:
#      every frame shows its 16-byte tag), captured on the af_packet LAN's
#      bridge during an ini-ping run with 5% dropped frames: DATA, ACK and NAK
#      frames decoded, every CRC correct, no malformed frame.
# Exit 77 (skipped) without tshark.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/lan.sh
NAME=dissector
LUA=tools/wireshark/ini.lua
fail() { echo "$NAME: FAIL: $*"; exit 1; }
if ! command -v tshark > /dev/null; then
    echo "$NAME: SKIP: tshark is not installed (apt-get install tshark)"
    exit 77
fi
PY=$(command -v python3) || { echo "$NAME: SKIP: python3 is not installed"; exit 77; }
WORK=$(mktemp -d /tmp/ini-dissector.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
tshark_() { tshark -X lua_script:"$LUA" "$@" 2> "$WORK/tshark.err"; }

# 1. The crafted capture.
"$PY" tools/wireshark/test-pcap.py "$WORK/test.pcap" || fail "test-pcap.py failed"
tshark_ -r "$WORK/test.pcap" -T fields -E separator=' ' -e frame.number -e eth.type -e ini_swp.op \
    -e ini_swp.conn -e ini_swp.seq -e ini_swp.ack -e ini_swp.seq_bits -e ini_swp.crc_ok -e ini_am.src_pe \
    -e ini_am.dst_pe -e ini_am.handler -e ini_am.len -e ip.fragment.count > "$WORK/fields" ||
    { cat "$WORK/tshark.err"; fail "tshark failed on the crafted capture"; }
# frame ethertype op conn seq ack bits crc_ok src dst handler len fragments
cat > "$WORK/expected" <<'EOF'
1 0x0800 1 0 0 0 32 1 0 2 1 64
2 0x0800 2 1  1 32
3 0x0800 1 0 1 0 32 1 1 3 2 0
4 0x0800 3 1 1 1 32
5 0x0800 1 0 1 0 32 1 1 3 2 0
6 0x0800
7 0x0800
8 0x0800 1 0 2 1 32 1 0 2 1 4000 3
9 0x0800 1 1 5 3 32 0 2 0 1 100
10 0x88b5 1 0 3 1 32 1 0 3 1 48
11 0x0800 1 1 300 7 16 1 3 1 4 32
12 0x0800 2 0  301 16
13 0x0800 1 0 200 9 8 1 0 2 5 10
14 0x0800 3 1 199 201 8
15 0x0800 1 0 10 1 32 1 0 2 1 3000
16 0x0800 1 0 11 1 32 1
17 0x0800 1 0 12 1 32 1
18 0x0800 4 0 13 1 32
19 0x0800 5 1 40 17 32
20 0x0800 5 0 17 40 32
EOF
sed -i 's/ *$//' "$WORK/fields"
diff -u "$WORK/expected" "$WORK/fields" || fail "decoded fields differ from the crafted frames (- expected, + decoded)"
grep -i 'warn\|error' "$WORK/tshark.err" | grep -v 'Running as' && fail "tshark complained loading $LUA"
tshark_ -r "$WORK/test.pcap" -V > "$WORK/verbose"
for want in 'Opcode: DATA (1)' 'Opcode: ACK (2)' 'Opcode: NAK (3)' 'Sequence number: 300' \
            'INI active message, PE 0 -> PE 2, handler 1, 4000 bytes' 'CRC32C mismatch' \
            'first segment' 'last segment' 'More segments follow: True' 'Opcode: PROBE (4)' \
            'RETX flag (sent before): True' 'Opcode: SYNC (5)' 'Answer to a SYNC: True' \
            "Sender's incarnation: 2" 'Answers incarnation: 2'; do
    grep -qF "$want" "$WORK/verbose" || fail "tshark -V does not show '$want'"
done
retx=$(tshark_ -r "$WORK/test.pcap" -Y ini_swp.retransmission -T fields -E separator=' ' -e frame.number \
       -e ini_swp.retransmission_of -e _ws.col.Info)
[ "$retx" = "5 3 DATA conn=0 seq=1 ack=0 [Retransmission of frame 3] [RETX] PE 1->3 h=2 len=0" ] ||
    fail "retransmissions in the crafted capture: '$retx' (want frame 5, of frame 3)"
sync=$(tshark_ -r "$WORK/test.pcap" -Y 'ini_swp.op == 5' -T fields -E separator=' ' -e frame.number -e _ws.col.Info)
[ "$sync" = "19 SYNC conn=1 seq=40 ack=17 inc=2
20 SYNC-REPLY conn=0 seq=17 ack=40 inc=1 answers=2" ] || fail "SYNC frames in the crafted capture: '$sync'"
echo "$NAME: crafted capture: 20 frames decoded as written (DATA, ACK, NAK, PROBE, SYNC and its answer; 8/16/32 bits; fragments; segments; CRC; frame 5 a retransmission of 3, with its RETX flag)"

# 2. The launcher's capture, with frames dropped on receipt (after the
# capture): every retransmission an INI made is in its file.
[ -x build/bin/ini-cluster ] && [ -x build/bin/ini-ping ] || fail "build first (make)"
build/bin/ini-cluster run conf/default.cfg --capture --fault drop=0.02,side=rx,seed=5 --run-dir "$WORK/cap" \
    --timeout 120 -- build/bin/ini-ping --sizes 64,3000,65000 --count 20 > "$WORK/cap.out" 2>&1 ||
    { cat "$WORK/cap.out"; fail "ini-ping with --capture and rx drops failed"; }
for i in 0 1; do
    made=$("$PY" -c 'import json, sys; t = json.load(open(sys.argv[1]))["transport"]; print(t["retx_timer"] + t["retx_nak"])' \
           "$WORK/cap/ini$i.counters.json")
    marked=$(tshark_ -r "$WORK/cap/ini$i.pcapng" -Y 'ini_swp.retransmission && frame.packet_flags_direction == 2' | wc -l)
    [ "$made" -gt 0 ] && [ "$marked" = "$made" ] ||
        fail "INI $i: $marked outbound frames marked as retransmissions, the counters say $made"
    acks=$(tshark_ -r "$WORK/cap/ini$i.pcapng" -Y 'ini_swp.op == 2' | wc -l)
    [ "$acks" -gt 0 ] && ! tshark_ -r "$WORK/cap/ini$i.pcapng" -Y 'ini_swp.op == 2' | grep -q 'seq=' ||
        fail "INI $i: ACK frames show a seq"
    plain=$(tshark -r "$WORK/cap/ini$i.pcapng" -d udp.port==7400,data 2> /dev/null)
    quic=$(grep -c 'QUIC' <<< "$plain")
    malformed=$(grep -c 'Malformed' <<< "$plain")
    [ "$quic" = 0 ] && [ "$malformed" = 0 ] ||
        fail "INI $i without the script, -d udp.port==7400,data: $quic QUIC and $malformed malformed frames"
    echo "$NAME: launcher's capture, INI $i: $marked retransmissions marked, as its counters say; $acks ACKs by their ack; without the script -d udp.port==7400,data: no QUIC, nothing malformed"
done

# 3. Sending-side faults: the dropped originals are recorded.
build/bin/ini-cluster run conf/default.cfg --capture --fault drop=0.02,seed=5 --run-dir "$WORK/txf" \
    --timeout 120 -- build/bin/ini-ping --sizes 64,3000,65000 --count 20 > "$WORK/txf.out" 2>&1 ||
    { cat "$WORK/txf.out"; fail "ini-ping with --capture and tx drops failed"; }
for i in 0 1; do
    read -r made dropped < <("$PY" -c 'import json, sys; j = json.load(open(sys.argv[1])); t = j["transport"]
print(t["retx_timer"] + t["retx_nak"], j["faults"]["dropped"])' "$WORK/txf/ini$i.counters.json")
    f=$WORK/txf/ini$i.pcapng
    marked=$(tshark_ -r "$f" -Y 'ini_swp.retransmission && frame.packet_flags_direction == 2' | wc -l)
    shown=$(tshark_ -r "$f" -Y 'frame.comment contains "dropped by fault injection"' | wc -l)
    flagged=$(tshark_ -r "$f" -Y 'ini_swp.fault_dropped' | wc -l)
    [ "$made" -gt 0 ] && [ "$marked" = "$made" ] ||
        fail "INI $i, tx faults: $marked outbound frames marked as retransmissions, the counters say $made"
    [ "$dropped" -gt 0 ] && [ "$shown" = "$dropped" ] && [ "$flagged" -gt 0 ] && [ "$flagged" -le "$dropped" ] ||
        fail "INI $i, tx faults: $shown frames with the drop comment ($flagged INI ones), the injector dropped $dropped"
    echo "$NAME: tx faults, INI $i: $dropped dropped frames recorded with their comment ($flagged INI frames, the rest ARP/fragments); $marked retransmissions marked, as its counters say"
done

# 4. A snapped capture: the CRC of a truncated frame is not checked.
build/bin/ini-cluster run conf/default.cfg --capture --capture-snap 128 --run-dir "$WORK/snap" --timeout 120 -- \
    build/bin/ini-ping --sizes 0,64,3000 --count 20 > "$WORK/snap.out" 2>&1 ||
    { cat "$WORK/snap.out"; fail "ini-ping with --capture-snap 128 failed"; }
tshark_ -r "$WORK/snap/ini0.pcapng" -Y 'ini_swp.op == 1' -T fields -e _ws.col.Info > "$WORK/snap.info" ||
    fail "tshark failed on the snapped capture"
snapped() { tshark_ -r "$WORK/snap/ini0.pcapng" -Y "$1" | wc -l; }
bad=$(grep -c 'BAD CRC' "$WORK/snap.info")
wrong=$(snapped 'ini_swp.crc_ok == 0')
unchecked=$(grep -c 'CRC unchecked: frame truncated' "$WORK/snap.info")
unchecked_field=$(snapped 'ini_swp.crc_unchecked')
whole=$(snapped 'ini_swp.crc_ok == 1')
data=$(wc -l < "$WORK/snap.info")
# 2 PEs x 2 clusters x 20 requests x 3 sizes, echoed: 480 DATA frames at
# least in all, a third of them empty messages (whole frames).
[ "$bad" = 0 ] && [ "$wrong" = 0 ] && [ "$unchecked" = "$unchecked_field" ] && [ "$unchecked" -ge 320 ] &&
    [ "$whole" -ge 80 ] && [ "$((unchecked + whole))" = "$data" ] ||
    fail "--capture-snap 128: $bad [BAD CRC] ($wrong crc_ok false), $unchecked unchecked ($unchecked_field by field), $whole correct, of $data DATA frames"
echo "$NAME: --capture-snap 128: no BAD CRC; $unchecked truncated DATA frames unchecked, $whole whole ones correct"

# 5. Installed: where tshark loads it, no option needed.
make --no-print-directory install DESTDIR="$WORK/root" PREFIX=/usr/local > "$WORK/install.log" 2>&1 ||
    { cat "$WORK/install.log"; fail "make install failed"; }
global=$(tshark -G folders 2> /dev/null | awk -F'\t' '/^Global Lua Plugins:/ { print $2 }')
[ -n "$global" ] && [ -f "$WORK/root$global/ini.lua" ] ||
    fail "make install did not put ini.lua in tshark's Lua plugin folder '$global'"
mkdir -p "$WORK/home/.local/lib/wireshark"
ln -s "$WORK/root$global" "$WORK/home/.local/lib/wireshark/plugins"
HOME=$WORK/home tshark -r "$WORK/cap/ini0.pcapng" > "$WORK/installed.txt" 2> /dev/null ||
    fail "tshark failed with the installed plugin"
quic=$(grep -c 'QUIC' "$WORK/installed.txt")
malformed=$(grep -c 'Malformed' "$WORK/installed.txt")
udp=$(tshark -r "$WORK/cap/ini0.pcapng" -Y 'udp.port == 7400 && !ip.flags.mf && ip.frag_offset == 0' 2> /dev/null | wc -l)
ini=$(HOME=$WORK/home tshark -r "$WORK/cap/ini0.pcapng" -Y ini_swp 2> /dev/null | wc -l)
[ "$quic" = 0 ] && [ "$malformed" = 0 ] && [ "$ini" -gt 0 ] && [ "$ini" -ge "$udp" ] ||
    fail "installed plugin: $quic QUIC, $malformed malformed, $ini INI frames of $udp whole UDP datagrams"
make --no-print-directory uninstall DESTDIR="$WORK/root" PREFIX=/usr/local > /dev/null 2>&1
[ ! -e "$WORK/root$global/ini.lua" ] || fail "make uninstall left $global/ini.lua"
echo "$NAME: installed into $global: tshark with no option shows $ini INI frames, no QUIC, nothing malformed"

# 6. Real traffic on the af_packet LAN.
if [ "$(id -u)" -ne 0 ] || ! ip netns list > /dev/null 2>&1 || ! command -v dumpcap > /dev/null; then
    echo "$NAME: PASS (crafted capture only: real capture needs root, 'ip netns' and dumpcap)"
    exit 0
fi
[ -x build/bin/ini-cluster ] && [ -x build/bin/ini-ping ] || fail "build first (make)"
build/bin/ini-cluster run conf/af_packet.cfg --run-dir "$WORK/run" --fault drop=0.05,seed=3 --timeout 120 -- \
    build/bin/ini-ping --sizes 64,3000 --count 400 --window 4 > "$WORK/run.out" 2>&1 &
launcher=$!
lan=$(lan_of_run "$launcher" 200)
[ -n "$lan" ] || { wait "$launcher"; cat "$WORK/run.out"; fail "no LAN namespace of run $launcher"; }
ip netns exec "$lan" dumpcap -q -i inibr0 -w "$WORK/lan.pcapng" -a duration:60 > "$WORK/dumpcap.out" 2>&1 &
dumpcap_pid=$!
wait "$launcher"
rc=$?
sleep 0.5
kill "$dumpcap_pid" 2> /dev/null
wait "$dumpcap_pid" 2> /dev/null
[ "$rc" -eq 0 ] || { cat "$WORK/run.out"; fail "ini-ping over af_packet exited with $rc"; }
tshark_ -r "$WORK/lan.pcapng" -Y ini_swp -T fields -E separator='|' -e ini_swp.op -e ini_swp.crc_ok \
    -e ini_swp.crc_none -e _ws.expert.message > "$WORK/lan.fields" || fail "tshark failed on the af_packet capture"
data=$(awk -F'|' '$1 == 1' "$WORK/lan.fields" | wc -l)
acks=$(awk -F'|' '$1 == 2' "$WORK/lan.fields" | wc -l)
naks=$(awk -F'|' '$1 == 3' "$WORK/lan.fields" | wc -l)
# Under the MAC (on by default on the LAN) a DATA frame's CRC field is 0,
# not sent: the script says so (crc_none) and checks no CRC; a frame it
# took for one with a CRC, or whose CRC failed, is counted here.
no_crc=$(awk -F'|' '$1 == 1 && $3 == 1' "$WORK/lan.fields" | wc -l)
bad_crc=$(awk -F'|' '$1 == 1 && $2 != 1 && $3 != 1' "$WORK/lan.fields" | wc -l)
# Expert notes other than a retransmission's are the script's complaints.
malformed=$(grep -v 'Retransmission of frame' "$WORK/lan.fields" | awk -F'|' '$4 != ""' | wc -l)
echo "$NAME: af_packet capture: $data DATA ($no_crc without a CRC: the MAC's), $acks ACK, $naks NAK frames;" \
    "$bad_crc bad CRCs, $malformed with expert notes"
# Lower bound on DATA: 2 clusters x 2 PEs x 400 requests x 2 sizes, echoed.
[ "$data" -ge 6400 ] || fail "$data DATA frames, expected at least 6400"
[ "$acks" -gt 0 ] || fail "no ACK decoded"
[ "$naks" -gt 0 ] || fail "no NAK decoded (5% of frames were dropped)"
[ "$bad_crc" -eq 0 ] || fail "$bad_crc DATA frames with a wrong CRC32C"
[ "$no_crc" -eq "$data" ] || fail "$no_crc of $data DATA frames shown without a CRC (the MAC's layout)"
[ "$malformed" -eq 0 ] || fail "$malformed frames with expert notes: $(grep -v 'Retransmission of frame' "$WORK/lan.fields" | awk -F'|' '$4 != ""' | head -n 3)"
# The LAN carries the MAC by default (issue 49): every frame shows its tag.
tagged=$(tshark_ -r "$WORK/lan.pcapng" -Y ini_swp.mac_tag 2> /dev/null | wc -l)
[ "$tagged" -ge "$((data + acks + naks))" ] ||
    fail "$tagged frames show a MAC tag, of $((data + acks + naks)) DATA, ACK and NAK"
echo "$NAME: PASS"
