#!/usr/bin/env bash
# fuzz_regress: every libFuzzer harness (tests/fuzz/) run once over its
# seed corpus and the inputs kept from earlier findings: none may crash,
# leak (outside the suppressed third-party leaks, tests/fuzz/lsan.supp) or
# trip UBSan; and they leave nothing behind (fuzz_config's private
# directory in /dev/shm goes at exit).  Skips (77) where clang or its
# libFuzzer runtime is missing.
set -u
cd "$(dirname "$0")/../.."
probe=$(mktemp -d /tmp/ini-fuzzprobe.XXXXXX)
trap 'rm -rf "$probe"' EXIT
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }' > "$probe/p.c"
if ! command -v clang >/dev/null || ! clang -fsanitize=fuzzer "$probe/p.c" -o "$probe/p" 2>/dev/null; then
    echo "fuzz_regress: SKIP (no clang with libFuzzer: apt-get install clang)"
    exit 77
fi
touch "$probe/start"
out=$(make --no-print-directory fuzz-regress 2>&1); rc=$?
left=$(find /dev/shm /tmp -maxdepth 1 -name 'fuzz_config.*' -newer "$probe/start" 2> /dev/null)
[ -z "$left" ] || { echo "fuzz_regress: FAIL: left behind: $left"; exit 1; }
echo "$out" | grep -v '^CC \|^LD \|^AR '
[ "$rc" -eq 0 ] || { echo "fuzz_regress: FAIL"; exit 1; }
[ "$(grep -c 'no crash' <<<"$out")" -eq 4 ] || { echo "fuzz_regress: FAIL: not every harness ran"; exit 1; }
echo "fuzz_regress: PASS"
