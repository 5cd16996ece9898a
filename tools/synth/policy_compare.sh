#!/usr/bin/env bash
# policy_compare.sh: does load balancing help?  ini-synth on 2 clusters of
# 4 compute nodes and 2 INIs each, with the INI made the bottleneck (knob O:
# extra INI time per message, asleep so the 2 cores are not the limit), in
# two unbalanced scenarios, under static, round-robin and load-aware
# scheduling (the same policy at the compute nodes and at the INIs):
#   hot sources: the first 2 compute nodes of each cluster (both assigned
#                to the same INI under the static policy) work 8x less
#                between requests;
#   hot spot:    half of all requests go to compute node 4.
# Prints the mean message time (time in the sending INI plus time in the
# receiving INI, from summary traces) and the mean cycle time R.
#   usage: tools/synth/policy_compare.sh [--time real|virtual] [--cycles N] [SECONDS] [REPS]
# --time virtual runs on the emulated machine (docs/virtual-time.md): W
# and o declared, the INI's service the thesis cost set (about 2,500
# cycles a side, twice W's 1,200 at synth's 0.5 us a cycle: the INI is the
# bottleneck without a knob), N cycles per PE (default 200) in place of
# SECONDS; both times are then in the emulated machine's cycles.
set -eu
cd "$(dirname "$0")/../.."
TIME=real CYCLES=200
while [ $# -ge 1 ]; do
    case $1 in
        --time|--cycles) [ $# -ge 2 ] || { echo "policy_compare.sh: $1: missing value" >&2; exit 2; }
                         if [ "$1" = --time ]; then TIME=$2; else CYCLES=$2; fi; shift 2 ;;
        *) break ;;
    esac
done
case $TIME in real|virtual) ;; *) echo "policy_compare.sh: --time: '$TIME' is not real or virtual" >&2; exit 2 ;; esac
[[ $CYCLES =~ ^[1-9][0-9]*$ ]] || { echo "policy_compare.sh: --cycles: '$CYCLES' is not a positive integer" >&2; exit 2; }
DUR=${1:-5}
REPS=${2:-3}
O_US=${O_US:-60}
TMP=$(mktemp -d /tmp/ini-policy.XXXXXX)
build/bin/ini-cluster gen 2 4 2 > "$TMP/2x4x2.cfg"
if [ "$TIME" = virtual ]; then
    SYNTH=(--W-us 600 --o-us 20 --dist exp --cycles "$CYCLES")
    RUN=(--time virtual) INI="thesis cost set (virtual time)" UNIT=cycles
else
    SYNTH=(--W-us 600 --o-us 20 --mode sleep --dist exp --duration "$DUR")
    RUN=(--knob "O=$O_US,O_mode=sleep") INI="knob O=${O_US}us (sleep)" UNIT=us
fi
printf "# ini-synth %s, %s, 2 clusters x 4 PEs x 2 INIs, %d runs each, medians\n" \
    "${SYNTH[*]}" "$INI" "$REPS"
printf "%-12s %-12s %18s %14s\n" scenario policy "msg time ($UNIT)" "R ($UNIT)"
for scenario in hot-sources hot-spot; do
    case $scenario in
        hot-sources) extra=(--hot-sources 2:8) ;;
        hot-spot) extra=(--pattern hotspot:0.5:4) ;;
    esac
    for policy in static round-robin load-aware; do
        mt=(); rr=()
        for r in $(seq 1 "$REPS"); do
            dir=$TMP/$scenario-$policy-$r
            build/bin/ini-cluster run "$TMP/2x4x2.cfg" --policy "$policy" --ini-policy "$policy" \
                --trace summary "${RUN[@]}" --run-dir "$dir" --timeout 300 -- \
                build/bin/ini-synth "${SYNTH[@]}" "${extra[@]}" --seed "$r" > "$dir.out" 2>&1 ||
                { echo "run failed: $scenario $policy" >&2; tail -3 "$dir.out" >&2; exit 1; }
            mt+=("$(build/bin/ini-trace report "$dir" --format json |
                    python3 -c 'import json,sys; m = json.load(sys.stdin)["machine"]
print(m["msg_cycles"] if sys.argv[1] == "cycles" else m["msg_ns"] / 1000)' "$UNIT")")
            rr+=("$(python3 -c "
import glob, json
js = [json.load(open(f)) for f in glob.glob('$dir/synth-cluster*.json')]
rs = [j['mean_R_us'] / (j['params']['scale_us_per_cycle'] if '$UNIT' == 'cycles' else 1) for j in js]
print(sum(rs) / len(rs))")")
        done
        m=$(printf "%s\n" "${mt[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
        r=$(printf "%s\n" "${rr[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
        printf "%-12s %-12s %18.1f %14.1f\n" "$scenario" "$policy" "$m" "$r"
    done
done
rm -rf "$TMP"
