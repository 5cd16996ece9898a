#!/usr/bin/env bash
# logp_quick: tools/bench/logp.sh in its quick forms (docs/logp.md).
#
# knobs --quick: the base and every knob at one large setting, one run
# each, writes the runs table (7 runs, each ok, with its load), one
# report line per run carrying ini-bench --logp's parameters, its
# signature (2 Δ x 4 burst sizes) and both INIs' counters, and the tables
# and the signature's data and figure.  Each knob moves its parameter by
# about what it asks: at least half of it, at most 20 times it (a loaded
# machine only lengthens waits, by milliseconds where a waiting thread
# gets its core back late; a knob in the wrong unit would be 1000 times
# off): Δo = 1000 us, spinning and asleep, on o_s and on o_r, Δg = 5000
# us on g, ΔG = 500 ns/B on G, ΔL = 10000 us on L, O = 2000 us on the
# INIs' busy time per message.  The other parameters are not judged here: on a shared machine
# they move with the load (the full run's tables are where they are read).
# The tables come out the same when made again from the kept data.
#
# overlap --quick: one ini-bench run (reliable, compute-to-compute,
# kernel UDP, the peers) and one --logp overlap run; overlap.txt has a row
# per path with a positive EEL and both overheads, and the sweep 17 points
# a side.
#
# Bad arguments, of the script and of ini-bench --logp: one line, exit 2.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start logp_quick build/bin/ini-bench build/bin/ini-cluster build/bin/inid
[ "$(id -u)" = 0 ] || { echo "logp_quick: SKIP (needs root for the cluster runs)"; exit 77; }

L=tools/bench/logp.sh
expect_error "no experiment" "expected an experiment" "logp: " $L
expect_error "unknown experiment" "is not an experiment" "logp: " $L bogus
expect_error "unknown option" "unknown option" "logp: " $L knobs --bogus
expect_error "--reps 0" "--reps" "logp: " $L knobs --quick --reps 0
expect_error "unknown knob" "unknown knob" "logp: " $L knobs --quick --knobs foo
expect_error "bad --values" "--values" "logp: " $L knobs --quick --values gap=abc
expect_error "bad --cores" "--cores" "logp: " $L knobs --quick --cores 0,999
expect_error "--knobs with overlap" "knobs experiment" "logp: " $L overlap --knobs gap
expect_error "quick into docs/results" "does not write into docs/results" "logp: " $L knobs --quick --out docs/results/logp-knobs
expect_error "tables of nothing" "no such file" "logp: " $L tables "$TMP/none"
B=build/bin/ini-bench
expect_error "--logp --bogus" "unknown option" "ini-bench: " $B --logp --bogus
expect_error "--logp --tests" "is not a test" "ini-bench: " $B --logp --tests foo
expect_error "--logp --deltas" "--deltas" "ini-bench: " $B --logp --deltas 1,,2
expect_error "--logp --bursts" "must ascend" "ini-bench: " $B --logp --bursts 8,4
expect_error "--logp burst too short" "4 x --window" "ini-bench: " $B --logp --bursts 1,16 --window 8
env -u INI_CONFIG $B --logp --quick > /dev/null 2> "$TMP/alone.err"
rc=$?
[ $rc = 1 ] && [ "$(wc -l < "$TMP/alone.err")" = 1 ] && ok "--logp outside a cluster run: exit 1, $(cat "$TMP/alone.err")" ||
    fail "--logp outside a cluster run: exit $rc, $(cat "$TMP/alone.err")"

# ---- knobs ----
K=$TMP/knobs
$L knobs --quick --seed 5 --out "$K" > "$TMP/knobs.log" 2>&1 || { cat "$TMP/knobs.log"; fail "knobs --quick exited with $?"; }
for f in meta.txt runs.tsv reports.jsonl knobs.txt knobs.csv signature.dat; do
    [ -s "$K/$f" ] || fail "knobs: no $f"
done
if command -v gnuplot > /dev/null; then
    head -c 8 "$K/signature.png" 2>/dev/null | od -An -c | grep -q 'P   N   G' || fail "knobs: signature.png is not a PNG"
fi
[ "$(tail -n +2 "$K/runs.tsv" | wc -l)" = 7 ] || fail "knobs: runs.tsv: expected 7 runs"
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
     !($c["status"] == "ok" && $c["runtime_s"] > 0 && $c["load_before"] ~ /^[0-9.]+$/ && $c["flag"] ~ /^(ok|loaded)$/) { bad = 1; print "bad run: " $0 }
     END { exit bad }' "$K/runs.tsv" || fail "knobs: a run failed or lacks its run time or load"
python3 - "$K" <<'EOF' || fail "knobs: the reports or the knobs' moves (above)"
import csv, json, math, sys
out = sys.argv[1]
bad = []
lines = [json.loads(l) for l in open(out + "/reports.jsonl")]
got = sorted((l["knob"], float(l["value"])) for l in lines)
want = sorted([("base", 0.0), ("overhead", 1000.0), ("overhead_sleep", 1000.0), ("gap", 5000.0), ("per_byte", 500.0),
               ("latency", 10000.0), ("O", 2000.0)])
