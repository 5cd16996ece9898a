#!/usr/bin/env bash
# telemetry: inid serves DPDK's telemetry socket.  With the default
# configuration `ini-cluster up` and ini-ping running in both clusters
# (from the environment files up writes), DPDK's own client dpdk-telemetry.py
# reads /ini/stats, /ini/conns, /ini/queue and /ini/util, and the message
# counters grow between two readings; `ini-cluster status` shows non-zero
# messages/s for every INI.  Then inid 1 is killed with SIGKILL: up's
# supervisor restarts it (while /ini/resources is asked every 2 ms: null
# replies until it has started, figures before and after), and `status`
# shows restarts 1 for INI 1 and 0 for INI 0, as /ini/stats does.  After `ini-cluster down` nothing of the run is
# left in /var/run/dpdk.
set -u
cd "$(dirname "$0")/../.."
fail() { echo "telemetry: FAIL: $*"; exit 1; }
command -v dpdk-telemetry.py > /dev/null ||
    { echo "telemetry: SKIP: dpdk-telemetry.py not installed (Debian package dpdk-dev)"; exit 77; }
[ -x build/bin/ini-cluster ] || fail "build first (make)"
L=build/bin/ini-cluster
CONFIG=conf/default.cfg
RUN_DIR=$(mktemp -d /tmp/ini-telemetry.XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
    $L down $CONFIG --run-dir "$RUN_DIR" > /dev/null 2>&1
    rm -rf "$RUN_DIR"
}
trap cleanup EXIT

# stderr apart: a line about another run's leftovers (cleanup) is not shell.
$L up $CONFIG --run-dir "$RUN_DIR" > "$RUN_DIR/up.out" 2> "$RUN_DIR/up.err" ||
    { cat "$RUN_DIR/up.out" "$RUN_DIR/up.err"; fail "up failed"; }
cat "$RUN_DIR/up.out"
TAG=$(awk '$1 == "tag" { print $2 }' "$RUN_DIR/state")
[ -n "$TAG" ] || fail "no tag in $RUN_DIR/state"
# up's output is a shell script: sourcing it must work.
( set -e; . "$RUN_DIR/up.out"; [ -n "$INI_SEGMENT" ] ) || fail "up's output cannot be sourced"

for c in 0 1; do
    ( . "$RUN_DIR/cluster$c.env"; exec build/bin/ini-ping --sizes 64,1000 --count 100000 ) \
        > "$RUN_DIR/ping$c.out" 2>&1 &
    pids+=($!)
done

# query INI COMMAND: the JSON reply of dpdk-telemetry.py, one line.
query() { echo "$2" | timeout 10 dpdk-telemetry.py -f "ini-$TAG-$1" 2> /dev/null | grep '^{' | head -n 1; }
# field JSON COMMAND GROUP KEY: one number of a reply.
field() {
    python3 -c 'import json,sys; r=json.loads(sys.argv[1])[sys.argv[2]]; g=sys.argv[3]
print((r[g] if g else r)[sys.argv[4]])' "$1" "$2" "$3" "$4"
}
sleep 1
st=$($L status $CONFIG --run-dir "$RUN_DIR") || { echo "$st"; fail "status exited non-zero"; }
echo "$st"
for i in 0 1; do
    rate=$(echo "$st" | awk -v i=$i '$1 == i && $2 ~ /^[0-9]+$/ { print $3 }')
    [ -n "$rate" ] && [ "${rate%.*}" -gt 0 ] || fail "status: no messages/s for INI $i"
