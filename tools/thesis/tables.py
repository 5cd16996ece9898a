#!/usr/bin/env python3
"""Turns the raw results of tools/thesis/experiments.sh (OUT/raw) into the
thesis's tables 5.3-5.9 (text and CSV) and figures 5-1, 5-2 (PNG, gnuplot)."""
import glob, json, math, os, re, statistics, subprocess, sys

out, cmd = sys.argv[1], sys.argv[2]
raw = os.path.join(out, "raw")
HZ = None
runs = {}   # (size, ios, policy) -> dict
times = {}  # name -> [seconds]
for f in glob.glob(os.path.join(raw, "*.time")):
    name = re.sub(r"-\d+\.time$", "", os.path.basename(f))
    times.setdefault(name, []).append(float(open(f).read()))
for name in sorted(times):
    m = re.match(r"c(\d+)-i(\d+)-(.+)$", name)
    if not m:
        continue
    size, ios, pol = int(m[1]), int(m[2]), m[3]
    js = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(raw, name + "-*.json")))]
    if not js:
        continue
    mach = [j["machine"] for j in js]
    mis = [j["misrouting_all"] for j in js]
    tsc = js[0]["clusters"][0]["inis"][0]["tsc_hz"]
    HZ = HZ or tsc
    avg = lambda k, L=mach: statistics.mean(x[k] for x in L if x.get(k) is not None)
    r = dict(size=size, ios=ios, pol=pol, n=len(js), time=statistics.median(times[name]),
             times=times[name], len=avg("msg_len"), ns=avg("msg_ns"), cyc=avg("msg_cycles"),
             q=avg("queue_len"), util=avg("utilization"), msgs=avg("msgs_out"))
    if all(x.get("applicable") for x in mis):
        r["mis_t"] = avg("mis_sched_time_rate", mis)
        r["mis_c"] = avg("mis_sched_count_rate", mis)
    runs[(size, ios, pol)] = r
base = {}
for size in (1, 2, 4, 8):
    for kind in ("noini", "delay"):
        n = "c%d-%s" % (size, kind)
        if n in times:
            base[(size, kind)] = statistics.median(times[n])
    d = os.path.join(raw, "c%d-delay.us" % size)
    if os.path.exists(d):
        base[(size, "delay_us")] = float(open(d).read())

meta = open(os.path.join(raw, "meta.txt")).read().splitlines()[1] if os.path.exists(os.path.join(raw, "meta.txt")) else ""
header = "# made by: %s\n# %s\n" % (cmd, meta)
pols = [p for p in ("static", "round-robin", "load-aware") if any(k[2] == p for k in runs)]
files = {}
def emit(fname, title, cols, rows, note=""):
    w = [max(len(str(c)), *(len(str(r[i])) for r in rows)) if rows else len(str(c)) for i, c in enumerate(cols)]
    t = header + title + "\n" + (note + "\n" if note else "") + "\n"
    t += "  ".join(str(c).rjust(w[i]) for i, c in enumerate(cols)) + "\n"
    for r in rows:
        t += "  ".join(str(v).rjust(w[i]) for i, v in enumerate(r)) + "\n"
    open(os.path.join(out, fname + ".txt"), "w").write(t)
    c = header + ",".join(str(x) for x in cols) + "\n" + "".join(",".join(str(v) for v in r) + "\n" for r in rows)
    open(os.path.join(out, fname + ".csv"), "w").write(c)
    files[fname] = t

def keys(pol):
    return sorted((k for k in runs if k[2] == pol), key=lambda k: (k[0], k[1]))

tabno = {"static": "5.3", "round-robin": "5.4", "load-aware": "5.4b"}
for pol in pols:
    rows = [(r["size"], r["ios"], "%.0f" % r["len"], "%.0f" % r["ns"], "%.0f" % r["cyc"], "%.3f" % r["q"], "%.3f" % r["util"], "%.0f" % r["msgs"])
            for r in (runs[k] for k in keys(pol))]
    emit("table%s_ini_%s" % (tabno[pol].replace(".", "_"), pol),
         "Table %s: INI performance running Water on MGS, %s INI scheduling" % (tabno[pol], pol),
         ["clu size", "ios per clu", "msg len (B)", "msg time (ns)", "msg time (cycles)", "queue length", "INI utilization", "msgs"], rows,
         "msg time = time in the sending plus the receiving INI (queue included); averages over the machine and the repetitions")

order = [(1, 1), (2, 2), (2, 1), (4, 4), (4, 2), (4, 1), (8, 8), (8, 4), (8, 2), (8, 1)]
order = [o for o in order if any((o[0], o[1], p) in runs for p in pols)]
rows = [["clu size"] + [o[0] for o in order], ["clu ios"] + [o[1] for o in order]]
for pol in pols:
    rows.append([pol + " (ms)"] + ["%.0f" % (runs[(o[0], o[1], pol)]["time"] * 1000) if (o[0], o[1], pol) in runs else "-" for o in order])
