#!/usr/bin/env bash
# vtime_water_subunit: Water on MGS with 1 KiB coherence units
# (MGS_UNIT_BYTES=1024: four units to a 4 KiB page, docs/mgs.md "Units
# smaller than a page"), in virtual time.
#   1. 2 clusters x 2 nodes x 1 INI, 64 molecules, 2 steps, --deterministic,
#      with 4 KiB units (the default) and 1 KiB units: each prints the
#      threads run's output; the default's cycles are still the committed
#      ones, and so are the 1 KiB run's (vtime_golden.tsv).
#   2. 1 KiB units send more inter-cluster messages than 4 KiB, and shorter
#      ones on average (the machine totals of mgs-cluster0.json); faults
#      were served for a sibling unit, and unchanged units were dropped
#      from flushes without a REL.
#   3. 16 nodes as 8 clusters of 2, 64 molecules, 1 KiB units: the threads
#      run's output with 16 threads.
#   4. A bad MGS_UNIT_BYTES is refused with the field named, non-zero exit.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
water_test_start vtime_water_subunit build/bin/ini-cluster build/bin/inid
L=build/bin/ini-cluster

. tests/integration/lib/vtime_water.sh
vrun() {    # NAME CONFIG INPUT UNIT_BYTES: Water on MGS in virtual time; its status
    MGS_UNIT_BYTES=$4 timeout 600 $L run "$2" --time virtual --timeout 550 --run-dir "$TMP/$1" -- \
        "$WATER" --mgs --deterministic --random "$RANDOM_IN" < "$3" > "$TMP/$1.out" 2>&1
}
same_answer() {   # NAME THREADS_OUT: the run's output equals the threads run's
    diff <(no_times < "$2") <(no_times < "$TMP/$1.out") > "$TMP/$1.diff"
}
machine() {       # NAME FIELD: a machine total of the run (cluster 0's file)
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["machine"][sys.argv[2]])' \
        "$TMP/$1/mgs-cluster0.json" "$2"
}
summed() {        # NAME FIELD: a counter summed over the run's clusters
    python3 -c 'import json,sys,glob; print(sum(json.load(open(f))[sys.argv[2]] for f in glob.glob(sys.argv[1] + "/mgs-cluster*.json")))' \
        "$TMP/$1" "$2"
}

$L gen 2 2 1 -o "$TMP/c221.cfg" > /dev/null
input 64 4 > "$TMP/in64"
"$WATER" --deterministic --random "$RANDOM_IN" < "$TMP/in64" > "$TMP/threads64.out" 2>&1

# --- 1: the answer with both units, and the committed cycles
vrun u4k "$TMP/c221.cfg" "$TMP/in64" ''; r4=$?
vrun u1k "$TMP/c221.cfg" "$TMP/in64" 1024; r1=$?
for name in u4k u1k; do
    if [ "$([ $name = u4k ] && echo $r4 || echo $r1)" = 0 ] && same_answer $name "$TMP/threads64.out"; then
        ok "$name: 64 molecules on 2 x 2 x 1, the threads run's output ($(vcycles $name) cycles)"
    else
        fail "$name: status $r4/$r1 or output differs from the threads run; see $TMP/$name.diff"
    fi
done
vt_golden water64-c221 "$(vcycles u4k)"
vt_golden water64-c221-1k "$(vcycles u1k)"

# --- 2: more, shorter messages
m4=$(machine u4k messages_sent) m1=$(machine u1k messages_sent)
a4=$(machine u4k avg_message_bytes) a1=$(machine u1k avg_message_bytes)
sib=$(summed u1k sibling_faults) unch=$(summed u1k unchanged_releases) unit=$(summed u1k unit_bytes)
if [ "${m1%.*}" -gt "${m4%.*}" ] && python3 -c "import sys; sys.exit(not float('$a1') < float('$a4'))"; then
    ok "1 KiB units: $m1 inter-cluster messages of $a1 B on average; 4 KiB: $m4 of $a4 B"
else
    fail "1 KiB units: $m1 messages of $a1 B, not more and shorter than 4 KiB's $m4 of $a4 B"
fi
if [ "$unit" = 2048 ] && [ "$sib" -gt 0 ] && [ "$unch" -gt 0 ]; then
    ok "1 KiB units (2 x 1024 B in the files): $sib faults served for a sibling unit, $unch unchanged units left out of flushes"
else
    fail "unit_bytes summed $unit (want 2048), sibling faults $sib, unchanged releases $unch (want both > 0)"
fi

# --- 3: 16 nodes, clusters of 2
$L gen 8 2 1 -o "$TMP/c821.cfg" > /dev/null
input 64 16 > "$TMP/in64x16"
"$WATER" --deterministic --random "$RANDOM_IN" < "$TMP/in64x16" > "$TMP/threads64x16.out" 2>&1
if vrun big "$TMP/c821.cfg" "$TMP/in64x16" 1024 && same_answer big "$TMP/threads64x16.out"; then
    ok "16 nodes (8 x 2 x 1), 1 KiB units: the threads run's output, $(vcycles big) cycles, $(machine big messages_sent) messages"
else
    fail "16 nodes, 1 KiB units: failed or output differs; see $TMP/big.out, $TMP/big.diff"
fi

# --- 4: bad values
for bad in 1000 128 65536 1k; do
    status=0
    MGS_UNIT_BYTES=$bad "$WATER" --mgs --random "$RANDOM_IN" < "$TMP/in64" > /dev/null 2> "$TMP/bad.err" || status=$?
    if [ "$status" != 0 ] && grep -q "MGS_UNIT_BYTES=$bad: a unit is a power of two from 256" "$TMP/bad.err"; then
        ok "MGS_UNIT_BYTES=$bad refused (status $status): $(grep MGS_UNIT_BYTES "$TMP/bad.err")"
    else
        fail "MGS_UNIT_BYTES=$bad: status $status, stderr: $(cat "$TMP/bad.err")"
    fi
done
test_end
