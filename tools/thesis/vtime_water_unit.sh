#!/usr/bin/env bash
# vtime_water_unit.sh: Water on MGS in virtual time with 4 KiB and 1 KiB
# coherence units (MGS_UNIT_BYTES), at clusters of 1, 2, 4, 8 on 16 nodes,
# one INI a cluster (issue 45, point 5; predictions in
# docs/results/mgs-1k-unit/predictions.txt, written before the runs).
#
#   tools/thesis/vtime_water_unit.sh [--out DIR] [--units "4096 1024"]
#
# Water as tools/thesis/vtime_water.sh runs it: 343 molecules, 2 steps,
# lock-based mode, static policy, `thesis` costs, declared work at
# --work-scale 13.92, memif.  Each cell runs once (virtual time is
# deterministic); the 1 KiB 2 x 8 cell runs a second time with two spinning
# jobs loading both host cores, to show it.  One row per run in
# DIR/runs.tsv; DIR/reports.jsonl has each run's MGS counters summed over
# the clusters, per message type.  DIR defaults to a new directory under
# /tmp: a quick run never overwrites committed results.
set -u
cd "$(dirname "$0")/../.."
OUT="" UNITS="4096 1024" SCALE=13.92
while [ $# -gt 0 ]; do
    case $1 in
        --out) OUT=$2; shift 2 ;;
        --units) UNITS=$2; shift 2 ;;
        *) echo "vtime_water_unit.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ -n "$OUT" ] || OUT=$(mktemp -d /tmp/vtime-water-unit.XXXXXX)
mkdir -p "$OUT/runs"
L=build/bin/ini-cluster W=build/bin/water RANDOM_IN=tools/apps/water/data/random.in
TSV=$OUT/runs.tsv JSONL=$OUT/reports.jsonl
[ -f "$TSV" ] || printf 'nodes\tclusters\tpes\tinis\tunit_bytes\trep\tload\tcycles\tmcycles\tevents\thandovers\thost_s\tmsgs\tavg_bytes\tini_util_mean\tini_util_max\tanswer_ok\tcommit\n' > "$TSV"
printf '  1.5e-16   343  2   6\n -1      3000     2  0\n16 6.212752\n' > "$OUT/runs/in16"

# report NAME UNIT: the run's MGS counters, summed over its clusters, as one line
report() {
    python3 - "$OUT/runs/$1" "$1" "$2" <<'EOF'
import glob, json, sys
d, name, unit = sys.argv[1], sys.argv[2], int(sys.argv[3])
files = sorted(glob.glob(d + "/mgs-cluster*.json"))
out = {"run": name, "unit_bytes": unit, "clusters": len(files), "by_type": {}}
keys = ["read_faults", "write_faults", "spurious_faults", "sibling_faults", "unchanged_releases",
        "pages_fetched", "upgrades", "diffs_sent", "diff_bytes", "clean_acks", "invalidations",
        "sw_grants", "sw_recalls", "releases", "flushes", "messages_sent", "bytes_sent"]
for f in files:
    c = json.load(open(f))
    for k in keys:
        out[k] = out.get(k, 0) + c.get(k, 0)
    for t, m in c["messages"].items():
        b = out["by_type"].setdefault(t, {"sent": 0, "sent_bytes": 0})
        b["sent"] += m["sent"]
        b["sent_bytes"] += m["sent_bytes"]
out["by_type"] = {t: v for t, v in out["by_type"].items() if v["sent"]}
try:
    out["cycles"] = json.load(open(d + "/vtime.json"))["cycles"]
except (OSError, ValueError):
    out["cycles"] = None
print(json.dumps(out, sort_keys=True))
EOF
}

# run_cell CLUSTERS PES UNIT REP: one run, one row, one report
run_cell() {
    local c=$1 p=$2 unit=$3 rep=$4 name="$1x$2x1-u$3-r$4" load=0 h1= h2= env_unit=
    local cfg=$OUT/runs/$1x$2x1.cfg dir=$OUT/runs/$name
    [ -f "$cfg" ] || $L gen "$c" "$p" 1 -o "$cfg" > /dev/null
    [ "$unit" = 4096 ] || env_unit=$unit      # 4 KiB: the default, no knob
    if [ "$rep" = 2 ]; then
        load=2; ( while :; do :; done ) & h1=$!; ( while :; do :; done ) & h2=$!
    fi
    local t0=$(date +%s.%N)
    MGS_UNIT_BYTES=$env_unit timeout 3000 $L run "$cfg" --time virtual --timeout 2900 --run-dir "$dir" -- \
        "$W" --mgs --work-scale $SCALE --random "$RANDOM_IN" < "$OUT/runs/in16" > "$dir.out" 2>&1
    local rc=$? t1=$(date +%s.%N)
    [ -n "$h1" ] && { kill $h1 $h2; wait $h1 $h2; } 2>/dev/null
    PYTHONPATH=tools python3 -m inimeasure.vtime_row "$dir" "$dir.out" "$rc" "$t0" "$t1" "16 $c $p 1 $unit $rep $load" \
        "$(git rev-parse --short HEAD)" >> "$TSV"
    report "$name" "$unit" >> "$JSONL"
    tail -1 "$TSV"
}

for unit in $UNITS; do
    for p in 1 2 4 8; do run_cell $((16 / p)) $p "$unit" 1; done
done
case " $UNITS " in *" 1024 "*) run_cell 2 8 1024 2 ;; esac
echo "vtime_water_unit.sh: rows in $TSV, reports in $JSONL"
