"""sweep_fit.py - the fits and predictions of a tools/sweeps/sweep.sh run.

    tools/inimeasure/sweep_fit.py OUT

Reads OUT/runs.tsv (one row per run: workload, knob, value, rep, status,
run time, load) and the counters of the base runs (OUT/reports.jsonl: the
ini-trace report and the programs' mgs-cluster*.json or synth-cluster*.json;
the layout is tools/inimeasure/runs.py's), and writes:

  OUT/sweeps.txt   per workload and knob: the linear fit of run time against
                   the knob (least squares over every run of the knob's
                   values and of the base), its R², the largest residual,
                   seed 000's predicted slope beside the measured one, and
                   per value the mean run time, slowdown and residual
  OUT/fits.csv     one row per workload and knob (the fit and predictions)
  OUT/points.csv   one row per workload, knob and value
  OUT/<workload>.png  run time against each knob: runs, fit, prediction

Predicted slopes (seconds of run time per unit of the knob), from the base
runs' counts (median over the base repetitions); docs/sweeps.md explains
each choice:

  overhead (Δo, us)  seed 000: r0 + 2 m Δo.  Water: m = the most messages
      any compute node sent (mgs-cluster*.json nodes[].sent), the seed's
      "slowest processor"; beside it the count MGS actually pays Δo for:
      its one protocol thread per cluster sends and receives for all the
      cluster's nodes, so max over clusters of sum(sent + received).
      ini-synth: 2 x the mean over nodes of the messages a node sent
      (requests + replies), since its run time is the mean over nodes;
      beside it the critical path of a blocking cycle, 4 Δo (own send,
      the remote's receive and reply, own receive) plus 2 Δo per request
      served when it interrupts compute: 4 cycles + 2 served.
  gap (Δg, us)       seed 000's burst model r0 + m Δg with m the most
      messages that left one INI (the gap is the INI's): an upper bound;
      the uniform model predicts nothing below the mean interval.
  per_byte (ΔG, ns)  the burst model in bytes: the most bytes (payload +
      16-byte AM header) that left one INI.
  latency (ΔL, us)   each blocking round trip waits 2 ΔL: Water, 2 x the
      blocking requests (RREQ, WREQ, REL, LOCK_REQ, ARRIVE) per compute
      node of the busiest cluster; ini-synth, 2 x cycles per node.
  O (ΔO, us)         Water: INI-serial (burst) model, the most passes
      (messages in + out) of one INI; ini-synth: chapter 6 (ini-model mva
      at W 2000, o 50, O 100 + ΔO, N 4), the secant over the swept range,
      times cycles per node.
"""
import csv
import os
import shutil
import statistics
import subprocess
import sys

if not __package__:
    sys.exit("sweep_fit.py: run it as `PYTHONPATH=tools python3 -m inimeasure.sweep_fit` from the repository's root")
from inimeasure import runs  # noqa: E402  (runs.py: the layout)
from inimeasure import ini_model  # noqa: E402  (ini_model.py: ini-model)
from inimeasure import dier  # noqa: E402

UNITS = {"O": "us", "overhead": "us", "gap": "us", "per_byte": "ns/B", "latency": "us"}
SCALE = {"O": 1e-6, "overhead": 1e-6, "gap": 1e-6, "per_byte": 1e-9, "latency": 1e-6}
NAMES = {"O": "O (added)", "overhead": "Δo", "gap": "Δg", "per_byte": "ΔG", "latency": "ΔL"}
BLOCKING = ("RREQ", "WREQ", "REL", "LOCK_REQ", "ARRIVE")


die = dier("sweep_fit.py", 1)


