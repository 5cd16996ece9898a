"""check_timeline.py - checks a Chrome trace-event file (what `ini-trace
timeline` writes) against the trace event format, and, given the run's
`ini-trace report --format json`, that its INI services are the report's.

    check_timeline.py FILE.json [--report REPORT.json]

The format (the Trace Event Format document that chrome://tracing and
Perfetto's JSON importer follow): an object with a "traceEvents" list (a
bare list is also accepted); every event an object with a one-letter
phase "ph"; all but metadata with a numeric "ts" (microseconds) and
integer "pid" and "tid"; complete events ("X") with a name and a
non-negative "dur"; async events ("b", "e") with a name, "cat" and "id",
each end after its begin of the same (pid, cat, id, name); flow events
("s", "t", "f") with "cat" and "id", one start and one end per (cat,
name, id), steps between, and each inside a complete event on its own
(pid, tid), since a v1 flow point binds to the slice enclosing it;
metadata ("M") naming a process or thread with args.name or giving a sort
index.  Complete events on one (pid, tid) must nest: two slices of one
thread either do not overlap or one contains the other.

With --report: per INI (the thread named "INI <id>"), the service slices
(cat "service") number its trace's records (out + in + local) and their
union is its busy time, the report's busy_cycles at the rate the timeline
converted that INI's stamps with (otherData.ini_ns_per_cycle: the host's
measured TSC rate, where the report uses the INI's nominal one), to 2 ns
per slice (the file's timestamps are rounded to the ns).

Prints one line per check and "ok" or the first problems; exit status 0,
1 when a check fails, 2 on bad arguments or an unreadable file.
"""
import json
import sys
from collections import defaultdict

if not __package__:
    sys.exit("check_timeline.py: run it as `PYTHONPATH=tools python3 -m inimeasure.check_timeline` from the repository's root")
from inimeasure import dier  # noqa: E402

PHASES = set("XBEbenstfMiICR")
EPS = 0.0015   # us: timestamps are printed to the ns


fail = dier("check_timeline.py")


def check_fields(events, problems):
    for i, e in enumerate(events):
        if not isinstance(e, dict):
            problems.append("event %d: not an object" % i)
            continue
        ph = e.get("ph")
        if not isinstance(ph, str) or ph not in PHASES:
            problems.append("event %d: phase %r is not one of the format's" % (i, ph))
            continue
        if ph == "M":
            if e.get("name") not in ("process_name", "thread_name", "process_sort_index", "thread_sort_index",
                                     "process_labels"):
                problems.append("event %d: unknown metadata %r" % (i, e.get("name")))
            elif not isinstance(e.get("args"), dict):
                problems.append("event %d: metadata without args" % i)
            continue
        if not isinstance(e.get("ts"), (int, float)) or e["ts"] < 0:
            problems.append("event %d (%s): ts missing or negative" % (i, ph))
        for k in ("pid", "tid"):
            if not isinstance(e.get(k), int):
                problems.append("event %d (%s): %s is not an integer" % (i, ph, k))
        if ph in "XBEbeistf" and not isinstance(e.get("name"), str):
            problems.append("event %d (%s): no name" % (i, ph))
        if ph == "X" and (not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0):
            problems.append("event %d (X): dur missing or negative" % i)
        if ph in "bestf" and ("id" not in e or not isinstance(e.get("cat"), str)):
            problems.append("event %d (%s): needs cat and id" % (i, ph))
        if len(problems) > 20:
            return


def check_nesting(slices, problems):
    """Complete events of one thread nest or do not overlap."""
    for key, ss in slices.items():
        ss.sort(key=lambda x: (x[0], -x[1]))
        stack = []
        for a, b, name in ss:
            while stack and stack[-1][1] <= a + EPS:
                stack.pop()
            if stack and b > stack[-1][1] + EPS:
                problems.append("pid %d tid %d: %r [%.3f, %.3f] overlaps %r [%.3f, %.3f] without nesting"
                                % (key[0], key[1], name, a, b, stack[-1][2], stack[-1][0], stack[-1][1]))
                return
            stack.append((a, b, name))


def enclosed(slices, key, ts):
    ss = slices.get(key, [])
    lo, hi = 0, len(ss)
    while lo < hi:     # ss sorted by start: the last starting at or before ts
        mid = (lo + hi) // 2
        if ss[mid][0] <= ts + EPS:
            lo = mid + 1
        else:
            hi = mid
    k = lo - 1
    while k >= 0 and k >= lo - 64:
        if ss[k][0] <= ts + EPS and ts <= ss[k][1] + EPS:
            return True
        k -= 1
    return False


