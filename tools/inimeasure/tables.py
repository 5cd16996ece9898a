"""Turns the runs of tools/thesis/experiments.sh (OUT/runs.tsv and
OUT/reports.jsonl, tools/inimeasure/runs.py) into the thesis's tables 5.3-5.9
(text and CSV) and figures 5-1, 5-2 (PNG, gnuplot).

Every cell was run several times.  Each figure of a cell is shown as
"median [min-max]" over its repetitions; runs flagged as taken under load
(runs.tsv's others column) are kept and counted in the "runs" column.  Two cells whose
min-max ranges overlap are reported as "no difference" (compare table):
a difference smaller than the spread of the repetitions is not one.

Statistics that can decide (tools/inimeasure/stats.py): table_stats gives each
cell's figures as the median and its 95% bootstrap interval (seeded,
reproducible), both queue definitions side by side; table_equivalence
tests static against round-robin (and load-aware against static) at each
configuration at the thesis's 3%: "equivalent", "different" or "undecided
at this power".  table_cpu, when the runs carry their CPU profile (uniform
dilation, tools/inimeasure/cpu_profile.py), gives the INIs' CPU time per pass
and the compute and protocol threads' per node.

    tables.py OUT "COMMAND LINE"
"""
import math, os, re, statistics, subprocess, sys

if not __package__:
    sys.exit("tables.py: run it as `PYTHONPATH=tools python3 -m inimeasure.tables` from the repository's root")
from inimeasure import runs  # noqa: E402  (runs.py, the layout)
from inimeasure import stats  # noqa: E402  (stats.py, bootstrap and equivalence)


def read(path, default=None):
    return open(path).read() if os.path.exists(path) else default


class Stat:
    """Median and range of one figure over the repetitions of a cell."""

    def __init__(self, values):
        self.v = [x for x in values if x is not None and not (isinstance(x, float) and math.isnan(x))]

    def ok(self):
        return bool(self.v)

    def med(self):
        return statistics.median(self.v) if self.v else None

    def lo(self):
        return min(self.v) if self.v else None

    def hi(self):
        return max(self.v) if self.v else None

    def fmt(self, f, scale=1.0):
        if not self.v:
            return "-"
        if len(self.v) == 1:
            return f % (self.med() * scale)
        return (f + " [" + f + "-" + f + "]") % (self.med() * scale, self.lo() * scale, self.hi() * scale)

    def overlaps(self, other):
        return self.ok() and other.ok() and self.lo() <= other.hi() and other.lo() <= self.hi()


def compare(a, b, lower_is="lower"):
    """'no difference' when the ranges overlap, else which is lower and by how much."""
    if not (a.ok() and b.ok()):
        return "-"
    if a.overlaps(b):
        return "no difference"
    d = (b.med() - a.med()) / b.med() * 100 if b.med() else float("nan")
    return "%s by %.0f%%" % (lower_is if a.med() < b.med() else "higher", abs(d))


def parse_args():
    """(OUT, COMMAND LINE) from the command line; dies on a bad one."""
    if len(sys.argv) != 3 or sys.argv[1].startswith("-"):
        sys.stderr.write("tables.py: usage: tables.py OUT \"COMMAND LINE\"\n")
        sys.exit(2)
    out, cmd = sys.argv[1], sys.argv[2]
    if not os.path.exists(os.path.join(out, "runs.tsv")):
        sys.stderr.write("tables.py: %s: no runs.tsv\n" % out)
        sys.exit(1)
    return out, cmd


