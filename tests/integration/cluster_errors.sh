#!/usr/bin/env bash
# cluster_errors: the launcher's failure paths, each asserted on its exit
# status and message, and on leaving nothing behind (segments, processes):
#   bad or missing config -> 2 and one line naming the file; bad flags -> 2;
#   a missing program -> 2; an existing non-empty --run-dir -> 2;
#   a program that fails -> its status; one killed by a signal -> 128 + sig;
#   a daemon that fails before READY -> 1, naming it, with its log's tail;
#   a daemon killed mid-run (restart.max = 0) -> non-zero, naming the
#   daemon and the signal;
#   --timeout -> 124; SIGINT to the launcher -> 130 and a clean stop.
# What only concerns the launcher runs with build/bin/cluster-fake-inid (it
# marks itself READY at once, and fails on request: FAKE_INID_* variables),
# so that these checks do not depend on the real daemon's health; the
# daemon killed mid-run is the real inid, serving a real ini-ping.
set -u
cd "$(dirname "$0")/../.."
CONFIG=conf/default.cfg
. tests/integration/lib/common.sh
L=build/bin/ini-cluster
FAKE="--inid build/bin/cluster-fake-inid"
test_start cluster_errors $L build/bin/inid build/bin/cluster-fake-inid build/bin/ini-ping

# expect_exit NAME STATUS PATTERN -- COMMAND...: runs COMMAND, checks its
# exit status and that its output matches PATTERN (grep -E).
expect_exit() {
    local name=$1 want=$2 pattern=$3; shift 4
    "$@" > "$TMP/$name.out" 2>&1
    local rc=$?
    if [ "$rc" -ne "$want" ]; then
        fail "$name: exit $rc, expected $want"; sed 's/^/    /' "$TMP/$name.out"; return 1
    fi
    if ! grep -Eq -- "$pattern" "$TMP/$name.out"; then
        fail "$name: output does not match '$pattern'"; sed 's/^/    /' "$TMP/$name.out"; return 1
    fi
    ok "$name (exit $rc)"
}

# No segment or daemon of the run in DIR may survive it.
expect_clean() {
    local name=$1 dir=$2 tag
    tag=$(sed -n 's/.* --tag \([^ ]*\) .*/\1/p' "$dir/launcher.log" 2>/dev/null | head -n 1)
    if [ -n "$tag" ] && ls /dev/shm 2>/dev/null | grep -q "^ini-$tag-"; then
        fail "$name: segments of run $tag left in /dev/shm"
    fi
    if pgrep -f -- "--run-dir $dir\$" > /dev/null; then
        fail "$name: daemons of $dir still running"
    fi
    # A daemon killed or crashed cannot remove its DPDK runtime directory;
    # the launcher does.
    if [ -n "$tag" ] && ls -d /var/run/dpdk/ini-"$tag"-* > /dev/null 2>&1; then
        fail "$name: DPDK runtime directories of run $tag left: $(ls -d /var/run/dpdk/ini-"$tag"-* | tr '\n' ' ')"
    fi
}

# --- bad input: exit 2, one line, nothing started
printf 'version = 1;\nclusters = ( { id = 0; pes = [0 }\n' > "$TMP/bad.cfg"
if expect_exit bad_config 2 "^ini-cluster: $TMP/bad.cfg:[0-9]+: " -- $L run "$TMP/bad.cfg" -- true; then
    [ "$(wc -l < "$TMP/bad_config.out")" -eq 1 ] || fail "bad_config: not exactly one line"
fi
if expect_exit missing_config 2 "$TMP/none.cfg" -- $L run "$TMP/none.cfg" -- true; then
    [ "$(wc -l < "$TMP/missing_config.out")" -eq 1 ] || fail "missing_config: not exactly one line"
fi
expect_exit unknown_flag 2 "^ini-cluster: run: --frobnicate: unknown option\$" -- $L run $CONFIG --frobnicate -- true
expect_exit missing_value 2 "^ini-cluster: run: --run-dir: needs a value\$" -- $L run $CONFIG --run-dir -- true
expect_exit bad_idle 2 "--idle" -- $L run $CONFIG --idle sometimes -- true
expect_exit bad_policy 2 "--policy" -- $L run $CONFIG --policy random -- true
expect_exit bad_timeout 2 "--timeout" -- $L run $CONFIG --timeout -5 -- true
expect_exit no_program 2 "no program" -- $L run $CONFIG
expect_exit missing_program 2 "no such program" -- $L run $CONFIG -- "$TMP/no-such-program"
expect_exit unknown_command 2 "^ini-cluster: launch: unknown command" -- $L launch $CONFIG
expect_exit bad_gen 2 "PES_PER_CLUSTER" -- $L gen 2 zero 1
mkdir -p "$TMP/used" && touch "$TMP/used/something"
expect_exit run_dir_reuse 2 "run directory $TMP/used exists and is not empty" -- \
    $L run $CONFIG --run-dir "$TMP/used" -- true

