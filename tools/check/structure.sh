#!/usr/bin/env bash
# structure.sh - checks the rules of the tree's structure that the build
# cannot (docs/architecture.md, "Floors" and "Files"):
#   - no function over 80 lines in the core floors (ini/ and its folders,
#     stack/ without lwIP's own sources in stack/lwip/, timers/, loadbal/,
#     mgs/), so that each reads as one step; and none in tools/ either
#     (the programs, benchmarks and applications built on the core: issue
#     43), third-party code (a third_party/ or vendor/ folder) and tests
#     left out;
#   - lwIP's private state (ip_data) is touched by one file, stack/dgram.c,
#     the stack's boundary with lwIP;
#   - the transport's connection and timer state is private to stack/:
#     nothing outside it names its structs or includes swp_internal.h
#     (telemetry, counters and benchmarks read it through swp.h's accessors).
# Prints each breach on one line and exits 1 if there is any, 0 if none.
#
#   tools/check/structure.sh [--root DIR] [--max-lines N]
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
max=80
usage() { sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; }
while [ $# -gt 0 ]; do
    case $1 in
        --root) [ $# -ge 2 ] || { echo "structure.sh: --root needs a directory" >&2; exit 2; }
                root=$2; shift 2 ;;
        --max-lines) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "structure.sh: --max-lines: '${2:-}' is not a positive whole number" >&2; exit 2; }
                max=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        --version) echo "structure.sh $(cat "$here/../../VERSION" 2>/dev/null)"; exit 0 ;;
        *) echo "structure.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ -d "$root/stack" ] && [ -d "$root/ini" ] || { echo "structure.sh: $root: not the repository's root (no stack/ or ini/)" >&2; exit 2; }
cd "$root" || exit 2
bad=0
breach() { echo "structure: $*"; bad=1; }

# too_long WHAT FILE...: every function of the files over $max lines.
too_long() {
    local what=$1; shift
    [ $# -gt 0 ] || return 0
    while read -r lines where name; do
        [ "$lines" -gt "$max" ] && breach "$where: $name is $lines lines (at most $max in $what)"
    done < <(awk -f "$here/funclen.awk" "$@")
}
mapfile -t core < <(find ini stack timers loadbal mgs -name '*.[ch]' -not -path 'stack/lwip/*' | sort)
too_long "the core floors" "${core[@]}"
mapfile -t tools < <(find tools -name '*.[ch]' -not -path '*/third_party/*' -not -path '*/vendor/*' \
                          -not -path '*/tests/*' -not -path '*/test/*' 2>/dev/null | sort)
too_long "tools/" "${tools[@]}"

mapfile -t ipdata < <(grep -l 'ip_data' stack/*.c ini/*/*.c 2>/dev/null)
[ "${ipdata[*]:-}" = "stack/dgram.c" ] || breach "lwIP's ip_data is named by '${ipdata[*]:-nothing}', not by stack/dgram.c alone"

while IFS= read -r hit; do
    breach "$hit: the transport's private state named outside stack/"
done < <(git ls-files '*.c' '*.h' 2>/dev/null | grep -v '^stack/' |
         xargs grep -nE 'struct swp_(conn|tx_slot|rx_slot)\b|swp_internal\.h|swp(\.|->)(conns|ack_timers|send_timers)\b' 2>/dev/null)
exit $bad
