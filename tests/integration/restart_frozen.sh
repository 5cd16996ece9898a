#!/usr/bin/env bash
# restart_frozen: an INI that stops running for seconds and is then killed
# comes back and sends what its compute nodes gave it meanwhile (issue 48:
# the soak's round 1069, where the restarted inid 1 found "0 message(s) in
# flight to replay, 10 to send").  ini-ping between the two clusters of
# conf/default.cfg (memif), under the fault mix; inid 1 is frozen with
# SIGSTOP for FREEZE seconds (its compute nodes go on publishing requests
# and echoes that nobody takes, its peer's frames and acks wait), then
# killed with SIGKILL; the launcher restarts it.  Asserted:
#   - the restarted inid said it resumed (reported: how many messages it
#     took again from its rings to send, docs/restart.md "What is rebuilt
#     at start"; not asserted: whether the freeze catches a record not yet
#     taken depends on its point, and a quiet host's full CI run caught 0
#     to send, 2 in flight);
#   - the run exits 0 and ini-ping verified every message of both clusters
#     with 0 errors (none lost, doubled or reordered across the freeze and
#     the restart);
#   - the longest gap between two echoes spans the freeze (it fell while
#     messages flowed);
#   - inid 1's restarts 1, inid 0's resyncs 1, no SYNC error.
#
#   bash tests/integration/restart_frozen.sh [COUNT] [SEED] [FREEZE]
#       COUNT  requests per size and compute node (default 3000), SEED for
#              the faults and the freeze's point, 0.2-1.7 s into the run
#              (default: the time), FREEZE seconds (default 2)
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
. tests/integration/lib/restart.sh
test_start restart_frozen build/bin/ini-cluster build/bin/inid build/bin/ini-ping
COUNT=${1:-3000}
SEED=${2:-$(date +%s)}
FREEZE=${3:-2}
RANDOM=$SEED
CFG=conf/default.cfg
SIZES=0,100,1473,9000
echo "restart_frozen: $CFG, $COUNT requests of each of $SIZES bytes per compute node, seed $SEED, frozen $FREEZE s"
DIR=$TMP/run OUT=$TMP/run.out
build/bin/ini-cluster run $CFG --run-dir "$DIR" --fault "drop=0.01,dup=0.01,reorder=0.01,corrupt=0.005,seed=$SEED" \
    -- build/bin/ini-ping --sizes $SIZES --count "$COUNT" --timeout-ms 60000 > "$OUT" 2>&1 &
launcher=$!

RESTART_FREEZE=$FREEZE restart_kill 1 $launcher "$DIR" "$OUT" "inid 1 (cluster 1) is back"
wait $launcher
rc=$?
[ "$rc" -eq 0 ] && ok "the run exited 0" || { fail "the run exited $rc"; tail -30 "$OUT" | sed 's/^/    /'; }

resumed=$(grep -h "resumed (incarnation 1)" "$DIR"/ini1.log* 2> /dev/null)
echo "    $resumed"
to_send=$(echo "$resumed" | sed -n 's/.*, \([0-9]*\) to send, .*/\1/p')
[ -n "$to_send" ] && ok "the restarted inid 1 resumed: $to_send message(s) taken again from its rings to send ('$resumed')" ||
    fail "the restarted inid 1 did not say it resumed ('$resumed')"
n=$(( $(echo "$SIZES" | tr ',' '\n' | wc -l) * 2 * COUNT ))
for c in 0 1; do
    got=$(grep '^verified ' "$DIR/cluster$c.out" 2> /dev/null | tail -n 1)
    [ "$got" = "verified $n messages, 0 errors" ] && ok "cluster $c: $got" ||
        fail "cluster $c: '$got', expected 'verified $n messages, 0 errors'"
    grep -h "^longest gap" "$DIR/cluster$c.out" | sed "s/^/    cluster $c: /"
done
# The freeze fell while messages flowed: some compute node waited through it.
gap=$(sed -n 's/^longest gap between echoes \([0-9.]*\) ms.*/\1/p' "$DIR"/cluster[01].out | sort -g | tail -n 1)
awk -v g="${gap:-0}" -v f="$FREEZE" 'BEGIN { exit !(g >= f * 1000) }' &&
    ok "the longest gap between echoes, ${gap} ms, spans the $FREEZE s freeze" ||
    fail "the longest gap between echoes is '${gap}' ms, shorter than the $FREEZE s freeze: it fell outside the traffic"
grep "is back" "$OUT" | sed 's/^/    /'
restart_counters "$DIR" 1 || fail "counters"
pgrep -f -- "--run-dir $DIR( |\$)" > /dev/null && fail "daemons of the run left"
test_end
