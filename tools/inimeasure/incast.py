"""incast.py - one row of docs/results/incast/runs.tsv from a run of
`ini-ping --incast` (tools/ping/incast.sh): the target's goodput of both
phases (RUN_DIR/incast.json) and the transport's figures from every INI's
counters file.

    PYTHONPATH=tools python3 -m inimeasure.incast --header
    PYTHONPATH=tools python3 -m inimeasure.incast RUN_DIR LABEL SENDERS COUNT SIZE STATUS SECONDS

Columns: the label (the build), the run's shape, its exit status and wall
time; the target's messages verified of those expected over both phases;
solo and incast goodput (Gbit/s) and their ratio; data frames sent (first
transmissions, every sender), retransmissions (by NAK and by timer, every
INI) and their share of the data frames; the NAKs the target sent, the
frames it received after a loss (each a frame that was lost and sent
again) and NAKs per such frame; the target's probes received; its receive
drops at the link (the port's missed frames: the socket or ring), in the
stack (frames lwIP or the transport dropped before the window) and its
link's frames received.  A run that did not finish (no incast.json) gets
NA for what only the target's report says."""
import json
import os
import sys

if not __package__:
    sys.exit("incast.py: run it as `PYTHONPATH=tools python3 -m inimeasure.incast` from the repository's root")

COLUMNS = ("label senders count size status wall_s verified expected solo_gbps incast_gbps ratio "
           "data_frames retx retx_pct naks_sent lost_frames naks_per_lost probes_rx "
           "rx_missed rx_stack_drops rx_frames").split()


def counters(run_dir):
    """Every INI's counters file, by INI id."""
    out = {}
    for name in sorted(os.listdir(run_dir)):
        if name.startswith("ini") and name.endswith(".counters.json"):
            with open(os.path.join(run_dir, name)) as f:
                c = json.load(f)
            out[c["ini"]] = c
    return out


def fmt(x, digits=3):
    if x is None:
        return "NA"
    return f"{x:.{digits}f}" if isinstance(x, float) else str(x)


def row(run_dir, label, senders, count, size, status, wall):
    inis = counters(run_dir)
    rep = None
    path = os.path.join(run_dir, "incast.json")
    if os.path.exists(path):
        with open(path) as f:
            rep = json.load(f)
    tr = {i: c["transport"] for i, c in inis.items()}
    target = inis.get(0, {})
    t = target.get("transport", {})
    port = target.get("port", {})
    frames = sum(max(x.get("segs_sent", 0), x.get("msgs_sent", 0)) for i, x in tr.items() if i != 0)
    retx = sum(x.get("retx_nak", 0) + x.get("retx_timer", 0) for x in tr.values())
    lost = t.get("retx_after_loss", 0)
    naks = t.get("naks_sent", 0)
    if rep:
        verified = rep.get("solo", {}).get("messages", 0) + rep["incast"]["messages"]
        expected = rep.get("solo", {}).get("expected", 0) + rep["incast"]["expected"]
        solo = rep.get("solo", {}).get("gbps")
        inc, ratio = rep["incast"]["gbps"], rep.get("ratio")
    else:
        verified = t.get("msgs_delivered")
        expected = (int(senders) + 1) * int(count)
        solo = inc = ratio = None
    stack_drops = sum(t.get(k, 0) for k in ("out_of_window", "bad_header", "bad_conn", "crc_errors",
                                             "udp_checksum_errors", "mac_fail"))
    stack_drops += target.get("ip", {}).get("drops", 0) + target.get("udp", {}).get("drops", 0)
    vals = [label, senders, count, size, status, wall, verified, expected, solo, inc, ratio, frames, retx,
            100.0 * retx / frames if frames else 0.0, naks, lost, naks / lost if lost else 0.0,
            t.get("probes_received", 0), port.get("rx_missed", 0) + port.get("xsk_ring_full", 0) + port.get("rx_errors", 0) + port.get("rx_nombuf", 0), stack_drops,
            target.get("link", {}).get("rx_frames", 0)]
    return "\t".join(fmt(v) for v in vals)


def main(argv):
    args = argv[1:]
    if args == ["--header"]:
        print("\t".join(COLUMNS))
        return 0
    if len(args) != 7 or args[0] in ("-h", "--help"):
        print(__doc__, file=sys.stderr if args[:1] not in (["-h"], ["--help"]) else sys.stdout)
        return 0 if args[:1] in (["-h"], ["--help"]) else 2
    try:
        print(row(*args))
    except (OSError, ValueError, KeyError) as e:
        print(f"incast: {args[0]}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
