"""c2c_path.py - where the compute-to-compute round trip goes, from a
traced run of ini-bench's compute-to-compute layer (issue 32, docs/performance.md).

    ini-bench --quick --layers compute-to-compute --cn-trace DIR [--verbose]
    tools/inimeasure/c2c_path.py DIR [--first N] [--json] [--ini-trace PATH]

The run's messages come from `ini-trace timeline` (every host on one
clock).  The round trips are the messages that overlap no other (the
benchmark's ping-pong, not its floods), taken in pairs: a ping from
cluster 0 and the pong that answers it.  Each one-way message is split
into the phases the timeline draws:

  send      the compute node's send stamp to its INI taking the record
            (the ring and, on a shared core, the switch to the INI)
  queue     in the sending INI's queue
  service   the sending INI's service (transport, UDP/IP, memif tx)
  wire      its end to the receiving INI taking the frame (memif, the
            receiving INI's poll); on two cores, so each direction carries
            the cores' TSC skew with opposite signs: the two directions'
            mean is free of it
  queue     in the receiving INI's queue
  service   the receiving INI's service (into the compute node's ring)
  receive   the end of that service to the handler's start (the ring and,
            on a shared core, the switch to the compute node)

plus the turnaround: the ping's handler start to the pong's send stamp.
The hand-overs are send and receive: on a shared core each is a switch
between the compute node and its INI (four a round trip).

--first N keeps the first N round trips: the benchmark's ping-pong test
comes first, 32 warm-up round trips and then its runs of n each (with
--verbose ini-bench writes n to DIR/cluster0.err: "ping-pong ... n=N";
without --first, c2c_path.py reads it from there, for 10 runs, and
otherwise takes every round trip, the q = 1 floods' and the overlap
tests' too).  Prints each phase's median and mean (us), per direction,
the hand-overs' sum and share, and the round trip (the ping's send to
the pong's handler); --json prints one JSON object instead.  Exit status
0; 1 when the run has no round trip; 2 on bad arguments.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

if not __package__:
    sys.exit("c2c_path.py: run it as `PYTHONPATH=tools python3 -m inimeasure.c2c_path` from the repository's root")
from inimeasure import dier  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PHASES = ["send", "queue out", "service out", "wire", "queue in", "service in", "receive"]


die = dier("c2c_path.py")


def load(run, ini_trace):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "tl.json")
        p = subprocess.run([ini_trace, "timeline", run, "-o", out], capture_output=True, text=True)
        if p.returncode != 0:
            die("%s" % (p.stderr.strip() or p.stdout.strip() or "ini-trace timeline failed"), 1)
        return json.load(open(out))["traceEvents"]


def messages(events):
    """msg id -> its phases' (start, end) in us, and its clusters (pids)."""
    m = {}
    for e in events:
        ph = e.get("ph")
        if ph in ("b", "e") and e.get("cat") == "msg":
            k = int(e["id"], 16)
            d = m.setdefault(k, {})
            name = e["name"]
            if name == "queue":          # timeline.c writes the sending INI's first, then the receiving one's
                name = "queue out" if ("queue out", 1) not in d else "queue in"
            d[(name, 0 if ph == "b" else 1)] = e["ts"]
            if e["name"] == "send":
                d["src"] = e["pid"]
        elif ph == "X" and e.get("cat") in ("service", "handler"):
            k = e["args"]["msg"]
            d = m.setdefault(k, {})
            if e["cat"] == "handler":
                d["handler"] = (e["ts"], e["ts"] + e["dur"])
                d["dst"] = e["pid"]
            else:
                which = "service out" if e["name"].endswith(" out") else "service in"
                d[which] = (e["ts"], e["ts"] + e["dur"])
    whole = {}
    for k, d in m.items():
        need = [("send", 0), ("send", 1), ("queue out", 0), ("queue out", 1), ("wire", 0), ("wire", 1),
                ("queue in", 0), ("queue in", 1), ("receive", 0), ("receive", 1)]
        if any(n not in d for n in need) or "handler" not in d or "service out" not in d or "service in" not in d:
            continue
        span = {p: (d[(p, 0)], d[(p, 1)]) for p in ("send", "queue out", "wire", "queue in", "receive")}
        span["service out"], span["service in"] = d["service out"], d["service in"]
        whole[k] = {"span": span, "t0": d[("send", 0)], "handler": d["handler"], "src": d["src"], "dst": d["dst"]}
    return whole


