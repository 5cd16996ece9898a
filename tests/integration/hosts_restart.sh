#!/usr/bin/env bash
# hosts_restart: an INI that dies comes back across hosts too (issue 34;
# tests/integration/restart.sh is the same test on one host).  Network
# namespaces stand in for 2 hosts on a Linux bridge (lib/hosts.sh, as
# hosts_ssh.sh), each running one cluster with its INI on the host's d0
# (af_xdp); the launcher runs in the head namespace and starts each host's
# part over ssh.  ini-ping sends 65,000-byte messages between the clusters
# while inid 1, on host h1, is killed with SIGKILL three times at random
# points; host h1's part of the launcher restarts it each time (restart.max
# is 3 by default).  Asserted:
#   - the killed process was inid 1 in host h1's namespace;
#   - the run exits 0 and ini-ping verified every message of both clusters
#     with 0 errors (exactly once and in order: ini-ping's checks);
#   - the head showed host h1's restart lines ("host h1: inid 1 (cluster 1)
#     exited with signal 9 (Killed) ...: restarting it", "... is back") and
#     the summary "ini 1 (cluster 1): restarted 3 times";
#   - the counters: inid 1's restarts 3, inid 0's resyncs 3, no SYNC error;
#   - nothing of the run left: processes, segments and state regions in
#     /dev/shm, DPDK runtime directories, and (hosts_finish) namespaces.
# Needs root, network namespaces and sshd (else exit 77, as hosts_ssh.sh).
#
#   bash tests/integration/hosts_restart.sh [COUNT] [SEED]
#       COUNT requests per compute node (default 10000: with 3000 a run
#       once ended before the third kill, a restart taking 0.2 s); SEED
#       for the kill points (default: the time), printed either way.
set -u
cd "$(dirname "$0")/../.."
NAME=hosts_restart
. tests/integration/lib/hosts.sh
. tests/integration/lib/restart.sh
hosts_need_root $NAME
for b in build/bin/ini-cluster build/bin/inid build/bin/ini-ping; do
    [ -x "$b" ] || { echo "$NAME: FAIL: $b not built (run make)"; rm -rf "$HOSTS_TMP"; exit 1; }
done
command -v sshd > /dev/null || [ -x /usr/sbin/sshd ] ||
    { echo "$NAME: SKIP: no sshd (tools/install-deps.sh installs openssh-server)"; rm -rf "$HOSTS_TMP"; exit 77; }
trap hosts_teardown EXIT
CLUSTER=$PWD/build/bin/ini-cluster PING=$PWD/build/bin/ini-ping
failures=0
fail() { echo "$NAME: FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok:   $*"; }
COUNT=${1:-10000}
SEED=${2:-$(date +%s)}
RANDOM=$SEED

hosts_setup 2 || { echo "$NAME: FAIL: lab setup"; exit 1; }
T=$HOSTS_TMP
"$CLUSTER" gen 2 1 1 --hosts h0,h1 --device d0 -o "$T/2h.cfg" > /dev/null || { echo "$NAME: FAIL: gen"; exit 1; }
DIR=$T/run OUT=$T/run.log
echo "$NAME: 2 hosts over ssh, $COUNT requests of 65000 bytes per compute node, seed $SEED"
timeout 600 ip netns exec "${HOSTS_NS}-head" "$CLUSTER" run "$T/2h.cfg" --ssh "$HOSTS_SSH" --run-dir "$DIR" \
    --timeout 400 -- "$PING" --sizes 65000 --count "$COUNT" --timeout-ms 60000 > "$OUT" 2>&1 &
head_pid=$!

for k in 1 2 3; do
    restart_kill $k $head_pid "$DIR" "$OUT" "host h1: inid 1 (cluster 1) is back" "${HOSTS_NS}-h1" || break
done
wait $head_pid
rc=$?
[ "$rc" -eq 0 ] && ok "the run exited 0 after 3 kills" || { fail "the run exited $rc"; tail -30 "$OUT" | sed 's/^/    /'; }

for c in 0 1; do
    want="[c$c] verified $COUNT messages, 0 errors"
    got=$(grep "^\[c$c\] verified " "$OUT" | tail -n 1)
    [ "$got" = "$want" ] && ok "cluster $c: $got" || fail "cluster $c: '$got', expected '$want'"
done
n=$(grep -c '^ini-cluster: host h1: inid 1 (cluster 1) exited with signal 9 (Killed) while the programs were running: restarting it (restart [123], ' "$OUT")
[ "$n" = 3 ] && ok "the head showed host h1's 3 restart lines" || fail "$n restart lines of host h1, expected 3"
grep "is back" "$OUT" | sed 's/^/    /'
grep -q "^ini 1 (cluster 1): restarted 3 times" "$OUT" && ok "the summary: $(grep '^ini 1 (cluster 1): restarted' "$OUT")" ||
    fail "the summary does not say inid 1 restarted 3 times"
[ "$(grep -c '^supervisor: inid 1 (cluster 1) is back' "$DIR/launcher.log")" = 3 ] ||
    fail "launcher.log does not hold host h1's 3 returns"

restart_counters "$DIR" 3 && ok "counters: inid 1 restarts 3, inid 0 resyncs 3, no SYNC error" || fail "counters"

sleep 1
tag=$(sed -n 's/.* --tag \([^ ]*\) .*/\1/p' "$DIR/launcher.log" | head -n 1)
[ -n "$tag" ] || fail "no tag in launcher.log"
left=$( (pgrep -f -- "(inid|ini-cluster) .*$DIR"; pgrep -f -- "ini-ping --sizes 65000 --count $COUNT") | sort -u | tr '\n' ' ')
[ -z "$left" ] || fail "processes left behind: $left"
[ -n "$tag" ] && ls /dev/shm | grep -q "^ini-$tag-" && fail "segments or state regions of run $tag left: $(ls /dev/shm | grep "^ini-$tag-" | tr '\n' ' ')"
[ -n "$tag" ] && ls -d /var/run/dpdk/ini-"$tag"-* > /dev/null 2>&1 && fail "DPDK runtime directories of run $tag left"
[ "$failures" = 0 ] && ok "nothing of run $tag left (processes, /dev/shm, /var/run/dpdk)"

hosts_teardown
hosts_finish
