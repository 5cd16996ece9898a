#!/usr/bin/env bash
# run.sh - runs the libFuzzer harnesses (tests/fuzz/module.mk), one at a
# time (the machine is shared).
#
#   run.sh fuzz BINDIR NAME...     each for FUZZ_SECONDS (default 60), or
#                                  FUZZ_RUNS executions if set (and then
#                                  at most FUZZ_SECONDS if that is set
#                                  too); FUZZ_ONLY (comma list) picks
#                                  harnesses
#   run.sh regress BINDIR NAME...  each once over its seeds and the inputs
#                                  kept as regressions
#
# fuzz prints per harness: executions, exec/s, corpus size and findings
# (crashing inputs go to build-fuzz/findings/); the status is 1 if any
# harness found something.  The growing corpus is build-fuzz/corpus/NAME,
# seeded from tests/fuzz/corpus/NAME.
set -u
cd "$(dirname "$0")/../.."
mode=$1 bindir=$2
shift 2
status=0
# Leaks inside third-party libraries, explained in the file.
export LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
for name in "$@"; do
    if [ -n "${FUZZ_ONLY:-}" ] && ! grep -qw "$name" <<<"${FUZZ_ONLY//,/ }"; then continue; fi
    bin=$bindir/fuzz_$name
    seeds=tests/fuzz/corpus/$name regress=tests/fuzz/regress/$name
    mkdir -p "$regress"
    if [ "$mode" = regress ]; then
        # -runs=0: execute every given input once, then stop.
        if "$bin" -runs=0 -close_fd_mask=3 "$seeds" "$regress" > "build-fuzz/regress-$name.log" 2>&1; then
            n=$(grep -o 'INITED.*corp: [0-9]*' "build-fuzz/regress-$name.log" | grep -o '[0-9]*$' | tail -1)
            echo "fuzz-regress: $name: $(ls "$seeds" "$regress" | grep -vc ':$\|^$') inputs, no crash"
        else
            echo "fuzz-regress: $name: FAILED (build-fuzz/regress-$name.log)"
            tail -n 30 "build-fuzz/regress-$name.log"
            status=1
        fi
        continue
    fi
    work=build-fuzz/corpus/$name findings=build-fuzz/findings
    mkdir -p "$work" "$findings"
    limit=(-max_total_time="${FUZZ_SECONDS:-60}")
    if [ -n "${FUZZ_RUNS:-}" ]; then
        limit=(-runs="$FUZZ_RUNS")
        [ -n "${FUZZ_SECONDS:-}" ] && limit+=(-max_total_time="$FUZZ_SECONDS")
    fi
    extra=()
    [ "$name" = rx ] && extra=(-max_len=16384)    # several frames, fragments of a datagram
    log=build-fuzz/fuzz-$name.log
    start=$(date +%s.%N)
    "$bin" "${limit[@]}" -print_final_stats=1 -close_fd_mask=3 -timeout=10 -rss_limit_mb=4096 \
        -artifact_prefix="$findings/$name-" "${extra[@]}" "$work" "$seeds" > "$log" 2>&1
    rc=$?
    end=$(date +%s.%N)
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }')
    rate=$(awk -v e="${execs:-0}" -v s="$secs" 'BEGIN { printf "%.0f", (s > 0 ? e / s : 0) }')
    corp=$(ls "$work" | wc -l)
    found=$(grep -c '^==[0-9]*==ERROR\|^SUMMARY: \|deadly signal\|Test unit written' "$log")
    if [ "$rc" -ne 0 ]; then status=1; fi
    echo "fuzz: $name: ${execs:-0} executions in ${secs} s (${rate} exec/s), corpus $corp, findings $([ $rc -eq 0 ] && echo 0 || echo "$found: see $log and $findings/")"
done
exit $status
