"""perf_share.py - where the cores went in a sampled run of the whole path
(issue 47): `perf report` of each perf.data file, its samples put in a
few kinds of work, as a Markdown table with one column a file.

    perf record -a -F 2000 -o DATA -- build/bin/ini-bench --layers compute-to-compute ...
    PYTHONPATH=tools python3 -m inimeasure.perf_share LABEL=DATA [LABEL=DATA...]

The kinds, in the order a sample is tested: no task ran (swapper); the
kernel (switches, yields, sleeps and wake-ups on the shared cores);
DPDK's memif driver (its copies into and out of the shared rings); the
send copy fused with its CRC and sum; the receive checks; memcpy (inid's
copy into a compute node's ring); inid_loop's own code (with the layers
it inlines, mostly its poll); the rest of inid; the compute nodes.  On
this VM perf samples by the clock (no hardware counters).  Exit status 0;
2 on bad arguments or when perf fails.
"""
import re
import subprocess
import sys

KINDS = [
    ("idle (no task ran)", lambda comm, dso, kern, sym: comm == "swapper"),
    ("kernel: switches, yields, sleeps, wake-ups", lambda comm, dso, kern, sym: kern),
    ("memif driver (copies 3 and 4, its rings)", lambda comm, dso, kern, sym: "memif" in dso),
    ("copy 2 fused with CRC and sum (send)",
     lambda comm, dso, kern, sym: re.search(r"crc_sum_copy|crc32c_sum_copy", sym)),
    ("receive checks (CRC and sum)", lambda comm, dso, kern, sym: re.search(r"crc_sum|crc32c", sym)),
    ("memcpy (copy 5 into the ring, and others)", lambda comm, dso, kern, sym: re.search(r"memmove|memcpy", sym)),
    ("inid_loop's own code (its poll)", lambda comm, dso, kern, sym: comm == "inid" and sym == "inid_loop"),
    ("inid: transport, stack, rings, other", lambda comm, dso, kern, sym: comm == "inid"),
    ("compute nodes (ini-bench)", lambda comm, dso, kern, sym: comm == "ini-bench"),
]
LINE = re.compile(r"\s+([\d.]+)%\s+(\S+)\s+(\S+)\s+\[(.)\]\s+(\S+)")


def shares(data):
    """{kind: percent of all samples} of one perf.data file."""
    try:
        out = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "comm,dso,symbol",
                              "--stdio"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"perf_share.py: {data}: perf report failed: {e}", file=sys.stderr)
        sys.exit(2)
    got = {}
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        pct, comm, dso, kern, sym = float(m[1]), m[2], m[3], m[4] == "k", m[5]
        kind = next((k for k, test in KINDS if test(comm, dso, kern, sym)), "other")
        got[kind] = got.get(kind, 0.0) + pct
    return got


def main(argv):
    pairs = [a.split("=", 1) for a in argv]
    if not pairs or any(len(p) != 2 or not p[0] or not p[1] for p in pairs):
        print("usage: python3 -m inimeasure.perf_share LABEL=DATA [LABEL=DATA...]", file=sys.stderr)
        return 2
    cols = [(label, shares(data)) for label, data in pairs]
    kinds = [k for k, _ in KINDS] + ["other"]
    print("| share of the samples | " + " | ".join(label for label, _ in cols) + " |")
    print("| --- |" + " --- |" * len(cols))
    for k in kinds:
        if any(s.get(k) for _, s in cols):
            print(f"| {k} | " + " | ".join(f"{s.get(k, 0.0):.1f}%" for _, s in cols) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
