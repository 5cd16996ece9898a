#!/usr/bin/env bash
# results_tables: the committed results are what their data make, and the
# docs name only results that exist.  No run is made; a few seconds.
#
# From what docs/results keeps of each experiment (the runs table, the
# reports, .jsonl or .jsonl.xz, meta.txt: tools/inimeasure/runs.py's layout), today's scripts make
# the committed tables again, byte for byte:
#   chapter 5   docs/results/thesis, thesis-uniform-beta1, -beta0.031 and
#               uniform-k100-c8:
#               tools/inimeasure/tables.py, every table (.txt, .csv) and
#               figure's data (.dat); the arms of the replay check and of
#               the calibrated mode's tests keep their data only, and their
#               tables must come out of it; docs/results/beta.txt
#               (tools/inimeasure/beta.py on its measured inputs)
#   sweeps      docs/results/sweeps: sweep_fit.py (sweeps.txt, fits.csv,
#               points.csv, data/*.dat), models.py from models-raw/
#               (models.txt, .csv), water_model.py on the chapter 5 run
#               (water-model.txt, .csv)
#   bench       targets.sh --tables for the series it made (the s6-s11 and
#               w64 series; the four older ones were made by an earlier
#               targets.sh and are kept as it wrote them), breakdown.sh
#               --tables (breakdown-s8-*), segment_compare.sh --tables
#               (segments-bench, -w256)
#   logp        docs/results/logp-knobs, logp-knobs-sleep and logp-overlap:
#               tools/bench/logp.sh tables (their .txt, .csv and .dat)
#   em3d        docs/results/em3d-uniform-beta1, -replay and -sqrt (reports.jsonl.xz):
#               em3d_tables.py and em3d_predict.py (every em3d-*.txt, .csv);
#               em3d-local-sqrt: em3d_local.py compare (compare.tsv)
# (Figures' PNGs are gnuplot's and not compared.)  Then every path under
# docs/results/ that the docs name (docs/*.md, README.md,
# tests/fuzz/RUNS.md; globs and {a,b} expanded) exists, in the tree or in
# the archive of a superseded run, or is scheduled by a plan
# (docs/results/PLAN-*.md, while it is there), and docs/results holds no
# empty file and no per-run files of the older layout.
PROG=results_tables; . "$(dirname "$0")/../../tools/lib/options.sh"   # ROOT; PYTHONPATH for inimeasure
R=docs/results
tmp=$(mktemp -d /tmp/results-tables.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "results_tables: FAIL: $*"; failures=$((failures + 1)); }
[ -x build/bin/ini-model ] || { echo "results_tables: build/bin/ini-model not built (run make)"; exit 1; }

# same DIR FILE...: each FILE of $R/DIR against $tmp/$R/DIR
same() {
    local d=$1 f n=0; shift
    for f in "$@"; do
        n=$((n + 1))
        [ -f "$tmp/$R/$d/$f" ] || { fail "$d/$f was not made again"; continue; }
        cmp -s "$R/$d/$f" "$tmp/$R/$d/$f" || { fail "$d/$f differs:"; diff "$R/$d/$f" "$tmp/$R/$d/$f" | head -n 6; }
    done
    echo "ok:   $d: $n files made again, identical"
}
# The scripts write the output's own path into the tables ("made by: ...
# docs/results/sweeps"), so they run in a copy of the tree's layout.
mkdir -p "$tmp/$R/thesis" "$tmp/$R/sweeps"
cp "$R"/thesis/{runs.tsv,reports.jsonl*,meta.txt,delay-calibration.txt} "$tmp/$R/thesis/"
# experiments in the chapter-5 layout beside it: the uniform grids (and
# clusters of 8 at K = 100), whose tables are committed as thesis/'s are; and the arms of the replay check
# (issue 31) and of the calibrated mode's tests (issue 30), which keep only
# their data (their comparison is committed one level up): their tables
# must come out of it, not be compared with copies
SUBEXP="thesis-uniform-beta1 thesis-uniform-beta0.031 uniform-k100-c8 replay-check/runs calibrated-ablation/stack calibrated-ablation/forwarder
        calibrated-predict/runs calibrated-fixed-o/exp calibrated-fixed-o/fixed calibrated-k600/k300
        calibrated-k600/k600"
