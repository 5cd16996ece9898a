#!/usr/bin/env bash
# capture_bounds: a capture's bounds, as tcpdump's -C, -W and -s.  The same
# traffic (ini-ping, 65,000-byte messages, --segment off: about 58 MB of
# frames per INI) is captured three ways on conf/default.cfg:
#  1. --capture-limit 1M: each file stays within 1 MiB (plus at most one
#     burst of frames), tshark reads it whole, and the daemon's log says the
#     limit was reached and how many frames were not recorded;
#  2. --capture-limit 1M --capture-ring 3: three files ini<ID>-0..2.pcapng,
#     each complete (tshark reads each) and within the bound, the log
#     counting more than 3 files (the ring went round);
#  3. --capture-snap 96: every frame recorded with at most 96 bytes and its
#     length on the wire kept (frame.len up to 1514).
# The limit's default (256 MiB) and the options' errors are checked too.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start capture_bounds build/bin/ini-cluster build/bin/inid build/bin/ini-ping
command -v tshark > /dev/null || { echo "capture_bounds: SKIP: tshark not installed"; exit 77; }
L=build/bin/ini-cluster
T() { tshark "$@" 2> /dev/null; }
# The bound a file may reach: the limit, and one batch of frames more
# (a file takes at least one; a batch is at most 4 MiB, the buffer, but
# here a burst of 32 frames of 1,514 bytes).
BOUND=$((1048576 + 64 * 1600))
ping_run() { # NAME OPTIONS...
    local name=$1; shift
    $L run conf/default.cfg --segment off "$@" --run-dir "$TMP/$name" --timeout 120 -- \
        build/bin/ini-ping --sizes 65000 --count 100 > "$TMP/$name.out" 2>&1 ||
        { fail "$name: run failed"; tail -5 "$TMP/$name.out"; return 1; }
    grep -q '^verified 200 messages, 0 errors$' "$TMP/$name.out" || { fail "$name: ini-ping failed"; return 1; }
}

if ping_run limit --capture-limit 1M; then
    for i in 0 1; do
        f=$TMP/limit/ini$i.pcapng size=$(stat -c %s "$TMP/limit/ini$i.pcapng")
        frames=$(T -r "$f" | wc -l)
        notrec=$(sed -n 's/.*--capture-limit reached: \([0-9]*\) frames after it not recorded.*/\1/p' "$TMP/limit/ini$i.log")
        if [ "$size" -le $BOUND ] && [ "$size" -gt 900000 ] && [ "$frames" -gt 500 ] && [ "${notrec:-0}" -gt 0 ] &&
           grep -q "capture: .*ini$i.pcapng reached --capture-limit (1048576 bytes)" "$TMP/limit/ini$i.log"; then
            ok "limit: ini$i.pcapng $size bytes, $frames frames read by tshark, $notrec frames not recorded (said in the log)"
        else
            fail "limit: ini$i.pcapng $size bytes (bound $BOUND), $frames frames, not recorded '${notrec}':"
            grep -i capture "$TMP/limit/ini$i.log"
        fi
    done
fi

if ping_run ring --capture-limit 1M --capture-ring 3; then
    for i in 0 1; do
        good=0
        for k in 0 1 2; do
            f=$TMP/ring/ini$i-$k.pcapng
            [ -f "$f" ] || continue
            size=$(stat -c %s "$f") frames=$(T -r "$f" | wc -l)
            [ "$size" -le $BOUND ] && [ "$frames" -gt 0 ] && good=$((good + 1))
        done
        files=$(sed -n 's/.*, \([0-9]*\) files of a ring of 3.*/\1/p' "$TMP/ring/ini$i.log")
        if [ "$good" = 3 ] && [ ! -e "$TMP/ring/ini$i-3.pcapng" ] && [ ! -e "$TMP/ring/ini$i.pcapng" ] && [ "${files:-0}" -gt 3 ]; then
            ok "ring: ini$i-0..2.pcapng each within $BOUND bytes and read by tshark; $files files written in turn"
        else
            fail "ring: INI $i: $good good files of 3, $files written:"; ls -l "$TMP/ring"
        fi
    done
fi

if ping_run snap --capture-snap 96; then
    f=$TMP/snap/ini0.pcapng
    longest=$(T -r "$f" -T fields -e frame.cap_len | sort -n | tail -n 1)
    wire=$(T -r "$f" -T fields -e frame.len | sort -n | tail -n 1)
    snaplen=$(T -r "$f" -T fields -e frame.len -e frame.cap_len -Y 'frame.len > 96' | awk '$2 != 96' | wc -l)
    if [ "$longest" = 96 ] && [ "$wire" -ge 1500 ] && [ "$snaplen" = 0 ]; then
        ok "snap: every frame kept at most 96 bytes, lengths on the wire up to $wire kept"
    else
        fail "snap: longest captured $longest, longest on the wire $wire, $snaplen frames over 96 not cut to 96"
    fi
fi

if ping_run default --capture; then
    grep -q 'reached --capture-limit' "$TMP/default/ini0.log" && fail "default: 256 MiB reached by about 58 MB" ||
        ok "default limit (256 MiB) not reached by this run: $(stat -c %s "$TMP/default/ini0.pcapng") bytes"
fi
expect_error "limit below 1M" "below the least limit, 1M" "ini-cluster: " $L run conf/default.cfg --capture-limit 4k -- true
expect_error "ring 0" "not a number of files" "ini-cluster: " $L run conf/default.cfg --capture-ring 0 -- true
expect_error "snap 8" "do not hold an Ethernet header" "ini-cluster: " $L run conf/default.cfg --capture-snap 8 -- true
test_end
