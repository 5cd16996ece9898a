"""stats.py - statistics that can decide, for the experiments' tables
(tools/inimeasure/tables.py; docs/experiments.md, "Statistics").

Every cell of an experiment is a handful of repetitions (5, or 10 where
the thesis's differences are small), on a machine whose run-to-run spread
is 10-15%.  A min-max overlap cannot see a 3% difference; these can say
how sure a figure is and whether two cells are alike within a margin.

  median_ci(xs, seed)            the median and its 95% bootstrap interval
                                 (percentile method, B resamples, seeded:
                                 the same data and seed give the same
                                 interval on every machine)
  ratio_ci(a, b, level, seed)    median(b) / median(a) and its bootstrap
                                 interval at `level` (each group resampled
                                 on its own)
  equivalence(a, b, margin, seed)
                                 the two one-sided tests (TOST) on that
                                 ratio at 5% each: "equivalent" when its
                                 90% interval lies inside [1 - margin,
                                 1 + margin]; else "different" when its
                                 95% interval excludes 1; else
                                 "undecided at this power"
                                 otherwise (the data cannot tell a
                                 difference of `margin` from none).
                                 Returns (verdict, ratio, lo90, hi90,
                                 lo95, hi95).

The resampling uses Python's random.Random(seed) and nothing else, so the
intervals are reproducible.  `python3 stats.py --self-test` checks the
functions on data with known answers (tests/integration/thesis_stats.sh).
"""
import math
import random
import statistics
import sys

B = 10000          # bootstrap resamples
SEED = 20261126    # the default seed of the tables


def _boot_medians(xs, rng, n):
    k = len(xs)
    return [statistics.median(rng.choices(xs, k=k)) for _ in range(n)]


def _percentiles(v, level):
    v = sorted(v)
    a = (1 - level) / 2
    lo = v[max(0, int(math.floor(a * len(v))))]
    hi = v[min(len(v) - 1, int(math.ceil((1 - a) * len(v))) - 1)]
    return lo, hi


def median_ci(xs, seed=SEED, level=0.95, b=B):
    """(median, lo, hi); lo = hi = the value for one repetition."""
    xs = [float(x) for x in xs]
    if not xs:
        return None
    m = statistics.median(xs)
    if len(xs) == 1:
        return m, m, m
    lo, hi = _percentiles(_boot_medians(xs, random.Random(seed), b), level)
    return m, lo, hi


def ratio_ci(a, b_, level=0.95, seed=SEED, b=B):
    """(median(b_)/median(a), lo, hi) at `level`."""
    a = [float(x) for x in a]
    b_ = [float(x) for x in b_]
    rng = random.Random(seed)
    ma, mb = _boot_medians(a, rng, b), _boot_medians(b_, rng, b)
    r = [y / x for x, y in zip(ma, mb) if x]
    lo, hi = _percentiles(r, level)
    return statistics.median(b_) / statistics.median(a), lo, hi


def equivalence(a, b_, margin=0.03, seed=SEED, b=B):
    """TOST on median(b_)/median(a) (above): the verdict and the intervals."""
    if len(a) < 2 or len(b_) < 2:
        return ("undecided at this power", float("nan")) + (float("nan"),) * 4
    rng = random.Random(seed)
    ma, mb = _boot_medians([float(x) for x in a], rng, b), _boot_medians([float(x) for x in b_], rng, b)
    r = [y / x for x, y in zip(ma, mb) if x]
    lo90, hi90 = _percentiles(r, 0.90)
    lo95, hi95 = _percentiles(r, 0.95)
    ratio = statistics.median(b_) / statistics.median(a)
    if lo90 >= 1 - margin and hi90 <= 1 + margin:
        verdict = "equivalent"
    elif lo95 > 1 or hi95 < 1:
        verdict = "different"
    else:
        verdict = "undecided at this power"
    return verdict, ratio, lo90, hi90, lo95, hi95


# ---- known answers ----

def _self_test():
    fails = []

    def check(what, ok):
        print("%s: %s" % ("ok  " if ok else "FAIL", what))
        if not ok:
            fails.append(what)

    # a constant sample: its median, exactly, every way
    check("constant sample: interval [c, c]", median_ci([7.0] * 6) == (7.0, 7.0, 7.0))
    check("one repetition: its value", median_ci([3.0]) == (3.0, 3.0, 3.0))
    # the interval of a sample lies within its range and holds the median
    m, lo, hi = median_ci([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    check("1..10: median 5.5 in [%g, %g] within [1, 10]" % (lo, hi), m == 5.5 and 1 <= lo <= 5.5 <= hi <= 10)
    # reproducible: the same seed gives the same interval, another seed
    # one that may differ
    check("same seed, same interval", median_ci([3, 1, 4, 1, 5, 9, 2, 6], seed=5) == median_ci([3, 1, 4, 1, 5, 9, 2, 6], seed=5))
    # coverage: for samples of 40 from N(10, 1) the 95% interval holds the
    # true median 10 in 90-99% of 300 trials (the percentile bootstrap of
    # a median is a little conservative or liberal, never far off)
    rng = random.Random(1)
    hits = 0
    for t in range(300):
        xs = [rng.gauss(10, 1) for _ in range(40)]
        _, lo, hi = median_ci(xs, seed=t, b=1000)
        hits += lo <= 10 <= hi
    check("coverage of the 95%% interval: %d of 300 trials hold the true median" % hits, 270 <= hits <= 297)
    # ratio: b = 1.1 a exactly
    r, lo, hi = ratio_ci([10, 11, 12, 13, 14], [11, 12.1, 13.2, 14.3, 15.4])
    check("ratio of b = 1.1 a: %.4f [%.4f, %.4f]" % (r, lo, hi), abs(r - 1.1) < 1e-9 and lo <= 1.1 <= hi)
    # TOST: alike within 0.5% noise, 10 each: equivalent at 3%
    rng = random.Random(2)
    a = [100 * (1 + rng.gauss(0, 0.005)) for _ in range(10)]
    b_ = [100 * (1 + rng.gauss(0, 0.005)) for _ in range(10)]
    v = equivalence(a, b_)
    check("0.5%% noise, no difference, 10 runs each: %s (90%% [%.3f, %.3f])" % (v[0], v[2], v[3]), v[0] == "equivalent")
    # 10% apart with 1% noise: different
    b_ = [110 * (1 + rng.gauss(0, 0.01)) for _ in range(10)]
    v = equivalence(a, b_)
    check("10%% apart, 1%% noise: %s (95%% [%.3f, %.3f])" % (v[0], v[4], v[5]), v[0] == "different")
    # 15% noise, 5 runs each, no difference: the data cannot tell 3%
    a = [100 * (1 + rng.gauss(0, 0.15)) for _ in range(5)]
    b_ = [100 * (1 + rng.gauss(0, 0.15)) for _ in range(5)]
    v = equivalence(a, b_)
    check("15%% noise, 5 runs each: %s (90%% [%.3f, %.3f])" % (v[0], v[2], v[3]), v[0] == "undecided at this power")
    # one repetition: nothing can be decided
    check("one repetition: undecided", equivalence([1.0], [1.0])[0] == "undecided at this power")
    print("stats self-test: %s" % ("PASS" if not fails else "%d failure(s)" % len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(_self_test())
    sys.stderr.write("stats.py: usage: stats.py --self-test (a module for tables.py)\n")
    sys.exit(2)
