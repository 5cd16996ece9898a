#!/usr/bin/env bash
# rings: issue 47's "the ring sizes stay configurable".  A machine of 2
# clusters x 2 compute nodes x 1 INI (memif) runs with rings.bytes at its
# smallest (131,072: one 65,000-byte message fills half a ring) and at
# 16 MiB: each run's segment in /dev/shm is as large as its rings say
# (2 rings a compute node, each of rings.bytes, plus headers under 1 MiB),
# and ini-ping's 8- and 65,000-byte messages all arrive verified, with no
# retransmission (memif loses nothing).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
. tests/integration/lib/ping.sh
test_start rings build/bin/ini-cluster build/bin/ini-ping build/bin/inid
L=build/bin/ini-cluster

for bytes in 131072 16777216; do
    cfg=$TMP/r$bytes.cfg
    $L gen 2 2 1 -o "$cfg" > /dev/null || { fail "gen"; break; }
    sed -i "s/rings   = { bytes = [0-9]*; };/rings   = { bytes = $bytes; };/" "$cfg"
    grep -q "bytes = $bytes;" "$cfg" || { fail "cannot set rings.bytes in $cfg"; break; }

    # The segment's size, seen by a program of the run.
    $L run "$cfg" --run-dir "$TMP/seg$bytes" -- sh -c 'stat -c %s "/dev/shm$INI_SEGMENT"' > "$TMP/seg$bytes.out" 2>&1
    size=$(grep -h '^[0-9][0-9]*$' "$TMP/seg$bytes/cluster0.out" 2>/dev/null | head -n 1)
    low=$((2 * 2 * bytes)) high=$((2 * 2 * bytes + 1048576))
    if [ -n "$size" ] && [ "$size" -ge "$low" ] && [ "$size" -lt "$high" ]; then
        ok "rings.bytes $bytes: segment of $size bytes (2 x 2 rings and headers)"
    else
        fail "rings.bytes $bytes: segment of '$size' bytes, expected $low..$high; see $TMP/seg$bytes.out"
    fi

    ping_run "rings-$bytes" "$cfg" 8,65000 200 --
    retx=$(python3 - "$RUN_DIR" <<'PY'
import glob, json, sys
print(sum(json.load(open(f))["transport"]["retx_nak"] for f in glob.glob(sys.argv[1] + "/ini*.counters.json")))
PY
)
    if [ "$retx" = 0 ]; then
        ok "rings.bytes $bytes: 2 x 2 x 200 x 2 messages of 8 and 65,000 bytes verified, 0 retransmissions"
    else
        fail "rings.bytes $bytes: $retx retransmissions on memif"
    fi
    ping_cleanup
done
test_end
