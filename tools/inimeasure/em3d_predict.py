"""em3d_predict.py - the chapter-6 model's time per edge beside the
measured one, for each point of an EM3D curve (tools/thesis/em3d.sh,
docs/em3d.md), as tools/inimeasure/water_model.py does for Water.

    em3d_predict.py OUT [--o-us US] [--ini-model PATH]

Per point (version, layout, INIs per cluster, policy, share of
inter-cluster edges), from the medians over its repetitions:

  N   = compute nodes per cluster / INIs per cluster
  c   = the model's request/reply cycles per compute node: the INIs'
        messages out / 2 / compute nodes.  Exact for get (a request and
        its answer) and the MGS versions (a fetch and its data); put and
        bulk send one way only, so two of their messages count as one
        cycle: an approximation, said in the table's note.
  O   = the INIs' service per message (the report's service_ns, else busy
        time over passes: water_model.run_figures)
  o   = the compute node's handler time per message (--o-us, default 10)
  W   = T0 / c - 2 o, T0 the median run time of the same version, INIs
        and policy at share 0 (the same compute, no inter-cluster values);
        a negative W (T0 / c < 2 o) is solved at 0, one warning line on
        stderr per point naming it, W, T0, c and 2o (water_model.fitted_w)
  predicted time = c x R (R: the model's cycle time, mva), over the edges
  a compute node processes (steps x nodes x degree: em3d's RESULT line).

Beside it, with em3d.sh --replay, the replay's prediction: the 1-INI
runs of the same point (every version since stop 40, Simple and Ghost
before; with one INI the policy chooses nothing, so they ran under one
policy) replayed by ini-trace whatif at
this INI count and policy, each run's time per edge scaled by its
replayed over measured program span, the median.

And em3d-replay: per version and INI count, the model's and the
replay's errors over the points, with the INIs' CPU time per message
pass beside (what the replay from one INI keeps).

The sqrt test's points (em3d.sh's sqrt part) the same way, into
em3d-predict-sqrt: N = c / INIs, T0 from the point's twin without
inter-cluster edges (exp sqrt0: inter 0, the same intra-cluster share),
the replay from the 1-INI run of the same cluster size at sqrt(c) INIs.

Writes OUT/em3d-predict.txt and .csv (and em3d-replay's, for a run with
replays) and em3d-predict-sqrt's; a point without a share-0 twin or
without messages is left out.  Exit status 0, 1 when nothing could be
predicted, 2 on bad arguments.
"""
import statistics
import sys

if not __package__:
    sys.exit("em3d_predict.py: run it as `PYTHONPATH=tools python3 -m inimeasure.em3d_predict` from the repository's root")
from inimeasure import em3d_tables as tables  # noqa: E402
from inimeasure import ini_model as model  # noqa: E402
from inimeasure import water_model  # noqa: E402  (run_figures, solve)
from inimeasure import dier  # noqa: E402


ORDER = ["simple", "ghost", "get", "put", "bulk"]


die = dier("em3d_predict.py")


TWIN = {"curve": "curve", "sqrt": "sqrt0"}   # a part -> where its points' share-0 twins are


def points(out):
    """(exp, variant, clusters, pes, inis, policy, inter, intra) -> list of
    per-run figures."""
    runs, reports = tables.load(out)
    pts = {}
    for run in runs:
        if run["exp"] not in ("curve", "sqrt", "sqrt0") or run["status"] != "ok" or not run["runtime_s"]:
            continue
        rep = reports.get(tables.key(run) + (run["rep"],)) or {}
        prog = (rep.get("programs") or {}).get("em3d.json") or {}
        fig = water_model.run_figures("%s rep %s" % (run["variant"], run["rep"]), rep.get("report")) \
            if rep.get("report") else None
        if not prog:
            continue
        edges = int(prog["steps"]) * int(prog["nodes"]) * int(prog["degree"])
        k = (run["exp"], run["variant"], int(run["clusters"]), int(run["pes"]), int(run["inis"]), run["policy"],
             float(run["inter"]), float(run["intra"]))
        pts.setdefault(k, []).append({"time_s": float(run["runtime_s"]), "edges": edges, "fig": fig,
                                      "upe": float(prog["us_per_edge"]),
                                      "replay": replay_fields(rep),
                                      "cpu": float(rep["ini_cpu_ns_per_pass"]) if "ini_cpu_ns_per_pass" in rep else None})
    return pts


