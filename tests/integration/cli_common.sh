#!/usr/bin/env bash
# cli_common: every program's command line follows one skeleton
# (tools/cli.h), checked on each program directly (nothing is started):
#   --help          usage on stdout, starting "usage: PROGRAM", nothing on
#                   stderr, exit 0;
#   --version       exactly "PROGRAM VERSION" on stdout (VERSION: the
#                   top-level VERSION file), exit 0;
#   an unknown flag exactly one line on stderr, "PROGRAM: FLAG: unknown
#                   option", nothing on stdout, exit 2;
#   a flag without its value: one line "PROGRAM: ...FLAG: needs a value",
#                   exit 2.
# Programs with commands (ini-cluster, ini-trace) are asked inside one.
set -u
cd "$(dirname "$0")/../.."
B=build/bin
VERSION=$(cat VERSION)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

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
)

# run NAME ARGS...: the program's stdout, stderr and status in $tmp/NAME.*
run() {
    local name=$1; shift
    timeout 20 "$B/$name" "$@" < /dev/null > "$tmp/out" 2> "$tmp/err"
    status=$?
}

for entry in "${PROGRAMS[@]}"; do
    IFS='|' read -r prog words value_flag <<< "$entry"
    [ -x "$B/$prog" ] || { fail "$prog: not built (make)"; continue; }
    # shellcheck disable=SC2206
    pre=($words)
    cmd="$prog${words:+ $words}"

    run "$prog" --help
    if [ "$status" = 0 ] && [ ! -s "$tmp/err" ] && head -n 1 "$tmp/out" | grep -q "^usage: $prog "; then
        echo "ok:   $prog --help"
    else
        fail "$prog --help: status $status, stdout '$(head -n 1 "$tmp/out")', stderr '$(cat "$tmp/err")'"
    fi

    run "$prog" --version
    if [ "$status" = 0 ] && [ ! -s "$tmp/err" ] && [ "$(cat "$tmp/out")" = "$prog $VERSION" ]; then
        echo "ok:   $prog --version: $(cat "$tmp/out")"
    else
        fail "$prog --version: status $status, stdout '$(cat "$tmp/out")', wanted '$prog $VERSION'"
    fi

    run "$prog" "${pre[@]}" --no-such-flag
    lines=$(wc -l < "$tmp/err")
    if [ "$status" = 2 ] && [ "$lines" = 1 ] && [ ! -s "$tmp/out" ] &&
       grep -Eq "^$prog: (${pre[0]:-$prog}: )?--no-such-flag: unknown option\$" "$tmp/err"; then
        echo "ok:   $cmd --no-such-flag: $(cat "$tmp/err")"
    else
        fail "$cmd --no-such-flag: status $status, $lines stderr lines: $(cat "$tmp/err" "$tmp/out")"
    fi

    run "$prog" "${pre[@]}" "$value_flag"
    lines=$(wc -l < "$tmp/err")
    if [ "$status" = 2 ] && [ "$lines" = 1 ] && [ ! -s "$tmp/out" ] &&
       grep -Eq "^$prog: (.*: )?$value_flag: needs a value\$" "$tmp/err"; then
        echo "ok:   $cmd $value_flag: $(cat "$tmp/err")"
    else
        fail "$cmd $value_flag: status $status, $lines stderr lines: $(cat "$tmp/err" "$tmp/out")"
    fi
done

# The daemon's EAL arguments still pass through after "--": a --help there
# is EAL's business, not inid's, so inid goes on to check its own flags.
run inid --ini 0 -- --help
if [ "$status" = 2 ] && grep -q "^inid: --config, --ini, --tag and --run-dir are required\$" "$tmp/err"; then
    echo "ok:   inid -- --help is left to EAL"
else
    fail "inid -- --help: status $status: $(cat "$tmp/err" "$tmp/out")"
fi

[ "$failures" = 0 ] && echo "cli_common: PASS" || { echo "cli_common: FAIL ($failures)"; exit 1; }