for d in $SUBEXP; do
    mkdir -p "$tmp/$R/$d" && cp "$R/$d"/{runs.tsv,reports.jsonl*,meta.txt,delay-calibration.txt} "$tmp/$R/$d/"
done
cp "$R"/sweeps/{runs.tsv,reports.jsonl*,meta.txt} "$tmp/$R/sweeps/"
cp -r "$R/sweeps/models-raw" "$tmp/$R/sweeps/"
cd "$tmp"

# ---- chapter 5 ----
cmd=$(head -n 1 "$R/thesis/meta.txt" | sed 's/^# //')
python3 -m inimeasure.tables "$R/thesis" "$cmd" > /dev/null 2> "$tmp/err" || { fail "tables.py: $(tail -n 1 "$tmp/err")"; }
for d in $SUBEXP; do
    cmd=$(head -n 1 "$R/$d/meta.txt" | sed 's/^# //')
    python3 -m inimeasure.tables "$R/$d" "$cmd" > /dev/null 2> "$tmp/err" || fail "tables.py $d: $(tail -n 1 "$tmp/err")"
done
cd "$ROOT"
same thesis $(cd "$R/thesis" && ls table*.txt table*.csv figure*.dat)
# A grid keeps all its tables, or only tables.txt (they are all in it),
# or none: what it keeps must come out of its data the same.
for d in $SUBEXP; do
    kept=$(cd "$R/$d" && ls table*.txt table*.csv figure*.dat 2> /dev/null | sort -u)
    if [ -n "$kept" ]; then
        # shellcheck disable=SC2086
        same "$d" $kept
    elif [ -s "$tmp/$R/$d/table_stats.txt" ] && [ -s "$tmp/$R/$d/tables.txt" ]; then
        echo "ok:   $d: its tables made from its data"
    else
        fail "$d: tables.py made no tables from its data"
    fi
done

# ---- beta (docs/experiments.md, "Beta") from its measured inputs ----
python3 -m inimeasure.beta docs/results/beta-inputs-k100.txt docs/results/beta-inputs-k300.txt > "$tmp/beta.txt" 2> "$tmp/err" ||
    fail "beta.py: $(tail -n 1 "$tmp/err")"
cmp -s "$tmp/beta.txt" docs/results/beta.txt && echo "ok:   beta.txt made again, identical" ||
    { fail "docs/results/beta.txt is not what beta.py makes of its inputs"; diff docs/results/beta.txt "$tmp/beta.txt" | head -5; }

# ---- sweeps ----
cd "$tmp"
python3 -m inimeasure.sweep_fit "$R/sweeps" > /dev/null 2> "$tmp/err" || fail "sweep_fit.py: $(tail -n 1 "$tmp/err")"
python3 -m inimeasure.models "$R/sweeps/models-raw" --out "$R/sweeps" > /dev/null 2> "$tmp/err" ||
    fail "models.py: $(tail -n 1 "$tmp/err")"
python3 -m inimeasure.water_model "$R/thesis" --model all --out "$R/sweeps" > /dev/null 2> "$tmp/err" ||
    fail "water_model.py: $(tail -n 1 "$tmp/err")"
