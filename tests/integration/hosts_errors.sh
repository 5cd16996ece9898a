#!/usr/bin/env bash
# hosts_errors: a machine across hosts when ssh fails, and `status` across
# hosts (issue 46, point 7).  The lab's 3 namespace hosts (lib/hosts.sh):
#
#  1. ssh that does not know the hosts' keys (no --ssh of the lab's: an
#     empty known_hosts): `run` exits non-zero with one line per host,
#     "ini-cluster: host hI: ssh failed: Host key verification failed.
#     (hint: ...)", and none of ssh's raw text besides;
#  2. ssh as a user the hosts refuse: the same with "Permission denied" and
#     the hint about keys;
#  3. a host whose name does not resolve, beside two that start: one line
#     for that host ("Could not resolve hostname", its hint), the others
#     stopped, nothing left running;
#  4. up on 3 hosts, then `status`: one table, one header with a host
#     column and a row per INI (h0 h1 h2), each host's daemon named
#     "host hI: inid I (cluster I) ...: running, ready"; `status` with the
#     failing ssh: one line per host, non-zero; down.
# Needs root, network namespaces and sshd (else exit 77).
set -u
cd "$(dirname "$0")/../.."
NAME=hosts_errors
. tests/integration/lib/hosts.sh
hosts_need_root $NAME
for b in build/bin/ini-cluster build/bin/inid build/bin/ini-ping; do
    [ -x "$b" ] || { echo "$NAME: FAIL: $b not built (run make)"; rm -rf "$HOSTS_TMP"; exit 1; }
done
command -v sshd > /dev/null || [ -x /usr/sbin/sshd ] || { echo "$NAME: SKIP: no sshd"; rm -rf "$HOSTS_TMP"; exit 77; }
CLUSTER=$PWD/build/bin/ini-cluster PING=$PWD/build/bin/ini-ping
T=$HOSTS_TMP
failures=0
fail() { echo "$NAME: FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok:   $*"; }
trap hosts_teardown EXIT

hosts_setup 3 || { echo "$NAME: FAIL: the lab did not come up"; exit 1; }
"$CLUSTER" gen 3 1 1 --hosts h0,h1,h2 --device d0 -o "$T/3h.cfg" > /dev/null || { echo "$NAME: FAIL: gen"; exit 1; }
head_run() { timeout 120 ip netns exec "${HOSTS_NS}-head" "$CLUSTER" "$@"; }
NOKEYS="ssh -F /dev/null -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=yes"

# check_lines LOG PATTERN HOSTS WHAT: exit non-zero, exactly one stderr line
# per host of HOSTS matching "ini-cluster: host H: ssh failed: PATTERN (hint: ",
# and no other line of ssh's
check_lines() {
    local log=$1 pat=$2 hosts=$3 what=$4 h n
    for h in $hosts; do
        n=$(grep -c "^ini-cluster: host $h: ssh failed: .*$pat.* (hint: [^)]" "$log")
        [ "$n" = 1 ] || { fail "$what: $n lines for host $h (want 1): $(head -5 "$log")"; return 1; }
    done
    n=$(grep -v '^ini-cluster: \|^run directory: ' "$log" | grep -c "$pat")
    [ "$n" = 0 ] || { fail "$what: ssh's own text shown besides: $(grep -v '^ini-cluster: ' "$log" | grep "$pat" | head -2)"; return 1; }
    ok "$what: one line per host, e.g. $(grep -m1 "^ini-cluster: host" "$log")"
}

# 1. host keys unknown
head_run run "$T/3h.cfg" --ssh "$NOKEYS" --run-dir "$T/nokeys" -- "$PING" --count 10 > "$T/nokeys.log" 2>&1
rc=$?
[ $rc != 0 ] || fail "unknown host keys: exit status 0"
check_lines "$T/nokeys.log" "Host key verification failed" "h0 h1 h2" "run, host keys unknown (exit $rc)"
grep -q "hint: the host's key is not known here" "$T/nokeys.log" || fail "unknown host keys: no hint about known_hosts"

# 2. refused
head_run run "$T/3h.cfg" --ssh "$HOSTS_SSH -o User=nobody" --run-dir "$T/refused" -- "$PING" --count 10 > "$T/refused.log" 2>&1
rc=$?
[ $rc != 0 ] || fail "refused: exit status 0"
check_lines "$T/refused.log" "Permission denied" "h0 h1 h2" "run, login refused (exit $rc)"
grep -q "hint: ssh must log in without a password" "$T/refused.log" || fail "refused: no hint about keys"

# 3. one host unknown by name, two that start
sed 's/"h2"/"nohost"/' "$T/3h.cfg" > "$T/nohost.cfg"
grep -q '"nohost"' "$T/nohost.cfg" || fail "could not name a host nohost in the configuration"
head_run run "$T/nohost.cfg" --ssh "$HOSTS_SSH" --run-dir "$T/nohost" -- "$PING" --count 10 > "$T/nohost.log" 2>&1
rc=$?
[ $rc != 0 ] || fail "nohost: exit status 0"
check_lines "$T/nohost.log" "Could not resolve hostname" "nohost" "run, one host's name unknown (exit $rc)"
grep -q "^ini-cluster: host h[01]: ssh failed" "$T/nohost.log" && fail "nohost: h0 or h1 said to fail: $(grep 'host h[01]' "$T/nohost.log")"
grep -q "hint: the name is not known here" "$T/nohost.log" || fail "nohost: no hint about the name"
sleep 1
left=$(pgrep -f -- "(inid|ini-cluster) .*$T/nohost" | tr '\n' ' ')
[ -z "$left" ] || fail "nohost: processes left behind: $left"

# 4. status across hosts: one table
head_run up "$T/3h.cfg" --ssh "$HOSTS_SSH" --run-dir "$T/up" > "$T/up.log" 2>&1 || fail "up: $(tail -3 "$T/up.log")"
head_run status "$T/3h.cfg" --ssh "$HOSTS_SSH" --run-dir "$T/up" > "$T/status.log" 2>&1
rc=$?
headers=$(grep -c '^host  *INI  *cluster  *msgs/s' "$T/status.log")
rows=$(awk '$1 ~ /^h[0-2]$/ && $2 == substr($1, 2) && $3 == substr($1, 2)' "$T/status.log" | wc -l)
states=$(grep -cE '^host h([0-2]): inid \1 \(cluster \1\) pid [0-9]+: running, ready$' "$T/status.log")
if [ $rc = 0 ] && [ "$headers" = 1 ] && [ "$rows" = 3 ] && [ "$states" = 3 ] && [ "$(grep -c '^run directory: ' "$T/status.log")" = 1 ]; then
    ok "status across 3 hosts: one table (1 header with a host column, 3 rows), 3 daemons running, ready"
else
    fail "status: exit $rc, $headers header(s), $rows row(s), $states daemon line(s) (want 0, 1, 3, 3)"; cat "$T/status.log"
fi
head_run status "$T/3h.cfg" --ssh "$NOKEYS" --run-dir "$T/up" > "$T/status-nokeys.log" 2>&1
rc=$?
[ $rc != 0 ] || fail "status with unknown host keys: exit status 0"
check_lines "$T/status-nokeys.log" "Host key verification failed" "h0 h1 h2" "status, host keys unknown (exit $rc)"
head_run down "$T/3h.cfg" --ssh "$HOSTS_SSH" --run-dir "$T/up" > "$T/down.log" 2>&1 || fail "down: $(tail -3 "$T/down.log")"

hosts_teardown
hosts_finish
