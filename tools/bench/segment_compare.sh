#!/usr/bin/env bash
# segment_compare.sh: ini-bench on a lossless link with messages longer
# than a frame as IP fragments (--segment off) and as transport segments
# (--segment on), the two modes alternating N times (this machine's speed
# drifts: modes are compared within a pair).  Per run and mode: raw memif's
# 64 KB bandwidth (the machine's state), the reliable layer's and
# compute-to-compute's 64 KB bandwidth, 8-byte round trip and rate at the
# best depth; then per mode and figure the median of the runs and their
# range, and the median of the per-pair ratios on/off.
#   usage: tools/bench/segment_compare.sh [N [OUT_PREFIX [INI-BENCH ARGS...]]]
#   e.g.   tools/bench/segment_compare.sh 5 docs/results/segments-bench --runs 5
# Each ini-bench run's JSON is kept as OUT_PREFIX-runs/NN-MODE.json.
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-5}
OUT=${2:-/tmp/segments-bench}
shift $(( $# >= 2 ? 2 : $# ))
mkdir -p "$OUT-runs"
for i in $(seq -w 1 "$N"); do
    for mode in off on; do
        build/bin/ini-bench --layers raw-dpdk,reliable,compute-to-compute --segment "$mode" \
            --format json "$@" > "$OUT-runs/$i-$mode.json"
    done
done
python3 - "$OUT-runs" "$N" "$*" <<'PY' | tee "$OUT.txt"
import glob, json, os, statistics, sys
d, n, args = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = {}
for f in sorted(glob.glob(os.path.join(d, "*.json"))):
    run, mode = os.path.basename(f)[:-5].split("-")
    j = json.load(open(f))
    L = {l["name"]: l for l in j["layers"] if l.get("ok")}
    r = {}
    for name, key in (("raw-dpdk", "raw"), ("reliable", "rel"), ("compute-to-compute", "cn")):
        l = L.get(name)
        if not l:
            continue
        r[key + "_gbps_64k"] = l["gbps_64k"]
        r[key + "_rtt_us"] = l["rtt_ns"] / 1000
        r[key + "_rate_mps"] = l["rate_mps"]
    r["load"] = j["loadavg_at_start"]
    rows[(run, mode)] = r
figs = ["raw_gbps_64k", "rel_gbps_64k", "rel_rtt_us", "rel_rate_mps", "cn_gbps_64k", "cn_rtt_us", "cn_rate_mps"]
print(f"# ini-bench --layers raw-dpdk,reliable,compute-to-compute {args}, modes alternating, {n} pairs")
print("# gbps_64k: Gbit/s at 65,000 bytes (depth 16); rtt_us: 8-byte round trip; rate_mps: 8-byte M msg/s at the best depth")
print("%4s %4s %5s " % ("run", "seg", "load") + " ".join("%13s" % f for f in figs))
for (run, mode), r in sorted(rows.items()):
    print("%4s %4s %5.2f " % (run, mode, r["load"]) + " ".join("%13.2f" % r.get(f, float("nan")) for f in figs))
print()
print("%-14s %22s %22s %14s" % ("figure", "off: median [range]", "on: median [range]", "on/off (pairs)"))
for f in figs:
    v = {m: [r[f] for (run, mm), r in rows.items() if mm == m and f in r] for m in ("off", "on")}
    ratios = [rows[(run, "on")][f] / rows[(run, "off")][f] for (run, m) in rows
              if m == "off" and (run, "on") in rows and f in rows[(run, "on")] and f in rows[(run, "off")]
              and rows[(run, "off")][f]]
    cell = lambda x: "%.2f [%.2f-%.2f]" % (statistics.median(x), min(x), max(x)) if x else "-"
    print("%-14s %22s %22s %14s" % (f, cell(v["off"]), cell(v["on"]),
                                     "%.2f" % statistics.median(ratios) if ratios else "-"))
PY
