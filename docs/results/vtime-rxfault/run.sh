#!/usr/bin/env bash
# run.sh --out DIR: the runs of PREDICTIONS.md (receive-side faults and
# --capture in virtual time), from the top of the tree, built.  Writes
# DIR/runs.tsv (a row a run), DIR/reports.jsonl (a line per run and INI:
# its counters file), DIR/compare.tsv (files compared between runs) and
# DIR/runs.tar.xz (the run directories but their captures).  Refuses a DIR that has runs.tsv:
# a quick run never overwrites committed results.
set -u
cd "$(dirname "$0")/../../.." || exit 2
[ "${1:-}" = --out ] && [ -n "${2:-}" ] || { echo "run.sh: usage: run.sh --out DIR" >&2; exit 2; }
OUT=$2
[ -e "$OUT/runs.tsv" ] && { echo "run.sh: --out: $OUT/runs.tsv exists (results are not overwritten)" >&2; exit 2; }
mkdir -p "$OUT/runs"
L=build/bin/ini-cluster
COUNT=tests/integration/lib/pcapng_count.py
FAULT=side=rx,drop=0.05,dup=0.02,reorder=0.02,corrupt=0.01,seed=5
COMMIT=$(git rev-parse --short HEAD)
CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)

sum_of() { grep -o "$1" "$OUT/runs/$2.out" | awk -v k="$3" '{ s += $k } END { print s + 0 }'; }
faults() {     # RUN: the rx injectors' frames dropped duplicated reordered corrupted delayed, both INIs
    python3 -c 'import json, sys
f = [json.load(open("%s/ini%d.counters.json" % (sys.argv[1], i)))["faults"] for i in (0, 1)]
print("\t".join(str(f[0][k] + f[1][k]) for k in ("frames", "dropped", "duplicated", "reordered", "corrupted", "delayed")))' \
        "$OUT/runs/$1"
}
caps() {       # RUN: in/out frames of ini0's and ini1's captures, or "-"s
    local i
    for i in 0 1; do
        if [ -s "$OUT/runs/$1/ini$i.pcapng" ]; then
            python3 $COUNT "$OUT/runs/$1/ini$i.pcapng" | awk '{ print $2, $4 }'
        else
            echo - -
        fi
    done
}

printf 'run\tprediction\tfault\tcapture\ttrace\tsizes\tcount\tstatus\tcycles\tverified_lines\tnaks_sent\tresent_nak\tchecksum_drops\trx_judged\trx_dropped\trx_duplicated\trx_reordered\trx_corrupted\trx_delayed\tcap0_in\tcap0_out\tcap1_in\tcap1_out\thost_s\tloadavg\tcpu\tcommit\n' > "$OUT/runs.tsv"
: > "$OUT/reports.jsonl"
one() {        # NAME PRED FAULT CAPTURE TRACE SIZES COUNT
    local name=$1 pred=$2 fault=$3 cap=$4 trace=$5 sizes=$6 count=$7 args=() t0 st
    [ "$fault" != - ] && args+=(--fault "$fault")
    [ "$cap" = yes ] && args+=(--capture)
    [ "$trace" != - ] && args+=(--trace "$trace")
    t0=$(date +%s.%N)
    timeout 300 $L run conf/default.cfg --time virtual --timeout 240 "${args[@]}" --run-dir "$OUT/runs/$name" -- \
        build/bin/ini-ping --sizes "$sizes" --count "$count" > "$OUT/runs/$name.out" 2>&1
    st=$?
    local host_s load cycles
    host_s=$(python3 -c "import time; print('%.2f' % (time.time() - $t0))")
    load=$(cut -d' ' -f1 /proc/loadavg)
    cycles=$(sed -n 's/^virtual time: \([0-9]*\) cycles (.*/\1/p' "$OUT/runs/$name.out")
    local row=("$name" "$pred" "$fault" "$cap" "$trace" "$sizes" "$count" "$st" "$cycles"
               "$(grep -c 'verified [0-9]* messages, 0 errors' "$OUT/runs/$name.out")"
               "$(sum_of 'NAKs [0-9]* sent' "$name" 2)" "$(sum_of '+ [0-9]* (NAK)' "$name" 2)"
               "$(sum_of 'checksum drops [0-9]*' "$name" 3)" $(faults "$name") $(caps "$name")
               "$host_s" "$load" "$CPU" "$COMMIT")
    (IFS=$'\t'; echo "${row[*]}") >> "$OUT/runs.tsv"
    for i in 0 1; do
        python3 -c 'import json, sys
print(json.dumps({"run": sys.argv[2], "ini": int(sys.argv[3]), "counters": json.load(open(sys.argv[1]))}, sort_keys=True))' \
            "$OUT/runs/$name/ini$i.counters.json" "$name" "$i" >> "$OUT/reports.jsonl"
    done
}
one p1-1 P1-P5 "$FAULT" no detailed 64,1000,9000 50
one p1-2 P1-P5 "$FAULT" no detailed 64,1000,9000 50
one p6-1 P6-P8 - yes - 64,1400,16000 8
one p6-2 P6-P8 - yes - 64,1400,16000 8
one p9-1 P9 "$FAULT" yes - 64,1000,9000 50

printf 'a\tb\tfile\tidentical\tbytes\n' > "$OUT/compare.tsv"
for pair in "p1-1 p1-2" "p6-1 p6-2"; do
    read -r a b <<< "$pair"
    for f in $(cd "$OUT/runs/$a" && ls -- *.trace *.pcapng 2> /dev/null); do
        same=no
        cmp -s "$OUT/runs/$a/$f" "$OUT/runs/$b/$f" && same=yes
        printf '%s\t%s\t%s\t%s\t%s\n' "$a" "$b" "$f" "$same" "$(stat -c %s "$OUT/runs/$a/$f")" >> "$OUT/compare.tsv"
    done
done
# The captures (17 MB) are counted (runs.tsv) and compared (compare.tsv),
# not kept: run.sh makes them again, the same bytes.
rm -rf "$OUT"/runs/*/memif "$OUT"/runs/*/*.pcapng
tar -C "$OUT" -cJf "$OUT/runs.tar.xz" runs && rm -rf "$OUT/runs"
column -t -s $'\t' "$OUT/runs.tsv" | cut -c1-250
column -t -s $'\t' "$OUT/compare.tsv"
