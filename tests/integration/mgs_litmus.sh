#!/usr/bin/env bash
# mgs_litmus: the MGS litmus tests (tools/litmus/mgs-litmus.c) across 3 clusters
# (2 compute nodes and 2 INIs each, so the round-robin and load-aware
# policies spread one pair's messages over different INI pairs), under each
# scheduling policy (compute-node and INI policy alike), each with inid's
# fault injection on (2% drop, dup, reorder); plus the same three without
# faults, and runs on 4 clusters with 2-page, 1 KiB and 256-byte coherence
# units (MGS_UNIT_BYTES: units that share a page).
#
# Every litmus test asserts the exact final memory contents in every cluster
# (see the program's header); a run passes when the program exits 0 and
# cluster 0 reports all 8 tests "ok (0 errors in all clusters)".  Also
# checked: every cluster wrote RUN_DIR/mgs-cluster<C>.json; the single-writer
# test saw grants and recalls; under round-robin the MGS channel had to
# restore the order of messages that overtook each other.
set -u
cd "$(dirname "$0")/../.."
CLUSTER=build/bin/ini-cluster
LITMUS=build/bin/mgs-litmus
for b in "$CLUSTER" "$LITMUS" build/bin/inid; do
    [ -x "$b" ] || { echo "FAIL: $b not built (run make)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$CLUSTER" gen 3 2 2 -o "$tmp/3x2.cfg" > /dev/null || { echo "FAIL: gen"; exit 1; }
"$CLUSTER" gen 4 2 2 -o "$tmp/4x2.cfg" > /dev/null || { echo "FAIL: gen"; exit 1; }
ROUNDS=${MGS_LITMUS_ROUNDS:-6}
failures=0
runs=0

json_sum() { # field run_dir -> sum of the field over mgs-cluster*.json
    cat "$2"/mgs-cluster*.json 2>/dev/null | sed -n "s/^  \"$1\": \([0-9]*\),\$/\1/p" | awk '{s += $1} END {print s + 0}'
}

litmus() { # name config clusters [launcher options...]
    local name=$1 cfg=$2 clusters=$3; shift 3
    local dir="$tmp/$name"
    runs=$((runs + 1))
    local start=$SECONDS
    timeout 600 "$CLUSTER" run "$cfg" --run-dir "$dir" --timeout 500 "$@" -- "$LITMUS" --rounds "$ROUNDS" \
        > "$tmp/$name.log" 2>&1
    local rc=$? why=""
    local oks
    oks=$(grep -c 'ok (0 errors in all clusters)' "$dir/cluster0.out" 2>/dev/null)
    [ "$rc" = 0 ] || why="exit status $rc"
    [ "${oks:-0}" = 8 ] || why="${why:+$why, }${oks:-0} of 8 tests ok"
    local c
    for ((c = 0; c < clusters; c++)); do
        [ -s "$dir/mgs-cluster$c.json" ] || why="${why:+$why, }no mgs-cluster$c.json"
    done
    if [ -z "$why" ]; then
        local grants recalls held
        grants=$(json_sum sw_grants "$dir"); recalls=$(json_sum sw_recalls "$dir"); held=$(json_sum reorder_held "$dir")
        [ "$grants" -gt 0 ] && [ "$recalls" -gt 0 ] || why="no single-writer grants/recalls ($grants/$recalls)"
        case "$*" in
        *"--policy round-robin"*) [ "$held" -gt 0 ] || why="round-robin, yet no message arrived out of order" ;;
        esac
        echo "info: $name: $(( SECONDS - start )) s, sw grants $grants, recalls $recalls, messages held for order $held"
    fi
    if [ -n "$why" ]; then
        echo "FAIL: $name: $why"
        grep -vE '^(INI [0-9]|run directory)' "$tmp/$name.log" | tail -20
        failures=$((failures + 1))
    else
        echo "ok:   $name: 8 litmus tests, exact contents in every cluster"
    fi
}

seed=11
for policy in static round-robin load-aware; do
    litmus "3x2-$policy-faults" "$tmp/3x2.cfg" 3 --policy "$policy" --ini-policy "$policy" \
        --fault "drop=0.02,dup=0.02,reorder=0.02,seed=$seed"
    seed=$((seed + 1))
done
for policy in static round-robin load-aware; do
    litmus "3x2-$policy" "$tmp/3x2.cfg" 3 --policy "$policy" --ini-policy "$policy"
done
MGS_UNIT_BYTES='' MGS_UNIT_PAGES=2 litmus "4x2-2-page-units-round-robin-faults" "$tmp/4x2.cfg" 4 --policy round-robin \
    --ini-policy round-robin --fault "drop=0.02,dup=0.02,reorder=0.02,corrupt=0.01,seed=5"
# Units smaller than a page (4 and 16 to a page): siblings share the page's
# protection, so a unit's fault can be served for another unit.
for bytes in 1024 256; do
    MGS_UNIT_BYTES=$bytes litmus "4x2-$bytes-byte-units-round-robin-faults" "$tmp/4x2.cfg" 4 --policy round-robin \
        --ini-policy round-robin --fault "drop=0.02,dup=0.02,reorder=0.02,corrupt=0.01,seed=7"
    sib=$(json_sum sibling_faults "$tmp/4x2-$bytes-byte-units-round-robin-faults")
    [ "${sib:-0}" -gt 0 ] && echo "info: $bytes-byte units: $sib faults served for a sibling unit" ||
        { echo "FAIL: $bytes-byte units: no fault was served for a sibling unit"; failures=$((failures + 1)); }
done

[ "$failures" -eq 0 ] && echo "mgs_litmus: all $runs runs passed" || echo "mgs_litmus: $failures of $runs runs failed"
[ "$failures" -eq 0 ]
