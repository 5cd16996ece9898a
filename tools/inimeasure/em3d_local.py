"""em3d_local - EM3D's local graph on 16 compute nodes (tools/thesis/em3d_local.sh,
docs/results/em3d-local-sqrt): the messages each INI should carry, from the
geometry alone, and one runs.tsv row from a virtual-time run.

    PYTHONPATH=tools python3 -m inimeasure.em3d_local predict B R DEGREE STEPS [COST T0 A]
    PYTHONPATH=tools python3 -m inimeasure.em3d_local compare RUNS_TSV MODEL_TSV
    PYTHONPATH=tools python3 -m inimeasure.em3d_local row RUN_DIR OUTPUT RC T0 T1 "C INIS VARIANT REP LOAD" COMMIT

predict: per cluster size c (1, 2, 4, 8) the expected number of other
clusters' values each node reads, from the torus's blocks (em3d_grid.c:
16 nodes of B x B cells as 4 x 4, a cluster 1x1, 2x1, 2x2 or 4x2) and the
draws: a cell outside the cluster goes unread by a node with odds
(1 - 1/(2R+1)^2)^(DEGREE x n), n the node's cells within distance R of it.
From those, the messages each INI sends and delivers for get (a request,
12 B, and its answer, 16 B, a value) and put (16 B a value), with the
static mapping of `ini-cluster gen` (a cluster's nodes in consecutive
runs over its INIs) and the barrier's messages (each cluster's first node
to every other's, 8 B, 1 + 2 x STEPS barriers).  No run enters it.

row: the run's virtual cycles (vtime.json), its check, and from each
INI's counters (iniN.counters.json) the messages and bytes sent plus
delivered, the utilization (busy share) and the time-average queue:
mean and max over the INIs.
"""
import glob
import json
import re
import sys

from inimeasure import dier

die = dier("em3d_local")
MX = MY = 4                      # 16 nodes
SHAPE = {1: (1, 1), 2: (2, 1), 4: (2, 2), 8: (4, 2), 16: (4, 4)}   # a cluster's blocks, em3d_grid.c
GET_REQ, VALUE, BARRIER = 12, 16, 8


