#!/usr/bin/env bash
# thesis_quick: tools/thesis/experiments.sh --quick (4x4 with 1 and 2 INIs
# per cluster, static and round-robin, the no-INI and INI-delay baselines,
# one repetition) into a temporary directory.  Checks: every table exists
# with a row per configuration; figures are within range (message length
# > 0, utilization and the misrouting count rate in [0, 1], the time rate
# >= 0, run times > 0); the output is the runs table (one row per run with
# its load and CPU time), one report per INI run and per delay calibration
# in reports.jsonl, and no file per run; the figures are PNGs; a partial
# run refuses to write over the committed results; a run whose daemons
# never became ready is started again, counted, and its logs kept in
# errors.log.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# a partial run never writes into docs/results/thesis (and leaves it alone)
before=$(ls -la docs/results/thesis 2>/dev/null | md5sum)
if tools/thesis/experiments.sh --quick --out docs/results/thesis --plan > "$tmp/refuse" 2>&1; then
    fail "--quick --out docs/results/thesis was accepted"
fi
grep -q 'partial run' "$tmp/refuse" || fail "no reason given for refusing docs/results/thesis"
[ "$(ls -la docs/results/thesis 2>/dev/null | md5sum)" = "$before" ] || fail "docs/results/thesis changed"

# The first daemon started fails before ready, once: the run is started
# again, reported, and counted; it is not a failure.
cat > "$tmp/inid-once" <<EOF2
#!/bin/sh
if mkdir "$tmp/failed-once" 2>/dev/null; then echo "inid: failing this start, as the test asks" >&2; exit 1; fi
exec "$PWD/build/bin/inid" "\$@"
EOF2
chmod +x "$tmp/inid-once"
if ! INI_EXPERIMENTS_INID=$tmp/inid-once tools/thesis/experiments.sh --quick --seed 11 --out "$tmp/out" > "$tmp/log" 2>&1; then
    fail "experiments.sh --quick failed"; tail -20 "$tmp/log"
fi
o=$tmp/out
grep -q '^  RESTART .* daemons not ready' "$tmp/log" || fail "the run whose daemon failed to start was not started again"
grep -q ', 0 failure(s), 1 restart(s) of runs whose daemons never became ready' "$tmp/log" ||
    fail "summary does not count the restart: $(grep '^experiments:' "$tmp/log")"
grep -q '^== c4-i[12]-[a-z-]* rep 1: start 1: daemons not ready' "$o/errors.log" 2>/dev/null ||
    fail "no log kept of the failed start in errors.log"
grep -qE '^  \[ *[0-9]+/[0-9]+\] .*left ~[0-9]+:[0-9]{2}:[0-9]{2}$' "$tmp/log" || fail "no progress lines with the time left"
grep -q 'delay calibration, cluster size 4: .* unloaded INI time' "$tmp/log" || fail "no delay calibration"
grep -q 'seed=11' "$o/meta.txt" 2>/dev/null || fail "seed not recorded in meta.txt"
# The runs table: 6 runs (4 with INIs, no INI, INI delay), each ok with its
# run time, load, flag and CPU time; the INI run that was started again
# says so.
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
     { n++ }
     !($c["status"] == "ok" && $c["runtime_s"] > 0 && $c["load_before"] ~ /^[0-9.]+$/ && $c["others"] ~ /^[0-9.]+$/ &&
       $c["flag"] ~ /^(ok|loaded)$/ && $c["cpu_user_s"] ~ /^[0-9.]+$/ && $c["cpu_sys_s"] ~ /^[0-9.]+$/) { print "bad row: " $0; bad = 1 }
     $c["starts"] == 2 { again++ }
     END { if (n != 6) { print n " rows, expected 6"; bad = 1 } if (again != 1) { print again + 0 " rows with starts 2, expected 1"; bad = 1 } exit bad }' \
    "$o/runs.tsv" > "$tmp/rows" 2>&1 || { fail "runs.tsv"; cat "$tmp/rows"; }
# reports.jsonl: the 4 INI runs and the 2 delay calibrations (Water, ini-ping)
python3 - "$o" > "$tmp/reports" 2>&1 <<'EOF' || { fail "reports.jsonl"; cat "$tmp/reports"; }
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1] + "/reports.jsonl")]
runs = sorted((l["cell"], l["rep"]) for l in lines if "rep" in l and l["report"] and "machine" in l["report"])
cal = sorted(l["calibration"] for l in lines if l.get("cell") == "c4-delay" and l["report"])
want = [("c4-i1-round-robin", 1), ("c4-i1-static", 1), ("c4-i2-round-robin", 1), ("c4-i2-static", 1)]
assert runs == want and cal == ["ping", "water"] and len(lines) == 6, (runs, cal, len(lines))
EOF
extra=$(ls "$o" | grep -vE '^(meta\.txt|runs\.tsv|reports\.jsonl|errors\.log|delay-calibration\.txt|tables\.txt|table[0-9a-z_-]+\.(txt|csv)|figure[0-9a-z_-]+\.(dat|png))$')
[ -z "$extra" ] || fail "files beside the layout: $extra"