def replay_fields(rep):
    """A run's replay figures, (policy, INIs) -> replayed / measured span,
    from its fields replay_POLICY_iN (em3d.sh --replay), and ("as_run", 1)
    from replay_as_run: replayed as it ran."""
    r = {}
    for f, v in rep.items():
        if f == "replay_as_run":
            r[("as_run", 1)] = float(v)
        pol, sep, n = f[len("replay_"):].rpartition("_i") if f.startswith("replay_") else ("", "", "")
        if pol and sep and n.isdigit():
            r[(pol, int(n))] = float(v)
    return r


def one_ini_point(pts, k):
    """The runs of point k's 1-INI point, whichever policy it ran under."""
    for k1, v in pts.items():
        if k1[:5] == k[:4] + (1,) and k1[6:] == k[6:]:
            return v
    return None


def replay_pred(one_ini_runs, inis, pol):
    """The replay's time per edge at `inis` INIs under `pol`: each 1-INI
    run's time per edge scaled by its replayed / measured program span
    (em3d.sh --replay), the median; at one INI the run replayed as it
    ran.  None when there is none."""
    key = ("as_run", 1) if inis == 1 else (pol, inis)
    v = [r["upe"] * r["replay"][key] for r in one_ini_runs or [] if key in r["replay"]]
    return statistics.median(v) if v else None


def rel(pred, meas):
    return (pred - meas) / meas if meas else 0


def predict(pts, part, o_us, bin, errs):
    """The table's rows for a part (curve, sqrt); errs gets (variant,
    inis, policy, model error, replay error or None) per row."""
    rows = []
    for k in sorted(pts):
        exp, variant, clusters, pes, inis, pol, inter, intra = k
        twin = pts.get((TWIN[part], variant, clusters, pes, inis, pol, 0.0, intra))
        figs = [r["fig"] for r in pts[k] if r["fig"]]
        if exp != part or inter == 0 or not twin or not figs:
            continue
        t0 = statistics.median(r["time_s"] for r in twin)
        c = statistics.median(f["msgs"] for f in figs) / 2.0 / (clusters * pes)
        O = statistics.median(f["O_us"] for f in figs)
        if c <= 0:
            continue
        n = max(1, round(pes / inis))
        what = "%s %s %dx%d %d INIs %s inter %g" % (part, variant, clusters, pes, inis, pol, inter)
        W, W_model = water_model.fitted_w("em3d_predict.py", what, t0, c, o_us)
        p = water_model.solve(bin, "mva", n, W_model, o_us, O)
        edges = pts[k][0]["edges"]
        meas = statistics.median(r["upe"] for r in pts[k])
        pred = c * p["R"] / edges
        rp = replay_pred(one_ini_point(pts, k), inis, pol)
        errs.append((variant, inis, pol, rel(pred, meas), None if rp is None else rel(rp, meas)))
        where = ["%dx%d" % (clusters, pes), inis, pol, inter] if part == "curve" else [pes, inis, pol, inter, intra]
        rows.append([variant, *where, len(pts[k]), "%.1f" % c, "%.1f" % W,
                     "%.1f" % O, "%.3f" % meas, "%.3f" % pred, "%+.2f" % rel(pred, meas),
                     "-" if rp is None else "%.3f (%+.2f)" % (rp, rel(rp, meas)),
                     "%.3f" % statistics.median(f["utilization"] for f in figs), "%.3f" % p["U_o"]])
        if part == "sqrt":      # what the replay from one INI keeps: the INIs' CPU per pass, and its growth
            rows[-1].append(cpu_growth(pts[k], one_ini_point(pts, k)))
    return rows


def cpu_growth(runs, one_ini_runs):
    """The INIs' CPU time per message pass (median over the runs) and
    its ratio to the 1-INI point's, "-" without the figures."""
    c = [r["cpu"] for r in runs if r["cpu"]]
    c1 = [r["cpu"] for r in one_ini_runs or [] if r["cpu"]]
    if not c:
        return "-"
    c, c1 = statistics.median(c), (statistics.median(c1) if c1 else None)
    return "%.0f (x%.2f)" % (c, c / c1) if c1 else "%.0f" % c


def spread(v):
    v = sorted(v)
    return "%+.2f [%+.2f, %+.2f]" % (statistics.median(v), v[0], v[-1]) if v else "-"


