"""beta.py - the INI speed factor beta of uniform dilation, derived once
(docs/experiments.md, "Beta"): the beta that makes an INI's cost per
message, relative to a compute node's cost for the same Water work, what it
was on the thesis's machine.

    beta.py INPUTS...        (files of tools/thesis/beta_inputs.sh)

The thesis (seed 002):
  c_th  cycles of one INI pass for Water's messages (about 200 B, table
        5.3's msg len), tables 5.1 and 5.2 at 200 bytes: the send path's
        queue, sliding window, UDP and IP (460 + 140 + 380 + 1134 = 2114)
        and the receive path's queue, IP, UDP, sliding window and the
        delivery handler (339 + 816 + 623 + 145 + 347 = 2270); their mean,
        2192.  Left out: the send handler (425), the compute node's copy to
        the INI, which here is the protocol thread's (compute-node) work.
        The queue columns are kept: with no contention they are the INI's
        own dispatch, as the turn's polling is here.
  W_th  Water's cost per compute node: its run time without INIs (the
        thesis's "No IO node", table 5.8's slowdown over table 5.5's
        interpolated run time, as calibrate.py derives it): 506.0, 428.8,
        336.3, 273.7 Mcycles at clusters of 1, 2, 4, 8.  It holds MGS's
        handlers, which ran on the compute nodes, and waits.
This system (beta_inputs.sh, thread CPU clocks under uniform dilation):
  c_here the INIs' CPU time per message pass, converted at 2.6 GHz
  W_here the compute threads' and the protocol thread's CPU time per
        compute node (MGS's handlers run on the protocol thread here);
        the waits are not in it (the thesis's W_th holds them: its ratio
        is the smaller for it, so this beta is if anything low)
R = c / W on each machine; beta(c) = R_th / R_here per cluster size, and
the one beta pools them: sum of R_th over the sizes / sum of R_here.
Prints the derivation with every number.
"""
import statistics
import sys

C_TH = (2114 + 2270) / 2.0
W_TH = {1: 506.0e6, 2: 428.8e6, 4: 336.3e6, 8: 273.7e6}
HZ = 2.6e9


def read(paths):
    rows = []
    for p in paths:
        for l in open(p):
            if l.strip() and not l.startswith("#"):
                f = l.split()
                rows.append(dict(size=int(f[0]), cpp=float(f[2]), comp=float(f[5]), prot=float(f[6]), nodes=int(f[7])))
    return rows


def main(paths):
    rows = read(paths)
    if not rows:
        sys.stderr.write("beta.py: no measurements in %s\n" % " ".join(paths))
        return 1
    print("# made by: tools/thesis/beta.py %s" % " ".join(paths))
    print("thesis: c_th = (2114 + 2270) / 2 = %.0f cycles per INI pass (tables 5.1, 5.2 at 200 B)" % C_TH)
    print("%4s %4s %14s %14s %12s %12s %8s" % ("size", "runs", "c_here (ns)", "W_here (ms)", "R_here", "R_th", "beta"))
    sth = sh = 0.0
    for s in sorted({r["size"] for r in rows}):
        rr = [r for r in rows if r["size"] == s]
        cpp = statistics.median(r["cpp"] for r in rr)
        w = statistics.median((r["comp"] + r["prot"]) / r["nodes"] for r in rr)   # us
        rh = (cpp * 1e-9 * HZ) / (w * 1e-6 * HZ)
        rt = C_TH / W_TH[s]
        sth, sh = sth + rt, sh + rh
        print("%4d %4d %14.0f %14.2f %12.3e %12.3e %8.4f" % (s, len(rr), cpp, w / 1000, rh, rt, rt / rh))
    print("beta = sum R_th / sum R_here = %.3e / %.3e = %.3f" % (sth, sh, sth / sh))
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        sys.stderr.write("beta.py: usage: beta.py INPUTS... (tools/thesis/beta_inputs.sh's files)\n")
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
