"""vtime_grid_tables - the tables of the virtual-time Water grid
(docs/results/vtime-grid/README.md) from DIR/runs.tsv, DIR/reports.jsonl
and the run directories (the queue at arrival, counted from the traces by
inimeasure.vtime_qarrival), with the registered findings of
DIR/predictions.txt judged.

    PYTHONPATH=tools python3 -m inimeasure.vtime_grid_tables DIR [SERIES]

Per cell, the first declared-work run of each cost set (every run is in
runs.tsv; a repeated cell is the determinism check, F0).  A DIR that keeps
several series in one table (a `series` column in runs.tsv, a "series"
field in reports.jsonl: docs/results/vtime-grid/local-order) gives the
tables of SERIES alone, default "grid"; a DIR without the column, all.
"""
import json
import math
import sys

from inimeasure import dier
from inimeasure import vtime_qarrival

die = dier("vtime_grid_tables")
CELLS = [(p, i) for p in (1, 2, 4, 8) for i in (1, 2, 4, 8) if i <= p]


def qarrivals(d):
    """{run: queue at arrival} of DIR/qarrival.tsv (vtime_qarrival's lines,
    kept because the traces are too large to commit), or {} without it."""
    try:
        lines = open(d + "/qarrival.tsv").read().splitlines()
    except OSError:
        return {}
    return {f[0].rsplit("/", 1)[-1]: float(f[1]) for f in (x.split("\t") for x in lines)}


def runs_rows(d, series):
    """DIR/runs.tsv's rows (lists of fields) of the series, or all of them
    when the table has no series column."""
    lines = open(d + "/runs.tsv").read().splitlines()
    head = lines[0].split("\t")
    col = head.index("series") if "series" in head else None
    rows = (row.split("\t") for row in lines[1:])
    return [f for f in rows if col is None or f[col] == series]


def reports(d, series):
    """DIR/reports.jsonl's reports of the series (a line without the field: any)."""
    return [j for j in map(json.loads, open(d + "/reports.jsonl")) if j.get("series", series) == series]


def load(d, series):
    """{(costs, P, I): figures} of the first declared run of each cell; the
    queue at arrival from qarrival.tsv, else counted from the traces."""
    out, kept = {}, qarrivals(d)
    for j in reports(d, series):
        key = (j["costs"], int(j["pes"]), int(j["inis"]))
        if j["compute"] != "declared" or key in out:
            continue
        m, mis = j["report"]["machine"], j["report"].get("misrouting_all") or {}
        out[key] = {"U": m["utilization"], "Q": m["queue_len"], "msg": m["msg_cycles"],
                    "count": mis.get("mis_sched_count_rate"), "time": mis.get("mis_sched_time_rate"),
                    "qarr": kept[j["run"]] if j["run"] in kept else
                    vtime_qarrival.run_queue("%s/runs/%s" % (d, j["run"]))[0], "run": j["run"]}
    for f in runs_rows(d, series):
        key = (f[0], int(f[6]), int(f[7]))
        if f[1] == "declared" and key in out and "T" not in out[key]:
            out[key].update(T=float(f[10]) / 1e6, msgs=int(f[15]))
    return out


def model(d):
    """{(P, I): (T, U, Q)} of the model (fit W) from predictions.txt."""
    out = {}
    for line in open(d + "/predictions.txt"):
        f = line.split("\t")
        if f[0] == "model":
            out[(int(f[1]), int(f[2]))] = (float(f[7]), float(f[8]), float(f[9]))
    return out


def pct(v):
    return "-" if v is None else "%.1f%%" % (100 * v)


def grid_table(g, mo):
    print("| P:I | thesis T (Mcycles) | model T | err | stack T (null) | U | U x I | model U | queue at arrival "
          "| stack queue at arrival (null) | excess | queue (time avg) | model Q | count rate | stack | time rate "
          "| stack | msg time (cycles) | messages |")
    print("|" + "---|" * 19)
    for p, i in CELLS:
        a, s, m = g.get(("thesis", p, i)), g.get(("stack", p, i)), mo[(p, i)]
        if not a or not s or "T" not in a or "T" not in s:
            print("| %d:%d | not run |" % (p, i))
            continue
        print("| %d:%d | %.3f | %.3f | %+.2f%% | %.3f | %.4f | %.4f | %.4f | %.3f | %.3f | %.3f | %.4f | %.4f "
              "| %s | %s | %s | %s | %.0f | %d |"
              % (p, i, a["T"], m[0], 100 * (m[0] - a["T"]) / a["T"], s["T"], a["U"], a["U"] * i, m[1], a["qarr"],
                 s["qarr"], a["qarr"] - s["qarr"], a["Q"], m[2], pct(a["count"]), pct(s["count"]), pct(a["time"]),
                 pct(s["time"]), a["msg"], a["msgs"]))


def doublings():
    return [(p, i) for p in (2, 4, 8) for i in (1, 2, 4) if 2 * i <= p]


def falls(g, f, costs="thesis"):
    """[(P, I, f at I, f at 2I, fell)] over the 6 doublings."""
    out = []
    for p, i in doublings():
        x, y = f(g, costs, p, i), f(g, costs, p, 2 * i)
        out.append((p, i, x, y, y < x))
    return out