def round_trips(msgs):
    """(ping, pong) pairs of messages that overlap no other message."""
    order = sorted(msgs.values(), key=lambda x: x["t0"])
    alone = []
    for i, x in enumerate(order):
        prev_end = order[i - 1]["handler"][1] if i else float("-inf")
        next_start = order[i + 1]["t0"] if i + 1 < len(order) else float("inf")
        alone.append(prev_end <= x["t0"] and x["handler"][1] <= next_start)
    pairs = []
    for i in range(len(order) - 1):
        a, b = order[i], order[i + 1]
        if alone[i] and alone[i + 1] and a["src"] == b["dst"] and a["dst"] == b["src"] and a["src"] == 1:
            pairs.append((a, b))
    return pairs


def pingpong_count(run):
    """32 + 10 x n from ini-bench --verbose's ping-pong line, or None."""
    try:
        for line in open(os.path.join(run, "cluster0.err")):
            if line.strip().startswith("ping-pong") and " n=" in line:
                return 32 + 10 * int(line.split(" n=")[1].split()[0])
    except (OSError, ValueError, IndexError):
        pass
    return None


def main(argv):
    args = argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.split("\n\n")[1])
        sys.exit(0 if args else 2)
    run, ini_trace, first, as_json = args.pop(0), os.path.join(HERE, "../../build/bin/ini-trace"), None, False
    while args:
        flag = args.pop(0)
        if flag == "--ini-trace" and args:
            ini_trace = args.pop(0)
        elif flag == "--first" and args:
            try:
                first = int(args.pop(0))
            except ValueError:
                die("--first: expected a number of round trips")
            if first < 1:
                die("--first: expected a positive number of round trips")
        elif flag == "--json":
            as_json = True
        else:
            die("unknown option %s (or it needs a value)" % flag)
    if not os.path.isdir(run):
        die("%s: not a run directory" % run)
    first = first or pingpong_count(run)
    pairs = round_trips(messages(load(run, ini_trace)))[:first]
    if not pairs:
        die("%s: no round trip (no two messages alone in turn)" % run, 1)
    rows = []

    def row(name, v):
        rows.append((name, statistics.median(v), statistics.mean(v)))

    def handovers(a, b):
        return sum(x["span"][p][1] - x["span"][p][0] for x in (a, b) for p in ("send", "receive"))

    for direction, pick in (("ping (cluster 0 -> 1)", 0), ("pong (cluster 1 -> 0)", 1)):
        for p in PHASES:
            row("%s: %s" % (direction, p), [(x[pick]["span"][p][1] - x[pick]["span"][p][0]) for x in pairs])
    row("wire, the two directions' mean (skew-free)",
        [(a["span"]["wire"][1] - a["span"]["wire"][0] + b["span"]["wire"][1] - b["span"]["wire"][0]) / 2
         for a, b in pairs])
    row("turnaround at cluster 1 (ping's handler start to the pong's send)",
        [b["t0"] - a["handler"][0] for a, b in pairs])
    row("hand-overs: the four sends and receives",
        [handovers(a, b) for a, b in pairs])
    row("round trip: ping's send to pong's handler start",
        [b["handler"][0] - a["t0"] for a, b in pairs])
    row("hand-overs' share of the round trip",
        [handovers(a, b) / (b["handler"][0] - a["t0"]) for a, b in pairs])
    if as_json:
        print(json.dumps({"run": run, "round_trips": len(pairs), "first": first,
                          "phases": {n: {"median": round(m, 4), "mean": round(x, 4)} for n, m, x in rows}}))
        return 0
    print("%s: %d round trips alone%s (microseconds)" % (run, len(pairs), ", the first %d" % first if first else ""))
    print("%-72s %9s %9s" % ("phase", "median", "mean"))
    for name, med, mean in rows:
        print("%-72s %9.3f %9.3f" % (name, med, mean))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
