"""soak.py - ini-soak: a machine brought up for a long time under traffic,
faults and restarts, with nothing lost and nothing growing
(tools/soak/ini-soak runs it; man/man1/ini-soak.1 is its page).

    ini-soak [--duration S] [--config FILE] [--out DIR] [--interval S]
             [--warmup S] [--kill-every S] [--fault SPEC] [--count N]
             [--sizes N,...] [--bin DIR] [--water-every S] [--ping-timeout S]

`ini-cluster up` brings the machine up (default: a generated 3 clusters x
2 compute nodes x 1 INI, memif) with the fault mix; then, until the
duration is over:

  traffic   ini-ping in every cluster, round after round, every size; a
            round that does not verify every message with 0 errors (a
            message lost, duplicated or damaged; a request not answered
            within --ping-timeout seconds counts as lost) fails the soak at
            once
  kills     every --kill-every seconds an INI chosen at random is killed
            (SIGKILL); up's supervisor restarts it; the soak counts it and
            the time the supervisor says it took to come back
  water     every --water-every seconds (0: never) Water on MGS runs on
            the machine, between two ping rounds, and its output is
            compared with the plain threads' run of the same input
  samples   every --interval seconds, per daemon: RSS, open descriptors,
            and from its telemetry socket (/ini/resources, /ini/stats):
            mbufs in use, SEND and ACK timers, lwIP pool elements in use,
            restarts and resyncs; per machine: /dev/shm and run-directory
            sizes.  One row per daemon and sample in OUT/samples.tsv; and
            one per sample in OUT/host.tsv: the host's load, the CPU time
            its hypervisor took, and the soak's own longest sleep since the
            last sample (0.25 s asked: longer when the host did not run it;
            a host that runs none of the soak's processes for a minute looks
            to ini-ping like an INI that does not answer).

At the end (or on the first failure) every resource is judged on the
samples after --warmup of each daemon's incarnation: a least-squares
slope and its 95 % interval; a resource leaks when the interval lies
above 0 and the fitted rise over the span is at least its floor (FLOORS:
a level that moves by a few is noise).  OUT/verdict.tsv has one row per
INI and resource; OUT/summary.txt the counts.  Exit status 0: nothing
lost, nothing leaked; 1: a failure, named on stderr; 2: bad arguments.
"""
import json
import math
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time

from inimeasure.soak_stats import judge, FLOORS

USAGE = ("usage: ini-soak [--duration S] [--config FILE] [--out DIR] [--interval S] [--warmup S]\n"
         "                [--kill-every S] [--fault SPEC] [--count N] [--sizes N,...] [--bin DIR]\n"
         "                [--water-every S] [--ping-timeout S]\n"
         "       ini-soak --help | --version")
DEFAULTS = {"--duration": "3600", "--config": "", "--out": "soak-out", "--interval": "10",
            "--warmup": "120", "--kill-every": "180", "--water-every": "300",
            "--fault": "drop=0.01,dup=0.01,reorder=0.01,corrupt=0.005,delay=0.01,seed=7",
            "--count": "20", "--ping-timeout": "60", "--sizes": "0,1,100,1472,1473,9000,32768,65000", "--bin": "build/bin"}
NUMERIC = ("--duration", "--interval", "--warmup", "--kill-every", "--water-every", "--count", "--ping-timeout")
COLUMNS = ["t_s", "ini", "pid", "rss_kb", "fds", "mbufs_in_use", "send_timers", "ack_timers",
           "lwip_in_use", "restarts", "resyncs", "msgs_sent", "msgs_delivered", "shm_kb", "rundir_kb"]


def die(msg, status=2):
    sys.stderr.write("ini-soak: %s\n" % msg)
    sys.exit(status)


