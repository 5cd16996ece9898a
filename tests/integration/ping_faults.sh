#!/usr/bin/env bash
# ping_faults: checks the checker.  ini-ping --inject makes the echo side
# damage every 50th echo; each kind of damage must fail the run (non-zero
# status, "verified N messages, E errors" with E > 0 in every cluster) and be
# named: a flipped payload byte as a checksum mismatch, a second copy as an
# echo that answers no outstanding request, a missing echo as a lost request
# after --timeout-ms without progress.
set -u
cd "$(dirname "$0")/../.."
CONFIG=conf/default.cfg
TMP=$(mktemp -d /tmp/ini-ping-faults.XXXXXX)
failures=0
fail() { echo "ping_faults: FAIL: $*"; failures=$((failures + 1)); }
[ -x build/bin/ini-cluster ] && [ -x build/bin/ini-ping ] && [ -x build/bin/inid ] ||
    { echo "ping_faults: FAIL: build first (make)"; exit 1; }

# fault PATTERN: the error line the damage must produce
check() {
    local fault=$1 pattern=$2
    build/bin/ini-cluster run $CONFIG --run-dir "$TMP/$fault" --timeout 120 -- \
        build/bin/ini-ping --sizes 100,3000 --count 60 --timeout-ms 1000 --inject "$fault" \
        > "$TMP/$fault.out" 2>&1
    local rc=$? bad=0
    [ "$rc" -ne 0 ] || { fail "$fault: the run succeeded"; bad=1; }
    grep -Eq -- "$pattern" "$TMP/$fault.out" || { fail "$fault: no line matching '$pattern'"; bad=1; }
    for out in "$TMP/$fault"/cluster*.out; do
        grep -Eq '^verified [0-9]+ messages, [1-9][0-9]* errors$' "$out" ||
            { fail "$fault: $(basename "$out") does not report errors"; bad=1; }
    done
    if [ "$bad" -eq 0 ]; then
        echo "ping_faults: ok: $fault detected (exit $rc)"
    else
        sed 's/^/    /' "$TMP/$fault.out"
    fi
}
check corrupt   "payload corrupted \(checksum mismatch\)"
check duplicate "answers no outstanding request"
check drop      "lost: request of [0-9]+ bytes, sequence [0-9]+, to PE [0-9]+"

if [ "$failures" -ne 0 ]; then
    echo "ping_faults: $failures failure(s); outputs in $TMP"
    exit 1
fi
echo "ping_faults: PASS"
rm -rf "$TMP"
