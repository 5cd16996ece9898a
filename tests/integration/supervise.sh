#!/usr/bin/env bash
# supervise: the launcher's supervised daemons (docs/launcher.md,
# "Supervised daemons"), with the stand-in daemon, which restarts and goes
# on (inid refuses to resume in this build: cluster_errors.sh checks that
# the machine then stops).  Each case asserts the exit status, the lines
# that say each decision with its cause, the files kept, and that nothing
# of the run is left:
#   within the bound (max 2, 2 kills): both restarted, the run ends 0,
#     ini1.log.0 and .1 kept, --resume on the restarted command lines, the
#     summary names the INI's restarts;
#   past the bound (max 2, 3 kills): the third is not restarted, the
#     machine stops (1), the INI named with its signal;
#   max = 0: no restart, the machine stops at the first kill;
#   the window (max 1 in 1 s): a restart more than 1 s after the last is
#     allowed again.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
L=build/bin/ini-cluster
FAKE="--inid build/bin/cluster-fake-inid"
test_start supervise $L build/bin/cluster-fake-inid

# config MAX WINDOW: conf/default.cfg with restart = { MAX, WINDOW }.
config() {
    local f=$TMP/restart-$1-$2.cfg
    { cat conf/default.cfg; echo "restart = { max = $1; window_s = $2; };"; } > "$f"
    echo "$f"
}

# start NAME CFG: a run whose programs wait for $TMP/NAME.stop; LAUNCHER
# is its pid, DIR its run directory, OUT its output.
start() {
    DIR=$TMP/$1 OUT=$TMP/$1.out
    $L run "$2" $FAKE --run-dir "$DIR" -- \
        sh -c "while [ ! -e $TMP/$1.stop ]; do sleep 0.1; done" > "$OUT" 2>&1 &
    LAUNCHER=$!
    for _ in $(seq 200); do [ -e "$DIR/cluster1.out" ] && break; sleep 0.1; done
}

# kill_ini1 BACK: kills INI 1's daemon, then waits until the launcher has
# said "is back" BACK times (0: waits for nothing).
kill_ini1() {
    local pid= n
    for _ in $(seq 100); do
        pid=$(pgrep -f -- "--ini 1 --tag [0-9a-f]* --run-dir $DIR\$") && break
        sleep 0.1
    done
    [ -n "$pid" ] || { fail "$DIR: no daemon of INI 1 to kill"; return 1; }
    kill -KILL $pid
    for _ in $(seq 300); do
        n=$(grep -c "inid 1 (cluster 1) is back" "$OUT")
        [ "$n" -ge "$1" ] && return 0
        sleep 0.1
    done
    fail "$DIR: INI 1 not back $1 time(s)"
}

# finish NAME: ends the programs, waits for the launcher; RC its status.
finish() {
    touch "$TMP/$1.stop"
    wait $LAUNCHER
    RC=$?
}

# expect NAME PATTERN...: each pattern (grep -E) in the run's output.
expect() {
    local name=$1 p; shift
    for p in "$@"; do
        grep -Eq -- "$p" "$OUT" || { fail "$name: no '$p' in the output"; sed 's/^/    /' "$OUT"; }
    done
}

# clean NAME: no daemon or segment of the run left.  The stand-in's own
# mailbox (/dev/shm/ini-TAG-fakeN) stays when it is killed: not the
# launcher's to know; removed here.
clean() {
    local tag
    tag=$(sed -n 's/.* --tag \([^ ]*\) .*/\1/p' "$DIR/launcher.log" | head -n 1)
    pgrep -f -- "--run-dir $DIR\$" > /dev/null && fail "$1: daemons still running"
    [ -n "$tag" ] || return 0
    rm -f /dev/shm/ini-"$tag"-fake*
    ls /dev/shm | grep -q "^ini-$tag-" && fail "$1: segments of run $tag left: $(ls /dev/shm | grep "^ini-$tag-")"
    return 0
}

# --- within the bound
start within "$(config 2 60)"
kill_ini1 1 && kill_ini1 2
finish within
[ "$RC" -eq 0 ] && ok "within: exit 0 after 2 restarts" || fail "within: exit $RC"
expect within \
    "inid 1 \(cluster 1\) exited with signal 9 \(Killed\) while the programs were running: restarting it \(restart 1, 1 of at most 2 within 60 s\); its log so far: $DIR/ini1.log.0" \
    "restarting it \(restart 2, 2 of at most 2 within 60 s\); its log so far: $DIR/ini1.log.1" \
    "^ini 1 \(cluster 1\): restarted 2 times"
for f in ini1.log ini1.log.0 ini1.log.1; do [ -s "$DIR/$f" ] || fail "within: no $f"; done
[ "$(grep -c -- '--resume --config' "$DIR/launcher.log")" -eq 2 ] \
    || fail "within: not 2 command lines with --resume in launcher.log"
[ "$(grep -c '^supervisor: .*is back' "$DIR/launcher.log")" -eq 2 ] \
    || fail "within: launcher.log does not record the 2 returns"
clean within

# --- past the bound
start past "$(config 2 60)"
kill_ini1 1 && kill_ini1 2 && kill_ini1 0
wait $LAUNCHER
RC=$?
[ "$RC" -eq 1 ] && ok "past: exit 1 at the third death" || fail "past: exit $RC"
expect past "not restarted \(restart.max reached; 2 restart\(s\) so far, at most 2 within 60 s\)" \
    "inid 1 \(cluster 1\) exited with signal 9 \(Killed\) while the programs were running; see $DIR/ini1.log"
clean past

# --- restarts off
start off "$(config 0 60)"
kill_ini1 0
wait $LAUNCHER
RC=$?
[ "$RC" -eq 1 ] && ok "off: exit 1" || fail "off: exit $RC"
expect off "inid 1 \(cluster 1\) exited with signal 9 \(Killed\) while the programs were running; see"
grep -q "restarting" "$OUT" && fail "off: a daemon was restarted with restart.max = 0"
clean off

# --- the window: one restart per second allowed
start window "$(config 1 1)"
kill_ini1 1
sleep 1.5
kill_ini1 2
finish window
[ "$RC" -eq 0 ] && ok "window: a restart allowed again after the window" || fail "window: exit $RC"
expect window "restarting it \(restart 2, 1 of at most 1 within 1 s\)"
clean window

test_end
