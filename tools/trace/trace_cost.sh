#!/usr/bin/env bash
# trace_cost.sh: what tracing costs.  Runs the same ini-ping flood with
# trace mode off, summary and detailed, REPS times each, and prints the
# median INI busy cycles per message (the loop's productive turns over the
# messages it handled, from the counters: independent of sleeping) and the
# median round trip, with the overhead relative to off.
#   usage: tools/trace/trace_cost.sh [REPS] [COUNT]
set -eu
cd "$(dirname "$0")/../.."
REPS=${1:-5}
COUNT=${2:-3000}
TMP=$(mktemp -d /tmp/ini-trace-cost.XXXXXX)
printf "# ini-ping --sizes 64 --count %d --window 8 on conf/default.cfg, %d runs per mode, medians\n" "$COUNT" "$REPS"
printf "%-9s %22s %10s %16s %10s\n" mode "INI cycles/message" overhead "p50 RTT (us)" overhead
base_c=""; base_r=""
for mode in off summary detailed; do
    cyc=(); rtt=()
    for r in $(seq 1 "$REPS"); do
        dir=$TMP/$mode-$r
        build/bin/ini-cluster run conf/default.cfg --trace "$mode" --run-dir "$dir" -- \
            build/bin/ini-ping --sizes 64 --count "$COUNT" --window 8 > "$dir.out" 2>&1
        cyc+=("$(python3 -c "
import glob, json
v = [json.load(open(f))['busy']['cycles_per_message'] for f in glob.glob('$dir/ini*.counters.json')]
print(sum(v) / len(v))")")
        rtt+=("$(awk '$1 == 64 && NF >= 7 { print $4; exit }' "$dir/cluster0.out")")
    done
    mc=$(printf "%s\n" "${cyc[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    mr=$(printf "%s\n" "${rtt[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    [ -n "$base_c" ] || { base_c=$mc; base_r=$mr; }
    printf "%-9s %22.0f %9.1f%% %16.1f %9.1f%%\n" "$mode" "$mc" \
        "$(python3 -c "print(($mc / $base_c - 1) * 100)")" "$mr" "$(python3 -c "print(($mr / $base_r - 1) * 100)")"
done
rm -rf "$TMP"
