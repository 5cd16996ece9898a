#!/usr/bin/env bash
# launcher_output: what a user sees of the programs and where `up` puts a
# machine.
#  1. `run` shows every cluster's stdout as it comes, cluster 0's as it is
#     and the others' prefixed "[cC] ", and every cluster's stderr prefixed.
#  2. A program on libini that prints with plain printf (no flush) and is
#     stopped by Ctrl-C (SIGINT to the launcher) loses no line: libini
#     makes stdout line-buffered under the launcher, so the lines are in
#     RUN_DIR/cluster<C>.out and on the launcher's output.
#  3. `up` without --run-dir puts the machine in one place whatever the
#     current directory (/run/ini/NAME for root): `status`, `top` and `down`
#     given from another directory find it; another configuration of the
#     same name is told whose machine is there.
#  4. `up --cluster 1` (af_packet: clusters may come up alone) names
#     cluster 1's environment file in its hint, and that file exists.
#  5. A daemon's warning reaches the user: a PCI device allowed (--eal -a)
#     on a machine without enough free hugepages makes each inid warn in
#     its log, and the launcher shows the warning on stderr.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start launcher_output build/bin/ini-cluster build/bin/inid build/bin/cluster-fake-inid
test_need_data build/lib/libini.a
L=$PWD/build/bin/ini-cluster
FAKE="--inid $PWD/build/bin/cluster-fake-inid"
CONFIG=conf/default.cfg

# 1. Every cluster's output.
$L run $CONFIG $FAKE --run-dir "$TMP/r1" -- sh -c 'echo "out of $INI_CLUSTER"; echo "err of $INI_CLUSTER" >&2' \
    > "$TMP/r1.out" 2> "$TMP/r1.err"
rc=$?
if [ "$rc" = 0 ] && grep -qx 'out of 0' "$TMP/r1.out" && grep -qx '\[c1\] out of 1' "$TMP/r1.out" &&
   grep -qx '\[c0\] err of 0' "$TMP/r1.err" && grep -qx '\[c1\] err of 1' "$TMP/r1.err"; then
    ok "run shows cluster 0's stdout as is, cluster 1's as '[c1] ...', both stderrs prefixed"
else
    fail "run's output (status $rc):"; cat "$TMP/r1.out" "$TMP/r1.err"
fi

# 2. printf without a flush, then Ctrl-C.
cat > "$TMP/lines.c" <<'C'
#include <stdio.h>
#include <unistd.h>
#include "ini_cn.h"
int main(void)
{
    char err[512];
    struct ini_cn *cn = ini_cn_attach_env(err, sizeof err);
    if (!cn) { fprintf(stderr, "lines: %s\n", err); return 1; }
    for (int i = 1; i <= 3; i++)
        printf("cluster %d: line %d\n", ini_cn_cluster(cn), i);
    sleep(60);
    return 0;
}
C
# shellcheck disable=SC2046
gcc -std=c11 -Iini/cn -Iini/config -Iini/util -Iloadbal -o "$TMP/lines" "$TMP/lines.c" build/lib/libini.a \
    $(pkg-config --libs libconfig) -lpthread -lm || fail "cannot build the test program"
$L run $CONFIG $FAKE --run-dir "$TMP/r2" -- "$TMP/lines" > "$TMP/r2.out" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
    [ "$(cat "$TMP"/r2/cluster*.out 2> /dev/null | wc -l)" -ge 6 ] && break
    sleep 0.1
done
sleep 0.3
kill -INT $pid
wait $pid
rc=$?
n_files=$(cat "$TMP"/r2/cluster*.out 2> /dev/null | grep -c '^cluster [01]: line [123]$')
n_shown=$(grep -cE '^(\[c1\] )?cluster [01]: line [123]$' "$TMP/r2.out")
if [ "$rc" = 130 ] && [ "$n_files" = 6 ] && [ "$n_shown" = 6 ]; then
    ok "Ctrl-C (status 130): the 6 lines printed without a flush are in cluster0/1.out and were shown"
else
    fail "Ctrl-C: status $rc, $n_files lines in the files, $n_shown shown:"; cat "$TMP/r2.out"