def linfit(xs, ys):
    n = len(xs)
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if n < 2 or sxx == 0:
        return None
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    a = my - b * mx
    ss_tot = sum((y - my) ** 2 for y in ys)
    ss_res = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys))
    r2 = 1 - ss_res / ss_tot if ss_tot > 0 else 1.0
    # Standard error of the slope: two slopes whose 95% intervals
    # (about b +- 2 se) overlap are not told apart.
    se = (ss_res / (n - 2) / sxx) ** 0.5 if n > 2 else float("nan")
    return a, b, r2, se


def base_counts(reports, wl):
    """Counts of every base run of workload wl -> list of dicts."""
    out = []
    for line in reports:
        if line.get("workload") != wl or line.get("knob") != "base":
            continue
        c = {}
        rep = line.get("report")
        if rep:
            inis = [i for cl in rep["clusters"] for i in cl["inis"]]
            c["ini_out_max"] = max(i["msgs_out"] for i in inis)
            c["ini_pass_max"] = max(i["msgs_out"] + i["msgs_in"] + (i.get("msgs_local") or 0) for i in inis)
            c["ini_bytes_max"] = max(i["msgs_out"] * ((i.get("msg_len") or 0) + 16) for i in inis)
        progs = line.get("programs") or {}
        mgs = [m for n, m in sorted(progs.items()) if n.startswith("mgs-cluster") and m]
        if mgs and all("nodes" in m for m in mgs):
            nodes = [n for m in mgs for n in m["nodes"]]
            c["node_sent_max"] = max(n["sent"] for n in nodes)
            c["node_sent_mean"] = statistics.fmean(n["sent"] for n in nodes)
            c["thread_max"] = max(sum(n["sent"] + n["received"] for n in m["nodes"]) for m in mgs)
            c["rt_per_node_max"] = max(sum(m["messages"].get(t, {}).get("sent", 0) for t in BLOCKING)
                                       / max(1, len(m["nodes"])) for m in mgs)
        syn = [m for n, m in sorted(progs.items()) if n.startswith("synth-cluster")]
        pes = [p for s in syn if s for p in s["per_pe"]]
        if pes:
            c["synth_sent_mean"] = statistics.fmean(p["cycles"] + p["served"] for p in pes)
            c["synth_cycles_mean"] = statistics.fmean(p["cycles"] for p in pes)
            c["synth_path_mean"] = statistics.fmean(4 * p["cycles"] + 2 * p["served"] for p in pes)
        out.append(c)
    return out


def med(counts, key):
    vals = [c[key] for c in counts if key in c]
    return statistics.median(vals) if vals else None


def mva_secant(values, cycles):
    """ini-synth's O slope from chapter 6: cycles x (R(O+max) - R(O)) / max."""
    top = max(values)
    try:
        rs = [ini_model.solve(N=4, W=2000, o=50, O=O)["R"] for O in (100.0, 100.0 + top)]
    except ini_model.Error:
        return None
    return cycles * (rs[1] - rs[0]) / top * 1e-6


def uniform_gap(m, base_s, values):
    """Seed 000's uniform gap model as a slope: no cost while Δg is below
    the mean interval I between the m messages of the busiest INI, then
    m (Δg - I); the secant from 0 to the largest value swept."""
    top = max(values)
    interval_us = base_s * 1e6 / m
    return "uniform: m (Δg - I)+, I = %.0f us" % interval_us, m * max(0.0, top - interval_us) / top * 1e-6


