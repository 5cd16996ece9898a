#!/usr/bin/env bash
# hardening_launcher: the launcher items of issue 17, each asserted on an
# outcome (exit status and message, what is left in /dev/shm, which
# processes survive):
#   5. two launchers on one --run-dir: one runs, the other is refused;
#   7. gen -o onto a character device writes into it (here a private
#      copy of /dev/full: ENOSPC is reported) and leaves the node alone;
#   8. a /dev/shm too small for the segments: a clear error at start
#      naming the size and /dev/shm (a private tmpfs of 1 MiB);
#  10. up --cluster 0 in memif mode: refused at once, with the reason;
#  11. a program's background child does not outlive the run, nor one
#      that starts its own session (setsid);
#  16. SIGKILL of the launcher mid-run: no segment and no process of the
#      run survives; in af_packet mode its namespaces are removed by
#      `ini-cluster cleanup` or the next run (a live run's are kept);
#  16e. a stale run whose tag ends in a hex letter, its prefix a live
#      process's pid: cleanup removes it (suffixes are g-z, not a-f).
#  16d. (issue 33) daemons of an `up` killed with SIGKILL: their DPDK
#      runtime directories and segments are removed by `ini-cluster
#      cleanup`, which says so and counts the run once.
# Launcher-only checks use build/bin/cluster-fake-inid; 16 runs the real
# inid and ini-ping.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
L=build/bin/ini-cluster
FAKE="--inid build/bin/cluster-fake-inid"
test_start hardening_launcher $L build/bin/inid build/bin/cluster-fake-inid build/bin/ini-ping
run_tag() { sed -n 's/.* --tag \([^ ]*\) .*/\1/p' "$1/launcher.log" 2>/dev/null | head -n 1; }

# --- 5. one run directory, one launcher.  A race: four launchers at once,
# twice; each time exactly one may run, the others must be refused.
for round in 1 2; do
    d=$TMP/r5-$round
    pids=()
    for k in 1 2 3 4; do
        $L run conf/default.cfg $FAKE --run-dir "$d" -- sleep 1 > "$d.$k" 2>&1 &
        pids+=($!)
    done
    ran=0 refused=0 other=""
    for k in 1 2 3 4; do
        wait "${pids[k - 1]}"; rc=$?
        if [ $rc -eq 0 ]; then ran=$((ran + 1))
        elif [ $rc -eq 2 ] && grep -Eq "run directory $d (is in use by another launcher|exists and is not empty)" "$d.$k"
        then refused=$((refused + 1))
        else other="$other exit $rc: $(head -n 1 "$d.$k");"
        fi
    done
    if [ $ran -eq 1 ] && [ $refused -eq 3 ]; then
        ok "four launchers on one run directory, round $round: one ran, three refused"
    else
        fail "four launchers on one run directory, round $round: $ran ran, $refused refused;$other"
    fi
done

# --- 7. gen -o onto a character device
mknod "$TMP/full" c 1 7
$L gen 2 2 1 -o "$TMP/full" > "$TMP/r7.out" 2>&1
rc=$?
if [ -c "$TMP/full" ] && [ $rc -ne 0 ] && grep -q "No space left on device" "$TMP/r7.out"; then
    ok "gen -o onto a full device: exit $rc, $(head -n 1 "$TMP/r7.out"); still a device"
else
    fail "gen -o onto a full device: exit $rc, $( [ -c "$TMP/full" ] && echo 'still a device' || echo 'REPLACED'): $(head -n 2 "$TMP/r7.out")"
fi
$L gen 2 2 1 -o "$TMP/gen.cfg" > /dev/null 2>&1 && [ -f "$TMP/gen.cfg" ] && ! [ -e "$TMP/gen.cfg.tmp" ] ||
    fail "gen -o a regular file no longer works"

# --- 8. /dev/shm too small
unshare --mount --propagation private sh -c \
    "mount -t tmpfs -o size=1m tmpfs /dev/shm && exec $L run conf/default.cfg $FAKE --run-dir $TMP/r8 -- true" \
    > "$TMP/r8.out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -Eq "cannot allocate [0-9]+ bytes .*in /dev/shm" "$TMP/r8.out"; then
    ok "small /dev/shm: $(grep /dev/shm "$TMP/r8.out" | head -n 1)"
else
    fail "small /dev/shm: exit $rc (expected 1 and the size and /dev/shm named)"; head -n 3 "$TMP/r8.out" | sed 's/^/    /'
fi

