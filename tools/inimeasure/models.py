"""models.py - chapter 6 (mva), LoPC and LoGPC against the synthetic workload.

Reads the CSVs that tools/synth/fig63.sh wrote for one or more repetitions
(DIR/rep*/fig6-3.csv: per N the measured INI queue length Q_measured, the
cycle time R_measured_us, and the W, o, O the run achieved: W_eff_us,
o_eff_us, O_eff_us), solves every model with ini-model at each
repetition's achieved parameters (l = L = 0: memif wires cost nothing
measurable against O), and writes per N the measured means and each
model's prediction and relative error, (predicted - measured) / measured,
for the cycle time R and the INI queue Q_o.

    tools/inimeasure/models.py DIR [--out OUTDIR] [--ini-model PATH]

Output: OUTDIR/models.txt (table + settings) and OUTDIR/models.csv;
OUTDIR defaults to DIR.  Rows from runs fig63.sh marked as disturbed
(another run shared the machine) are kept and counted in the `disturbed`
column.  Exit status 0, 1 when no usable repetition, 2 on bad arguments.
"""
import csv
import glob
import os
import statistics
import sys

if not __package__:
    sys.exit("models.py: run it as `PYTHONPATH=tools python3 -m inimeasure.models` from the repository's root")
from inimeasure import ini_model as model  # noqa: E402  (ini_model.py: ini-model)
from inimeasure import dier  # noqa: E402

# name, ini-model's --model and --cv2 (None: ini-model's default)
MODELS = [("mva", "mva", None), ("lopc", "lopc", None), ("logpc", "logpc", 1), ("logpc0", "logpc", 0)]


die = dier("models.py")


def solve(ini_model, kind, cv2, n, W, o, O):
    try:
        p = model.solve(N=n, W=W, o=o, O=O, model=kind, cv2=cv2, bin=ini_model)
    except model.Error as e:
        die("ini-model failed: %s" % e, 1)
    return p["R"], p["Q_o"], p["U_o"]


def parse_args(argv):
    """(DIR, OUTDIR, ini-model's path) from the command line."""
    args = argv[1:]
    if not args or args[0].startswith("-"):
        die("usage: models.py DIR [--out OUTDIR] [--ini-model PATH]")
    src = args.pop(0)
    out_dir, ini_model = src, model.BIN
    while args:
        flag = args.pop(0)
        if not args:
            die("%s needs a value" % flag)
        if flag == "--out":
            out_dir = args.pop(0)
        elif flag == "--ini-model":
            ini_model = args.pop(0)
        else:
            die("unknown option %s" % flag)
    return src, out_dir, ini_model


def read_reps(files, ini_model):
    """{N: [one dict per repetition]}: each fig6-3.csv row's measurement and
    every model solved at that run's achieved W, o, O."""
    per_n = {}      # N -> list of per-rep dicts
    for path in files:
        with open(path) as f:
            for row in csv.DictReader(f):
                try:
                    n = int(row["N"])
                    rec = {k: float(row[k]) for k in ("Q_measured", "R_measured_us", "W_eff_us",
                                                      "o_eff_us", "O_eff_us", "Q_mva")}
                    rec["U"] = float(row["U_measured"]) if row.get("U_measured") else float("nan")
                    rec["disturbed"] = int(row.get("disturbed") or 0)
                except (KeyError, ValueError) as e:
                    die("%s: bad row %r (%s)" % (path, row, e), 1)
                for kind, arg, cv2 in MODELS:
                    rec[kind] = solve(ini_model, arg, cv2, n, rec["W_eff_us"], rec["o_eff_us"], rec["O_eff_us"])
                per_n.setdefault(n, []).append(rec)
    return per_n


def rel(p, m):
    """The relative error of P against the measurement M (nan without M)."""
    return (p - m) / m if m else float("nan")


