#!/usr/bin/env bash
# beta_inputs.sh - this system's side of beta (docs/experiments.md, "Beta"):
# Water (343 molecules, 2 steps) on 16 compute nodes in clusters of 1, 2,
# 4, 8 with one INI per cluster, static, under uniform dilation, and from
# each run's counters (tools/inimeasure/cpu_profile.py) the INIs' CPU time per
# message pass and the compute and protocol threads' CPU time per compute
# node.  CPU time, not wall time: a loaded machine measures it right (the
# threads' own CPU clocks), so this may run beside other work; the wall
# times it prints are not results.
#
#   tools/thesis/beta_inputs.sh [--dilate K] [--reps N] [--sizes 1,2,4,8] [--nmol N] [--steps N]
#                               [--out FILE] [--quick]
#
# K (default 100) changes how many messages an INI takes per turn (more
# arrive while it waits), hence the CPU per pass a little: give the K of
# the runs beta is for.  --quick: clusters of 8, one run, 27 molecules,
# 1 step.  Output: one line per run (size, rep, the profile's fields) and
# the medians per size, on stdout and in FILE (default
# runs/beta-inputs-DATE.txt).
PROG=beta_inputs; . "$(dirname "$0")/../lib/options.sh"
K=100 REPS=2 SIZES=1,2,4,8 NMOL=343 NSTEP=2 OUT=
show_help() { help_usage; }
parse_options "--dilate=K --reps=REPS --sizes=SIZES --nmol=NMOL --steps=NSTEP --out=OUT --quick:SIZES=8 --quick:REPS=1 --quick:NMOL=27
    --quick:NSTEP=1" "$@"
factor --dilate "$K"
posint --reps "$REPS"
for c in ${SIZES//,/ }; do case $c in 1|2|4|8) ;; *) die "--sizes: $c is not 1, 2, 4 or 8" ;; esac; done
[ -n "$OUT" ] || { mkdir -p runs; OUT=runs/beta-inputs-$(date +%Y%m%d-%H%M%S).txt; }
CLUSTER=$ROOT/build/bin/ini-cluster WATER=$ROOT/build/bin/water
RANDOM_IN=${WATER_RANDOM:-$ROOT/tools/apps/water/data/random.in}
[ -x "$CLUSTER" ] && [ -x "$WATER" ] || die "build first (make)"
[ -r "$RANDOM_IN" ] || die "data file $RANDOM_IN missing"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$ROOT/tools/thesis/runs.sh"      # water_input
water_input "$NMOL" "$NSTEP" "$tmp/water.in"

{
    echo "# tools/thesis/beta_inputs.sh --dilate $K --reps $REPS --sizes $SIZES --nmol $NMOL --steps $NSTEP"
    echo "# $(date -Iseconds) commit $(git rev-parse --short HEAD 2>/dev/null || echo -) cpu \"$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)\""
    echo "# size rep ini_cpu_per_pass_ns ini_passes ini_turns compute_cpu_us protocol_cpu_us nodes mgs_sent"
} > "$OUT"
for c in ${SIZES//,/ }; do
    "$CLUSTER" gen $((16 / c)) "$c" 1 -o "$tmp/c.cfg" > /dev/null || exit 1
    for ((r = 1; r <= REPS; r++)); do
        rm -rf "$tmp/run"
        timeout 900 "$CLUSTER" run "$tmp/c.cfg" --policy static --ini-policy static --knob "dilate=$K" \
            --run-dir "$tmp/run" --timeout 800 -- "$WATER" --mgs --random "$RANDOM_IN" < "$tmp/water.in" \
            > "$tmp/log" 2>&1 && grep -q '^Exited Happily' "$tmp/run/cluster0.out" ||
            { tail -5 "$tmp/log" >&2; die "Water run (clusters of $c, rep $r) failed"; }
        python3 -m inimeasure.cpu_profile "$tmp/run" > "$tmp/p.json" || exit 1
        python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))
print(sys.argv[2], sys.argv[3], *(p[k] for k in ("ini_cpu_per_pass_ns","ini_passes","ini_turns","compute_cpu_us","protocol_cpu_us","nodes","mgs_sent")))' \
            "$tmp/p.json" "$c" "$r" | tee -a "$OUT"
    done
done
python3 - "$OUT" <<'EOF' | tee -a "$OUT"
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
print("# medians per size: cpu per INI pass (ns), compute CPU per node (ms), protocol CPU per node (ms), MGS messages sent")
for s in sorted({r[0] for r in rows}, key=int):
    rr = [r for r in rows if r[0] == s]
    m = lambda i: statistics.median(float(r[i]) for r in rr)
    print("# size %s: %.0f ns, %.2f ms, %.2f ms, %.0f" % (s, m(2), m(5) / m(7) / 1000, m(6) / m(7) / 1000, m(8)))
EOF
echo "beta_inputs: wrote $OUT"
