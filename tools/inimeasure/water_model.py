"""water_model.py - thesis chapter 6 for Water: W, o and O measured per
configuration from a thesis-experiment run directory, fed to ini-model,
and the predicted INI queue length and utilization printed beside the
measured ones of tables 5.3/5.4 (and 5.4b, load-aware), with errors.

    tools/inimeasure/water_model.py RUNDIR [--o-us US] [--model mva|lopc|logpc|all]
                                [--out DIR] [--ini-model PATH]

RUNDIR is what tools/thesis/experiments.sh wrote (docs/results/thesis, or
runs/experiments-quick-DATE; the layout of tools/inimeasure/runs.py): the
ini-trace report of each INI run cP-iI-POLICY (reports.jsonl), its Water
run time and that of the runs without INIs, cP-noini (runs.tsv).  Per
configuration (cluster size P, I INIs per cluster, policy), from the
medians over its repetitions:

  N   = P / I, compute nodes per INI (round-robin spreads each node over
        all I INIs, which on average is the same load per INI).
  c   = request/reply cycles per compute node = messages / 2 / 16: the
        model's cycle is one request and its reply, 2 messages and 4 INI
        passes (a message passes its sending and its receiving INI).
  O   = INI service per pass: the JSON's service_ns where the report has
        it, else busy time / passes (busy_cycles / (msgs_out + msgs_in +
        msgs_local)), the INI's own work plus the O knob.
  o   = the compute node's handler time per message (--o-us, default 10
        us: MGS's protocol thread maps or copies a 4 KiB unit per request;
        the traces do not see it; its effect on Q_o is small against W).
  W   = T0 / c - 2 o, T0 the median no-INI run time at this cluster size:
        the time between a node's inter-cluster requests when messages
        cost nothing, handlers taken out.  ini-model takes no negative
        time: a negative W is solved at 0 and said on stderr (one line:
        "warning: cP-iI-POLICY: fitted W = ... us is negative (T0, c, 2o)").
  l = L = 0 (memif: the wire costs nothing measurable against O).

Measured beside it: queue_len and utilization of the report's "machine"
row (the mean of the INIs, tables 5.3/5.4), and R = run time / c.
err = (model - measured) / measured.  Beside them, Q_mm1 = U / (1 - U) at
the measured utilization U (chapter 6's INI equations 6.5 with 6.8 given
the measured message rate instead of the predicted one): it separates the
error of the queueing formula from that of the predicted rate (W).  Output on stdout, and with --out in
DIR/water-model.txt and DIR/water-model.csv.  Exit status 0; 1 when the
directory holds no usable run; 2 on bad arguments.
"""
import csv
import os
import re
import statistics
import sys

if not __package__:
    sys.exit("water_model.py: run it as `PYTHONPATH=tools python3 -m inimeasure.water_model` from the repository's root")
from inimeasure import runs as layout  # noqa: E402  (runs.py: the layout)
from inimeasure import ini_model as model  # noqa: E402  (ini_model.py: ini-model)
from inimeasure import dier  # noqa: E402

PES = 16


die = dier("water_model.py")


def fitted_w(prog, what, t0_s, c, o_us):
    """W = T0 / c - 2 o in us, and the W the model is solved at: the same,
    or 0 when it came out negative (T0 / c < 2 o: the handlers' assumed
    time exceeds the whole time between a node's requests), which ini-model
    refuses.  A negative W is said on stderr, one line naming the point and
    its inputs, so that no table's reader takes the prediction for one made
    at the W it prints (issue 45: 70 EM3D points were clamped unsaid)."""
    W = t0_s * 1e6 / c - 2 * o_us
    if W >= 0:
        return W, W
    sys.stderr.write("%s: warning: %s: fitted W = %.1f us is negative (T0 = %.6g s, c = %.6g cycles a node, "
                     "2o = %g us); the model is solved at W = 0\n" % (prog, what, W, t0_s, c, 2 * o_us))
    return W, 0.0


def solve(ini_model, kind, n, W, o, O):
    try:
        p = model.solve(N=n, W=W, o=o, O=O, model=kind, cv2=1 if kind == "logpc" else None, bin=ini_model)
    except model.Error as e:
        die("ini-model failed (N=%d W=%g o=%g O=%g): %s" % (n, W, o, O, e), 1)
    return {k: p[k] for k in ("R", "Q_o", "U_o")}


