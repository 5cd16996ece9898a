#!/usr/bin/env bash
# Calibrates the O knob per cluster size so that the INIs carry the load
# they carried in the thesis (issue 13, point 2), and writes the file
# tools/thesis/experiments.sh --calibration reads.
#
#   tools/thesis/calibrate.sh [--sizes 1,2,4,8] [--reps 5] [--nmol 343] [--steps 2] [--out FILE]
#                             [--knob SPEC] [--no-verify] [--verify-reps 3] [--dilate K] [--idle-yield US]
#
# The thesis's demand ratio at cluster size c, one INI per cluster:
#     D_c = U_c * T_c / T0_c
#   U_c  INI utilization with 1 INI per cluster, static (table 5.3)
#   T_c  Water's run time with 1 INI per cluster, static (table 5.5)
#   T0_c Water's run time without INIs: the thesis gives no table of it, but
#        table 5.8 gives the slowdown over it at sqrt(c) INIs per cluster, so
#        T0_c = T(sqrt(c) INIs) / slowdown_c, T(sqrt(c)) interpolated linearly
#        between the measured INI counts of table 5.5, as the thesis does.
# D_c is one INI's busy time over the no-INI run time.  Here, with O = 0:
#   T0_c  our no-INI run time (cluster-fake-inid), median of --reps runs;
#   P_c   inter-cluster message passes per INI with 1 INI per cluster (each
#         message counts at the sending and at the receiving INI), median
#         of --reps runs;
#   s0    the native per-pass service time (processing, queue excluded),
#         mean over those runs' traces.
# For our INI to be busy D_c * T0_c over P_c passes, each pass must take
# D_c * T0_c / P_c, so O adds the rest:
#     O_c = D_c * T0_c / P_c - s0        (clamped at 0)
# (T0_c, not the INI run's time: the thesis's ratio is to the no-INI time.)
# Use the file with --knob O_mode=sleep,O_dist=exp (O asleep, so that up to
# 16 INI daemons still act as dedicated processors on 2 cores).
#
# Two things move when O is there, so a second step runs Water --verify-reps
# times more per size with O_c and --knob (default O_mode=sleep,O_dist=exp)
# and measures them (medians):
#   s1  the service per pass: a sleep lasts longer than asked (timer and
#       wake-up latency, more on a busy machine);
#   P1  the passes per INI: MGS sends fewer messages when they are slow
#       (clusters of 2 and 4: about a fifth fewer at the O of the first
#       step; docs/results/thesis-k300-first), so O = 0's P_c
#       undercounts the time each must take.
# and corrects O once for both, keeping the INI's demand D_c * T0_c:
#     O'_c = D_c * T0_c / P1 - (s1 - O_c)      (clamped at 0)
# (with P1 = P_c this is O_c - (s1 - (O_c + s0)), the correction for the
# sleep alone).  The file's second column is O'_c; O_c, s1 and P1 are kept
# beside it.  --no-verify skips the second step (O'_c = O_c).  Arithmetic
# and output: tools/inimeasure/calibrate.py.
#
# Every run uses --dilate K (MGS_DILATE: each compute node runs as a
# dedicated processor K times slower, default 300) and idle.yield_us = US
# (default 0: an idle daemon sleeps at once instead of yielding its core),
# and the file records both on a line '#@ dilate=K yield_us=US', which
# experiments.sh applies to its runs (docs/experiments.md: why).
PROG=calibrate; . "$(dirname "$0")/../lib/options.sh"
CMDLINE="tools/thesis/calibrate.sh $*"
SIZES=1,2,4,8 REPS=5 NMOL=343 NSTEP=2 OUT= KNOB=O_mode=sleep,O_dist=exp VERIFY=1 VREPS=3 DILATE=300 YIELD=0
show_help() { help_usage | head -1; }
parse_options "--sizes=SIZES --reps=REPS --nmol=NMOL --steps=NSTEP --out=OUT --knob=KNOB
    --no-verify:VERIFY=0 --verify-reps=VREPS --dilate=DILATE --idle-yield=YIELD" "$@"
