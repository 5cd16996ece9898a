#!/usr/bin/env bash
# thesis_uniform: tools/thesis/uniform.sh --quick (the chapter 5 grid in
# uniform mode, its quick form: 4x4 with 1 and 2 INIs, static and
# round-robin, the baselines, one repetition, K = 5, beta 0.5) into a
# temporary directory.  Checks: meta.txt records the mode (uniform=5
# beta=0.5, the knob dilate=5,beta=0.5, MGS's protocol threads dilated);
# every table is there, the statistics' too (table_stats, table_equivalence)
# and table_cpu; each INI run's report carries its CPU profile with the
# INIs' CPU per pass, the compute and protocol threads' CPU per node all
# above 0 and the counters' busy share in (0, 1]; utilization in [0, 1],
# run times above 0; the runs table has the load sampled during each run
# (load_mean, busy_max, others_during) and the probe's figures before it
# (probe_rtt_ns, probe_spin_ns); the full form's plan is the grid
# (every layout, 315 runs: 10 repetitions at clusters of 4 and 8) and
# writes nothing; a quick run refuses the committed directories.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
water_test_start thesis_uniform build/bin/ini-cluster build/bin/inid build/bin/ini-trace build/bin/cluster-fake-inid build/bin/ini-bench
O=$TMP/out
if ! WATER_RANDOM=$RANDOM_IN tools/thesis/uniform.sh --quick --beta 0.5 --seed 3 --out "$O" > "$TMP/log" 2>&1; then
    fail "uniform.sh --quick failed"; tail -20 "$TMP/log"
fi
grep -q 'uniform=5 beta=0.5 dilate_protocol=5' "$O/meta.txt" 2>/dev/null && grep -q 'knob="dilate=5,beta=0.5"' "$O/meta.txt" &&
    ok "meta.txt records uniform dilation (K = 5, beta 0.5)" || fail "meta.txt: no uniform mode recorded"
for t in table5_3_ini_static table5_4_ini_round-robin table5_5_runtime table5_6_misrouting_static \
         table5_8_sqrt_scaling_static table_compare table_stats table_equivalence table_cpu; do
    [ -s "$O/$t.txt" ] && [ -s "$O/$t.csv" ] || fail "$t.txt or .csv missing"
done
ok "the chapter 5 tables, the statistics and the CPU profile table are there"
python3 - "$O" > "$TMP/check" 2>&1 <<'EOF' && ok "$(tail -n 1 "$TMP/check")" || { fail "reports, CPU profile or runs table:"; cat "$TMP/check"; }
import csv, json, sys
o = sys.argv[1]
lines = [json.loads(l) for l in open(o + "/reports.jsonl")]
ini = [l for l in lines if "rep" in l and l["cell"].startswith("c4-i")]
assert len(ini) == 4, "%d INI runs in reports.jsonl, expected 4" % len(ini)
for l in ini:
    p = l["programs"]["cpu.json"]
    assert p["ini_cpu_per_pass_ns"] > 0 and p["ini_passes"] > 0, (l["cell"], p)
    assert p["compute_cpu_us"] > 0 and p["protocol_cpu_us"] > 0 and p["nodes"] == 16, (l["cell"], p)
    assert 0 < p["ini_busy_util"] <= 1, (l["cell"], p)
    u = l["report"]["machine"]["utilization"]
    assert 0 <= u <= 1, (l["cell"], u)
rows = list(csv.DictReader(open(o + "/runs.tsv"), delimiter="\t"))
assert len(rows) == 6, "%d rows" % len(rows)
for r in rows:
    assert r["status"] == "ok" and float(r["runtime_s"]) > 0, r
    assert float(r["load_mean"]) >= 0 and 0 <= float(r["busy_max"]) <= 1 and 0 <= float(r["others_during"]) <= 1, r
    assert 10 < float(r["probe_rtt_ns"]) < 100000 and 0 < float(r["probe_spin_ns"]) < 1000, r
print("4 INI runs with their CPU profile (INI CPU per pass %d-%d ns), 6 rows with the load during each run"
      " and the machine's state before it (probe round trip %.0f-%.0f ns)"
      % (min(l["programs"]["cpu.json"]["ini_cpu_per_pass_ns"] for l in ini),
         max(l["programs"]["cpu.json"]["ini_cpu_per_pass_ns"] for l in ini),
         min(float(r["probe_rtt_ns"]) for r in rows), max(float(r["probe_rtt_ns"]) for r in rows)))
EOF
# The full form: the plan only (its output directory, committed or not,
# untouched).
listing() { find docs/results/thesis-uniform-beta1 -printf '%p %s %T@\n' 2> /dev/null | sort | md5sum; }
before=$(listing)
if tools/thesis/uniform.sh --beta 1 --seed 1 --plan > "$TMP/plan" 2>&1 &&
   grep -q 'runs=315' "$TMP/plan" && grep -q 'reps_at=4,8:10' "$TMP/plan" &&
   [ "$(grep -c '^c8-i8-load-aware ' "$TMP/plan")" = 10 ] && [ "$(grep -c '^c1-noini ' "$TMP/plan")" = 5 ] &&
   [ "$(listing)" = "$before" ]; then
    ok "full form: 315 runs planned (10 at clusters of 4 and 8, 5 elsewhere), nothing written"
else
    fail "full form's plan:"; head -3 "$TMP/plan"
fi
expect_refusal() {
    if tools/thesis/uniform.sh --quick --beta 1 --out docs/results/thesis-uniform-beta1 > "$TMP/refuse" 2>&1 ||
       ! grep -q 'partial run' "$TMP/refuse"; then
        fail "a quick run may write into docs/results/thesis-uniform-beta1"
    else
        ok "a quick run refuses docs/results/thesis-uniform-beta1"
    fi
}
expect_refusal
test_end
