#!/usr/bin/env bash
# synth_errors: bad input to the synth tools ends with exit status 2 and one
# line on stderr that names the problem, and nothing is started:
#   - ini-synth's flags, checked before it attaches (so directly, without
#     the launcher), and one of them under the launcher too, whose exit
#     status is then the program's 2;
#   - synth-queue's arguments;
#   - fig63.sh's flags (checked before it builds or runs anything).
# Also: --help prints the usage and exits 0.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
SYNTH=build/bin/ini-synth
QUEUE=build/bin/synth-queue
test_start synth_errors "$SYNTH" "$QUEUE" build/bin/ini-cluster

S="ini-synth: "
expect_error "unknown option"        "--bogus: unknown option"         "$S" $SYNTH --bogus 1
expect_error "missing value"         "--W: needs a value"              "$S" $SYNTH --W
expect_error "negative W"            "--W: '-5' is not a number"       "$S" $SYNTH --W -5
expect_error "W twice"               "W given twice"                   "$S" $SYNTH --W 10 --W-us 20
expect_error "o not a number"        "--o-us: 'abc' is not a number"   "$S" $SYNTH --o-us abc
expect_error "zero scale"            "--scale: '0' is not a number"    "$S" $SYNTH --scale 0
expect_error "bad mode"              "--mode: 'fast' is not one of sleep, spin" "$S" $SYNTH --mode fast
expect_error "bad dist"              "--dist: 'normal' is not one of exp, fixed" "$S" $SYNTH --dist normal
expect_error "bad pattern"           "--pattern: 'ring' is not"        "$S" $SYNTH --pattern ring
expect_error "hotspot share > 1"     "hotspot:SHARE: '1.5'"            "$S" $SYNTH --pattern hotspot:1.5
expect_error "hotspot bad PE"        "hotspot:SHARE:PE: 'x'"           "$S" $SYNTH --pattern hotspot:0.5:x
expect_error "hot sources no factor" "--hot-sources: '3' is not N:FACTOR" "$S" $SYNTH --hot-sources 3
expect_error "hot factor < 1"        "--hot-sources FACTOR: '0.5'"     "$S" $SYNTH --hot-sources 1:0.5
expect_error "duration and cycles"   "--duration and --cycles exclude" "$S" $SYNTH --duration 1 --cycles 5
expect_error "zero cycles"           "--cycles: '0' is not an integer" "$S" $SYNTH --cycles 0
expect_error "stray argument"        "extra: unexpected argument"      "$S" $SYNTH extra

# Under the launcher: the program's status 2 is the run's, the message
# reaches stderr with the cluster prefix; nothing else is required of the
# launcher's own lines, so check status and message only.
status=0
build/bin/ini-cluster run conf/default.cfg --run-dir "$TMP/run" --timeout 60 -- "$SYNTH" --mode fast \
    > "$TMP/out" 2> "$TMP/err" || status=$?
if [ "$status" = 2 ] && grep -qF "ini-synth: --mode: 'fast' is not one of sleep, spin" "$TMP/err" "$TMP/run"/cluster*.err 2>/dev/null; then
    ok "under the launcher: status 2, message in the cluster's stderr"
else
    fail "under the launcher: status $status"; cat "$TMP/err"
fi

Q="synth-queue: "
expect_error "synth-queue: no dir"      "no run directory"          "$Q" $QUEUE
expect_error "synth-queue: bad trim"    "--trim: '0.7'"             "$Q" $QUEUE "$TMP" --trim 0.7
expect_error "synth-queue: bad format"  "--format: 'xml'"           "$Q" $QUEUE "$TMP" --format xml
expect_error "synth-queue: extra"       "b: unexpected argument"    "$Q" $QUEUE "$TMP" b
expect_error "synth-queue: unknown"     "--bogus: unknown option"   "$Q" $QUEUE "$TMP" --bogus
expect_error "synth-queue: no value"    "--trim: needs a value"     "$Q" $QUEUE "$TMP" --trim

F="fig63.sh: "
expect_error "fig63: unknown option"   "unknown option '--bogus'"  "$F" tools/synth/fig63.sh --bogus 1
expect_error "fig63: bad N list"       "--N: '1,,2'"               "$F" tools/synth/fig63.sh --N 1,,2
expect_error "fig63: N out of range"   "--N: 0 is not in"          "$F" tools/synth/fig63.sh --N 0,1
expect_error "fig63: bad duration"     "--duration: 'x'"           "$F" tools/synth/fig63.sh --duration x
expect_error "fig63: bad scale"        "--scale: '-1'"             "$F" tools/synth/fig63.sh --scale -1
expect_error "fig63: bad measure"      "--measure: 'guess'"        "$F" tools/synth/fig63.sh --measure guess
expect_error "fig63: bad time mode"    "--time: 'host'"            "$F" tools/synth/fig63.sh --time host
expect_error "fig63: bad cycles"       "--cycles: '0'"             "$F" tools/synth/fig63.sh --time virtual --cycles 0

for prog in "$SYNTH --help" "$QUEUE --help" "tools/synth/fig63.sh --help"; do
    if $prog > "$TMP/out" 2>&1 && grep -qi usage "$TMP/out"; then
        ok "$prog"
    else
        fail "$prog"
    fi
done

test_end