def table_rows(per_n):
    """(header, rows) of models.csv: per N the means over repetitions."""
    header = ["N", "reps", "disturbed", "R_meas_us", "Q_meas", "U_meas", "Q_exact_mva"]
    for kind, _, _ in MODELS:
        header += ["R_%s_us" % kind, "errR_%s" % kind, "Q_%s" % kind, "errQ_%s" % kind]
    rows = []
    for n in sorted(per_n):
        recs = per_n[n]
        mean = lambda key: statistics.fmean(r[key] for r in recs)
        row = {"N": n, "reps": len(recs), "disturbed": sum(r["disturbed"] for r in recs),
               "R_meas_us": mean("R_measured_us"), "Q_meas": mean("Q_measured"),
               "U_meas": mean("U"), "Q_exact_mva": mean("Q_mva")}
        for kind, _, _ in MODELS:
            # error per repetition (model at that run's achieved W, o, O
            # against that run's measurement), then the mean over reps
            row["R_%s_us" % kind] = statistics.fmean(r[kind][0] for r in recs)
            row["Q_%s" % kind] = statistics.fmean(r[kind][1] for r in recs)
            row["errR_%s" % kind] = statistics.fmean(rel(r[kind][0], r["R_measured_us"]) for r in recs)
            row["errQ_%s" % kind] = statistics.fmean(rel(r[kind][1], r["Q_measured"]) for r in recs)
        rows.append(row)
    return header, rows


def write_csv(out_dir, header, rows):
    """OUTDIR/models.csv."""
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "models.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for r in rows:
            w.writerow([r[h] if isinstance(r[h], int) else "%.6g" % r[h] for h in header])


def write_text(src, files, out_dir, rows):
    """OUTDIR/models.txt, also on stdout."""
    lines = []
    lines.append("# Chapter 6 (mva), LoPC and LoGPC against ini-synth's measured cycle time R and INI queue Q_o")
    lines.append("# made by: tools/sweeps/models.py %s  (from %d repetition file(s): %s)"
                 % (src, len(files), ", ".join(os.path.relpath(p, src) for p in files)))
    lines.append("# models at each run's achieved W, o, O (fig63.sh's W_eff, o_eff, O_eff), l = L = 0;")
    lines.append("# logpc: cv2 = 1 (exponential O, as the O_dist=exp knob); logpc0: cv2 = 0 (constant O, Agarwal's channels)")
    lines.append("# err = (model - measured) / measured, per repetition, mean over repetitions")
    lines.append("")
    hdr = "%3s %4s %10s %6s" % ("N", "reps", "R_meas_us", "Q_meas")
    for kind, _, _ in MODELS:
        hdr += " | %-6s %8s %7s %6s %7s" % (kind, "R_us", "errR", "Q_o", "errQ")
    hdr += " | %7s" % "Q_exact"
    lines.append(hdr)
    for r in rows:
        s = "%3d %2d%-2s %10.0f %6.3f" % (r["N"], r["reps"], "*" if r["disturbed"] else "",
                                          r["R_meas_us"], r["Q_meas"])
        for kind, _, _ in MODELS:
            s += " | %-6s %8.0f %+6.1f%% %6.3f %+6.1f%%" % ("", r["R_%s_us" % kind], 100 * r["errR_%s" % kind],
                                                          r["Q_%s" % kind], 100 * r["errQ_%s" % kind])
        s += " | %7.3f" % r["Q_exact_mva"]
        lines.append(s)
    lines.append("")
    for kind, _, _ in MODELS:
        eq = [abs(r["errQ_%s" % kind]) for r in rows]
        er = [abs(r["errR_%s" % kind]) for r in rows]
        lines.append("%-6s mean |error|: R %.1f%%, Q_o %.1f%% (worst Q_o %.1f%%)"
                     % (kind, 100 * statistics.fmean(er), 100 * statistics.fmean(eq), 100 * max(eq)))
    if any(r["disturbed"] for r in rows):
        lines.append("(*: at least one repetition of this N shared the machine with another run)")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out_dir, "models.txt"), "w") as f:
        f.write(text)
    sys.stdout.write(text)


def main(argv):
    """models.txt and models.csv from DIR's repetitions."""
    src, out_dir, ini_model = parse_args(argv)
    files = sorted(glob.glob(os.path.join(src, "rep*", "fig6-3.csv")))
    if not files:
        die("%s: no rep*/fig6-3.csv (run tools/sweeps/models.sh first)" % src, 1)
    per_n = read_reps(files, ini_model)
    header, rows = table_rows(per_n)
    write_csv(out_dir, header, rows)
    write_text(src, files, out_dir, rows)

if __name__ == "__main__":
    main(sys.argv)
