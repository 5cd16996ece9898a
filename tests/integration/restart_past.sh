#!/usr/bin/env bash
# restart_past: a real inid killed with restart.max = 0 (no restart) stops
# the machine, and the launcher leaves nothing of it behind: its doorbell
# FIFO (RUN_DIR/iniN.wake), which the killed daemon could not remove, is
# gone, and its announcement never promises counters that do not follow.
set -u
cd "$(dirname "$0")/../.."
NAME=restart_past
fail() { echo "$NAME: FAIL: $*"; exit 1; }
[ -x build/bin/ini-cluster ] && [ -x build/bin/inid ] || fail "build first (make)"
TMP=$(mktemp -d /tmp/ini-restart-past.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
cp conf/default.cfg "$TMP/r0.cfg"
printf '\nrestart = { max = 0; };\n' >> "$TMP/r0.cfg"
DIR=$TMP/run
build/bin/ini-cluster run "$TMP/r0.cfg" --run-dir "$DIR" -- sh -c 'sleep 30' > "$TMP/out" 2>&1 &
LAUNCHER=$!
pid=
# The programs start once every daemon is ready.
for _ in $(seq 200); do [ -e "$DIR/cluster1.out" ] && break; sleep 0.1; done
pid=$(pgrep -f -- "--ini 1 --tag [0-9a-f]* --run-dir $DIR\$")
[ -n "$pid" ] || { cat "$TMP/out"; fail "no inid 1 running once the programs started"; }
[ -p "$DIR/ini1.wake" ] || fail "no doorbell FIFO $DIR/ini1.wake while inid 1 runs"
kill -KILL "$pid"
wait $LAUNCHER
rc=$?
[ "$rc" -eq 1 ] || { cat "$TMP/out"; fail "the launcher exited $rc, not 1, when inid 1 died"; }
echo "$NAME: ok: inid 1 killed, the launcher exited 1"
grep -q "inid 1 (cluster 1) exited with signal 9" "$TMP/out" || { cat "$TMP/out"; fail "the death is not named"; }
left=$(ls "$DIR" | grep '\.wake$')
[ -z "$left" ] || fail "left in the run directory: $left"
echo "$NAME: ok: no doorbell FIFO left in the run directory"
# A promise of counters must be followed by them.
if grep -q "the counters below are its last run's" "$TMP/out"; then
    grep -A1 "the counters below are its last run's" "$TMP/out" | tail -n 1 | grep -q "^ini 1 (cluster 1)\|^INI 1" ||
        fail "counters promised for ini 1 and not shown"
fi
echo "$NAME: PASS"
