#!/usr/bin/env bash
# stranger: another local user (uid 65534, through setpriv) against a live
# run and against a run whose INI is being restarted (docs/security.md,
# "Who is trusted"; issue 49).  conf/default.cfg (memif, no security
# setting) brought up with `ini-cluster up` in a run directory others may
# enter (mode 755 above it).  As root the test lists what the run exposes:
# every unix socket the daemons and the supervisor listen on (their
# descriptors, /proc/net/unix), memif's control socket, each INI's
# telemetry socket (DPDK's runtime directory), the doorbell FIFOs and the
# shared-memory segments of the run (/dev/shm/*TAG*).  Then, as the
# stranger (tests/integration/lib/stranger_probe.py):
#
#   1. live run: connect to every socket (stream and seqpacket), open every
#      FIFO and segment for reading and writing: every attempt refused (or
#      the target invisible); no socket of the run is in the abstract
#      namespace, where no permission would guard it;
#   2. inid 0, the memif server, killed with SIGKILL: while the supervisor
#      restarts it, the stranger tries for 3 s, again and again, to bind
#      the memif socket's path (taking the link) and to connect to it and
#      to the telemetry sockets: every attempt refused; inid 0 is back;
#   3. ini-ping through the machine afterwards (both clusters, 0 to 65,000
#      bytes): every message verified, 0 errors;
#   4. memif's secret: a run whose INI 1 (through a wrapper, --inid) has
#      another epoch, so another secret, as an impostor of the run's owner
#      who could reach the socket would: the server refuses it ("Incorrect
#      secret" in INI 1's log), the link never comes up, the run fails
#      (about 20 s: the launcher's wait for links).
#
# Needs root (to become uid 65534) and setpriv (else exit 77).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
NAME=stranger
[ "$(id -u)" -eq 0 ] || { echo "$NAME: SKIP: needs root (to run as uid 65534)"; exit 77; }
command -v setpriv > /dev/null || { echo "$NAME: SKIP: setpriv missing (util-linux)"; exit 77; }
test_start $NAME build/bin/ini-cluster build/bin/inid build/bin/ini-ping
L=$PWD/build/bin/ini-cluster CFG=$PWD/conf/default.cfg
chmod 755 "$TMP"
RUN=$TMP/run
PROBE=$TMP/stranger_probe.py
cp tests/integration/lib/stranger_probe.py "$PROBE" && chmod 644 "$PROBE"
# A python3 the stranger may run (not one under root's home).
SPY=/usr/bin/python3
[ -x $SPY ] || SPY=$(command -v python3)
as_stranger() { (cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$SPY" "$PROBE" "$@"); }
cleanup_run() { [ -f "$RUN/state" ] && $L down "$CFG" --run-dir "$RUN" > /dev/null 2>&1; test_cleanup; }
trap cleanup_run EXIT

$L up "$CFG" --run-dir "$RUN" > "$TMP/up.out" 2>&1 || { cat "$TMP/up.out"; fail "up failed"; exit 1; }
TAG=$(awk '$1 == "tag" { print $2 }' "$RUN/state")
pids() { awk '$1 == "daemon" { print $3 } $1 == "supervisor" { print $2 }' "$RUN/state"; }

# targets FILE: what the run exposes, "KIND PATH" a line; the listening
# abstract sockets of the run's processes in FILE.abstract.
targets() {
    python3 - "$RUN" "$TAG" "$1" $(pids) <<'PY'
import glob, os, stat, sys
run, tag, out, pids = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
inodes = set()
for pid in pids:
    for fd in glob.glob("/proc/%s/fd/*" % pid):
        try:
            link = os.readlink(fd)
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
listening, abstract = set(), set()
with open("/proc/net/unix") as f:
    next(f)
    for line in f:
        w = line.split()
        if len(w) >= 8 and w[6] in inodes and int(w[3], 16) & 0x10000:
            (abstract if w[7].startswith("@") else listening).add(w[7])
listening |= set(glob.glob("/var/run/dpdk/ini-%s-*/dpdk_telemetry*" % tag))
with open(out, "w") as f:
    for p in sorted(listening | abstract):
        f.write("socket %s\n" % p)
    for p in sorted(glob.glob(run + "/memif/*.sock")):
        f.write("bindsock %s\n" % p)
    for p in sorted(glob.glob(run + "/*.wake") + glob.glob("/tmp/ini-%s-*.wake" % tag)):
        if stat.S_ISFIFO(os.stat(p).st_mode):
            f.write("fifo %s\n" % p)
    for p in sorted(glob.glob("/dev/shm/*%s*" % tag)):
        f.write("shm %s\n" % p)
with open(out + ".abstract", "w") as f:
    f.write("".join(p + "\n" for p in sorted(abstract)))
PY
}

# ---- 1. the live run -------------------------------------------------------
targets "$TMP/live.targets"
n_of() { grep -c "^$1 " "$TMP/live.targets"; }
echo "$NAME: info: $(n_of socket) listening socket(s), $(n_of bindsock) memif socket path(s), $(n_of fifo) FIFO(s)," \
     "$(n_of shm) segment(s) of run $TAG"
[ "$(grep -c dpdk_telemetry "$TMP/live.targets")" -ge 2 ] || fail "fewer than 2 telemetry sockets found"
[ "$(n_of bindsock)" = 1 ] || fail "not one memif socket in $RUN/memif"
[ "$(n_of fifo)" = 2 ] || fail "not 2 doorbell FIFOs"
[ "$(n_of shm)" -ge 2 ] || fail "fewer than 2 segments"
[ -s "$TMP/live.targets.abstract" ] && fail "sockets in the abstract namespace: $(tr '\n' ' ' < "$TMP/live.targets.abstract")"
[ "$(stat -c %a "$RUN/memif")" = 700 ] || fail "$RUN/memif is not mode 700"
if as_stranger once "$TMP/live.targets" > "$TMP/live.json" 2> "$TMP/live.err"; then
    ok "live run: every attempt of uid 65534 refused: $(cat "$TMP/live.json")"
else
    fail "live run: uid 65534 reached something: $(cat "$TMP/live.json" "$TMP/live.err")"
fi

# ---- 2. while inid 0 (the memif server) restarts --------------------------
old=$(awk '$1 == "daemon" && $2 == 0 { print $3 }' "$RUN/state")
grep -v '^shm \|^fifo ' "$TMP/live.targets" > "$TMP/restart.targets"
as_stranger loop "$TMP/restart.targets" 3 > "$TMP/restart.json" 2> "$TMP/restart.err" &
prober=$!
sleep 0.3
kill -9 "$old"
wait "$prober" && ok "during the restart: every attempt of uid 65534 refused: $(cat "$TMP/restart.json")" ||
    fail "during the restart: uid 65534 reached something: $(cat "$TMP/restart.json" "$TMP/restart.err")"
for _ in $(seq 100); do grep -q "inid 0 (cluster 0) is back" "$RUN/launcher.log" && break; sleep 0.1; done
grep -q "inid 0 (cluster 0) is back" "$RUN/launcher.log" && ok "inid 0 is back" || fail "inid 0 did not come back"
targets "$TMP/after.targets"
[ -s "$TMP/after.targets.abstract" ] && fail "after the restart: abstract sockets: $(cat "$TMP/after.targets.abstract")"
as_stranger once "$TMP/after.targets" > "$TMP/after.json" 2>&1 || fail "after the restart: $(cat "$TMP/after.json")"

# ---- 3. the run's messages -------------------------------------------------
SIZES=0,1,64,1472,1473,14800,65000 COUNT=50
for c in 0 1; do
    ( . "$RUN/cluster$c.env"; exec timeout 120 build/bin/ini-ping --sizes $SIZES --count $COUNT ) > "$TMP/ping.$c" 2>&1 &
    eval "ping$c=\$!"
done
wait "$ping0"; rc0=$?
wait "$ping1"; rc1=$?
want="verified $((2 * COUNT * 7)) messages, 0 errors"
for c in 0 1; do
    [ "$(grep '^verified' "$TMP/ping.$c")" = "$want" ] && ok "cluster $c: $want" ||
        { fail "cluster $c: not '$want' (rc $rc0/$rc1)"; cat "$TMP/ping.$c"; }
done
$L down "$CFG" --run-dir "$RUN" > "$TMP/down.out" 2>&1 || fail "down: $(cat "$TMP/down.out")"

# ---- 4. a client without the run's secret ---------------------------------
cat > "$TMP/other-epoch-inid" <<EOF
#!/usr/bin/env bash
for a in "\$@"; do [ "\$prev" = --ini ] && ini=\$a; prev=\$a; done
[ "\$ini" = 1 ] && export INI_RUN_EPOCH=0123456789abcdef0123456789abcdef
exec $PWD/build/bin/inid "\$@"
EOF
chmod +x "$TMP/other-epoch-inid"
timeout 120 $L run "$CFG" --inid "$TMP/other-epoch-inid" --run-dir "$TMP/impostor" --timeout 30 -- \
    build/bin/ini-ping --count 5 --timeout-ms 5000 > "$TMP/impostor.out" 2>&1
rc=$?
if [ $rc != 0 ] && grep -q "Incorrect secret" "$TMP/impostor/ini1.log" && ! grep -q "^verified" "$TMP/impostor.out"; then
    ok "a client with another secret: refused by the server (Incorrect secret), the run failed ($rc)"
else
    fail "a client with another secret: run exit $rc; $(grep -c 'Incorrect secret' "$TMP/impostor/ini1.log") refusals"
fi
test_end
