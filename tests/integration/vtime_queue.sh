#!/usr/bin/env bash
# vtime_queue: the virtual-time mode's queueing known answer.  One cluster
# of 2 compute nodes and 1 INI; node 0 sends a Poisson stream (declared
# exponential gaps) to node 1 through the INI, whose service in the thesis
# cost set is a constant D (2,331 cycles).  ini-vtime-queue reports the
# mean time in the INI; M/D/1's is D (1 + rho / (2 (1 - rho))).  Checked:
# at rho 0.5 and 0.8 (20,000 messages each) within 5% of M/D/1, every
# message arrived in order, and the rho 0.5 run again gives the same mean
# to the digit (the same seed, the same run).
# The INI's counters average on its virtual clock: one cluster, so every
# input is a compute node's (local) message and the counters' area and
# the trace report's Little's law cover the same intervals.  Each run's
# queue.time_avg equals the report's queue len and busy.share its
# utilization (to the 4 decimals printed: 0.0001), busy.cycles its busy
# cycles exactly, run_seconds its run cycles / 20 MHz (to the 6 decimals
# printed: 0.5 us);
# the rho 0.5 run again writes the same queue and busy lines.  Telemetry's
# /ini/queue, asked once the machine has stopped (the program wrapped),
# gives queue_avg_milli = 1000 x the counters' time_avg (within 1: the
# one truncated, the other rounded), on the virtual clock, twice the same.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start vtime_queue build/bin/ini-cluster build/bin/inid build/bin/ini-vtime-queue
L=build/bin/ini-cluster
$L gen 1 2 1 -o "$TMP/one.cfg" > /dev/null

qrun() {    # NAME RHO: the queue line of a run, or "" when it failed
    timeout 300 $L run "$TMP/one.cfg" --time virtual --trace summary --timeout 240 --run-dir "$TMP/$1" -- \
        build/bin/ini-vtime-queue --rho "$2" --count 20000 > "$TMP/$1.out" 2>&1 &&
        grep -o 'queue: .*' "$TMP/$1.out"
}
# NAME: "" when run NAME's counters agree with its trace report, else why.
counters_vs_report() {
    build/bin/ini-trace report "$TMP/$1" --format csv > "$TMP/$1.csv" 2> "$TMP/$1.err" ||
        { echo "ini-trace report: $(tail -n 1 "$TMP/$1.err")"; return; }
    python3 - "$TMP/$1/ini0.counters.json" "$TMP/$1.csv" <<'EOF'
import csv, json, sys
c = json.load(open(sys.argv[1]))
rows = list(csv.reader(open(sys.argv[2])))
i = next(k for k, r in enumerate(rows) if r[:4] == ["cluster", "clu_size", "ios_per_clu", "ini"])
r = dict(zip(rows[i], rows[i + 1]))
q, b = c["queue"], c["busy"]
bad = [f"{name} {got} against {want}" for name, got, want, tol in [
    ("queue.time_avg", q["time_avg"], float(r["queue_len"]), 1e-4),
    ("busy.share", b["share"], float(r["utilization"]), 1e-4),
    ("busy.cycles", b["cycles"], int(r["busy_cycles"]), 0),
    ("run_seconds", q["run_seconds"], int(r["run_cycles"]) / 20e6, 5e-7)]
    if abs(got - want) > tol + 1e-9]
if q.get("clock") != "virtual":
    bad.append(f"clock {q.get('clock')!r}")
if b["cycles"] == 0:
    bad.append("no busy cycles")
print("; ".join(bad))
EOF
}
for rho in 0.5 0.8; do
    line=$(qrun "r$rho" "$rho")
    ratio=$(echo "$line" | sed -n 's/.*ratio \([0-9.]*\); 0 errors$/\1/p')
    if [ -n "$ratio" ] && awk -v r="$ratio" 'BEGIN { exit !(r >= 0.95 && r <= 1.05) }'; then
        ok "rho $rho: $line"
    else
        fail "rho $rho: '$line' (want a ratio within 5% of M/D/1, 0 errors); see $TMP/r$rho.out"
    fi
    why=$(counters_vs_report "r$rho")
    counters=$(grep -E '"(queue|busy)"' "$TMP/r$rho/ini0.counters.json" 2>/dev/null | tr -s ' ' | tr -d '\n')
    if [ -z "$why" ] && [ -n "$counters" ]; then
        ok "rho $rho: counters as the report:$counters"
    else
        fail "rho $rho: counters against the report: ${why:-no counters}"
    fi
done
again=$(qrun again 0.5)
first=$(grep -o 'queue: .*' "$TMP/r0.5.out")
if [ -n "$again" ] && [ "$again" = "$first" ]; then
    ok "rho 0.5 again: the same line"
else
    fail "rho 0.5 again: '$again' against '$first'"
fi
# Telemetry's average, asked by DPDK's client after the program ends.
tel_run() {     # NAME: the /ini/queue reply of a rho 0.8 run of 2,000 messages
    timeout 300 $L run "$TMP/one.cfg" --time virtual --timeout 240 --run-dir "$TMP/$1" -- \
        "$TMP/wrap.sh" build/bin/ini-vtime-queue --rho 0.8 --count 2000 > "$TMP/$1.out" 2>&1
    grep -h '^{"/ini/queue"' "$TMP/$1/cluster0.out"
}
if command -v dpdk-telemetry.py > /dev/null; then
    printf '#!/bin/bash\n"$@" || exit\necho /ini/queue | timeout 10 dpdk-telemetry.py -f "ini-$INI_TAG-0" 2> /dev/null | grep "^{"\n' \
        > "$TMP/wrap.sh" && chmod +x "$TMP/wrap.sh"
    t1=$(tel_run tel1) t2=$(tel_run tel2)
    milli=$(echo "$t1" | sed -n 's/.*"clock": "virtual".*"queue_avg_milli": \([0-9]*\)}}$/\1/p')
    avg=$(sed -n 's/.*"time_avg": \([0-9.]*\).*/\1/p' "$TMP/tel1/ini0.counters.json")
    if [ -n "$milli" ] && [ -n "$avg" ] && [ "$t1" = "$t2" ] &&
       awk -v m="$milli" -v a="$avg" 'BEGIN { d = m - 1000 * a; exit !(d >= -1 && d <= 1 && m > 0) }'; then
        ok "telemetry /ini/queue: queue_avg_milli $milli, counters' time_avg $avg, virtual clock, twice the same"
    else
        fail "telemetry /ini/queue: '$t1' then '$t2', counters' time_avg '$avg'; see $TMP/tel1.out"
    fi
else
    ok "telemetry /ini/queue: not checked (dpdk-telemetry.py not installed: Debian package dpdk-dev)"
fi
lines() { grep -E '"(queue|busy)"' "$TMP/$1/ini0.counters.json" 2>/dev/null; }
if [ -n "$(lines again)" ] && [ "$(lines again)" = "$(lines r0.5)" ]; then
    ok "rho 0.5 again: the same counters"
else
    fail "rho 0.5 again: counters '$(lines again | tr -d '\n')' against '$(lines r0.5 | tr -d '\n')'"
fi
test_end
