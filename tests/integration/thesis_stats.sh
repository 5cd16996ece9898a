#!/usr/bin/env bash
# thesis_stats: the statistics of the tables (tools/inimeasure/stats.py) on
# data with known answers: the bootstrap interval of a median (a constant
# sample, one repetition, a range that holds the median, the same interval
# for the same seed, 95% coverage of the true median within 90-99% of 300
# trials), the ratio of two medians, and the equivalence test at 3%
# (alike within 0.5% noise: equivalent; 10% apart: different; 15% noise and
# 5 runs: undecided at this power).  No run is made; a few seconds.
set -u
cd "$(dirname "$0")/../.."
PROG=thesis_stats; . tools/lib/options.sh   # PYTHONPATH for python3 -m inimeasure.*
. tests/integration/lib/common.sh
test_start thesis_stats
if python3 -m inimeasure.stats --self-test > "$TMP/out" 2>&1; then
    ok "$(grep -c '^ok' "$TMP/out") known answers: $(tail -n 1 "$TMP/out")"
else
    fail "stats.py --self-test:"; cat "$TMP/out"
fi
test_end
