"""vtime_grid_whatif - `ini-trace whatif`'s predictions of the virtual Water
grid's multi-INI cells from its one-INI runs, and their judgement
(docs/results/vtime-grid-whatif; docs/whatif.md, "Virtual Water").

    PYTHONPATH=tools python3 -m inimeasure.vtime_grid_whatif predict DIR COSTS
    PYTHONPATH=tools python3 -m inimeasure.vtime_grid_whatif judge DIR COSTS TOL

predict: for each one-INI run DIR/runs/COSTS-declared-cP-i1-r1 (made by
tools/thesis/vtime_grid.sh) replays it with I = 1 (as it ran) and every
I = 2, 4, 8 up to P INIs a cluster, keeps each replay's JSON as a line of
DIR/whatif.jsonl (its "replay" field naming it, cP-i1-to-iI; until the
results were tidied, a file DIR/whatif/cP-i1-to-iI.json each) and prints
one row a cell: the one-INI run's
cycles, the replay's span as it ran and with I, and two predictions of the
cell's cycles, `raw` (the replay's span, in cycles: what whatif says) and
`scaled` (the one-INI run's cycles x replay(I) / replay(1): the replay's
own error as it ran taken out).

judge: the predictions (DIR/predictions.tsv, predict's rows) against
DIR/runs.tsv's first run of each cell: per cell and estimator the error,
held when within TOL (a fraction); the null (the one-INI run's cycles as
the prediction) and its error beside it; the gain (T(P,1) - T(P,I))
predicted over measured.
"""
import csv
import json
import os
import subprocess
import sys

if not __package__:
    sys.exit("vtime_grid_whatif.py: run it as `PYTHONPATH=tools python3 -m inimeasure.vtime_grid_whatif` "
             "from the repository's root")
from inimeasure import dier  # noqa: E402

die = dier("vtime_grid_whatif")
HZ = 20e6     # the emulated machine's clock (the thesis costs' and the stack set's)


def replay(run, inis, out, name):
    """The replay's span (s) of run with `inis` INIs a cluster, its JSON
    (with "replay": name first) a line appended to the list out."""
    r = subprocess.run(["build/bin/ini-trace", "whatif", run, "--inis-per-cluster", str(inis), "--format", "json"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        die("whatif %s --inis-per-cluster %d: %s" % (run, inis, r.stderr.strip().splitlines()[-1:]))
    j = json.loads(r.stdout)
    out.append(json.dumps(dict(replay=name, **j)) + "\n")
    return j["whatif"]["replay_span_s"]


def cycles_of(run_out):
    """The virtual cycles the run printed ('virtual time: N cycles')."""
    for line in open(run_out):
        if line.startswith("virtual time: "):
            return int(line.split()[2])
    die("%s: no 'virtual time:' line" % run_out)


def predict(d, costs):
    out = []      # written once every replay is made: a failed one leaves the old file
    predict_cells(d, costs, out)
    with open(os.path.join(d, "whatif.jsonl"), "w") as f:
        f.writelines(out)


def predict_cells(d, costs, out):
    print("P\tI\tT1_cycles\treplay_as_run_s\treplay_s\traw_cycles\tscaled_cycles")
    for p in (2, 4, 8):
        run = os.path.join(d, "runs", "%s-declared-c%d-i1-r1" % (costs, p))
        if not os.path.isdir(run):
            die("%s: no one-INI run of cell %d:1 (tools/thesis/vtime_grid.sh --cells %d:1)" % (run, p, p))
        t1 = cycles_of(run + ".out")
        as_run = replay(run, 1, out, "c%d-i1-to-i1" % p)
        for i in (2, 4, 8):
            if i > p:
                continue
            s = replay(run, i, out, "c%d-i1-to-i%d" % (p, i))
            print("%d\t%d\t%d\t%.6f\t%.6f\t%.0f\t%.0f" % (p, i, t1, as_run, s, s * HZ, t1 * s / as_run))


def measured(d, costs):
    """{(P, I): cycles} of runs.tsv's first run (rep 1, no tag) of each cell."""
    out = {}
    for r in csv.DictReader(open(os.path.join(d, "runs.tsv")), delimiter="\t"):
        if r["costs"] == costs and r["compute"] == "declared" and r["tag"] == "-" and r["rep"] == "1":
            out[(int(r["pes"]), int(r["inis"]))] = int(r["cycles"])
    return out


def judge(d, costs, tol):
    runs = measured(d, costs)
    print("P\tI\testimator\tpredicted\tmeasured\terror_pct\tverdict\tnull_error_pct\tbeats_null\tgain_pred_over_meas")
    for r in csv.DictReader(open(os.path.join(d, "predictions.tsv")), delimiter="\t"):
        p, i, t1 = int(r["P"]), int(r["I"]), int(r["T1_cycles"])
        m = runs.get((p, i))
        if m is None:
            die("runs.tsv: no run of cell %d:%d" % (p, i))
        for est in ("raw", "scaled"):
            pred = float(r[est + "_cycles"])
            err, nerr = pred / m - 1, t1 / m - 1
            gain = (t1 - pred) / (t1 - m) if t1 != m else float("nan")
            print("%d\t%d\t%s\t%.0f\t%d\t%+.2f\t%s\t%+.2f\t%s\t%.2f" % (
                p, i, est, pred, m, 100 * err, "held" if abs(err) <= tol else "failed", 100 * nerr,
                "yes" if abs(err) < abs(nerr) else "no", gain))


def main():
    a = sys.argv[1:]
    if len(a) < 3 or a[0] not in ("predict", "judge") or (a[0] == "judge") != (len(a) == 4):
        die("usage: predict DIR COSTS | judge DIR COSTS TOL")
    if a[2] not in ("thesis", "stack"):
        die("COSTS: expected thesis or stack, got '%s'" % a[2])
    if not os.path.isdir(a[1]):
        die("DIR: %s is not a directory" % a[1])
    if a[0] == "predict":
        predict(a[1], a[2])
        return
    try:
        tol = float(a[3])
    except ValueError:
        tol = -1
    if not 0 < tol < 1:
        die("TOL: expected a fraction in (0, 1), got '%s'" % a[3])
    judge(a[1], a[2], tol)


if __name__ == "__main__":
    main()
