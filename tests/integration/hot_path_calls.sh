#!/usr/bin/env bash
# hot_path_calls: no allocation, lock or system call per message on the
# INI's stack path (the hot path rule of docs/architecture.md).
#
# ini-bench --inproc runs two INIs' stacks in one process (the transport,
# its timers, the UDP/IP glue, checksums and CRC, as inid runs them; the
# memif driver left out).  Under callgrind, collecting only inside the
# per-message functions (ip_rel_*: send, receive, acks, the next turn),
# every function that ran there must be ours (ini-bench and what is built
# into it: stack/, timers/, lwIP), one of libc's string functions,
# DPDK's mempool ring (the lock-free refill of the per-lcore mbuf cache)
# or libsodium's (the MAC's SipHash; its inner sum is stack/polyhash.c).  A malloc, a mutex or a system
# call would be a libc (or libpthread) function and show, whoever called
# it; lwIP's heap (mem_malloc) is refused by name.  Symbols are bound at
# start (LD_BIND_NOW), so the dynamic linker's first-call lookups stay
# out of the per-message path.  Four
# cases: 8-byte messages, 8-byte ones with a MAC, 65,000-byte ones in IP
# fragments and in transport segments; each must deliver every message.
# inid's loop code around the stack is not traced here, nor the CRC's
# AVX-512 path: valgrind offers the program no AVX-512, so the three CRC
# chains run (stack/checksum.c; the multiply path calls only ours and
# memcpy).
# Skips (77) without valgrind.
set -u
cd "$(dirname "$0")/../.."
if ! command -v valgrind > /dev/null || ! command -v callgrind_annotate > /dev/null; then
    echo "hot_path_calls: SKIP: valgrind is not installed (apt-get install valgrind)"
    exit 77
fi
BIN=build/bin/ini-bench
[ -x "$BIN" ] || { echo "hot_path_calls: FAIL: $BIN not built"; exit 1; }
TMP=$(mktemp -d /tmp/ini-hotpath.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "hot_path_calls: FAIL: $*"; exit 1; }

# check NAME COUNT ARGS...: COUNT messages of ini-bench --inproc ARGS.
check() {
    local name=$1 count=$2
    shift 2
    LD_BIND_NOW=1 valgrind --tool=callgrind --callgrind-out-file="$TMP/$name.out" --toggle-collect='ip_rel_*' \
        "$BIN" --inproc --layer reliable --count "$count" "$@" > "$TMP/$name.log" 2>&1 ||
        fail "$name: ini-bench --inproc $*: $(tail -n 1 "$TMP/$name.log")"
    local got
    got=$(sed -n 's/.*delivered \([0-9]*\),.*/\1/p' "$TMP/$name.log" | tail -n 1)
    [ "${got:-0}" -eq "$count" ] || fail "$name: delivered ${got:-none} of $count messages"
    callgrind_annotate --threshold=100 --inclusive=no "$TMP/$name.out" > "$TMP/$name.txt" 2> /dev/null ||
        fail "$name: callgrind_annotate failed"
    python3 - "$TMP/$name.txt" "$name" "$count" <<'PY' || exit 1
import re, sys
path, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
line = re.compile(r'^\s*([\d,]+)\s+\([^)]*\)\s+(\S.*?):([^:\s]+)(?:\s+\[(.*)\])?\s*$')
libc_string = re.compile(r'^(__(mem(cpy|move|set|cmp)|str[a-z]*)_[a-z0-9_]*|__explicit_bzero_chk|explicit_bzero)$')
ours = others = 0
bad = []
for l in open(path):
    m = line.match(l)
    if not m or m.group(2) == 'file':
        continue
    cost, fn, obj = int(m.group(1).replace(',', '')), m.group(3), m.group(4) or ''
    if cost == 0:
        continue
    if fn in ('mem_malloc', 'mem_free', 'mem_trim', 'malloc', 'calloc', 'realloc', 'free'):
        bad.append(f'{fn} [{obj}]')
    elif obj == '' or obj.endswith('/ini-bench'):
        ours += cost
    elif obj.endswith('libc.so.6') and libc_string.match(fn):
        others += cost
    elif 'librte_mempool_ring' in obj or 'libsodium' in obj:
        others += cost
    else:
        bad.append(f'{fn} [{obj}]')
if bad:
    print(f'hot_path_calls: FAIL: {name}: on the per-message path: ' + ', '.join(sorted(set(bad))[:8]))
    sys.exit(1)
if ours == 0:
    print(f'hot_path_calls: FAIL: {name}: nothing collected (the ip_rel_* functions did not run?)')
    sys.exit(1)
print(f'ok:   {name}: {count} messages, {(ours + others) / count:.0f} instructions a message, '
      f'only our code, libc string functions, the mempool ring and libsodium')
PY
}

check small 4000 --size 8
check small-mac 2000 --size 8 --mac
check 64k-fragments 100 --size 65000 --segment off
check 64k-segments 100 --size 65000 --segment on
echo "hot_path_calls: PASS"
