"""predict.py - the calibrated mode made falsifiable: O fitted at clusters
of 8 only predicts clusters of 1, 2 and 4 before they are run
(tools/thesis/falsify.sh predict; docs/experiments.md).

    predict.py predict CAL8 MEASURED --out PREDICTION
    predict.py check PREDICTION RUNDIR --out FILE

`predict` writes, before any run with O at clusters of 1, 2, 4, what the
chapter 6 model (ini-model, MVA; tools/inimeasure/ini_model.py) says they will
give.  Its inputs, each measured, none fitted at those sizes:
  CAL8      calibrate.sh's file for clusters of 8: O'_8 (the O every size
            runs with), the first round's O_8, the service per pass s1_8
            measured with O_8, and s0_8 (the native service per pass)
  MEASURED  calibrate.sh --no-verify's file for clusters of 1, 2, 4 (its O
            column is not used): T0_c, the no-INI run time, P_c, the passes
            per INI with one INI per cluster and O = 0, s0_c
Per configuration (c, I INIs per cluster), static:
  N    = c / I, compute nodes per INI
  n    = P_c x (16 / c) / 2 messages; cycles per node = n / 2 / 16
  O    = s0_c + O'_8 + (s1_8 - O_8 - s0_8): the native work at this size,
         the O it runs with, and the sleep's overshoot measured at 8
  W    = T0_c / cycles - 2 o, o = 10 us (water_model.py's)
  run time = R x cycles; utilization U_o; queue Q_o (time average)
The file is written once; falsify.sh records its time and SHA-256 in the
experiment's meta.txt before the first run, so that the prediction
provably came first.

`check` puts beside each predicted figure the measured median and its 95%
bootstrap interval (tools/inimeasure/stats.py) from RUNDIR (experiments.sh's
output), the error (predicted - measured) / measured, and whether the
prediction lies inside the interval.  Exit status 0; 1 on unreadable
input; 2 on bad arguments.
"""
import datetime
import statistics
import sys

if not __package__:
    sys.exit("predict.py: run it as `PYTHONPATH=tools python3 -m inimeasure.predict` from the repository's root")
from inimeasure import ini_model, runs, stats  # noqa: E402
from inimeasure import dier  # noqa: E402

O_US = 10.0
COLS = "size O_us(corrected) O_c s1_us D_c T0_c_s P_c s0_us P1".split()


die = dier("predict.py")


def read_cal(path):
    """size -> dict of the calibration file's columns (floats; nan kept)."""
    try:
        lines = [l.split() for l in open(path) if l.strip() and not l.lstrip().startswith("#")]
    except OSError as e:
        die("%s: %s" % (path, e.strerror), 1)
    out = {}
    for f in lines:
        if len(f) < 8:
            die("%s: '%s': expected the columns %s" % (path, " ".join(f), " ".join(COLS)), 1)
        out[int(f[0])] = {c: float(v) for c, v in zip(COLS, f)}
    return out


def predict(cal8, measured, out):
    c8 = read_cal(cal8).get(8)
    if not c8:
        die("%s: no line for clusters of 8" % cal8, 1)
    if c8["s1_us"] != c8["s1_us"]:
        die("%s: no check round (s1) for clusters of 8: calibrate without --no-verify" % cal8, 1)
    meas = read_cal(measured)
    overshoot = c8["s1_us"] - c8["O_c"] - c8["s0_us"]
    lines = ["# prediction made by: predict.py predict %s %s, %s" % (cal8, measured,
                                                                  datetime.datetime.now().isoformat(timespec="seconds")),
             "# O'_8 = %.2f us (every size runs with it); the sleep's overshoot at 8: s1_8 - O_8 - s0_8 = %.2f - %.2f - %.2f = %.2f us"
             % (c8["O_us(corrected)"], c8["s1_us"], c8["O_c"], c8["s0_us"], overshoot),
             "# model: ini-model --model mva; o = %g us; W = T0 / cycles - 2 o; O = s0_c + O'_8 + overshoot" % O_US,
             "# size inis N cycles_per_node W_us O_us run_time_s utilization queue"]
    for c in sorted(meas):
        if c == 8:
            continue
        m = meas[c]
        cycles = m["P_c"] * (16 / c) / 2 / 2 / 16
        W = m["T0_c_s"] * 1e6 / cycles - 2 * O_US
        O = m["s0_us"] + c8["O_us(corrected)"] + overshoot
        i = 1
        while i <= c:
            try:
                p = ini_model.solve(N=c // i, W=max(W, 0), o=O_US, O=O, model="mva")
            except ini_model.Error as e:
                die("ini-model: %s" % e, 1)
            lines.append("%d %d %d %.1f %.1f %.2f %.4f %.4f %.4f" % (c, i, c // i, cycles, W, O, p["R"] * cycles / 1e6,
                                                                   p["U_o"], p["Q_o"]))
            i *= 2
    open(out, "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


def check(prediction, rundir, out):
    try:
        pred = [l.split() for l in open(prediction) if l.strip() and not l.startswith("#")]
    except OSError as e:
        die("%s: %s" % (prediction, e.strerror), 1)
    times, figs = {}, {}
    for r in runs.read_runs(rundir):
        if r["status"] == "ok":
            times.setdefault(r["cell"], {})[int(r["rep"])] = float(r["runtime_s"])
    for j in runs.read_reports(rundir):
        if j.get("report") and "rep" in j and j["rep"] in times.get(j["cell"], {}):
            m = j["report"]["machine"]
            figs.setdefault(j["cell"], []).append((m["utilization"], m["queue_len"]))
    lines = ["# predict.py check %s %s" % (prediction, rundir),
             "# predicted (before the runs) against measured: median [95% bootstrap interval]; err = (predicted - measured) / measured; in: the prediction lies inside the interval",
             "%4s %4s  %-10s %10s %26s %7s %3s" % ("size", "inis", "figure", "predicted", "measured", "err", "in")]
    n_in = n = 0
    for f in pred:
        c, i = int(f[0]), int(f[1])
        cell = "c%d-i%d-static" % (c, i)
        got = {"run time": list(times.get(cell, {}).values()), "utilization": [x[0] for x in figs.get(cell, [])],
               "queue": [x[1] for x in figs.get(cell, [])]}
        for name, pv in (("run time", float(f[6])), ("utilization", float(f[7])), ("queue", float(f[8]))):
            v = got[name]
            if not v:
                lines.append("%4d %4d  %-10s %10.4f %26s" % (c, i, name, pv, "not run"))
                continue
            m, lo, hi = stats.median_ci(v)
            inside = lo <= pv <= hi
            n += 1
            n_in += inside
            lines.append("%4d %4d  %-10s %10.4f %26s %+6.0f%% %3s" % (c, i, name, pv, "%.4f [%.4f-%.4f]" % (m, lo, hi),
                                                                   100 * (pv - m) / m if m else float("nan"),
                                                                   "yes" if inside else "no"))
    lines.append("%d of %d predicted figures lie inside the measured 95%% interval." % (n_in, n))
    open(out, "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) == 5 and a[0] == "predict" and a[3] == "--out":
        predict(a[1], a[2], a[4])
    elif len(a) == 5 and a[0] == "check" and a[3] == "--out":
        check(a[1], a[2], a[4])
    else:
        die("usage: predict.py predict CAL8 MEASURED --out FILE | predict.py check PREDICTION RUNDIR --out FILE")