def predictions(wl, knob, counts, values, base_s=None):
    """[(label, slope in s per unit)], the first one being the prediction."""
    s = SCALE[knob]
    p = []
    # Gap and per-byte gap act at the INI, the same for both workloads.
    if knob == "gap" and med(counts, "ini_out_max") is not None:
        m = med(counts, "ini_out_max")
        p.append(("burst: max msgs out of one INI", m * s))
        if m > 0 and base_s and values:
            p.append(uniform_gap(m, base_s, values))
        return p
    if knob == "per_byte" and med(counts, "ini_bytes_max") is not None:
        p.append(("burst: max bytes out of one INI", med(counts, "ini_bytes_max") * s))
        return p
    if wl.startswith("water"):
        if knob == "overhead":
            if med(counts, "thread_max") is not None:
                p.append(("protocol thread: max_C sum(sent+recv)", med(counts, "thread_max") * s))
            if med(counts, "node_sent_max") is not None:
                p.append(("seed 000: 2 m, m = max sent/node", 2 * med(counts, "node_sent_max") * s))
                p.append(("2 m, m = mean sent/node", 2 * med(counts, "node_sent_mean") * s))
        elif knob == "latency" and med(counts, "rt_per_node_max") is not None:
            p.append(("2 x blocking requests per node", 2 * med(counts, "rt_per_node_max") * s))
            # The upper end: every message the busiest node sends or
            # receives waits ΔL on its path, one after the other.
            if med(counts, "node_sent_max") is not None:
                p.append(("all of a node's messages in series: 2 m, m = max sent/node",
                          2 * med(counts, "node_sent_max") * s))
        elif knob == "O" and med(counts, "ini_pass_max") is not None:
            p.append(("INI-serial: max passes of one INI", med(counts, "ini_pass_max") * s))
    else:
        if knob == "overhead" and med(counts, "synth_sent_mean") is not None:
            p.append(("seed 000: 2 m, m = mean sent/node", 2 * med(counts, "synth_sent_mean") * s))
            # A blocking cycle has 4 Δo on its path (send, remote receive
            # and reply, receive) and the node serves others' requests
            # (2 Δo each) when they interrupt its compute: the upper end.
            p.append(("critical path: 4 cycles + 2 served", med(counts, "synth_path_mean") * s))
        elif knob == "latency" and med(counts, "synth_cycles_mean") is not None:
            p.append(("2 x cycles per node", 2 * med(counts, "synth_cycles_mean") * s))
        elif knob == "O" and med(counts, "synth_cycles_mean") is not None:
            v = mva_secant(values, med(counts, "synth_cycles_mean"))
            if v is not None:
                p.append(("chapter 6 (mva) secant", v))
    return p


