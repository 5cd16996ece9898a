#!/usr/bin/env bash
# restart_water: Water on MGS survives the death of every INI (issue 34;
# docs/transport.md, "An INI that restarts").  The machine is 2 clusters x
# 4 compute nodes x 2 INIs (`ini-cluster gen 2 4 2`, memif); Water runs
# 512 molecules for 5 steps, --deterministic --full, its compute nodes
# dilated (MGS_DILATE, which changes no result: mgs_dilate.sh) so that the
# run lasts long enough to kill into.  Run once undisturbed, then again
# with each of the 4 INIs killed by SIGKILL once, in a random order, at a
# random point while Water runs, one at a time: the first 70 % of the
# undisturbed run's span (less its first second, the daemons' start) cut
# in 4 slots, a kill at a random point of each, the next only once the
# launcher has said the last INI is back.  Asserted for the second run:
#   - it exits 0, the launcher said 4 restarts, one of each INI;
#   - each INI's counters (its last incarnation's) say restarts 1 and no
#     SYNC error; its resyncs are its 2 connections' (answered when it came
#     back) plus one per INI of the other cluster that restarted after it
#     (the peer's side of that INI's SYNC);
#   - MGS lost and doubled nothing: each message type one cluster sent the
#     other received as often (mgs-cluster<C>.json);
#   - every cluster's stdout but the wall-clock timing lines (energies of
#     every step at full precision) is byte-identical to the undisturbed
#     run's;
#   - nothing of the run is left (daemons, segments, state regions).
#
#   bash tests/integration/restart_water.sh [SEED] [DILATE]
#       SEED for the order and points of the kills (default: the time),
#       printed either way; DILATE the MGS_DILATE factor (default 300).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
. tests/integration/lib/restart.sh
CLUSTER=build/bin/ini-cluster
water_test_start restart_water "$CLUSTER" build/bin/inid
SEED=${1:-$(date +%s)}
DILATE=${2:-300}
RANDOM=$SEED
CFG=$TMP/2x4x2.cfg
"$CLUSTER" gen 2 4 2 -o "$CFG" > /dev/null || { fail "ini-cluster gen 2 4 2"; exit 1; }
printf '1.5e-16 512 5 6 -1 3000 1 0 8 6.212752\n' > "$TMP/water.in"
echo "restart_water: 2 clusters x 4 compute nodes x 2 INIs, Water 512 molecules 5 steps, MGS_DILATE=$DILATE, seed $SEED"
no_times() { grep -vE '^(COMPUTESTART|COMPUTEEND|COMPUTETIME|Measured Time|Intramolecular time|Intermolecular time|Other time)'; }

# start NAME: the run in the background ($launcher), its launcher's output
# in $TMP/NAME.log, its run directory $TMP/NAME
start() {
    MGS_DILATE=$DILATE "$CLUSTER" run "$CFG" --run-dir "$TMP/$1" --timeout 300 -- \
        "$WATER" --mgs --random "$RANDOM_IN" --deterministic --full < "$TMP/water.in" > "$TMP/$1.log" 2>&1 &
    launcher=$!
}

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# kill_ini I K AT: waits until inid I runs, then until AT (ms on now_ms's
# clock), kills inid I (the K-th kill of the run), and waits until the
# launcher says it is back.
kill_ini() {
    local i=$1 k=$2 at=$3 dir=$TMP/killed pid= n
    for _ in $(seq 300); do
        pid=$(pgrep -f -- "--ini $i --tag [0-9a-f]* --run-dir $dir( |\$)") && break
        sleep 0.1
    done
    [ -n "$pid" ] || { fail "kill $k: no inid $i running"; return 1; }
    n=$((at - $(now_ms)))
    [ "$n" -gt 0 ] && sleep "$((n / 1000)).$(printf '%03d' $((n % 1000)))"
    kill -0 $launcher 2>/dev/null || { fail "kill $k: the run ended before inid $i was killed (raise DILATE)"; return 1; }
    kill -KILL $pid
    echo "restart_water: killed inid $i (pid $pid), kill $k, $(( $(now_ms) - start_ms )) ms into the run," \
        "$(grep -c '^FULL' "$TMP/killed.log") of 5 steps printed"
    for _ in $(seq 600); do
        n=$(grep -c "inid $i (cluster [0-9]*) is back" "$TMP/killed.log")
        [ "$n" -ge 1 ] && return 0
        kill -0 $launcher 2>/dev/null || break
        sleep 0.1
    done
    fail "kill $k: inid $i not back"
    return 1
}

start_ms=$(now_ms)
start plain
wait $launcher
rc=$?
span=$(( $(now_ms) - start_ms ))
[ "$rc" -eq 0 ] && ok "undisturbed run exited 0 ($span ms)" ||
    { fail "undisturbed run exited $rc"; tail -20 "$TMP/plain.log" | sed 's/^/    /'; exit 1; }

