"""logp.py - the tables and figures of tools/bench/logp.sh (docs/logp.md),
made from an experiment's runs.tsv and reports.jsonl (the layout of
tools/inimeasure/runs.py) and nothing else, so that they can be made again.

    logp.py knobs OUT     seed 000's Table 2 and Fig. 3: knobs.txt,
                          knobs.csv, signature.dat, signature.png
    logp.py overlap OUT   seed 003's Fig. 3 as a table: overlap.txt,
                          overlap.csv, overlap-sweep.dat, overlap-sweep.png

Every figure is the median over the repetitions, with the smallest and
largest beside it; a run that failed has no report and counts nowhere.
Exit status 0, 1 on an unreadable experiment, 2 on bad arguments.
"""
import csv
import io
import os
import subprocess
import sys

if not __package__:
    sys.exit("logp.py: run it as `PYTHONPATH=tools python3 -m inimeasure.logp` from the repository's root")
from inimeasure import runs  # noqa: E402  (runs.py: the layout)

# knob -> (label, the parameter it moves, the --knob field)
KNOBS = {
    "overhead": ("Δo", "o", "overhead_us"),
    "overhead_sleep": ("Δo asleep", "o", "overhead_us, overhead_mode=sleep"),
    "gap": ("Δg", "g", "gap_us"),
    "per_byte": ("ΔG", "G", "per_byte_ns"),
    "latency": ("ΔL", "L", "latency_us"),
    "O": ("O", "O", "O_us"),
}
PARAMS = ["o_s", "o_r", "o", "g", "G", "L", "rtt", "O", "o_r_steady"]


def median(v):
    v = sorted(v)
    n = len(v)
    return (v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2) if n else float("nan")


def stat(v):
    return (median(v), min(v), max(v)) if v else (float("nan"),) * 3


def busy_us(line, ghz):
    """The INIs' busy time per message they handled (us), mean of the two."""
    p = line.get("programs") or {}
    v = [p[f]["busy"]["cycles_per_message"] for f in ("ini0.counters.json", "ini1.counters.json")
         if isinstance(p.get(f), dict) and "busy" in p[f]]
    return sum(v) / len(v) / (ghz * 1e3) if v else float("nan")


def knob_params(line):
    d = line["programs"]["logp.json"]
    return {"o_s": d["o_s_us"], "o_r": d["o_r_us"], "o": (d["o_s_us"] + d["o_r_us"]) / 2, "g": d["g_us"],
            "G": d["G_ns_per_byte"], "L": d["L_us"], "rtt": d["rtt_us"], "O": busy_us(line, d["tsc_ghz"]),
            "o_r_steady": d["o_r_steady_us"]}


def points_of(out):
    """{(knob, value): [report line, ...]} of the runs that reported."""
    pts = {}
    for line in runs.read_reports(out):
        if isinstance((line.get("programs") or {}).get("logp.json"), dict):
            pts.setdefault((line["knob"], float(line["value"])), []).append(line)
    return pts


def desired(knob, v, base):
    """The value the knob asks for its parameter, from the base's medians."""
    if knob in ("overhead", "overhead_sleep"):
        return base["o"] + v
    if knob == "gap":
        return max(base["g"], v)       # a least time between departures
    if knob == "per_byte":
        return max(base["G"], v)
    if knob == "latency":
        return base["L"] + v
    return v                           # O: the INI's extra time per message


def fmt(x, nd=2):
    return "%.*f" % (nd, x) if x == x else "-"


