"""runs.py - the output layout of the experiments that repeat runs in a
seeded order (tools/thesis/experiments.sh, tools/sweeps/sweep.sh, through
tools/thesis/runs.sh): reading it, adding a report to it, and bringing a
directory of the older layout (OUT/raw/, a few files per run) into it.

An experiment's directory OUT holds

  meta.txt       how it was made: the command line (first line, "# ..."),
                 seed, commit, machine, knobs, the calibration used
  runs.tsv       the runs table: a header, then one row per run in the
                 order the runs were made.  Columns: seq (position in the
                 seeded order), the plan's columns (experiments.sh: cell
                 clusters pes inis kind policy; sweep.sh: workload knob
                 value), rep, status (ok, failed), runtime_s, load_before,
                 load_after (1-minute load average), others (share of the
                 machine's CPU other work used in the second before the
                 run), flag (ok, loaded), cpu_user_s, cpu_sys_s (CPU time
                 of the whole run), starts (1, or more when the daemons of
                 a start never became ready); and, sampled every second
                 while the run ran (runs of runs.sh since issue 30; older
                 tables lack them), load_mean and load_max (the 1-minute
                 load average), busy_mean and busy_max (the share of the
                 machine's CPU time used, our run's included) and
                 others_during (the share other work used: the machine's
                 busy time less the run's own CPU time, over wall time x
                 cores).  A run is flagged `loaded` when others or
                 others_during exceeds a quarter.  Since stop 40, the
                 machine's state just before the run (`ini-bench --probe`):
                 probe_rtt_ns (a cache line's round trip between the two
                 CPUs, meant to tell the VM's fast and slow states apart) and
                 probe_spin_ns (a core's step of dependent arithmetic).
                 An empty field: not measured.
  reports.jsonl  one JSON object per line, one line per run whose counts an
                 analysis reads (experiments.sh: every run with INIs and
                 each delay calibration; sweep.sh: the base runs): the
                 run's identifying columns as in runs.tsv (rep a number),
                 "report" (its `ini-trace report --format json`, null when
                 there was none) and, where kept, "programs" (the counters
                 the programs wrote, by file name) and other fields
                 (sweep.sh: "knob_spec", the --knob of the run)
  errors.log     only when something went wrong: each failed run, each
                 start whose daemons never became ready and any message of
                 ini-trace, as a "== WHAT" line followed by the logs
  and what the analysis made of them (tables, figures).

    runs.py add OUT [--id KEY=VALUE]... [--field KEY=VALUE]... [--report FILE] [--program FILE]...
    runs.py upgrade DIR

`add` appends one line to OUT/reports.jsonl (an unreadable report is
logged in OUT/errors.log and stored as null).  `upgrade` rewrites DIR from
the older layout in place: raw/meta.txt, raw/order.txt and the per-run
files (.time, .load, .cpu, .json, .trace.err, .log; sweep.sh's
raw/runs.tsv and raw/base-*/) become meta.txt, runs.tsv, reports.jsonl and
errors.log; raw/ is removed.  Nothing is dropped but empty error files and
the .us files, whose figure delay-calibration.txt holds.  Exit status 0, 1
on an unreadable directory, 2 on bad arguments.
"""
import csv
import glob
import json
import lzma
import os
import re
import shutil
import sys

if not __package__:
    sys.exit("runs.py: run it as `PYTHONPATH=tools python3 -m inimeasure.runs` from the repository's root")
from inimeasure import dier  # noqa: E402

METRICS = ["status", "runtime_s", "load_before", "load_after", "others", "flag", "cpu_user_s", "cpu_sys_s", "starts"]


def read_meta(out):
    p = os.path.join(out, "meta.txt")
    return open(p).read() if os.path.exists(p) else ""


