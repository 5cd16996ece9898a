"""replay_check.py - predictions of `ini-trace whatif` from traced 1-INI
runs, against a measured grid (docs/results/thesis): the table of
tools/trace/replay_check.sh (docs/traces.md, "Checked against real runs").

    replay_check.py --traces DIR --grid DIR --out DIR [--targets K:POLICY,...] [--ini-trace PATH]

--traces holds one directory per traced run, named as runs.sh's
RUNS_KEEP names them (cP-i1-static-rREP: cluster size P, repetition);
each is replayed for every target (K INIs per cluster, K <= P, with a
policy; default: 1, 2, 4, 8 INIs, static, round-robin and load-aware),
by `ini-trace whatif RUN --inis-per-cluster K --policy POLICY --format
json`.  --grid is an experiment directory in runs.sh's layout (runs.tsv,
reports.jsonl) whose cells are named cP-iK-POLICY.

Writes OUT/predictions.tsv (one row per replay) and OUT/replay-check.txt
and .csv: per cell and quantity (utilization, message time, time-averaged
queue, queue at arrival, misrouting count rate, run time) the predicted
median [min-max] over the traced runs, the measured median [min-max] of
the grid, and the error of the medians; utilization and message time are
called within tolerance at 10%, run time at 15% (issue 31's test).  A
last row per cell, "run time, scaled", shows each replay's run time
relative to its own traced run, times the grid's 1-INI median: how much
of a run-time miss comes from the traced runs being slower or faster
than the grid's own (a loaded machine), not from the replay.  Exit
status 0, 1 when a replay fails, 2 on bad arguments.
"""
import csv
import json
import os
import re
import statistics
import subprocess
import sys

if not __package__:
    sys.exit("replay_check.py: run it as `PYTHONPATH=tools python3 -m inimeasure.replay_check` from the repository's root")
from inimeasure import runs  # noqa: E402  (runs.py: the layout's reader)
from inimeasure import dier  # noqa: E402

QUANTITIES = [  # name, from a report's JSON, unit scale, tolerance (None: shown only)
    ("utilization", lambda r: r["machine"]["utilization"], 1, 0.10),
    ("msg time (us)", lambda r: r["machine"]["msg_ns"] / 1e3, 1, 0.10),
    ("queue", lambda r: r["machine"]["queue_len"], 1, None),
    ("queue at arrival", lambda r: r["machine"]["queue_at_arrival"], 1, None),
    ("misrouted (count, %)", lambda r: r["misrouting_all"].get("mis_sched_count_rate"), 100, None),
]
RUNTIME_TOL = 0.15
POLICIES = ["static", "round-robin", "load-aware"]


die = dier("replay_check.py")


def med_range(v):
    v = [x for x in v if x is not None]
    if not v:
        return None
    return statistics.median(v), min(v), max(v)


def replay(ini_trace, run, k, policy):
    r = subprocess.run([ini_trace, "whatif", run, "--inis-per-cluster", str(k), "--policy", policy,
                        "--format", "json"], capture_output=True, text=True)
    if r.returncode != 0:
        die("%s: whatif --inis-per-cluster %d --policy %s: %s" % (run, k, policy, r.stderr.strip()), 1)
    return json.loads(r.stdout)


def grid_cells(grid):
    """cell -> {"reports": [report...], "runtime": [s...]} of the grid's ok runs."""
    cells = {}
    for row in runs.read_runs(grid):
        if row.get("status") == "ok" and row.get("runtime_s"):
            cells.setdefault(row["cell"], {"reports": [], "runtime": []})["runtime"].append(float(row["runtime_s"]))
    for line in runs.read_reports(grid):
        if "calibration" not in line and line.get("report"):
            cells.setdefault(line["cell"], {"reports": [], "runtime": []})["reports"].append(line["report"])
    return cells


def fmt(t, scale):
    if t is None:
        return "-"
    return "%.3g [%.3g-%.3g]" % (t[0] * scale, t[1] * scale, t[2] * scale)


