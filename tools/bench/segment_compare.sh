#!/usr/bin/env bash
# segment_compare.sh: ini-bench on a lossless link with messages longer
# than a frame as IP fragments (--segment off) and as transport segments
# (--segment on), the two modes in turns N times (tools/bench/turns.sh:
# this machine's speed drifts, so modes are compared within a turn, the
# order rotating).  Per run and mode: raw memif's 64 KB bandwidth (the
# machine's state), the reliable layer's and compute-to-compute's 64 KB
# bandwidth, 8-byte round trip and rate at the best depth; then per mode
# and figure the median of the runs and their range, and the median of the
# per-turn ratios on/off.
#   usage: tools/bench/segment_compare.sh [N [OUT_PREFIX [INI-BENCH ARGS...]]]
#          tools/bench/segment_compare.sh --tables OUT_PREFIX   (the table again)
#   e.g.   tools/bench/segment_compare.sh 5 docs/results/segments-bench --runs 5
# Writes OUT_PREFIX.txt (the table) and OUT_PREFIX-runs/reports.jsonl, one
# line per ini-bench run: {"run": TURN, "segment": MODE, "args": the
# ini-bench arguments, "report": its JSON}.
set -euo pipefail
cd "$(dirname "$0")/../.."
case ${1-} in -h|--help) sed -n '2,/^set -eu/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
table() {   # OUT_PREFIX: the table from OUT_PREFIX-runs/reports.jsonl, on stdout
python3 - "$1-runs/reports.jsonl" <<'PY'
import json, statistics, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
n, args = len({l["run"] for l in lines}), lines[0]["args"]
rows = {}
for rec in lines:
    run, mode, j = str(rec["run"]), rec["segment"], rec["report"]
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
for (run, mode), r in sorted(rows.items(), key=lambda kv: (int(kv[0][0]), kv[0][1])):
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
}
if [ "${1-}" = --tables ]; then
    [ $# = 2 ] && [ -f "$2-runs/reports.jsonl" ] || { echo "segment_compare: --tables OUT_PREFIX: expected OUT_PREFIX-runs/reports.jsonl" >&2; exit 2; }
    table "$2" > "$2.txt"
    exit
fi
N=${1:-5}
OUT=${2:-/tmp/segments-bench}
shift $(( $# >= 2 ? 2 : $# ))
case $N in ''|*[!0-9]*|0) echo "segment_compare: N: expected a positive integer, got '$N'" >&2; exit 2 ;; esac
. tools/bench/turns.sh
mkdir -p "$OUT-runs"
: > "$OUT-runs/reports.jsonl"
ARGS=("$@")
one() {   # TURN MODE
    build/bin/ini-bench --layers raw-dpdk,reliable,compute-to-compute --segment "$2" \
        --format json "${ARGS[@]}" > "$OUT-runs/run.json"
    python3 -c 'import json, sys
print(json.dumps({"run": int(sys.argv[1]), "segment": sys.argv[2], "args": sys.argv[3],
                  "report": json.load(open(sys.argv[4]))}, separators=(",", ":")))' \
        "$1" "$2" "${ARGS[*]}" "$OUT-runs/run.json" >> "$OUT-runs/reports.jsonl"
    rm -f "$OUT-runs/run.json"
}
in_turns "$N" one off on
table "$OUT" | tee "$OUT.txt"
