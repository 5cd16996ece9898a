#!/usr/bin/env bash
# wedge_reset: the af_xdp port's wedge recovery (ini/daemon/inid_wedge.c),
# provoked.  Three clusters on the af_packet LAN, every port af_xdp
# (network.port); two senders send 20 messages of 65,000 B each to compute
# node 0 (ini-ping --incast, one alone first).  INI_TEST_WEDGE=1000
# makes every INI stop polling its port once it has received 1,000
# frames, as a wedged port delivers nothing; only the target receives
# that many.  It does not empty the kernel's fill ring (nothing in the
# process can), so what this checks is the detection of "nothing received" and the reopening, not the
# kernel's side.  Asserts:
#   - every message verified (3 x 20), 0 errors, exit status 0: the
#     reopened port receives, and the frames lost in the reset are
#     recovered by the transport;
#   - the target's port.wedge_resets is 1 (counters file) and its summary
#     line says "port resets 1"; the senders' are 0;
#   - the target logged one "port wedged: ... reopened (reset 1" line.
# Needs root and `ip netns` (else it exits 77: skipped).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start wedge_reset build/bin/ini-cluster build/bin/ini-ping build/bin/inid
test_need_netns
build/bin/ini-cluster gen 3 1 1 --mode af_packet -o "$TMP/c.cfg" > /dev/null || { fail "gen"; test_end; }
# network.port's auto is af_packet on the LAN (segments): af_xdp, the
# driver the check is for, is asked for.
sed -i 's/port = "auto";/port = "af_xdp";/' "$TMP/c.cfg"
grep -q 'port = "af_xdp";' "$TMP/c.cfg" || { fail "network.port not set in the configuration"; test_end; }
INI_TEST_WEDGE=1000 build/bin/ini-cluster run "$TMP/c.cfg" --run-dir "$TMP/run" --timeout 120 -- \
    build/bin/ini-ping --incast --sizes 65000 --count 20 --timeout-ms 60000 > "$TMP/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "the run exited with $rc (see $TMP/out)"
grep -q '^verified 60 messages, 0 errors$' "$TMP/run/cluster0.out" ||
    fail "cluster 0: '$(grep '^verified' "$TMP/run/cluster0.out")', expected 'verified 60 messages, 0 errors'"
resets() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["port"]["wedge_resets"])' "$1" 2>&1; }
for i in 0 1 2; do
    want=$([ $i = 0 ] && echo 1 || echo 0)
    [ "$(resets "$TMP/run/ini$i.counters.json")" = "$want" ] ||
        fail "ini$i: wedge_resets $(resets "$TMP/run/ini$i.counters.json"), expected $want"
done
grep -q '^INI 0 (cluster 0): .*, port resets 1; restarts 0, resyncs [0-9]*$' "$TMP/out" || fail "INI 0's summary line does not say 'port resets 1'"
if [ "$(grep -c 'port wedged: .* reopened (reset 1, ' "$TMP/run/ini0.log" 2>/dev/null)" = 1 ]; then
    ok "60 messages checked; ini0: $(grep -o 'reopened (reset 1, .*)' "$TMP/run/ini0.log")"
else
    fail "ini0.log: no single 'port wedged ... reopened (reset 1' line"
fi
test_end