def pe_block(c, pe):
    """Node pe's block (column, row) on the 4 x 4 machine, clusters of c."""
    px, py = SHAPE[c]
    cx = MX // px
    cl, l = divmod(pe, c)
    return (cl % cx) * px + l % px, (cl // cx) * py + l // px


def reads(c, b, r, degree):
    """reads[q][o]: the expected number of owner o's values (of one kind)
    node q reads, o in another cluster."""
    w, h, side2 = MX * b, MY * b, (2 * r + 1) ** 2
    miss = (1 - 1.0 / side2) ** degree
    owner = {}
    for pe in range(16):
        bx, by = pe_block(c, pe)
        for y in range(b):
            for x in range(b):
                owner[(bx * b + x, by * b + y)] = pe
    out = [[0.0] * 16 for _ in range(16)]
    for q in range(16):
        bx, by = pe_block(c, q)
        near = {}
        for y in range(by * b, by * b + b):
            for x in range(bx * b, bx * b + b):
                for dy in range(-r, r + 1):
                    for dx in range(-r, r + 1):
                        cell = ((x + dx) % w, (y + dy) % h)
                        near[cell] = near.get(cell, 0) + 1
        for cell, n in near.items():
            o = owner[cell]
            if o // c != q // c:
                out[q][o] += 1 - miss ** n
    return out


def ini_of(c, inis, pe):
    """The INI (global id) of node pe: ini-cluster gen's static mapping."""
    cl, l = divmod(pe, c)
    return cl * inis + l // -(-c // inis)


def per_ini(c, inis, variant, b, r, degree, steps):
    """Messages and bytes each INI sends plus delivers, in the run."""
    rd = reads(c, b, r, degree)
    n_ini = 16 // c * inis
    msgs, byts = [0.0] * n_ini, [0.0] * n_ini
    half_steps = 2 * steps

    def carry(src, dst, count, size):
        for i in (ini_of(c, inis, src), ini_of(c, inis, dst)):
            msgs[i] += count
            byts[i] += count * size
    for q in range(16):
        for o in range(16):
            if rd[q][o]:
                if variant == "get":
                    carry(q, o, rd[q][o] * half_steps, GET_REQ)
                    carry(o, q, rd[q][o] * half_steps, VALUE)
                else:   # put: the initial H and every half-step but the last
                    carry(o, q, rd[q][o] * half_steps, VALUE)
    clusters = 16 // c
    for a in range(clusters):
        for z in range(clusters):
            if a != z:
                carry(a * c, z * c, 1 + half_steps, BARRIER)
    return msgs, byts


def predict(b, r, degree, steps, cost=0.0, t0=0.0, a=0.0):
    """The table; with COST (cycles an INI spends a message), T0 and A
    (a run's cycles as T0 + A x the busiest INI's cycles) also each
    cell's cycles and mean utilization."""
    print("c\tinis\tvariant\tmsgs_mean\tmsgs_max\tbytes_mean\tcluster_reads_per_kind\tcycles\tu_mean")
    for c in (1, 2, 4, 8):
        rd = reads(c, b, r, degree)
        cluster_reads = sum(rd[q][o] for q in range(c) for o in range(16))
        for inis in sorted({1, {1: 1, 2: 2, 4: 2, 8: 3}[c], c, 2 if c == 8 else 1}):   # 8:2, the torus's count
            for v in ("get", "put"):
                m, by = per_ini(c, inis, v, b, r, degree, steps)
                t = t0 + a * cost * max(m)
                u = cost * sum(m) / len(m) / t if t > 0 else 0
                print("%d\t%d\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t%.0f\t%.4f" % (c, inis, v, sum(m) / len(m), max(m),
                                                                     sum(by) / len(by), cluster_reads, t, u))


def stats(values):
    return sum(values) / len(values), max(values)


def row(run_dir, out_path, rc, t0, t1, cell, commit):
    head = cell.split()
    try:
        text = open(out_path, errors="replace").read()
        vt = json.load(open(run_dir + "/vtime.json"))
        cnt = [json.load(open(f)) for f in sorted(glob.glob(run_dir + "/ini*.counters.json"))]
    except (OSError, ValueError) as e:
        return "\t".join(head + ["NA"] * 12 + ["rc=%s %s" % (rc, e), commit])
    if not cnt:
        return "\t".join(head + ["NA"] * 12 + ["rc=%s no counters" % rc, commit])
    m = [x["transport"]["msgs_sent"] + x["transport"]["msgs_delivered"] for x in cnt]
    by = [x["transport"]["bytes_sent"] + x["transport"]["bytes_delivered"] for x in cnt]
    u = [x["busy"]["share"] for x in cnt]
    qu = [x["queue"]["time_avg"] for x in cnt]
    inter = re.search(r"edges_inter=(\d+)", text)
    ok = "ok" if rc == "0" and "check=ok" in text and "FAILED" not in text else "FAILED"
    fields = head + [str(vt["cycles"]), inter.group(1) if inter else "NA"]
    for (mean, peak), fmt in ((stats(m), "%.1f"), (stats(by), "%.1f"), (stats(u), "%.4f"), (stats(qu), "%.3f")):
        fields += [fmt % mean, fmt % peak]
    fields += ["%.2f" % (float(t1) - float(t0)), ok, commit]
    return "\t".join(fields)


def compare(runs_path, model_path):
    """Each run of get and put beside the geometry's model (model.tsv) and
    beside its version's c = 1 run: the ratios the predictions are judged on."""
    def rows(path):
        lines = [l.rstrip("\n").split("\t") for l in open(path) if l.strip()]
        return [dict(zip(lines[0], l)) for l in lines[1:]]
    model = {(r["c"], r["inis"], r["variant"]): r for r in rows(model_path)}
    runs = [r for r in rows(runs_path) if r["variant"] in ("get", "put") and r["cycles"] != "NA"]
    base = {r["variant"]: r for r in runs if r["c"] == "1" and r["rep"] == "1"}
    print("c\tinis\tvariant\trep\tmsgs/model\tbytes/model\tcycles/model\tu/model"
          "\tmsgs/c1\tbytes/c1\tu/c1\tqueue/c1\tcycles/c1")
    for r in runs:
        m, b = model.get((r["c"], r["inis"], r["variant"])), base.get(r["variant"])
        if not m or not b:
            continue
        f = lambda a, x, y: float(a[x]) / float(y) if float(y) else float("nan")
        print("%s\t%s\t%s\t%s\t%s" % (r["c"], r["inis"], r["variant"], r["rep"], "\t".join("%.3f" % v for v in (
            f(r, "msgs_mean", m["msgs_mean"]), f(r, "bytes_mean", m["bytes_mean"]), f(r, "cycles", m["cycles"]),
            f(r, "u_mean", m["u_mean"]), f(r, "msgs_mean", b["msgs_mean"]), f(r, "bytes_mean", b["bytes_mean"]),
            f(r, "u_mean", b["u_mean"]), f(r, "queue_mean", b["queue_mean"]), f(r, "cycles", b["cycles"])))))


HEADER = ("c\tinis\tvariant\trep\tload\tcycles\tedges_inter\tmsgs_mean\tmsgs_max\tbytes_mean\tbytes_max"
          "\tu_mean\tu_max\tqueue_mean\tqueue_max\thost_s\tcheck\tcommit")


def main():
    if len(sys.argv) in (6, 9) and sys.argv[1] == "predict":
        try:
            args = [int(a) for a in sys.argv[2:6]] + [float(a) for a in sys.argv[6:9]]
        except ValueError:
            die("predict: B R DEGREE STEPS are integers, COST T0 A numbers")
        predict(*args)
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 2 and sys.argv[1] == "header":
        print(HEADER)
    elif len(sys.argv) == 9 and sys.argv[1] == "row":
        print(row(*sys.argv[2:9]))
    else:
        die("usage: predict B R DEGREE STEPS [COST T0 A] | compare RUNS_TSV MODEL_TSV | header | row RUN_DIR OUTPUT RC T0 T1 'C INIS VARIANT REP LOAD' COMMIT")


if __name__ == "__main__":
    if not __package__:
        sys.exit("em3d_local: run as PYTHONPATH=tools python3 -m inimeasure.em3d_local")
    main()
