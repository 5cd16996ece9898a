#!/usr/bin/env bash
# install: `make install DESTDIR=... PREFIX=/usr` installs programs,
# libraries, headers (each compiles alone as C, and all of them from C++
# with g++ and clang++), ini.pc, man pages and examples; a program of this
# test's own (an all-to-all with replies, tests/integration/progs/) builds
# from that tree alone with gcc and with clang, against the shared and the
# static libraries, and runs under ini-cluster with 0 errors.  So do the
# examples of examples/, if any.  Only user programs are installed (not
# the tests' helpers), Water as ini-water, which finds its installed data
# file; `make uninstall` with the same variables leaves the tree empty.
set -u
cd "$(dirname "$0")/../.."
TEST_NAME=install
. tests/integration/lib/userprog.sh
[ -x build/bin/ini-cluster ] || userprog_fail "build first (make)"
ROOT=$(mktemp -d /tmp/ini-install.XXXXXX)
W=$(mktemp -d /tmp/ini-install-prog.XXXXXX)
USERPROG_TMP=$W
trap 'rm -rf "$ROOT" "$W"' EXIT

make --no-print-directory install DESTDIR="$ROOT" PREFIX=/usr > "$W/install.log" 2>&1 ||
    { cat "$W/install.log"; userprog_fail "make install failed"; }
P=$ROOT/usr
for f in bin/inid bin/ini-cluster bin/ini-ping lib/libini.so.0 lib/libini.a lib/libmgs.so lib/libmgs.a \
         lib/pkgconfig/ini.pc include/ini/ini_cn.h include/ini/config.h include/ini/ini_policy.h \
         include/ini/mgs.h include/ini/par.h share/ini/conf/default.cfg; do
    [ -e "$P/$f" ] || userprog_fail "not installed: /usr/$f"
