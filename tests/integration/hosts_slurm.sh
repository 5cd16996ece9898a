#!/usr/bin/env bash
# hosts_slurm: a machine across hosts placed by Slurm.  Network namespaces
# stand in for 3 hosts on a bridge (lib/hosts.sh); each runs `slurmd -N hI`
# in its own UTS namespace (hostname hI), the head namespace runs munged
# (key made here) and slurmctld, with a slurm.conf of the test's own.
# Inside `salloc -N 3`, `ini-cluster run` places one cluster per
# allocated node through srun:
#
#  1. ini-ping, sizes 0,1,1472,1473,3000,14800,65000: every cluster
#     verifies every message, also under --fault drop=0.1,dup=0.05,reorder=0.05;
#  2. one node's daemon killed mid-run: the launcher names the node and the
#     INI, stops every node, exits non-zero, and no process or segment of
#     the run is left.
# Needs root, network namespaces, slurm-wlm and munge (else exit 77).
set -u
cd "$(dirname "$0")/../.."
NAME=hosts_slurm
. tests/integration/lib/hosts.sh
hosts_need_root $NAME
for tool in slurmctld slurmd munged salloc srun scontrol unshare; do
    command -v $tool > /dev/null || { echo "$NAME: SKIP: $tool missing (tools/install-deps.sh installs slurm-wlm and munge)"; rm -rf "$HOSTS_TMP"; exit 77; }
done
CLUSTER=$PWD/build/bin/ini-cluster PING=$PWD/build/bin/ini-ping
T=$HOSTS_TMP
PIDS=()
MADE_ETC_NETNS=0
failures=0
fail() { echo "$NAME: FAIL: $*"; failures=$((failures + 1)); }
slurm_teardown() {
    local p
    for p in "${PIDS[@]}"; do kill "$p" 2> /dev/null; done
    for p in "${PIDS[@]}"; do wait "$p" 2> /dev/null; done
    rm -rf "/etc/netns/${HOSTS_NS}-"*
    [ "$MADE_ETC_NETNS" = 1 ] && rmdir /etc/netns 2> /dev/null
    hosts_teardown
}
trap slurm_teardown EXIT

N=3
hosts_setup $N
# Names resolve inside the namespaces only: `ip netns exec` puts
# /etc/netns/NS/hosts over /etc/hosts for what it runs.
{
    echo "127.0.0.1 localhost"
    echo "10.77.0.2 head"
    for ((i = 0; i < N; i++)); do echo "10.77.0.$((10 + i)) h$i"; done
} > "$T/hosts"
MADE_ETC_NETNS=0
[ -d /etc/netns ] || MADE_ETC_NETNS=1
for ns in head $(seq -f 'h%g' 0 $((N - 1))); do
    mkdir -p "/etc/netns/${HOSTS_NS}-$ns"
    cp "$T/hosts" "/etc/netns/${HOSTS_NS}-$ns/hosts"
done

# munge: one key, one daemon; every Slurm daemon and client reaches it
# through its socket (AuthInfo), which lives in the shared file system.
mkdir -p "$T/munge"
chmod 700 "$T/munge"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 2> /dev/null
chmod 400 "$T/munge/munge.key"
munged --force --foreground --socket="$T/munge/sock" --key-file="$T/munge/munge.key" \
    --pid-file="$T/munge/pid" --log-file="$T/munge/log" --seed-file="$T/munge/seed" > /dev/null 2>&1 &
PIDS+=($!)

