"""cpu_profile.py - the CPU time a run's processors used, from its counters
(the inputs of beta, docs/experiments.md "Beta"): CPU time is what a loaded
machine still measures right, where wall time is not.

    cpu_profile.py RUN_DIR        prints one JSON object

From each INI's counters (RUN_DIR/ini<ID>.counters.json, "dilation": inid
with the `dilate` knob on reads its thread's CPU clock at each end of a
busy turn) and each cluster's MGS counters (RUN_DIR/mgs-cluster<C>.json:
with dilation on, the compute threads' and the protocol thread's CPU time):

  ini_passes          messages the INIs handled (sent + delivered + local:
                      an inter-cluster message counts at both of its INIs)
  ini_cpu_ns          the INIs' CPU time in their busy turns
  ini_turns           their busy turns
  ini_cpu_per_pass_ns ini_cpu_ns / ini_passes
  ini_busy_util       the INIs' busy share of the run from the counters
                      (every busy turn, dilated; the trace's utilization
                      counts only turns that finished a message), mean
  compute_cpu_us      the compute threads' CPU time, all nodes
  protocol_cpu_us     the protocol threads' CPU time, all clusters
  compute_stretch     the compute threads' dilated wall time over their
                      CPU time: K when the machine's own costs (a wake-up,
                      a sleep's overshoot) are nothing beside the work,
                      more by their share
  protocol_stretch    the same for the protocol threads
  nodes               compute nodes
  mgs_sent            MGS messages sent between clusters
Fields whose counters are absent (no dilation, or the no-INI stand-in) are
null.  Exit 1 when RUN_DIR has no MGS counters.
"""
import glob
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def profile(run):
    mgs = [m for m in (load(p) for p in sorted(glob.glob(os.path.join(run, "mgs-cluster*.json")))) if m]
    if not mgs:
        return None
    inis = [c for c in (load(p) for p in sorted(glob.glob(os.path.join(run, "ini*.counters.json")))) if c]
    dil = [c for c in inis if "dilation" in c]
    out = dict(ini_passes=None, ini_cpu_ns=None, ini_turns=None, ini_cpu_per_pass_ns=None, ini_busy_util=None)
    if dil:
        passes = sum(c["transport"]["msgs_sent"] + c["transport"]["msgs_delivered"] + c["messages"]["local"]
                     for c in dil)
        cpu = sum(c["dilation"]["cpu_ns"] for c in dil)
        out.update(ini_passes=passes, ini_cpu_ns=cpu, ini_turns=sum(c["dilation"]["turns"] for c in dil),
                   ini_cpu_per_pass_ns=round(cpu / passes, 1) if passes else None,
                   ini_busy_util=round(sum(c["busy"]["share"] for c in dil) / len(dil), 4))
    nodes = sum(len(m.get("nodes", [])) for m in mgs)
    ccpu, pcpu = sum(m.get("dilate_cpu_us", 0) for m in mgs), sum(m.get("protocol_dilate_cpu_us", 0) for m in mgs)
    cspan, pspan = sum(m.get("dilate_span_us", 0) for m in mgs), sum(m.get("protocol_dilate_span_us", 0) for m in mgs)
    out.update(compute_cpu_us=ccpu, protocol_cpu_us=pcpu,
               compute_stretch=round(cspan / ccpu, 2) if ccpu else None,
               protocol_stretch=round(pspan / pcpu, 2) if pcpu else None,
               nodes=nodes or None,
               mgs_sent=sum(v["sent"] for m in mgs for v in m.get("messages", {}).values()))
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.stderr.write("cpu_profile.py: usage: cpu_profile.py RUN_DIR\n")
        sys.exit(2)
    p = profile(sys.argv[1])
    if p is None:
        sys.stderr.write("cpu_profile.py: %s: no MGS counters (mgs-cluster*.json)\n" % sys.argv[1])
        sys.exit(1)
    print(json.dumps(p, sort_keys=True))
