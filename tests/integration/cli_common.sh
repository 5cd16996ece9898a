#!/usr/bin/env bash
# cli_common: every program's command line follows one skeleton
# (ini/util/cli.h), checked on each program directly (nothing is started):
#   --help          usage on stdout, starting "usage: PROGRAM", nothing on
#                   stderr, exit 0;
#   --version       exactly "PROGRAM VERSION" on stdout (VERSION: the
#                   top-level VERSION file), exit 0;
#   an unknown flag exactly one line on stderr, "PROGRAM: FLAG: unknown
#                   option", nothing on stdout, exit 2;
#   a flag without its value: one line "PROGRAM: ...FLAG: needs a value",
#                   exit 2.
# Programs with commands (ini-cluster, ini-trace) are asked inside one.
# Every program in build/bin (test_* excepted) must be in the list below.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start cli_common
B=build/bin
VERSION=$(cat VERSION)

# PROGRAM | words before the flag (a command and its operands) | a flag that takes a value
PROGRAMS=(
    "inid||--config"
    "ini-cluster|run conf/default.cfg|--run-dir"
    "cluster-fake-inid||--config"
    "ini-ping||--count"
    "ini-synth||--W"
    "synth-queue|/tmp|--trim"
    "ini-trace|report|--format"
    "ini-model||--N"
    "ini-bench||--runs"
    "mgs-litmus||--rounds"
    "water||--random"
    "em3d||--nodes"
    "water_compare||--tol"
    "ini-vtime-bench||--events"
    "ini-vtime-queue||--rho"
)

# run NAME ARGS...: the program's stdout, stderr and status in $TMP/out, $TMP/err, $status
run() {
    local name=$1; shift
    timeout 20 "$B/$name" "$@" < /dev/null > "$TMP/out" 2> "$TMP/err"
    status=$?
}

# A program that is built but not listed would escape the checks.
for bin in "$B"/*; do
    name=$(basename "$bin")
    [ -f "$bin" ] && [ -x "$bin" ] || continue
    case $name in test_*) continue ;; esac
    listed=0
    for entry in "${PROGRAMS[@]}"; do [ "${entry%%|*}" = "$name" ] && listed=1; done
    if [ "$listed" = 1 ]; then ok "$name is checked"; else fail "$name is built but not checked (add it to PROGRAMS)"; fi
done

for entry in "${PROGRAMS[@]}"; do
    IFS='|' read -r prog words value_flag <<< "$entry"
    [ -x "$B/$prog" ] || { fail "$prog: not built (make)"; continue; }
    # shellcheck disable=SC2206
    pre=($words)
    cmd="$prog${words:+ $words}"

    run "$prog" --help
    if [ "$status" = 0 ] && [ ! -s "$TMP/err" ] && head -n 1 "$TMP/out" | grep -q "^usage: $prog "; then
        ok "$prog --help"
    else
        fail "$prog --help: status $status, stdout '$(head -n 1 "$TMP/out")', stderr '$(cat "$TMP/err")'"
    fi

    run "$prog" --version
    if [ "$status" = 0 ] && [ ! -s "$TMP/err" ] && [ "$(cat "$TMP/out")" = "$prog $VERSION" ]; then
        ok "$prog --version: $(cat "$TMP/out")"
    else
        fail "$prog --version: status $status, stdout '$(cat "$TMP/out")', wanted '$prog $VERSION'"
    fi

    # An unknown flag, and the flag that takes a value given none: the
    # line each must print after "PROGRAM: " (an extended regex).
    bad_flags=(--no-such-flag "$value_flag")
    wanted=("(${pre[0]:-$prog}: )?--no-such-flag: unknown option" "(.*: )?$value_flag: needs a value")
    for k in 0 1; do
        flag=${bad_flags[$k]}
        run "$prog" "${pre[@]}" "$flag"
        lines=$(wc -l < "$TMP/err")
        if [ "$status" = 2 ] && [ "$lines" = 1 ] && [ ! -s "$TMP/out" ] &&
           grep -Eq "^$prog: ${wanted[$k]}\$" "$TMP/err"; then
            ok "$cmd $flag: $(cat "$TMP/err")"
        else
            fail "$cmd $flag: status $status, $lines stderr lines: $(cat "$TMP/err" "$TMP/out")"
        fi
    done
done

# The daemon's EAL arguments still pass through after "--": a --help there
# is EAL's business, not inid's, so inid goes on to check its own flags.
run inid --ini 0 -- --help
if [ "$status" = 2 ] && grep -q "^inid: --config, --ini, --tag and --run-dir are required\$" "$TMP/err"; then
    ok "inid -- --help is left to EAL"
else
    fail "inid -- --help: status $status: $(cat "$TMP/err" "$TMP/out")"
fi

test_end