mkdir -p "$T/state"
cat > "$T/slurm.conf" <<EOF
ClusterName=initest
SlurmctldHost=head(10.77.0.2)
SlurmctldPort=6817
SlurmdPort=6818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/sock
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool-%n
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd-%n.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd-%n.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/linear
SchedulerType=sched/builtin
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
NodeName=h[0-$((N - 1))] CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=h[0-$((N - 1))] Default=YES MaxTime=INFINITE State=UP
EOF
# slurmd wants cgroups even with proctrack/pgid; `ip netns exec` gives its
# command a fresh /sys without them, so each slurmd mounts v1 hierarchies
# in its own mount namespace (they vanish with it).
echo 'CgroupPlugin=cgroup/v1' > "$T/cgroup.conf"
export SLURM_CONF=$T/slurm.conf
hosts_in head unshare --uts sh -c 'hostname head; exec slurmctld -D -i' > "$T/slurmctld.out" 2>&1 &
PIDS+=($!)
for ((i = 0; i < N; i++)); do
    mkdir -p "$T/spool-h$i"
    hosts_in "h$i" unshare --uts --mount sh -c "hostname h$i && mount -t tmpfs cgroups /sys/fs/cgroup &&
        for c in freezer cpuset memory devices; do mkdir /sys/fs/cgroup/\$c && mount -t cgroup -o \$c cgroup /sys/fs/cgroup/\$c || exit 1; done &&
        exec slurmd -D -N h$i" > "$T/slurmd-h$i.out" 2>&1 &
    PIDS+=($!)
done
idle=0
for t in $(seq 1 100); do
    idle=$(hosts_in head sinfo -h -N -t idle -o '%N' 2> /dev/null | wc -l)
    [ "$idle" = $N ] && break
    sleep 0.3
done
if [ "$idle" != $N ]; then
    echo "$NAME: FAIL: Slurm did not come up ($idle of $N nodes idle)"
    tail -n 5 "$T"/slurmctld.out "$T"/slurmctld.log "$T"/slurmd-h*.out "$T"/slurmd-h*.log "$T"/munge/log 2> /dev/null
    exit 1
fi
echo "ok:   slurmctld and $N slurmd (one per namespace host) up, $N nodes idle"

"$CLUSTER" gen 3 1 1 --hosts h0,h1,h2 --device d0 -o "$T/3h.cfg" > /dev/null
# The hosts of the file do not matter under Slurm: it places the clusters.
sed -i '/^    host   = /d' "$T/3h.cfg"
salloc_run() { # NAME [run args...] -- PROGRAM...
    local name=$1; shift
    timeout 300 ip netns exec "${HOSTS_NS}-head" unshare --uts sh -c 'hostname head; exec "$@"' sh \
        salloc -N $N --quiet "$CLUSTER" run "$T/3h.cfg" --launch slurm --run-dir "$T/$name" "$@" > "$T/$name.log" 2>&1
}
SIZES=0,1,1472,1473,3000,14800,65000
for spec in "ping 20" "ping-faults 10 --fault drop=0.1,dup=0.05,reorder=0.05"; do
    set -- $spec
    name=$1 count=$2; shift 2
    salloc_run "$name" --timeout 200 "$@" -- "$PING" --sizes $SIZES --count "$count"
    rc=$?
    if [ $rc != 0 ]; then fail "$name: exit status $rc"; tail -20 "$T/$name.log"; continue; fi
    ok=1
    for c in 0 1 2; do
        line=$(grep "^\[c$c\] verified " "$T/$name.log")
        [ "$line" = "[c$c] verified $((count * 7)) messages, 0 errors" ] || { fail "$name: cluster $c: '${line:-none}'"; ok=0; }
    done
    nodes=$(grep -o 'host h[0-9] (clusters [0-9])' "$T/$name/launcher.log" | sort -u | wc -l)
    [ "$nodes" = 3 ] || { fail "$name: $nodes srun steps in launcher.log (want 3)"; ok=0; }
    [ $ok = 1 ] && echo "ok:   $name under Slurm: one cluster per node (srun), each verified $((count * 7)) messages, 0 errors"
done

# 2. kill one node's daemon
salloc_run kill --timeout 120 -- "$PING" --sizes 64 --count 1000000 --timeout-ms 60000 &
head_pid=$!
hosts_kill_check "$head_pid" "$T/3h.cfg" "$T/kill" "$T/kill.log" "host h[0-9]"
[ "$failures" = 0 ] && echo "ok:   kill: exit status $KILL_RC, node and inid 1 named, every node stopped, nothing left"

slurm_teardown
hosts_finish
