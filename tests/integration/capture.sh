#!/usr/bin/env bash
# capture: `ini-cluster run --capture` on memif makes each inid write
# RUN_DIR/ini<ID>.pcapng of what it sends and receives.  tshark reads
# every file; a 65,000-byte message shows as IPv4 fragments (the run is
# made with --segment off: IP fragments, the thesis's design); the UDP
# datagrams of port 7400 are there in both directions, as many frames
# received by one INI as the other sent.  With the Wireshark dissector of
# tools/wireshark/ini.lua, its DATA and ACK packets show sequence numbers.
set -u
cd "$(dirname "$0")/../.."
fail() { echo "capture: FAIL: $*"; exit 1; }
command -v tshark > /dev/null || { echo "capture: SKIP: tshark not installed (apt-get install tshark)"; exit 77; }
[ -x build/bin/ini-cluster ] || fail "build first (make)"
RUN_DIR=$(mktemp -d /tmp/ini-capture.XXXXXX)
trap 'rm -rf "$RUN_DIR" "$RUN_DIR.out"' EXIT
build/bin/ini-cluster run conf/default.cfg --capture --segment off --run-dir "$RUN_DIR" --timeout 120 -- \
    build/bin/ini-ping --sizes 0,100,1473,65000 --count 10 > "$RUN_DIR.out" 2>&1 ||
    { cat "$RUN_DIR.out"; fail "ini-cluster run --capture failed"; }
grep -q '^verified 80 messages, 0 errors$' "$RUN_DIR.out" || { cat "$RUN_DIR.out"; fail "ini-ping did not verify 80 messages"; }
T() { tshark -o gui.max_tree_depth:64 "$@" 2> /dev/null; }
for i in 0 1; do
    f=$RUN_DIR/ini$i.pcapng
    [ -s "$f" ] || fail "no $f"
    grep -q "captured [1-9][0-9]* frames" "$RUN_DIR/ini$i.log" || fail "ini$i.log does not say what it captured"
    n=$(T -r "$f" | wc -l)
    frags=$(T -r "$f" -Y 'ip.flags.mf == 1' | wc -l)
    udp=$(T -r "$f" -Y 'udp.port == 7400' | wc -l)
    # 10 x 65,000 bytes each way is 10 x 44 fragments with MF set in each
    # direction at the least (45 fragments at MTU 1500, the last without MF).
    [ "$frags" -ge 880 ] || fail "ini$i: $frags IPv4 fragments with MF, expected >= 880"
    [ "$udp" -ge 160 ] || fail "ini$i: $udp UDP datagrams of port 7400, expected >= 160"
    echo "capture: ini$i.pcapng: $n frames, $frags fragments with MF, $udp datagrams of port 7400"
done
# What INI 0 sent is what INI 1 received (a memif link loses nothing).
out0=$(T -r "$RUN_DIR/ini0.pcapng" -Y 'frame.packet_flags_direction == 2' | wc -l)
in1=$(T -r "$RUN_DIR/ini1.pcapng" -Y 'frame.packet_flags_direction == 1' | wc -l)
[ "$out0" -gt 0 ] && [ "$out0" = "$in1" ] || fail "INI 0 sent $out0 frames, INI 1 received $in1"
LUA=tools/wireshark/ini.lua
if [ -f "$LUA" ]; then
    dec=$(T -X lua_script:"$LUA" -r "$RUN_DIR/ini0.pcapng" -V)
    echo "$dec" | grep -Eiq 'DATA' || fail "$LUA: no DATA packet decoded"
    echo "$dec" | grep -Eiq 'ACK' || fail "$LUA: no ACK packet decoded"
    echo "$dec" | grep -Eiq 'seq' || fail "$LUA: no sequence number shown"
    echo "capture: $LUA decodes DATA and ACK with sequence numbers"
else
    echo "capture: $LUA not present: dissector not checked"
fi
echo "capture: PASS (INI 0 sent $out0 frames, INI 1 received as many)"
