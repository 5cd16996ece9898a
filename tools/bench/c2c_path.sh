#!/usr/bin/env bash
# c2c_path.sh - where the compute-to-compute round trip goes, over a series
# of runs (issue 32, docs/performance.md "The whole path"):
#
#   tools/bench/c2c_path.sh RUNS OUT
#
# Each run, one after the other on this machine:
#   1. ini-bench --handover: two processes handing one core to each other
#      by sched_yield, ns per switch (the floor of a hand-over);
#   2. ini-bench --quick --layers compute-to-compute,ucx-am-tcp --cn-trace:
#      the 8-byte round trips of the whole path (traced in detail: the
#      stamps cost it a little) and of UCX active messages over TCP
#      loopback, the issue's peer, in the same run;
#   3. tools/inimeasure/c2c_path.py on the traced run's ping-pong test: each
#      phase's median, the four hand-overs' sum and share of the round trip;
#   4. the INIs' kept yields (counters.json loop.kept_yields: yields the
#      scheduler kept, after which the daemon slept; ini/cn/fabric.h).
# Writes OUT/meta.txt (command, commit, machine), OUT/runs.tsv (a row per
# run) and OUT/reports.jsonl (each run's phases in full); OUT must not
# exist or be empty.  Every run is kept.
PROG=c2c_path.sh; . "$(dirname "$0")/../lib/options.sh"
case ${1-} in -h|--help) help_header; exit 0 ;; esac
[ $# = 2 ] || die "usage: c2c_path.sh RUNS OUT"
RUNS=$1 OUT=$2
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS: expected a positive integer, got '$RUNS'"
[ ! -e "$OUT" ] || [ -z "$(ls -A "$OUT" 2> /dev/null)" ] || die "$OUT exists and is not empty"
BENCH=$PWD/build/bin/ini-bench
[ -x "$BENCH" ] || { echo "c2c_path.sh: $BENCH not built (run make)" >&2; exit 1; }
mkdir -p "$OUT" || exit 1
tmp=$(mktemp -d /tmp/c2c-path.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
{
    echo "# tools/bench/c2c_path.sh $RUNS $OUT"
    echo "# commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with changes)'), $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "# $(uname -srm), $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
} > "$OUT/meta.txt"
printf 'run\tload\thandover_ns\tkept_per_switch\tc2c_rtt_us\tucx_rtt_us\tratio\ttraced_rt_us\thandovers_us\tshare\tkept_ini0\tkept_ini1\tstatus\n' \
    > "$OUT/runs.tsv"
: > "$OUT/reports.jsonl"
failed=0
for ((i = 1; i <= RUNS; i++)); do
    load=$(cut -d' ' -f1 /proc/loadavg)
    h=$("$BENCH" --handover 2> /dev/null)
    run=$tmp/run$i
    # the quick run's round trips outgrow a node's default trace (a quarter
    # of the INIs' 4,194,304 records) in the VM's fast state: 2026-12-03,
    # every run failed with ~250,000 records dropped
    if INI_CN_TRACE_RECORDS=4194304 "$BENCH" --quick --layers compute-to-compute,ucx-am-tcp --cn-trace "$run" --verbose --format json \
            > "$tmp/bench.json" 2> "$tmp/bench.err" &&
       python3 -m inimeasure.c2c_path "$run" --json > "$tmp/path.json" 2> "$tmp/path.err"; then
        line=$(python3 - "$i" "$load" "$h" "$tmp/bench.json" "$tmp/path.json" "$run" "$OUT/reports.jsonl" <<'PY'
import json, sys
i, load, h, bench, path, run, reports = sys.argv[1:]
hv = dict(f.split("=") for f in h.split()[1:]) if h.startswith("handover ") else {}
b = {l["name"]: l for l in json.load(open(bench))["layers"]}
p = json.load(open(path))
kept = [json.load(open("%s/ini%d.counters.json" % (run, k)))["loop"].get("kept_yields", 0) for k in (0, 1)]
c2c, ucx = b["compute-to-compute"]["rtt_ns"] / 1e3, b.get("ucx-am-tcp", {}).get("rtt_ns", 0) / 1e3
ph = p["phases"]
rec = {"run": int(i), "load": float(load), "handover": hv, "c2c_rtt_us": c2c, "ucx_rtt_us": ucx,
       "kept_yields": kept, "round_trips": p["round_trips"], "phases": ph}
with open(reports, "a") as f:
    f.write(json.dumps(rec) + "\n")
print("\t".join([i, load, hv.get("ns_per_switch", "-"), hv.get("kept_per_switch", "-"), "%.2f" % c2c,
                 "%.2f" % ucx if ucx else "-", "%.3f" % (c2c / ucx) if ucx else "-",
                 "%.2f" % ph["round trip: ping's send to pong's handler start"]["median"],
                 "%.2f" % ph["hand-overs: the four sends and receives"]["median"],
                 "%.3f" % ph["hand-overs' share of the round trip"]["median"], str(kept[0]), str(kept[1]), "ok"]))
PY
)
        printf '%s\n' "$line" >> "$OUT/runs.tsv"
        echo "c2c_path.sh: run $i: $(cut -f5-10 <<< "$line" | tr '\t' ' ')"
    else
        failed=$((failed + 1))
        printf '%s\t%s\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\tfailed: %s\n' "$i" "$load" \
            "$(tail -n 1 "$tmp/bench.err" "$tmp/path.err" 2> /dev/null | grep -v '^==>' | grep . | tail -n 1 | tr '\t' ' ')" >> "$OUT/runs.tsv"
        echo "c2c_path.sh: run $i failed"
    fi
    rm -rf "$run"
done
echo "c2c_path.sh: $RUNS runs, $failed failed; $OUT/runs.tsv"
[ $failed = 0 ]