def knobs_tables(out, pts):
    base_lines = pts.get(("base", 0.0))
    if not base_lines:
        runs.die("%s: no base run reported" % out)
    per = {k: {p: stat([knob_params(l)[p] for l in ls]) for p in PARAMS} for k, ls in pts.items()}
    base = {p: per[("base", 0.0)][p][0] for p in PARAMS}
    head = "%-8s %4s %9s %24s  %8s %8s %8s %9s %8s %8s" % ("setting", "runs", "desired", "observed [min-max]",
                                                            "o_s", "o_r", "g", "G ns/B", "L", "rtt")
    txt = ["# seed 000's Table 2: each knob's desired and measured parameter, and the others (us; G in ns per",
           "# byte); medians over the runs, [smallest-largest].  o = (o_s + o_r) / 2; L = rtt / 2 - o_s - o_r;",
           "# O: the INIs' busy time per message handled, less the base's (counters).  o_r is the time of the",
           "# polls that took the replies; o_r_steady, seed 000's reading (steady state - Δ - o_s), is in knobs.csv.",
           "# docs/logp.md", ""]
    table = [["knob", "value", "runs", "param", "desired", "observed", "observed_min", "observed_max"] +
             [c % p for p in PARAMS for c in ("%s", "%s_min", "%s_max")]]

    def row(knob, v, param, want):
        s = per[(knob, v)]
        obs = s[param]
        if knob == "O":
            obs = tuple(x - base["O"] for x in obs)
        n = len(pts[(knob, v)])
        txt.append("%-8g %4d %9s %24s  %8s %8s %8s %9s %8s %8s" % (
            v, n, fmt(want), "%s [%s-%s]" % tuple(fmt(x) for x in obs), fmt(s["o_s"][0]), fmt(s["o_r"][0]),
            fmt(s["g"][0]), fmt(s["G"][0], 3), fmt(s["L"][0]), fmt(s["rtt"][0])))
        table.append([knob, "%g" % v, n, param, fmt(want, 4)] + [fmt(x, 4) for x in obs] +
                     [fmt(x, 4) for p in PARAMS for x in s[p]])

    b = per[("base", 0.0)]
    txt.append("base: o_s %s [%s-%s], o_r %s [%s-%s], g %s [%s-%s], G %s [%s-%s] ns/B, L %s [%s-%s], "
               "rtt %s [%s-%s], INI busy %s [%s-%s] per message; %d runs" % (
                   *(fmt(x) for x in b["o_s"]), *(fmt(x) for x in b["o_r"]), *(fmt(x) for x in b["g"]),
                   *(fmt(x, 3) for x in b["G"]), *(fmt(x) for x in b["L"]), *(fmt(x) for x in b["rtt"]),
                   *(fmt(x) for x in b["O"]), len(base_lines)))
    row("base", 0.0, "o", base["o"])
    for knob, (label, param, field) in KNOBS.items():
        vals = sorted(v for (k, v) in pts if k == knob)
        if not vals:
            continue
        txt += ["", "== %s (%s): %s" % (label, field, param), head]
        for v in vals:
            row(knob, v, param, desired(knob, v, base))
    open(os.path.join(out, "knobs.txt"), "w").write("\n".join(txt) + "\n")
    write_csv(os.path.join(out, "knobs.csv"), table)


def signature(out, pts):
    """Fig. 3 for the base and each knob's largest setting: the median
    interval per (Δ, m) over the runs."""
    panels = [("base", 0.0)] + [(k, max(v for (kk, v) in pts if kk == k)) for k in KNOBS
                                if any(kk == k for (kk, _) in pts)]
    rows = (len(panels) + 2) // 3
    dat, blocks = ["# signature: per panel (knob value) and Δ (us), m and the median average initiation interval (us)"], []
    for knob, v in panels:
        grid = {}
        for line in pts[(knob, v)]:
            for p in line["programs"]["logp.json"].get("signature", []):
                grid.setdefault((p["delta_us"], p["m"]), []).append(p["interval_us"])
        deltas = sorted({d for d, _ in grid})
        for d in deltas:
            dat.append("# %s %g delta %g" % (knob, v, d))
            dat += ["%d %.4f" % (m, median(grid[(dd, m)])) for (dd, m) in sorted(grid) if dd == d]
            dat += ["", ""]
        title = "base" if knob == "base" else "%s = %g (%s)" % (KNOBS[knob][0], v, KNOBS[knob][2])
        blocks.append((title, deltas))
    path = os.path.join(out, "signature.dat")
    open(path, "w").write("\n".join(dat) + "\n")
    gp = ['set terminal pngcairo size 1500,%d font ",10" noenhanced' % (450 * rows),
          'set output "%s"' % os.path.join(out, "signature.png"),
          "set multiplot layout %d,3 title \"LogP signature: average initiation interval against burst size m, "
          "one curve per computational delay Δ (seed 000, Fig. 3)\"" % rows,
          "set logscale xy", "set xlabel \"burst size m (requests)\"", "set ylabel \"us per request\"",
          "set key top left", "set grid"]
    idx = 0
    for title, deltas in blocks:
        plots = []
        for d in deltas:
            plots.append("'%s' index %d with linespoints title 'Δ = %g us'" % (path, idx, d))
            idx += 1
        gp += ['set title "%s"' % title, "plot " + ", ".join(plots)]
    gp.append("unset multiplot")
    gnuplot(gp)


def write_csv(path, rows):
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    open(path, "w").write(buf.getvalue())


