#!/usr/bin/env bash
# second_program: one program per cluster.  The default configuration is
# brought up (`up`); ini-ping runs on both clusters from the environment
# files; a second program started with cluster 0's environment while the
# first runs is refused at once: a non-zero exit and one line on stderr
# naming the segment and the pid and name of the program holding it; the
# first program is not disturbed (both clusters verify every message, 0
# errors).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start second_program build/bin/ini-cluster build/bin/inid build/bin/ini-ping
L=build/bin/ini-cluster
CONFIG=conf/default.cfg
RUN_DIR=$TMP/up
trap '"$L" down "$CONFIG" --run-dir "$RUN_DIR" > /dev/null 2>&1; test_cleanup' EXIT
"$L" up "$CONFIG" --run-dir "$RUN_DIR" > "$TMP/up.out" 2>&1 || { fail "up: $(tail -3 "$TMP/up.out")"; test_end; }
pids=()
for c in 0 1; do
    ( . "$RUN_DIR/cluster$c.env"; exec build/bin/ini-ping --sizes 64,1473 --count 2000 ) > "$TMP/ping$c.out" 2>&1 &
    pids+=($!)
done
seg=$(sed -n "s/.*INI_SEGMENT='\([^']*\)'.*/\1/p" "$RUN_DIR/cluster0.env")
# The second program starts once the first holds cluster 0's segment (its
# claim is a flock on the segment: /proc/locks lists it by the inode), not
# after a guessed delay: on a loaded machine the first took longer.
inode=$(stat -c %i "/dev/shm$seg")
for _ in $(seq 200); do
    grep -q ":$inode " /proc/locks && break
    sleep 0.05
done
( . "$RUN_DIR/cluster0.env"; exec build/bin/ini-ping --sizes 64 --count 10 --timeout-ms 5000 ) > "$TMP/second.out" 2> "$TMP/second.err"
rc=$?
if [ "$rc" != 0 ] && [ "$(wc -l < "$TMP/second.err")" = 1 ] &&
   grep -q "^ini-ping: segment $seg: already attached by another program, pid ${pids[0]} (ini-ping): one program per cluster" "$TMP/second.err"; then
    ok "the second program on cluster 0 is refused (status $rc): $(cat "$TMP/second.err")"
else
    fail "the second program: status $rc, stderr: $(cat "$TMP/second.err")"
fi
for c in 0 1; do
    wait "${pids[$c]}"; rc=$?
    if [ "$rc" = 0 ] && grep -q '^verified 8000 messages, 0 errors$' "$TMP/ping$c.out"; then
        ok "the first program of cluster $c: 8000 messages verified (2 PEs x 2 sizes x 2000), 0 errors"
    else
        fail "the first program of cluster $c: status $rc: $(tail -2 "$TMP/ping$c.out")"
    fi
done
test_end
