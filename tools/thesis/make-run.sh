#!/usr/bin/env bash
# `make run`: Water on MGS on the default configuration (conf/default.cfg:
# two clusters of two compute nodes, one INI each, memif between the INIs),
# 512 molecules, 3 steps, NumProcs 4, with summary traces; then the INI
# report (tables 5.3/5.4) and the misrouting report (5.6/5.7) of the run,
# the tables also as CSV files, and last a plain summary: what ran, how
# long, messages and bytes, each INI's utilization, and what the tables
# say.  Each step announces itself ([1/3] ...) before it starts.
set -euo pipefail
cd "$(dirname "$0")/../.."
# Water's input: the SPLASH-2 water-nsquared data file random.in (the
# molecules' initial velocities), part of the repository
# (tools/apps/water/data/README.md), unless $WATER_RANDOM names another copy.
RANDOM_IN=${WATER_RANDOM:-tools/apps/water/data/random.in}
if [ ! -r "$RANDOM_IN" ]; then
    echo "make run: Water's data file $RANDOM_IN (relative to $PWD) is missing;" >&2
    echo "          it is part of the repository (git checkout tools/apps/water/data/random.in)" >&2
    exit 1
fi
RUN_DIR=runs/make-run-$(date +%Y%m%d-%H%M%S)-$$
t0=$(date +%s.%N)
elapsed() { awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f s", b - a }'; }

echo "[1/3] Water on MGS, conf/default.cfg (2 clusters x 2 compute nodes, 1 INI each), N=512, 3 steps"
echo "      (a few seconds; the launcher shows each cluster's output as it comes, cluster 1's as [c1] ...)"
printf '  1.5e-16   512  3   6\n -1      3000     3  0\n4 6.212752\n' |
    build/bin/ini-cluster run conf/default.cfg --trace summary --run-dir "$RUN_DIR" -- \
        build/bin/water --mgs --random "$RANDOM_IN"
t_water=$(elapsed)
echo
echo "[2/3] INI report: ini-trace report $RUN_DIR  (after $t_water)"
build/bin/ini-trace report "$RUN_DIR"
echo
echo "[3/3] the same tables as CSV files, one per table"
build/bin/ini-trace report "$RUN_DIR" --csv-dir "$RUN_DIR/report"

# The summary, from the run's own files: the counters each inid wrote,
# Water's timing lines (milliseconds), and each INI's utilization and
# queue length from the report's own table (report/clusters.csv): one
# definition of both (docs/traces.md), the same numbers in the table
# and here.
echo
echo "== Summary =="
python3 - "$RUN_DIR" "$t_water" "$(elapsed)" <<'PY'
import csv, glob, json, os, re, sys
run, t_water, t_all = sys.argv[1:4]
table = {}
with open(os.path.join(run, "report", "clusters.csv")) as fh:
    for row in csv.DictReader(fh):
        if row["ini"].isdigit():
            table[int(row["ini"])] = row
inis = []
for f in sorted(glob.glob(os.path.join(run, "ini*.counters.json")),
                key=lambda p: int(re.search(r"ini(\d+)\.counters", p).group(1))):
    with open(f) as fh:
        inis.append(json.load(fh))
sent = sum(i["transport"]["msgs_sent"] for i in inis)
sent_b = sum(i["transport"]["bytes_sent"] for i in inis)
local = sum(i["messages"]["local"] for i in inis)
retx = sum(i["transport"]["retx_timer"] + i["transport"]["retx_nak"] for i in inis)
water = {}
out = os.path.join(run, "cluster0.out")
if os.path.exists(out):
    for line in open(out):
        m = re.match(r"(COMPUTETIME|Measured Time|Intramolecular time only|Intermolecular time only)[^=]*= (\d+)", line)
        if m:
            water[m.group(1)] = int(m.group(2))
print(f"What ran:   Water (SPLASH-2 water-nsquared, 512 molecules, 3 time steps) on MGS, the shared")
print(f"            memory over INI messages, on 4 compute nodes in 2 clusters; one INI per cluster,")
print(f"            the two INIs joined by a memif link.  Run directory: {run}")
print(f"How long:   Water and the launcher {t_water}; everything {t_all}.", end="")
if "COMPUTETIME" in water:
    print(f"  Water's own clock: {water['COMPUTETIME']} ms after initialisation,"
          f"\n            {water.get('Measured Time', 0)} ms from the 2nd step on"
          f" ({water.get('Intramolecular time only', 0)} ms intramolecular,"
          f" {water.get('Intermolecular time only', 0)} ms intermolecular forces).")
else:
    print()
print(f"Messages:   {sent} inter-cluster messages ({sent_b / 1e6:.2f} MB of payload) sent through the")
print(f"            INIs, {local} local ones (between compute nodes of one cluster, through its INI);")
print(f"            {retx} retransmissions.")
for i in inis:
    t = table[i["ini"]]
    print(f"INI {i['ini']}:      cluster {i['cluster']}, utilization {float(t['utilization']):.3f} and queue length "
          f"{float(t['queue_len']):.3f} over its {i['queue']['run_seconds']:.1f} s (table 5.3's);\n"
          f"            {i['busy']['cycles_per_message']:.0f} cycles of its loop per message handled")
print("""
Reading the report above:
  Tables 5.3/5.4  one row per INI: messages out/in/local, mean length, time a message spends in
                  the sending and the receiving INI (msg time), queue length (the time-average
                  number of messages in the INI, waiting or in service) and utilization (the
                  share of the run the INI was processing messages, a fraction: 0.017 is 1.7%).
                  5.3 is labelled so under the static INI policy, 5.4 under round-robin.
  Tables 5.6/5.7  misrouting: a message that waited in one INI's queue while another INI of
                  its cluster was idle.  The count rate is the share of such messages (0-100%);
                  the time rate is the queue time they could have saved over the INIs' busy
                  time, and exceeds 100% when messages come in bursts (a burst of 5 served
                  back to back gives 200%).  With one INI per cluster, as here, there is no
                  other INI to route to: the rows say "n/a: one INI".  docs/traces.md has
                  every definition.
  Per compute node  the messages each compute node sent and received through each INI of its
                  cluster: how the compute-node policy spread them.""")
print(f"  CSV files:      {run}/report/*.csv")
PY