if got != want:
    bad.append("reports.jsonl: points %s, expected %s" % (got, want))
for l in lines:
    p = l.get("programs", {})
    d = p.get("logp.json", {})
    for k in ("rtt_us", "eel_us", "o_s_us", "o_r_us", "o_r_steady_us", "g_us", "G_ns_per_byte", "L_us"):
        if not isinstance(d.get(k), (int, float)) or math.isnan(d[k]):
            bad.append("%s %s: %s missing" % (l["knob"], l["value"], k))
    if not (d.get("rtt_us", 0) > 0 and d.get("o_s_us", 0) > 0 and d.get("g_us", 0) > 0):
        bad.append("%s %s: round trip, o_s and g must be positive" % (l["knob"], l["value"]))
    sig = d.get("signature", [])
    if sorted((s["delta_us"], s["m"]) for s in sig) != sorted((dd, m) for dd in (0, 20) for m in (1, 4, 16, 64)) or \
            not all(s["interval_us"] > 0 for s in sig):
        bad.append("%s %s: the signature is not 2 x 4 positive points" % (l["knob"], l["value"]))
    for f in ("ini0.counters.json", "ini1.counters.json"):
        if "busy" not in (p.get(f) or {}):
            bad.append("%s %s: no %s" % (l["knob"], l["value"], f))
rows = {(r["knob"], float(r["value"])): r for r in csv.DictReader(open(out + "/knobs.csv"))}
base = rows.get(("base", 0.0))
def move(knob, v, param, asked, rel_base=True):
    r = rows.get((knob, v))
    if r is None or base is None:
        bad.append("knobs.csv: no row for %s %g or the base" % (knob, v))
        return
    m = float(r[param]) - (float(base[param]) if rel_base else 0)
    verdict = "ok" if 0.5 * asked <= m <= 20 * asked else "OUT OF [0.5, 20] x"
    print("logp_quick: %s = %g moves %s by %.1f (asked %g): %s" % (knob, v, param, m, asked, verdict))
    if verdict != "ok":
        bad.append("%s = %g moved %s by %.1f, asked %g" % (knob, v, param, m, asked))
move("overhead", 1000.0, "o_s", 1000)
move("overhead", 1000.0, "o_r", 1000)
move("overhead_sleep", 1000.0, "o_s", 1000)
move("overhead_sleep", 1000.0, "o_r", 1000)
move("gap", 5000.0, "g", 5000, rel_base=False)
move("per_byte", 500.0, "G", 500, rel_base=False)
move("latency", 10000.0, "L", 10000)
move("O", 2000.0, "O", 2000)
for b in bad:
    print("logp_quick: FAIL: " + b)
sys.exit(1 if bad else 0)
EOF
grep -q '^== Δo (overhead_us): o' "$K/knobs.txt" && grep -q '^== O (O_us): O' "$K/knobs.txt" || fail "knobs.txt lacks a knob's table"
cp "$K/knobs.txt" "$K/knobs.csv" "$K/signature.dat" "$TMP/"
$L tables "$K" > /dev/null 2>&1 || fail "tables: exit $?"
for f in knobs.txt knobs.csv signature.dat; do
    cmp -s "$K/$f" "$TMP/$f" || fail "tables: $f differs when made again"
done

# ---- overlap ----
O=$TMP/overlap
$L overlap --quick --seed 5 --out "$O" > "$TMP/overlap.log" 2>&1 || { cat "$TMP/overlap.log"; fail "overlap --quick exited with $?"; }
for f in meta.txt runs.tsv reports.jsonl overlap.txt overlap.csv overlap-sweep.dat; do
    [ -s "$O/$f" ] || fail "overlap: no $f"
done
python3 - "$O" <<'EOF' || fail "overlap: the table (above)"
import csv, sys
out = sys.argv[1]
rows = {r["path"]: r for r in csv.DictReader(open(out + "/overlap.csv"))}
bad = []
need = ["compute-to-compute, measuring node's own core: knee", "compute-to-compute, measuring node's own core: T(D)-D",
        "reliable: T(1.5g)-1.5g", "compute-to-compute, node on its INI's core: T(1.5g)-1.5g", "kernel-udp: T(1.5g)-1.5g"]
for n in need:
    r = rows.get(n)
    if r is None:
        bad.append("no row '%s'" % n)
        continue
    if not (float(r["eel"]) > 0 and r["exceeds_eel"] in ("yes", "no") and r["o_s"] != "-" and r["o_r"] != "-"):
        bad.append("row '%s': %s" % (n, r))
pts = [l for l in open(out + "/overlap-sweep.dat") if l.strip() and not l.startswith("#")]
if len(pts) != 34:
    bad.append("overlap-sweep.dat: %d points, expected 17 a side" % len(pts))
for b in bad:
    print("logp_quick: FAIL: " + b)
sys.exit(1 if bad else 0)
EOF
test_end
