"""cpu_share.py - what the INI daemons take from the compute threads.

On this machine the INIs are processes sharing the compute nodes' cores,
not processors of their own as in the thesis.  experiments.sh records each
run's CPU time (runs.tsv's cpu_user_s and cpu_sys_s: user and system
seconds of the launcher, the daemons and Water) beside its run time
(runtime_s).  For every cell this prints, as medians over the repetitions:

  cpu s        CPU time of the whole run
  extra cpu s  that minus the no-INI run's of the same cluster size: the
               daemons' work, wake-ups and sleeps (the stand-in daemon of
               the no-INI baseline forwards without a protocol stack)
  share        extra cpu / (cores x run time): the part of the machine the
               daemons held while Water ran

    tools/inimeasure/cpu_share.py [RESULTS_DIR]   (default docs/results/thesis)
"""
import os
import re
import statistics
import sys

if not __package__:
    sys.exit("cpu_share.py: run it as `PYTHONPATH=tools python3 -m inimeasure.cpu_share` from the repository's root")
from inimeasure import runs as layout  # noqa: E402  (runs.py: the layout)


def read_runs(out):
    """{cell: [(cpu_s, time_s), ...]} from runs.tsv, the runs that succeeded
    and have their CPU time."""
    cells = {}
    for r in layout.read_runs(out):
        if r["status"] == "ok" and r["cpu_user_s"] and r["cpu_sys_s"] and r["runtime_s"]:
            cells.setdefault(r["cell"], []).append((float(r["cpu_user_s"]) + float(r["cpu_sys_s"]),
                                                    float(r["runtime_s"])))
    return cells


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else 'docs/results/thesis'
    if not os.path.isfile(os.path.join(out, 'runs.tsv')):
        sys.exit('cpu_share: %s: no runs.tsv (not an experiments.sh output)' % out)
    cells = read_runs(out)
    if not cells:
        sys.exit('cpu_share: %s: no CPU times (runs made before experiments.sh recorded them)' % out)
    cores = os.cpu_count() or 1
    base = {}
    for cell, runs in cells.items():
        m = re.fullmatch(r'c(\d+)-noini', cell)
        if m:
            base[m.group(1)] = statistics.median(c for c, _ in runs)
    print('CPU time the INI daemons take from Water on %d shared cores (medians over the repetitions)' % cores)
    print('%-24s %5s %8s %10s %12s %7s' % ('cell', 'runs', 'time s', 'cpu s', 'extra cpu s', 'share'))

    def order(cell):
        m = re.fullmatch(r'c(\d+)-(i(\d+)-)?(.*)', cell)
        return (int(m.group(1)), int(m.group(3) or 0), m.group(4)) if m else (0, 0, cell)

    for cell in sorted(cells, key=order):
        runs = cells[cell]
        cpu = statistics.median(c for c, _ in runs)
        t = statistics.median(t for _, t in runs)
        size = re.match(r'c(\d+)-', cell).group(1)
        extra = cpu - base[size] if size in base else float('nan')
        share = extra / (cores * t) if t > 0 else float('nan')
        print('%-24s %5d %8.3f %10.2f %12.2f %6.0f%%' % (cell, len(runs), t, cpu, extra, 100 * share))
    print('The no-INI baseline of each cluster size is the zero of "extra cpu".')


if __name__ == '__main__':
    main()
