# common.sh - the start and the end that integration scripts share.
# Sourced by a script that has gone to the top of the tree:
#
#   cd "$(dirname "$0")/../.."
#   . tests/integration/lib/common.sh
#   test_start NAME [PROGRAM...]
#
# test_start NAME [PROGRAM...]
#     NAME names the script in every line it prints.  Each PROGRAM (a path
#     such as build/bin/inid) must be built, or the test stops at once:
#     "NAME: FAIL: PROGRAM not built (run make)", status 1.  Then TMP is a
#     fresh directory, /tmp/ini-NAME.XXXXXX, and failures is 0.  At exit
#     TMP is removed, unless something failed: then it is kept, and said,
#     for a look at the outputs.
# test_need_netns       root and `ip netns` (the LAN modes' namespaces),
#     else "NAME: SKIP: ..." and status 77 (skipped)
# test_need_data FILE   a data file the test reads, else
#     "NAME: FAIL: data file FILE missing", status 1
# water_test_start NAME [PROGRAM...]
#     test_start for a test of Water: WATER is the program
#     (build/bin/water) and RANDOM_IN its data file ($WATER_RANDOM, else
#     tools/apps/water/data/random.in in the tree), both absolute paths,
#     and both must be there
# fail MESSAGE          "NAME: FAIL: MESSAGE", counted in failures
# ok MESSAGE            "NAME: ok: MESSAGE"
# expect_error WHAT NEEDLE PREFIX COMMAND...
#     COMMAND (its stdin the caller's) must refuse its input the way the
#     command-line skeleton does: status 2, nothing on stdout, one line on
#     stderr starting with PREFIX ("ini-synth: ") and containing NEEDLE;
#     ok or fail accordingly, naming WHAT
# test_end              "NAME: PASS" and status 0 when nothing failed,
#     else "NAME: N failure(s)" and status 1

test_start() {
    TEST_NAME=$1
    shift
    local p
    for p in "$@"; do
        [ -x "$p" ] || { echo "$TEST_NAME: FAIL: $p not built (run make)"; exit 1; }
    done
    TMP=$(mktemp -d "/tmp/ini-$TEST_NAME.XXXXXX")
    failures=0
    trap test_cleanup EXIT
}

test_cleanup() {
    if [ "$failures" -eq 0 ]; then
        rm -rf "$TMP"
    else
        echo "$TEST_NAME: files kept in $TMP"
    fi
}

test_need_netns() {
    if [ "$(id -u)" -ne 0 ]; then echo "$TEST_NAME: SKIP: needs root (network namespaces)"; exit 77; fi
    if ! ip netns list > /dev/null 2>&1; then echo "$TEST_NAME: SKIP: 'ip netns' is unavailable"; exit 77; fi
}

test_need_data() {
    [ -r "$1" ] || { echo "$TEST_NAME: FAIL: data file $1 missing"; exit 1; }
}

water_test_start() {
    local name=$1
    shift
    WATER=$PWD/build/bin/water
    RANDOM_IN=${WATER_RANDOM:-$PWD/tools/apps/water/data/random.in}
    test_start "$name" "$WATER" "$@"
    test_need_data "$RANDOM_IN"
}

fail() { echo "$TEST_NAME: FAIL: $*"; failures=$((failures + 1)); }
ok()   { echo "$TEST_NAME: ok: $*"; }

expect_error() {
    local what=$1 needle=$2 prefix=$3
    shift 3
    local status=0
    "$@" > "$TMP/expect_error.out" 2> "$TMP/expect_error.err" || status=$?
    local lines
    lines=$(wc -l < "$TMP/expect_error.err")
    if [ "$status" = 2 ] && [ "$lines" = 1 ] && [ ! -s "$TMP/expect_error.out" ] &&
       grep -q "^$prefix" "$TMP/expect_error.err" && grep -qF -- "$needle" "$TMP/expect_error.err"; then
        ok "$what: $(cat "$TMP/expect_error.err")"
    else
        fail "$what: status $status, $lines stderr lines, wanted '$needle':"
        cat "$TMP/expect_error.err" "$TMP/expect_error.out"
    fi
}

# vt_golden CASE CYCLES: a virtual-time run's cycles against the committed
# figure in tests/integration/vtime_golden.tsv (as SimGrid's tesh files
# hold simulated times): declared work gives the same cycles on every host
# and CPU kind, so a difference is a change of the model or a bug.  A
# change meant to move them updates the file in the same commit.
vt_golden() {
    local case=$1 got=$2 want cpu
    want=$(awk -F'\t' -v c="$case" '$1 == c { print $2 }' tests/integration/vtime_golden.tsv)
    cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
    if [ -n "$want" ] && [ "$got" = "$want" ]; then
        ok "golden $case: $got cycles, as committed ($cpu)"
    else
        fail "golden $case: $got cycles, committed '$want' ($cpu); if the change was meant to move them, update tests/integration/vtime_golden.tsv"
    fi
}

test_end() {
    if [ "$failures" -eq 0 ]; then
        echo "$TEST_NAME: PASS"
        exit 0
    fi
    echo "$TEST_NAME: $failures failure(s)"
    exit 1
}