def replay_summary(out, pts, errs):
    """em3d-replay: per version, INI count and policy, the errors of the
    model and the replay over the points (every share but 0), and the
    INIs' CPU time per message pass (em3d.sh's ini_cpu_ns_per_pass) that
    the replay from one INI keeps: written only for a run with replays."""
    rows = []
    policies = ["static", "round-robin", "load-aware"]
    for variant, inis, pol in sorted({e[:3] for e in errs}, key=lambda x: (
            ORDER.index(x[0]) if x[0] in ORDER else len(ORDER), x[1],
            policies.index(x[2]) if x[2] in policies else len(policies))):
        mine = [e for e in errs if e[:3] == (variant, inis, pol)]
        rp = [e[4] for e in mine if e[4] is not None]
        if not rp:
            continue
        cpu = [r["cpu"] for k, v in pts.items() if k[:2] == ("curve", variant) and k[4] == inis and k[5] == pol
               and k[6] > 0 for r in v if r["cpu"]]
        cpu1 = [r["cpu"] for k, v in pts.items() if k[:2] == ("curve", variant) and k[4] == 1 and k[6] > 0
                for r in v if r["cpu"]]
        c, c1 = (statistics.median(cpu) if cpu else None), (statistics.median(cpu1) if cpu1 else None)
        rows.append([variant, inis, pol, len(mine), len(rp), spread([e[3] for e in mine]), spread(rp),
                     "%.0f" % c if c else "-", "%.2f" % (c / c1) if c and c1 else "-"])
    if not rows:
        return
    tables.write(out, "em3d-replay", ["version", "inis", "policy", "points", "replayed", "model err", "replay err",
                                      "INI CPU ns/pass", "x 1 INI"], rows,
                 "EM3D: the errors of the chapter-6 model and of the replay over the curve's points (shares above "
                 "0): median [min, max] of (predicted - measured) / measured, time per edge; the replay "
                 "at 1 INI is the run replayed as it ran.  INI CPU ns/pass: the INIs' CPU time per message pass "
                 "(the dilation's count; median over the runs), which the replay from one INI keeps at its 1-INI "
                 "value, and its ratio to that.")


def main(argv):
    args = argv[1:]
    if not args or args[0].startswith("-"):
        die("usage: em3d_predict.py OUT [--o-us US] [--ini-model PATH]")
    out, o_us, bin = args.pop(0), 10.0, model.BIN
    while args:
        flag, val = args.pop(0), (args.pop(0) if args else die("a flag needs a value"))
        if flag == "--o-us":
            try:
                o_us = float(val)
            except ValueError:
                die("--o-us: '%s' is not a number" % val)
        elif flag == "--ini-model":
            bin = val
        else:
            die("unknown option %s" % flag)
    pts = points(out)
    errs, sqrt_errs = [], []
    rows = predict(pts, "curve", o_us, bin, errs)
    sqrt_rows = predict(pts, "sqrt", o_us, bin, sqrt_errs)
    if not rows and not sqrt_rows:
        die("%s: no curve or sqrt point with a share-0 twin and messages" % out, 1)
    note = ("c = INI messages out / 2 / nodes (put and bulk: one-way messages counted in pairs); "
            "W = T0 / c - 2 o, T0 the %s of the same version, INIs and policy; o = %g us.  replay: the "
            "1-INI runs' time per edge x their replayed / measured span at this INI count, at 1 INI replayed as it ran "
            "(em3d.sh --replay; %s).")
    if rows:
        tables.write(out, "em3d-predict", ["version", "layout", "inis", "policy", "inter", "runs", "c", "W (us)",
                                           "O (us)", "us/edge", "model", "err", "replay (err)", "INI util",
                                           "model util"], rows,
                     "EM3D: the chapter-6 model (ini-model, mva) beside the measured time per edge (medians).  " +
                     note % ("share-0 run", o_us, replayed_versions(pts, "curve")))
        replay_summary(out, pts, errs)
    if sqrt_rows:
        tables.write(out, "em3d-predict-sqrt", ["version", "clu size", "inis", "policy", "inter", "intra", "runs", "c",
                                                "W (us)", "O (us)", "us/edge", "model", "err", "replay (err)",
                                                "INI util", "model util", "INI CPU ns/pass"], sqrt_rows,
                     "EM3D's sqrt test (2 clusters of c compute nodes): the chapter-6 model (ini-model, mva) beside "
                     "the measured time per edge (medians), N = c / INIs compute nodes per INI.  INI CPU ns/pass: "
                     "the INIs' CPU time per message pass (median over the runs; the 1-INI runs trace in detail) "
                     "and its ratio to the 1-INI point's, which the replay keeps.  " +
                     note % ("twin without inter-cluster edges (sqrt0: inter 0, the same intra)", o_us,
                             replayed_versions(pts, "sqrt")))


def replayed_versions(pts, part):
    """The versions of a part that have replays, named for a caption."""
    v = sorted({k[1] for k, r in pts.items() if k[0] == part and any(x["replay"] for x in r)},
               key=lambda v: ORDER.index(v) if v in ORDER else len(ORDER))
    named = ", ".join(v[:-1]) + " and " + v[-1] if len(v) > 1 else "".join(v)
    return named + " only" if named else "no run replayed"


if __name__ == "__main__":
    main(sys.argv)
