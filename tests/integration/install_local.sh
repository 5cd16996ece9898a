#!/usr/bin/env bash
# install_local: the install a user makes, `make install PREFIX=/usr/local`,
# and nothing else: a program built with `cc prog.c $(pkg-config --cflags
# --libs ini)` (no LD_LIBRARY_PATH, no ldconfig of the user's) runs under
# /usr/local/bin/ini-cluster on this host, and across 2 hosts of a lab
# (tools/cluster/ini-lab) over ssh; `make uninstall PREFIX=/usr/local`
# then leaves /usr/local as it found it (every path, type and mode listed
# before the install and after the uninstall, compared) and ldconfig's
# cache without libini.
# Skipped (77) unless root, and when /usr/local already holds an INI
# installation (not the test's to touch).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start install_local build/bin/ini-cluster build/bin/inid
[ "$(id -u)" = 0 ] || { echo "install_local: SKIP: needs root (it installs into /usr/local)"; exit 77; }
if [ -e /usr/local/bin/ini-cluster ] || ls /usr/local/lib/libini.* > /dev/null 2>&1 ||
   [ -e /usr/local/share/ini ]; then
    echo "install_local: SKIP: /usr/local holds an INI installation already"; exit 77
fi
snapshot() { find /usr/local -printf '%y %m %p\n' | sort; }
snapshot > "$TMP/before"
export INI_LAB=il$$
installed=0
cleanup() {
    tools/cluster/ini-lab down > /dev/null 2>&1
    [ $installed = 1 ] && make --no-print-directory uninstall PREFIX=/usr/local > /dev/null 2>&1
    test_cleanup
}
trap cleanup EXIT
unset LD_LIBRARY_PATH PKG_CONFIG_PATH
make --no-print-directory install PREFIX=/usr/local > "$TMP/install.log" 2>&1 || { cat "$TMP/install.log"; fail "make install"; test_end; }
installed=1
ok "make install PREFIX=/usr/local: $(tail -n 1 "$TMP/install.log")"

# A user's program, built as docs/api.md says, and nothing more.
# shellcheck disable=SC2046
cc -std=c11 -o "$TMP/alltoall" tests/integration/progs/alltoall.c $(pkg-config --cflags --libs ini) ||
    { fail "cc ... \$(pkg-config --cflags --libs ini) failed"; test_end; }
runpath=$(readelf -d "$TMP/alltoall" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
[ "$runpath" = /usr/local/lib ] && ok "the program's run path: $runpath (from ini.pc)" ||
    fail "the program's run path: '$runpath' (want /usr/local/lib)"
ldd "$TMP/alltoall" | grep -q '/usr/local/lib/libini.so.0' || fail "the program does not find /usr/local/lib/libini.so.0: $(ldd "$TMP/alltoall" | grep libini)"

/usr/local/bin/ini-cluster run /usr/local/share/ini/conf/default.cfg --run-dir "$TMP/local" -- "$TMP/alltoall" 4 \
    > "$TMP/local.out" 2>&1
rc=$?
n=$(grep -cE '^(\[c1\] )?alltoall: cluster [01]: 24 requests answered, 24 replies checked, 0 errors$' "$TMP/local.out")
[ "$rc" = 0 ] && [ "$n" = 2 ] && ok "on this host: both clusters 24 requests, 24 replies, 0 errors" ||
    { fail "on this host: status $rc, $n clusters clean"; tail -n 5 "$TMP/local.out"; }

# Across 2 hosts over ssh: the launcher, the daemons and the program from /usr/local.
if tools/cluster/ini-lab up 2 > "$TMP/lab.log" 2>&1; then
    /usr/local/bin/ini-cluster gen 2 2 1 --hosts h0,h1 --device d0 -o "$TMP/2h.cfg" > /dev/null
    tools/cluster/ini-lab exec head /usr/local/bin/ini-cluster run "$TMP/2h.cfg" --run-dir "$TMP/ssh" \
        --ssh "$(tools/cluster/ini-lab ssh)" -- "$TMP/alltoall" 4 > "$TMP/ssh.out" 2>&1
    rc=$?
    n=$(grep -cE '^\[c[01]\] alltoall: cluster [01]: 24 requests answered, 24 replies checked, 0 errors$' "$TMP/ssh.out")
    [ "$rc" = 0 ] && [ "$n" = 2 ] && ok "over ssh on 2 hosts: both clusters 24 requests, 24 replies, 0 errors" ||
        { fail "over ssh: status $rc, $n clusters clean"; tail -n 8 "$TMP/ssh.out"; }
    tools/cluster/ini-lab down > /dev/null 2>&1
else
    fail "ini-lab up 2: $(tail -n 3 "$TMP/lab.log")"
fi

make --no-print-directory uninstall PREFIX=/usr/local > "$TMP/uninstall.log" 2>&1 || fail "make uninstall"
installed=0
snapshot > "$TMP/after"
if cmp -s "$TMP/before" "$TMP/after"; then
    ok "make uninstall: $(tail -n 1 "$TMP/uninstall.log"); /usr/local as before ($(wc -l < "$TMP/after") paths)"
else
    fail "make uninstall left /usr/local changed:"; diff "$TMP/before" "$TMP/after" | head -20
fi
ldconfig -p | grep -q libini && fail "ldconfig's cache still names libini" || ok "ldconfig's cache has no libini"
test_end
