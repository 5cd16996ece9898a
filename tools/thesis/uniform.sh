#!/usr/bin/env bash
# uniform.sh - the chapter 5 grid in uniform mode (docs/experiments.md,
# "Uniform dilation"): every processor of the emulated machine K times
# slower from its own CPU time, the INIs K*beta times, nothing fitted.
# A recipe over tools/thesis/experiments.sh --uniform:
#
#   tools/thesis/uniform.sh --beta 1|thesis|B [--dilate K] [--seed N] [--out DIR] [--plan] [--quick]
#
#   --beta 1       this stack on uniformly slowed processors (the modern answer)
#   --beta thesis  BETA_THESIS below: the INI's cost per message relative to
#                  a compute node's cost for the same Water work as on the
#                  thesis's machine (derived once: docs/experiments.md, "Beta")
#   --dilate K     default 50 (docs/experiments.md, "Choosing K": the grid in
#                  about an hour, the machine's fixed costs per event a few
#                  percent of the dilated work)
# Every layout (16x1, 8x2, 4x4, 2x8), every INI count and policy, the no-INI
# and INI-delay baselines, 5 repetitions, 10 at clusters of 4 and 8, all in
# one seeded random order: docs/results/thesis-uniform-betaB.  --plan prints
# the plan and writes nothing.  --quick: 4x4 with 1 and 2 INIs, static and
# round-robin, one repetition, K = 5, 64 molecules (a minute), into
# runs/experiments-quick-DATE unless --out (tests/integration/thesis_uniform.sh).
PROG=uniform; . "$(dirname "$0")/../lib/options.sh"
BETA_THESIS=0.031
K=50 BETA= SEED= OUT= EXTRA=() QUICK=0
option_other() { [ "$1" = --plan ] && EXTRA+=(--plan) OPT_SHIFT=1; }
show_help() { help_usage; }
parse_options "--beta=BETA --dilate=K --seed=SEED --out=OUT --quick:QUICK=1" "$@"
case $BETA in
thesis) BETA=$BETA_THESIS ;;
"") die "--beta: give 1, thesis or a factor" ;;
esac
[ -n "$SEED" ] && EXTRA+=(--seed "$SEED")
[ -n "$OUT" ] && EXTRA+=(--out "$OUT")
if [ $QUICK = 1 ]; then
    exec tools/thesis/experiments.sh --quick --uniform 5 --beta "$BETA" --nmol 64 --steps 2 "${EXTRA[@]}"
fi
exec tools/thesis/experiments.sh --uniform "$K" --beta "$BETA" --reps 5 --reps-at 4,8:10 "${EXTRA[@]}"