def check_async(events, problems):
    open_ = defaultdict(list)
    for e in events:
        if e.get("ph") not in ("b", "e"):
            continue
        key = (e["pid"], e["cat"], str(e["id"]), e["name"])
        if e["ph"] == "b":
            open_[key].append(e["ts"])
        elif not open_[key]:
            problems.append("async %r id %s: end without begin" % (e["name"], e["id"]))
            return
        else:
            if e["ts"] + EPS < open_[key].pop():
                problems.append("async %r id %s: ends before it begins" % (e["name"], e["id"]))
                return
    left = [k for k, v in open_.items() if v]
    if left:
        problems.append("%d async slices never end (first: %r)" % (len(left), left[0]))


def check_flows(events, slices, problems):
    flows = defaultdict(list)
    for e in events:
        if e.get("ph") in ("s", "t", "f"):
            flows[(e["cat"], e["name"], str(e["id"]))].append(e)
    for key, pts in flows.items():
        kinds = [p["ph"] for p in pts]
        if kinds.count("s") != 1 or kinds.count("f") != 1:
            problems.append("flow %s: %d starts, %d ends" % (key[2], kinds.count("s"), kinds.count("f")))
            return
        s = next(p for p in pts if p["ph"] == "s")["ts"]
        f = next(p for p in pts if p["ph"] == "f")["ts"]
        out = [p for p in pts if not (s - EPS <= p["ts"] <= f + EPS)]
        if out:
            problems.append("flow %s: its %s point at %.3f us (pid %d tid %d) is outside [%.3f, %.3f]"
                            % (key[2], out[0]["ph"], out[0]["ts"], out[0]["pid"], out[0]["tid"], s, f))
            return
        for p in pts:
            if not enclosed(slices, (p["pid"], p["tid"]), p["ts"]):
                problems.append("flow %s: its %s point at %.3f us is in no slice of pid %d tid %d"
                                % (key[2], p["ph"], p["ts"], p["pid"], p["tid"]))
                return
    return len(flows)


def union(iv):
    iv.sort()
    total, hi = 0.0, None
    lo = None
    for a, b in iv:
        if hi is None or a > hi:
            if hi is not None:
                total += hi - lo
            lo, hi = a, b
        else:
            hi = max(hi, b)
    if hi is not None:
        total += hi - lo
    return total


def check_report(doc, events, report, problems):
    names = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name" and str(e["args"].get("name", "")).startswith("INI "):
            names[(e["pid"], e["tid"])] = int(e["args"]["name"].split()[1])
    services = defaultdict(list)
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "service":
            ini = names.get((e["pid"], e["tid"]))
            if ini is None:
                problems.append("a service slice on a thread that is no INI (pid %d tid %d)" % (e["pid"], e["tid"]))
                return
            services[ini].append((e["ts"], e["ts"] + e["dur"]))
    lines = []
    for c in report["clusters"]:
        for i in c["inis"]:
            want_n = i["msgs_out"] + i["msgs_in"] + i["msgs_local"]
            rate = doc.get("otherData", {}).get("ini_ns_per_cycle", {}).get(str(i["ini"]))
            want_busy = i["busy_cycles"] * (rate / 1e3 if rate else 1e6 / i["tsc_hz"])
            got = services.get(i["ini"], [])
            busy = union(list(got))
            tol = 0.002 * max(len(got), 1)
            lines.append("INI %d: %d service slices (report: %d), busy %.3f us (report: %.3f us)"
                         % (i["ini"], len(got), want_n, busy, want_busy))
            if len(got) != want_n:
                problems.append("INI %d: %d service slices, the report has %d messages" % (i["ini"], len(got), want_n))
            if abs(busy - want_busy) > tol:
                problems.append("INI %d: busy %.3f us, the report's %.3f us" % (i["ini"], busy, want_busy))
    return lines


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip().split("\n\n")[1])
        sys.exit(0 if len(argv) > 1 else 2)
    path, report = argv[1], None
    if len(argv) == 4 and argv[2] == "--report":
        try:
            report = json.load(open(argv[3]))
        except (OSError, ValueError) as e:
            fail("%s: %s" % (argv[3], e))
    elif len(argv) != 2:
        fail("usage: check_timeline.py FILE.json [--report REPORT.json]")
    try:
        doc = json.load(open(path))
    except (OSError, ValueError) as e:
        fail("%s: %s" % (path, e))
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        print("%s: FAIL: no traceEvents list" % path)
        return 1
    problems = []
    check_fields(events, problems)
    slices = defaultdict(list)
    if not problems:
        for e in events:
            if e["ph"] == "X":
                slices[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"], e["name"]))
        check_nesting(slices, problems)
    n_flows = 0
    if not problems:
        check_async(events, problems)
        n_flows = check_flows(events, slices, problems) or 0
    print("%s: %d events, %d complete slices on %d threads, %d flows" % (path, len(events),
          sum(len(v) for v in slices.values()), len(slices), n_flows))
    if report is not None and not problems:
        for line in check_report(doc if isinstance(doc, dict) else {}, events, report, problems):
            print("  " + line)
    if problems:
        for p in problems[:10]:
            print("%s: FAIL: %s" % (path, p))
        return 1
    print("%s: ok" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