python3 - "$o" > "$tmp/check" 2>&1 <<'EOF' || { fail "table checks"; cat "$tmp/check"; }
import csv, glob, os, sys
o = sys.argv[1]
bad = []
def rows(name):
    p = os.path.join(o, name + ".csv")
    if not os.path.exists(p):
        bad.append("missing " + p); return []
    lines = [l for l in open(p) if not l.startswith("#")]
    return list(csv.DictReader(lines))
med = lambda s: float(s.split(" [")[0].rstrip("%"))
def rng(s):
    if " [" not in s:
        v = med(s); return v, v
    a, b = s.split(" [")[1].rstrip("]").rsplit("-", 1)
    return float(a.rstrip("%")), float(b.rstrip("%"))
for pol, t in (("static", "table5_3_ini_static"), ("round-robin", "table5_4_ini_round-robin")):
    r = {(x["clu size"], x["ios per clu"]): x for x in rows(t)}
    for ios in ("1", "2"):
        x = r.get(("4", ios))
        if not x:
            bad.append("%s: no row for 4x4 with %s INIs" % (t, ios)); continue
        if not med(x["msg len (B)"]) > 0: bad.append("%s %s: msg len" % (t, ios))
        if not med(x["msg time (ns)"]) > 0: bad.append("%s %s: msg time" % (t, ios))
        for f in ("INI utilization", "busiest INI util"):
            lo, hi = rng(x[f])
            if not (0 <= lo <= hi <= 1): bad.append("%s %s: %s %s outside [0, 1]" % (t, ios, f, x[f]))
        if not med(x["queue length"]) >= 0: bad.append("%s %s: queue length" % (t, ios))
    m = rows("table5_%s_misrouting_%s" % ("6" if pol == "static" else "7", pol))
    x = [y for y in m if y["clu size"] == "4" and y["ios per clu"] == "2"]
    if not x:
        bad.append("misrouting %s: no row for 4x4, 2 INIs" % pol)
    else:
        lo, hi = rng(x[0]["mis sched count rate"])
        if not (0 <= lo <= hi <= 100): bad.append("misrouting %s: count rate %s outside [0, 100%%]" % (pol, x[0]["mis sched count rate"]))
        if not rng(x[0]["mis sched time rate"])[0] >= 0: bad.append("misrouting %s: time rate < 0" % pol)
        # count rate = blocked x sibling idle, each a share in [0, 100%]
        b, si = rng(x[0]["blocked"]), rng(x[0]["sibling idle"])
        if not (0 <= b[0] <= b[1] <= 100 and 0 <= si[0] <= si[1] <= 100 and lo <= b[1] + 1e-9):
            bad.append("misrouting %s: blocked %s / sibling idle %s out of range or below the count rate" % (pol, x[0]["blocked"], x[0]["sibling idle"]))
    s = rows("table5_%s_sqrt_scaling_%s" % ("8" if pol == "static" else "9", pol))
    sl = [y for y in s if y["clu size"] == "slowdown"]
    if not sl or not float(sl[0]["4"]) > 0: bad.append("sqrt scaling %s: no slowdown" % pol)
rt = {x["clu size"]: x for x in rows("table5_5_runtime")}
for lab in ("static (ms)", "round-robin (ms)", "no INI (ms)", "INI delay (ms)"):
    if lab not in rt: bad.append("table 5.5: no row " + lab); continue
    for k, v in rt[lab].items():
        if k != "clu size" and not med(v) > 0: bad.append("table 5.5: %s: %s" % (lab, v))
if not rows("table_compare"): bad.append("no comparison table")
for t in glob.glob(os.path.join(o, "table*.txt")):
    last = open(t).read().rstrip("\n").splitlines()[-1]
    if not last.endswith("."): bad.append("%s does not end with a sentence: %r" % (t, last))
print("\n".join(bad) or "ok")
sys.exit(1 if bad else 0)
EOF
for f in "$o"/figure5-1_static.png "$o"/figure5-2_round-robin.png; do
    head -c 8 "$f" 2>/dev/null | grep -q PNG || fail "$f is not a PNG"
done
grep -q '^# made by: tools/thesis/experiments.sh --quick' "$o/table5_5_runtime.txt" 2>/dev/null || fail "no command header"
[ "$failures" -eq 0 ] && echo "thesis_quick: all passed" || echo "thesis_quick: $failures failed"
[ "$failures" -eq 0 ]