# --- 10. up --cluster 0 in memif mode
start=$(date +%s)
$L up conf/default.cfg $FAKE --cluster 0 --run-dir "$TMP/r10" > "$TMP/r10.out" 2>&1
rc=$?
took=$(( $(date +%s) - start ))
if [ $rc -eq 2 ] && grep -q "memif" "$TMP/r10.out" && [ ! -e "$TMP/r10/state" ]; then
    ok "up --cluster 0 in memif mode refused: $(head -n 1 "$TMP/r10.out")"
else
    fail "up --cluster 0 in memif mode: exit $rc after ${took}s (expected 2 at once, naming memif)"
    $L down conf/default.cfg --run-dir "$TMP/r10" > /dev/null 2>&1
fi

# --- 11. a background child of the program
$L run conf/default.cfg $FAKE --run-dir "$TMP/r11" -- \
    sh -c 'sleep 300 & echo $! > "$INI_RUN_DIR/bg$INI_CLUSTER.pid"' > "$TMP/r11.out" 2>&1
rc=$?
sleep 0.2
left=""
for f in "$TMP"/r11/bg*.pid; do
    [ -s "$f" ] || { fail "background child: $f missing"; continue; }
    pid=$(cat "$f")
    kill -0 "$pid" 2>/dev/null && { left="$left $pid"; kill "$pid"; }
done
if [ $rc -eq 0 ] && [ -z "$left" ]; then
    ok "the programs' background children ended with the run"
else
    fail "background children still running after the run (exit $rc):$left"
fi

# --- 16. SIGKILL of the launcher mid-run
$L run conf/default.cfg --run-dir "$TMP/r16" -- build/bin/ini-ping --sizes 64 --count 1000000 \
    > "$TMP/r16.out" 2>&1 &
lpid=$!
for _ in $(seq 1 300); do
    [ "$(grep -l ': ready' "$TMP"/r16/ini*.log 2>/dev/null | wc -l)" -eq 2 ] && [ -s "$TMP/r16/cluster1.err" -o -e "$TMP/r16/cluster1.out" ] && break
    sleep 0.1
done
sleep 1
tag=$(run_tag "$TMP/r16")
children=$(pgrep -P $lpid | tr '\n' ' ')
kill -9 $lpid
wait $lpid 2>/dev/null
for _ in $(seq 1 100); do
    alive=""
    for p in $children; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
    [ -z "$alive" ] && ! ls /dev/shm | grep -q "^ini-$tag-" && break
    sleep 0.1
done
segs=$(ls /dev/shm | grep "^ini-$tag-" | tr '\n' ' ')
if [ -n "$tag" ] && [ -n "$children" ] && [ -z "$alive" ] && [ -z "$segs" ]; then
    ok "launcher killed: its processes ($children) and the segments of run $tag are gone"
else
    fail "launcher killed (tag '$tag', children '$children'): still running:$alive; segments left: $segs"
    for p in $alive; do kill -9 "$p" 2>/dev/null; done
    for s in $segs; do rm -f "/dev/shm/$s"; done
fi

