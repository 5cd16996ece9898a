"""mac_ab.py - the table of tools/bench/mac_ab.sh's runs: two builds' MAC
cost in the stack alone, A/B in turns (docs/results/mac-fast/).

    PYTHONPATH=tools python3 -m inimeasure.mac_ab RUNS.tsv

Per (measure, build): the MAC off and on, each as the median of the turns
and their range; the cycles the MAC adds, as the median over turns of
on - off within the turn (paired: the machine's drift between turns does
not reach it); on / off paired the same way; the MAC's share of the
build's cycles, (on - off) / on of the medians.  Then per measure the
second build's added cycles over the first's.  Every row counts; none is
dropped.  Prints Markdown."""
import statistics
import sys

if not __package__:
    sys.exit("mac_ab.py: run it as `PYTHONPATH=tools python3 -m inimeasure.mac_ab` from the repository's root")
from inimeasure import tsv_rows  # noqa: E402

MEASURES = [("inproc_64k_cycles", "64 KB send + receive, stack only (cycles per message)"),
            ("inproc_rtt_cycles", "8 B round trip, stack only (cycles)")]


def read(path):
    v, builds = {}, []
    for n, f in tsv_rows(path, 6, "mac_ab"):
        try:
            v[(int(f[0]), f[1], f[2], f[3])] = float(f[4])
        except ValueError:
            sys.exit(f"mac_ab: {path}:{n}: turn {f[0]!r} or value {f[4]!r} is not a number")
        if f[1] not in builds:
            builds.append(f[1])
    return v, builds


def row(v, turns, build, measure):
    off = [v[(t, build, "off", measure)] for t in turns]
    on = [v[(t, build, "on", measure)] for t in turns]
    added = statistics.median([b - a for a, b in zip(off, on)])
    ratio = statistics.median([b / a for a, b in zip(off, on)])
    share = (statistics.median(on) - statistics.median(off)) / statistics.median(on)
    print(f"| {build} | {statistics.median(off):,.0f} ({min(off):,.0f}-{max(off):,.0f}) | "
          f"{statistics.median(on):,.0f} ({min(on):,.0f}-{max(on):,.0f}) | {added:+,.0f} | "
          f"{ratio:.2f} | {share:.0%} | {len(turns)} |")
    return added


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) > 1 else 2
    v, builds = read(argv[1])
    for measure, label in MEASURES:
        turns = sorted({k[0] for k in v if k[3] == measure and all(
            (k[0], b, m, measure) in v for b in builds for m in ("off", "on"))})
        if not turns:
            continue
        print(f"{label}:\n")
        print("| build | MAC off: median (range) | MAC on: median (range) | added, paired | "
              "on / off, paired | MAC's share | turns |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        added = [row(v, turns, b, measure) for b in builds]
        if len(added) == 2 and added[0]:
            print(f"\n{builds[1]}'s added cycles / {builds[0]}'s: {added[1] / added[0]:.2f}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
