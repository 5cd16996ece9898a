"""mac_cost.py - the table of tools/bench/mac_cost.sh's runs (issue 49;
docs/performance.md, "The MAC's cost").

    PYTHONPATH=tools python3 -m inimeasure.mac_cost RUNS.tsv [RUNS.tsv ...]

Per (mode, measure): the MAC off and on, each as the median of every row
and its range, and the cost, median(on) / median(off) - 1, with its 95%
bootstrap interval (stats.ratio_ci: 10,000 resamples, fixed seed, so the
output repeats), and the same cost paired in turns: the median over turns
of on / off within the turn.  For throughput the cost is the throughput lost,
1 - median(on) / median(off).  Every row counts; none is dropped.  Prints a
Markdown table."""
import statistics
import sys

if not __package__:
    sys.exit("mac_cost.py: run it as `PYTHONPATH=tools python3 -m inimeasure.mac_cost` from the repository's root")
from inimeasure import stats, tsv_rows  # noqa: E402

ORDER = [("memif", "rtt_p50_us", "8 B round trip, median (us)"),
         ("af_packet", "rtt_p50_us", "8 B round trip, median (us)"),
         ("memif", "bw_MBps", "64 KB throughput, window 8 (MB/s)"),
         ("af_packet", "bw_MBps", "64 KB throughput, window 8 (MB/s)"),
         ("inproc", "inproc_rtt_cycles", "8 B round trip, stack only (cycles)"),
         ("inproc", "inproc_64k_cycles", "64 KB send + receive, stack only (cycles)")]


def read(paths):
    cells, turns = {}, {}
    for path in paths:
        for n, f in tsv_rows(path, 5, "mac_cost"):
            try:
                v = float(f[4])
            except ValueError:
                sys.exit(f"mac_cost: {path}:{n}: value {f[4]!r} is not a number")
            cells.setdefault((f[1], f[3], f[2]), []).append(v)
            turns.setdefault((path, f[0], f[1], f[3], f[2]), []).append(v)
    return cells, turns


def paired(turns, mode, measure):
    """The median over turns of on/off within a turn (each turn's rows'
    median): what the machine's drift between turns does not reach."""
    r = []
    for (path, turn, m, meas, mac), on in turns.items():
        off = turns.get((path, turn, m, meas, "off"))
        if mac == "on" and m == mode and meas == measure and off:
            r.append(statistics.median(on) / statistics.median(off))
    return statistics.median(r) if r else float("nan"), len(r)


def fmt(v):
    return f"{v:,.0f}" if v >= 1000 else f"{v:.1f}"


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) > 1 else 2
    cells, turns = read(argv[1:])
    print("| mode | measure | MAC off: median (range) | MAC on: median (range) | cost (95% interval) "
          "| cost, paired in turns | rows off/on |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for mode, measure, label in ORDER:
        off, on = cells.get((mode, measure, "off")), cells.get((mode, measure, "on"))
        if not off or not on:
            continue
        ratio, lo, hi = stats.ratio_ci(off, on)
        pr, n_pairs = paired(turns, mode, measure)
        if measure == "bw_MBps":    # throughput lost
            cost, lo, hi, pcost = 1 - ratio, 1 - hi, 1 - lo, 1 - pr
        else:
            cost, lo, hi, pcost = ratio - 1, lo - 1, hi - 1, pr - 1
        print(f"| {mode} | {label} | {fmt(statistics.median(off))} ({fmt(min(off))}-{fmt(max(off))}) | "
              f"{fmt(statistics.median(on))} ({fmt(min(on))}-{fmt(max(on))}) | "
              f"{cost:+.0%} ({lo:+.0%} to {hi:+.0%}) | {pcost:+.0%} ({n_pairs} turns) | {len(off)}/{len(on)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
