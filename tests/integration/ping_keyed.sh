#!/usr/bin/env bash
# ping_keyed: conf/default.cfg with security.key_file set (every transport
# datagram carries a MAC, docs/transport.md "Strangers refused"): ini-ping
# verifies every size with 0 errors, no frame fails its MAC, and a key
# file others can read is refused at validation with its one-line error.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/ping.sh
work=$(mktemp -d /tmp/ini-ping-keyed.XXXXXX)
trap 'rm -rf "$work"' EXIT
head -c 32 /dev/urandom > "$work/ini.key"
chmod 600 "$work/ini.key"
sed 's/^version = 1;/version = 1;\nsecurity = { key_file = "ini.key"; };/' conf/default.cfg > "$work/keyed.cfg"
COUNT=50
ping_run ping_keyed "$work/keyed.cfg" 0,1,100,1472,1473,9000,65000 $COUNT --timeout 300 --
for i in 0 1; do
    python3 - "$RUN_DIR/ini$i.counters.json" <<'PY' || ping_fail "ini$i: counters"
import json, sys
t = json.load(open(sys.argv[1]))["transport"]
assert t["mac_fail"] == 0, t["mac_fail"]
assert t["msgs_delivered"] > 0 and t["crc_errors"] == 0, t
PY
done
ping_cleanup

# Refused before anything starts: a key others can read, a short key.
chmod 644 "$work/ini.key"
out=$(build/bin/ini-cluster run "$work/keyed.cfg" -- true 2>&1); rc=$?
[ "$rc" = 2 ] && grep -q "keyed.cfg:[0-9]*: security.key_file: .*readable or writable by others" <<<"$out" ||
    ping_fail "world-readable key: rc $rc, '$out'"
chmod 600 "$work/ini.key"
head -c 16 /dev/urandom > "$work/ini.key"
out=$(build/bin/ini-cluster run "$work/keyed.cfg" -- true 2>&1); rc=$?
[ "$rc" = 2 ] && grep -q "security.key_file: .*holds 16 bytes" <<<"$out" || ping_fail "short key: rc $rc, '$out'"
echo "ping_keyed: PASS (MAC on: 0 errors, 0 MAC failures; bad key files refused)"
