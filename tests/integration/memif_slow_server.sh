#!/usr/bin/env bash
# memif_slow_server: a memif server that accepts late must not crash.
#
# DPDK 22.11's memif server, accepting a connection whose client has
# already closed it, fails to send its hello and frees the connection
# without unregistering its interrupt callback; its interrupt thread then
# panics ("Error adding fd N epoll_ctl, Bad file descriptor") or runs the
# freed callback.  inid's memif client used to close such connections
# itself: a link not up 300 ms after its start was stopped and started
# again, and a server still in its EAL init, or descheduled on a loaded
# machine, had not accepted yet (seen as a panic or a segmentation fault of
# inid at start-up, about 1 start in 60 of the thesis's runs).  Now a
# client whose start connected waits for the handshake (ini/daemon/inid_port.c,
# MEMIF_HANDSHAKE_GRACE_MS).
#
# Made to happen every time: conf/default.cfg's two INIs through a wrapper
# (--inid) that stops INI 0, the memif server, as soon as its socket
# listens, and continues it 5 s later; INI 1, the client, starts 0.5 s
# after it, waits 3 s for the server to say its port is started (it
# cannot), then connects anyway, to a server that cannot accept for 1.5 s
# more (the old restarts, 0.3 and 0.9 s later, closed two such
# connections).  The run must deliver ini-ping's messages, and neither
# daemon may log a failed hello or a panic.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start memif_slow_server build/bin/ini-cluster build/bin/inid build/bin/ini-ping

cat > "$TMP/slow-inid" <<EOF
#!/usr/bin/env bash
real=$PWD/build/bin/inid
EOF
cat >> "$TMP/slow-inid" <<'EOF'
args=("$@") ini= dir=
while [ $# -gt 0 ]; do
    case $1 in --ini) ini=$2; shift ;; --run-dir) dir=$2; shift ;; esac
    shift
done
if [ "$ini" != 0 ]; then
    sleep 0.5
    exec "$real" "${args[@]}"
fi
"$real" "${args[@]}" &
child=$!
trap 'kill -TERM $child 2> /dev/null' TERM INT
for _ in $(seq 2500); do
    grep -q " $dir/memif/ini-0-1.sock\$" /proc/net/unix && break
    sleep 0.002
done
kill -STOP $child
echo "slow-inid: INI 0 stopped once its socket listened" >&2
sleep 5
kill -CONT $child
while :; do
    wait $child
    rc=$?
    kill -0 $child 2> /dev/null || exit $rc
done
EOF
chmod +x "$TMP/slow-inid"

rc=0
build/bin/ini-cluster run conf/default.cfg --inid "$TMP/slow-inid" --run-dir "$TMP/run" --timeout 120 -- \
    build/bin/ini-ping --count 200 > "$TMP/run.out" 2>&1 || rc=$?
# ini-ping on each cluster verifies its messages; each INI's summary
# line counts what it delivered
verified=$(grep -cE '(^|\] )verified [1-9][0-9]* messages, 0 errors$' "$TMP/run.out")
delivered=$(grep -cE '^INI [01] .*delivered [1-9][0-9]* msgs.* restarts 0' "$TMP/run.out")
if [ "$rc" = 0 ] && [ "$verified" = 2 ] && [ "$delivered" = 2 ]; then
    ok "a server that accepted late: both clusters verified their messages, both INIs delivered, no restart"
else
    fail "run: status $rc"
    tail -15 "$TMP/run.out"
fi
if grep -q "stopped once its socket listened" "$TMP/run/ini0.log" 2> /dev/null; then
    ok "INI 0 was stopped while listening, before it could accept"
else
    fail "the wrapper did not stop INI 0 (ini0.log)"
fi
for i in 0 1; do
    if grep -qE "PANIC|sendmsg fail|Segmentation|Bad file descriptor" "$TMP/run/ini$i.log" 2> /dev/null; then
        fail "ini$i.log:"
        grep -E "PANIC|sendmsg fail|Segmentation|Bad file descriptor" "$TMP/run/ini$i.log"
    else
        ok "ini$i.log: no failed hello, no panic"
    fi
done
test_end
