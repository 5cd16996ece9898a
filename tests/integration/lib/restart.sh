# restart.sh - sourced by the tests that kill an INI and expect it back
# (restart.sh on one host, hosts_restart.sh across hosts; issue 34).  The
# caller defines fail() and seeds RANDOM.
#
#   restart_kill K LAUNCHER_PID DIR OUT BACK [NETNS]
#       waits until inid 1 of the run in DIR runs (its command line holds
#       "--ini 1 --tag TAG --run-dir DIR", the run's options may follow) and
#       cluster 1's program has
#       started, checks it is in network namespace NETNS when given, waits
#       a random 0.2-1.7 s, kills it with SIGKILL, and waits until OUT holds
#       K lines matching BACK (the launcher's "is back"); 1 (after fail) if
#       any of it does not happen, or the run ended first
#   restart_counters DIR K
#       the counters of the run in DIR: inid 1's restarts K, inid 0's
#       resyncs K, no SYNC error at either; prints each INI's figures; 1 if
#       one is off (each said)

restart_kill() {
    local k=$1 launcher=$2 dir=$3 out=$4 back=$5 netns=${6:-} pid= ns n
    for _ in $(seq 600); do
        pid=$(pgrep -f -- "inid .*--ini 1 --tag [0-9a-f]* --run-dir $dir( |\$)") && [ -e "$dir/cluster1.out" ] && break
        pid=
        sleep 0.1
    done
    [ -n "$pid" ] || { fail "kill $k: no inid 1 running"; return 1; }
    if [ -n "$netns" ]; then
        ns=$(ip netns identify "$pid")
        [ "$ns" = "$netns" ] || { fail "kill $k: inid 1 (pid $pid) is in namespace '$ns', not $netns"; return 1; }
    fi
    sleep "$(printf '0.%d' $((2 + RANDOM % 15)))" 2>/dev/null || sleep 1
    kill -0 "$launcher" 2>/dev/null || { fail "kill $k: the run ended first (raise COUNT)"; return 1; }
    kill -KILL "$pid"
    echo "restart: killed inid 1 (pid $pid${netns:+, in $netns}), kill $k"
    for _ in $(seq 600); do
        n=$(grep -c -- "$back" "$out")
        [ "$n" -ge "$k" ] && return 0
        kill -0 "$launcher" 2>/dev/null || break
        sleep 0.1
    done
    fail "kill $k: inid 1 not back"
    return 1
}

restart_counters() {
    python3 - "$1" "$2" <<'PY'
import json, sys
d, k = sys.argv[1], int(sys.argv[2])
c0, c1 = (json.load(open(f"{d}/ini{i}.counters.json")) for i in (0, 1))
bad = []
if c1.get("restarts") != k:
    bad.append(f"inid 1: restarts {c1.get('restarts')}, expected {k}")
if c0["transport"]["resyncs"] != k:
    bad.append(f"inid 0: resyncs {c0['transport']['resyncs']}, expected {k}")
for i, c in ((0, c0), (1, c1)):
    t = c["transport"]
    if t["sync_errors"]:
        bad.append(f"inid {i}: sync_errors {t['sync_errors']}")
    print(f"    inid {i}: restarts {c.get('restarts')}, resyncs {t['resyncs']}, replayed {t['replayed']}, "
          f"syncs_sent {t['syncs_sent']}, duplicates {t['duplicates']}, delivered {t['msgs_delivered']}")
for b in bad:
    print("    " + b)
sys.exit(1 if bad else 0)
PY
}
