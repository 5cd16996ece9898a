#!/usr/bin/env bash
# examples: the programs in examples/ built as a user builds them and run
# under the launcher, each asserting its own result line with 0 errors.
#
#   1. In the tree: an include directory holding ini/ (links to ini/*.h,
#      mgs/mgs.h, mgs/par.h, as `make install` lays them out), so that
#      `#include <ini/ini_cn.h>` resolves, and build/libmgs.a build/libini.a
#      -lconfig -lpthread -lm.
#   2. If `pkg-config --exists ini` (an installed tree; set PKG_CONFIG_PATH for
#      a DESTDIR install): `cc prog.c $(pkg-config --cflags --libs ini)`, and
#      the same with clang if it is installed.
#
# Each build runs on conf/default.cfg (2 clusters x 2 PEs x 1 INI); alltoall
# also on conf/4x2.cfg under round-robin (4 clusters x 2 PEs x 2 INIs,
# messages of one pair overtaking each other).  The launcher is
# build/bin/ini-cluster, or $EXAMPLES_LAUNCHER.
set -u
cd "$(dirname "$0")/../.."
NAME=examples
LAUNCHER=${EXAMPLES_LAUNCHER:-build/bin/ini-cluster}
fail() { echo "$NAME: FAIL: $*"; exit 1; }
[ -x "$LAUNCHER" ] || fail "no $LAUNCHER (make first)"

WORK=$(mktemp -d /tmp/ini-examples.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
WARN=(-Wall -Wextra -Werror)

# run_example BUILD PROG CONFIG 'EXPECTED LINE of cluster 0' 'of cluster 1' ... [-- LAUNCHER ARGS]
# Runs BUILD/PROG on CONFIG; the launcher must exit 0 and cluster C's stdout
# must end with the C-th expected line.
run_example() {
    local build=$1 prog=$2 config=$3
    shift 3
    local want=() extra=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do want+=("$1"); shift; done
    [ $# -gt 0 ] && { shift; extra=("$@"); }
    local run="$WORK/run-$build-$prog-$(basename "$config" .cfg)"
    "$LAUNCHER" run "$config" --run-dir "$run" --timeout 120 "${extra[@]}" -- "$WORK/$build/$prog" \
        > "$run.out" 2>&1
    local rc=$?
    [ "$rc" -eq 0 ] || { cat "$run.out"; fail "$build/$prog on $config: ini-cluster exited with $rc"; }
    for c in "${!want[@]}"; do
        local got
        got=$(tail -n 1 "$run/cluster$c.out")
        [ "$got" = "${want[c]}" ] ||
            { cat "$run.out" "$run/cluster$c.err"; fail "$build/$prog cluster $c: '$got', expected '${want[c]}'"; }
    done
    echo "$NAME: $build/$prog on $(basename "$config"): ${want[*]}"
    rm -rf "$run" "$run.out"
}

run_all() {
    local build=$1
    run_example "$build" pingpong conf/default.cfg \
        "pingpong: cluster 0: 200 round trips, 0 errors" "pingpong: cluster 1: 200 pings answered, 0 errors"
    # 2 PEs x 2 remote PEs x 50 rounds per cluster.
    run_example "$build" alltoall conf/default.cfg \
        "alltoall: cluster 0: 200 replies, 0 errors" "alltoall: cluster 1: 200 replies, 0 errors"
    # 4 PEs x 200 increments.
    run_example "$build" mgs_counter conf/default.cfg \
        "mgs_counter: cluster 0: counter 800, expected 800, 0 errors" \
        "mgs_counter: cluster 1: counter 800, expected 800, 0 errors"
}

# 1. In the tree.
[ -f build/libini.a ] && [ -f build/libmgs.a ] || fail "no build/libini.a, build/libmgs.a (make first)"
mkdir -p "$WORK/include/ini" "$WORK/tree"
ln -s "$PWD"/ini/cn/ini_cn.h "$PWD"/ini/config/config.h "$PWD/loadbal/ini_policy.h" "$PWD/mgs/mgs.h" "$PWD/mgs/par.h" "$WORK/include/ini/"
for prog in pingpong alltoall mgs_counter; do
    cc "${WARN[@]}" -O2 -I"$WORK/include" -o "$WORK/tree/$prog" "examples/$prog.c" \
        build/libmgs.a build/libini.a -lconfig -lpthread -lm ||
        fail "examples/$prog.c does not build in the tree"
done
run_all tree
# Messages of one pair through different INI pairs: no order, still exactly once.
run_example tree alltoall conf/4x2.cfg \
    "alltoall: cluster 0: 600 replies, 0 errors" "alltoall: cluster 1: 600 replies, 0 errors" \
    "alltoall: cluster 2: 600 replies, 0 errors" "alltoall: cluster 3: 600 replies, 0 errors" \
    -- --policy round-robin --ini-policy round-robin

# 2. From an installed tree, as a user does.
if ! pkg-config --exists ini 2>/dev/null; then
    echo "$NAME: PASS (in the tree; no pkg-config package 'ini' installed, installed-tree builds not tried)"
    exit 0
fi
libdir=$(pkg-config --variable=libdir ini)
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
compilers=(cc)
command -v clang > /dev/null && compilers+=(clang)
for compiler in "${compilers[@]}"; do
    mkdir -p "$WORK/$compiler"
    for prog in pingpong alltoall mgs_counter; do
        # shellcheck disable=SC2046  # pkg-config's output is meant to be split
        "$compiler" "${WARN[@]}" -o "$WORK/$compiler/$prog" "examples/$prog.c" $(pkg-config --cflags --libs ini) ||
            fail "examples/$prog.c does not build with $compiler and pkg-config ini"
    done
    run_all "$compiler"
done
echo "$NAME: PASS (in the tree, and with pkg-config ini ($(pkg-config --modversion ini)) by ${compilers[*]})"