rows.append(["no INI (ms)"] + ["%.0f" % (base[(o[0], "noini")] * 1000) if (o[0], "noini") in base else "-" for o in order])
rows.append(["INI delay (ms)"] + ["%.0f" % (base[(o[0], "delay")] * 1000) if (o[0], "delay") in base else "-" for o in order])
emit("table5_5_runtime", "Table 5.5: Water run time (ms, median of repetitions) with static and round-robin INI scheduling",
     [""] + [""] * len(order), rows[:0] or rows, "baselines per cluster size: no INI = cluster-fake-inid; INI delay = fake inid + a fixed per-message delay (%s)" %
     ", ".join("size %d: %.2f us" % (s, base[(s, "delay_us")]) for s in (1, 2, 4, 8) if (s, "delay_us") in base))

for pol, no in (("static", "5.6"), ("round-robin", "5.7"), ("load-aware", "5.7b")):
    if pol not in pols:
        continue
    rows = [(r["size"], r["ios"], "%.1f%%" % (100 * r["mis_t"]), "%.1f%%" % (100 * r["mis_c"]))
            for r in (runs[k] for k in keys(pol)) if "mis_t" in r]
    emit("table%s_misrouting_%s" % (no.replace(".", "_"), pol),
         "Table %s: intra-cluster INI load imbalance (misrouting), %s INI scheduling" % (no, pol),
         ["clu size", "ios per clu", "mis sched time rate", "mis sched count rate"], rows)

def interp(size, x, pol, field):
    pts = sorted((k[1], runs[k]) for k in runs if k[0] == size and k[2] == pol)
    if not pts:
        return None
    for (x0, r0), (x1, r1) in zip(pts, pts[1:]):
        if x0 <= x <= x1:
            a = (x - x0) / (x1 - x0)
            return r0[field] * (1 - a) + r1[field] * a
    for xi, ri in pts:
        if abs(xi - x) < 1e-9:
            return ri[field]
    return None
for pol, no in (("static", "5.8"), ("round-robin", "5.9"), ("load-aware", "5.9b")):
    if pol not in pols:
        continue
    sizes = [s for s in (1, 2, 4, 8) if any(k[0] == s and k[2] == pol for k in runs)]
    xs = {s: math.sqrt(s) for s in sizes}
    def cell(s, f, fmt):
        v = interp(s, xs[s], pol, f)
        return fmt % v if v is not None else "-"
    def slow(s):
        v = interp(s, xs[s], pol, "time")
        return "%.3f" % (v / base[(s, "noini")]) if v is not None and (s, "noini") in base else "-"
    rows = [["clu size"] + sizes, ["clu ios"] + ["%.2f" % xs[s] for s in sizes],
            ["msg time (ns)"] + [cell(s, "ns", "%.0f") for s in sizes],
            ["que len"] + [cell(s, "q", "%.3f") for s in sizes],
            ["INI util"] + [cell(s, "util", "%.3f") for s in sizes],
            ["slowdown"] + [slow(s) for s in sizes]]
    emit("table%s_sqrt_scaling_%s" % (no.replace(".", "_"), pol),
         "Table %s: INIs per cluster scaled as sqrt(cluster size), %s INI scheduling" % (no, pol),
         [""] * (len(sizes) + 1), rows,
         "non-integer INI counts linearly interpolated between the measured neighbours, as in the thesis; slowdown = run time / no-INI run time")

# figures 5-1, 5-2: run time against cluster size, one line per total INI count
for pol, fig in (("static", "5-1"), ("round-robin", "5-2"), ("load-aware", "5-2b")):
    if pol not in pols:
        continue
    dat = os.path.join(out, "figure%s_%s.dat" % (fig, pol))
    series = []
    with open(dat, "w") as f:
        f.write(header)
        for tot in (16, 8, 4, 2):
            pts = [(s, runs[(s, tot * s // 16, pol)]["time"]) for s in (1, 2, 4, 8) if tot * s // 16 >= 1 and tot * s % 16 == 0 and (s, tot * s // 16, pol) in runs]
            if pts:
                f.write("# %d INIs\n" % tot + "".join("%d %.4f\n" % p for p in pts) + "\n\n"); series.append("%d INIs" % tot)
        for kind, lab in (("noini", "no INI"), ("delay", "INI delay")):
            pts = [(s, base[(s, kind)]) for s in (1, 2, 4, 8) if (s, kind) in base]
            if pts:
                f.write("# %s\n" % lab + "".join("%d %.4f\n" % p for p in pts) + "\n\n"); series.append(lab)
    png = os.path.join(out, "figure%s_%s.png" % (fig, pol))
    plots = ", ".join("'%s' index %d using 1:2 with linespoints title '%s'" % (dat, i, t) for i, t in enumerate(series))
    gp = ("set terminal png size 800,560; set output '%s'; set title 'Figure %s: Water on MGS, %s INI scheduling (16 compute nodes)';"
          "set xlabel 'cluster size (compute nodes)'; set ylabel 'Water run time (s)'; set logscale x 2; set xtics (1,2,4,8);"
          "set key outside right; set yrange [0:*]; plot %s" % (png, fig, pol, plots))
    if series:
        r = subprocess.run(["gnuplot"], input=gp, text=True, capture_output=True)
        if r.returncode:
            print("tables: gnuplot failed: " + r.stderr, file=sys.stderr)

summary = "".join(files[k] + "\n" for k in sorted(files))
open(os.path.join(out, "tables.txt"), "w").write(summary)
print(summary)
