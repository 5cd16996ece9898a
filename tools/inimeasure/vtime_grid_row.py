"""vtime_grid_row - one row of tools/thesis/vtime_grid.sh: vtime_row's
figures of the run (virtual cycles, host seconds, messages, the INIs' busy
share, the answer) and, from the run's `ini-trace report --format json`,
the machine's utilization, queue at arrival, time-average queue and the
misrouting count and time rates over all clusters (misrouting_all; NA
with one INI a cluster, where nothing can be misrouted).  The report is
appended, with the cell, as one line of REPORTS (reports.jsonl).

    PYTHONPATH=tools python3 -m inimeasure.vtime_grid_row RUN_DIR OUTPUT RC T0 T1 \
        "COSTS COMPUTE K TAG NODES C P I REP LOAD" COMMIT REPORT_JSON REPORTS
"""
import json
import sys

from inimeasure import dier
from inimeasure import vtime_row

die = dier("vtime_grid_row")


def report_fields(path):
    """(the report as a dict or None, [utilization, queue at arrival,
    queue, count rate, time rate] as strings, NA where absent)."""
    try:
        rep = json.load(open(path))
    except (OSError, ValueError):
        return None, ["NA"] * 5
    m = rep.get("machine", {})
    mis = rep.get("misrouting_all") or {}

    def num(d, k, fmt):
        v = d.get(k)
        return fmt % v if isinstance(v, (int, float)) else "NA"
    return rep, [num(m, "utilization", "%.4f"), num(m, "queue_at_arrival", "%.4f"), num(m, "queue_len", "%.4f"),
                 num(mis, "mis_sched_count_rate", "%.4f"), num(mis, "mis_sched_time_rate", "%.4f")]


def main():
    if len(sys.argv) != 10:
        die("usage: RUN_DIR OUTPUT RC T0 T1 'COSTS COMPUTE K TAG NODES C P I REP LOAD' COMMIT REPORT_JSON REPORTS")
    run_dir, out, rc, t0, t1, cell, commit, rjson, reports = sys.argv[1:10]
    words = cell.split()
    if len(words) != 10:
        die("the cell: expected 10 words (COSTS COMPUTE K TAG NODES C P I REP LOAD), got %d" % len(words))
    head, tail = words[:4], words[4:]
    base = vtime_row.row(run_dir, out, rc, t0, t1, " ".join(tail), commit)
    rep, extra = report_fields(rjson)
    print("\t".join(head + [base] + extra))
    if rep is not None:
        keys = ("costs", "compute", "k", "tag", "nodes", "clusters", "pes", "inis", "rep", "load")
        line = dict(zip(keys, words))
        line["run"] = run_dir.rsplit("/", 1)[-1]
        line["report"] = rep
        with open(reports, "a") as f:
            f.write(json.dumps(line, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