def read_experiment(out):
    """(times, reports, loads, CPU profiles), each by cell and repetition, of
    the successful runs of OUT (runs.tsv and reports.jsonl)."""
    times, jsons, loads = {}, {}, {}
    for r in runs.read_runs(out):
        if r["status"] != "ok":
            continue
        name, rep = r["cell"], int(r["rep"])
        times.setdefault(name, {})[rep] = float(r["runtime_s"])
        if r["others"]:
            # The flag is re-derived here from the CPU share other work used in
            # the second before the run (> half a core), the rule of
            # experiments.sh since the load average was dropped from it (it
            # counts our own previous run's threads).
            try:
                during = float(r["others_during"]) if r.get("others_during") else 0.0
                flag = "loaded" if float(r["others"]) > 0.25 or during > 0.25 else "ok"
            except ValueError:
                flag = r["flag"]
            loads.setdefault(name, {})[rep] = [r["load_before"], r["load_after"], r["others"], flag]
    cpus = {}   # cell -> rep -> the run's CPU profile (cpu_profile.py), when kept
    for j in runs.read_reports(out):
        if "rep" in j and j["rep"] in times.get(j["cell"], {}):
            if (j.get("programs") or {}).get("cpu.json"):
                cpus.setdefault(j["cell"], {})[j["rep"]] = j["programs"]["cpu.json"]
            if j["report"] is None:
                print("tables: %s rep %d: no report, skipped" % (j["cell"], j["rep"]), file=sys.stderr)
            else:
                jsons.setdefault(j["cell"], {})[j["rep"]] = j["report"]
    return times, jsons, loads, cpus


def read_calibration(out):
    """(meta.txt's lines 2-4 joined, the delay per cluster size, the knobs per
    cluster size) of OUT."""
    meta_lines = runs.read_meta(out).splitlines()
    meta = " ".join(l for l in meta_lines[1:4])
    delay = {}
    for line in (read(os.path.join(out, "delay-calibration.txt"), "") or "").splitlines():
        kv = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))
        if "size" in kv:
            delay[int(kv["size"])] = (float(kv["delay_us"]), int(kv["msg_len"]), kv.get("knob", "").strip('"'))
    knobs = {int(m[1]): m[2] for m in (re.match(r'knob_size_(\d+)="(.*)"', l) for l in meta_lines) if m}
    return meta, delay, knobs


def make_cells(times, jsons, loads):
    """{(size, INIs, policy): figures of the cell, each a Stat over its
    repetitions} from the INI runs."""
    cells = {}   # (size, ios, policy) -> dict of Stat
    for name in sorted(times):
        m = re.match(r"c(\d+)-i(\d+)-(.+)$", name)
        if not m:
            continue
        size, ios, pol = int(m[1]), int(m[2]), m[3]
        js = jsons.get(name, {})
        reps = sorted(times[name])
        mach = [js[r]["machine"] if r in js else {} for r in reps]
        mis = [js[r]["misrouting_all"] if r in js else {} for r in reps]

        def inis(j):
            return [i for c in j["clusters"] for i in c["inis"]]

        def max_share(j):
            v = [i.get("share") for c in j["clusters"] if c["ios_per_clu"] > 1 for i in c["inis"]]
            v = [x for x in v if x is not None]
            return max(v) if v else None

        g = lambda k, L=mach: Stat([x.get(k) for x in L])
        c = dict(size=size, ios=ios, pol=pol, n=len(reps),
                 loaded=sum(1 for r in reps if loads.get(name, {}).get(r, ["ok"])[-1] == "loaded"),
                 time=Stat([times[name][r] for r in reps]), len=g("msg_len"), ns=g("msg_ns"), cyc=g("msg_cycles"),
                 q=g("queue_len"), qa=g("queue_at_arrival"), util=g("utilization"), service=g("service_ns"),
                 util_max=Stat([max((i["utilization"] for i in inis(js[r]) if i["utilization"] is not None), default=None)
                                if r in js else None for r in reps]),
                 share=Stat([max_share(js[r]) if r in js else None for r in reps]),
                 msgs=Stat([(x.get("msgs_out") or 0) + (x.get("msgs_in") or 0) if x else None for x in mach]))
        if all(x.get("applicable") for x in mis) and mis:
            c["mis_t"] = g("mis_sched_time_rate", mis)
            c["mis_c"] = g("mis_sched_count_rate", mis)
            c["mis_b"] = g("mis_sched_time_rate_bounded", mis)
            # The count rate is the product of two shares: messages that
            # queued (blocked), and of those, the ones with a sibling INI idle.
            # With more INIs the first falls and the second rises.
            frac = lambda a, b: Stat([x[a] / x[b] if x.get(b) else None for x in mis])
            c["blocked"] = frac("blocked", "messages")
            c["idle_sib"] = frac("misrouted", "blocked")
        cells[(size, ios, pol)] = c
    return cells


