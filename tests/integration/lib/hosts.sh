# hosts.sh - sourced by the tests of machines across hosts (hosts_*.sh):
# network namespaces stand in for hosts on one Linux bridge, made by the
# lab script users follow in docs/deploy.md (tools/cluster/ini-lab), under
# a name of the test's own (HOSTS_NS):
#
#   hosts_setup N [--slurm]  ini-lab up N: namespaces ${HOSTS_NS}-h0..h(N-1),
#                        each with m0 (management, 10.77.0.(10+i), what ssh
#                        and Slurm use) and d0 (the INI's device, no kernel
#                        address) on the bridge, an sshd on each, a head
#                        namespace ${HOSTS_NS}-head (10.77.0.2) and a plain
#                        Linux host ${HOSTS_NS}-peer (198.18.0.250/24 on the
#                        INIs' subnet); with --slurm munged, slurmctld and a
#                        slurmd per host.  $HOSTS_SSH is the ssh command for
#                        `ini-cluster --ssh` (the lab's own config file)
#   hosts_sshd           kept for the callers: the lab's sshd are up already
#   hosts_in NAME CMD... runs CMD in namespace ${HOSTS_NS}-NAME
#   hosts_lab CMD...     runs `ini-lab CMD...` on the test's lab (exec head
#                        salloc ...: a Slurm client on the head)
#   hosts_teardown       ini-lab down, and the test's scratch directory
#                        HOSTS_TMP removed
#   hosts_finish         the end of a test, after its teardown: no namespace
#                        of the test left, the verdict line ($NAME, the
#                        count in $failures, the test's fail()), its status
#
# Callers: hosts_need_root first (exits 77 with the reason when the machine
# cannot), then `trap hosts_teardown EXIT`.

HOSTS_NS=ihs$$
HOSTS_TMP=$(mktemp -d /tmp/ini-hosts.XXXXXX)
HOSTS_LAB=$PWD/tools/cluster/ini-lab

hosts_need_root() {
    local name=$1
    if [ "$(id -u)" -ne 0 ]; then echo "$name: SKIP: needs root (network namespaces)"; rm -rf "$HOSTS_TMP"; exit 77; fi
    if ! ip netns list > /dev/null 2>&1; then echo "$name: SKIP: 'ip netns' is unavailable"; rm -rf "$HOSTS_TMP"; exit 77; fi
    if ! ip netns add "${HOSTS_NS}-probe" 2> /dev/null; then
        echo "$name: SKIP: cannot create network namespaces"; rm -rf "$HOSTS_TMP"; exit 77
    fi
    ip netns del "${HOSTS_NS}-probe"
}

hosts_in() { local ns=$1; shift; ip netns exec "${HOSTS_NS}-$ns" "$@"; }
hosts_lab() { "$HOSTS_LAB" --name "$HOSTS_NS" "$@"; }

hosts_setup() {
    hosts_lab up "$@" > "$HOSTS_TMP/lab-up.log" 2>&1 || { cat "$HOSTS_TMP/lab-up.log"; return 1; }
    HOSTS_SSH=$(hosts_lab ssh)
}

hosts_sshd() { [ -n "${HOSTS_SSH:-}" ]; }

hosts_teardown() {
    hosts_lab down > /dev/null 2>&1
    rm -rf "$HOSTS_TMP"
}

hosts_finish() {
    trap - EXIT
    ip netns list | grep -q "^${HOSTS_NS}-" && fail "namespaces left behind"
    [ "$failures" = 0 ] && echo "$NAME: PASS" || echo "$NAME: $failures failed"
    [ "$failures" = 0 ]
}

# hosts_kill_check LAUNCHER_PID CFG RUN_DIR LOG WHO: the daemon-kill check of
# both hosts tests.  Waits until inid 1 of CFG runs and cluster 1's program
# reports, kills inid 1 (SIGKILL), waits for the launcher, and fails unless
# it exited non-zero naming WHO ("host h1", a regex) and inid 1, and left no
# process and no shared-memory segment behind.  KILL_RC: its exit status.
hosts_kill_check() {
    local head_pid=$1 cfg=$2 dir=$3 log=$4 who=$5 inid_pid= left tag end=$((SECONDS + 30))
    # 30 s by the clock, not 300 turns: under load (load average 38 on 2
    # cores) one pgrep -f took 1.75 s, and 300 turns outlasted the run.
    while [ $SECONDS -lt $end ]; do
        inid_pid=$(pgrep -f -- "inid .*--config $cfg --ini 1 " | head -n 1)
        [ -n "$inid_pid" ] && grep -q 'echoes\|bytes' "$dir/cluster1.out" 2> /dev/null && break
        sleep 0.1
    done
    sleep 1
    [ -n "$inid_pid" ] && kill -9 "$inid_pid"
    wait "$head_pid"
    KILL_RC=$?
    [ "$KILL_RC" != 0 ] || fail "kill: launcher exit status 0 after a daemon was killed"
    grep -q "$who: inid 1 (cluster 1) exited with signal 9" "$log" \
        || { fail "kill: the launcher did not name $who and inid 1"; tail -15 "$log"; }
    sleep 1
    left=$( (pgrep -f -- "(inid|ini-cluster) .*$dir/"; pgrep -f -- "(inid|ini-cluster) .*$cfg"
             pgrep -f -- "ini-ping --sizes 64 --count 1000000") | sort -u | tr '\n' ' ')
    [ -z "$left" ] || fail "kill: processes left behind: $left"
    tag=$(sed -n 's/.* --tag \([^ ]*\) .*/\1/p' "$dir/launcher.log" | head -n 1)
    [ -n "$tag" ] && ls /dev/shm | grep -q "^ini-$tag-" && fail "kill: segments of run $tag left behind"
    return 0
}