fi

# 3. up's default run directory.
NAME=ini-output-test-$$
cp $CONFIG "$TMP/$NAME.cfg"
mkdir -p "$TMP/elsewhere"
(cd "$TMP" && $L up "$NAME.cfg" $FAKE > "$TMP/up.out" 2>&1) || fail "up: $(cat "$TMP/up.out")"
dir=$(sed -n 's/^# run directory: //p' "$TMP/up.out")
want=/tmp/ini-$(id -u)/$NAME
[ "$(id -u)" = 0 ] && want=/run/ini/$NAME
[ "$dir" = "$want" ] && ok "up without --run-dir: $dir" || fail "up's run directory: '$dir', want $want"
if (cd "$TMP/elsewhere" && $L status "$TMP/$NAME.cfg" > "$TMP/status.out" 2>&1) &&
   grep -q "^run directory: $want\$" "$TMP/status.out"; then
    ok "status from another directory finds the machine"
else
    fail "status from another directory: $(cat "$TMP/status.out")"
fi
mkdir -p "$TMP/other"
cp $CONFIG "$TMP/other/$NAME.cfg"
(cd "$TMP/elsewhere" && $L status "$TMP/other/$NAME.cfg" > "$TMP/other.out" 2>&1)
rc=$?
[ "$rc" = 2 ] && grep -q "holds the machine of $TMP/$NAME.cfg, not of $TMP/other/$NAME.cfg" "$TMP/other.out" &&
    ok "another configuration of the same name: $(cat "$TMP/other.out")" ||
    fail "another configuration of the same name: status $rc: $(cat "$TMP/other.out")"
(cd / && $L down "$TMP/$NAME.cfg" > "$TMP/down.out" 2>&1) && grep -q '^stopped 2 daemons' "$TMP/down.out" &&
    ok "down from / stops it" || fail "down from /: $(cat "$TMP/down.out")"
rm -rf "$want"

# 4. up of one cluster: the hint names its own file.
if [ "$(id -u)" = 0 ] && ip netns list > /dev/null 2>&1; then
    $L gen 2 1 1 --mode af_packet -o "$TMP/af.cfg" > /dev/null
    $L up "$TMP/af.cfg" $FAKE --cluster 1 --run-dir "$TMP/up1" > "$TMP/up1.out" 2>&1 || fail "up --cluster 1: $(cat "$TMP/up1.out")"
    if grep -q "e.g.  \. $TMP/up1/cluster1.env; PROGRAM" "$TMP/up1.out" && [ -f "$TMP/up1/cluster1.env" ] &&
       [ ! -e "$TMP/up1/cluster0.env" ]; then
        ok "up --cluster 1 names cluster1.env, which exists"
    else
        fail "up --cluster 1's hint:"; cat "$TMP/up1.out"; ls "$TMP/up1"
    fi
    $L down "$TMP/af.cfg" --run-dir "$TMP/up1" > /dev/null 2>&1
else
    echo "launcher_output: up --cluster 1 not checked (needs root and ip netns)"
fi

# 5. The daemons' warnings (a PCI address nobody has: EAL probes nothing).
free_mb=$(awk '/^HugePages_Free:/ { f = $2 } /^Hugepagesize:/ { s = $2 } END { print int(f * s / 1024) }' /proc/meminfo)
if [ "$free_mb" -lt 256 ]; then
    $L run $CONFIG --eal "-a 0000:ff:1f.7" --run-dir "$TMP/r5" -- build/bin/ini-ping --count 2 > "$TMP/r5.out" 2> "$TMP/r5.err"
    rc=$?
    n=$(grep -c '^ini-cluster: inid [01]: warning: a PCI device without hugepages' "$TMP/r5.err")
    [ "$rc" = 0 ] && [ "$n" = 2 ] && ok "pci without hugepages: both daemons' warnings shown: $(head -n 1 "$TMP/r5.err")" ||
        { fail "pci without hugepages: status $rc, $n warnings shown:"; cat "$TMP/r5.err"; }
else
    echo "launcher_output: the hugepage warning not checked ($free_mb MiB of hugepages free)"
fi
test_end
