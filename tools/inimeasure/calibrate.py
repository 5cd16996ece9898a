"""The arithmetic of tools/thesis/calibrate.sh (the derivation is in its
header): reads the measurements, prints the derivation, writes the
calibration file.

    calibrate.py MEASURED OUT "COMMAND" NMOL NSTEP VERIFY KNOB

MEASURED: lines "SIZE T0_s... | P... | s0_us..."; VERIFY: lines
"SIZE s1_us... [| P1...]" (the service per pass and the passes per INI
measured with O_c, medians taken; a missing file: no correction).
"""
import datetime, math, os, statistics, sys
if len(sys.argv) != 8:
    sys.stderr.write('calibrate.py: usage: calibrate.py MEASURED OUT "COMMAND" NMOL NSTEP VERIFY KNOB\n')
    sys.exit(2)
measured, out, cmd, nmol, nstep, verify, knob = sys.argv[1:8]
s1, p1 = {}, {}
if os.path.exists(verify):
    for l in open(verify):
        parts = l.split("|")
        f = parts[0].split()
        s1[int(f[0])] = statistics.median(float(v) for v in f[1:])
        if len(parts) > 1 and parts[1].split():
            p1[int(f[0])] = statistics.median(float(v) for v in parts[1].split())
# The thesis: table 5.3 (U, 1 INI, static), table 5.5 (static run time,
# Meg cycles, per INIs per cluster), table 5.8 (slowdown at sqrt(c) INIs).
U = {1: 0.351, 2: 0.464, 4: 0.579, 8: 0.737}
T55 = {1: {1: 972}, 2: {1: 852, 2: 729}, 4: {1: 697, 2: 574, 4: 523}, 8: {1: 504, 2: 419, 4: 374, 8: 364}}
SLOW = {1: 1.921, 2: 1.868, 4: 1.707, 8: 1.463}

def t_at(c, x):
    pts = sorted(T55[c].items())
    for (x0, t0), (x1, t1) in zip(pts, pts[1:]):
        if x0 <= x <= x1:
            return t0 + (x - x0) / (x1 - x0) * (t1 - t0), "%g + (%.3f - %d) / (%d - %d) * (%g - %g)" % (t0, x, x0, x1, x0, t1, t0)
    return T55[c][round(x)], "%g" % T55[c][round(x)]

lines = []
say = lambda s="": (print(s), lines.append("# " + s if s else "#"))
say("O calibration, made by: %s on %s (Water %s molecules, %s steps, O = 0)" % (cmd, datetime.date.today(), nmol, nstep))
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown")
say("machine: %s, %d cores (the O below holds on this CPU model only: rerun on another)" % (cpu, os.cpu_count() or 0))
say("D_c = U_c * T_c / T0thesis_c;  O_c = D_c * T0_c / P_c - s0   (see tools/thesis/calibrate.sh)")
rows = []
for line in open(measured):
    c, t0s, ps, s0s = (lambda a: (int(a[0].split()[0]), a[0].split()[1:], a[1].split(), a[2].split()))(line.split("|"))
    t0 = statistics.median(float(x) for x in t0s)
    p = statistics.median(float(x) for x in ps)
    s0 = statistics.mean(float(x) for x in s0s)
    x = math.sqrt(c)
    tsq, how = t_at(c, x)
    t0th = tsq / SLOW[c]
    d = U[c] * T55[c][1] / t0th
    per_pass = d * t0 * 1e6 / p
    o = per_pass - s0
    say()
    say("cluster size %d:" % c)
    say("  thesis: T(sqrt(%d) = %.3f INIs) = %s = %.1f Mcycles; T0thesis = %.1f / %.3f = %.1f Mcycles" % (c, x, how, tsq, tsq, SLOW[c], t0th))
    say("  thesis: D = U * T / T0thesis = %.3f * %d / %.1f = %.4f" % (U[c], T55[c][1], t0th, d))
    say("  here:   T0 = %.4f s (median of %s), P = %.0f passes per INI (median of %s), s0 = %.2f us" % (t0, " ".join(t0s), p, " ".join("%.0f" % float(v) for v in ps), s0))
    say("  O = D * T0 / P - s0 = %.4f * %.4f s / %.0f - %.2f us = %.2f - %.2f = %.2f us%s" % (d, t0, p, s0, per_pass, s0, o, "  -> clamped to 0" if o < 0 else ""))
    o = max(o, 0.0)
    oc = o
    if c in s1:
        q = p1.get(c, p)
        oc = max(d * t0 * 1e6 / q - (s1[c] - o), 0.0)
        say("  check with O = %.2f us (%s): service per pass s1 = %.2f us (asked %.2f + %.2f = %.2f), P1 = %.0f passes per INI;"
            % (o, knob, s1[c], o, s0, o + s0, q))
        say("  O' = D * T0 / P1 - (s1 - O) = %.2f - (%.2f - %.2f) = %.2f us"
            % (d * t0 * 1e6 / q, s1[c], o, oc))
    rows.append((c, oc, o, s1.get(c, float("nan")), d, t0, p, s0, p1.get(c, float("nan"))))
lines.append("# size O_us(corrected)   O_c s1_us D_c T0_c_s P_c s0_us P1")
for r in rows:
    lines.append("%d %.2f   %.2f %.2f %.4f %.4f %.0f %.2f %.0f" % r)
open(out, "w").write("\n".join(lines) + "\n")
print("\ncalibrate: wrote %s (use: tools/thesis/experiments.sh --calibration %s --knob O_mode=sleep,O_dist=exp)" % (out, out))
