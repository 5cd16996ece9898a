#!/usr/bin/env bash
# hosts_ssh: a machine across hosts, launched over OpenSSH.  Network
# namespaces stand in for 3 hosts on a Linux bridge (lib/hosts.sh), each
# with its own sshd and keys made here; each host runs one cluster, its INI
# on the host's interface d0 (af_xdp), and the launcher runs in a fourth
# namespace, the head.
#
#  1. ini-ping, sizes 0,1,1472,1473,3000,14800,65000: every cluster
#     verifies every message (PEs x count x sizes, 0 errors);
#  2. the same under --fault drop=0.1,dup=0.05,reorder=0.05;
#  3. Water on MGS across 2 hosts prints what the plain-threads run prints
#     (deterministic mode, full precision; as tests/integration/mgs_water.sh);
#  4. one host's daemon killed mid-run: the launcher names the host and the
#     INI, stops every host, exits non-zero, and no process or segment of
#     the run is left (the test then removes its namespaces).
# Needs root and network namespaces (else exit 77).
set -u
cd "$(dirname "$0")/../.."
NAME=hosts_ssh
. tests/integration/lib/hosts.sh
hosts_need_root $NAME
for b in build/bin/ini-cluster build/bin/inid build/bin/ini-ping build/bin/water; do
    [ -x "$b" ] || { echo "$NAME: FAIL: $b not built (run make)"; exit 1; }
done
command -v sshd > /dev/null || [ -x /usr/sbin/sshd ] || { echo "$NAME: SKIP: no sshd (tools/install-deps.sh installs openssh-server)"; exit 77; }
trap hosts_teardown EXIT
CLUSTER=$PWD/build/bin/ini-cluster PING=$PWD/build/bin/ini-ping WATER=$PWD/build/bin/water
failures=0
fail() { echo "$NAME: FAIL: $*"; failures=$((failures + 1)); }

hosts_setup 3
hosts_sshd || { echo "$NAME: FAIL: sshd setup"; exit 1; }
T=$HOSTS_TMP
"$CLUSTER" gen 3 1 1 --hosts h0,h1,h2 --device d0 -o "$T/3h.cfg" > /dev/null || { echo "$NAME: FAIL: gen"; exit 1; }

# check_ping LOG COUNT SIZES: every cluster verified PEs x COUNT x SIZES, 0 errors
check_ping() {
    local log=$1 want=$(( $2 * $3 )) c line
    for c in 0 1 2; do
        line=$(grep "^\[c$c\] verified " "$log")
        [ "$line" = "[c$c] verified $want messages, 0 errors" ] || { fail "$4: cluster $c: '${line:-no verified line}' (want $want, 0 errors)"; return 1; }
    done
    echo "ok:   $4: 3 clusters on 3 hosts, each verified $want messages, 0 errors"
}

SIZES=0,1,1472,1473,3000,14800,65000
run_ping() { # NAME COUNT [launcher args]
    local name=$1 count=$2; shift 2
    timeout 300 ip netns exec "${HOSTS_NS}-head" "$CLUSTER" run "$T/3h.cfg" --ssh "$HOSTS_SSH" --run-dir "$T/$name" \
        --timeout 200 "$@" -- "$PING" --sizes $SIZES --count "$count" > "$T/$name.log" 2>&1
    local rc=$?
    [ $rc = 0 ] || { fail "$name: launcher exit status $rc"; tail -20 "$T/$name.log"; return 1; }
    check_ping "$T/$name.log" "$count" 7 "$name"
}
run_ping ping 20
run_ping ping-faults 10 --fault drop=0.1,dup=0.05,reorder=0.05
# the summary counts retransmissions by cause: "retransmitted T (timer) + N (NAK)"
grep -Eq '^INI 1 \(cluster 1\): .*retransmitted ([1-9][0-9]* \(timer\)|[0-9]+ \(timer\) \+ [1-9])' "$T/ping-faults.log" ||
    fail "ping-faults: no retransmission counted by INI 1 under 10% drop"

# 3. Water on MGS, 2 hosts x 2 compute nodes, against 4 plain threads.
RANDOM_IN=${WATER_RANDOM:-$PWD/tools/apps/water/data/random.in}
if [ -r "$RANDOM_IN" ]; then
    printf '  1.5e-16   512  3   6\n -1      3000     1  0\n4 6.212752\n' > "$T/water.in"
    no_times() { grep -vE '^(COMPUTESTART|COMPUTEEND|COMPUTETIME|Measured Time|Intramolecular time|Intermolecular time|Other time)'; }
    "$WATER" --random "$RANDOM_IN" --deterministic --full < "$T/water.in" | no_times > "$T/water.plain"
    "$CLUSTER" gen 2 2 1 --hosts h0,h1 --device d0 -o "$T/2h.cfg" > /dev/null
    if timeout 600 ip netns exec "${HOSTS_NS}-head" "$CLUSTER" run "$T/2h.cfg" --ssh "$HOSTS_SSH" --run-dir "$T/water" \
        --timeout 500 -- "$WATER" --mgs --random "$RANDOM_IN" --deterministic --full --input "$T/water.in" \
        > "$T/water.log" 2>&1; then
        no_times < "$T/water/cluster0.out" > "$T/water.mgs"
        if grep -q '^FULL 3 ' "$T/water.plain" && cmp -s "$T/water.plain" "$T/water.mgs"; then
            echo "ok:   water --mgs on 2 hosts: $(grep -c '^FULL' "$T/water.mgs") FULL lines, output identical to 4 plain threads"
        else
            fail "water --mgs on 2 hosts differs from plain threads"; diff "$T/water.plain" "$T/water.mgs" | head -10
        fi
    else
        fail "water --mgs on 2 hosts: exit status $?"; tail -15 "$T/water.log"
    fi
else
    echo "note: $RANDOM_IN missing: Water part skipped"
fi

# 4. Kill host h1's daemon mid-run.
# Not restarted (restart.max = 0): the machine stops and names it.  Restarts
# are tests/integration/restart.sh's (and supervise.sh's).
echo 'restart = { max = 0; window_s = 60; };' >> "$T/3h.cfg"
ip netns exec "${HOSTS_NS}-head" "$CLUSTER" run "$T/3h.cfg" --ssh "$HOSTS_SSH" --run-dir "$T/kill" --timeout 120 \
    -- "$PING" --sizes 64 --count 1000000 --timeout-ms 60000 > "$T/kill.log" 2>&1 &
head_pid=$!
hosts_kill_check "$head_pid" "$T/3h.cfg" "$T/kill" "$T/kill.log" "host h1"
[ "$failures" = 0 ] && echo "ok:   kill: exit status $KILL_RC, host h1 and inid 1 named, every host stopped, nothing left"

hosts_teardown
hosts_finish