def main(argv):
    args = {"--targets": None, "--ini-trace": None}
    i = 1
    while i < len(argv):
        if argv[i] in ("-h", "--help"):
            print(__doc__)
            return 0
        if argv[i] not in ("--traces", "--grid", "--out", "--targets", "--ini-trace") or i + 1 >= len(argv):
            die("%s: unknown option or missing value" % argv[i])
        args[argv[i]] = argv[i + 1]
        i += 2
    for k in ("--traces", "--grid", "--out"):
        if not args.get(k):
            die("%s is required" % k)
    ini_trace = args["--ini-trace"] or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                      "../../build/bin/ini-trace")
    targets = []
    for t in (args["--targets"] or ",".join("%d:%s" % (k, p) for k in (1, 2, 4, 8) for p in POLICIES)).split(","):
        m = re.fullmatch(r"(\d+):(static|round-robin|load-aware)", t)
        if not m:
            die("--targets: '%s' is not K:POLICY" % t)
        targets.append((int(m.group(1)), m.group(2)))
    dirs = sorted(d for d in os.listdir(args["--traces"]) if re.fullmatch(r"c\d+-i1-static-r\d+", d))
    if not dirs:
        die("%s: no traced runs (cP-i1-static-rREP)" % args["--traces"])
    grid = grid_cells(args["--grid"])
    os.makedirs(args["--out"], exist_ok=True)
    pred = {}        # cell -> {"q": [[values per run]...], "runtime": [...]}
    with open(os.path.join(args["--out"], "predictions.tsv"), "w") as out:
        out.write("run\tcell\tinis\tpolicy\t" + "\t".join(q[0] for q in QUANTITIES) + "\truntime_s\tmeasured_runtime_s\n")
        for d in dirs:
            size = int(re.match(r"c(\d+)-", d).group(1))
            for k, policy in targets:
                if k > size:
                    continue
                j = replay(ini_trace, os.path.join(args["--traces"], d), k, policy)
                cell = "c%d-i%d-%s" % (size, k, policy)
                vals = [q[1](j["report"]) for q in QUANTITIES]
                rt = j["whatif"].get("predicted_run_time_s")
                p = pred.setdefault(cell, {"q": [[] for _ in QUANTITIES], "runtime": [], "measured": []})
                for n, v in enumerate(vals):
                    p["q"][n].append(v)
                p["runtime"].append(rt)
                p["measured"].append(j["whatif"].get("run_time_s"))
                out.write("%s\t%s\t%d\t%s\t%s\t%s\t%s\n" % (d, cell, k, policy,
                          "\t".join("" if v is None else "%.6g" % v for v in vals),
                          "" if rt is None else "%.4f" % rt, j["whatif"].get("run_time_s") or ""))
    write_table(args["--out"], pred, grid, len(dirs))
    return 0


def error(p, m):
    return None if p is None or m is None or m[0] == 0 else p[0] / m[0] - 1


def write_table(out, pred, grid, n_runs):
    rows, within, judged = [], 0, 0
    for cell in sorted(pred, key=lambda c: [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", c)]):
        g = grid.get(cell, {"reports": [], "runtime": []})
        ok_all, any_judged = True, False
        for n, (name, get, scale, tol) in enumerate(QUANTITIES):
            p = med_range(pred[cell]["q"][n])
            m = med_range([get(r) for r in g["reports"]])
            e = error(p, m)
            ok = None if tol is None or e is None else abs(e) <= tol
            if ok is not None:
                any_judged = True
                ok_all &= ok
            rows.append((cell, name, fmt(p, scale), fmt(m, scale), e, ok))
        p, m = med_range(pred[cell]["runtime"]), med_range(g["runtime"])
        e = error(p, m)
        ok = None if e is None else abs(e) <= RUNTIME_TOL
        if ok is not None:
            any_judged = True
            ok_all &= ok
        rows.append((cell, "run time (s)", fmt(p, 1), fmt(m, 1), e, ok))
        # the same, relative: each replay's run time over its own run's
        # measured one, times the grid's 1-INI median of its size (removes
        # how far the traced runs themselves were from the grid's)
        base = med_range(grid.get(re.sub(r"-i\d+-.*", "-i1-static", cell), {"runtime": []})["runtime"])
        rel = [a / b * base[0] for a, b in zip(pred[cell]["runtime"], pred[cell]["measured"]) if a and b] if base else []
        p2 = med_range(rel)
        rows.append((cell, "run time, scaled (s)", fmt(p2, 1), fmt(m, 1), error(p2, m), None))
        if any_judged:
            judged += 1
            within += ok_all
    # the csv module quotes what needs it ("misrouted (count, %)" holds a comma)
    with open(os.path.join(out, "replay-check.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(("cell", "quantity", "predicted", "measured", "error", "within"))
        for r in rows:
            w.writerow((r[0], r[1], r[2], r[3], "" if r[4] is None else "%.4f" % r[4],
                        "" if r[5] is None else ("yes" if r[5] else "no")))
    with open(os.path.join(out, "replay-check.txt"), "w") as f:
        f.write("Predictions of ini-trace whatif from %d traced 1-INI run(s), against the measured grid: median "
                "[min-max]; error of the medians; tolerance: utilization and message time 10%%, run time 15%%\n"
                % n_runs)
        f.write("%-22s %-18s %-28s %-28s %8s %7s\n" % ("cell", "quantity", "predicted", "measured", "error", "within"))
        for r in rows:
            f.write("%-22s %-18s %-28s %-28s %8s %7s\n" % (r[0], r[1], r[2], r[3],
                    "-" if r[4] is None else "%+.1f%%" % (100 * r[4]), "" if r[5] is None else ("yes" if r[5] else "NO")))
        f.write("%d of %d cells within tolerance on utilization, message time and run time at once.\n"
                % (within, judged))
    sys.stdout.write(open(os.path.join(out, "replay-check.txt")).read())


if __name__ == "__main__":
    sys.exit(main(sys.argv))
