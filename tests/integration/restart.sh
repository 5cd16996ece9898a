#!/usr/bin/env bash
# restart: an INI that dies comes back, and no message is lost (issue 34;
# docs/transport.md, "An INI that restarts").  ini-ping with 65,000-byte
# messages between the two clusters of conf/af_packet.cfg (conf/default.cfg,
# memif, without root and ip netns), under the fault mix (--fault
# drop=0.02,dup=0.02,reorder=0.02,corrupt=0.01: frames lost, doubled,
# held back and damaged on every link, before, across and after each
# restart); inid 1 is killed with SIGKILL three times at random points of
# the run, and the launcher restarts it each time (restart.max is 3 by
# default).  Asserted:
#   - the run exits 0 and ini-ping verified every message of both clusters
#     with 0 errors (each request and echo exactly once and in order: a
#     duplicate, a loss or a reordering is an error of ini-ping's);
#   - the launcher said each restart and each return, and summed them; each
#     INI's summary line ends with its restarts and resyncs;
#   - the counters: inid 1's "restarts" is 3; inid 0 resynchronised 3
#     times; no SYNC error anywhere;
#   - nothing of the run is left (daemons, segments, state regions).
#
#   bash tests/integration/restart.sh [COUNT] [SEED] [CONFIG]
#       COUNT  requests per compute node (default 2000); SEED for the kill
#              points and the faults (default: the time), printed either
#              way; FAULTS=none in the environment runs without faults; CONFIG
#              (default conf/af_packet.cfg as root with ip netns, else
#              conf/default.cfg).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
. tests/integration/lib/restart.sh
test_start restart build/bin/ini-cluster build/bin/inid build/bin/ini-ping
COUNT=${1:-2000}
SEED=${2:-$(date +%s)}
RANDOM=$SEED
CFG=conf/default.cfg
if [ $# -ge 3 ]; then
    CFG=$3
elif [ "$(id -u)" -eq 0 ] && ip netns list > /dev/null 2>&1; then
    CFG=conf/af_packet.cfg
fi
FAULT=(--fault "drop=0.02,dup=0.02,reorder=0.02,corrupt=0.01,seed=$SEED")
[ "${FAULTS:-}" = none ] && FAULT=()
echo "restart: $CFG, $COUNT requests of 65000 bytes per compute node, seed $SEED, ${FAULT[*]:-no faults}"
DIR=$TMP/run OUT=$TMP/run.out
build/bin/ini-cluster run $CFG --run-dir "$DIR" "${FAULT[@]}" -- \
    build/bin/ini-ping --sizes 65000 --count "$COUNT" --timeout-ms 60000 > "$OUT" 2>&1 &
launcher=$!

for k in 1 2 3; do
    restart_kill $k $launcher "$DIR" "$OUT" "inid 1 (cluster 1) is back" || break
done
wait $launcher
rc=$?
[ "$rc" -eq 0 ] && ok "the run exited 0 after 3 kills" || { fail "the run exited $rc"; tail -30 "$OUT" | sed 's/^/    /'; }

mapfile -t pes < <(grep -o 'pes *= *\[[^]]*\]' "$CFG" | sed 's/[^,]//g' | awk '{print length($0) + 1}')
for c in 0 1; do
    want="verified $((pes[c] * COUNT)) messages, 0 errors"
    got=$(grep '^verified ' "$DIR/cluster$c.out" 2>/dev/null | tail -n 1)
    [ "$got" = "$want" ] && ok "cluster $c: $got" || fail "cluster $c: '$got', expected '$want'"
done
[ "$(grep -c 'restarting it (restart' "$OUT")" -eq 3 ] || fail "not 3 restarts said"
grep -q "^ini 1 (cluster 1): restarted 3 times" "$OUT" || fail "the summary does not sum the restarts"
# Each INI's summary line ends with its restarts and resyncs: inid 1 is
# incarnation 3; inid 0 resynchronised once per restart of its peer.
grep -Eq "^INI 1 \(cluster 1\): .*; restarts 3, resyncs [0-9]+\$" "$OUT" &&
    grep -Eq "^INI 0 \(cluster 0\): .*; restarts 0, resyncs 3\$" "$OUT" ||
    fail "the summary lines do not end with 'restarts 3, resyncs N' and 'restarts 0, resyncs 3': $(grep '^INI [01] ' "$OUT" | tr '\n' '|')"
grep "is back" "$OUT" | sed 's/^/    /'
grep -h "resumed" "$DIR"/ini1.log* | sed 's/^/    /'

restart_counters "$DIR" 3 || fail "counters"
tag=$(sed -n 's/.* --tag \([^ ]*\) .*/\1/p' "$DIR/launcher.log" | head -n 1)
[ -n "$tag" ] && ls /dev/shm | grep -q "^ini-$tag-" && fail "segments or state regions of run $tag left"
pgrep -f -- "--run-dir $DIR( |\$)" > /dev/null && fail "daemons of the run left"
test_end