def parse_args(argv):
    if argv[:1] in (["--help"], ["-h"]):
        print(USAGE)
        sys.exit(0)
    if argv[:1] == ["--version"]:
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "VERSION")
        print("ini-soak " + open(root).read().strip())
        sys.exit(0)
    a = dict(DEFAULTS)
    i = 0
    while i < len(argv):
        if argv[i] not in a:
            die("unknown argument '%s' (see --help)" % argv[i])
        if i + 1 >= len(argv):
            die("%s needs a value" % argv[i])
        a[argv[i]] = argv[i + 1]
        i += 2
    for k in NUMERIC:
        try:
            v = float(a[k])
        except ValueError:
            v = -1
        if not (v >= 0 and math.isfinite(v)) or (k in ("--interval", "--count", "--ping-timeout") and v <= 0):
            die("%s: '%s' is not a number of the right range" % (k, a[k]))
        a[k] = v
    a["--count"] = int(a["--count"])
    return a


def telemetry(tag, ini, cmd):
    """One command's reply (a dict) from the daemon's telemetry socket, or {}."""
    path = "/var/run/dpdk/ini-%s-%d/dpdk_telemetry.v2" % (tag, ini)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
            s.settimeout(3)
            s.connect(path)
            s.recv(1 << 16)                     # the greeting
            s.send(cmd.encode())
            return json.loads(s.recv(1 << 20)).get(cmd) or {}
    except (OSError, ValueError):
        return {}


def read_state(run_dir):
    st = {"daemons": {}}
    try:
        for line in open(os.path.join(run_dir, "state")):
            f = line.split()
            if len(f) == 3 and f[0] == "daemon":
                st["daemons"][int(f[1])] = int(f[2])
            elif len(f) == 2:
                st[f[0]] = f[1]
    except OSError:
        pass
    return st


def du_kb(paths):
    total = 0
    for p in paths:
        for root, _, files in os.walk(p) if os.path.isdir(p) else [(os.path.dirname(p), [], [p])]:
            for name in files:
                try:
                    total += os.lstat(os.path.join(root, name)).st_blocks * 512
                except OSError:
                    pass
    return total // 1024


def proc_figures(pid):
    rss = fds = ""
    try:
        for line in open("/proc/%d/status" % pid):
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
        fds = len(os.listdir("/proc/%d/fd" % pid))
    except OSError:
        pass
    return rss, fds


def floor_read(tag, ini, reads=5):
    """/ini/resources read a few times 50 ms apart, each level at its
    lowest: the messages in flight come and go, a leak stays."""
    best = {}
    for i in range(reads):
        r = telemetry(tag, ini, "/ini/resources")
        if r and r.get("lwip_pools"):
            r["lwip_in_use"] = sum(v for k, v in r["lwip_pools"].items() if k != "SYS_TIMEOUT")
        for k in ("mbufs_in_use", "send_timers", "ack_timers", "lwip_in_use"):
            if k in r:
                best[k] = min(best.get(k, r[k]), r[k])
        for k in ("restarts",):
            best.setdefault(k, r.get(k, ""))
        if i + 1 < reads:
            time.sleep(0.05)
    return best


HOST_COLUMNS = ["t_s", "load1", "load5", "runnable", "steal_s", "loop_max_s"]


def host_figures():
    """The load averages, the runnable tasks and the CPU time (s) the
    hypervisor has taken from this host since boot (steal), or ''."""
    load1 = load5 = runnable = steal = ""
    try:
        f = open("/proc/loadavg").read().split()
        load1, load5, runnable = f[0], f[1], f[3].split("/")[0]
        for line in open("/proc/stat"):
            if line.startswith("cpu "):
                steal = round(int(line.split()[8]) / os.sysconf("SC_CLK_TCK"), 2)
                break
    except (OSError, IndexError, ValueError):
        pass
    return [load1, load5, runnable, steal]