done
for i in 0 1; do
    s1=$(query $i /ini/stats)
    [ -n "$s1" ] || fail "INI $i: no reply to /ini/stats"
    a=$(field "$s1" /ini/stats transport msgs_sent) || fail "INI $i: /ini/stats has no transport.msgs_sent: $s1"
    sleep 1
    s2=$(query $i /ini/stats)
    b=$(field "$s2" /ini/stats transport msgs_sent) || fail "INI $i: second /ini/stats unreadable"
    [ "$b" -gt "$a" ] || fail "INI $i: msgs_sent did not grow between two queries ($a, then $b)"
    echo "telemetry: INI $i: msgs_sent $a, a second later $b"
    c=$(query $i /ini/conns)
    peer=$((1 - i))
    una=$(field "$c" /ini/conns "peer$peer" snd_una) || fail "INI $i: /ini/conns has no peer$peer: $c"
    q=$(query $i /ini/queue)
    field "$q" /ini/queue "" queue > /dev/null || fail "INI $i: /ini/queue unreadable: $q"
    u=$(query $i /ini/util)
    busy=$(field "$u" /ini/util "" busy_cycles) || fail "INI $i: /ini/util unreadable: $u"
    [ "$busy" -gt 0 ] || fail "INI $i: busy_cycles is 0 while ini-ping runs"
done

for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
wait 2> /dev/null
pids=()

# Restarts in status (issue 34): inid 1 killed, back under up's supervisor,
# while /ini/resources is asked every 2 ms: the restarted daemon's socket
# answers before its stack exists, and a command read it there (a SIGSEGV,
# issue 46); now it answers null until the daemon has started.
python3 - "/var/run/dpdk/ini-$TAG-1/dpdk_telemetry.v2" "$RUN_DIR/launcher.log" "$RUN_DIR/ask.ready" \
    > "$RUN_DIR/ask.out" <<'PY' &
import socket, sys, time
nulls = figures = 0
end = time.time() + 30
while time.time() < end and "inid 1 (cluster 1) is back" not in open(sys.argv[2]).read():
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
            s.settimeout(1)
            s.connect(sys.argv[1])
            s.recv(1 << 16)
            s.send(b"/ini/resources")
            r = s.recv(1 << 20)
            nulls += r == b'{"/ini/resources":null}'
            figures += b'"mbufs_in_use"' in r
            if figures == 1:
                open(sys.argv[3], "w").close()      # the kill may come
    except OSError:
        pass
    time.sleep(0.002)
print(nulls, figures)
PY
asker=$!
for _ in $(seq 100); do [ -e "$RUN_DIR/ask.ready" ] && break; sleep 0.1; done
kill -KILL "$(awk '$1 == "daemon" && $2 == 1 { print $3 }' "$RUN_DIR/state")"
for _ in $(seq 300); do grep -q "inid 1 (cluster 1) is back" "$RUN_DIR/launcher.log" && break; sleep 0.1; done
grep -q "inid 1 (cluster 1) is back" "$RUN_DIR/launcher.log" || fail "inid 1 not restarted: $(tail -3 "$RUN_DIR/launcher.log")"
wait $asker
read -r nulls figures < "$RUN_DIR/ask.out"
[ "${nulls:-0}" -ge 1 ] && [ "${figures:-0}" -ge 1 ] ||
    fail "/ini/resources asked across the restart: $nulls null replies (the restarting daemon), $figures with figures"
echo "telemetry: /ini/resources across the restart: $figures replies with figures, $nulls null (before inid 1 had started)"
st=$($L status $CONFIG --run-dir "$RUN_DIR") || { echo "$st"; fail "status exited non-zero after inid 1 came back"; }
echo "$st"
echo "$st" | grep -q '^ *INI .* restarts  *resyncs$' || fail "status: no restarts and resyncs columns"
r0=$(echo "$st" | awk '$1 == 0 && $2 == 0 { print $10 }') r1=$(echo "$st" | awk '$1 == 1 && $2 == 1 { print $10 }')
[ "$r0:$r1" = "0:1" ] || fail "status: restarts '$r0' for INI 0 and '$r1' for INI 1, expected 0 and 1"
s1=$(query 1 /ini/stats)
[ "$(field "$s1" /ini/stats "" restarts)" = 1 ] || fail "INI 1: /ini/stats restarts is not 1: $s1"
echo "telemetry: inid 1 killed and back: status shows restarts 0 and 1, /ini/stats of INI 1 restarts 1"
$L down $CONFIG --run-dir "$RUN_DIR" > /dev/null || fail "down failed"
left=$(ls -d /var/run/dpdk/ini-"$TAG"-* 2> /dev/null)
[ -z "$left" ] || fail "left in /var/run/dpdk: $left"
echo "telemetry: PASS"
