#!/usr/bin/env bash
# mgs_water: Water on MGS (`water --mgs` under ini-cluster, one process per
# cluster), 16 threads, N = 512, 3 steps.
#
#  1. --deterministic --full, NPRINT = 1: the full-precision lines (and all
#     other output but the wall-clock timing lines) are bit-identical for the
#     layouts 2x8, 4x4, 8x2 and 16x1 (clusters x compute nodes, configs from
#     `ini-cluster gen`) and equal to the plain-threads run with 16 threads.
#     1x16: run under the launcher if inid accepts a one-cluster machine;
#     if it fails to start (stack/swp.c cannot set up a transport without
#     peers), the layout runs as MGS's standalone single cluster instead
#     (`water --mgs` outside the launcher), and the script says so.
#  2. default (lock-based) mode, NPRINT = 3, layouts 4x4 and 16x1: stdout
#     equals the worked example of the spec (tools/apps/water/fixtures, P = 16;
#     timing values masked), and with NPRINT = 1 (layout 2x8) the energy
#     blocks equal example_nprint1_blocks.out.
#  3. the input reaches the program as `< input` (the launcher gives programs
#     /dev/null; cluster 0 reads the launcher's stdin and shares it) and as
#     --input FILE; every cluster writes mgs-cluster<C>.json, and the average
#     inter-cluster message length is reported.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
CLUSTER=$PWD/build/bin/ini-cluster
FIXTURES=tools/apps/water/fixtures
water_test_start mgs_water "$CLUSTER" build/bin/inid

input() { printf '  1.5e-16   512  3   6\n -1      3000     %s  0\n16 6.212752\n' "$1"; }  # NPRINT
no_times() { grep -vE '^(COMPUTESTART|COMPUTEEND|COMPUTETIME|Measured Time|Intramolecular time|Intermolecular time|Other time)'; }
mask_times() {
    sed -E 's/^((COMPUTESTART \(after initialization\)|COMPUTEEND|COMPUTETIME \(after initialization\)|(Measured|Intramolecular|Intermolecular|Other) time( only)? \(2nd timestep onward\)|Measured Time \(2nd timestep onward\)) = ).*$/\1<time>/'
}
avg_len() { # run dir -> average inter-cluster message bytes over all clusters
    cat "$1"/mgs-cluster*.json | awk -F'[:,]' '/"messages_sent"/ {m += $2} /"bytes_sent"/ {b += $2}
        END {if (m) printf "%.0f B over %d messages", b / m, m; else print "no messages"}'
}

# run_mgs NAME CLUSTERS PES NPRINT [water options] : stdout of cluster 0 in $TMP/NAME.out
run_mgs() {
    local name=$1 clusters=$2 pes=$3 nprint=$4; shift 4
    local cfg="$TMP/${clusters}x$pes.cfg" dir="$TMP/$name"
    [ -f "$cfg" ] || "$CLUSTER" gen "$clusters" "$pes" 1 -o "$cfg" > /dev/null
    input "$nprint" > "$TMP/$name.in"
    local start=$SECONDS
    timeout 900 "$CLUSTER" run "$cfg" --run-dir "$dir" --timeout 800 -- "$WATER" --mgs --random "$RANDOM_IN" "$@" \
        < "$TMP/$name.in" > "$TMP/$name.log" 2>&1
    local rc=$?
    if [ "$rc" != 0 ]; then
        if [ "$clusters" = 1 ] && grep -q 'lwIP setup failed' "$TMP/$name.log"; then
            echo "note: $name: inid cannot run a one-cluster machine (see docs/mgs.md); standalone MGS instead"
            (cd "$TMP" && "$WATER" --mgs --random "$RANDOM_IN" "$@" < "$TMP/$name.in" > "$TMP/$name.out" 2> "$TMP/$name.err")
            rc=$?
            [ "$rc" = 0 ] || { fail "$name: standalone exit status $rc"; tail -5 "$TMP/$name.err"; return 1; }
            echo "info: $name (standalone): $(( SECONDS - start )) s"
            return 0
        fi
        fail "$name: exit status $rc"
        grep -vE '^(INI [0-9]|run directory)' "$TMP/$name.log" | tail -15
        return 1
    fi
    cp "$dir/cluster0.out" "$TMP/$name.out"
    local c
    for ((c = 0; c < clusters; c++)); do
        [ -s "$dir/mgs-cluster$c.json" ] || fail "$name: no mgs-cluster$c.json"
    done
    echo "info: $name: $(( SECONDS - start )) s, average inter-cluster message $(avg_len "$dir")"
}

# 1. deterministic mode: bit-identical across layouts and with plain threads
input 1 | "$WATER" --random "$RANDOM_IN" --deterministic --full | no_times > "$TMP/plain"
grep -q '^FULL 3 ' "$TMP/plain" || fail "plain run printed no FULL line for step 3"
for layout in 1x16 2x8 4x4 8x2 16x1; do
    c=${layout%x*}; p=${layout#*x}
    run_mgs "det-$layout" "$c" "$p" 1 --deterministic --full || continue
    no_times < "$TMP/det-$layout.out" > "$TMP/det-$layout.cmp"
    if cmp -s "$TMP/plain" "$TMP/det-$layout.cmp"; then
        ok "deterministic $layout: $(grep -c '^FULL' "$TMP/det-$layout.cmp") FULL lines bit-identical to plain threads"
    else
        fail "deterministic $layout differs from plain threads"; diff "$TMP/plain" "$TMP/det-$layout.cmp" | head -10
    fi
done

# 2. default mode: the worked example
sed -e "s/^Using 1 procs/Using 16 procs/" \
    -e "s/^\(NUMBER OF PROCESSORS       = \) *1\$/\1$(printf '%8d' 16)/" "$FIXTURES/example_nprint3.out" \
    | mask_times > "$TMP/expected"
for layout in 4x4 16x1; do
    c=${layout%x*}; p=${layout#*x}
    run_mgs "default-$layout" "$c" "$p" 3 || continue
    if mask_times < "$TMP/default-$layout.out" | diff -u "$TMP/expected" - > "$TMP/diff"; then
        ok "default mode $layout: stdout equals the worked example (spec 15)"
    else
        fail "default mode $layout: stdout differs from the worked example"; head -20 "$TMP/diff"
    fi
done
run_mgs "default-blocks-2x8" 2 8 1 --input "$TMP/default-blocks-2x8.in" && {
    sed -n '/^\*\*\*\*\* NEW RUN/,/^COMPUTESTART/p' "$TMP/default-blocks-2x8.out" | sed '1d;$d' > "$TMP/blocks"
    if diff -u "$FIXTURES/example_nprint1_blocks.out" "$TMP/blocks" > "$TMP/diff"; then
        ok "default mode 2x8 (--input FILE), NPRINT=1: energy blocks equal the worked example"
    else
        fail "default mode 2x8 NPRINT=1: energy blocks differ"; head -20 "$TMP/diff"
    fi
}

test_end
