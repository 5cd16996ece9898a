#!/usr/bin/env python3
"""trace_spread.py - how a run's scheduling policies spread its messages.

    trace_spread.py RUN_DIR STATIC PE_POLICY INI_POLICY [BASELINE_RUN_DIR]

with tools/ on PYTHONPATH (tools/lib/options.sh).  STATIC is the INI of
each compute node under the static policy, in compute-node order: the
configuration's `static` lists joined (1,0,0,1,3,2,2,3).  The run is read
through the C readers: `ini-trace report --format json` gives its
clusters and INIs, the records each INI dropped and kept, and the messages
each INI carried and received per compute node (pe_split); each INI's
counters (iniN.counters.json) give the messages it sent to each peer INI;
the one thing neither prints, each message's interval in its INI's hands,
comes from the package's reader of the trace (inimeasure/initrace.py).
Prints the messages each INI carried per compute node and checks the
spread the policies promise (loadbal/loadbal.h):

  compute-node side (which INI of its own cluster carries a message)
    static       every message of compute node p is carried by the INI that
                 STATIC gives p;
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
import json
import os
import subprocess
import sys

try:
    from inimeasure import initrace
except ImportError:
    sys.exit("trace_spread.py: needs tools/ on PYTHONPATH (tools/lib/options.sh)")

INI_TRACE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../build/bin/ini-trace")


class Run:
    """A run as the C readers give it: its INIs (id -> cluster, report
    row), each cluster's INIs in order, the per-compute-node split and
    each INI's counters."""

    def __init__(self, run):
        r = subprocess.run([INI_TRACE, "report", run, "--format", "json"], capture_output=True, text=True)
        if r.returncode != 0:
            raise ValueError("ini-trace report %s: %s" % (run, r.stderr.strip()))
        rep = json.loads(r.stdout)
        self.dir = run
        self.inis, self.cluster_inis = {}, {}
        for c in rep["clusters"]:
            rows = sorted(c["inis"], key=lambda i: i["index"])
            self.cluster_inis[c["cluster"]] = [i["ini"] for i in rows]
            for i in rows:
                self.inis[i["ini"]] = (c["cluster"], i)
        self.split = rep["pe_split"]
        self.counters = {}
        for ini in self.inis:
            with open(os.path.join(run, "ini%d.counters.json" % ini)) as f:
                self.counters[ini] = json.load(f)

    def by_pe(self, what):
        """{pe: {ini: messages}}: WHAT is "sent" (carried, outbound and
        local) or "received" (inbound), from the report's pe_split."""
        out = {}
        for row in self.split:
            inis = self.cluster_inis[row["cluster"]]
            for k, n in enumerate(row[what]):
                out.setdefault(row["pe"], {}).setdefault(inis[k], 0)
                out[row["pe"]][inis[k]] += n
        return out


class InHand:
    """Messages an INI had in hand at a time t: begun before t, not done by t."""

    def __init__(self, recs):
        self.begins = sorted(r[1] for r in recs)
        self.dones = sorted(r[2] for r in recs)

    def at(self, t):
        return bisect.bisect_left(self.begins, t) - bisect.bisect_right(self.dones, t)


def queued_while_idle(cluster_inis, run_dir):
    """Messages given to an INI holding >= 2 while a sibling held none."""
    traces = initrace.hands(run_dir)
    hand = {ini: InHand(recs) for ini, recs in traces.items()}
    events = 0
    for inis in cluster_inis.values():
        for a in inis:
            for kind, t, _ in traces[a]:
                if kind == initrace.IN:
                    continue
                if hand[a].at(t) >= 2 and any(hand[b].at(t) == 0 for b in inis if b != a):
                    events += 1
    return events


def check_records(run, fail):
    """Nothing dropped, every INI traced in detail, and the traced messages
    agree with the transport's counters."""
    for ini, (_, row) in sorted(run.inis.items()):
        if row["mode"] != "detailed":
            fail(f"INI {ini}: a {row['mode']} trace, not a detailed one")
        if row["dropped"]:
            fail(f"INI {ini}: {row['dropped']} messages not traced (buffer full)")
        transport = run.counters[ini]["transport"]
        for what, n, key in (("outbound", row["msgs_out"], "msgs_sent"), ("inbound", row["msgs_in"], "msgs_delivered")):
            if n != transport[key]:
                fail(f"INI {ini}: {n} {what} messages traced, counters say {key} = {transport[key]}")


