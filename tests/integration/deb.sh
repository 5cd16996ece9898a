#!/usr/bin/env bash
# deb: `make deb` builds the Debian package; extracted with dpkg -x into a
# scratch root (never installed into this system), it holds the programs,
# the libraries, the headers, ini.pc, the systemd unit and man pages (if
# the tree has any); a program of this test's own (tests/integration/progs)
# and the examples build from the extracted files alone with gcc via
# pkg-config and run under the extracted ini-cluster with 0 errors.  The
# package holds the user programs only (Water as ini-water, with its data
# file), a copyright file, and depends on what its programs link, and on
# nothing the build host merely happens to have (ini-bench's UCX and
# libfabric peers are left out of the package: BENCH_PEERS=none); the
# daemons the extracted launcher starts log no "Failed to register mp
# action callback" (DPDK's multi-process channel, issue 46, point 9).
# dpkg-buildpackage and debhelper are the test's own tools (make deps
# installs them): without them the test fails, it does not skip.
set -u
cd "$(dirname "$0")/../.."
TEST_NAME=deb
. tests/integration/lib/userprog.sh
for t in dpkg-buildpackage dh; do
    command -v $t > /dev/null || userprog_fail "$t not installed (make deps installs dpkg-dev and debhelper)"
done
[ -x build/bin/ini-cluster ] || userprog_fail "build first (make)"
make --no-print-directory deb DEB_FLAGS=--reuse-build || userprog_fail "make deb failed"
DEB=$(ls build/deb/ini_"$(cat VERSION)"_*.deb)
ROOT=$(mktemp -d /tmp/ini-deb.XXXXXX)
W=$(mktemp -d /tmp/ini-deb-prog.XXXXXX)
trap 'rm -rf "$ROOT" "$W"' EXIT
dpkg -x "$DEB" "$ROOT"
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
for f in usr/bin/inid usr/bin/ini-cluster usr/bin/ini-ping "usr/lib/$MA/libini.so.0" "usr/lib/$MA/libini.a" \
         "usr/lib/$MA/libmgs.so" "usr/lib/$MA/pkgconfig/ini.pc" usr/include/ini/ini_cn.h usr/include/ini/mgs.h \
         lib/systemd/system/ini-cluster@.service etc/ini/default.cfg; do
    [ -e "$ROOT/$f" ] || userprog_fail "$DEB has no /$f"
done
if [ -d man ] && [ -n "$(find man -name '*.[1-8]')" ]; then
    [ -n "$(find "$ROOT/usr/share/man" -name '*.[1-8]*' 2> /dev/null)" ] || userprog_fail "$DEB has no man pages"
fi
dpkg -I "$DEB" | grep -q 'Depends:.*libconfig' || userprog_fail "$DEB does not depend on libconfig"
dpkg -I "$DEB" | grep -q 'Depends:.*libsodium' || userprog_fail "$DEB does not depend on libsodium (inid links it)"
dpkg -I "$DEB" | grep -Eiq '^ *(Depends|Pre-Depends):.*(ucx|libucp|libuct|libucs|libfabric)' &&
    userprog_fail "$DEB depends on UCX or libfabric (the build host's): $(dpkg -I "$DEB" | grep 'Depends:')"
objdump -p "$ROOT/usr/bin/ini-bench" | grep -Eq 'NEEDED +lib(ucp|uct|ucs|fabric)' &&
    userprog_fail "the package's ini-bench links UCX or libfabric: $(objdump -p "$ROOT/usr/bin/ini-bench" | grep -E 'NEEDED +lib(uc|fabric)')"
for f in usr/bin/ini-water usr/share/ini/water/random.in usr/share/doc/ini/copyright usr/share/man/man1/ini-water.1.gz \
         "usr/lib/$MA/wireshark/plugins/ini.lua"; do
    [ -e "$ROOT/$f" ] || userprog_fail "$DEB has no /$f"
done
for f in usr/bin/water usr/bin/water_compare usr/bin/cluster-fake-inid usr/share/ini/installed; do
    [ ! -e "$ROOT/$f" ] || userprog_fail "$DEB has /$f, which it should not"
done
grep -q '^License: BSD-3-Clause' "$ROOT/usr/share/doc/ini/copyright" || userprog_fail "$DEB's copyright names no licence"

ran=0
userprog_build "$ROOT" /usr gcc tests/integration/progs/alltoall.c "$W/alltoall"
# The extracted launcher, which starts the extracted inid beside it.
LAUNCHER="$ROOT/usr/bin/ini-cluster"
run_extracted() {
    local dir
    dir=$(mktemp -d "$W/run.XXXXXX")
    USERPROG_OUT="$dir.out"
    "$LAUNCHER" run "$ROOT/etc/ini/default.cfg" --run-dir "$dir" --timeout 120 -- "$@" > "$USERPROG_OUT" 2>&1
    USERPROG_RC=$?
    for f in "$dir"/cluster*.out; do cat "$f"; done >> "$USERPROG_OUT"
    sed 's/^/    /' "$USERPROG_OUT"
    ls "$dir"/ini*.log > /dev/null 2>&1 || userprog_fail "no daemon log in $dir"
    ! grep -l 'mp action callback' "$dir"/ini*.log ||
        userprog_fail "a daemon log says DPDK's 'Failed to register mp action callback'"
    rm -rf "$dir"
}
run_extracted "$W/alltoall" 4
[ "$USERPROG_RC" = 0 ] || userprog_fail "alltoall exited with $USERPROG_RC"
for c in 0 1; do
    grep -q "^alltoall: cluster $c: 24 requests answered, 24 replies checked, 0 errors$" "$USERPROG_OUT" ||
        userprog_fail "cluster $c did not report 24 requests, 24 replies, 0 errors"
done
ran=$((ran + 1))
for ex in "$ROOT"/usr/share/doc/ini/examples/*.c; do
    [ -f "$ex" ] || continue
    name=$(basename "$ex" .c)
    userprog_build "$ROOT" /usr gcc "$ex" "$W/$name"
    run_extracted "$W/$name"
    [ "$USERPROG_RC" = 0 ] || userprog_fail "example $name exited with $USERPROG_RC"
    ! grep -Eiq '[1-9][0-9]* errors' "$USERPROG_OUT" || userprog_fail "example $name reported errors"
    ran=$((ran + 1))
done
rm -f "$USERPROG_OUT"
echo "deb: PASS ($DEB: $ran programs built from its files and run, 0 errors)"
