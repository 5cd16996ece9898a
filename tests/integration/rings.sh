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
. tests/integration/lib/ping.sh
L=build/bin/ini-cluster
TMP=$(mktemp -d /tmp/ini-rings.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

for bytes in 131072 16777216; do
    cfg=$TMP/r$bytes.cfg
    $L gen 2 2 1 -o "$cfg" > /dev/null || { echo "rings: FAIL: gen"; exit 1; }
    sed -i "s/rings   = { bytes = [0-9]*; };/rings   = { bytes = $bytes; };/" "$cfg"
    grep -q "bytes = $bytes;" "$cfg" || { echo "rings: FAIL: cannot set rings.bytes in $cfg"; exit 1; }

    # The segment's size, seen by a program of the run.
    out=$($L run "$cfg" --run-dir "$TMP/seg$bytes" -- sh -c 'stat -c %s "/dev/shm$INI_SEGMENT"' 2>&1)
    size=$(grep -h '^[0-9][0-9]*$' "$TMP/seg$bytes/cluster0.out" | head -n 1)
    [ -n "$size" ] || { echo "$out"; echo "rings: FAIL: rings.bytes $bytes: no segment size"; exit 1; }
    low=$((2 * 2 * bytes)) high=$((2 * 2 * bytes + 1048576))
    [ "$size" -ge "$low" ] && [ "$size" -lt "$high" ] ||
        { echo "rings: FAIL: rings.bytes $bytes: segment of $size bytes, expected $low..$high"; exit 1; }

    ping_run "rings-$bytes" "$cfg" 8,65000 200 --
    retx=$(python3 - "$RUN_DIR" <<'PY'
import glob, json, sys
print(sum(json.load(open(f))["transport"]["retx_nak"] for f in glob.glob(sys.argv[1] + "/ini*.counters.json")))
PY
)
    [ "$retx" = 0 ] || ping_fail "rings.bytes $bytes: $retx retransmissions on memif"
    echo "rings: rings.bytes $bytes: segment $size bytes, 2 x 2 x 200 x 2 messages verified, 0 retransmissions"
    ping_cleanup
done
echo "rings: PASS"
