#!/usr/bin/env bash
# profile_runs.sh - Water's communication profile (seed 000's table 4) per
# layout, beside the thesis's message counts estimated from its tables
# (docs/traces.md, "Water's communication profile"): one traced run per
# layout and variant, with one INI per cluster, static, in the grid's mode
# (the calibration's O for the layout's cluster size, asleep and
# exponential; its dilation and idle.yield_us; the thesis's stack: window
# 16, IP fragments), `ini-trace profile` of each, and the table
# (tools/inimeasure/profile_table.py).
#
#   tools/trace/profile_runs.sh [--layouts "16x1 8x2 4x4 2x8"] [--variants LIST] [--reps N]
#        [--calibration FILE] [--seed N] [--out DIR]
#
# Variants (comma list; the first is the base the others are compared with):
#   thesis        343 molecules, 2 steps, the shipped cut-off, 4 KiB units,
#                 locks (the grid's workload)
#   unit2         MGS_UNIT_PAGES=2: 8 KiB coherence units
#   cutoff0       Water's CUTOFF field 0: half the box (clamped to 11 A)
#   nmol512       512 molecules
#   deterministic water --deterministic: no accumulation under locks
# Message counts are not timing: runs on a loaded machine count the same
# messages (within MGS's own variation), which the runs table's load
# columns let one judge.
#
# Output (runs.sh's layout): meta.txt, runs.tsv, reports.jsonl (each run's
# ini-trace report), profiles.jsonl (each run's `ini-trace profile --format
# json` with its identifying columns) and water-profile.txt/.csv.  Default
# OUT: runs/water-profile-DATE.
PROG=profile_runs; . "$(dirname "$0")/../lib/options.sh"
CMDLINE="tools/trace/profile_runs.sh $*"
LAYOUTS="16x1 8x2 4x4 2x8" VARIANTS=thesis REPS=1 CALIB=docs/results/thesis-calibration.txt SEED= OUT=
parse_options "--layouts=LAYOUTS --variants=VARIANTS --reps=REPS --calibration=CALIB --seed=SEED
    --out=OUT" "$@"
posint --reps "$REPS"
for l in $LAYOUTS; do [[ $l =~ ^[0-9]+x[0-9]+$ ]] || die "--layouts: '$l' is not CLUSTERSxPES"; done
for v in ${VARIANTS//,/ }; do
    case $v in thesis|unit2|cutoff0|nmol512|deterministic) ;; *) die "--variants: unknown variant '$v'" ;; esac
done
[ -r "$CALIB" ] || die "--calibration: cannot read $CALIB"
[ -z "$SEED" ] && SEED=$(date +%s)
OUT=${OUT:-runs/water-profile-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
RANDOM_IN=${WATER_RANDOM:-$ROOT/tools/apps/water/data/random.in}
[ -r "$RANDOM_IN" ] || die "data file $RANDOM_IN missing"
for b in ini-cluster ini-trace water inid; do [ -x "build/bin/$b" ] || die "build/bin/$b not built (run make)"; done

. tools/thesis/regime.sh
regime_read "$CALIB"
DILATE=${REGIME_DILATE:-1} YIELD=${REGIME_YIELD:-}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. tools/thesis/runs.sh

: > "$tmp/points"
for l in $LAYOUTS; do for v in ${VARIANTS//,/ }; do echo "p${l#*x}-$v $l $v" >> "$tmp/points"; done; done
runs_plan "$tmp/points" "$REPS" "$SEED" > "$tmp/plan"
{
    echo "# $CMDLINE"
    echo "layouts=\"$LAYOUTS\" variants=$VARIANTS reps=$REPS seed=$SEED dilate=$DILATE idle_yield_us=${YIELD:-default}"
    echo "date=$(date -Iseconds) commit=$(git rev-parse --short HEAD 2>/dev/null || echo -)"
    echo "cpu=\"$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)\" cores=$(nproc) kernel=$(uname -r)"
    echo "calibration=\"$CALIB\""
} > "$tmp/meta.txt"
runs_open "$OUT" cell layout variant
cp "$tmp/meta.txt" "$OUT/meta.txt"
rm -f "$OUT/profiles.jsonl"
RUNS_TMP=$tmp RUNS_TRACE=$ROOT/build/bin/ini-trace RUNS_LABEL_COLS=1

# profile_run CELL LAYOUT VARIANT REP
profile_run() {
    local layout=$2 variant=$3 C=${2%x*} P=${2#*x} nmol=343 cutoff=6.212752 env=() args=() dir=$tmp/run o
    case $variant in
    unit2) env=(MGS_UNIT_PAGES=2) ;;
    cutoff0) cutoff=0 ;;
    nmol512) nmol=512 ;;
    deterministic) args=(--deterministic) ;;
    esac
    o=$(awk -v c="$P" '!/^[ \t]*#/ && $1 == c {print $2; exit}' "$CALIB")
    [ -n "$o" ] || { RUN_NOTE="no O for cluster size $P in $CALIB"; return; }
    ROOT_CFG=$tmp/$layout.cfg
    if [ ! -f "$ROOT_CFG" ]; then
        build/bin/ini-cluster gen "$C" "$P" 1 -o "$ROOT_CFG" > /dev/null && regime_config "$ROOT_CFG" "$YIELD" || return
    fi
    printf '  1.5e-16   %d  2   6\n -1      3000     3  0\n%d %s\n' "$nmol" $((C * P)) "$cutoff" > "$tmp/in"
    runs_launch "$dir" "$tmp/in" env MGS_DILATE="$DILATE" "${env[@]}" timeout 900 build/bin/ini-cluster run "$ROOT_CFG" \
        --trace summary --knob "O=$o,O_mode=sleep,O_dist=exp" --run-dir "$dir" --timeout 800 -- \
        tools/thesis/timed-water.sh build/bin/water --mgs --random "$RANDOM_IN" "${args[@]}"
    if [ $? != 0 ] || ! grep -q '^Exited Happily' "$dir/cluster0.out" 2>/dev/null; then
        runs_fail "$dir" "the run failed"; rm -rf "$dir"; return
    fi
    RUN_TIME=$(water_time "$dir")
    runs_report "$dir"
    if build/bin/ini-trace profile "$dir" --format json > "$tmp/profile.json" 2> "$tmp/profile.err"; then
        python3 - "$tmp/profile.json" "$OUT/profiles.jsonl" "$1" "$layout" "$variant" "$4" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))
p["run"] = None                       # the run directory was temporary
line = {"cell": sys.argv[3], "layout": sys.argv[4], "variant": sys.argv[5], "rep": int(sys.argv[6]), "profile": p}
open(sys.argv[2], "a").write(json.dumps(line, separators=(",", ":")) + "\n")
EOF
        RUN_STATUS=ok RUN_NOTE="water $RUN_TIME s, $(python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print("%.0f msgs per node" % p["msgs_mean"])' "$tmp/profile.json")"
    else
        runs_error "$RUN_LABEL rep $RUN_REP: ini-trace profile" "$tmp/profile.err"
        RUN_NOTE="ini-trace profile failed"
    fi
    rm -rf "$dir"
}

echo "profile_runs: $(wc -l < "$tmp/plan") runs; output $OUT"
runs_loop "$tmp/plan" profile_run
python3 -m inimeasure.profile_table "$OUT" || RUNS_FAILED=$((RUNS_FAILED + 1))
echo "profile_runs: $(runs_summary); table in $OUT/water-profile.txt"
[ "$RUNS_FAILED" = 0 ]
