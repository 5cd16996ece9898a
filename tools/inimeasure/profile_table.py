"""profile_table.py - the table of tools/trace/profile_runs.sh: Water's
communication profile per layout and variant (seed 000's table 4), beside
the thesis's message counts estimated from its tables.

    profile_table.py OUT

Reads OUT/profiles.jsonl (and OUT/reports.jsonl, OUT/runs.tsv) and writes
OUT/water-profile.txt and .csv.  Figures are medians over a cell's runs.

The thesis gives no message count; its tables give one.  An INI with
utilization U over a run of T cycles was busy U x T cycles; one pass of a
message through an INI (sending or receiving) took about 2,940 cycles at
~200 bytes (tables 5.1 and 5.2: 2,875 cycles to send, 3,005 to receive,
each from the message's arrival in the INI to its end, so an unloaded
queue of ~400 cycles and the compute node's handler included); every
message passes two INIs.  With one INI per cluster, U from table 5.3 and
T from table 5.5 (static):

    messages = U x T x INIs / (2 x 2,940)

clusters of 1: 0.351 x 972 M x 16 / 5,880 = 928 k; of 2: 0.464 x 852 M x
8 / 5,880 = 538 k; of 4: 0.579 x 697 M x 4 / 5,880 = 275 k; of 8: 0.737
x 504 M x 2 / 5,880 = 126 k.  Busy time is service, not queueing, so the
cycles a pass keeps an INI busy are fewer than 2,940: without the
unloaded queue (460 and 339 cycles) and the sending node's handler (425),
(1,990 + 2,666) / 2 = 2,328, which makes 1.26 times as many messages
(the second estimate column).  Exit status 0, 1 without profiles.
"""
import json
import os
import statistics
import sys

if not __package__:
    sys.exit("profile_table.py: run it as `PYTHONPATH=tools python3 -m inimeasure.profile_table` from the repository's root")
from inimeasure import runs  # noqa: E402

# cluster size -> (U, T Mcycles) of the thesis with one INI per cluster, static (tables 5.3, 5.5)
THESIS = {1: (0.351, 972), 2: (0.464, 852), 4: (0.579, 697), 8: (0.737, 504)}
PASS_TOTAL, PASS_SERVICE = 2940, 2328
GROUPS = [("page", ("RREQ", "WREQ", "DATA", "SETUP", "SETUP_ACK")),
          ("release", ("REL", "INV", "ACK", "DIFF", "RACK", "SWGRANT", "RECALL", "RECALL_DATA")),
          ("lock", ("LOCK_REQ", "LOCK_FWD", "TOKEN")),
          ("barrier", ("ARRIVE", "GO")), ("other", ("BLOB",))]


def thesis_messages(size, per_pass):
    u, t = THESIS[size]
    inis = 16 // size
    return u * t * 1e6 * inis / (2 * per_pass)