# The kills' order: a shuffle of the 4 INIs from the seed.
order=(0 1 2 3)
for ((a = 3; a > 0; a--)); do
    b=$((RANDOM % (a + 1))); t=${order[a]}; order[a]=${order[b]}; order[b]=$t
done
# The kills' points: the first half of the undisturbed run's span less its
# first second (the daemons' start), cut in 4 equal slots, a random point
# in each (or at once, if the INI killed before is back later).  The rest
# is margin: on a shared machine a run's length varies (a run with kills
# once ended before 16 s where the undisturbed one took 24 s, and the
# fourth kill, planned in the first 70 %, never came).
slot=$(( (span / 2 - 1000) / 4 ))
[ "$slot" -ge 200 ] || { fail "the undisturbed run took $span ms: too short to kill into (raise DILATE)"; exit 1; }
echo "restart_water: kill order ${order[*]}, one kill in each of 4 slots of $slot ms"
start_ms=$(now_ms)
start killed
k=0
for i in "${order[@]}"; do
    at=$(( start_ms + 1000 + k * slot + (RANDOM * 32768 + RANDOM) % slot ))
    k=$((k + 1))
    kill_ini "$i" "$k" "$at" || break
done
wait $launcher
rc=$?
[ "$rc" -eq 0 ] && ok "the run with 4 kills exited 0 ($(( $(now_ms) - start_ms )) ms)" ||
    { fail "the run with 4 kills exited $rc"; tail -30 "$TMP/killed.log" | sed 's/^/    /'; }
grep "is back" "$TMP/killed.log" | sed 's/^/    /'
n=$(grep -c 'restarting it (restart' "$TMP/killed.log")
[ "$n" -eq 4 ] && ok "the launcher restarted 4 INIs" || fail "the launcher said $n restarts, expected 4"
for i in 0 1 2 3; do
    grep -q "^ini $i (cluster [0-9]*): restarted 1 time" "$TMP/killed.log" || fail "the summary does not say inid $i restarted once"
done

# Each INI: restarts 1; resyncs its 2 connections' plus one per INI of the
# other cluster (0 and 1 are cluster 0, 2 and 3 cluster 1) killed after it.
specs=()
for ((p = 0; p < 4; p++)); do
    i=${order[p]} want=2
    for j in "${order[@]:p+1}"; do
        [ $((j / 2)) -ne $((i / 2)) ] && want=$((want + 1))
    done
    specs+=("$i:1:$want")
done
restart_ini_counters "$TMP/killed" "${specs[@]}" || fail "counters"

python3 - "$TMP/killed" <<'PY' || fail "MGS message counts"
import json, sys
d, bad = sys.argv[1], []
m = [json.load(open(f"{d}/mgs-cluster{c}.json"))["messages"] for c in (0, 1)]
for a, b in ((0, 1), (1, 0)):
    for kind, n in m[a].items():
        if n["sent"] != m[b][kind]["received"]:
            bad.append(f"MGS {kind}: cluster {a} sent {n['sent']}, cluster {b} received {m[b][kind]['received']}")
    print(f"    MGS cluster {a} -> {b}: {sum(n['sent'] for n in m[a].values())} messages sent, "
          f"{sum(n['received'] for n in m[b].values())} received")
for x in bad:
    print("    " + x)
sys.exit(1 if bad else 0)
PY

for c in 0 1; do
    no_times < "$TMP/plain/cluster$c.out" > "$TMP/plain.c$c"
    no_times < "$TMP/killed/cluster$c.out" > "$TMP/killed.c$c"
done
grep -q '^FULL 5 ' "$TMP/plain.c0" || fail "the undisturbed run printed no FULL line for step 5"
if cmp -s "$TMP/plain.c0" "$TMP/killed.c0" && cmp -s "$TMP/plain.c1" "$TMP/killed.c1"; then
    ok "Water's output ($(grep -c '^FULL' "$TMP/killed.c0") FULL lines and the rest) byte-identical to the undisturbed run"
else
    fail "Water's output differs from the undisturbed run"
    diff "$TMP/plain.c0" "$TMP/killed.c0" | head -10
fi

for run in plain killed; do
    tag=$(sed -n 's/.* --tag \([^ ]*\) .*/\1/p' "$TMP/$run/launcher.log" | head -n 1)
    [ -n "$tag" ] && ls /dev/shm | grep -q "^ini-$tag-" && fail "segments or state regions of run $tag left"
    pgrep -f -- "--run-dir $TMP/$run( |\$)" > /dev/null && fail "daemons of the $run run left"
done
test_end
