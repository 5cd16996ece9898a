#!/usr/bin/env bash
# hosts_slurm: a machine across hosts placed by Slurm.  Network namespaces
# stand in for 3 hosts on a bridge, with Slurm (lib/hosts.sh on
# tools/cluster/ini-lab up 3 --slurm): each host runs `slurmd -N hI` in its
# own UTS and mount namespaces (hostname hI, its cgroups mounted there),
# the head runs munged and slurmctld.  Inside `salloc -N 3` on the head,
# `ini-cluster run` places one cluster per allocated node through srun:
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
failures=0
fail() { echo "$NAME: FAIL: $*"; failures=$((failures + 1)); }
trap hosts_teardown EXIT

# The lab, with Slurm (tools/cluster/ini-lab up 3 --slurm: munged,
# slurmctld on the head, a slurmd per host in a mount namespace with its
# cgroups; docs/deploy.md).
N=3
hosts_setup $N --slurm || { echo "$NAME: FAIL: the lab with Slurm did not come up"; exit 1; }
echo "ok:   slurmctld and $N slurmd (one per namespace host) up, $N nodes idle"

"$CLUSTER" gen 3 1 1 --hosts h0,h1,h2 --device d0 -o "$T/3h.cfg" > /dev/null
# The hosts of the file do not matter under Slurm: it places the clusters.
sed -i '/^    host   = /d' "$T/3h.cfg"
salloc_run() { # NAME [run args...] -- PROGRAM...
    local name=$1; shift
    timeout 300 "$HOSTS_LAB" --name "$HOSTS_NS" exec head \
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
# Not restarted (restart.max = 0): the machine stops and names it.  Restarts
# are tests/integration/restart.sh's (and supervise.sh's).
echo 'restart = { max = 0; window_s = 60; };' >> "$T/3h.cfg"
salloc_run kill --timeout 120 -- "$PING" --sizes 64 --count 1000000 --timeout-ms 60000 &
head_pid=$!
hosts_kill_check "$head_pid" "$T/3h.cfg" "$T/kill" "$T/kill.log" "host h[0-9]"
[ "$failures" = 0 ] && echo "ok:   kill: exit status $KILL_RC, node and inid 1 named, every node stopped, nothing left"

hosts_teardown
hosts_finish