posint --reps "$REPS"
posint --verify-reps "$VREPS"
factor --dilate "$DILATE" "a factor >= 1"; nonneg --idle-yield "$YIELD"
export MGS_DILATE=$DILATE
. "$ROOT/tools/thesis/regime.sh"
for c in ${SIZES//,/ }; do case $c in 1|2|4|8) ;; *) die "--sizes: $c is not 1, 2, 4 or 8 (the thesis's sizes)" ;; esac; done
[ -n "$OUT" ] || { mkdir -p runs; OUT=runs/calibration-$(date +%Y%m%d-%H%M%S).txt; }
CLUSTER=$ROOT/build/bin/ini-cluster TRACE=$ROOT/build/bin/ini-trace
WATER=$ROOT/build/bin/water FAKE=$ROOT/build/bin/cluster-fake-inid TIMED=$ROOT/tools/thesis/timed-water.sh
RANDOM_IN=${WATER_RANDOM:-$ROOT/tools/apps/water/data/random.in}
for b in "$CLUSTER" "$TRACE" "$WATER" "$FAKE"; do [ -x "$b" ] || die "$b not built (run make)"; done
[ -r "$RANDOM_IN" ] || die "data file $RANDOM_IN missing"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$ROOT/tools/thesis/runs.sh"     # water_input, water_time
water_input "$NMOL" "$NSTEP" "$tmp/water.in"

# run_water C P KIND(fake|ini) DIR [KNOB] -> prints the run time (s)
run_water() {
    local C=$1 P=$2 kind=$3 dir=$4 args=(--trace summary)
    [ -n "${5:-}" ] && args+=(--knob "$5")
    "$CLUSTER" gen "$C" "$P" 1 -o "$tmp/c.cfg" > /dev/null || exit 1
    regime_config "$tmp/c.cfg" "$YIELD" || exit 2
    [ "$kind" = fake ] && args=(--inid "$FAKE")
    timeout 600 "$CLUSTER" run "$tmp/c.cfg" --policy static --ini-policy static "${args[@]}" --run-dir "$dir" \
        --timeout 500 -- "$TIMED" "$WATER" --mgs --random "$RANDOM_IN" < "$tmp/water.in" > "$tmp/log" 2>&1 &&
        grep -q '^Exited Happily' "$dir/cluster0.out" || { cat "$tmp/log" >&2; die "Water run ($kind, ${C}x$P) failed"; }
    water_time "$dir"; echo
}

# passes_service RUNDIR -> "passes per INI" "service per pass (us)"
passes_service() {
    "$TRACE" report "$1" --format json > "$1.json" || die "ini-trace report failed"
    python3 -c 'import json,sys
j=json.load(open(sys.argv[1])); m=j["machine"]; n=sum(len(c["inis"]) for c in j["clusters"])
print((m["msgs_out"] + m["msgs_in"]) / n, m["service_ns"] / 1000)' "$1.json"
}

# ini_pass C P DIR [KNOB] -> PASSES (per INI) and SERVICE (per pass, us)
# of one Water run over the INIs; DIR is removed after
ini_pass() {
    run_water "$1" "$2" ini "$3" "${4:-}" > /dev/null
    read -r PASSES SERVICE < <(passes_service "$3")
    rm -rf "$3" "$3.json"
}

: > "$tmp/measured"
for c in ${SIZES//,/ }; do
    C=$((16 / c))
    t0s= ps= s0s=
    for ((r = 1; r <= REPS; r++)); do
        t0s="$t0s $(run_water $C $c fake "$tmp/f$r")"
        rm -rf "$tmp/f$r"
        ini_pass $C $c "$tmp/i$r"
        ps="$ps $PASSES"; s0s="$s0s $SERVICE"
    done
    echo "$c $t0s | $ps | $s0s" >> "$tmp/measured"
    echo "calibrate: size $c: T0 runs (s):$t0s; passes per INI:$ps; service per pass (us):$s0s"
done

: > "$tmp/verify"
if [ $VERIFY = 1 ]; then
    python3 -m inimeasure.calibrate "$tmp/measured" "$tmp/first" "$CMDLINE" "$NMOL" "$NSTEP" /nonexistent "$KNOB" > /dev/null ||
        die "calibration arithmetic failed"
    for c in ${SIZES//,/ }; do
        o=$(awk -v c=$c '!/^#/ && $1 == c {print $2}' "$tmp/first")
        p1s= s1s=
        for ((r = 1; r <= VREPS; r++)); do
            ini_pass $((16 / c)) $c "$tmp/v" "O=$o,$KNOB"
            p1s="$p1s $PASSES"; s1s="$s1s $SERVICE"
        done
        echo "$c $s1s | $p1s" >> "$tmp/verify"
        echo "calibrate: size $c: with O=$o,$KNOB: service per pass (us):$s1s; passes per INI:$p1s"
    done
fi
python3 -m inimeasure.calibrate "$tmp/measured" "$OUT" "$CMDLINE" "$NMOL" "$NSTEP" "$tmp/verify" "$KNOB" || die "calibration arithmetic failed"
echo "#@ dilate=$DILATE yield_us=$YIELD" >> "$OUT"
