# hosts.sh - sourced by the tests of machines across hosts (hosts_*.sh):
# network namespaces stand in for hosts on one Linux bridge.
#
#   hosts_setup N        namespaces ${HOSTS_NS}-h0..h(N-1), each with two
#                        veths on the bridge: m0 (management, 10.77.0.(10+i),
#                        what ssh uses) and d0 (the INI's device, no kernel
#                        address: af_xdp takes all its traffic), a head
#                        namespace ${HOSTS_NS}-head (10.77.0.2) and a plain
#                        Linux host ${HOSTS_NS}-peer (198.18.0.250/24 on the
#                        INIs' subnet).  The bridge lives in ${HOSTS_NS}-lan.
#   hosts_sshd           an sshd in every host namespace, with a host key
#                        and a client key made here; $HOSTS_SSH is the ssh
#                        command for `ini-cluster --ssh` (its own config
#                        file: no ~/.ssh of the user is read or written)
#   hosts_in NAME CMD... runs CMD in namespace ${HOSTS_NS}-NAME
#   hosts_teardown       stops what hosts_sshd started and deletes the
#                        namespaces and the temporary directory
#   hosts_finish         the end of a test, after its teardown: no namespace
#                        of the test left, the verdict line ($NAME, the
#                        count in $failures, the test's fail()), its status
#
# Callers: hosts_need_root first (exits 77 with the reason when the machine
# cannot), then `trap hosts_teardown EXIT`.

HOSTS_NS=ihs$$
HOSTS_TMP=$(mktemp -d /tmp/ini-hosts.XXXXXX)
HOSTS_N=0
HOSTS_SSHD_PIDS=()
HOSTS_MADE_RUN_SSHD=0

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

# hosts_link NS IFNAME [ADDR/LEN]: a veth from namespace NS to the bridge.
hosts_link() {
    local ns=$1 ifname=$2 addr=${3-} peer="v$((HOSTS_LINKS++))$$"
    peer=${peer:0:15}
    ip link add "$ifname" netns "${HOSTS_NS}-$ns" type veth peer name "$peer" netns "${HOSTS_NS}-lan"
    ip -n "${HOSTS_NS}-lan" link set "$peer" master br0 up
    ip -n "${HOSTS_NS}-$ns" link set "$ifname" up
    # No IPv6 chatter: every frame on the LAN is the test's.
    ip netns exec "${HOSTS_NS}-$ns" sh -c "echo 1 > /proc/sys/net/ipv6/conf/$ifname/disable_ipv6" 2> /dev/null
    [ -n "$addr" ] && ip -n "${HOSTS_NS}-$ns" addr add "$addr" dev "$ifname"
    return 0
}

hosts_setup() {
    HOSTS_N=$1 HOSTS_LINKS=0
    ip netns add "${HOSTS_NS}-lan"
    ip -n "${HOSTS_NS}-lan" link add br0 type bridge mcast_snooping 0
    ip netns exec "${HOSTS_NS}-lan" sh -c 'echo 1 > /proc/sys/net/ipv6/conf/br0/disable_ipv6' 2> /dev/null
    ip -n "${HOSTS_NS}-lan" link set br0 up
    local i
    for ((i = 0; i < HOSTS_N; i++)); do
        ip netns add "${HOSTS_NS}-h$i"
        ip -n "${HOSTS_NS}-h$i" link set lo up
        hosts_link "h$i" m0 "10.77.0.$((10 + i))/24"
        hosts_link "h$i" d0
        # d0 is the INI's alone: the kernel must not answer ARP for its
        # management address there (the answer would send ssh to the INI).
        ip -n "${HOSTS_NS}-h$i" link set d0 arp off
        ip netns exec "${HOSTS_NS}-h$i" sh -c 'echo 1 > /proc/sys/net/ipv4/conf/all/arp_ignore'
    done
    ip netns add "${HOSTS_NS}-head"
    ip -n "${HOSTS_NS}-head" link set lo up
    hosts_link head m0 10.77.0.2/24
    ip netns add "${HOSTS_NS}-peer"
    ip -n "${HOSTS_NS}-peer" link set lo up
    hosts_link peer p0 198.18.0.250/24
}

hosts_sshd() {
    ssh-keygen -q -t ed25519 -N '' -f "$HOSTS_TMP/host_key" > /dev/null
    ssh-keygen -q -t ed25519 -N '' -f "$HOSTS_TMP/client_key" > /dev/null
    cp "$HOSTS_TMP/client_key.pub" "$HOSTS_TMP/authorized_keys"
    chmod 600 "$HOSTS_TMP/authorized_keys"
    # sshd wants its privilege-separation directory.
    if [ ! -d /run/sshd ]; then mkdir -p /run/sshd && HOSTS_MADE_RUN_SSHD=1; fi
    : > "$HOSTS_TMP/ssh_config"
    local i sshd
    sshd=$(command -v sshd || echo /usr/sbin/sshd)
    for ((i = 0; i < HOSTS_N; i++)); do
        cat > "$HOSTS_TMP/sshd_h$i.conf" <<EOF
ListenAddress 10.77.0.$((10 + i))
Port 22
HostKey $HOSTS_TMP/host_key
AuthorizedKeysFile $HOSTS_TMP/authorized_keys
PidFile $HOSTS_TMP/sshd_h$i.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
AcceptEnv none
PrintMotd no
EOF
        hosts_in "h$i" "$sshd" -f "$HOSTS_TMP/sshd_h$i.conf" -E "$HOSTS_TMP/sshd_h$i.log" || return 1
        cat >> "$HOSTS_TMP/ssh_config" <<EOF
Host h$i
    HostName 10.77.0.$((10 + i))
EOF
    done
    cat >> "$HOSTS_TMP/ssh_config" <<EOF
Host *
    User root
    IdentityFile $HOSTS_TMP/client_key
    IdentitiesOnly yes
    UserKnownHostsFile $HOSTS_TMP/known_hosts
    StrictHostKeyChecking accept-new
    BatchMode yes
    LogLevel ERROR
    ConnectTimeout 10
EOF
    HOSTS_SSH="ssh -F $HOSTS_TMP/ssh_config"
    # Wait until every sshd answers.
    for ((i = 0; i < HOSTS_N; i++)); do
        local t
        for t in $(seq 1 50); do
            hosts_in head $HOSTS_SSH "h$i" true 2> /dev/null && break
            sleep 0.1
        done
        hosts_in head $HOSTS_SSH "h$i" true || { echo "sshd of h$i does not answer"; return 1; }
    done
}

hosts_teardown() {
    local f
    for f in "$HOSTS_TMP"/sshd_h*.pid; do
        [ -f "$f" ] && kill "$(cat "$f")" 2> /dev/null
    done
    local ns
    for ns in $(ip netns list 2> /dev/null | awk '{print $1}' | grep "^${HOSTS_NS}-"); do
        ip netns pids "$ns" 2> /dev/null | xargs -r kill -9 2> /dev/null
        ip netns del "$ns" 2> /dev/null
    done
    [ "$HOSTS_MADE_RUN_SSHD" = 1 ] && rmdir /run/sshd 2> /dev/null
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
    local head_pid=$1 cfg=$2 dir=$3 log=$4 who=$5 inid_pid= t left tag
    for t in $(seq 1 300); do
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
