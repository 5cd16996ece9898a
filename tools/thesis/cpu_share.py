#!/usr/bin/env python3
"""cpu_share.py - what the INI daemons take from the compute threads.

On this machine the INIs are processes sharing the compute nodes' cores,
not processors of their own as in the thesis.  experiments.sh records each
run's CPU time (raw/NAME-REP.cpu: user and system seconds of the launcher,
the daemons and Water) beside its run time (raw/NAME-REP.time).  For every
cell this prints, as medians over the repetitions:

  cpu s        CPU time of the whole run
  extra cpu s  that minus the no-INI run's of the same cluster size: the
               daemons' work, wake-ups and sleeps (the stand-in daemon of
               the no-INI baseline forwards without a protocol stack)
  share        extra cpu / (cores x run time): the part of the machine the
               daemons held while Water ran

    tools/thesis/cpu_share.py [RESULTS_DIR]   (default docs/results/thesis)
"""
import os
import re
import statistics
import sys


def read_runs(raw):
    """{cell: [(cpu_s, time_s), ...]} from raw/CELL-REP.cpu and .time."""
    cells = {}
    for name in sorted(os.listdir(raw)):
        m = re.fullmatch(r'(.+)-(\d+)\.cpu', name)
        if not m:
            continue
        cell = m.group(1)
        try:
            with open(os.path.join(raw, name)) as f:
                user, system = (float(x) for x in f.read().split()[:2])
            with open(os.path.join(raw, '%s-%s.time' % (cell, m.group(2)))) as f:
                t = float(f.read().split()[0])
        except (OSError, ValueError):
            continue        # a failed run: no time, or no CPU line
        cells.setdefault(cell, []).append((user + system, t))
    return cells


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else 'docs/results/thesis'
    raw = os.path.join(out, 'raw')
    if not os.path.isdir(raw):
        sys.exit('cpu_share: %s: no raw/ directory' % out)
    cells = read_runs(raw)
    if not cells:
        sys.exit('cpu_share: %s: no .cpu files (runs made before experiments.sh recorded CPU time)' % raw)
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
