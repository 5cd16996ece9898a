#!/usr/bin/env python3
"""Derives the virtual-time mode's `stack` cost set (ini/vtime/vt_cost.c):
this stack's own costs, measured once on a single-INI run of the real
stack, in cycles of the emulated clock at the default 20 MHz (a host
nanosecond is 0.02 cycles: cycles = host ns x 20e6 / 1e9).

    PYTHONPATH=tools python3 -m inimeasure.stack_costs BREAKDOWN C2C

BREAKDOWN is what `tools/thesis/breakdown.sh RUNS BREAKDOWN on` wrote (its
reports.jsonl: 2 clusters of 1 compute node and 1 INI, ini-ping at 0, 100,
200, 1,400, 1,600 and 65,000 bytes, detailed traces, transport segments as
the configuration's default); C2C what `tools/bench/c2c_path.sh RUNS C2C`
wrote (its meta.txt and reports.jsonl: the 8-byte compute-to-compute round
trip split into phases, and the bare hand-over of a core).  What each
number comes from:

  send per_message, per_byte, per_frame
      the send breakdown's slid_win + UDP + IP per message (the traces'
      TSC cycles, median over the runs of each run's mean), fitted to
      per_message + per_byte x length + per_frame x (segments - 1) as
      thesis_costs.py fits the thesis's table 5.1 (least squares on the
      relative error), no parameter below 0 (the mode charges a frame on
      its own in the turn that takes it: a negative one would be a negative
      charge; when the free fit has one, the best fit without it is taken);
      with segments the IP column runs to the end of the send call, so it
      holds every segment of the message.
  recv per_message, per_byte, per_frame
      the receive breakdown's IP + UDP + slid_win + delivery, fitted the
      same way, after adding to each message of s segments (s - 1) times
      the protocol work (IP + UDP + slid_win) of a 1,400-byte message:
      the record holds only the segment that completed the message, the
      others were received in earlier turns and are in no record.
  per_pass (both sides)
      a turn's own cost as ini-trace whatif takes it: each INI's busy
      cycles in its counters (turns that did work) less the union of its
      messages' service intervals in the traces, over its work turns
      (breakdown.sh keeps each run's counters beside its report since
      3005422; for runs without them it is 0, said so in the output).
  wire
      c2c_path's wire phase, the two directions' mean (skew-free), median
      of the round trips: memif from one INI to the other.
  handover, deliver
      c2c_path's send phase (a compute node's send to its INI taking it)
      and receive phase (an INI's delivery to the handler starting), the
      two directions' mean, less the bare hand-over of the core
      (ini-bench --handover): the emulated processors are dedicated, so
      the core switch this 2-core host pays is not the stack's cost.  A
      difference below 0 is set to 0 and said so in the output.
  wire, handover and deliver are whole cycles: the mode adds them as such.

Prints the derivation (committed as docs/results/vtime-stack-costs.txt)
and the initializer vt_cost.c holds.  Exit status 0; 1 when an input has
no usable figure; 2 on bad arguments.
"""
import json
import math
import os
import statistics
import sys

if not __package__:
    sys.exit("stack_costs.py: run it as `PYTHONPATH=tools python3 -m inimeasure.stack_costs` from the repository's root")
from inimeasure import dier  # noqa: E402
from inimeasure.thesis_costs import fit  # noqa: E402

die = dier("stack_costs.py")
HZ = 20e6
SIZES = [0, 100, 200, 1400, 1600, 65000]
# Message bytes in one transport segment at MTU 1500: 1,500 - IP 20 - UDP 8
# - the header at 32-bit sequences (10) - CRC32C (4), no MAC (stack/swp.c).
SEG_MAX = 1458
SEND_COLS = ("slid_win", "udp", "ip")
RECV_COLS = ("ip", "udp", "slid_win")


def segments(length):
    return max(1, math.ceil(length / SEG_MAX))


def read_jsonl(path):
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        die("%s: %s" % (path, e), 1)


def per_size(reports, key, cols):
    """{length: median over the runs of the mean TSC cycles of cols' sum}."""
    out = {}
    for n in SIZES:
        v = [sum(r["cycles"][c] for c in cols) for rep in reports for r in rep[key]["rows"]
             if r["len_lo"] == n and r["len_hi"] == n and r["msgs"] > 0]
        if not v:
            die("no %s row of %d bytes" % (key, n), 1)
        out[n] = statistics.median(v)
    return out


def turn_cost(run):
    """One run's TSC cycles per work turn outside any message's service,
    over its INIs (counters' busy less the traces' busy, at least 0)."""
    inis = {i["ini"]: i for c in run["report"]["clusters"] for i in c["inis"]}
    extra = turns = 0
    for c in run.get("counters") or []:
        if c["ini"] not in inis or not c["loop"]["work_turns"]:
            die("run %d: ini %s: no counters or no work turns" % (run["run"], c["ini"]), 1)
        extra += max(0, c["busy"]["cycles"] - inis[c["ini"]]["busy_cycles"])
        turns += c["loop"]["work_turns"]
    return extra / turns if turns else None


def fit_nonneg(y, lengths, nframes):
    """thesis_costs.fit with no parameter below 0: the free fit, else the
    best (least relative squares) of the fits with one or two held at 0."""
    def sse(p):
        return sum(((p[0] + p[1] * n + p[2] * (nframes(n) - 1)) / t - 1) ** 2 for n, t in zip(lengths, y))
    fits = [fit(y, lengths, nframes, cols) for cols in ((0, 1, 2), (0, 1), (0, 2), (1, 2), (0,))]
    ok = [p for p in fits if min(p) >= 0]
    return min(ok, key=sse), fits[0]


