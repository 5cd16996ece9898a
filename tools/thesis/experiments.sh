#!/usr/bin/env bash
# The thesis's chapter 5 experiments (sections 5.2-5.5): Water on MGS, 16
# compute nodes in clusters of 1, 2, 4, 8, with 1..(cluster size) INIs per
# cluster, static / round-robin / load-aware INI scheduling, plus the
# "no INI" (cluster-fake-inid) and "INI delay" (fake inid +
# INI_FAKE_DELAY_US) baselines.  Writes tables and figures to --out DIR
# (default docs/results/thesis).  See docs/experiments.md.
#
#   tools/thesis/experiments.sh [--quick] [--out DIR] [--reps N] [--no-load-aware]
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
CMDLINE="tools/thesis/experiments.sh $*"
QUICK=0 OUT=docs/results/thesis REPS= LOADAWARE=1
while [ $# -gt 0 ]; do
    case $1 in
    --quick) QUICK=1 ;;
    --out) OUT=$2; shift ;;
    --reps) REPS=$2; shift ;;
    --no-load-aware) LOADAWARE=0 ;;
    *) echo "usage: $0 [--quick] [--out DIR] [--reps N] [--no-load-aware]" >&2; exit 2 ;;
    esac
    shift
done
CLUSTER=$ROOT/build/bin/ini-cluster TRACE=$ROOT/build/bin/ini-trace
WATER=$ROOT/build/bin/water FAKE=$ROOT/build/bin/cluster-fake-inid
TIMED=$ROOT/tools/thesis/timed-water.sh
RANDOM_IN=${WATER_RANDOM:-$ROOT/../shared/water/random.in}
for b in "$CLUSTER" "$TRACE" "$WATER" "$FAKE" "$ROOT/build/bin/inid"; do
    [ -x "$b" ] || { echo "experiments: $b not built (run make)" >&2; exit 1; }
done
[ -r "$RANDOM_IN" ] || { echo "experiments: data file $RANDOM_IN missing" >&2; exit 1; }
if [ $QUICK = 1 ]; then
    NMOL=64 NSTEP=3 REPS=${REPS:-1}
    LAYOUTS="4x4:1,2"; POLICIES="static round-robin"
else
    NMOL=512 NSTEP=3 REPS=${REPS:-3}
    LAYOUTS="16x1:1 8x2:1,2 4x4:1,2,4 2x8:1,2,4,8"
    POLICIES="static round-robin"; [ $LOADAWARE = 1 ] && POLICIES="$POLICIES load-aware"
fi
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
RAW=$OUT/raw; rm -rf "$RAW"; mkdir -p "$RAW"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '  1.5e-16   %d  %d   6\n -1      3000     3  0\n16 6.212752\n' "$NMOL" "$NSTEP" > "$tmp/water.in"
echo "# $CMDLINE" > "$RAW/meta.txt"
echo "nmol=$NMOL nstep=$NSTEP reps=$REPS layouts=$LAYOUTS policies=$POLICIES" >> "$RAW/meta.txt"
failures=0 nrun=0

# one_run NAME CFG KIND(ini|fake) POLICY REP [env...]
one_run() {
    local name=$1 cfg=$2 kind=$3 pol=$4 rep=$5; shift 5
    local dir=$tmp/run-$name-$rep args=(--trace summary)
    [ "$kind" = fake ] && args=(--inid "$FAKE")
    local t0=$SECONDS
    env "$@" timeout 600 "$CLUSTER" run "$cfg" --policy "$pol" --ini-policy "$pol" "${args[@]}" \
        --run-dir "$dir" --timeout 500 -- "$TIMED" "$WATER" --mgs --random "$RANDOM_IN" \
        < "$tmp/water.in" > "$tmp/log" 2>&1
    local rc=$?
    nrun=$((nrun + 1))
    if [ $rc != 0 ] || ! grep -q '^Exited Happily' "$dir/cluster0.out"; then
        echo "  FAIL $name rep $rep: exit $rc (log: $RAW/$name-$rep.log)"; cp "$tmp/log" "$RAW/$name-$rep.log"
        failures=$((failures + 1)); return 1
    fi
    local rt
    rt=$(cat "$dir"/time-c*.txt | awk 'NR==1{s=$1;e=$2} {if($1<s)s=$1; if($2>e)e=$2} END{printf "%.4f", (e-s)/1e9}')
    echo "$rt" > "$RAW/$name-$rep.time"
    if [ "$kind" = ini ]; then
        "$TRACE" report "$dir" --format json > "$RAW/$name-$rep.json" 2> "$RAW/$name-$rep.trace.err"
        local m
        m=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["machine"]; print("msg len %.0f B, msg time %.0f ns, queue %.3f, util %.3f" % (d["msg_len"], d["msg_ns"], d["queue_len"], d["utilization"]))' "$RAW/$name-$rep.json")
        printf '  [%3d] %-28s rep %d: water %s s, %s (%d s)\n' "$nrun" "$name" "$rep" "$rt" "$m" $((SECONDS - t0))
    else
        printf '  [%3d] %-28s rep %d: water %s s (%d s)\n' "$nrun" "$name" "$rep" "$rt" $((SECONDS - t0))
    fi
    rm -rf "$dir"
}

echo "experiments: Water N=$NMOL, $NSTEP steps, 16 compute nodes, $REPS repetition(s); output $OUT"
for lay in $LAYOUTS; do
    cp_=${lay%%:*}; C=${cp_%x*}; P=${cp_#*x}; inis=${lay#*:}
    for I in ${inis//,/ }; do
        "$CLUSTER" gen "$C" "$P" "$I" -o "$tmp/$C-$P-$I.cfg" > /dev/null || exit 1
        for pol in $POLICIES; do
            for ((r = 1; r <= REPS; r++)); do one_run "c${P}-i${I}-$pol" "$tmp/$C-$P-$I.cfg" ini "$pol" "$r"; done
        done
    done
    # baselines: "no INI" and "INI delay" (delay = the measured average
    # message time of the static run with the most INIs of this cluster size,
    # i.e. the least loaded: the thesis's "unloaded INI" latency)
    maxi=${inis##*,}
    "$CLUSTER" gen "$C" "$P" 1 -o "$tmp/$C-$P-fake.cfg" > /dev/null || exit 1
    for ((r = 1; r <= REPS; r++)); do one_run "c${P}-noini" "$tmp/$C-$P-fake.cfg" fake static "$r"; done
    dly=$(python3 -c 'import json,sys,glob
v=[json.load(open(f))["machine"]["msg_ns"] for f in glob.glob(sys.argv[1])]
print("%.2f" % (sum(v)/len(v)/1000) if v else "10")' "$RAW/c${P}-i${maxi}-static-*.json")
    echo "$dly" > "$RAW/c${P}-delay.us"
    for ((r = 1; r <= REPS; r++)); do one_run "c${P}-delay" "$tmp/$C-$P-fake.cfg" fake static "$r" INI_FAKE_DELAY_US="$dly"; done
done
python3 "$ROOT/tools/thesis/tables.py" "$OUT" "$CMDLINE" || failures=$((failures + 1))
echo "experiments: $nrun runs, $failures failure(s); tables in $OUT"
[ $failures = 0 ]
