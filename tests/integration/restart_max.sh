#!/usr/bin/env bash
# restart_max: a daemon killed once more than restart.max allows (issue 46,
# point 8).  conf/default.cfg with restart = { max = 1; window_s = 60; };
# inid 1 is killed with SIGKILL, comes back, and is killed again:
#   1. under `run`: the launcher says the first restart and the return,
#      then one line "not restarted (restart.max reached; 1 restart(s) so
#      far, at most 1 within 60 s)", exits 1, and its summary says
#      "ini 1 (cluster 1): restarted 1 time (its last run wrote no
#      counters)" (a killed run writes none), never "the counters below
#      are its last run's", while INI 0's counters line is there with
#      its resync with the restarted INI 1;
#   2. under `up`: the supervisor says the same line in launcher.log and
#      stops the machine; `status` exits 1 and says each daemon and the
#      supervisor not running, and where to read why; `down` exits 0 and
#      its summary says INI 1's restart as run's does (the supervisor
#      writes each daemon's restarts into RUN_DIR/state).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
L=build/bin/ini-cluster
test_start restart_max $L build/bin/inid
{ cat conf/default.cfg; echo 'restart = { max = 1; window_s = 60; };'; } > "$TMP/max1.cfg"
CFG=$TMP/max1.cfg
REACHED="inid 1 (cluster 1) exited with signal 9 (Killed): not restarted (restart.max reached; 1 restart(s) so far, at most 1 within 60 s)"
UPDIR=
trap '[ -n "$UPDIR" ] && $L down "$CFG" --run-dir "$UPDIR" > /dev/null 2>&1; test_cleanup' EXIT

# kill_twice LOG PIDCMD: kills inid 1 (its pid from PIDCMD), waits for
# "is back" in LOG, kills the new one.
kill_twice() {
    local log=$1 pidcmd=$2 pid old
    old=$($pidcmd)
    [ -n "$old" ] || { fail "no inid 1 to kill"; return 1; }
    kill -KILL "$old"
    for _ in $(seq 300); do grep -q "inid 1 (cluster 1) is back" "$log" && break; sleep 0.1; done
    grep -q "inid 1 (cluster 1) is back, [0-9]* ms after it died" "$log" ||
        { fail "inid 1 did not come back after the first kill"; cat "$log"; return 1; }
    for _ in $(seq 100); do
        pid=$($pidcmd)
        [ -n "$pid" ] && [ "$pid" != "$old" ] && break
        sleep 0.1
    done
    kill -KILL "$pid"
}

# 1. Under run.
RUNDIR=$TMP/run
$L run "$CFG" --run-dir "$RUNDIR" -- sh -c 'sleep 60' > "$TMP/run.out" 2>&1 &
launcher=$!
for _ in $(seq 200); do [ -e "$RUNDIR/cluster1.out" ] && break; sleep 0.1; done
run_pid() { pgrep -f -- "--ini 1 --tag [0-9a-f]* --run-dir $RUNDIR\$"; }
kill_twice "$TMP/run.out" run_pid
wait $launcher
rc=$?
out=$TMP/run.out
[ $rc = 1 ] && ok "run: the launcher exited 1" || { fail "run: the launcher exited $rc, not 1"; cat "$out"; }
grep -q "restarting it (restart 1, 1 of at most 1 within 60 s)" "$out" || fail "run: the first restart not said"
[ "$(grep -cF "ini-cluster: $REACHED" "$out")" = 1 ] && ok "run: $REACHED" ||
    { fail "run: not one line '$REACHED'"; cat "$out"; }
[ "$(grep -c "^ini 1 (cluster 1): restarted 1 time (its last run wrote no counters)$" "$out")" = 1 ] &&
    ok "run: the summary says 'ini 1 (cluster 1): restarted 1 time (its last run wrote no counters)'" ||
    { fail "run: no line 'ini 1 (cluster 1): restarted 1 time (its last run wrote no counters)'"; cat "$out"; }
grep -q "the counters below are its last run's" "$out" && fail "run: counters promised that no run wrote"
grep -q "^INI 0 (cluster 0): sent .*; restarts 0, resyncs [1-9]" "$out" &&
    ok "run: INI 0's counters: $(grep -o 'restarts 0, resyncs [0-9]*' "$out")" ||
    fail "run: no counters line for INI 0 with its resync"

# 2. Under up.
UPDIR=$TMP/up
$L up "$CFG" --run-dir "$UPDIR" > "$TMP/up.out" 2>&1 || { fail "up: $(tail -3 "$TMP/up.out")"; test_end; }
field() { awk -v k="$1" -v i="${2:-}" '$1 == k && (i == "" || $2 == i) { print $NF }' "$UPDIR/state"; }
SUP=$(field supervisor)
up_pid() { field daemon 1; }
kill_twice "$UPDIR/launcher.log" up_pid
for _ in $(seq 200); do kill -0 "$SUP" 2> /dev/null || break; sleep 0.1; done
log=$UPDIR/launcher.log
[ "$(grep -cF "supervisor: $REACHED" "$log")" = 1 ] &&
    grep -q "^supervisor: inid 1 (cluster 1) not restarted: stopping every daemon" "$log" &&
    ok "up: $REACHED; the machine stopped" || { fail "up: the supervisor did not say '$REACHED'"; cat "$log"; }
st=$($L status "$CFG" --run-dir "$UPDIR"); rc=$?
[ $rc = 1 ] && echo "$st" | grep -q "^inid 1 (cluster 1) pid [0-9]*: not running$" &&
    echo "$st" | grep -q "^inid 0 (cluster 0) pid [0-9]*: not running$" &&
    echo "$st" | grep -q "^supervisor pid $SUP: not running: a daemon that dies is not restarted (why it ended: $log)$" &&
    ok "up: status exits 1: every daemon and the supervisor not running, why in launcher.log" ||
    { fail "up: status exited $rc:"; echo "$st"; }
$L down "$CFG" --run-dir "$UPDIR" > "$TMP/down.out" 2>&1 && UPDIR= || { fail "down exited $?"; cat "$TMP/down.out"; }
[ "$(grep -c "^ini 1 (cluster 1): restarted 1 time (its last run wrote no counters)$" "$TMP/down.out")" = 1 ] &&
    grep -q "^INI 0 (cluster 0): sent " "$TMP/down.out" &&
    ok "down: its summary says 'ini 1 (cluster 1): restarted 1 time (its last run wrote no counters)'" ||
    { fail "down: no line for the restarted INI 1 (the supervisor's count) or none for INI 0"; cat "$TMP/down.out"; }
test_end
