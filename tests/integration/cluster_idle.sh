#!/usr/bin/env bash
# cluster_idle: daemons in adaptive idle mode with nothing to do must sleep.
# `ini-cluster up` the default configuration with --idle adaptive, let it
# settle for 1 s, then measure the daemons' CPU time (utime + stime from
# /proc/PID/stat) over 5 s: all daemons together must use less than 5% of
# one core.  `ini-cluster status` must report every daemon ready before, and
# `ini-cluster down` must stop them and leave no state behind.
set -u
cd "$(dirname "$0")/../.."
CONFIG=conf/default.cfg
L=build/bin/ini-cluster
WINDOW_S=5
LIMIT_PERCENT=5

fail() { echo "cluster_idle: FAIL: $*"; [ -n "${RUN_DIR:-}" ] && $L down $CONFIG --run-dir "$RUN_DIR" > /dev/null 2>&1; exit 1; }
[ -x $L ] && [ -x build/bin/inid ] || fail "build first (make)"

RUN_DIR=$(mktemp -d /tmp/ini-cluster-idle.XXXXXX)
$L up $CONFIG --idle adaptive --run-dir "$RUN_DIR" || fail "ini-cluster up exited with $?"
$L status $CONFIG --run-dir "$RUN_DIR" || fail "ini-cluster status: not every daemon is ready"
mapfile -t pids < <(awk '$1 == "daemon" { print $3 }' "$RUN_DIR/state")
[ "${#pids[@]}" -gt 0 ] || fail "no daemons in $RUN_DIR/state"

cpu_ticks() {   # utime + stime of all daemons, in clock ticks
    local total=0 p fields
    for p in "${pids[@]}"; do
        # Fields after "PID (comm) ": state is the 1st, utime the 12th, stime the 13th.
        read -ra fields < <(sed 's/^.*) //' "/proc/$p/stat") || fail "daemon $p is gone"
        total=$((total + fields[11] + fields[12]))
    done
    echo $total
}
sleep 1
before=$(cpu_ticks)
sleep $WINDOW_S
after=$(cpu_ticks)
hz=$(getconf CLK_TCK)
used=$((after - before))
limit=$((hz * WINDOW_S * LIMIT_PERCENT / 100))
echo "cluster_idle: ${#pids[@]} daemons used $used ticks in ${WINDOW_S} s (limit $limit, $hz ticks/s)"
[ "$used" -lt "$limit" ] || fail "idle daemons used $used ticks, more than $LIMIT_PERCENT% of one core"

$L down $CONFIG --run-dir "$RUN_DIR" || fail "ini-cluster down exited with $?"
[ -e "$RUN_DIR/state" ] && fail "state file left after down"
for p in "${pids[@]}"; do
    if kill -0 "$p" 2> /dev/null && ! grep -q '^State:.*Z' "/proc/$p/status"; then
        fail "daemon $p still running after down"
    fi
done
$L status $CONFIG --run-dir "$RUN_DIR" > /dev/null 2>&1 && fail "status says up after down"
echo "cluster_idle: PASS"
rm -rf "$RUN_DIR"
