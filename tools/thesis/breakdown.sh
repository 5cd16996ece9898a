#!/usr/bin/env bash
# breakdown.sh - the per-module breakdowns of the thesis's tables 5.1
# (send) and 5.2 (receive), over repetitions: each repetition is one
# ini-cluster run of `ini-cluster gen 2 1 1` (2 clusters of 1 compute node
# and 1 INI) with detailed traces and ini-ping's messages of 0, 100, 200,
# 1,400, 1,600 and 65,000 bytes; ini-trace report's breakdown of each run
# is kept, and every cell is printed as "median [min-max]" of TSC cycles
# per message over the runs.
#
#   tools/thesis/breakdown.sh [RUNS] [OUT] [SEGMENT]
#   tools/thesis/breakdown.sh --tables OUT     OUT.txt again from OUT/reports.jsonl
#       RUNS     repetitions (default 5)
#       OUT      output prefix (default docs/results/breakdown-runs):
#                OUT.txt (the tables), OUT/reports.jsonl (one line per run:
#                its load average at the start, the mode, "report": its
#                ini-trace report, "counters": each INI's busy, loop and
#                stack counters, tools/inimeasure/stack_costs.py's per pass)
#       SEGMENT  off (IP fragments, the thesis's design; default) or on
set -eu
cd "$(dirname "$0")/../.."
case ${1-} in -h|--help) sed -n '2,/^set -eu/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
SIZES=0,100,200,1400,1600,65000
tables() {   # OUT: the tables from OUT/reports.jsonl, on stdout
python3 - "$1" "$SIZES" <<'PY'
import json, statistics, sys
out, sizes = sys.argv[1], [int(x) for x in sys.argv[2].split(',')]
lines = [json.loads(l) for l in open(f'{out}/reports.jsonl')]
runs, seg = len(lines), lines[0]['segment']
reps = [l['report'] for l in lines]
loads = [l['loadavg'] for l in lines]
print(f'Tables 5.1 and 5.2 over {runs} runs (tools/thesis/breakdown.sh; segmentation {seg}): mean TSC cycles')
print('per message in each run, shown as median [min-max] over the runs.  1-minute load average at')
print('each run\'s start: ' + ', '.join(loads) + '.')
def table(key, cols, title):
    print(f'\n{title}')
    print(f'{"bytes":>6} ' + ' '.join(f'{c:>21}' for c in cols))
    for n in sizes:
        cells = []
        for c in cols:
            v = [r['cycles'][c] for rep in reps for r in rep[key]['rows'] if r['len_lo'] == n and r['msgs'] > 0]
            cells.append(f'{statistics.median(v):.0f} [{min(v):.0f}-{max(v):.0f}]' if v else 'n/a')
        print(f'{n:>6} ' + ' '.join(f'{c:>21}' for c in cells))
table('send_breakdown', ['slid_win', 'udp', 'ip', 'queue', 'handler'], 'Table 5.1 (send)')
table('receive_breakdown', ['ip', 'udp', 'slid_win', 'delivery', 'queue'], 'Table 5.2 (receive)')
PY
}
if [ "${1-}" = --tables ]; then
    [ $# = 2 ] && [ -f "$2/reports.jsonl" ] || { echo "breakdown: --tables OUT: expected OUT/reports.jsonl" >&2; exit 2; }
    tables "$2" > "$2.txt"
    exit
fi
RUNS=${1:-5}
OUT=${2:-docs/results/breakdown-runs}
SEG=${3:-off}
case $RUNS in ''|*[!0-9]*|0) echo "breakdown: RUNS: expected a positive integer, got '$RUNS'" >&2; exit 2 ;; esac
case $SEG in on|off) ;; *) echo "breakdown: SEGMENT: expected on or off, got '$SEG'" >&2; exit 2 ;; esac
for b in ini-cluster ini-ping ini-trace; do
    [ -x build/bin/$b ] || { echo "breakdown: build first (make): build/bin/$b is missing" >&2; exit 2; }
done
TMP=$(mktemp -d /tmp/ini-breakdown.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"
: > "$OUT/reports.jsonl"
build/bin/ini-cluster gen 2 1 1 > "$TMP/cfg" 2> /dev/null
for i in $(seq 1 "$RUNS"); do
    read -r la _ < /proc/loadavg
    echo "breakdown: run $i of $RUNS ($(date -u +%H:%M:%S) UTC, load average $la)" >&2
    build/bin/ini-cluster run "$TMP/cfg" --trace detailed --segment "$SEG" --run-dir "$TMP/run$i" -- \
        build/bin/ini-ping --sizes $SIZES --count 300 > "$TMP/run$i.out" 2>&1 ||
        { echo "breakdown: run $i failed: $(tail -n 1 "$TMP/run$i.out")" >&2; exit 1; }
    build/bin/ini-trace report "$TMP/run$i" --format json > "$TMP/report.json"
    python3 -c 'import glob, json, sys
cnt = [json.load(open(f)) for f in sorted(glob.glob(sys.argv[5] + "/ini*.counters.json"))]
print(json.dumps({"run": int(sys.argv[1]), "loadavg": sys.argv[2], "segment": sys.argv[3],
                  "report": json.load(open(sys.argv[4])),
                  "counters": [{k: c.get(k) for k in ("ini", "busy", "loop", "stack")} for c in cnt]},
                 separators=(",", ":")))' \
        "$i" "$la" "$SEG" "$TMP/report.json" "$TMP/run$i" >> "$OUT/reports.jsonl"
done
tables "$OUT" > "$OUT.txt"
cat "$OUT.txt"
