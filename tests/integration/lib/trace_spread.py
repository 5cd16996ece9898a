#!/usr/bin/env python3
"""trace_spread.py - how a run's scheduling policies spread its messages.

    trace_spread.py CONFIG RUN_DIR PE_POLICY INI_POLICY [BASELINE_RUN_DIR]

Reads the run's detailed traces (RUN_DIR/ini<ID>.trace, docs/traces.md: one
record per message with its kind, source and destination compute node and
peer INI) and the clusters of CONFIG, prints the messages each INI carried
per compute node, and checks the spread the policies promise
(loadbal/loadbal.h):

  compute-node side (which INI of its own cluster carries a message)
    static       every message of compute node p is carried by the INI that
                 CONFIG's `static` list (or the block mapping) gives p;
    round-robin  every compute node's messages are split evenly, within one,
                 over all the INIs of its cluster;
    load-aware   no INI is given work while a sibling is idle: counted as the
                 messages submitted to an INI that already had two or more
                 messages in hand (one in service, one waiting) while a
                 sibling had none.  Compute nodes pick concurrently and see
                 the INIs' counters a little late, so a few such picks are
                 races the policy cannot avoid; what the test can control is
                 the workload, so it runs the same one under round-robin
                 (BASELINE_RUN_DIR) and requires load-aware to make at most
                 half as many such picks as round-robin (measured over five
                 runs: a fourth to a fiftieth), and round-robin to make
                 enough of them (>= 20) for the comparison to mean
                 something.  A policy that always picks one INI makes about
                 twice round-robin's.
  INI side (which INI of the destination cluster receives it)
    static       every message is received by the destination node's INI;
    round-robin  each sending INI's messages to a cluster are split evenly,
                 within one, over that cluster's INIs;
    load-aware   not asserted: it follows the loads the peers last reported.

A message "in hand" of an INI runs from its submission (outbound: t0; inbound
and local: entering the queue) to its done stamp.  Also checked: no record
was dropped, and each INI's traced messages match its counters.  Prints one
line per failed check ("FAIL: ...") and exits 1 if any; 0 otherwise.
"""
import bisect
import glob
import json
import os
import re
import struct
import sys

OUT, IN, LOCAL = 1, 2, 3