def c2c_figures(lines):
    """(wire, handover, deliver) in host ns, the bare switch in ns, from the
    medians of c2c_path's runs."""
    ph = lambda name: statistics.median(l["phases"][name]["median"] for l in lines) * 1e3
    switch = statistics.median(float(l["handover"]["ns_per_switch"]) for l in lines)
    send = (ph("ping (cluster 0 -> 1): send") + ph("pong (cluster 1 -> 0): send")) / 2
    recv = (ph("ping (cluster 0 -> 1): receive") + ph("pong (cluster 1 -> 0): receive")) / 2
    return ph("wire, the two directions' mean (skew-free)"), send, recv, switch


def side(name, totals, tsc):
    """Fits one side; prints its rows; returns (per_message, per_byte, per_frame) in emulated cycles."""
    k = HZ / tsc
    y = [totals[n] * k for n in SIZES]
    (pm, pb, pf), free = fit_nonneg(y, SIZES, segments)
    if min(free) < 0:
        print("%s: the free fit has a negative parameter (per_message %.4f, per_byte %.6f, per_frame %.4f):"
              " the best fit without it is taken" % ((name,) + tuple(free)))
    print("%s: per_message %.4f  per_byte %.6f  per_frame %.4f" % (name, pm, pb, pf))
    for n, t in zip(SIZES, y):
        model = pm + pb * n + pf * (segments(n) - 1)
        print("  %6d B  %2d segments  measured %9.1f TSC = %8.3f cycles  model %8.3f  error %+6.1f%%"
              % (n, segments(n), t / k, t, model, 100 * (model - t) / t))
    return pm, pb, pf


def whole(name, ns, switch):
    """A hand-over's cycles: the phase less the bare switch, at least 0."""
    c = (ns - switch) * HZ / 1e9
    if c < 0:
        print("%s: the phase (%.0f ns) is shorter than the bare switch (%.0f ns): set to 0" % (name, ns, switch))
        return 0
    return round(c)


def main(argv):
    if len(argv) != 3:
        die("usage: stack_costs.py BREAKDOWN C2C")
    bd, c2c = argv[1], argv[2]
    runs = read_jsonl(os.path.join(bd, "reports.jsonl"))
    if not runs or any(r.get("segment") != "on" for r in runs):
        die("%s: expected breakdown.sh runs with segments on" % bd, 1)
    reps = [r["report"] for r in runs]
    tsc = reps[0]["clusters"][0]["inis"][0]["tsc_hz"]
    paths = read_jsonl(os.path.join(c2c, "reports.jsonl"))
    if not paths:
        die("%s: no c2c_path run" % c2c, 1)
    with open(os.path.join(c2c, "meta.txt")) as f:
        meta = [line.strip("# \n") for line in f]
    print("stack cost set: this stack's costs in cycles of the emulated clock at 20 MHz (host ns x 20e6 / 1e9;")
    print("the traces' TSC cycles x 20e6 / %.0f)" % tsc)
    print("measured: " + "; ".join(meta))
    print("breakdown: %d runs (tools/thesis/breakdown.sh %d OUT on), load average at each start: %s"
          % (len(runs), len(runs), ", ".join(r["loadavg"] for r in runs)))
    print("c2c_path: %d run(s), load %s" % (len(paths), ", ".join(str(l["load"]) for l in paths)))
    print("model: per_pass + per_message + per_byte * length + per_frame * (segments - 1), segments = ceil(length / %d)"
          % SEG_MAX)
    send = side("send", per_size(reps, "send_breakdown", SEND_COLS), tsc)
    rec = per_size(reps, "receive_breakdown", RECV_COLS + ("delivery",))
    seg = per_size(reps, "receive_breakdown", RECV_COLS)[1400]
    print("recv: each segment before the last adds the protocol work of a 1,400-byte message, %.1f TSC" % seg)
    recv = side("recv", {n: rec[n] + (segments(n) - 1) * seg for n in SIZES}, tsc)
    over = [t for t in (turn_cost(r) for r in runs) if t is not None]
    per_pass = statistics.median(over) * HZ / tsc if over else 0.0
    if over:
        print("per_pass: a work turn's busy time outside any message's service: median %.1f TSC [%.1f-%.1f]"
              " = %.4f cycles" % (statistics.median(over), min(over), max(over), per_pass))
    else:
        print("per_pass: not measured (these runs kept no counters: breakdown.sh before %s kept none): 0"
              % "3005422")
    wire_ns, send_ns, recv_ns, switch = c2c_figures(paths)
    wire = round(wire_ns * HZ / 1e9)
    print("wire: %.0f ns = %d cycles" % (wire_ns, wire))
    print("bare hand-over of the core: %.0f ns; send phase %.0f ns, receive phase %.0f ns" % (switch, send_ns, recv_ns))
    handover, deliver = whole("handover", send_ns, switch), whole("deliver", recv_ns, switch)
    print("handover: %d cycles  deliver: %d cycles" % (handover, deliver))
    print("\nini/vtime/vt_cost.c:")
    f = lambda s: "{ .per_pass = %.4f, .per_message = %.4f, .per_byte = %.6f, .per_frame = %.4f }" % ((per_pass,) + s)
    print("    .send = %s,\n    .recv = %s,\n    .wire = %d,\n    .handover = %d,\n    .deliver = %d,"
          % (f(send), f(recv), wire, handover, deliver))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