# --- 11 (own session). A background child that starts its own session
# (setsid) leaves the program's process group; the launcher, a child
# subreaper, still ends it with the run. The program waits until the child
# has its own session (the pid file is written after setsid), so the
# launcher cannot end it as part of the group first.
$L run conf/default.cfg $FAKE --run-dir "$TMP/r11s" -- \
    sh -c 'f="$INI_RUN_DIR/bg$INI_CLUSTER.pid"
           setsid sh -c "echo \$\$ > $f.tmp && mv $f.tmp $f && exec sleep 300" &
           i=0; while [ ! -s "$f" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done' \
    > "$TMP/r11s.out" 2>&1
rc=$?
sleep 0.2
left="" n=0
for f in "$TMP"/r11s/bg*.pid; do
    [ -s "$f" ] || { fail "setsid child: $f missing"; continue; }
    n=$((n + 1))
    pid=$(cat "$f")
    kill -0 "$pid" 2>/dev/null && { left="$left $pid"; kill "$pid"; }
done
if [ $rc -eq 0 ] && [ $n -eq 2 ] && [ -z "$left" ] && grep -q "had left their process groups" "$TMP/r11s.out"; then
    ok "setsid background children ended with the run: $(grep 'had left' "$TMP/r11s.out")"
else
    fail "setsid background children still running after the run (exit $rc, $n pid files):$left"
fi

# --- 16b (pid wrap-around). A stale segment whose tag is a dead launcher's
# small pid, HEX ending in a digit (e.g. 2d3): its first hex digits are the
# pid of a kernel thread (no command line), which must not keep it alive.
kt=""
for p in $(seq 2 200); do
    [ -r /proc/$p/cmdline ] && [ ! -s /proc/$p/cmdline ] && [ -d /proc/$p ] || continue
    for d in 3 5 7 9; do
        cand=$(printf '%x%s' "$p" "$d")
        kill -0 $((16#$cand)) 2>/dev/null || { kt=$cand; break 2; }
    done
done
# stale_segment_goes TAG OUT WHY: a segment of TAG, made by hand, must go
# with `ini-cluster cleanup` (its output in OUT; WHY says what TAG is)
stale_segment_goes() {
    : > "/dev/shm/ini-$1-c0"
    $L cleanup > "$2" 2>&1
    if [ ! -e "/dev/shm/ini-$1-c0" ]; then
        ok "stale segment of tag $1 ($3) removed by cleanup"
    else
        fail "stale segment of tag $1 ($3) kept as alive: $(cat "$2")"
        rm -f "/dev/shm/ini-$1-c0"
    fi
}
[ -n "$kt" ] && stale_segment_goes "$kt" "$TMP/r16b.out" "pid 0x$kt dead, 0x${kt%?} a kernel thread"

# --- 16e (a tag ending in a hex letter).  A stale segment whose tag is a
# dead launcher's pid in hex ending in a-f, its prefix the pid of a live
# process (this shell): the tag is that dead pid, not the live one with a
# suffix, and the segment must go (it was kept once: tag 4eb, pid 0x4e
# alive; suffixes are g-z).
ht=""
for d in b c d e f; do
    cand=$(printf '%x%s' $$ "$d")
    kill -0 $((16#$cand)) 2>/dev/null || { ht=$cand; break; }
done
[ -n "$ht" ] && stale_segment_goes "$ht" "$TMP/r16e.out" "pid 0x$ht dead, 0x${ht%?} this live shell"

# --- 16c (doorbells). The doorbell FIFOs a dead run's daemons left in /tmp
# (/tmp/ini-TAG-N.wake) go with its segments; a live tag's stay.
dead=""
for d in 3 5 7 9 b d; do
    cand=$(printf 'ffff%s' "$d")                  # above any pid here: dead
    kill -0 $((16#$cand)) 2>/dev/null || { dead=$cand; break; }
done
live=$(printf '%x' $$)                            # this shell: alive
mkfifo "/tmp/ini-$dead-0.wake" "/tmp/ini-$dead-1.wake" "/tmp/ini-$live-0.wake"
$L cleanup > "$TMP/r16c-wake.out" 2>&1
if [ ! -e "/tmp/ini-$dead-0.wake" ] && [ ! -e "/tmp/ini-$dead-1.wake" ] && [ -p "/tmp/ini-$live-0.wake" ] &&
   grep -q "removed what run $dead left after its launcher or daemons died: .*2 doorbell FIFO(s)" "$TMP/r16c-wake.out"; then
    ok "stale doorbell FIFOs of tag $dead removed by cleanup, the live tag $live's kept"
else
    fail "doorbell FIFOs: $(ls /tmp | grep -E "^ini-($dead|$live)-" | tr '\n' ' ')/ $(cat "$TMP/r16c-wake.out")"
fi
rm -f "/tmp/ini-$dead-0.wake" "/tmp/ini-$dead-1.wake" "/tmp/ini-$live-0.wake"

# --- 16 (af_packet). SIGKILL of the launcher leaves its network
# namespaces; the next launcher (here: ini-cluster cleanup, then a run)
# removes those of dead launchers and leaves a live run's alone.
if [ "$(id -u)" = 0 ] && ip netns list > /dev/null 2>&1; then
    $L gen 2 1 1 --mode af_packet -o "$TMP/af.cfg" > /dev/null
    stale_run() {   # DIR: an af_packet run whose launcher is killed once the daemons are ready
        $L run "$TMP/af.cfg" $FAKE --run-dir "$1" -- sleep 300 > "$1.out" 2>&1 &
        local lpid=$!
        for _ in $(seq 1 300); do
            [ "$(grep -l 'ready' "$1"/ini*.log 2>/dev/null | wc -l)" -eq 2 ] && break
            sleep 0.1
        done
        sleep 0.5
        kill -9 $lpid; wait $lpid 2>/dev/null
        sleep 0.5
        run_tag "$1"
    }
    # A live run at the same time must survive the cleanup.
    $L run "$TMP/af.cfg" $FAKE --run-dir "$TMP/r16live" -- sleep 8 > "$TMP/r16live.out" 2>&1 &
    live=$!
    for _ in $(seq 1 300); do [ -n "$(run_tag "$TMP/r16live")" ] && [ "$(grep -l 'ready' "$TMP"/r16live/ini*.log 2>/dev/null | wc -l)" -eq 2 ] && break; sleep 0.1; done
    ltag=$(run_tag "$TMP/r16live")
    tag=$(stale_run "$TMP/r16a")
    before=$(ip netns list | grep -c "^ini-$tag-")
    $L cleanup > "$TMP/r16c.out" 2>&1
    rc=$?
    after=$(ip netns list | grep -c "^ini-$tag-")
    live_ns=$(ip netns list | grep -c "^ini-$ltag-")
    wait $live; lrc=$?
    if [ -n "$tag" ] && [ "$before" -eq 3 ] && [ $rc -eq 0 ] && [ "$after" -eq 0 ] && [ "$live_ns" -eq 3 ] && [ $lrc -eq 0 ] &&
       grep -q "removed what run $tag left after its launcher or daemons died: 3 network namespace(s)" "$TMP/r16c.out"; then
        ok "af_packet launcher killed: ini-cluster cleanup removed its $before namespaces, a live run kept its $live_ns"
    else
        fail "af_packet cleanup (tag '$tag'): namespaces before $before, after $after (cleanup exit $rc), live run's $live_ns (exit $lrc): $(head -n 2 "$TMP/r16c.out")"
        for ns in $(ip netns list | awk '{print $1}' | grep "^ini-$tag-"); do ip netns del "$ns"; done
    fi
    tag=$(stale_run "$TMP/r16b")
    before=$(ip netns list | grep -c "^ini-$tag-")
    $L run "$TMP/af.cfg" $FAKE --run-dir "$TMP/r16next" -- true > "$TMP/r16next.out" 2>&1
    rc=$?
    after=$(ip netns list | grep -c "^ini-$tag-")
    if [ -n "$tag" ] && [ "$before" -eq 3 ] && [ $rc -eq 0 ] && [ "$after" -eq 0 ]; then
        ok "af_packet launcher killed: the next run removed its $before namespaces"
    else
        fail "af_packet, next run (tag '$tag'): namespaces before $before, after $after (run exit $rc)"
        for ns in $(ip netns list | awk '{print $1}' | grep "^ini-$tag-"); do ip netns del "$ns"; done
    fi
else
    echo "hardening_launcher: skip: af_packet namespaces (needs root and ip netns)"
fi

# --- 16d. `up`, then its supervisor and its daemons killed with SIGKILL
# (the supervisor first, else it restarts them): what they leave (DPDK
# runtime directories, the segments, the INIs' state regions, which
# /dev/shm counts as segments) goes with `ini-cluster cleanup`.
if [ "$(id -u)" = 0 ]; then
    $L up conf/default.cfg --run-dir "$TMP/r16d" > "$TMP/r16d.out" 2>&1 || fail "16d: up: $(tail -2 "$TMP/r16d.out")"
    tag=$(awk '$1 == "tag" { print $2 }' "$TMP/r16d/state")
    dirs_before=$(ls -d /var/run/dpdk/ini-"$tag"-* 2> /dev/null | wc -l)
    kill -9 "$(awk '$1 == "supervisor" { print $2 }' "$TMP/r16d/state")"
    awk '$1 == "daemon" { print $3 }' "$TMP/r16d/state" | xargs -r kill -9
    sleep 0.5
    $L cleanup > "$TMP/r16d-clean.out" 2>&1
    rc=$?
    dirs_after=$(ls -d /var/run/dpdk/ini-"$tag"-* 2> /dev/null | wc -l)
    segs_after=$(ls /dev/shm | grep -c "^ini-$tag-")
    if [ -n "$tag" ] && [ "$dirs_before" = 2 ] && [ "$dirs_after" = 0 ] && [ "$segs_after" = 0 ] && [ $rc = 0 ] &&
       grep -q "removed what run $tag left after its launcher or daemons died: 0 network namespace(s), 4 segment(s), 0 doorbell FIFO(s), 2 DPDK runtime directories" "$TMP/r16d-clean.out" &&
       grep -Eq '^[1-9][0-9]* stale run\(s\) cleaned$' "$TMP/r16d-clean.out"; then
        ok "16d: daemons killed: cleanup removed their 2 DPDK runtime directories, 2 segments and 2 state regions: $(grep "run $tag" "$TMP/r16d-clean.out")"
    else
        fail "16d: tag '$tag': DPDK directories before $dirs_before, after $dirs_after, segments after $segs_after, cleanup exit $rc: $(cat "$TMP/r16d-clean.out")"
    fi
    $L down conf/default.cfg --run-dir "$TMP/r16d" > /dev/null 2>&1
fi

test_end
