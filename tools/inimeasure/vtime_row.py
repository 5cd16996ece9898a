"""vtime_row - one row of a virtual-time Water run (tools/thesis/vtime_water.sh):
its virtual time, turns, the host's seconds, MGS's inter-cluster messages,
each INI's utilization (busy cycles over the run's cycles, vtime.json) and
whether every cluster printed the right answer.

    PYTHONPATH=tools python3 -m inimeasure.vtime_row RUN_DIR OUTPUT RC T0 T1 "NODES C P I REP LOAD" COMMIT
"""
import json
import re
import sys

from inimeasure import dier

die = dier("vtime_row")
ANSWER = "XTT = 10.0245"     # Water, 343 molecules, 2 steps (the threads run's)


def ini_utilization(vt):
    """Mean and max busy/cycles over the INIs (slots named 'ini N')."""
    cycles = vt["cycles"]
    if cycles <= 0:
        die("vtime.json: a run of %d cycles" % cycles)
    u = [s["busy"] / cycles for s in vt["slots"] if s["name"].startswith("ini ")]
    if not u:
        die("vtime.json: no INI among its processors")
    return sum(u) / len(u), max(u)


def messages(text):
    """MGS's machine line: inter-cluster messages and their average bytes."""
    m = re.search(r"mgs machine \(\d+ clusters\): (\d+) inter-cluster msgs, \d+ B, average message (\d+) B", text)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def row(run_dir, out_path, rc, t0, t1, cell, commit):
    try:
        text = open(out_path, errors="replace").read()
        vt = json.load(open(run_dir + "/vtime.json"))
    except (OSError, ValueError) as e:
        return "\t".join(cell.split() + ["NA"] * 9 + ["0", "rc=%s %s" % (rc, e), commit])
    mean, peak = ini_utilization(vt)
    msgs, avg = messages(text)
    clusters = int(cell.split()[1])
    ok = int(rc == "0" and text.count(ANSWER) == clusters)
    fields = cell.split() + [str(vt["cycles"]), "%.3f" % (vt["cycles"] / 1e6), str(vt["events"]),
                             str(vt["handovers"]), "%.2f" % (float(t1) - float(t0)), str(msgs), str(avg),
                             "%.4f" % mean, "%.4f" % peak, str(ok), commit]
    return "\t".join(fields)


def main():
    if len(sys.argv) != 8:
        die("usage: RUN_DIR OUTPUT RC T0 T1 'NODES C P I REP LOAD' COMMIT")
    print(row(*sys.argv[1:8]))


if __name__ == "__main__":
    main()