cd "$ROOT"
same sweeps sweeps.txt fits.csv points.csv models.txt models.csv water-model.txt water-model.csv \
    $(cd "$R/sweeps" && ls data/*.dat)

# ---- bench series ----
k=0
for s in "$R"/bench-targets-s*-* "$R"/bench-targets-w64-*; do
    [ -d "$s" ] || continue
    n=${s##*/} k=$((k + 1))
    mkdir -p "$tmp/bt/$n" && cp "$s"/* "$tmp/bt/$n/"
    tools/bench/targets.sh --tables "$tmp/bt/$n" 2> "$tmp/err" || fail "targets.sh --tables $n: $(tail -n 1 "$tmp/err")"
    cmp -s "$s.txt" "$tmp/bt/$n.txt" && cmp -s "$s.csv" "$tmp/bt/$n.csv" ||
        fail "$n.txt or .csv is not what targets.sh --tables makes of $n/"
done
[ $k = 17 ] || fail "$k bench-targets series made by today's targets.sh, expected 17"
echo "ok:   $k bench-targets series: .txt and .csv made again, identical"
for s in "$R"/breakdown-s8-*/; do
    n=$(basename "$s")
    mkdir -p "$tmp/bd/$n" && cp "$s/reports.jsonl" "$tmp/bd/$n/"
    tools/thesis/breakdown.sh --tables "$tmp/bd/$n" || fail "breakdown.sh --tables $n"
    cmp -s "$R/$n.txt" "$tmp/bd/$n.txt" || fail "$n.txt is not what breakdown.sh --tables makes of $n/"
done
for n in segments-bench segments-bench-w256 segments-bench-issue32; do
    mkdir -p "$tmp/sc/$n-runs" && cp "$R/$n-runs/reports.jsonl" "$tmp/sc/$n-runs/"
    tools/bench/segment_compare.sh --tables "$tmp/sc/$n" || fail "segment_compare.sh --tables $n"
    cmp -s "$R/$n.txt" "$tmp/sc/$n.txt" || fail "$n.txt is not what segment_compare.sh --tables makes of $n-runs/"
done
echo "ok:   breakdown-s8-*, segments-bench*: tables made again, identical"
for n in logp-knobs logp-knobs-sleep logp-overlap; do
    [ -d "$R/$n" ] || continue
    mkdir -p "$tmp/$R/$n" && cp "$R/$n"/{runs.tsv,reports.jsonl*,meta.txt} "$tmp/$R/$n/"
    tools/bench/logp.sh tables "$tmp/$R/$n" > /dev/null 2> "$tmp/err" || fail "logp.sh tables $n: $(tail -n 1 "$tmp/err")"
    case $n in
    logp-knobs*) same "$n" $(cd "$R/$n" && ls knobs.txt knobs.csv signature.dat 2> /dev/null) ;;
    *) same "$n" overlap.txt overlap.csv overlap-sweep.dat ;;
    esac
done
# ---- EM3D (docs/em3d.md): its tables and predictions from its data ----
for n in em3d-uniform-beta1 em3d-uniform-beta1-replay em3d-uniform-beta1-sqrt; do
    [ -d "$R/$n" ] || continue
    mkdir -p "$tmp/$R/$n" && cp "$R/$n"/{runs.tsv,reports.jsonl.xz,meta.txt} "$tmp/$R/$n/"
    python3 -m inimeasure.em3d_tables "$tmp/$R/$n" 2> "$tmp/err" || fail "em3d_tables.py $n: $(tail -n 1 "$tmp/err")"
    python3 -m inimeasure.em3d_predict "$tmp/$R/$n" > /dev/null 2> "$tmp/err" ||
        fail "em3d_predict.py $n: $(tail -n 1 "$tmp/err")"
    same "$n" $(cd "$R/$n" && ls em3d-*.txt em3d-*.csv 2> /dev/null)
done
# the local graph's sqrt test: compare.tsv from runs.tsv and the model
n=em3d-local-sqrt
if [ -d "$R/$n" ]; then
    python3 -m inimeasure.em3d_local compare "$R/$n/runs.tsv" "$R/$n/model.tsv" > "$tmp/$n-compare.tsv" 2> "$tmp/err" ||
        fail "em3d_local compare $n: $(tail -n 1 "$tmp/err")"
    cmp -s "$R/$n/compare.tsv" "$tmp/$n-compare.tsv" || fail "$n/compare.tsv is not what em3d_local compare makes"
    echo "ok:   $n: compare.tsv made again, identical"