def plot(out, wl, fits, png):
    gp = shutil.which("gnuplot")
    if not gp or not fits:
        return
    term = "pngcairo size 1200,800 font ',9'"
    if "pngcairo" not in subprocess.run([gp, "-e", "set terminal"], capture_output=True, text=True).stderr:
        term = "png size 1200,800"
    cmds = ["set terminal %s" % term, "set output '%s'" % png,
            "set multiplot layout 2,3 title 'run time against each knob: %s'" % wl.replace("_", " "),
            "set grid", "set key top left font ',8'", "set ylabel 'run time (s)'"]
    for f in fits:
        a, b = f["intercept"], f["slope_s"]
        pred = f["pred"][0][1] if f["pred"] else None
        lines = ["'%s' using 1:2 with points pt 7 ps 0.6 title 'runs'" % f["dat"],
                 "%.9g + %.9g * x with lines lw 2 title sprintf('fit, R^2 %.3f')" % (a, b, f["r2"])]
        if pred is not None:
            lines.append("%.9g + %.9g * x with lines dt 2 lw 2 title 'predicted (%s)'"
                         % (f["base_mean"], pred, f["pred"][0][0].split(":")[0]))
        cmds += ["set xlabel '%s (%s)'" % (NAMES[f["knob"]], UNITS[f["knob"]]), "plot " + ", ".join(lines)]
    cmds.append("unset multiplot")
    r = subprocess.run([gp], input="\n".join(cmds) + "\n", capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write("sweep_fit.py: gnuplot failed for %s: %s\n" % (wl, r.stderr.strip()[:200]))


def read_ok(out):
    """(successful runs, reports, meta.txt) of OUT, run time and value as
    numbers; dies on an unreadable or empty experiment."""
    try:
        runs_ok = [r for r in runs.read_runs(out) if r["status"] == "ok"]
        reports = runs.read_reports(out)
    except (OSError, ValueError) as e:
        die("%s: %s" % (out, e))
    if not runs_ok:
        die("%s: no successful runs in runs.tsv" % out)
    for r in runs_ok:
        r["value"] = float(r["value"])
        r["runtime_s"] = float(r["runtime_s"])
    return runs_ok, reports, runs.read_meta(out)


def fit_knob(out, wl, knob, base, kr, base_mean, counts, text):
    """The fit of one knob of workload WL (its runs KR and the base runs):
    (fits.csv's row, points.csv's rows); writes its data file and appends
    its lines to TEXT.  None when no line can be fitted."""
    pts = base + kr
    xs, ys = [r["value"] for r in pts], [r["runtime_s"] for r in pts]
    fit = linfit(xs, ys)
    if not fit:
        return None
    a, b, r2, se = fit
    values = sorted(set(xs))
    per_value = []
    for v in values:
        vy = [y for x, y in zip(xs, ys) if x == v]
        m = statistics.fmean(vy)
        per_value.append({"workload": wl, "knob": knob, "value": v, "runs": len(vy), "runtime_s": m,
                          "min_s": min(vy), "max_s": max(vy), "slowdown": m / base_mean,
                          "residual_pct": 100 * (m - (a + b * v)) / (a + b * v)})
    pred = predictions(wl, knob, counts, [v for v in values if v > 0], base_mean)
    dat = os.path.join(out, "data", "%s-%s.dat" % (wl.replace(":", "_"), knob))
    with open(dat, "w") as f:
        for x, y in zip(xs, ys):
            f.write("%g %.6f\n" % (x, y))
    maxres = max(abs(p["residual_pct"]) for p in per_value)
    fitrow = {"workload": wl, "knob": knob, "unit": UNITS[knob], "runs": len(pts), "slope_s": b, "se": se,
              "intercept": a, "r2": r2, "max_residual_pct": maxres, "base_mean": base_mean,
              "slowdown_at_max": per_value[-1]["slowdown"], "max_value": values[-1],
              "pred": pred, "dat": dat}
    p0 = pred[0][1] if pred else None
    text.append("%-9s %-5s %5d %11.4g %9.4f %6.3f %7.1f%% %11s %7s  %s" % (
        NAMES[knob], UNITS[knob], len(pts), b, a, r2, maxres,
        "%.4g" % p0 if p0 is not None else "-", "%.2f" % (b / p0) if p0 else "-",
        pred[0][0] if pred else "(no counts)"))
    for label, v in pred[1:]:
        text.append("%-9s %-5s %5s %11s %9s %6s %8s %11.4g %7s  %s" % ("", "", "", "", "", "", "", v,
                                                                   "%.2f" % (b / v) if v else "-", label))
    text.append("%-9s %-5s %5s %11s  slope's 95%% interval (+- 2 se): %.4g to %.4g" % (
        "", "", "", "", b - 2 * se, b + 2 * se))
    return fitrow, per_value


def workload_fits(out, wl, runs_ok, reports, text):
    """The fits of workload WL's knobs and their points, its lines appended
    to TEXT and its figure plotted."""
    base = [r for r in runs_ok if r["workload"] == wl and r["knob"] == "base"]
    if not base:
        text.append("\n%s: no base run, no fits" % wl)
        return [], []
    base_mean = statistics.fmean(r["runtime_s"] for r in base)
    loaded = sum(r["flag"] != "ok" for r in runs_ok if r["workload"] == wl)
    counts = base_counts(reports, wl)
    text.append("")
    text.append("== %s: base run time %.3f s (%d runs; %d of the workload's runs flagged loaded)"
                % (wl, base_mean, len(base), loaded))
    text.append("%-9s %-5s %5s %11s %9s %6s %8s %11s %7s  %s" % (
        "knob", "unit", "runs", "slope", "intercept", "R²", "max|res|", "predicted", "ratio", "prediction"))
    fits, points = [], []
    for knob in ["O", "overhead", "gap", "per_byte", "latency"]:
        kr = [r for r in runs_ok if r["workload"] == wl and r["knob"] == knob]
        done = fit_knob(out, wl, knob, base, kr, base_mean, counts, text) if kr else None
        if done:
            fits.append(done[0])
            points += done[1]
    for f in fits:
        text.append("  %s: " % NAMES[f["knob"]] + "; ".join(
            "%g -> %.3f s (x%.2f, res %+.1f%%)" % (p["value"], p["runtime_s"], p["slowdown"], p["residual_pct"])
            for p in points if p["knob"] == f["knob"]))
    plot(out, wl, fits, os.path.join(out, "%s.png" % wl.replace(":", "_")))
    return fits, points


def write_csvs(out, all_fits, all_points):
    """OUT/fits.csv (a row per fit) and OUT/points.csv (a row per value)."""
    with open(os.path.join(out, "fits.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["workload", "knob", "unit", "runs", "slope_s_per_unit", "intercept_s", "r2",
                    "max_residual_pct", "base_runtime_s", "max_value", "slowdown_at_max",
                    "predicted_slope", "prediction", "measured_over_predicted", "other_predictions", "slope_se"])
        for r in all_fits:
            p0 = r["pred"][0] if r["pred"] else ("", None)
            w.writerow([r["workload"], r["knob"], r["unit"], r["runs"], "%.6g" % r["slope_s"], "%.6g" % r["intercept"],
                        "%.5f" % r["r2"], "%.2f" % r["max_residual_pct"], "%.6g" % r["base_mean"], r["max_value"],
                        "%.4f" % r["slowdown_at_max"], "" if p0[1] is None else "%.6g" % p0[1], p0[0],
                        "" if not p0[1] else "%.4f" % (r["slope_s"] / p0[1]),
                        "; ".join("%s=%.6g" % (l, v) for l, v in r["pred"][1:]), "%.6g" % r["se"]])
    with open(os.path.join(out, "points.csv"), "w", newline="") as f:
        keys = ["workload", "knob", "value", "runs", "runtime_s", "min_s", "max_s", "slowdown", "residual_pct"]
        w = csv.writer(f)
        w.writerow(keys)
        for p in all_points:
            w.writerow([p[k] if isinstance(p[k], (str, int)) else "%.6g" % p[k] for k in keys])


def main(argv):
    """sweeps.txt, fits.csv, points.csv and the figures of OUT."""
    if len(argv) != 2:
        die("usage: sweep_fit.py OUT", 2)
    out = argv[1]
    runs_ok, reports, meta = read_ok(out)
    os.makedirs(os.path.join(out, "data"), exist_ok=True)
    workloads = sorted({r["workload"] for r in runs_ok}, key=lambda w: (w == "synth", w))
    all_fits, all_points = [], []
    text = ["# Communication parameters varied one at a time (seed 000) on Water on MGS and ini-synth",
            "# made by: tools/sweeps/sweep_fit.py %s" % out]
    text += ["# " + l for l in meta.splitlines() if l.startswith("#") or "=" in l][:6]
    text.append("# slope: seconds of run time per unit of the knob; pred: seed 000's model from the base runs' counts;")
    text.append("# ratio = measured / predicted; residual = mean run time at a value minus the fit there, % of the fit")
    for wl in workloads:
        fits, points = workload_fits(out, wl, runs_ok, reports, text)
        all_fits += fits
        all_points += points
    write_csvs(out, all_fits, all_points)
    body = "\n".join(text) + "\n"
    with open(os.path.join(out, "sweeps.txt"), "w") as f:
        f.write(body)
    sys.stdout.write(body)
    if not all_fits:
        die("no fit could be made (every knob needs the base and at least one other value)")

if __name__ == "__main__":
    main(sys.argv)
