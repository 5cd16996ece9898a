#!/usr/bin/env bash
# up_restart: `ini-cluster up`'s daemons are supervised (docs/launcher.md,
# "Supervised daemons"; issue 34).  conf/default.cfg (memif, no root) is
# brought up; then:
#   1. up named its supervisor, a live process called ini-sv-TAG recorded
#      in RUN_DIR/state;
#   2. inid 1 is killed with SIGKILL: the supervisor says it restarts it
#      (with the cause, in launcher.log) and that it is back; the state
#      names the new daemon, started with --resume; `status` shows every
#      daemon running and ready, the supervisor running, and the restarts
#      column 1 for INI 1, 0 for INI 0;
#   3. ini-ping then runs through the machine (both clusters, from the
#      environment files up wrote, 65,000-byte messages) and verifies every
#      message with 0 errors;
#   4. `down` exits 0 and leaves nothing: no process of the run (daemons,
#      supervisor), no segment and no state region (/dev/shm/ini-TAG-*),
#      no DPDK runtime directory, no state file;
#   5. past the bound (restart.max = 0): a killed daemon is not restarted,
#      the supervisor names it and why, stops every daemon and exits;
#      `status` says so (exit 1) and `down` still cleans everything.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
L=build/bin/ini-cluster
test_start up_restart $L build/bin/inid build/bin/ini-ping
COUNT=${1:-300}
DIR=
cleanup() {
    [ -n "$DIR" ] && $L down "$CFG" --run-dir "$DIR" > /dev/null 2>&1
    test_cleanup
}
trap cleanup EXIT

# field KEY: the value of RUN_DIR/state's line KEY (daemon lines: "daemon 1").
field() { awk -v k="$1" -v i="${2:-}" '$1 == k && (i == "" || $2 == i) { print $NF }' "$DIR/state"; }

# running PID: a live process, not a zombie (the supervisor's parent once
# up exited, init, may reap it a moment later)
running() { [ -r "/proc/$1/stat" ] && ! sed 's/.*) //' "/proc/$1/stat" | grep -q '^[ZX]'; }

# nothing_left TAG WHAT: no process, /dev/shm object, DPDK directory or state file of the run.
nothing_left() {
    local tag=$1 what=$2 left
    left=$(pgrep -f -- "--tag $tag " | tr '\n' ' ')
    [ -z "$left" ] || fail "$what: processes of run $tag left: $left"
    [ -n "$SUP" ] && running "$SUP" && fail "$what: the supervisor (pid $SUP) is still running"
    left=$(ls /dev/shm | grep "^ini-$tag-" | tr '\n' ' ')
    [ -z "$left" ] || fail "$what: left in /dev/shm: $left"
    ls -d /var/run/dpdk/ini-"$tag"-* > /dev/null 2>&1 && fail "$what: DPDK runtime directories of run $tag left"
    [ -e "$DIR/state" ] && fail "$what: the state file is left"
    return 0
}

# 1. up, and its supervisor.
CFG=conf/default.cfg
DIR=$TMP/up
$L up "$CFG" --run-dir "$DIR" > "$TMP/up.out" 2>&1 || { fail "up: $(tail -3 "$TMP/up.out")"; test_end; }
TAG=$(field tag) SUP=$(field supervisor)
if [ -n "$SUP" ] && [ "$(cat /proc/"$SUP"/comm 2> /dev/null)" = "ini-sv-$TAG" ] &&
   grep -q "^# supervisor: pid $SUP, restart = { max = 3; window_s = 60; }" "$TMP/up.out"; then
    ok "up: the supervisor, pid $SUP (ini-sv-$TAG), named in its output and the state"
else
    fail "up: no live supervisor ini-sv-$TAG (state: '$SUP')"; cat "$TMP/up.out"
fi

# 2. inid 1 killed: restarted, back, in the state and in status.
old=$(field daemon 1)
kill -KILL "$old"
for _ in $(seq 300); do grep -q "inid 1 (cluster 1) is back" "$DIR/launcher.log" && break; sleep 0.1; done
if grep -q "^supervisor: inid 1 (cluster 1) exited with signal 9 (Killed) while the machine was up: restarting it (restart 1, 1 of at most 3 within 60 s)" "$DIR/launcher.log" &&
   grep -q "^supervisor: inid 1 (cluster 1) is back, [0-9]* ms after it died" "$DIR/launcher.log"; then
    ok "$(grep -h 'is back' "$DIR/launcher.log")"
else
    fail "the supervisor did not say the restart and the return of inid 1"; cat "$DIR/launcher.log" "$DIR/supervisor.log"
fi
new=$(field daemon 1)
if [ -n "$new" ] && [ "$new" != "$old" ] && tr '\0' ' ' < /proc/"$new"/cmdline | grep -q -- "--resume .*--tag $TAG "; then
    ok "the state names the new inid 1 (pid $old, now $new, with --resume)"
