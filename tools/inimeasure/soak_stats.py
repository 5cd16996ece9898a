"""soak_stats.py - ini-soak's verdict on its samples (soak.py): does a
resource keep rising after warm-up?

A daemon's incarnation (one pid) is a series of its own: a restart starts
every level again.  On the samples at least `warmup` seconds after the
incarnation's first, the least-squares slope of a resource over time and
its 95 % interval (Student's t on the residuals); the resource leaks when
the interval lies above 0 and the fitted rise over the span is at least
the resource's floor.  The machine-wide levels (/dev/shm, the run
directory) are judged once, on INI -1.
"""

# Least fitted rise over the judged span that counts as a leak: levels
# that move by a few with the traffic (mbufs and timers in flight) or with
# the kernel's accounting (RSS by pages) are noise below these.
FLOORS = {"rss_kb": 4096, "fds": 2, "mbufs_in_use": 32, "send_timers": 64, "ack_timers": 4,
          "lwip_in_use": 16, "shm_kb": 1024, "rundir_kb": 2048}

# Student's t, two-sided 95 %, by degrees of freedom (larger: 1.96).
T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23,
       12: 2.18, 15: 2.13, 20: 2.09, 25: 2.06, 30: 2.04, 40: 2.02, 60: 2.00, 120: 1.98}


def t95(df):
    best = 1.96
    for k in sorted(T95, reverse=True):
        if df <= k:
            best = T95[k]
    return best


def fit(ts, ys):
    """(slope, half-width of its 95 % interval, span) or None below 4 points."""
    n = len(ts)
    if n < 4:
        return None
    mt, my = sum(ts) / n, sum(ys) / n
    sxx = sum((t - mt) ** 2 for t in ts)
    if sxx <= 0:
        return None
    slope = sum((t - mt) * (y - my) for t, y in zip(ts, ys)) / sxx
    resid = sum((y - my - slope * (t - mt)) ** 2 for t, y in zip(ts, ys))
    se = (resid / (n - 2) / sxx) ** 0.5
    return slope, t95(n - 2) * se, max(ts) - min(ts)


def series(rows, warmup):
    """{(ini, pid, resource): ([t], [y])} after each incarnation's warm-up;
    the machine-wide levels under (-1, 0, resource)."""
    first, out = {}, {}
    for r in rows:
        key = (r["ini"], r["pid"])
        first.setdefault(key, r["t_s"])
        if r["t_s"] - first[key] < warmup:
            continue
        for res in FLOORS:
            if r.get(res) in ("", None):
                continue
            k = (-1, 0, res) if res in ("shm_kb", "rundir_kb") else (r["ini"], r["pid"], res)
            if k[0] == -1 and out.get(k) and out[k][0][-1] == r["t_s"]:
                continue                    # one machine-wide point per sample
            ts, ys = out.setdefault(k, ([], []))
            ts.append(r["t_s"])
            ys.append(float(r[res]))
    return out


def judge(rows, warmup):
    """Rows of the verdict: ini pid resource n slope lo hi rise floor leak."""
    verdict = []
    for (ini, pid, res), (ts, ys) in sorted(series(rows, warmup).items()):
        f = fit(ts, ys)
        if not f:
            continue
        slope, half, span = f
        leak = slope - half > 0 and slope * span >= FLOORS[res]
        verdict.append({"ini": ini, "pid": pid, "resource": res, "n": len(ts), "span_s": round(span, 1),
                        "slope_per_h": slope * 3600, "lo_per_h": (slope - half) * 3600,
                        "hi_per_h": (slope + half) * 3600, "rise": slope * span,
                        "floor": FLOORS[res], "leak": leak})
    return verdict