def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) == 2 else 2
    out = argv[1]
    path = os.path.join(out, "profiles.jsonl")
    if not os.path.exists(path):
        sys.stderr.write("profile_table.py: %s: no profiles\n" % path)
        return 1
    cells = {}
    for line in open(path):
        if line.strip():
            d = json.loads(line)
            cells.setdefault((d["layout"], d["variant"]), []).append(d["profile"])
    rows = []
    for (layout, variant), ps in sorted(cells.items(), key=lambda kv: (-int(kv[0][0].split("x")[0]), kv[0][1])):
        nodes = ps[0]["nodes"]
        size = int(layout.split("x")[1])
        total = med([sum(t["msgs"] for t in p["types"].values()) for p in ps])
        row = {
            "layout": layout, "variant": variant, "runs": len(ps), "nodes": nodes,
            "run_s": med([p["run_s"] for p in ps]),
            "msgs_total": total,
            "msgs_mean": med([p["msgs_mean"] for p in ps]), "msgs_max": med([p["msgs_max"] for p in ps]),
            "bytes_mean": med([p["bytes_mean"] for p in ps]), "bytes_max": med([p["bytes_max"] for p in ps]),
            "interval_us": med([p["interval_us"] for p in ps]),
            "barrier_ms": med([p["barrier_interval_ms"] for p in ps]),
            "faults": med([p["requests"].get("fault", {}).get("count", 0) / nodes for p in ps]),
            "locks": med([p["requests"].get("lock", {}).get("count", 0) / nodes for p in ps]),
            "barriers": med([p["requests"].get("barrier", {}).get("count", 0) / nodes for p in ps]),
            "fault_wait_us": med([p["requests"].get("fault", {}).get("mean_wait_us") for p in ps]),
            "lock_wait_us": med([p["requests"].get("lock", {}).get("mean_wait_us") for p in ps]),
        }
        row["msg_len"] = row["bytes_mean"] / row["msgs_mean"] if row["msgs_mean"] else None
        for name, types in GROUPS:
            row["share_" + name] = med([sum(p["types"].get(t, {}).get("msgs", 0) for t in types) /
                                        max(1, sum(t["msgs"] for t in p["types"].values())) for p in ps])
        if size in THESIS and nodes == 16:
            row["thesis_total"] = thesis_messages(size, PASS_TOTAL)
            row["thesis_service"] = thesis_messages(size, PASS_SERVICE)
            row["gap"] = row["thesis_total"] / total if total else None
        rows.append(row)
    cols = ["layout", "variant", "runs", "run_s", "msgs_total", "thesis_total", "thesis_service", "gap", "msgs_mean",
            "msgs_max", "bytes_mean", "bytes_max", "msg_len", "interval_us", "barrier_ms", "faults", "locks",
            "barriers", "fault_wait_us", "lock_wait_us"] + ["share_" + g for g, _ in GROUPS]
    with open(os.path.join(out, "water-profile.csv"), "w") as f:
        f.write(",".join(cols) + "\n")
        for r in rows:
            f.write(",".join("" if r.get(c) is None else (("%.6g" % r[c]) if isinstance(r[c], float) else str(r[c]))
                             for c in cols) + "\n")
    with open(os.path.join(out, "water-profile.txt"), "w") as f:
        f.write("# %s\n" % (runs.read_meta(out).splitlines() or ["?"])[0].lstrip("# "))
        f.write("Water's communication profile (seed 000, table 4), inter-cluster messages, one INI per cluster, "
                "static; per compute node unless said; medians over the runs\n")
        f.write("%-6s %-13s %4s %7s %9s %9s %9s %6s %8s %7s %9s %6s %9s %8s %7s %7s %6s\n" % (
            "layout", "variant", "runs", "run s", "messages", "thesis", "thesis'", "gap", "msgs", "max", "bytes", "len",
            "interval", "barrier", "faults", "locks", "bars"))
        f.write("%-6s %-13s %4s %7s %9s %9s %9s %6s %8s %7s %9s %6s %9s %8s %7s %7s %6s\n" % (
            "", "", "", "", "all", "(2,940)", "(2,328)", "x", "mean", "", "mean", "B", "us", "ms", "", "", ""))
        for r in rows:
            g = lambda k, fmt: "-" if r.get(k) is None else fmt % r[k]
            f.write("%-6s %-13s %4d %7s %9s %9s %9s %6s %8s %7s %9s %6s %9s %8s %7s %7s %6s\n" % (
                r["layout"], r["variant"], r["runs"], g("run_s", "%.2f"), g("msgs_total", "%.0f"),
                g("thesis_total", "%.0f"), g("thesis_service", "%.0f"), g("gap", "%.1f"), g("msgs_mean", "%.0f"),
                g("msgs_max", "%.0f"), g("bytes_mean", "%.0f"), g("msg_len", "%.0f"), g("interval_us", "%.0f"),
                g("barrier_ms", "%.1f"), g("faults", "%.0f"), g("locks", "%.0f"), g("barriers", "%.0f")))
        f.write("\nShare of the messages by protocol activity\n%-6s %-13s" % ("layout", "variant") +
                "".join(" %8s" % n for n, _ in GROUPS) + "\n")
        for r in rows:
            f.write("%-6s %-13s" % (r["layout"], r["variant"]) +
                    "".join(" %7.1f%%" % (100 * r["share_" + n]) for n, _ in GROUPS) + "\n")
        f.write("\nthesis: U x T x INIs / (2 x cycles per INI pass), tables 5.3 and 5.5 (profile_table.py says "
                "why); gap: thesis (2,940) over ours.\n")
    sys.stdout.write(open(os.path.join(out, "water-profile.txt")).read())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