else
    fail "the state's inid 1 is '$new' (was $old), not a live inid with --resume"
fi
[ -e "$DIR/ini1.log.0" ] || fail "the killed daemon's log was not kept as ini1.log.0"
st=$($L status "$CFG" --run-dir "$DIR"); rc=$?
echo "$st" | sed 's/^/    /'
[ $rc = 0 ] || fail "status exited $rc after the restart"
echo "$st" | grep -q "^supervisor pid $SUP: running$" || fail "status does not show the supervisor running"
# the restarts column (the table's 10th): 0 for INI 0, 1 for INI 1
r0=$(echo "$st" | awk '$1 == 0 && $2 == 0 { print $10 }') r1=$(echo "$st" | awk '$1 == 1 && $2 == 1 { print $10 }')
[ "$r0:$r1" = "0:1" ] && ok "status: restarts 0 for INI 0, 1 for INI 1" || fail "status: restarts '$r0' and '$r1', expected 0 and 1"
echo "$st" | grep -q '^ *INI .* restarts  *resyncs$' || fail "status: no restarts and resyncs columns"

# 3. A program through the restarted INI.
for c in 0 1; do
    ( . "$DIR/cluster$c.env"; exec build/bin/ini-ping --sizes 65000 --count "$COUNT" --timeout-ms 30000 ) > "$TMP/ping$c.out" 2>&1 &
    pings[$c]=$!
done
for c in 0 1; do
    wait "${pings[$c]}" || fail "ini-ping of cluster $c exited $?"
    got=$(grep '^verified ' "$TMP/ping$c.out" | tail -n 1)
    [ "$got" = "verified $((2 * COUNT)) messages, 0 errors" ] && ok "cluster $c after the restart: $got" ||
        { fail "cluster $c: '$got'"; tail -5 "$TMP/ping$c.out"; }
done

# 4. down cleans everything.
$L down "$CFG" --run-dir "$DIR" > "$TMP/down.out" 2>&1 || { fail "down exited $?"; cat "$TMP/down.out"; }
grep -q "^stopped 2 daemons" "$TMP/down.out" || fail "down: $(cat "$TMP/down.out")"
grep -q "^supervisor: stopped by signal 15" "$DIR/launcher.log" || fail "down did not stop the supervisor first"
sleep 0.5
nothing_left "$TAG" down && [ "$failures" = 0 ] && ok "down: nothing of run $TAG left (processes, supervisor, /dev/shm segments and state regions, /var/run/dpdk, state)"

# 5. Past the bound: restart.max = 0.
{ cat conf/default.cfg; echo 'restart = { max = 0; window_s = 60; };'; } > "$TMP/max0.cfg"
CFG=$TMP/max0.cfg DIR=$TMP/up0
$L up "$CFG" --run-dir "$DIR" > "$TMP/up0.out" 2>&1 || { fail "up (max 0): $(tail -3 "$TMP/up0.out")"; test_end; }
TAG=$(field tag) SUP=$(field supervisor)
kill -KILL "$(field daemon 1)"
for _ in $(seq 200); do running "$SUP" || break; sleep 0.1; done
running "$SUP" && fail "max 0: the supervisor still runs after the kill"
if grep -q "^supervisor: inid 1 (cluster 1) exited with signal 9 (Killed): not restarted (restarts are off (restart.max = 0)" "$DIR/launcher.log" &&
   grep -q "^supervisor: inid 1 (cluster 1) not restarted: stopping every daemon" "$DIR/launcher.log" &&
   grep -q "inid 1 (cluster 1) exited with signal 9 (Killed) while the machine was up; see" "$DIR/supervisor.log"; then
    ok "max 0: $(grep -h 'not restarted (' "$DIR/launcher.log")"
else
    fail "max 0: the supervisor did not name inid 1 and why"; cat "$DIR/launcher.log" "$DIR/supervisor.log"
fi
st=$($L status "$CFG" --run-dir "$DIR"); rc=$?
[ $rc = 1 ] && echo "$st" | grep -q "inid 0 (cluster 0) pid [0-9]*: not running" &&
    echo "$st" | grep -q "^supervisor pid $SUP: not running" && ok "max 0: status exits 1, every daemon and the supervisor not running" ||
    { fail "max 0: status exited $rc:"; echo "$st"; }
$L down "$CFG" --run-dir "$DIR" > "$TMP/down0.out" 2>&1 || { fail "down (max 0) exited $?"; cat "$TMP/down0.out"; }
sleep 0.5
f0=$failures
nothing_left "$TAG" "down (max 0)"
[ "$failures" = "$f0" ] && ok "down (max 0): nothing of run $TAG left"
DIR=
test_end
