"""compare.py - two experiments of the chapter 5 grid side by side, cell by
cell (tools/thesis/falsify.sh: the stack against a forwarder, K = 600
against K = 300, fixed against exponential O).

    compare.py A_DIR B_DIR --names A,B [--margin 0.05] [--out FILE]

A_DIR and B_DIR are what tools/thesis/experiments.sh wrote (runs.tsv,
reports.jsonl; tools/inimeasure/runs.py).  For each cell both have (cP-iI-POLICY
and the baselines cP-noini, cP-delay), each figure's median and 95%
bootstrap interval in A and in B, the ratio B / A of the medians with its
95% interval, and the two one-sided tests at +-margin (tools/thesis/
stats.py): "equivalent" (B is A within the margin), "different", or
"undecided at this power".  Figures: run time; from the traces, INI
utilization, the queue (time average and at arrival), message time, the
misrouting count rate.  Text on stdout and in FILE, and FILE's .csv
beside it.  Exit 1 when the two have no cell in common.
"""
import argparse
import csv
import math
import os
import re
import sys

if not __package__:
    sys.exit("compare.py: run it as `PYTHONPATH=tools python3 -m inimeasure.compare` from the repository's root")
from inimeasure import runs, stats  # noqa: E402

FIGURES = [
    ("run time (ms)", "time", 1000, "%.0f"),
    ("INI utilization", "utilization", 1, "%.3f"),
    ("queue (time avg)", "queue_len", 1, "%.3f"),
    ("queue at arrival", "queue_at_arrival", 1, "%.3f"),
    ("msg time (us)", "msg_ns", 1e-3, "%.0f"),
    ("mis count rate", "mis_sched_count_rate", 100, "%.1f%%"),
]


def cells_of(out):
    """cell -> figure -> values over the repetitions that ran."""
    cells, rep_ok = {}, {}
    for r in runs.read_runs(out):
        if r["status"] == "ok":
            cells.setdefault(r["cell"], {}).setdefault("time", []).append(float(r["runtime_s"]))
            rep_ok.setdefault(r["cell"], set()).add(int(r["rep"]))
    for j in runs.read_reports(out):
        if "rep" not in j or j.get("report") is None or j["rep"] not in rep_ok.get(j["cell"], ()):
            continue
        m, mis = j["report"]["machine"], j["report"].get("misrouting_all") or {}
        c = cells[j["cell"]]
        for _, key, _, _ in FIGURES[1:]:
            v = mis.get(key) if key.startswith("mis_") and mis.get("applicable") else m.get(key)
            if v is not None:
                c.setdefault(key, []).append(float(v))
    return cells


def order(name):
    m = re.match(r"c(\d+)-(?:i(\d+)-)?(.*)$", name)
    return (int(m[1]), int(m[2] or 0), m[3]) if m else (99, 0, name)


def fmt_ci(v, scale, f):
    if not v:
        return "-"
    m, lo, hi = stats.median_ci(v)
    return (f + " [" + f + "-" + f + "]") % (m * scale, lo * scale, hi * scale) if len(v) > 1 else f % (m * scale)


def main():
    ap = argparse.ArgumentParser(description="two chapter 5 experiments side by side")
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--names", default="A,B")
    ap.add_argument("--margin", type=float, default=0.05)
    ap.add_argument("--out")
    o = ap.parse_args()
    na, nb = (o.names.split(",") + ["B"])[:2]
    for d in (o.a, o.b):
        if not os.path.exists(os.path.join(d, "runs.tsv")):
            ap.error("%s: no runs.tsv" % d)
    A, B = cells_of(o.a), cells_of(o.b)
    common = sorted(set(A) & set(B), key=order)
    if not common:
        sys.stderr.write("compare.py: %s and %s have no cell in common\n" % (o.a, o.b))
        sys.exit(1)
    rows, tally = [], {}
    for cell in common:
        for label, key, scale, f in FIGURES:
            va, vb = A[cell].get(key, []), B[cell].get(key, [])
            if not va or not vb:
                continue
            if min(va) == 0 and max(va) == 0:
                verdict, r, lo, hi = "-", float("nan"), float("nan"), float("nan")
            else:
                v = stats.equivalence(va, vb, o.margin)
                verdict, r, lo, hi = v[0], v[1], v[4], v[5]
            tally.setdefault(label, []).append(verdict)
            rows.append((cell, label, "%d, %d" % (len(va), len(vb)), fmt_ci(va, scale, f), fmt_ci(vb, scale, f),
                         "-" if math.isnan(r) else "%.3f [%.3f-%.3f]" % (r, lo, hi), verdict))
    cols = ["cell", "figure", "runs", "%s: median [95%%]" % na, "%s: median [95%%]" % nb, "%s / %s [95%%]" % (nb, na),
            "verdict at %g%%" % (100 * o.margin)]
    w = [max(len(str(c)), *(len(str(r[i])) for r in rows)) for i, c in enumerate(cols)]
    text = "# compare.py %s %s --names %s,%s --margin %g\n" % (o.a, o.b, na, nb, o.margin)
    text += ("%s against %s, cell by cell: medians with 95%% bootstrap intervals; the ratio of the medians; "
             "equivalent when its 90%% interval lies within +-%g%% (two one-sided tests), different when its 95%% "
             "interval excludes 1, else undecided at this power (tools/thesis/stats.py)\n\n" % (nb, na, 100 * o.margin))
    text += "  ".join(c.rjust(w[i]) for i, c in enumerate(cols)) + "\n"
    text += "".join("  ".join(str(v).rjust(w[i]) for i, v in enumerate(r)) + "\n" for r in rows)
    text += "\n" + "; ".join("%s: %s" % (label, ", ".join("%d %s" % (vs.count(x), x) for x in
                                         ("equivalent", "different", "undecided at this power") if vs.count(x)))
                             for label, vs in tally.items()) + ".\n"
    sys.stdout.write(text)
    if o.out:
        open(o.out, "w").write(text)
        with open(os.path.splitext(o.out)[0] + ".csv", "w", newline="") as fh:
            wr = csv.writer(fh)
            wr.writerow(cols)
            wr.writerows(rows)


if __name__ == "__main__":
    main()
