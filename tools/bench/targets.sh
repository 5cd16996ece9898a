#!/usr/bin/env bash
# targets.sh - the performance targets of docs/performance.md, judged over
# consecutive full ini-bench runs: each target is reported as the share of
# runs that meet it, beside every run's load average and machine state
# (raw memif's round trip), and no run is left out.
#
#   tools/bench/targets.sh [RUNS] [OUT] [-- INI-BENCH-FLAGS...]
#   tools/bench/targets.sh --tables OUT     OUT.txt and OUT.csv again from OUT/
#       RUNS  consecutive runs (default 10)
#       OUT   output prefix (default docs/results/bench-targets-runs):
#             OUT.txt (per-run table and shares), OUT.csv (one row per
#             run), OUT/reports.jsonl (one line per run: its start, load
#             averages, exit status and the window judged, "report": its
#             full ini-bench JSON), OUT/callgrind-8.txt, OUT/errors.log
#             (only when a run wrote to stderr)
#
# Targets, per run (ini-bench, all layers, the same run), as of issue 32
# (a series records them: "targets": 2 in its reports.jsonl; a series
# without it is judged, and its tables made again, by the targets it was
# run for, "1" below):
#   64k       reliable 65,000-byte messages (the default mode: segments)
#             >= 0.7 x raw-dpdk (1: >= 60 Gbit/s and >= 0.5 x raw-dpdk)
#   ucx       compute-to-compute round trip <= 0.6 x UCX active messages
#             over TCP loopback (ucx-am-tcp) (1: not judged)
#   rtt       reliable round trip in turns <= 1.25 x raw-dpdk
#   rate      reliable 8-byte rate at the default window (stack.window of
#             the configuration, read from `ini-cluster gen`; 64 since the
#             lossy-links work, 16 before) >= 0.6 x raw-dpdk at that depth,
#             and >= 10 M msg/s when the machine is in its fast state (raw
#             round trip in turns below 1 us).  Depth 16 stays in the CSV.
#   shared    compute-to-compute round trip <= kernel-udp round trip
# and once, deterministic: instructions of INI work per 8-byte message,
# send + receive, <= 1,500 (callgrind-stack.sh, flood at window 16: more
# ACKs per message than at 64, the larger count).
set -eu
cd "$(dirname "$0")/../.."
case ${1-} in -h|--help) sed -n '2,/^set -eu/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
tables() {   # OUT: OUT.txt and OUT.csv from OUT/reports.jsonl and OUT/callgrind-8.txt
python3 - "$1" <<'PY'
import json, lzma, os, re, sys
out = sys.argv[1]
rj = f"{out}/reports.jsonl"   # or its .xz, as the committed series keep it
lines = [json.loads(l) for l in (open(rj) if os.path.exists(rj) else lzma.open(rj + ".xz", "rt"))]
runs, W, V = len(lines), lines[0].get("window"), lines[0].get("targets", 1)
if W is None:
    sys.exit("targets: %s: no window recorded (a series of an older targets.sh, whose tables are kept as it made them)" % out)
cg = f"{out}/callgrind-8.txt"
m = re.search(r"^reliable: send (\d+) \+ receive (\d+) = (\d+) ", open(cg).read(), re.M) if os.path.exists(cg) else None
instr = list(m.groups()) if m else []
rows = []
for meta in lines:
    i, d = meta["run"], meta["report"]
    try:
        L = {l["name"]: l for l in d["layers"]}
    except (TypeError, KeyError):
        L = {}
    def get(name, key, default=0.0):
        l = L.get(name, {})
        return l.get(key, default) if l.get("ok") else default
    def flood(name, depth):
        l = L.get(name, {})
        for f in l.get("flood", []) if l.get("ok") else []:
            if f["depth"] == depth:
                return f["rate_mps"]
        return 0.0
    raw_turns = get("raw-dpdk", "rtt_turns_ns") / 1000
    r = {
        "run": i, "start": meta["start"], "loadavg": meta["loadavg"], "loadavg_end": meta["loadavg_end"],
        "exit": meta["exit"],
        "raw_rtt_us": get("raw-dpdk", "rtt_ns") / 1000, "raw_rtt_turns_us": raw_turns,
        "state": "fast" if 0 < raw_turns < 1.0 else "slow" if raw_turns > 0 else "?",
        "rel_rtt_turns_ratio": get("reliable", "rtt_turns_ratio"),
        "raw_gbps": get("raw-dpdk", "gbps_64k"), "rel_gbps": get("reliable", "gbps_64k"),
        "window": W, "raw_rate": flood("raw-dpdk", W), "rel_rate": flood("reliable", W),
        "raw_rate16": flood("raw-dpdk", 16), "rel_rate16": flood("reliable", 16),
        "cn_rtt_us": get("compute-to-compute", "rtt_ns") / 1000, "kernel_rtt_us": get("kernel-udp", "rtt_ns") / 1000,
    }
    for p in ("ucx-am-tcp", "ucx-am-sm", "ofi-rxd-udp"):
        r[p + "_rtt_us"] = get(p, "rtt_ns") / 1000
        r[p + "_gbps"] = get(p, "gbps_64k")
        r[p + "_rate"] = get(p, "rate_mps")
    if V >= 2:
        r["c2c_ucx_ratio"] = r["cn_rtt_us"] / r["ucx-am-tcp_rtt_us"] if r["ucx-am-tcp_rtt_us"] > 0 else 0.0
        r["t_64k"] = r["raw_gbps"] > 0 and r["rel_gbps"] >= 0.7 * r["raw_gbps"]
        r["t_ucx"] = r["cn_rtt_us"] > 0 and 0 < r["c2c_ucx_ratio"] <= 0.6
    else:
        r["t_64k"] = r["rel_gbps"] >= 60 and r["raw_gbps"] > 0 and r["rel_gbps"] >= 0.5 * r["raw_gbps"]
    r["t_rtt"] = 0 < r["rel_rtt_turns_ratio"] <= 1.25
    r["t_rate"] = (r["raw_rate"] > 0 and r["rel_rate"] >= 0.6 * r["raw_rate"] and
                   (r["state"] != "fast" or r["rel_rate"] >= 10))
    r["t_rate10"] = r["rel_rate"] >= 10
    r["t_shared"] = r["cn_rtt_us"] > 0 and r["kernel_rtt_us"] > 0 and r["cn_rtt_us"] <= r["kernel_rtt_us"]
    rows.append(r)

keys = list(rows[0].keys())
with open(out + ".csv", "w") as f:
    f.write(",".join(keys) + "\n")
    for r in rows:
        f.write(",".join(str(int(v)) if isinstance(v, bool) else f"{v:.4g}" if isinstance(v, float) else str(v)
                         for v in (r[k] for k in keys)) + "\n")

yn = lambda b: "yes" if b else "no"
with open(out + ".txt", "w") as f:
    f.write(f"ini-bench targets over {runs} consecutive full runs (tools/bench/targets.sh); every run is listed.\n")
    f.write("load: 1-minute load average at the run's start and end; state: fast when raw memif's round trip\n"
            f"in turns is below 1 us.  Gbit/s: 65,000-byte messages at depth 16; rate: 8-byte messages at depth {W},\n"
            f"the configuration's default window.\n\n")
    f.write(f"{'run':>3} {'start':>8} {'load':>11} {'raw RTT':>8} {'state':>5} {'rel/raw':>7} {'raw Gb/s':>8} "
            f"{'rel Gb/s':>8} {'raw Mm/s':>8} {'rel Mm/s':>8} {'c2c us':>8} {'kern us':>8} | 64k rtt rate shared"
            + (f" {'c2c/ucx':>7} ucx\n" if V >= 2 else "\n"))
    for r in rows:
        f.write(f"{r['run']:>3} {r['start']:>8} {r['loadavg']:5.2f}-{r['loadavg_end']:<5.2f} {r['raw_rtt_turns_us']:8.2f} "
                f"{r['state']:>5} {r['rel_rtt_turns_ratio']:6.2f}x {r['raw_gbps']:8.1f} {r['rel_gbps']:8.1f} "
                f"{r['raw_rate']:8.2f} {r['rel_rate']:8.2f} {r['cn_rtt_us']:8.1f} {r['kernel_rtt_us']:8.1f} | "
                f"{yn(r['t_64k']):>3} {yn(r['t_rtt']):>3} {yn(r['t_rate']):>4} {yn(r['t_shared']):>6}"
                + (f" {r['c2c_ucx_ratio']:6.2f}x {yn(r['t_ucx']):>3}" if V >= 2 else "")
                + f"{'  (exit %d)' % r['exit'] if r['exit'] else ''}\n")
    f.write("\npeers in the same runs: round trip us / 8-byte rate M msg/s / Gbit/s at 65,000 bytes\n")
    for r in rows:
        f.write(f"{r['run']:>3}  " + "  ".join(
            f"{p}: {r[p + '_rtt_us']:.2f} / {r[p + '_rate']:.2f} / {r[p + '_gbps']:.1f}"
            for p in ("ucx-am-tcp", "ucx-am-sm", "ofi-rxd-udp")) + "\n")
    n = len(rows)
    share = lambda k: sum(1 for r in rows if r[k])
    fast = [r for r in rows if r["state"] == "fast"]
    f.write("\ntargets: share of the runs that meet them\n")
    if V >= 2:
        f.write(f"  64 KB >= 0.7 x raw:                                {share('t_64k')}/{n}\n")
        f.write(f"  compute-to-compute round trip <= 0.6 x UCX TCP's:  {share('t_ucx')}/{n}\n")
    else:
        f.write(f"  64 KB >= 60 Gbit/s and >= 0.5 x raw:              {share('t_64k')}/{n}\n")
    f.write(f"  8-byte round trip in turns <= 1.25 x raw:          {share('t_rtt')}/{n}\n")
    f.write(f"  rate at depth {W} >= 0.6 x raw (>= 10 M when fast): {share('t_rate')}/{n}"
            f"  (fast-state runs: {len(fast)}; of them >= 10 M: {sum(1 for r in fast if r['t_rate10'])})\n")
    f.write(f"  compute-to-compute round trip <= kernel UDP's:     {share('t_shared')}/{n}\n")
    if len(instr) == 3:
        f.write(f"  INI work per 8-byte message <= 1,500 instructions:  {instr[0]} + {instr[1]} = {instr[2]}"
                f" ({'yes' if int(instr[2]) <= 1500 else 'no'}; callgrind, deterministic)\n")
print(open(out + ".txt").read())
PY
}
if [ "${1-}" = --tables ]; then
    [ $# = 2 ] && { [ -f "$2/reports.jsonl" ] || [ -f "$2/reports.jsonl.xz" ]; } ||
        { echo "targets: --tables OUT: expected OUT/reports.jsonl (or .xz)" >&2; exit 2; }
    tables "$2" > /dev/null
    exit
fi

RUNS=${1:-10}
OUT=${2:-docs/results/bench-targets-runs}
shift $(( $# < 2 ? $# : 2 )) || true
[ "${1-}" = "--" ] && shift
BIN=build/bin/ini-bench
[ -x "$BIN" ] || { echo "targets: build first (make)" >&2; exit 2; }
command -v python3 > /dev/null || { echo "targets: python3 is needed" >&2; exit 2; }
WINDOW=$(build/bin/ini-cluster gen 2 1 1 2> /dev/null | sed -n 's/.*[{;] *window = \([0-9]*\);.*/\1/p' | head -n 1)
case $WINDOW in ''|*[!0-9]*) echo "targets: cannot read the default stack.window from ini-cluster gen" >&2; exit 2 ;; esac
case $RUNS in ''|*[!0-9]*|0) echo "targets: RUNS: expected a positive integer, got '$RUNS'" >&2; exit 2 ;; esac
mkdir -p "$OUT"
rm -f "$OUT/reports.jsonl" "$OUT/reports.jsonl.xz" "$OUT/errors.log"
TMP=$(mktemp -d /tmp/ini-targets.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

for i in $(seq -w 1 "$RUNS"); do
    start=$(date -u +%H:%M:%S)
    read -r la1 la5 la15 _ < /proc/loadavg
    echo "targets: run $i of $RUNS ($start UTC, load average $la1 $la5 $la15)" >&2
    rc=0
    "$BIN" --format json "$@" > "$TMP/run.json" 2> "$TMP/run.err" || rc=$?
    read -r ea1 _ < /proc/loadavg
    [ -s "$TMP/run.err" ] && { echo "== run $i (exit $rc)"; cat "$TMP/run.err"; } >> "$OUT/errors.log"
    python3 - "$TMP/run.json" "$i" "$start" "$la1" "$ea1" "$rc" "$WINDOW" >> "$OUT/reports.jsonl" <<'PY'
import json, sys
path, run, start, la, la_end, rc, window = sys.argv[1:]
try:
    report = json.load(open(path))
except ValueError:
    report = None       # what it wrote is in the run's stderr, errors.log
print(json.dumps({"run": int(run), "start": start, "loadavg": float(la), "loadavg_end": float(la_end),
                  "exit": int(rc), "window": int(window), "targets": 2, "report": report}, separators=(",", ":")))
PY
done

rm -f "$OUT/callgrind-8.txt"
if command -v valgrind > /dev/null; then
    echo "targets: instructions per message (callgrind)" >&2
    tools/bench/callgrind-stack.sh 20000 16 8 > "$OUT/callgrind-8.txt" 2>&1 || true
fi
tables "$OUT"