def sample(t, run_dir, st):
    """The rows of one sample: one per daemon."""
    tag = st.get("tag", "")
    shm = du_kb(["/dev/shm/" + n for n in os.listdir("/dev/shm") if n.startswith("ini-%s-" % tag)])
    rundir = du_kb([run_dir])
    rows = []
    for ini, pid in sorted(st["daemons"].items()):
        rss, fds = proc_figures(pid)
        res = floor_read(tag, ini)
        tr = telemetry(tag, ini, "/ini/stats").get("transport", {})
        rows.append([round(t, 1), ini, pid, rss, fds, res.get("mbufs_in_use", ""),
                     res.get("send_timers", ""), res.get("ack_timers", ""),
                     res.get("lwip_in_use", ""),
                     res.get("restarts", ""), tr.get("resyncs", ""), tr.get("msgs_sent", ""),
                     tr.get("msgs_delivered", ""), shm, rundir])
    return rows


class Soak:
    """The machine, its programs and what was counted."""

    def __init__(self, a):
        self.a, self.out = a, os.path.abspath(a["--out"])
        self.bin = os.path.abspath(a["--bin"])
        self.run_dir = os.path.join(self.out, "run")
        self.rng = random.Random(int(time.time()))
        self.rows, self.events, self.failure = [], [], None
        self.count = {"ping_rounds": 0, "verified": 0, "kills": 0, "water_runs": 0}
        self.pings = []
        self.last_turn = self.loop_max = 0.0

    def log(self, what):
        t = round(time.monotonic() - self.t0, 1) if hasattr(self, "t0") else 0.0
        self.events.append((t, what))
        with open(os.path.join(self.out, "events.tsv"), "a") as f:
            f.write("%s\t%s\n" % (t, what))

    def fail(self, why):
        if not self.failure:
            self.failure = why
            self.log("FAIL " + why)

    def up(self, cfg):
        self.cfg = cfg
        cmd = [os.path.join(self.bin, "ini-cluster"), "up", cfg, "--run-dir", self.run_dir]
        if self.a["--fault"]:
            cmd += ["--fault", self.a["--fault"]]
        with open(os.path.join(self.out, "up.out"), "w") as f:
            if subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT) != 0:
                die("ini-cluster up failed (%s/up.out)" % self.out, 1)
        self.state = read_state(self.run_dir)
        self.clusters = sorted(int(m.group(1)) for m in (re.match(r"cluster(\d+)\.env$", n)
                                                         for n in os.listdir(self.run_dir)) if m)

    def down(self):
        with open(os.path.join(self.out, "down.out"), "w") as f:
            subprocess.call([os.path.join(self.bin, "ini-cluster"), "down", self.cfg, "--run-dir",
                             self.run_dir], stdout=f, stderr=subprocess.STDOUT)

    def in_cluster(self, c, argv, out):
        """A program of cluster c (from up's environment file), output to out."""
        env_file = os.path.join(self.run_dir, "cluster%d.env" % c)
        script = '. "$0"; exec "$@"'
        return subprocess.Popen(["bash", "-c", script, env_file] + argv, stdout=open(out, "w"),
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def start_pings(self):
        n = self.count["ping_rounds"]
        argv = [os.path.join(self.bin, "ini-ping"), "--sizes", self.a["--sizes"], "--count",
                str(self.a["--count"]), "--timeout-ms", str(int(self.a["--ping-timeout"] * 1000))]
        self.pings = [(c, self.in_cluster(c, argv, os.path.join(self.out, "ping%d.out" % c)))
                      for c in self.clusters]
        self.ping_round = n

    def check_pings(self):
        """After every ping of the round ended: each verified all, 0 errors."""
        for c, p in self.pings:
            rc = p.wait()
            text = open(os.path.join(self.out, "ping%d.out" % c)).read()
            m = re.findall(r"^verified (\d+) messages, (\d+) errors$", text, re.M)
            if rc != 0 or not m or m[-1][1] != "0":
                last = text.strip().splitlines()[-3:]
                self.fail("ini-ping round %d, cluster %d: exit %d: %s" % (self.ping_round, c, rc, " | ".join(last)))
                os.rename(os.path.join(self.out, "ping%d.out" % c),
                          os.path.join(self.out, "ping%d-failed-round%d.out" % (c, self.ping_round)))
            else:
                self.count["verified"] += int(m[-1][0])
        self.pings = []
        self.count["ping_rounds"] += 1

    def water(self):
        """Water on the machine (one process per cluster, between two ping
        rounds), its output checked against plain threads' (no timings)."""
        n_pes = self.water_pes
        inp = os.path.join(self.out, "water.in")
        with open(inp, "w") as f:
            f.write("  1.5e-16   512  2   6\n -1      3000     1  0\n%d 6.212752\n" % n_pes)
        data = os.path.abspath(os.environ.get("WATER_RANDOM", "tools/apps/water/data/random.in"))
        water = os.path.join(self.bin, "water")
        base = [water, "--random", data, "--deterministic", "--full"]
        keep = lambda s: [l for l in s.splitlines() if not re.match(
            r"(COMPUTESTART|COMPUTEEND|COMPUTETIME|Measured Time|Intramolecular time|"
            r"Intermolecular time|Other time|mgs )", l)]
        if not hasattr(self, "water_ref"):
            self.water_ref = keep(subprocess.run(base, stdin=open(inp), capture_output=True, text=True).stdout)
        procs = [(c, self.in_cluster(c, [water, "--mgs", "--random", data, "--input", inp, "--deterministic",
                                         "--full"], os.path.join(self.out, "water%d.out" % c)))
                 for c in self.clusters]
        rcs = [p.wait() for _, p in procs]
        got = keep(open(os.path.join(self.out, "water0.out")).read())
        self.count["water_runs"] += 1
        if any(rcs) or got != self.water_ref or not self.water_ref:
            self.fail("water run %d: exit %s, output %s the plain run's" % (
                self.count["water_runs"], rcs, "equals" if got == self.water_ref else "differs from"))
            os.rename(os.path.join(self.out, "water0.out"), os.path.join(self.out, "water0-failed.out"))
        else:
            self.log("water run %d: output equals the plain run's (%d lines)" % (self.count["water_runs"], len(got)))

    def kill_one(self):
        self.state = read_state(self.run_dir)
        if not self.state["daemons"]:
            return
        ini = self.rng.choice(sorted(self.state["daemons"]))
        pid = self.state["daemons"][ini]
        try:
            os.kill(pid, signal.SIGKILL)
            self.count["kills"] += 1
            self.log("killed inid %d (pid %d)" % (ini, pid))
        except OSError as e:
            self.log("kill inid %d (pid %d): %s" % (ini, pid, e))

    def sample(self):
        self.state = read_state(self.run_dir)
        t = time.monotonic() - self.t0
        rows = sample(t, self.run_dir, self.state)
        host = os.path.join(self.out, "host.tsv")
        new_host = not os.path.exists(host)
        with open(host, "a") as f:
            if new_host:
                f.write("\t".join(HOST_COLUMNS) + "\n")
            f.write("\t".join(str(x) for x in [round(t, 1)] + host_figures() + [round(self.loop_max, 2)]) + "\n")
        self.loop_max = 0.0
        path = os.path.join(self.out, "samples.tsv")
        new = not os.path.exists(path)
        with open(path, "a") as f:
            if new:
                f.write("\t".join(COLUMNS) + "\n")
            for r in rows:
                f.write("\t".join(str(x) for x in r) + "\n")
                self.rows.append(dict(zip(COLUMNS, r)))

    def run(self):
        a, self.t0 = self.a, time.monotonic()
        due = {"sample": 0.0, "kill": a["--kill-every"] or math.inf, "water": a["--water-every"] or math.inf}
        self.start_pings()
        while not self.failure:
            now = time.monotonic() - self.t0
            # From the end of the last turn's work: its 0.25 s sleep, and
            # longer only when the host did not run the soak.
            self.loop_max = max(self.loop_max, now - self.last_turn)
            over = now >= a["--duration"]
            if all(p.poll() is not None for _, p in self.pings):
                self.check_pings()
                if over or self.failure:
                    break
                if now >= due["water"]:
                    self.water()
                    due["water"] = now + a["--water-every"]
                self.start_pings()
            if now >= due["kill"] and not over:
                self.kill_one()
                due["kill"] = now + a["--kill-every"]
            if now >= due["sample"]:
                self.sample()
                due["sample"] = now + a["--interval"]
            self.last_turn = time.monotonic() - self.t0
            time.sleep(0.25)
        for _, p in self.pings:
            p.kill()
        self.sample()

    def restarts(self):
        """The supervisor's restarts: [(ini, ms back after death)]."""
        out = []
        for name in ("launcher.log",):
            try:
                text = open(os.path.join(self.run_dir, name)).read()
            except OSError:
                continue
            out += [(int(i), int(ms)) for i, ms in
                    re.findall(r"inid (\d+) \(cluster \d+\) is back, (\d+) ms after it died", text)]
        return out

    def finish(self):
        verdict = judge(self.rows, self.a["--warmup"])
        keys = ["ini", "pid", "resource", "n", "span_s", "slope_per_h", "lo_per_h", "hi_per_h", "rise",
                "floor", "leak"]
        with open(os.path.join(self.out, "verdict.tsv"), "w") as f:
            f.write("\t".join(keys) + "\n")
            for v in verdict:
                f.write("\t".join(("%.3f" % v[k]) if isinstance(v[k], float) else str(v[k]) for k in keys) + "\n")
        leaks = [v for v in verdict if v["leak"]]
        for v in leaks:
            self.fail("leak: INI %d (pid %d) %s rises %.1f/h (95 %% interval %.1f..%.1f/h), %.0f over %.0f s"
                      % (v["ini"], v["pid"], v["resource"], v["slope_per_h"], v["lo_per_h"], v["hi_per_h"],
                         v["rise"], v["span_s"]))
        back = self.restarts()
        resyncs = max((int(r["resyncs"]) for r in self.rows if r["resyncs"] != ""), default=0)
        lines = ["duration_s\t%.0f" % (time.monotonic() - self.t0), "config\t%s" % self.cfg,
                 "fault\t%s" % self.a["--fault"], "sizes\t%s" % self.a["--sizes"],
                 "ping_timeout_s\t%g" % self.a["--ping-timeout"]]
        lines += ["%s\t%d" % kv for kv in self.count.items()]
        lines += ["restarts_seen\t%d" % len(back),
                  "restart_ms\t%s" % ",".join(str(ms) for _, ms in back),
                  "max_resyncs_one_ini\t%d" % resyncs, "samples\t%d" % len(self.rows),
                  "resources_judged\t%d" % len(verdict), "leaks\t%d" % len(leaks),
                  "result\t%s" % ("FAIL: " + self.failure if self.failure else "PASS")]
        open(os.path.join(self.out, "summary.txt"), "w").write("\n".join(lines) + "\n")
        print("\n".join(lines))


def total_pes(cfg):
    text = open(cfg).read()
    return sum(len(re.findall(r"\d+", m)) for m in re.findall(r"\bpes\s*=\s*\[([^\]]*)\]", text))


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    out = os.path.abspath(a["--out"])
    if os.path.exists(os.path.join(out, "samples.tsv")):
        die("%s: already holds a soak (samples.tsv); give another --out" % out)
    os.makedirs(out, exist_ok=True)
    s = Soak(a)
    cfg = a["--config"]
    if not cfg:
        cfg = os.path.join(out, "soak.cfg")
        if subprocess.call([os.path.join(s.bin, "ini-cluster"), "gen", "3", "2", "1", "-o", cfg],
                           stdout=subprocess.DEVNULL) != 0:
            die("ini-cluster gen failed", 1)
    elif not os.path.isfile(cfg):
        die("--config: %s: no such file" % cfg)
    s.water_pes = total_pes(cfg)
    signal.signal(signal.SIGTERM, lambda *_: s.fail("stopped by signal 15"))
    s.up(os.path.abspath(cfg))
    try:
        s.run()
    finally:
        s.down()
    s.finish()
    if s.failure:
        sys.stderr.write("ini-soak: FAIL: %s\n" % s.failure)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
