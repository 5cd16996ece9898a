#!/usr/bin/env bash
# reorder_holds.sh - how often MGS holds a message that overtook an earlier
# one of the same pair of clusters, by scheduling policy (issue 13: the
# explanation of round-robin's cost).  MGS restores the per-pair order with
# sequence numbers (docs/mgs.md); `reorder_held` in mgs-cluster<C>.json
# counts the messages it held.  Water on MGS, 343 molecules, 2 steps, a
# layout with several INIs per cluster, the calibrated O of that cluster
# size, REPS runs per policy.
#
#   tools/thesis/reorder_holds.sh [--layout CxPxI] [--reps N] [--calibration FILE] [--out FILE]
PROG=reorder_holds; . "$(dirname "$0")/../lib/options.sh"
LAYOUT=2x8x8 REPS=3 CAL=docs/results/thesis-calibration.txt OUT=
parse_options "--layout=LAYOUT --reps=REPS --calibration=CAL --out=OUT" "$@"
posint --reps "$REPS"
IFS=x read -r C P I <<< "$LAYOUT"
[ -n "$I" ] || die "--layout: CxPxI, e.g. 2x8x8"
[ -r "$CAL" ] || die "$CAL: no calibration file (tools/thesis/calibrate.sh)"
O=$(awk -v p="$P" '!/^#/ && $1 == p {print $2}' "$CAL")
[ -n "$O" ] || die "$CAL: no O for cluster size $P"
RANDOM_IN=${WATER_RANDOM:-$ROOT/tools/apps/water/data/random.in}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
build/bin/ini-cluster gen "$C" "$P" "$I" -o "$tmp/cfg" > /dev/null || exit 1
. "$ROOT/tools/thesis/runs.sh"     # water_input
water_input 343 2 "$tmp/water.in"
{
echo "# made by: tools/thesis/reorder_holds.sh --layout $LAYOUT --reps $REPS --calibration $CAL ($(date -u +%F), load average $(cut -d' ' -f1-3 /proc/loadavg))"
echo "# knob O=$O,O_mode=sleep,O_dist=exp; held = messages MGS held until an earlier one of the same cluster pair arrived"
printf '%-12s %4s %10s %10s %8s\n' policy rep held sent share
for pol in static round-robin load-aware; do
    for r in $(seq 1 "$REPS"); do
        d=$tmp/run-$pol-$r
        if ! build/bin/ini-cluster run "$tmp/cfg" --policy "$pol" --ini-policy "$pol" \
                --knob "O=$O,O_mode=sleep,O_dist=exp" --run-dir "$d" -- \
                build/bin/water --mgs --random "$RANDOM_IN" < "$tmp/water.in" > "$tmp/log" 2>&1; then
            printf '%-12s %4d %10s\n' "$pol" "$r" failed; continue
        fi
        python3 - "$pol" "$r" "$d" <<'EOF'
import glob, json, sys
pol, rep, d = sys.argv[1:]
held = sent = 0
for f in glob.glob(d + "/mgs-cluster*.json"):
    j = json.load(open(f))
    held += j["reorder_held"]
    sent += j["messages_sent"]
print("%-12s %4s %10d %10d %7.1f%%" % (pol, rep, held, sent, 100.0 * held / sent if sent else 0))
EOF
    done
done
} | tee "${OUT:-/dev/null}"