def gnuplot(lines):
    try:
        subprocess.run(["gnuplot"], input="\n".join(lines) + "\n", text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        sys.stderr.write("logp.py: no plot (gnuplot: %s)\n" % e)


def overlap(out):
    """Seed 003's section 5.2: o_s and o_r against EEL, per path."""
    rows = {}    # path -> {"eel": [], "o_s": [], "o_r": [], "call": []}

    def add(path, eel, o_s, o_r, call=None):
        r = rows.setdefault(path, {"eel": [], "o_s": [], "o_r": [], "call": []})
        r["eel"].append(eel)
        r["o_s"].append(o_s)
        r["o_r"].append(o_r)
        if call is not None:
            r["call"].append(call)

    sweeps = {"send": [], "recv": []}
    for line in runs.read_reports(out):
        p = line.get("programs") or {}
        if isinstance(p.get("logp.json"), dict):
            d = p["logp.json"]
            s, r = d["overlap_send"], d["overlap_recv"]
            add("compute-to-compute, measuring node's own core: knee", d["eel_us"], s["o_knee_us"], r["o_knee_us"])
            add("compute-to-compute, measuring node's own core: T(D)-D", d["eel_us"], s["o_us"], r["o_us"])
            sweeps["send"].append(s)
            sweeps["recv"].append(r)
        if isinstance(p.get("ini-bench.json"), dict):
            for lay in p["ini-bench.json"].get("layers", []):
                if lay.get("ok"):
                    name = lay["name"] + (", node on its INI's core" if lay["name"] == "compute-to-compute" else "")
                    add("%s: T(1.5g)-1.5g" % name, lay["eel_ns"] / 1e3, lay["o_s_ns"] / 1e3, lay["o_r_ns"] / 1e3,
                        lay["send_call_ns"] / 1e3)
    if not rows:
        runs.die("%s: no run reported" % out)
    txt = ["# seed 003's overlap analysis: send and receive overhead against the end-to-end latency (us),",
           "# medians over the runs [smallest-largest].  EEL = round trip / 2.  'overlap' = EEL - o_s, the time a",
           "# sender could compute while its message travels (seed 003 section 5.2); EEL - (o_s + o_r), what",
           "# is left when every node sends and receives alike.  o_s + o_r > EEL: the LogP assumption that",
           "# EEL = o_s + L + o_r breaks (L would be negative).  How o was read: knee, g - Dmax of the sweep;",
           "# T(D)-D past the knee; T(1.5g)-1.5g, ini-bench's one computation, where a send completes when the",
           "# peer's credit (the reliable layer: its ACK) is back, so that its o_s includes taking it.  'send",
           "# call': ini-bench's time inside the send call (and flush) at queue depth 1.  docs/logp.md", "",
           "%-64s %4s %19s %19s %19s %9s %6s %9s %9s %9s" % ("path: how o was read", "runs", "EEL", "o_s", "o_r",
                                                              "o_s+o_r", ">EEL?", "EEL-o_s", "EEL-o_s-o_r",
                                                              "send call")]
    table = [["path", "runs", "eel", "eel_min", "eel_max", "o_s", "o_s_min", "o_s_max", "o_r", "o_r_min", "o_r_max",
              "o_sum", "exceeds_eel", "overlap", "overlap_both", "send_call"]]
    for path, r in rows.items():
        e, s, o = stat(r["eel"]), stat(r["o_s"]), stat(r["o_r"])
        osum = s[0] + o[0]
        exc = "yes" if osum > e[0] else "no"
        three = lambda x: "%s [%s-%s]" % tuple(fmt(y) for y in x)   # noqa: E731
        call = median(r["call"])
        txt.append("%-64s %4d %19s %19s %19s %9s %6s %9s %9s %9s" % (
            path, len(r["eel"]), three(e), three(s), three(o), fmt(osum), exc, fmt(e[0] - s[0]), fmt(e[0] - osum),
            fmt(call)))
        table.append([path, len(r["eel"])] + [fmt(x, 4) for x in e + s + o] +
                     [fmt(osum, 4), exc, fmt(e[0] - s[0], 4), fmt(e[0] - osum, 4), fmt(call, 4)])
    open(os.path.join(out, "overlap.txt"), "w").write("\n".join(txt) + "\n")
    write_csv(os.path.join(out, "overlap.csv"), table)
    if sweeps["send"]:
        overlap_sweep(out, sweeps)


def overlap_sweep(out, sweeps):
    """T(D) against D for each side, the medians of the k-th points (D is
    k g / 8 with each run's own g)."""
    path = os.path.join(out, "overlap-sweep.dat")
    dat = ["# seed 003's CPU overlap test, compute node to compute node: per side, D (us) and the time per message T(D) (us),",
           "# medians over the runs of the k-th point, D = k g / 8"]
    for side in ("send", "recv"):
        dat.append("# %s" % side)
        k_n = len(sweeps[side][0]["d_us"])
        for k in range(k_n):
            dat.append("%.4f %.4f" % (median([s["d_us"][k] for s in sweeps[side]]),
                                      median([s["t_us"][k] for s in sweeps[side]])))
        dat += ["", ""]
    open(path, "w").write("\n".join(dat) + "\n")
    gnuplot(['set terminal pngcairo size 900,600 font ",10" noenhanced', 'set output "%s"' % os.path.join(out, "overlap-sweep.png"),
             'set title "CPU overlap test (seed 003, 4.3): time per message against computation inserted per message"',
             'set xlabel "computation D per message (us)"', 'set ylabel "time per message T(D) (us)"', "set key top left",
             "set grid", "plot '%s' index 0 with linespoints title 'sending: D after each ini_send', "
             "'%s' index 1 with linespoints title 'receiving: D in each handler', x with lines dt 2 title 'T = D'"
             % (path, path)])


def main(argv):
    if len(argv) != 3 or argv[1] not in ("knobs", "overlap"):
        sys.stderr.write("usage: logp.py knobs|overlap OUT\n")
        return 2
    out = argv[2]
    if not os.path.exists(os.path.join(out, "runs.tsv")):
        runs.die("%s: no runs.tsv" % out)
    if argv[1] == "knobs":
        pts = points_of(out)
        knobs_tables(out, pts)
        signature(out, pts)
    else:
        overlap(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