def make_base(times, loads):
    """{(size, "noini" or "delay"): run time of the baselines}."""
    base = {}
    for size in (1, 2, 4, 8):
        for kind in ("noini", "delay"):
            n = "c%d-%s" % (size, kind)
            if n in times:
                reps = sorted(times[n])
                base[(size, kind)] = dict(time=Stat([times[n][r] for r in reps]), n=len(reps),
                                          loaded=sum(1 for r in reps if loads.get(n, {}).get(r, ["ok"])[-1] == "loaded"))
    return base


def make_header(cmd, meta, times, loads, knobs):
    """The lines every table starts with: how it was made, the runs, the knobs."""
    n_runs = sum(len(v) for v in times.values())
    n_loaded = sum(1 for v in loads.values() for x in v.values() if x[-1] == "loaded")
    header = "# made by: %s\n# %s\n# %d runs, %d flagged as taken under load (kept); figures: median [min-max] over the repetitions\n" % (
        cmd, meta, n_runs, n_loaded)
    if knobs:
        header += "# knobs of the INI runs per cluster size: %s\n" % "; ".join(
            "%d: %s" % (s, knobs[s] or "none (O = 0)") for s in sorted(knobs))
    return header


class Tables:
    """What every table is made from: the cells, the baselines, the policies
    run, the delays, the header; and the files made so far."""

    def __init__(self, out, header, cells, base, delay):
        self.out, self.header, self.cells, self.base, self.delay = out, header, cells, base, delay
        self.pols = [p for p in ("static", "round-robin", "load-aware") if any(k[2] == p for k in cells)]
        self.files = {}

    def emit(self, fname, title, cols, rows, note="", sentence=""):
        """Writes OUT/FNAME.txt (aligned, after the header) and FNAME.csv."""
        w = [max([len(str(c))] + [len(str(r[i])) for r in rows]) for i, c in enumerate(cols)]
        t = self.header + title + "\n" + (note + "\n" if note else "") + "\n"
        t += "  ".join(str(c).rjust(w[i]) for i, c in enumerate(cols)).rstrip() + "\n"
        for r in rows:
            t += "  ".join(str(v).rjust(w[i]) for i, v in enumerate(r)) + "\n"
        if sentence:
            t += sentence + "\n"
        open(os.path.join(self.out, fname + ".txt"), "w").write(t)
        q = lambda v: '"%s"' % v if "," in str(v) else str(v)
        csv = self.header + ",".join(q(x) for x in cols) + "\n" + "".join(",".join(q(v) for v in r) + "\n" for r in rows)
        open(os.path.join(self.out, fname + ".csv"), "w").write(csv)
        self.files[fname] = t

    def keys(self, pol):
        """The cells of POL by size, then INIs."""
        return sorted((k for k in self.cells if k[2] == pol), key=lambda k: (k[0], k[1]))

    def interp(self, size, x, pol, field):
        """FIELD's median at X INIs of the SIZE cells of POL, linearly between the
        measured neighbours (None outside them)."""
        pts = sorted((k[1], self.cells[k][field].med()) for k in self.cells if k[0] == size and k[2] == pol and self.cells[k][field].ok())
        for (x0, v0), (x1, v1) in zip(pts, pts[1:]):
            if x0 <= x <= x1:
                a = (x - x0) / (x1 - x0)
                return v0 * (1 - a) + v1 * a
        for xi, vi in pts:
            if abs(xi - x) < 1e-9:
                return vi
        return None


