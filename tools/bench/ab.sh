#!/usr/bin/env bash
# ab.sh - two or more ini-bench builds alternating in turns
# (tools/bench/turns.sh): the machine's state (docs/performance.md: fast
# and slow, for seconds at a time) moves every figure, so builds are
# compared only within a turn, never a run of one against a run of another
# at another time.
#
#   tools/bench/ab.sh 64k|small|c2c|c2c64 TURNS on|off BIN BIN...
#
# Each turn runs every BIN once, the order rotating from turn to turn, with
# --segment on|off, and prints one line per run: the load average at its
# start and the state (fast when raw memif's round trip in turns is below
# 1 us; compare fast-state lines with each other), then
#   64k    ini-bench --layers raw-dpdk,reliable --depths 16 --sizes 8,65000
#          --runs 10: raw's and the reliable layer's Gbit/s and their ratio
#          (tools/bench/ab64.sh is this)
#   small  ini-bench --layers raw-dpdk,reliable --depths 16,64 --sizes 8,16
#          --runs 5 --count 200000: the 8-byte round trip in turns of raw
#          memif and of the reliable layer (us; median of 5 turns), their
#          ratio, and both 8-byte rates at depth 64 (M msg/s): the columns
#          of docs/results/bench-smallmsg-ab*.txt
#   c2c    ini-bench --layers compute-to-compute,ucx-am-tcp --depths 1
#          --sizes 8,16 --runs 10 --count 2000: the compute-to-compute 8-byte
#          round trip and UCX active messages' over TCP loopback (us,
#          median of 10 runs) and their ratio, the figure of issue 32's
#          target (the state column is not measured here: -)
#   c2c64  ini-bench --layers raw-dpdk,compute-to-compute --depths 16
#          --sizes 8,65000 --runs 5 --count 4000: raw's and the compute-to-
#          compute layer's Gbit/s at 65,000 bytes, their ratio, and the
#          compute-to-compute 8-byte round trip (us, median of 5 runs)
# Every run is printed; none is dropped.
set -u
case ${1-} in -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
me=${AB_NAME:-ab}
[ $# -ge 4 ] || { echo "$me: usage: ${AB_USAGE:-ab.sh 64k|small|c2c|c2c64} TURNS on|off BIN BIN..." >&2; exit 2; }
what=$1 turns=$2 seg=$3
shift 3
case $what in
64k) bench=(--layers raw-dpdk,reliable --depths 16 --sizes 8,65000 --runs 10)
     header=(turn bin load state raw_gb rel_gb ratio) hfmt="%4s %-22s %5s %-4s %7s %7s %7s\n" ;;
small) bench=(--layers raw-dpdk,reliable --depths 16,64 --sizes 8,16 --runs 5 --count 200000)
     header=(turn bin load state raw_rtt rel_rtt ratio raw@64 rel@64) hfmt="%4s %-22s %5s %-5s %7s %7s %7s %7s %7s\n" ;;
c2c) bench=(--layers compute-to-compute,ucx-am-tcp --depths 1 --sizes 8,16 --runs 10 --count 2000)
     header=(turn bin load state c2c_rtt ucx_rtt ratio) hfmt="%4s %-22s %5s %-4s %7s %7s %7s\n" ;;
c2c64) bench=(--layers raw-dpdk,compute-to-compute --depths 16 --sizes 8,65000 --runs 5 --count 4000)
     header=(turn bin load state raw_gb c2c_gb ratio c2c_rtt) hfmt="%4s %-22s %5s %-4s %7s %7s %7s %7s\n" ;;
*) echo "$me: expected 64k, small, c2c or c2c64, got '$what'" >&2; exit 2 ;;
esac
case $turns in ''|*[!0-9]*|0) echo "$me: TURNS: expected a positive integer, got '$turns'" >&2; exit 2 ;; esac
case $seg in on|off) ;; *) echo "$me: expected on or off for --segment, got '$seg'" >&2; exit 2 ;; esac
for b in "$@"; do
    [ -x "$b" ] || { echo "$me: $b: not an executable" >&2; exit 2; }
done
. "$(dirname "$0")/turns.sh"

one() {   # TURN BIN
    "$2" "${bench[@]}" --segment "$seg" --format json 2> /dev/null |
        python3 -c '
import json, sys
what, t, name = sys.argv[1:]
try:
    r = json.load(sys.stdin)
    raw, rel = r["layers"][0], r["layers"][1]
    la = r["loadavg_at_start"]
    if what == "c2c":
        a, b = raw["rtt_ns"] / 1000, rel["rtt_ns"] / 1000
        print(f"{t:>4} {name:<22} {la:5.2f} -    {a:7.2f} {b:7.2f} {a / b:7.3f}")
        sys.exit(0)
    turn_us = raw["rtt_turns_ns"] / 1000
    state = "fast" if turn_us < 1 else "slow"
    if what in ("64k", "c2c64"):
        a, b = raw["gbps_64k"], rel["gbps_64k"]
        c_us = rel["rtt_ns"] / 1000
        rtt = f" {c_us:7.2f}" if what == "c2c64" else ""
        print(f"{t:>4} {name:<22} {la:5.2f} {state:<4} {a:7.2f} {b:7.2f} {b / a:7.3f}{rtt}")
    else:
        at64 = lambda l: next(f["rate_mps"] for f in l["flood"] if f["depth"] == 64)
        b, ratio = rel["rtt_turns_ns"] / 1000, rel["rtt_turns_ratio"]
        print(f"{t:>4} {name:<22} {la:5.2f} {state:<4} {turn_us:7.3f} {b:7.3f} {ratio:7.3f} {at64(raw):7.2f} {at64(rel):7.2f}")
except (ValueError, KeyError, IndexError, StopIteration, ZeroDivisionError) as e:
    print(f"{t:>4} {name:<22} failed: {e!r}")
' "$what" "$1" "$(basename "$2")"
}
printf "$hfmt" "${header[@]}"
in_turns "$turns" one "$@"