def show(name, rows, fmt="%.4f"):
    held = sum(r[4] for r in rows)
    print("- %s: falls at %d of %d doublings: %s" % (name, held, len(rows), "; ".join(
        ("%d:%d->%d " + fmt + "->" + fmt) % (p, i, 2 * i, x, y) for p, i, x, y, _ in rows)))


def judge(g, mo):
    val = lambda k: (lambda g, c, p, i: g[(c, p, i)][k])
    excess = lambda k: (lambda g, c, p, i: g[("thesis", p, i)][k] - g[("stack", p, i)][k])
    show("F1 run time (Mcycles)", falls(g, val("T")), "%.3f")
    show("F1 null: excess T_thesis - T_stack", falls(g, excess("T")), "%.3f")
    show("F1 null: the stack set's T", falls(g, val("T"), "stack"), "%.3f")
    r = g[("thesis", 8, 8)]["T"] / g[("thesis", 8, 1)]["T"]
    print("- F1b T(8,8)/T(8,1) = %.4f (thesis 0.72; model %.4f)" % (r, mo[(8, 8)][0] / mo[(8, 1)][0]))
    for p, i in CELLS:
        if i > 1:
            t1, ti, m = g[("thesis", p, 1)]["T"], g[("thesis", p, i)]["T"], mo[(p, i)][0]
            gain, mgain = t1 - ti, mo[(p, 1)][0] - m
            print("- F1c %d:%d model err %+.2f%%; gain measured %.3f, model %.3f Mcycles (%s)"
                  % (p, i, 100 * (m - ti) / ti, gain, mgain,
                     "within 50%" if gain and abs(mgain - gain) <= 0.5 * abs(gain) else "not within 50%"))
    show("F2 utilization", falls(g, val("U")))
    print("- F2 null: U x I / U(P,1): " + ", ".join("%d:%d %.3f" % (p, i, g[("thesis", p, i)]["U"] * i /
                                                              g[("thesis", p, 1)]["U"]) for p, i in CELLS if i > 1))
    show("F3 queue at arrival", falls(g, val("qarr")), "%.3f")
    show("F3 null: the stack set's queue at arrival", falls(g, val("qarr"), "stack"), "%.3f")
    show("F3 null: excess over the stack set", falls(g, excess("qarr")), "%.3f")
    show("F8 msg time at clusters of 8 (cycles)", [x for x in falls(g, val("msg")) if x[0] == 8], "%.0f")
    sqrt_cells(g)


def geo(g, costs, p, k):
    """f at I = sqrt(P): the cell, or the geometric mean of the two around it."""
    if p in (1, 4):
        return g[(costs, p, int(math.sqrt(p)))][k]
    lo = 1 if p == 2 else 2
    return math.sqrt(g[(costs, p, lo)][k] * g[(costs, p, 2 * lo)][k])


def sqrt_cells(g):
    for k in ("U", "qarr"):
        v = [geo(g, "thesis", p, k) for p in (1, 2, 4, 8)]
        n = [geo(g, "stack", p, k) for p in (1, 2, 4, 8)]
        print("- F9 %s at I = sqrt(P): %s, max/min %.2f; stack null %s" % (
            k, ", ".join("%.4f" % x for x in v), max(v) / min(v), ", ".join("%.4f" % x for x in n)))
    sd = [geo(g, "thesis", p, "T") / geo(g, "stack", p, "T") for p in (1, 2, 4, 8)]
    print("- F9 slowdown over the stack null: " + ", ".join("%.3f" % x for x in sd))


def measured(d, series):
    """The measured-work runs: per cell the median, range and the median's
    ratio to P:1's, beside the declared grid's ratio (M1, M3); a run that
    did not end with the right answer is counted apart, not in the median."""
    cyc, dec, bad = {}, {}, []
    for f in runs_rows(d, series):
        if f[0] != "thesis" or f[3] != "-" or f[10] == "NA":
            continue
        key = (int(f[6]), int(f[7]))
        if f[19] != "1":
            bad.append("%d:%d rep %s (%s cycles)" % (key + (f[8], f[10])))
        elif f[1] == "measured":
            cyc.setdefault(key, []).append(float(f[10]) / 1e6)
        else:
            dec.setdefault(key, float(f[10]) / 1e6)
    if not cyc:
        return
    print("\n| P:I | runs | median (Mcycles) | range | spread from the median | over P:1 | declared over P:1 |")
    print("|---|---|---|---|---|---|---|")
    med = {k: sorted(v)[len(v) // 2] for k, v in cyc.items()}
    for p, i in CELLS:
        v = cyc.get((p, i))
        if not v:
            continue
        m = med[(p, i)]
        print("| %d:%d | %d | %.3f | %.3f-%.3f | %.2f%% | %.4f | %.4f |" % (
            p, i, len(v), m, min(v), max(v), 100 * max(abs(x - m) for x in v) / m,
            m / med[(p, 1)], dec[(p, i)] / dec[(p, 1)]))
    print("\nruns without the right answer, not in the medians: %s" % ("; ".join(bad) or "none"))


def main():
    if len(sys.argv) not in (2, 3):
        die("usage: vtime_grid_tables DIR [SERIES]")
    d, series = sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else "grid"
    g, mo = load(d, series), model(d)
    if not g:
        die("%s: no declared run of series '%s'" % (d, series))
    grid_table(g, mo)
    print()
    judge(g, mo)
    measured(d, series)


if __name__ == "__main__":
    main()
