#!/usr/bin/env bash
# synth_default: ini-synth on conf/default.cfg (2 clusters x 2 PEs x 1 INI)
# in sleep mode.
#   1. Fixed W = 2000 us and o = 100 us for 3 s: the run exits 0, every PE
#      completes cycles, and every PE's mean cycle time R lies between
#      W + 2o (a cycle cannot be shorter: W of work, then the request and
#      the reply handler, each costing o) and 1.5 (W + 2o) + 3 ms (the
#      round trip through two INIs on a loaded 2-core machine, with
#      wake-ups, is well under that).  Each cluster prints its summary
#      line, and RUN_DIR/synth-cluster<C>.json holds one entry per PE.
#   2. Exponential costs and every destination pattern, by cycle count:
#      uniform with hot sources, hotspot, neighbour; each PE completes
#      exactly the cycles asked for and the DONE counts agree (exit 0).
set -u
cd "$(dirname "$0")/../.."
CONFIG=conf/default.cfg
fail() { echo "synth_default: FAIL: $*"; exit 1; }
[ -x build/bin/ini-cluster ] && [ -x build/bin/ini-synth ] && [ -x build/bin/inid ] || fail "build first (make)"

tmp=$(mktemp -d /tmp/synth-default.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

W=2000 o=100
build/bin/ini-cluster run "$CONFIG" --run-dir "$tmp/run" --timeout 120 -- \
    build/bin/ini-synth --W-us $W --o-us $o --mode sleep --dist fixed --duration 3 > "$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
[ "$rc" -eq 0 ] || fail "ini-cluster exited with $rc"

n_clusters=$(grep -c '^ *{ *id *=' "$CONFIG")
[ "$n_clusters" -ge 2 ] || fail "cannot count the clusters of $CONFIG"
pes_seen=0
for ((c = 0; c < n_clusters; c++)); do
    outc="$tmp/run/cluster$c.out"
    [ -s "$outc" ] || fail "no $outc"
    grep -q "^cluster $c: .* 0 errors$" "$outc" || fail "cluster $c: no clean summary line"
    # Per-PE rows: PE cycles R ...
    while read -r pe cycles R; do
        pes_seen=$((pes_seen + 1))
        [ "$cycles" -gt 0 ] || fail "PE $pe completed no cycle"
        awk -v r="$R" -v w=$W -v o=$o 'BEGIN { lo = w + 2 * o; hi = 1.5 * lo + 3000; exit !(r >= lo && r <= hi) }' ||
            fail "PE $pe: mean R = $R us, outside [W + 2o, 1.5 (W + 2o) + 3 ms] = [$((W + 2 * o)), $(( (W + 2 * o) * 3 / 2 + 3000 ))]"
        echo "PE $pe: $cycles cycles, R = $R us: ok"
    done < <(awk '/^ +PE +cycles/ { t = 1; next } t && /^ +[0-9]+ / { print $1, $2, $3 } /^cluster / { t = 0 }' "$outc")
    json="$tmp/run/synth-cluster$c.json"
    [ -s "$json" ] || fail "no $json"
    n_json=$(grep -c '"pe": ' "$json")
    n_cfg=$(grep -o 'pes *= *\[[^]]*\]' "$CONFIG" | sed -n "$((c + 1))p" | sed 's/[^,]//g' | awk '{ print length($0) + 1 }')
    [ "$n_json" = "$n_cfg" ] || fail "$json: $n_json PEs, the config gives cluster $c $n_cfg"
done
[ "$pes_seen" -ge 4 ] || fail "only $pes_seen PE rows in the outputs"

CYCLES=50
for args in "--pattern uniform --hot-sources 1:4" "--pattern hotspot:0.5" "--pattern neighbour"; do
    rm -rf "$tmp/run2"
    # shellcheck disable=SC2086
    build/bin/ini-cluster run "$CONFIG" --run-dir "$tmp/run2" --timeout 120 -- \
        build/bin/ini-synth --W-us 1000 --o-us 50 --dist exp --cycles $CYCLES $args > "$tmp/out2" 2>&1 ||
        { cat "$tmp/out2"; fail "$args: ini-cluster exited with $?"; }
    for ((c = 0; c < n_clusters; c++)); do
        bad=$(awk -v n=$CYCLES '/^ +PE +cycles/ { t = 1; next } t && /^ +[0-9]+ / && $2 != n { print $1 }' \
                  "$tmp/run2/cluster$c.out")
        [ -z "$bad" ] || fail "$args: PEs $bad did not complete $CYCLES cycles"
        grep -q "^cluster $c: .* 0 errors$" "$tmp/run2/cluster$c.out" || fail "$args: cluster $c not clean"
    done
    echo "$args: every PE $CYCLES cycles: ok"
done
echo "synth_default: PASS"
