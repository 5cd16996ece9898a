"""ab_summary.py - the before/after comparison of an A/B file of ab.sh
(tools/bench/ab.sh small|64k lines: turn, bin, load, state, figures...).

    tools/inimeasure/ab_summary.py FILE [--before NAME] [--after NAME]

Per machine state (fast, slow: raw memif's round trip in turns below or
above 1 us, docs/performance.md) and per figure: each build's runs in that
state, their medians, the ratio after/before of the medians and its 95%
bootstrap interval (tools/inimeasure/stats.py's ratio_ci: 10,000 resamples,
its fixed seed, so the output repeats).  Every line of the file counts; none is dropped.  Builds
default to the names ending in -before and -after."""
import statistics
import sys

if not __package__:
    sys.exit("ab_summary.py: run it as `PYTHONPATH=tools python3 -m inimeasure.ab_summary` from the repository's root")
from inimeasure import stats  # noqa: E402  (stats.py: the bootstrap the experiments' tables use)


def main(argv):
    args = argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args else 2
    path, before, after = args[0], None, None
    rest = args[1:]
    while rest:
        if len(rest) < 2 or rest[0] not in ("--before", "--after"):
            print(f"ab_summary: unexpected argument {rest[0]!r}", file=sys.stderr)
            return 2
        if rest[0] == "--before":
            before = rest[1]
        else:
            after = rest[1]
        rest = rest[2:]
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        print(f"ab_summary: {path}: {e.strerror}", file=sys.stderr)
        return 2
    header, rows = None, []
    for line in lines:
        f = line.split()
        if f[:2] == ["turn", "bin"]:
            if header and f != header:
                print(f"ab_summary: {path}: two kinds of table (64k and small) in one file", file=sys.stderr)
                return 2
            header = f
        elif f and f[0].isdigit() and header and len(f) == len(header):
            rows.append(f)
    if not rows:
        print(f"ab_summary: {path}: no runs found", file=sys.stderr)
        return 2
    names = sorted({r[1] for r in rows})
    before = before or next((n for n in names if n.endswith("-before")), None)
    after = after or next((n for n in names if n.endswith("-after")), None)
    if before not in names or after not in names:
        print(f"ab_summary: {path}: builds {names}; name --before and --after", file=sys.stderr)
        return 2
    print(f"# {path}: {after} against {before}, medians per state, after/before with a 95% bootstrap interval")
    for state in ("fast", "slow"):
        for i, name in enumerate(header[4:], start=4):
            b = [float(r[i]) for r in rows if r[1] == before and r[3] == state]
            a = [float(r[i]) for r in rows if r[1] == after and r[3] == state]
            if not a or not b:
                continue
            ratio, lo, hi = stats.ratio_ci(b, a)
            print(f"{state:4s} {name:8s} before n {len(b):2d} median {statistics.median(b):7.3f}  "
                  f"after n {len(a):2d} median {statistics.median(a):7.3f}  after/before "
                  f"{ratio:.3f} [{lo:.3f}-{hi:.3f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