def check_pe_side(run, static, pe_policy, baseline, fail):
    """Compute-node side: which INI of its cluster carried each message."""
    carried = run.by_pe("sent")
    print(f"compute-node policy {pe_policy}: messages carried per compute node, by INI")
    for p, home in enumerate(static):
        by_ini = {i: 0 for i in run.cluster_inis[run.inis[home][0]]}
        by_ini.update(carried.get(p, {}))
        carried[p] = by_ini
        print(f"  PE {p}: " + ", ".join(f"INI {i}: {n}" for i, n in sorted(by_ini.items())))
        if sum(by_ini.values()) == 0:
            fail(f"PE {p} sent no message")
        wrong = {i: n for i, n in by_ini.items() if i != home and n}
        if pe_policy == "static" and wrong:
            fail(f"PE {p}'s INI is {home}, but INIs {wrong} carried its messages")
        if pe_policy == "round-robin" and max(by_ini.values()) - min(by_ini.values()) > 1:
            fail(f"PE {p}'s messages are not split evenly over its INIs: {by_ini}")
    if pe_policy == "load-aware":
        events = queued_while_idle(run.cluster_inis, run.dir)
        print(f"  messages given to an INI holding >= 2 while a sibling held none: {events}")
        if baseline:
            base = queued_while_idle(Run(baseline).cluster_inis, baseline)
            print(f"  the same under round-robin ({baseline}): {base}")
            if base < 20:
                fail(f"round-robin made only {base} such picks: the workload builds too few queues to judge")
            elif 2 * events > base:
                fail(f"{events} messages given to a busy INI while a sibling was idle, "
                     f"more than half of round-robin's {base}")


def check_ini_side(run, static, ini_policy, fail):
    """INI side: which INI of the destination cluster received each message
    (pe_split's received), and each INI's messages per peer (its counters)."""
    if ini_policy == "static":
        for p, by_ini in sorted(run.by_pe("received").items()):
            wrong = {i: n for i, n in by_ini.items() if i != static[p] and n}
            if wrong:
                fail(f"messages for PE {p} were received by INIs {wrong}, not only by its INI {static[p]}")
    print(f"INI policy {ini_policy}: messages each INI sent, by receiving INI")
    for s, (cs, _) in sorted(run.inis.items()):
        sent = {c["peer"]: c["msgs_sent"] for c in run.counters[s].get("connections", [])}
        for c, inis in sorted(run.cluster_inis.items()):
            by = {r: sent.get(r, 0) for r in inis}
            if c == cs or not any(by.values()):
                continue
            print(f"  INI {s} -> cluster {c}: " + ", ".join(f"INI {r}: {n}" for r, n in sorted(by.items())))
            if ini_policy == "round-robin" and max(by.values()) - min(by.values()) > 1:
                fail(f"INI {s}'s messages to cluster {c} are not split evenly: {by}")


def main():
    """The checks of the docstring; returns the failures."""
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__.split("\n\n")[1])
    run_dir, static_arg, pe_policy, ini_policy = sys.argv[1:5]
    fails = []
    try:
        static = [int(x) for x in static_arg.split(",")]
        run = Run(run_dir)
    except ValueError as e:
        return [f"STATIC {static_arg!r}: expected INI ids joined by commas" if "int()" in str(e) else str(e)]
    unknown = sorted(set(static) - set(run.inis))
    if unknown:
        return [f"STATIC names INIs {unknown}, which have no trace in {run_dir} (INIs {sorted(run.inis)})"]
    pes = sorted({row["pe"] for row in run.split})
    if pes and pes[-1] >= len(static):
        return [f"STATIC gives the INIs of {len(static)} compute nodes, the run has compute nodes {pes}"]
    check_records(run, fails.append)
    check_pe_side(run, static, pe_policy, sys.argv[5] if len(sys.argv) == 6 else None, fails.append)
    check_ini_side(run, static, ini_policy, fails.append)
    return fails


if __name__ == "__main__":
    fails = main()
    for f in fails[:20]:
        print("FAIL:", f)
    if len(fails) > 20:
        print(f"FAIL: ... and {len(fails) - 20} more")
    sys.exit(1 if fails else 0)