def run_figures(what, d):
    """One run's report -> dict of what the model needs, or None."""
    try:
        m = d["machine"]
        n_inis = sum(len(c["inis"]) for c in d["clusters"])
        hz = d["clusters"][0]["inis"][0]["tsc_hz"]
        passes = m["msgs_out"] + m["msgs_in"] + (m.get("msgs_local") or 0)
        if not (n_inis and hz and passes and m["run_cycles"]):
            return None
        if m.get("service_ns") is not None:
            O_us, O_src = m["service_ns"] / 1000.0, "service_ns"
        else:
            O_us, O_src = m["busy_cycles"] / passes / hz * 1e6, "busy/passes"
        return {"msgs": m["msgs_out"], "O_us": O_us, "O_src": O_src,
                "queue_len": m["queue_len"], "utilization": m["utilization"],
                "ini_run_s": m["run_cycles"] / n_inis / hz, "passes_per_ini": passes / n_inis}
    except (ValueError, KeyError, TypeError, IndexError, ZeroDivisionError) as e:
        sys.stderr.write("water_model.py: %s: skipped (%s)\n" % (what, e))
        return None


def parse_args(argv):
    """(RUNDIR, o in us, the models, the output directory or None,
    ini-model's path) from the command line; dies on a bad one."""
    args = argv[1:]
    if not args or args[0].startswith("-"):
        die("usage: water_model.py RUNDIR [--o-us US] [--model mva|lopc|logpc|all] [--out DIR] [--ini-model PATH]")
    rundir = args.pop(0)
    o_us, kinds, out_dir = 10.0, ["mva", "lopc", "logpc"], None
    ini_model = model.BIN
    while args:
        flag = args.pop(0)
        if not args:
            die("%s needs a value" % flag)
        val = args.pop(0)
        if flag == "--o-us":
            try:
                o_us = float(val)
            except ValueError:
                die("--o-us: '%s' is not a number" % val)
            if not 0 <= o_us < 1e6:
                die("--o-us: %s is out of range [0, 1e6)" % val)
        elif flag == "--model":
            if val not in ("mva", "lopc", "logpc", "all"):
                die("--model: '%s' is not mva, lopc, logpc or all" % val)
            kinds = ["mva", "lopc", "logpc"] if val == "all" else [val]
        elif flag == "--out":
            out_dir = val
        elif flag == "--ini-model":
            ini_model = val
        else:
            die("unknown option %s" % flag)
    if not os.path.isfile(os.path.join(rundir, "runs.tsv")):
        die("%s: no runs.tsv (not an experiments.sh output)" % rundir, 1)
    if not os.access(ini_model, os.X_OK):
        die("%s not built (run make)" % ini_model, 1)
    return rundir, o_us, kinds, out_dir, ini_model


def read_cells(rundir):
    """(run times by (cell, rep), {(size, INIs, policy): [run figures]},
    {size: the no-INI runs' median time}) of an experiments.sh output."""
    times = {(r["cell"], int(r["rep"])): float(r["runtime_s"])
             for r in layout.read_runs(rundir) if r["status"] == "ok" and r["runtime_s"]}
    cells = {}
    for j in layout.read_reports(rundir):
        m = re.fullmatch(r"c(\d+)-i(\d+)-([a-z-]+)", j.get("cell", ""))
        if not m or "rep" not in j or j.get("report") is None:
            continue
        t = times.get((j["cell"], j["rep"]))
        fig = run_figures("%s rep %d" % (j["cell"], j["rep"]), j["report"])
        if fig is None or t is None:
            continue
        fig["time_s"] = t
        cells.setdefault((int(m.group(1)), int(m.group(2)), m.group(3)), []).append(fig)
    if not cells:
        die("%s: no usable runs (a report of cP-iI-POLICY in reports.jsonl with its run time)" % rundir, 1)
    t0 = {}
    for size in {k[0] for k in cells}:
        ts = [t for (cell, _), t in times.items() if cell == "c%d-noini" % size and t]
        if ts:
            t0[size] = statistics.median(ts)
    return times, cells, t0


def model_rows(rundir, cells, t0, kinds, o_us, ini_model):
    """A row per configuration: its measured figures beside each model's."""
    med = lambda runs, key: statistics.median(r[key] for r in runs)
    rows = []
    for (size, inis, pol), runs in sorted(cells.items(), key=lambda kv: (["static", "round-robin", "load-aware"].index(kv[0][2]) if kv[0][2] in ("static", "round-robin", "load-aware") else 9, kv[0][0], -kv[0][1])):
        if size not in t0:
            sys.stderr.write("water_model.py: cluster size %d has no no-INI run: skipped\n" % size)
            continue
        n = max(1, round(size / inis))
        msgs = med(runs, "msgs")
        c = msgs / 2.0 / PES
        if c <= 0:
            continue
        O = med(runs, "O_us")
        W, W_model = fitted_w("water_model.py", "c%d-i%d-%s" % (size, inis, pol), t0[size], c, o_us)
        row = {"policy": pol, "size": size, "inis": inis, "N": n, "reps": len(runs), "c": c,
               "W_us": W, "o_us": o_us, "O_us": O, "O_src": runs[0]["O_src"],
               "R_meas_us": med(runs, "time_s") * 1e6 / c,
               "Q_meas": med(runs, "queue_len"), "U_meas": med(runs, "utilization")}
        row["Q_mm1"] = row["U_meas"] / (1 - row["U_meas"]) if row["U_meas"] < 1 else float("inf")
        for kind in kinds:
            p = solve(ini_model, kind, n, W_model, o_us, O)
            row["R_%s_us" % kind] = p["R"]
            row["Q_%s" % kind] = p["Q_o"]
            row["U_%s" % kind] = p["U_o"]
        rows.append(row)
    if not rows:
        die("%s: no configuration with both INI runs and a no-INI run" % rundir, 1)
    return rows


