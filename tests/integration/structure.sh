#!/usr/bin/env bash
# structure: the tree keeps the structure rules that the build cannot check
# (tools/check/structure.sh: functions of at most 80 lines in the core
# floors and in tools/, lwIP's ip_data in stack/dgram.c alone, the
# transport's state private to stack/), and the check catches each kind of
# breach: a copy of the core floors and tools/ with one breach planted at a
# time must fail, naming it; a long function in third-party code under
# tools/ is not counted.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d /tmp/ini-structure.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "structure: FAIL: $*"; exit 1; }

out=$(bash tools/check/structure.sh) || fail "the tree breaks its rules:"$'\n'"$out"
echo "the tree: no breach"

bash tools/check/structure.sh --max-lines x > /dev/null 2>&1; [ $? -eq 2 ] || fail "a bad --max-lines is not refused with status 2"

# copy_with ROOT-RELATIVE-FILE TEXT: a fresh copy of the checked folders
# in $tmp/t with TEXT appended to the file (made if new).
copy_with() {
    rm -rf "$tmp/t"; mkdir -p "$tmp/t"
    cp -r ini stack timers loadbal mgs tools VERSION "$tmp/t/"
    (cd "$tmp/t" && git init -q && git add -A > /dev/null)
    mkdir -p "$(dirname "$tmp/t/$1")"
    printf '%s\n' "$2" >> "$tmp/t/$1"
    (cd "$tmp/t" && git add -A > /dev/null)
}
# plant ROOT-RELATIVE-FILE TEXT EXPECTED: a fresh copy with TEXT appended to
# the file must fail with a line containing EXPECTED.
plant() {
    copy_with "$1" "$2"
    local got
    got=$(bash tools/check/structure.sh --root "$tmp/t") && fail "planted in $1, not caught: $3"
    grep -qF -- "$3" <<< "$got" || fail "planted in $1: expected '$3', got: $got"
    echo "caught: $3"
}
long=$'static int planted_long(void)\n{\n    int x = 0;'
for i in $(seq 1 80); do long+=$'\n    x++;'; done
long+=$'\n    return x;\n}'
plant ini/cn/ring.c "$long" "planted_long is 85 lines (at most 80 in the core floors)"
plant tools/bench/bench_pair.c "$long" "planted_long is 85 lines (at most 80 in tools/)"
# Third-party code under tools/ keeps its own style: not counted.
copy_with tools/third_party/planted.c "$long"
got=$(bash tools/check/structure.sh --root "$tmp/t")
grep -qF "third_party/planted.c" <<< "$got" && fail "third-party code under tools/ was counted: $got"
echo "not counted: tools/third_party/planted.c"
plant ini/cn/ring.c "static void *planted = &ip_data;" "lwIP's ip_data is named by"
plant ini/cn/ring.c "#include \"swp_internal.h\"" "ini/cn/ring.c:"
plant mgs/mgs_core.c "struct swp_conn *planted_conn;" "mgs/mgs_core.c:"
echo "structure: PASS"
