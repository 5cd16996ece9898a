"""em3d_tables.py - the tables of an EM3D experiment (tools/thesis/em3d.sh,
docs/em3d.md) from its directory (runs.sh's layout: runs.tsv,
reports.jsonl or reports.jsonl.xz; docs/results/README.md).

    em3d_tables.py OUT

writes OUT/em3d-curve.txt and .csv (time per edge against the share of
inter-cluster edges: per version, INIs per cluster and policy, the median
of the runs and their range) and OUT/em3d-sqrt.txt and .csv (per cluster
size c, INIs per cluster, policy and version: time per edge, the INIs'
mean utilization and queue length, the busiest INI's utilization, the
mean message time in the INIs, beside the thesis's tables 5.8 and 5.9)
and OUT/em3d-effects.txt and .csv (the ratios docs/em3d.md quotes, with
their bootstrap intervals).
Every run counts; failed runs are counted apart.  Exit status 0, 1 when
OUT has no runs table, 2 on bad arguments.
"""
import csv
import os
import statistics
import sys

if not __package__:
    sys.exit("em3d_tables.py: run it as `PYTHONPATH=tools python3 -m inimeasure.em3d_tables` from the repository's root")
from inimeasure import stats  # noqa: E402
from inimeasure.runs import read_reports  # noqa: E402

# Tables 5.8 (static) and 5.9 (round-robin) of the thesis: cluster size ->
# (INIs, message time in cycles, queue length, INI utilization).
THESIS = {
    "static": {1: (1, 8997, 0.537, 0.351), 2: (1.41, 9496, 0.648, 0.385), 4: (2, 8703, 0.523, 0.348),
               8: (2.83, 9134, 0.591, 0.366)},
    "round-robin": {1: (1, 8775, 0.529, 0.355), 2: (1.41, 9174, 0.636, 0.390), 4: (2, 8252, 0.504, 0.354),
                    8: (2.83, 8816, 0.581, 0.372)},
}


def load(out):
    path = os.path.join(out, "runs.tsv")
    if not os.path.exists(path):
        sys.stderr.write("em3d_tables.py: %s: no runs table\n" % path)
        sys.exit(1)
    with open(path) as f:
        runs = list(csv.DictReader(f, delimiter="\t"))
    reports = {}
    for r in read_reports(out):     # reports.jsonl, or its .xz
        reports[key(r) + (str(r.get("rep")),)] = r
    return runs, reports


def key(r):
    return tuple(str(r[c]) for c in ("exp", "variant", "clusters", "pes", "inis", "policy", "inter", "intra"))


def us_per_edge(run, rep):
    prog = ((rep or {}).get("programs") or {}).get("em3d.json") or {}
    return float(prog["us_per_edge"]) if "us_per_edge" in prog else None


def stat(values):
    v = [x for x in values if x is not None]
    if not v:
        return "-", ""
    return "%.3f" % statistics.median(v), "%.3f-%.3f" % (min(v), max(v))


def inis_of(report):
    return [i for c in (report or {}).get("clusters", []) for i in c.get("inis", [])]


def groups(runs, reports, exp):
    g = {}
    for run in runs:
        if run["exp"] != exp:
            continue
        rep = reports.get(key(run) + (run["rep"],))
        e = g.setdefault(key(run), {"n": 0, "failed": 0, "upe": [], "util": [], "q": [], "busiest": [], "msg": []})
        if run["status"] != "ok":
            e["failed"] += 1
            continue
        e["n"] += 1
        e["upe"].append(us_per_edge(run, rep))
        m = ((rep or {}).get("report") or {}).get("machine") or {}
        e["util"].append(m.get("utilization"))
        e["q"].append(m.get("queue_len"))
        e["msg"].append(m.get("msg_ns") / 1000 if m.get("msg_ns") is not None else None)
        u = [i.get("utilization") for i in inis_of((rep or {}).get("report")) if i.get("utilization") is not None]
        e["busiest"].append(max(u) if u else None)
    return g


def write(out, name, header, rows, note):
    with open(os.path.join(out, name + ".csv"), "w") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)] if rows else [len(h) for h in header]
    with open(os.path.join(out, name + ".txt"), "w") as f:
        f.write(note + "\n\n")
        for row in [header] + rows:
            f.write("  ".join(str(x).rjust(w) for x, w in zip(row, widths)) + "\n")


