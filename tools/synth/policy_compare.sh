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
#   usage: tools/synth/policy_compare.sh [SECONDS] [REPS]
set -eu
cd "$(dirname "$0")/../.."
DUR=${1:-5}
REPS=${2:-3}
O_US=${O_US:-60}
TMP=$(mktemp -d /tmp/ini-policy.XXXXXX)
build/bin/ini-cluster gen 2 4 2 > "$TMP/2x4x2.cfg"
SYNTH=(--W-us 600 --o-us 20 --mode sleep --dist exp --duration "$DUR")
printf "# ini-synth %s, knob O=%sus (sleep), 2 clusters x 4 PEs x 2 INIs, %d runs each, medians\n" \
    "${SYNTH[*]}" "$O_US" "$REPS"
printf "%-12s %-12s %18s %14s\n" scenario policy "msg time (us)" "R (us)"
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
                --trace summary --knob "O=$O_US,O_mode=sleep" --run-dir "$dir" --timeout 300 -- \
                build/bin/ini-synth "${SYNTH[@]}" "${extra[@]}" --seed "$r" > "$dir.out" 2>&1 ||
                { echo "run failed: $scenario $policy" >&2; tail -3 "$dir.out" >&2; exit 1; }
            mt+=("$(build/bin/ini-trace report "$dir" --format json |
                    python3 -c 'import json,sys; print(json.load(sys.stdin)["machine"]["msg_ns"] / 1000)')")
            rr+=("$(python3 -c "
import glob, json
rs = [json.load(open(f))['mean_R_us'] for f in glob.glob('$dir/synth-cluster*.json')]
print(sum(rs) / len(rs))")")
        done
        m=$(printf "%s\n" "${mt[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
        r=$(printf "%s\n" "${rr[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
        printf "%-12s %-12s %18.1f %14.1f\n" "$scenario" "$policy" "$m" "$r"
    done
done
rm -rf "$TMP"