fi
for n in water-profile water-profile-settings; do
    mkdir -p "$tmp/$R/$n" && cp "$R/$n"/{meta.txt,profiles.jsonl} "$tmp/$R/$n/"
    python3 -m inimeasure.profile_table "$tmp/$R/$n" > /dev/null 2> "$tmp/err" || fail "profile_table.py $n: $(tail -n 1 "$tmp/err")"
    same "$n" water-profile.txt water-profile.csv
done

# ---- the layout: no empty files, no per-run files ----
empty=$(git ls-files "$R" | while read -r f; do [ -s "$f" ] || echo "$f"; done)
[ -z "$empty" ] || fail "empty files in $R: $(echo $empty)"
loose=$(git ls-files "$R" | grep -E '/raw/|\.(time|load|cpu|us|meta|trace\.err)$|/run-[0-9]+\.json$' | head -n 3)
[ -z "$loose" ] || fail "per-run files of the older layout: $(echo $loose)"
echo "ok:   $R: $(git ls-files "$R" | wc -l) files, none empty, no per-run files"

# ---- every results path the docs name exists ----
python3 - docs/*.md README.md tests/fuzz/RUNS.md "$R/README.md" > "$tmp/refs" 2>&1 <<'EOF' && refs=ok || refs=bad
import fnmatch, glob, os, re, subprocess, sys
# A reference: "docs/results/PATH" anywhere, "results/PATH" in a file of
# docs/, and in backquotes a path whose first part is one of the results'
# (bench-..., thesis-..., sweeps/...), relative to docs/results.  It
# resolves to what exists there, to an output prefix (PATH.txt ...), or,
# for a run kept as an archive, to NAME.tar.xz and the files in it.
R = "docs/results"
names = r"(?:bench|thesis|breakdown|segments-bench|loss-vs-size|fig6-3|trace-cost|policy-compare|knob-sweep|structure-compare|sweeps)"
members = {}
def archive(name):
    if name not in members:
        p = os.path.join(R, name + ".tar.xz")
        members[name] = subprocess.run(["tar", "tJf", p], capture_output=True, text=True).stdout.split() \
            if os.path.exists(p) else None
    return members[name]
def expand(p):
    m = re.search(r"\{([^{}]*)\}", p)
    if not m:
        return [p]
    return [q for alt in m.group(1).split(",") for q in expand(p[:m.start()] + alt + p[m.end():])]
# Results a plan schedules (docs/results/PLAN-*.md, deleted when they land)
# may be named before they exist.
planned = {m.group(1).rstrip("/") for p in glob.glob(os.path.join(R, "PLAN-*.md"))
           for m in re.finditer(r"docs/results/([\w./-]*[\w/])", open(p).read())}
def exists(p):
    p = p.rstrip("/")
    if glob.glob(os.path.join(R, p)) or glob.glob(os.path.join(R, p + ".*")):
        return True
    if any(p == q or p.startswith(q + "/") for q in planned):
        return True
    top, _, rest = p.partition("/")
    m = archive(top)
    return m is not None and (not rest or any(fnmatch.fnmatch(x, top + "/" + rest) or x.startswith(top + "/" + rest + "/")
                                              for x in m))
bad, n = [], 0
for doc in sys.argv[1:]:
    text = open(doc).read()
    refs = set()
    for m in re.finditer(r"(?<![\w/.-])(?:docs/)?results/([\w./*{},+-]*[\w/*}])", text):
        if m.group(0).startswith("docs/") or doc.startswith("docs/"):
            refs.add(m.group(1))
    for m in re.finditer(r"`(%s[-/*][\w./*{},+-]*)`" % names, text):
        refs.add(m.group(1))
    for ref in sorted(refs):
        n += 1
        if not all(exists(p) for p in expand(ref)):
            bad.append("%s: %s" % (doc, ref))
print("\n".join(bad) or "%d references, all present" % n)
sys.exit(1 if bad else 0)
EOF
if [ $refs = ok ]; then echo "ok:   $(tail -n 1 "$tmp/refs")"; else fail "docs name results that do not exist:"; cat "$tmp/refs"; fi
[ "$failures" = 0 ] && echo "results_tables: PASS" || echo "results_tables: $failures failed"
[ "$failures" = 0 ]