def read_config(path):
    """Clusters of a generated configuration: [(pes, inis, static)]."""
    text = re.sub(r"#[^\n]*", "", open(path).read())
    clusters = []
    for block in re.split(r"\{\s*id\s*=\s*\d+\s*;\s*pes", text)[1:]:
        ints = lambda s: [int(x) for x in re.findall(r"-?\d+", s)]
        pes = ints(re.match(r"\s*=\s*\[([^\]]*)\]", block).group(1))
        inis = ints(" ".join(re.findall(r"\{\s*id\s*=\s*(\d+)\s*;\s*core", block)))
        m = re.search(r"static\s*=\s*\[([^\]]*)\]", block)
        # Without a `static` list: the block mapping of docs/config.md.
        static = ints(m.group(1)) if m else [inis[i * len(inis) // len(pes)] for i in range(len(pes))]
        clusters.append((pes, inis, static))
    return clusters


def read_traces(run):
    """{ini: (cluster, dropped, [(kind, peer, src, dst, begin, done)])}"""
    traces = {}
    for f in sorted(glob.glob(os.path.join(run, "ini*.trace"))):
        b = open(f, "rb").read()
        ini, cluster = struct.unpack_from("<ii", b, 24)
        n, dropped = struct.unpack_from("<QQ", b, 48)
        recs = []
        for k in range(n):
            off = 128 + 64 * k
            kind, peer, src, dst = struct.unpack_from("<BxHHH", b, off)
            st = struct.unpack_from("<6Q", b, off + 16)
            recs.append((kind, peer, src, dst, st[0], st[5]))
        traces[ini] = (cluster, dropped, recs)
    return traces


class InHand:
    """Messages an INI had in hand at a time t: begun before t, not done by t."""

    def __init__(self, recs):
        self.begins = sorted(r[4] for r in recs)
        self.dones = sorted(r[5] for r in recs)

    def at(self, t):
        return bisect.bisect_left(self.begins, t) - bisect.bisect_right(self.dones, t)


def queued_while_idle(clusters, traces):
    """Messages given to an INI holding >= 2 while a sibling held none."""
    hand = {ini: InHand(t[2]) for ini, t in traces.items()}
    events = 0
    for _, inis, _ in clusters:
        for a in inis:
            for r in traces[a][2]:
                if r[0] == IN:
                    continue
                t = r[4]
                if hand[a].at(t) >= 2 and any(hand[b].at(t) == 0 for b in inis if b != a):
                    events += 1
    return events


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__.split("\n\n")[1])
    config, run, pe_policy, ini_policy = sys.argv[1:5]
    clusters = read_config(config)
    traces = read_traces(run)
    fails = []
    fail = fails.append

    cluster_of_pe, static_of_pe, inis_of_cluster, cluster_of_ini = {}, {}, {}, {}
    for c, (pes, inis, static) in enumerate(clusters):
        inis_of_cluster[c] = inis
        for p, s in zip(pes, static):
            cluster_of_pe[p], static_of_pe[p] = c, s
        for i in inis:
            cluster_of_ini[i] = c
    if sorted(traces) != sorted(cluster_of_ini):
        fail(f"trace files of INIs {sorted(traces)}, the configuration has {sorted(cluster_of_ini)}")
        return fails

    # Every message is in the traces: nothing dropped, and the counts agree
    # with the transport's counters.
    for ini, (cluster, dropped, recs) in sorted(traces.items()):
        if dropped:
            fail(f"INI {ini}: {dropped} messages not traced (buffer full)")
        counters = json.load(open(os.path.join(run, f"ini{ini}.counters.json")))
        for kind, key in ((OUT, "msgs_sent"), (IN, "msgs_delivered")):
            n = sum(1 for r in recs if r[0] == kind)
            if n != counters["transport"][key]:
                fail(f"INI {ini}: {n} {'outbound' if kind == OUT else 'inbound'} messages traced, "
                     f"counters say {key} = {counters['transport'][key]}")

    # Compute-node side: carried[p][ini] = messages of p that ini carried.
    carried = {p: {i: 0 for i in inis_of_cluster[c]} for p, c in cluster_of_pe.items()}
    for ini, (_, _, recs) in traces.items():
        for kind, _, src, _, _, _ in recs:
            if kind != IN:
                carried[src][ini] += 1
    print(f"compute-node policy {pe_policy}: messages carried per compute node, by INI")
    for p in sorted(carried):
        print(f"  PE {p}: " + ", ".join(f"INI {i}: {n}" for i, n in sorted(carried[p].items())))
        if sum(carried[p].values()) == 0:
            fail(f"PE {p} sent no message")
    if pe_policy == "static":
        for p, by_ini in sorted(carried.items()):
            wrong = {i: n for i, n in by_ini.items() if i != static_of_pe[p] and n}
            if wrong:
                fail(f"PE {p}'s INI is {static_of_pe[p]}, but INIs {wrong} carried its messages")
    elif pe_policy == "round-robin":
        for p, by_ini in sorted(carried.items()):
            if max(by_ini.values()) - min(by_ini.values()) > 1:
                fail(f"PE {p}'s messages are not split evenly over its INIs: {by_ini}")
    elif pe_policy == "load-aware":
        events = queued_while_idle(clusters, traces)
        print(f"  messages given to an INI holding >= 2 while a sibling held none: {events}")
        if len(sys.argv) == 6:
            base = queued_while_idle(clusters, read_traces(sys.argv[5]))
            print(f"  the same under round-robin ({sys.argv[5]}): {base}")
            if base < 20:
                fail(f"round-robin made only {base} such picks: the workload builds too "
                     f"few queues to judge")
            elif 2 * events > base:
                fail(f"{events} messages given to a busy INI while a sibling was idle, "
                     f"more than half of round-robin's {base}")

    # INI side: received[s][c][r] = messages INI s sent to cluster c that INI r received.
    received = {}
    for ini, (_, _, recs) in traces.items():
        for kind, peer, _, dst, _, _ in recs:
            if kind != OUT:
                continue
            c = cluster_of_pe[dst]
            by = received.setdefault(ini, {}).setdefault(c, {r: 0 for r in inis_of_cluster[c]})
            if peer not in by:
                fail(f"INI {ini}: a message for PE {dst} (cluster {c}) went to INI {peer}, not of that cluster")
                continue
            by[peer] += 1
            if ini_policy == "static" and peer != static_of_pe[dst]:
                fail(f"INI {ini} sent a message for PE {dst} to INI {peer}, not to its INI "
                     f"{static_of_pe[dst]}")
    print(f"INI policy {ini_policy}: messages each INI sent, by receiving INI")
    for s in sorted(received):
        for c, by in sorted(received[s].items()):
            print(f"  INI {s} -> cluster {c}: " + ", ".join(f"INI {r}: {n}" for r, n in sorted(by.items())))
            if ini_policy == "round-robin" and max(by.values()) - min(by.values()) > 1:
                fail(f"INI {s}'s messages to cluster {c} are not split evenly: {by}")
    return fails


if __name__ == "__main__":
    fails = main()
    for f in fails[:20]:
        print("FAIL:", f)
    if len(fails) > 20:
        print(f"FAIL: ... and {len(fails) - 20} more")
    sys.exit(1 if fails else 0)
