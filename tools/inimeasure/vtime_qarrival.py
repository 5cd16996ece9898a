"""vtime_qarrival - the queue at arrival (the thesis's definition: the
messages a message finds in its INI when it arrives) of a virtual-time run,
from its traces' intervals.

In --time virtual the daemon's own count at intake is always 0: its loop
takes one input a turn, and a message that waits waits as a stamp in a
ring or a heap, not in the FIFO the count reads (docs/virtual-time.md).
So `ini-trace report` prints 0, and this counts instead, per INI, the
records whose [t1, done) holds the message's arrival t1: those that
arrived before it (or at the same cycle and were served before it) and
were not done.  The machine's figure is the sum over every INI's
messages over their number, as the report's; each INI's is printed too.

    PYTHONPATH=tools python3 -m inimeasure.vtime_qarrival RUN_DIR...
        one line a run: RUN_DIR, the machine's queue at arrival, the messages
        counted, then each INI's "id:queue"
"""
import heapq
import sys

from inimeasure import dier
from inimeasure import initrace

die = dier("vtime_qarrival")


def ini_queue(recs):
    """(sum of the queue each record found at its arrival, records counted)
    of one INI's [(kind, t1, done)], file order being serving order."""
    order = sorted(range(len(recs)), key=lambda k: (recs[k][1], k))
    inside, total, n = [], 0, 0
    for k in order:
        _, t1, done = recs[k]
        if t1 == 0 or done == 0:      # a stamp not recorded (0 means none)
            continue
        while inside and inside[0] <= t1:
            heapq.heappop(inside)
        total += len(inside)
        n += 1
        heapq.heappush(inside, done)
    return total, n


def run_queue(run):
    """(the machine's queue at arrival, messages, {INI: its queue})."""
    per, total, n = {}, 0, 0
    for ini, recs in initrace.hands(run, arrival=True).items():
        t, m = ini_queue(recs)
        per[ini] = t / m if m else float("nan")
        total, n = total + t, n + m
    if n == 0:
        die("%s: no traced message with its arrival and done stamps" % run)
    return total / n, n, per


def main():
    if len(sys.argv) < 2:
        die("usage: vtime_qarrival RUN_DIR...")
    for run in sys.argv[1:]:
        q, n, per = run_queue(run)
        print("%s\t%.6f\t%d\t%s" % (run, q, n, " ".join("%d:%.4f" % (i, per[i]) for i in sorted(per))))


if __name__ == "__main__":
    main()