def read_runs(out):
    """The rows of OUT/runs.tsv as dicts of strings, in the order of the file."""
    with open(os.path.join(out, "runs.tsv"), newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def read_reports(out):
    """The lines of OUT/reports.jsonl, or of OUT/reports.jsonl.xz (a large
    one is committed compressed), as dicts; none when neither exists."""
    p = os.path.join(out, "reports.jsonl")
    if os.path.exists(p):
        f = open(p)
    elif os.path.exists(p + ".xz"):
        f = lzma.open(p + ".xz", "rt")
    else:
        return []
    with f:
        return [json.loads(l) for l in f if l.strip()]


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def add_error(out, title, text):
    if text.strip():
        with open(os.path.join(out, "errors.log"), "a") as f:
            f.write("== %s\n%s%s" % (title, text, "" if text.endswith("\n") else "\n"))


def load_json(path, out=None, what=""):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        if out:
            add_error(out, "%s: %s is not JSON (%s)" % (what, os.path.basename(path), e), open(path, errors="replace").read()
                      if os.path.exists(path) else "")
        return None


def kv(s, flag):
    if "=" not in s:
        die("%s: expected KEY=VALUE, got '%s'" % (flag, s), 2)
    k, v = s.split("=", 1)
    return k, v


def ident(k, v):
    """An identifying column's value as stored: the repetition as a number."""
    return int(v) if k == "rep" and re.fullmatch(r"\d+", v) else v


die = dier("runs.py", 1)


def cmd_add(args):
    if not args or args[0].startswith("-"):
        die("add: usage: runs.py add OUT [--id K=V]... [--field K=V]... [--report FILE] [--program FILE]...", 2)
    out, line, programs, report = args.pop(0), {}, {}, None
    what = []
    while args:
        flag = args.pop(0)
        if not args:
            die("%s needs a value" % flag, 2)
        val = args.pop(0)
        if flag == "--id":
            k, v = kv(val, flag)
            line[k] = ident(k, v)
            what.append("%s %s" % (k, v))
        elif flag == "--field":
            k, v = kv(val, flag)
            line[k] = v
        elif flag == "--report":
            report = val
        elif flag == "--program":
            programs[os.path.basename(val)] = val
        else:
            die("add: unknown option '%s'" % flag, 2)
    title = ", ".join(what)
    line["report"] = load_json(report, out, title) if report else None
    if programs:
        line["programs"] = {n: load_json(p, out, title) for n, p in sorted(programs.items())}
    with open(os.path.join(out, "reports.jsonl"), "a") as f:
        f.write(dumps(line) + "\n")


# ---- the older layout ----

def text(path):
    with open(path, errors="replace") as f:
        return f.read()


def write_runs(out, cols, rows):
    with open(os.path.join(out, "runs.tsv"), "w") as f:
        f.write("\t".join(["seq"] + cols + ["rep"] + METRICS) + "\n")
        for r in rows:
            f.write("\t".join(str(r.get(c, "")) for c in ["seq"] + cols + ["rep"] + METRICS) + "\n")


def upgrade_thesis(out, raw, order):
    """experiments.sh's raw/: NAME-REP.{time,load,cpu,json,trace.err,log,start-N.log}."""
    rows, reports = [], []
    for seq, (name, C, P, I, kind, pol, rep) in enumerate(order, 1):
        base = os.path.join(raw, "%s-%s" % (name, rep))
        r = dict(seq=seq, cell=name, clusters=C, pes=P, inis=I, kind=kind, policy=pol, rep=rep)
        starts = sorted(glob.glob(base + ".start-*.log"), key=lambda p: int(p.rsplit("-", 1)[1][:-4]))
        r["starts"] = 1 + len(starts)
        if os.path.exists(base + ".time"):
            r["status"], r["runtime_s"] = "ok", text(base + ".time").strip()
        else:
            r["status"] = "failed" if os.path.exists(base + ".load") else "not run"
        if os.path.exists(base + ".load"):
            f = text(base + ".load").split()
            r.update(zip(["load_before", "load_after", "others", "flag"], f))
        if os.path.exists(base + ".cpu"):
            last = [l for l in text(base + ".cpu").splitlines() if l.strip()]
            f = last[-1].split() if last else []
            if len(f) == 2:
                r["cpu_user_s"], r["cpu_sys_s"] = f
            if len(last) > 1:
                add_error(out, "%s rep %s: /usr/bin/time" % (name, rep), "\n".join(last[:-1]))
        for p in starts:
            n = p.rsplit("-", 1)[1][:-4]
            add_error(out, "%s rep %s: start %s: daemons not ready" % (name, rep, n), text(p))
        if os.path.exists(base + ".log"):
            add_error(out, "%s rep %s: failed" % (name, rep), text(base + ".log"))
        if os.path.exists(base + ".trace.err"):
            add_error(out, "%s rep %s: ini-trace report" % (name, rep), text(base + ".trace.err"))
        if os.path.exists(base + ".json"):
            ids = {k: r[k] for k in ("cell", "clusters", "pes", "inis", "kind", "policy")}
            reports.append(dumps(dict(ids, rep=int(rep),
                                      report=load_json(base + ".json", out, "%s rep %s" % (name, rep)))))
        rows.append(r)
    # The "INI delay" calibration: one Water run and one ini-ping run per
    # cluster size, before the runs.
    cal = []
    for p in sorted(glob.glob(os.path.join(raw, "c*-delay-*.json")), key=lambda p: (len(p), p)):
        m = re.match(r"(c\d+-delay)-(water|ping)\.json$", os.path.basename(p))
        if m:
            cal.append(dumps({"cell": m[1], "calibration": m[2], "report": load_json(p, out, m[0])}))
    for p in glob.glob(os.path.join(raw, "c*-delay.us")):
        size = re.match(r"c(\d+)-delay\.us$", os.path.basename(p))[1]
        us = text(p).strip()
        dc = text(os.path.join(raw, "delay-calibration.txt"))
        if not re.search(r"^size=%s .*delay_us=%s( |$)" % (size, re.escape(us)), dc, re.M):
            die("%s: %s us is not in delay-calibration.txt" % (p, us))
    # Logs the older experiments.sh copied from a failed run's directory
    # (each failure overwrote the previous one's).
    for p in sorted(glob.glob(os.path.join(raw, "*.log"))):
        if not re.match(r"c\d+-", os.path.basename(p)):
            add_error(out, "%s, copied from the directory of the last failed run" % os.path.basename(p), text(p))
    write_runs(out, ["cell", "clusters", "pes", "inis", "kind", "policy"], rows)
    with open(os.path.join(out, "reports.jsonl"), "w") as f:
        f.write("".join(l + "\n" for l in cal + reports))
    if os.path.exists(os.path.join(raw, "delay-calibration.txt")):
        shutil.copy(os.path.join(raw, "delay-calibration.txt"), out)


def upgrade_sweep(out, raw, order):
    """sweep.sh's raw/: runs.tsv (the runs that succeeded), base-TAG-REP/, fail-TAG.log."""
    done = {}
    with open(os.path.join(raw, "runs.tsv"), newline="") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            done[(r["workload"], r["knob"], r["value"], r["rep"])] = r
    rows, reports = [], []
    for seq, (wl, k, v, rep) in enumerate(order, 1):
        r = dict(seq=seq, workload=wl, knob=k, value=v, rep=rep)
        d = done.pop((wl, k, v, rep), None)
        tag = "%s-%s-%s-%s" % (wl.replace(":", "_"), k, v, rep)
        if d:
            r.update(status="ok", starts=1, **{c: d[c] for c in ("runtime_s", "load_before", "load_after", "others", "flag")})
        else:
            r["status"] = "failed" if os.path.exists(os.path.join(raw, "fail-%s.log" % tag)) else "not run"
        if os.path.exists(os.path.join(raw, "fail-%s.log" % tag)):
            add_error(out, "%s %s %s rep %s: failed" % (wl, k, v, rep), text(os.path.join(raw, "fail-%s.log" % tag)))
        keep = os.path.join(raw, "base-%s-%s" % (wl.replace(":", "_"), rep))
        if k == "base" and os.path.isdir(keep):
            title = "%s base rep %s" % (wl, rep)
            line = {"workload": wl, "knob": k, "value": v, "rep": int(rep)}
            if os.path.exists(os.path.join(keep, "knob.txt")):
                line["knob_spec"] = text(os.path.join(keep, "knob.txt")).strip()
            rp = os.path.join(keep, "report.json")
            line["report"] = load_json(rp, out, title) if os.path.exists(rp) else None
            if os.path.exists(os.path.join(keep, "report.err")):
                add_error(out, title + ": ini-trace report", text(os.path.join(keep, "report.err")))
            progs = sorted(p for p in os.listdir(keep) if re.match(r"(mgs|synth)-cluster\d+\.json$", p))
            line["programs"] = {p: load_json(os.path.join(keep, p), out, title) for p in progs}
            reports.append(dumps(line))
        rows.append(r)
    if done:
        die("%s: runs.tsv has runs that are not in order.txt: %s" % (raw, sorted(done)[:3]))
    write_runs(out, ["workload", "knob", "value"], rows)
    with open(os.path.join(out, "reports.jsonl"), "w") as f:
        f.write("".join(l + "\n" for l in reports))


def cmd_upgrade(args):
    if len(args) != 1:
        die("upgrade: usage: runs.py upgrade DIR", 2)
    out = args[0]
    raw = os.path.join(out, "raw")
    if not os.path.isfile(os.path.join(raw, "order.txt")):
        die("%s: no raw/order.txt (not an experiment directory of the older layout)" % out)
    order = [l.split() for l in open(os.path.join(raw, "order.txt")) if l.strip()]
    for name in ("runs.tsv", "reports.jsonl", "errors.log"):
        if os.path.exists(os.path.join(out, name)):
            die("%s/%s exists already" % (out, name))
    if all(len(o) == 7 for o in order):
        upgrade_thesis(out, raw, order)
    elif all(len(o) == 4 for o in order) and os.path.exists(os.path.join(raw, "runs.tsv")):
        upgrade_sweep(out, raw, order)
    else:
        die("%s: raw/order.txt is neither experiments.sh's nor sweep.sh's" % out)
    shutil.copy(os.path.join(raw, "meta.txt"), out)
    shutil.rmtree(raw)


def main(argv):
    if len(argv) > 1 and argv[1] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        sys.exit(0)
    if len(argv) < 2:
        die("usage: runs.py add OUT ... | runs.py upgrade DIR (--help)", 2)
    cmd, args = argv[1], argv[2:]
    if cmd == "add":
        cmd_add(args)
    elif cmd == "upgrade":
        cmd_upgrade(args)
    else:
        die("unknown command '%s' (add, upgrade)" % cmd, 2)


if __name__ == "__main__":
    main(sys.argv)