def runs_col(c):
    return "%d%s" % (c["n"], " (%d loaded)" % c["loaded"] if c["loaded"] else "")


def tables_ini(t):
    """Tables 5.3 and 5.4: the INIs' figures per cell, a table per policy."""
    cells, pols, emit, keys = t.cells, t.pols, t.emit, t.keys
    tabno = {"static": "5.3", "round-robin": "5.4", "load-aware": "5.4b"}
    for pol in pols:
        rows = []
        for k in keys(pol):
            c = cells[k]
            rows.append((c["size"], c["ios"], runs_col(c), c["len"].fmt("%.0f"), c["ns"].fmt("%.0f"), c["cyc"].fmt("%.0f"),
                         c["q"].fmt("%.3f"), c["util"].fmt("%.3f"), c["util_max"].fmt("%.3f"), c["share"].fmt("%.2f"),
                         c["service"].fmt("%.0f")))
        sent = ""
        one = [cells[k] for k in keys(pol) if k[1] == 1 and cells[k]["util"].ok()]
        if one:
            sent = "With one INI per cluster the INIs were busy %s of the time (median, clusters of %s)." % (
                ", ".join("%.0f%%" % (100 * c["util"].med()) for c in one), ", ".join(str(c["size"]) for c in one))
        emit("table%s_ini_%s" % (tabno[pol].replace(".", "_"), pol),
             "Table %s: INI performance running Water on MGS, %s INI scheduling" % (tabno[pol], pol),
             ["clu size", "ios per clu", "runs", "msg len (B)", "msg time (ns)", "msg time (cycles)", "queue length",
              "INI utilization", "busiest INI util", "max INI share", "service/pass (ns)"], rows,
             "msg time = time in the sending plus the receiving INI (queue included); queue length and utilization: "
             "mean over the INIs; busiest INI util: the highest INI's; max INI share: the largest share of its cluster's "
             "messages any INI carried (1/ios if even); service/pass: processing time of one pass, queue excluded",
             sent)


def table_runtime(t):
    """Table 5.5: run time per layout, the baselines beside; returns the
    layouts run, in the thesis's order."""
    cells, base, pols, emit = t.cells, t.base, t.pols, t.emit
    delay = t.delay
    order = [(1, 1), (2, 2), (2, 1), (4, 4), (4, 2), (4, 1), (8, 8), (8, 4), (8, 2), (8, 1)]
    order = [o for o in order if any((o[0], o[1], p) in cells for p in pols)]
    rows = []
    for pol in pols:
        rows.append([pol + " (ms)"] + [cells[(o[0], o[1], pol)]["time"].fmt("%.0f", 1000) if (o[0], o[1], pol) in cells else "-"
                                       for o in order])
    for kind, lab in (("noini", "no INI (ms)"), ("delay", "INI delay (ms)")):
        rows.append([lab] + [base[(o[0], kind)]["time"].fmt("%.0f", 1000) if (o[0], kind) in base else "-" for o in order])
    note = "baselines per cluster size: no INI = cluster-fake-inid; INI delay = fake inid + a fixed per-message delay, " \
           "measured once per size (unloaded INI time of a message of Water's mean length, ini-ping): %s" % (
               ", ".join("size %d: %.2f us (%d B)" % (s, delay[s][0], delay[s][1]) for s in sorted(delay)) or "-")
    slow = [(o, cells[(o[0], o[1], "static")]["time"].med() / base[(o[0], "noini")]["time"].med())
            for o in order if (o[0], o[1], "static") in cells and (o[0], "noini") in base]
    sent = ""
    if slow:
        w = max(slow, key=lambda x: x[1])
        sent = "Under static scheduling Water ran up to %.2f times as long as without INIs (clusters of %d, %d INI%s each)." % (
            w[1], w[0][0], w[0][1], "" if w[0][1] == 1 else "s")
    emit("table5_5_runtime", "Table 5.5: Water run time (ms), median [min-max] of the repetitions",
         ["clu size"] + [o[0] for o in order], [["clu ios"] + [o[1] for o in order]] + rows, note, sent)
    return order