def curve(out, runs, reports):
    g = groups(runs, reports, "curve")
    rows = []
    for k in sorted(g, key=lambda k: (k[1], int(k[4]), k[5], float(k[6]))):
        e = g[k]
        rows.append([k[1], "%sx%s" % (k[2], k[3]), k[4], k[5], k[6], e["n"], e["failed"], *stat(e["upe"]),
                     stat(e["util"])[0], stat(e["q"])[0]])
    write(out, "em3d-curve", ["version", "layout", "inis", "policy", "inter", "runs", "failed", "us/edge",
                              "range", "INI util", "queue"], rows,
          "EM3D: time per edge (us, median of the runs and their range) against the share of inter-cluster "
          "edges; INI util and queue: medians of the runs' machine-wide figures (ini-trace report).  With one "
          "INI per cluster a policy has nothing to choose: those points ran under one policy only.")


def sqrt_table(out, runs, reports):
    g = groups(runs, reports, "sqrt")
    rows = []
    for k in sorted(g, key=lambda k: (k[1], k[5], int(k[3]), int(k[4]))):
        e, c = g[k], int(k[3])
        th = THESIS.get(k[5], {}).get(c)
        rows.append([k[1], k[5], c, k[4], k[6], k[7], e["n"], e["failed"], *stat(e["upe"]), stat(e["util"])[0],
                     stat(e["busiest"])[0], stat(e["q"])[0], stat(e["msg"])[0],
                     "%s / %.3f / %.3f" % (th[0], th[3], th[2]) if th else "-"])
    write(out, "em3d-sqrt", ["version", "policy", "clu size", "inis", "inter", "intra", "runs", "failed", "us/edge",
                             "range", "INI util", "busiest", "queue", "msg (us)", "thesis inis / util / queue"], rows,
          "EM3D's sqrt test: 2 clusters of c compute nodes, inter = S/sqrt(c), intra = S - inter; medians of the "
          "runs.  The thesis's tables 5.8 (static) and 5.9 (round-robin): Water, 16 nodes, sqrt(c) INIs "
          "(interpolated where not whole).  One INI per cluster: run under one policy only (nothing to choose).")


def effects(out, runs, reports):
    """What docs/em3d.md quotes, from the curve's runs, each with its 95%
    bootstrap interval (stats.py, seeded): per version, the time per edge
    at share 0 and 0.8 with one INI and their ratio; then, at share 0.8,
    2 and 4 INIs over 1 per policy, and round-robin and load-aware over
    static at the same INIs."""
    g = groups(runs, reports, "curve")

    def upe(version, inis, policy, inter):
        for k, e in g.items():
            if k[1] == version and k[4] == str(inis) and float(k[6]) == inter and (inis == 1 or k[5] == policy):
                return [x for x in e["upe"] if x is not None]
        return []

    def ratio(a, b):
        if len(a) < 2 or len(b) < 2:
            return ["-", "-"]
        r, lo, hi = stats.ratio_ci(a, b)
        return ["%.3f" % r, "%.3f-%.3f" % (lo, hi)]

    rows = []
    versions = sorted({k[1] for k in g})
    for v in versions:
        base0, base8 = upe(v, 1, None, 0.0), upe(v, 1, None, 0.8)
        rows.append([v, "1 INI", "share 0.8 over 0", *ratio(base0, base8),
                     "%.3f / %.3f" % (statistics.median(base0), statistics.median(base8)) if base0 and base8 else "-"])
        for pol in ("static", "round-robin", "load-aware"):
            for n in (2, 4):
                x = upe(v, n, pol, 0.8)
                rows.append([v, "%s, share 0.8" % pol, "%d INIs over 1" % n, *ratio(base8, x),
                             "%.3f" % statistics.median(x) if x else "-"])
        for n in (2, 4):
            st = upe(v, n, "static", 0.8)
            for pol in ("round-robin", "load-aware"):
                x = upe(v, n, pol, 0.8)
                rows.append([v, "%d INIs, share 0.8" % n, "%s over static" % pol, *ratio(st, x),
                             "%.3f" % statistics.median(x) if x else "-"])
    write(out, "em3d-effects", ["version", "where", "ratio of", "median ratio", "95% interval", "us/edge"], rows,
          "EM3D's effects, from the curve's runs: ratios of median time per edge with their 95% bootstrap "
          "intervals (each group resampled on its own; tools/thesis/stats.py, seeded).  An interval that "
          "excludes 1 is a difference these runs show; one that holds 1 is not.")


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: em3d_tables.py OUT\n")
        sys.exit(2)
    runs, reports = load(sys.argv[1])
    curve(sys.argv[1], runs, reports)
    sqrt_table(sys.argv[1], runs, reports)
    effects(sys.argv[1], runs, reports)


if __name__ == "__main__":
    main()