# --- a program's failure is the run's status
expect_exit program_fails 7 "cluster 1 exited with status 7" -- \
    $L run $CONFIG $FAKE --run-dir "$TMP/prog" -- sh -c '[ "$INI_CLUSTER" = 1 ] && exit 7; exit 0'
expect_clean program_fails "$TMP/prog"
expect_exit program_killed 137 "signal 9" -- \
    $L run $CONFIG $FAKE --run-dir "$TMP/killed" -- sh -c '[ "$INI_CLUSTER" = 0 ] && kill -9 $$; exit 0'
expect_clean program_killed "$TMP/killed"
grep -q "^run directory: $TMP/prog\$" "$TMP/program_fails.out" || fail "program_fails: no 'run directory' line"
for f in cluster0.out cluster1.err ini0.log ini1.log ini0.counters.json launcher.log; do
    [ -e "$TMP/prog/$f" ] || fail "program_fails: no $f in the run directory"
done

# --- daemons failing
FAKE_INID_FAIL=1 expect_exit daemon_not_ready 1 \
    "inid 1 \(cluster 1\) exited with status 3 before ready; see $TMP/notready/ini1.log" -- \
    $L run $CONFIG $FAKE --run-dir "$TMP/notready" -- true
grep -q "failing before ready" "$TMP/daemon_not_ready.out" || fail "daemon_not_ready: log tail not shown"
expect_clean daemon_not_ready "$TMP/notready"

# The real inid, killed while ini-ping runs (long enough to be caught), not
# restarted (restart.max = 0: restarts are restart.sh's and supervise.sh's).
{ cat $CONFIG; echo 'restart = { max = 0; window_s = 60; };'; } > "$TMP/once.cfg"
$L run "$TMP/once.cfg" --run-dir "$TMP/kill" -- build/bin/ini-ping --count 1000000 --sizes 64 \
    > "$TMP/daemon_killed.out" 2>&1 &
launcher=$!
pid=
for _ in $(seq 100); do
    [ -s "$TMP/kill/cluster0.out" ] && pid=$(pgrep -f -- "--ini 1 --tag [0-9a-f]* --run-dir $TMP/kill\$") && break
    sleep 0.1
done
if [ -z "$pid" ]; then
    fail "daemon_killed: inid 1 never ran"; kill -TERM $launcher
else
    kill -KILL "$pid"
fi
wait $launcher
rc=$?
if [ "$rc" -ne 0 ] && grep -q "inid 1 (cluster 1) exited with signal 9 (Killed) while the programs were running" \
        "$TMP/daemon_killed.out"; then
    ok "daemon_killed (exit $rc)"
else
    fail "daemon_killed: exit $rc"; sed 's/^/    /' "$TMP/daemon_killed.out"
fi
grep -q "restarting" "$TMP/daemon_killed.out" && fail "daemon_killed: restarted with restart.max = 0"
expect_clean daemon_killed "$TMP/kill"

# --- time limit and interruption
expect_exit timeout 124 "still running after 1 s" -- \
    $L run $CONFIG $FAKE --run-dir "$TMP/timeout" --timeout 1 -- sleep 60
expect_clean timeout "$TMP/timeout"
$L run $CONFIG $FAKE --run-dir "$TMP/int" -- sleep 60 > "$TMP/interrupt.out" 2>&1 &
launcher=$!
for _ in $(seq 100); do [ -e "$TMP/int/cluster1.out" ] && break; sleep 0.1; done
sleep 0.5
kill -INT $launcher
wait $launcher
rc=$?
if [ "$rc" -eq 130 ] && grep -q "interrupted by SIGINT" "$TMP/interrupt.out"; then
    ok "interrupt (exit 130)"
else
    fail "interrupt: exit $rc"; sed 's/^/    /' "$TMP/interrupt.out"
fi
expect_clean interrupt "$TMP/int"
pgrep -f "^sleep 60\$" > /dev/null && fail "interrupt: the programs survived"

test_end
