#!/usr/bin/env bash
# copies_series.sh - 64 KB compute node to compute node beside raw memif,
# the reliable layer and UCX over shared memory, in the same ini-bench
# run, one ini-bench flag taking two values in turns (the order
# alternating), every run kept (docs/performance.md, "Copies of a
# message").  By default the flag is --cn-inplace, 1 and 0: the compute
# nodes writing in place or through ini_send's copy.
#
#   tools/bench/copies_series.sh TURNS OUT [--vary FLAG A B] [-- INI-BENCH-FLAGS...]
#       OUT/runs.tsv            one row per run: turn, the flag's value
#                               (column "inplace", or the flag's name without
#                               its dashes), start (UTC),
#                               1-minute load, exit status, Gbit/s at 65,000
#                               bytes of raw-dpdk, reliable, compute-to-compute
#                               and ucx-am-sm, the ratios c2c/raw, c2c/ucx-sm,
#                               reliable/raw, the c2c layer's copies and
#                               checking passes per byte, its retransmissions
#       OUT/reports.jsonl       each run's ini-bench JSON report, one line
#                               a run, with its turn and inplace added
#
# The ratios are within one run: the machine's speed moves between runs.
set -eu
cd "$(dirname "$0")/../.."
usage="usage: copies_series.sh TURNS OUT [--vary FLAG A B] [-- INI-BENCH-FLAGS...]"
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
TURNS=$1 OUT=$2
shift 2
FLAG=--cn-inplace A=1 BV=0 COL=inplace
if [ "${1-}" = "--vary" ]; then
    [ $# -ge 4 ] || { echo "$usage" >&2; exit 2; }
    FLAG=$2 A=$3 BV=$4
    COL=$(echo "${FLAG#--}" | tr - _)
    [ "$FLAG" = --cn-inplace ] && COL=inplace
    shift 4
fi
[ "${1-}" = "--" ] && shift
case $TURNS in '' | *[!0-9]*) echo "copies_series.sh: TURNS: expected a number, got '$TURNS'" >&2; exit 2 ;; esac
B=build/bin/ini-bench
[ -x $B ] || { echo "copies_series.sh: build first (make)" >&2; exit 2; }
mkdir -p "$OUT"
TSV=$OUT/runs.tsv
[ -f "$TSV" ] || printf 'turn\t%s\tstart\tload1\trc\traw_gbps\treliable_gbps\tc2c_gbps\tucx_sm_gbps\tc2c_over_raw\tc2c_over_ucx_sm\treliable_over_raw\tc2c_copies\tc2c_checked\tc2c_retx\n' "$COL" > "$TSV"

row() {   # TURN INPLACE START LOAD RC JSON: one line of runs.tsv
    python3 - "$@" <<'PY'
import json, sys
turn, inplace, start, load, rc, path = sys.argv[1:]
try:
    layers = {l["name"]: l for l in json.load(open(path))["layers"]}
except (OSError, ValueError, KeyError):
    layers = {}
def g(name):
    l = layers.get(name, {})
    return l.get("gbps_64k", 0) if l.get("ok") else 0
def r(a, b):
    return f"{a / b:.3f}" if a and b else "-"
raw, rel, c2c, ucx = g("raw-dpdk"), g("reliable"), g("compute-to-compute"), g("ucx-am-sm")
cp = layers.get("compute-to-compute", {}).get("copies", {})
copies = sum(cp.get(k, 0) for k in ("cn", "frames", "link_out", "link_in", "rings"))
retx = layers.get("compute-to-compute", {}).get("retransmissions", "-")
print("\t".join([turn, inplace, start, load, rc, f"{raw:.2f}", f"{rel:.2f}", f"{c2c:.2f}", f"{ucx:.2f}",
                 r(c2c, raw), r(c2c, ucx), r(rel, raw), f"{copies:.2f}", f"{cp.get('checked', 0):.2f}", str(retx)]))
PY
}

for t in $(seq 1 "$TURNS"); do
    order="$A $BV"
    [ $((t % 2)) -eq 0 ] && order="$BV $A"
    for ip in $order; do
        json=$OUT/turn$t-$COL$ip.json
        start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
        load=$(cut -d' ' -f1 /proc/loadavg)
        rc=0
        $B --layers raw-dpdk,reliable,compute-to-compute,ucx-am-sm --sizes 8,65000 --depths 16 \
            "$FLAG" "$ip" --no-plot --format json "$@" > "$json" 2> "$OUT/errors.tmp" || rc=$?
        [ -s "$OUT/errors.tmp" ] && sed "s/^/turn $t $COL $ip: /" "$OUT/errors.tmp" >> "$OUT/errors.log"
        rm -f "$OUT/errors.tmp"
        row "$t" "$ip" "$start" "$load" "$rc" "$json" | tee -a "$TSV"
        python3 -c 'import json, sys
try:
    r = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    sys.exit(0)   # a run that wrote no report: its row and errors.log say why
r["turn"] = int(sys.argv[2])
r[sys.argv[3]] = int(sys.argv[4])
print(json.dumps(r, separators=(",", ":")))' "$json" "$t" "$COL" "$ip" >> "$OUT/reports.jsonl"
        rm -f "$json"
    done
done