done
grep -q '^prefix=/usr$' "$P/lib/pkgconfig/ini.pc" || userprog_fail "ini.pc: prefix is not /usr"
# Every public header compiles on its own, with nothing but the installed
# include directory.
for h in "$P"/include/ini/*.h; do
    echo "#include <ini/$(basename "$h")>" | gcc -std=c11 -Wall -Werror -fsyntax-only -nostdinc -isystem \
        "$(gcc -print-file-name=include)" -isystem /usr/include/x86_64-linux-gnu -isystem /usr/include \
        -I"$P/include" -x c - || userprog_fail "$(basename "$h") does not compile alone"
done
# The same headers from C++: a program including all of them, calling
# into both libraries, builds with g++ and clang++ and runs.
cxxs=(g++)
command -v clang++ > /dev/null && cxxs+=(clang++) || echo "install: clang++ not installed: g++ only"
for cxx in "${cxxs[@]}"; do
    userprog_build "$ROOT" /usr "$cxx" tests/integration/progs/headers.cc "$W/headers-$cxx" c++17
    out=$("$W/headers-$cxx") || userprog_fail "the C++ program built by $cxx failed: $out"
    [ "$out" = "headers: round-robin ok linked" ] || userprog_fail "the C++ program built by $cxx printed: $out"
done
echo "install: every public header builds from C++ (${cxxs[*]})"
# No object in the static libraries is an LTO-only one (GCC's IL).
for a in "$P"/lib/libini.a "$P"/lib/libmgs.a; do
    ! nm "$a" 2>/dev/null | grep -q '__gnu_lto' || userprog_fail "$a holds LTO objects"
done
if [ -d examples ] && ls examples/*.c > /dev/null 2>&1; then
    [ "$(ls "$P"/share/doc/ini/examples/*.c | wc -l)" = "$(ls examples/*.c | wc -l)" ] ||
        userprog_fail "examples not installed"
fi
if [ -d man ]; then
    # Every page but those of the tests' helpers (water_compare, cluster-fake-inid).
    n=$(find man -name '*.[1-8]' ! -name 'water_compare.1' ! -name 'cluster-fake-inid.1' | wc -l)
    [ "$(find "$P/share/man" -name '*.[1-8]*' 2>/dev/null | wc -l)" -ge "$n" ] || userprog_fail "man pages not installed"
fi

# Only the user programs: not the tests' helpers; Water, EM3D and
# synth-queue as ini-water, ini-em3d and ini-synth-queue.
for f in bin/water_compare bin/cluster-fake-inid bin/water share/man/man1/water.1 share/man/man1/water_compare.1 \
         bin/em3d bin/synth-queue share/man/man1/em3d.1; do
    [ ! -e "$P/$f" ] || userprog_fail "installed, and it should not be: /usr/$f"
done
for f in bin/ini-water share/man/man1/ini-water.1 share/ini/water/random.in bin/ini-em3d share/man/man1/ini-em3d.1 \
         bin/ini-synth-queue share/man/man1/ini-synth-queue.1; do
    [ -e "$P/$f" ] || userprog_fail "not installed: /usr/$f"
done
head -n 3 "$P/share/man/man1/ini-water.1" | grep -q '^ini-water \\- ' || userprog_fail "ini-water.1 does not name ini-water"
grep -q '^\.BR ini-synth-queue (1)' "$P/share/man/man1/ini-synth.1" ||
    userprog_fail "ini-synth.1 does not refer to ini-synth-queue(1)"
! grep -l '^\.BR \(water\|em3d\|synth-queue\) (1)' "$P"/share/man/man1/*.1 ||
    userprog_fail "installed pages refer to programs by names not installed (above)"
(cd "$W" && printf '1.5e-16 8 1 6 -1 3000 1 0 1 6.2\n' | "$P/bin/ini-water" > water.out 2> water.err) ||
    userprog_fail "ini-water, run elsewhere, did not find its installed data file: $(cat "$W/water.err")"

compilers=(gcc)
command -v clang > /dev/null && compilers+=(clang) || echo "install: clang not installed: gcc only"
checked=0
for cc in "${compilers[@]}"; do
    userprog_build "$ROOT" /usr "$cc" tests/integration/progs/alltoall.c "$W/alltoall-$cc"
    userprog_build_static "$ROOT" /usr "$cc" tests/integration/progs/alltoall.c "$W/alltoall-$cc-static"
    for prog in "$W/alltoall-$cc" "$W/alltoall-$cc-static"; do
        userprog_run install conf/default.cfg "$prog" 4
        [ "$USERPROG_RC" = 0 ] || userprog_fail "$(basename "$prog") exited with $USERPROG_RC"
        # 2 clusters x 2 PEs: each PE gets 4 rounds from each of the 3 others.
        for c in 0 1; do
            grep -q "^alltoall: cluster $c: 24 requests answered, 24 replies checked, 0 errors$" "$USERPROG_OUT" ||
                userprog_fail "$(basename "$prog"): cluster $c did not report 24 requests, 24 replies, 0 errors"
        done
        rm -f "$USERPROG_OUT"
        checked=$((checked + 1))
    done
    for ex in examples/*.c; do
        [ -f "$ex" ] || continue
        name=$(basename "$ex" .c)
        userprog_build "$ROOT" /usr "$cc" "$P/share/doc/ini/examples/$name.c" "$W/$name-$cc"
        userprog_run install conf/default.cfg "$W/$name-$cc"
        [ "$USERPROG_RC" = 0 ] || userprog_fail "example $name ($cc) exited with $USERPROG_RC"
        ! grep -Eiq '[1-9][0-9]* errors' "$USERPROG_OUT" || userprog_fail "example $name ($cc) reported errors"
        rm -f "$USERPROG_OUT"
        checked=$((checked + 1))
    done
done
make --no-print-directory uninstall DESTDIR="$ROOT" PREFIX=/usr > "$W/uninstall.log" 2>&1 ||
    { cat "$W/uninstall.log"; userprog_fail "make uninstall failed"; }
left=$(find "$ROOT" -mindepth 1 | head -n 5)
[ -z "$left" ] || userprog_fail "make uninstall left: $left"
echo "install: PASS ($checked programs built from the installed tree with ${compilers[*]} and run, 0 errors; $(tail -n 1 "$W/uninstall.log"), nothing left)"
