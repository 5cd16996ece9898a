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
#       any of it does not happen, or the run ended first.  With
#       RESTART_FREEZE=S in the environment, inid 1 is first frozen with
#       SIGSTOP for S seconds (its rings fill with records it does not
#       take), then killed
#   restart_ini_counters DIR SPEC...
#       the counters of the run in DIR, one SPEC "I:RESTARTS:RESYNCS" an
#       INI ('-': that figure not checked): inid I's restarts and resyncs
#       as given, no SYNC error; prints each INI's figures; 1 if one is off
#       (each said)
#   restart_counters DIR K
#       inid 1's restarts K, inid 0's resyncs K (restart_ini_counters DIR
#       0:-:K 1:K:-)

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
    if [ -n "${RESTART_FREEZE:-}" ]; then
        kill -STOP "$pid"
        sleep "$RESTART_FREEZE"
    fi
    kill -KILL "$pid"
    echo "restart: killed inid 1 (pid $pid${netns:+, in $netns}${RESTART_FREEZE:+, frozen $RESTART_FREEZE s before}), kill $k"
    for _ in $(seq 600); do
        n=$(grep -c -- "$back" "$out")
        [ "$n" -ge "$k" ] && return 0
        kill -0 "$launcher" 2>/dev/null || break
        sleep 0.1
    done
    fail "kill $k: inid 1 not back"
    return 1
}

restart_ini_counters() {
    python3 - "$@" <<'PY'
import json, sys
d, bad = sys.argv[1], []
for spec in sys.argv[2:]:
    i, want_restarts, want_resyncs = spec.split(":")
    c = json.load(open(f"{d}/ini{i}.counters.json"))
    t = c["transport"]
    print(f"    inid {i}: restarts {c.get('restarts')}, resyncs {t['resyncs']}, replayed {t['replayed']}, "
          f"syncs_sent {t['syncs_sent']}, duplicates {t['duplicates']}, delivered {t['msgs_delivered']}")
    if want_restarts != "-" and c.get("restarts") != int(want_restarts):
        bad.append(f"inid {i}: restarts {c.get('restarts')}, expected {want_restarts}")
    if want_resyncs != "-" and t["resyncs"] != int(want_resyncs):
        bad.append(f"inid {i}: resyncs {t['resyncs']}, expected {want_resyncs}")
    if t["sync_errors"]:
        bad.append(f"inid {i}: sync_errors {t['sync_errors']}")
for b in bad:
    print("    " + b)
sys.exit(1 if bad else 0)
PY
}

restart_counters() {
    restart_ini_counters "$1" "0:-:$2" "1:$2:-"
}