def report_text(rundir, rows, kinds, o_us):
    """water-model.txt: the rows and each model's median errors."""
    rel = lambda p, m: (p - m) / m if m else float("nan")
    lines = ["# Thesis chapter 6 for Water: W, o, O per configuration from %s, fed to ini-model" % rundir,
             "# N = PEs per INI; c = request/reply cycles per PE (messages / 32); O = INI service per pass (%s);"
             % rows[0]["O_src"],
             "# o = %g us (--o-us); W = T0/c - 2o (T0: no-INI run time); medians over the repetitions;" % o_us,
             "# Q, U measured: queue len and utilization of tables 5.3/5.4 (mean of the INIs); err = (model - measured) / measured",
             ""]
    hdr = "%-11s %4s %3s %2s %4s %6s %8s %7s %9s %9s | %7s %6s %7s %6s" % (
        "policy", "size", "ios", "N", "reps", "c", "W_us", "O_us", "R_meas", "R_" + kinds[0], "Q_meas", "U_meas",
        "Q_mm1", "err")
    for kind in kinds:
        hdr += " | %-5s %7s %8s %6s %8s" % (kind, "Q", "errQ", "U", "errU")
    lines.append(hdr)
    for r in rows:
        s = "%-11s %4d %3d %2d %4d %6.0f %8.0f %7.1f %9.0f %9.0f | %7.4f %6.4f %7.4f %+5.0f%%" % (
            r["policy"], r["size"], r["inis"], r["N"], r["reps"], r["c"], r["W_us"], r["O_us"],
            r["R_meas_us"], r["R_%s_us" % kinds[0]], r["Q_meas"], r["U_meas"], r["Q_mm1"],
            100 * rel(r["Q_mm1"], r["Q_meas"]))
        for kind in kinds:
            s += " | %-5s %7.4f %+7.0f%% %6.4f %+7.0f%%" % (
                "", r["Q_%s" % kind], 100 * rel(r["Q_%s" % kind], r["Q_meas"]),
                r["U_%s" % kind], 100 * rel(r["U_%s" % kind], r["U_meas"]))
        lines.append(s)
    lines.append("")
    em = [abs(rel(r["Q_mm1"], r["Q_meas"])) for r in rows if r["Q_meas"] > 0]
    if em:
        lines.append("Q_mm1: median |error| of the queue length %.0f%% (the INI as M/M/1 at its measured utilization)"
                     % (100 * statistics.median(em)))
    for kind in kinds:
        eq = [abs(rel(r["Q_%s" % kind], r["Q_meas"])) for r in rows if r["Q_meas"] > 0]
        eu = [abs(rel(r["U_%s" % kind], r["U_meas"])) for r in rows if r["U_meas"] > 0]
        if eq and eu:
            lines.append("%-5s: median |error| of the queue length %.0f%%, of the utilization %.0f%% (%d configurations)"
                         % (kind, 100 * statistics.median(eq), 100 * statistics.median(eu), len(eq)))
    text = "\n".join(lines) + "\n"
    return text


def write_outputs(out_dir, text, rows):
    """OUTDIR/water-model.txt and water-model.csv."""
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "water-model.txt"), "w") as f:
        f.write(text)
    keys = list(rows[0].keys())
    with open(os.path.join(out_dir, "water-model.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(keys)
        for r in rows:
            w.writerow([("%.6g" % r[k]) if isinstance(r[k], float) else r[k] for k in keys])


def main(argv):
    """The chapter-6 models against RUNDIR's Water runs."""
    rundir, o_us, kinds, out_dir, ini_model = parse_args(argv)
    _, cells, t0 = read_cells(rundir)
    rows = model_rows(rundir, cells, t0, kinds, o_us, ini_model)
    text = report_text(rundir, rows, kinds, o_us)
    sys.stdout.write(text)
    if out_dir:
        write_outputs(out_dir, text, rows)

if __name__ == "__main__":
    main(sys.argv)
