#!/usr/bin/env bash
# ab64.sh - 64 KB bandwidth of two or more ini-bench builds, alternating in
# turns: the machine's state (docs/performance.md: fast and slow, for
# seconds at a time) moves every figure, so builds are compared only within
# a turn, never a run of one against a run of another at another time.
#
#   tools/bench/ab64.sh TURNS on|off BIN BIN...
#
# Each turn runs every BIN once (ini-bench --layers raw-dpdk,reliable
# --depths 16 --sizes 8,65000 --runs 10 --segment on|off), the order
# rotating from turn to turn, and prints one line per run: the load
# average at its start, the state (raw memif's round trip in turns below
# 1 us: fast), raw's and the reliable layer's Gbit/s and their ratio.
# Every run is printed; none is dropped.
set -u
[ $# -ge 3 ] || { echo "ab64: usage: ab64.sh TURNS on|off BIN BIN..." >&2; exit 2; }
turns=$1 seg=$2
shift 2
case $turns in ''|*[!0-9]*|0) echo "ab64: TURNS: expected a positive integer, got '$turns'" >&2; exit 2 ;; esac
case $seg in on|off) ;; *) echo "ab64: expected on or off for --segment, got '$seg'" >&2; exit 2 ;; esac
for b in "$@"; do
    [ -x "$b" ] || { echo "ab64: $b: not an executable" >&2; exit 2; }
done
bins=("$@")
k=${#bins[@]}
printf "%4s %-22s %5s %-4s %7s %7s %7s\n" turn bin load state raw_gb rel_gb ratio
for t in $(seq 1 "$turns"); do
    for j in $(seq 0 $((k - 1))); do
        b=${bins[$(((j + t) % k))]}
        "$b" --layers raw-dpdk,reliable --depths 16 --sizes 8,65000 --runs 10 --segment "$seg" \
            --format json 2> /dev/null |
            python3 -c '
import json, sys
t, name = sys.argv[1:]
try:
    r = json.load(sys.stdin)
    raw, rel = r["layers"][0], r["layers"][1]
    state = "fast" if raw["rtt_turns_ns"] < 1000 else "slow"
    la, a, b = r["loadavg_at_start"], raw["gbps_64k"], rel["gbps_64k"]
    print(f"{t:>4} {name:<22} {la:5.2f} {state:<4} {a:7.2f} {b:7.2f} {b / a:7.3f}")
except (ValueError, KeyError, IndexError, ZeroDivisionError) as e:
    print(f"{t:>4} {name:<22} failed: {e!r}")
' "$t" "$(basename "$b")"
    done
done