def table_compare(t, order):
    """Which cells differ beyond the spread of their repetitions."""
    cells, pols, emit = t.cells, t.pols, t.emit
    rows = []
    n_same = n_all = 0
    for o in order:
        present = [p for p in pols if (o[0], o[1], p) in cells]
        for i, a in enumerate(present):
            for b in present[i + 1:]:
                r = compare(cells[(o[0], o[1], a)]["time"], cells[(o[0], o[1], b)]["time"], "lower")
                rows.append(("%dx%d" % (16 // o[0], o[0]), o[1], "run time", "%s vs %s" % (a, b), r))
                n_all += 1
                n_same += r == "no difference"
    for pol in pols:
        for size in (1, 2, 4, 8):
            ks = sorted(k for k in cells if k[0] == size and k[2] == pol)
            for a, b in zip(ks, ks[1:]):
                for f, lab in (("time", "run time"), ("util", "INI utilization"), ("q", "queue length"), ("ns", "msg time")):
                    r = compare(cells[b][f], cells[a][f], "lower")
                    rows.append(("%dx%d" % (16 // size, size), "%d -> %d" % (a[1], b[1]), lab, pol, r))
    emit("table_compare", "Differences between cells: 'no difference' when the min-max ranges of the repetitions overlap",
         ["layout", "ios per clu", "figure", "cells", "result"], rows,
         "policies: the first named cell relative to the second; more INIs: the cell with more INIs relative to fewer",
         "%d of %d policy comparisons of run time show no difference beyond the spread of the repetitions." % (n_same, n_all)
         if n_all else "")


def tables_misrouting(t):
    """Tables 5.6 and 5.7: misrouting per cell, a table per policy."""
    cells, pols, emit, keys = t.cells, t.pols, t.emit, t.keys
    for pol, no in (("static", "5.6"), ("round-robin", "5.7"), ("load-aware", "5.7b")):
        if pol not in pols:
            continue
        sel = [cells[k] for k in keys(pol) if "mis_t" in cells[k]]
        rows = [(c["size"], c["ios"], runs_col(c), c["mis_t"].fmt("%.1f%%", 100), c["mis_c"].fmt("%.1f%%", 100),
                 c["mis_b"].fmt("%.1f%%", 100), c["blocked"].fmt("%.1f%%", 100), c["idle_sib"].fmt("%.0f%%", 100))
                for c in sel]
        sent = ""
        if sel:
            hi = max(sel, key=lambda c: c["mis_c"].med() or 0)
            sent = "At most %.1f%% of the inter-cluster messages were misrouted (median; clusters of %d with %d INIs)." % (
                100 * (hi["mis_c"].med() or 0), hi["size"], hi["ios"])
        emit("table%s_misrouting_%s" % (no.replace(".", "_"), pol),
             "Table %s: intra-cluster INI load imbalance (misrouting, section 5.4), %s INI scheduling" % (no, pol),
             ["clu size", "ios per clu", "runs", "mis sched time rate", "mis sched count rate", "time rate (bounded)",
              "blocked", "sibling idle"], rows,
             "definitions: docs/traces.md; the time rate can exceed 100% when messages arrive in bursts; blocked: share of "
             "the messages that queued; sibling idle: share of those that had an idle INI in their cluster (count rate = "
             "blocked x sibling idle)", sent)


def tables_sqrt(t):
    """Tables 5.8 and 5.9: INIs per cluster scaled as sqrt(cluster size)."""
    cells, base, pols, emit = t.cells, t.base, t.pols, t.emit
    interp = t.interp
    for pol, no in (("static", "5.8"), ("round-robin", "5.9"), ("load-aware", "5.9b")):
        if pol not in pols:
            continue
        sizes = [s for s in (1, 2, 4, 8) if any(k[0] == s and k[2] == pol for k in cells)]
        xs = {s: math.sqrt(s) for s in sizes}

        def cell(s, f, fmt):
            v = interp(s, xs[s], pol, f)
            return fmt % v if v is not None else "-"

        def slowdown(s):
            v = interp(s, xs[s], pol, "time")
            return v / base[(s, "noini")]["time"].med() if v is not None and (s, "noini") in base else None

        sd = {s: slowdown(s) for s in sizes}
        rows = [["clu ios"] + ["%.2f" % xs[s] for s in sizes],
                ["msg time (ns)"] + [cell(s, "ns", "%.0f") for s in sizes],
                ["que len"] + [cell(s, "q", "%.3f") for s in sizes],
                ["INI util"] + [cell(s, "util", "%.3f") for s in sizes],
                ["slowdown"] + ["%.3f" % sd[s] if sd[s] is not None else "-" for s in sizes]]
        known = [s for s in sizes if sd[s] is not None]
        emit("table%s_sqrt_scaling_%s" % (no.replace(".", "_"), pol),
             "Table %s: INIs per cluster scaled as sqrt(cluster size), %s INI scheduling" % (no, pol),
             ["clu size"] + sizes, rows,
             "medians; non-integer INI counts linearly interpolated between the measured neighbours, as in the thesis; "
             "slowdown = run time / no-INI run time",
             "With INIs scaled as the square root of the cluster size, the slowdown over no INI went from %.2f (clusters of %d) "
             "to %.2f (clusters of %d)." % (sd[known[0]], known[0], sd[known[-1]], known[-1]) if known else "")


def figures(t):
    """Figures 5-1 and 5-2: data files and, with gnuplot, PNGs."""
    cells, base, pols = t.cells, t.base, t.pols
    out, header = t.out, t.header
    for pol, fig in (("static", "5-1"), ("round-robin", "5-2"), ("load-aware", "5-2b")):
        if pol not in pols:
            continue
        dat = os.path.join(out, "figure%s_%s.dat" % (fig, pol))
        series = []
        with open(dat, "w") as f:
            f.write(header + "# cluster size, median, min, max run time (s)\n")
            for tot in (16, 8, 4, 2):
                pts = [(s, cells[(s, tot * s // 16, pol)]["time"]) for s in (1, 2, 4, 8)
                       if tot * s // 16 >= 1 and tot * s % 16 == 0 and (s, tot * s // 16, pol) in cells]
                if pts:
                    f.write("# %d INIs\n" % tot + "".join("%d %.4f %.4f %.4f\n" % (s, t.med(), t.lo(), t.hi()) for s, t in pts) + "\n\n")
                    series.append("%d INIs" % tot)
            for kind, lab in (("noini", "no INI"), ("delay", "INI delay")):
                pts = [(s, base[(s, kind)]["time"]) for s in (1, 2, 4, 8) if (s, kind) in base]
                if pts:
                    f.write("# %s\n" % lab + "".join("%d %.4f %.4f %.4f\n" % (s, t.med(), t.lo(), t.hi()) for s, t in pts) + "\n\n")
                    series.append(lab)
        png = os.path.join(out, "figure%s_%s.png" % (fig, pol))
        plots = ", ".join("'%s' index %d using 1:2:3:4 with yerrorlines title '%s'" % (dat, i, t) for i, t in enumerate(series))
        gp = ("set terminal png size 800,560; set output '%s'; set title 'Figure %s: Water on MGS, %s INI scheduling (16 compute nodes)';"
              "set xlabel 'cluster size (compute nodes)'; set ylabel 'Water run time (s), median and min-max'; set logscale x 2;"
              "set xtics (1,2,4,8); set xrange [0.8:10]; set key outside right; set yrange [0:*]; plot %s" % (png, fig, pol, plots))
        if series:
            r = subprocess.run(["gnuplot"], input=gp, text=True, capture_output=True)
            if r.returncode:
                print("tables: gnuplot failed: " + r.stderr, file=sys.stderr)


# ---- statistics that can decide (stats.py) ----
def ci(vals, f, scale=1.0):
    v = [x for x in vals if x is not None and not (isinstance(x, float) and math.isnan(x))]
    if not v:
        return "-"
    m, lo, hi = stats.median_ci(v)
    return (f + " [" + f + "-" + f + "]") % (m * scale, lo * scale, hi * scale) if len(v) > 1 else f % (m * scale)


def table_stats(t):
    """Every cell's figures with bootstrap intervals (stats.py)."""
    cells, base, pols, emit, keys = t.cells, t.base, t.pols, t.emit, t.keys
    rows, widths = [], []
    for pol in pols:
        for k in keys(pol):
            c = cells[k]
            if len(c["time"].v) > 1:
                m_, lo_, hi_ = stats.median_ci(c["time"].v)
                widths.append((hi_ - lo_) / m_ * 100)
            rows.append((c["size"], c["ios"], pol, runs_col(c), ci(c["time"].v, "%.0f", 1000), ci(c["util"].v, "%.3f"),
                         ci(c["q"].v, "%.3f"), ci(c["qa"].v, "%.3f"), ci(c["ns"].v, "%.0f", 1e-3),
                         ci(c["mis_c"].v, "%.1f%%", 100) if "mis_c" in c else "-"))
    for (size, kind), b in sorted(base.items()):
        rows.append((size, "-", "no INI" if kind == "noini" else "INI delay", "%d" % b["n"], ci(b["time"].v, "%.0f", 1000),
                     "-", "-", "-", "-", "-"))
    emit("table_stats", "Every cell's figures: median [95% bootstrap interval] over its repetitions (seeded, reproducible)",
         ["clu size", "ios per clu", "policy", "runs", "run time (ms)", "INI util", "queue (time avg)",
          "queue at arrival", "msg time (us)", "mis count rate"], rows,
         "queue (time avg): mean number of messages in the INI, Little's law on the traces (the thesis's table 5.3 "
         "column as tables 5.3-5.4 here report it); queue at arrival: the mean queue a message found when it arrived "
         "(the thesis's trace definition, docs/traces.md); intervals: percentile bootstrap of the median, %d resamples, "
         "seed %d (tools/thesis/stats.py)" % (stats.B, stats.SEED),
         "The 95%% intervals of the INI cells' run time were %.0f-%.0f%% of their medians wide (%d cells)." % (
             min(widths), max(widths), len(widths)) if widths else "Every INI cell ran once: no interval.")


def table_equivalence(t, order):
    """The policies compared at the thesis's 3% (TOST)."""
    cells, emit = t.cells, t.emit
    rows = []
    verdicts = {}
    for o in order:
        for a, b in (("static", "round-robin"), ("static", "load-aware")):
            ka, kb = (o[0], o[1], a), (o[0], o[1], b)
            if ka not in cells or kb not in cells:
                continue
            va, vb = cells[ka]["time"].v, cells[kb]["time"].v
            v = stats.equivalence(va, vb, 0.03)
            verdicts.setdefault((a, b), []).append(v[0])
            rows.append(("%dx%d" % (16 // o[0], o[0]), o[1], "%s / %s" % (b, a), "%d, %d" % (len(va), len(vb)),
                         "%.3f" % v[1], "%.3f-%.3f" % (v[2], v[3]), "%.3f-%.3f" % (v[4], v[5]), v[0]))
    sent = "; ".join("%s against %s: %s" % (b, a, ", ".join("%d %s" % (vs.count(x), x) for x in
                     ("equivalent", "different", "undecided at this power") if vs.count(x)))
                     for (a, b), vs in sorted(verdicts.items(), key=lambda kv: kv[0][1] != "round-robin"))
    emit("table_equivalence", "Policies compared at the thesis's 3%: run time, ratio of the medians, two one-sided tests",
         ["layout", "ios per clu", "ratio", "runs", "ratio of medians", "90% interval", "95% interval", "verdict"], rows,
         "equivalent: the 90%% interval of the ratio lies inside [0.97, 1.03] (TOST, 5%% each side); different: the 95%% "
         "interval excludes 1 and the ratio is not shown equivalent; undecided at this power: neither (the runs cannot "
         "tell a 3%% difference from none).  Bootstrap: %d resamples per group, seed %d" % (stats.B, stats.SEED),
         (sent + ".") if sent else "No configuration ran two of the policies compared: nothing to test.")


def table_cpu(t, cpus):
    """The CPU time of the emulated processors (uniform dilation's runs)."""
    emit = t.emit
    def cstat(name, f, fn):
        v = [fn(p) for p in cpus.get(name, {}).values()]
        v = [x for x in v if x is not None]
        return ci(v, f) if v else "-"
    rows = []
    pp = [statistics.median(v) for v in ([p["ini_cpu_per_pass_ns"] for p in cpus[n].values()
                                          if p.get("ini_cpu_per_pass_ns") is not None] for n in cpus) if v]
    for name in sorted(cpus, key=lambda n: (len(n), n)):
        node = lambda key: (lambda p: p[key] / p["nodes"] / 1000 if p.get(key) is not None and p.get("nodes") else None)
        rows.append((name, len(cpus[name]), cstat(name, "%.0f", lambda p: p.get("ini_cpu_per_pass_ns")),
                     cstat(name, "%.0f", lambda p: p.get("ini_passes")),
                     cstat(name, "%.3f", lambda p: p.get("ini_busy_util")),
                     cstat(name, "%.2f", node("compute_cpu_us")), cstat(name, "%.2f", node("protocol_cpu_us")),
                     cstat(name, "%.1f", lambda p: p.get("compute_stretch")),
                     cstat(name, "%.1f", lambda p: p.get("protocol_stretch")),
                     cstat(name, "%.0f", lambda p: p.get("mgs_sent"))))
    emit("table_cpu", "CPU time of the emulated processors (thread CPU clocks): median [95% bootstrap interval]",
         ["cell", "runs", "INI CPU per pass (ns)", "INI passes", "INI busy (counters)", "compute CPU per node (ms)",
          "protocol CPU per node (ms)", "compute stretch", "protocol stretch", "MGS messages"], rows,
         "INI busy (counters): each INI's dilated busy turns over its run, mean over the INIs (the trace's "
         "utilization counts only the time of turns that finished a message); CPU per node: the cluster's threads' "
         "CPU over its compute nodes; stretch: dilated wall time over CPU time, K when the machine's own costs "
         "(wake-ups, a sleep's overshoot) are nothing beside the dilated work, more by their share",
         "The INIs spent %.0f-%.0f ns of CPU per message pass (medians of the cells)." % (
             min(pp), max(pp)) if pp else "No run carried the INIs' CPU time.")


def main():
    """Every table and figure of OUT, and OUT/tables.txt, all of them."""
    out, cmd = parse_args()
    times, jsons, loads, cpus = read_experiment(out)
    meta, delay, knobs = read_calibration(out)
    cells = make_cells(times, jsons, loads)
    t = Tables(out, make_header(cmd, meta, times, loads, knobs), cells, make_base(times, loads), delay)
    tables_ini(t)
    order = table_runtime(t)
    table_compare(t, order)
    tables_misrouting(t)
    tables_sqrt(t)
    figures(t)
    table_stats(t)
    table_equivalence(t, order)
    if cpus:
        table_cpu(t, cpus)
    files = t.files
    summary = "".join(files[k] + "\n" for k in sorted(files))
    open(os.path.join(out, "tables.txt"), "w").write(summary)
    print(summary)


if __name__ == "__main__":
    main()
