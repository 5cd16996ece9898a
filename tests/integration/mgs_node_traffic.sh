#!/usr/bin/env bash
# mgs_node_traffic: every MGS message leaves through the INI that the
# scheduling policy picks for the compute node it is sent for (issue 13,
# docs/mgs.md "Who sends and receives").  Water on MGS, 2 clusters x 8
# compute nodes, 2 INIs per cluster (ini-cluster gen 2 8 2), 343 molecules,
# 2 steps, summary traces:
#   static       each compute node's messages leave and arrive only through
#                the INI the configuration gives it, every INI carries
#                messages both ways, and the split over a cluster's two
#                INIs is not lopsided (each carries 25-75% of the cluster's);
#                the trace counts match MGS's own per-node counters.
#   round-robin  each compute node that sent uses both INIs of its cluster.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
CLUSTER=$PWD/build/bin/ini-cluster
TRACE=$PWD/build/bin/ini-trace
water_test_start mgs_node_traffic "$CLUSTER" "$TRACE" build/bin/inid

"$CLUSTER" gen 2 8 2 -o "$TMP/2x8x2.cfg" > /dev/null || exit 1
printf '  1.5e-16   343  2   6\n -1      3000     3  0\n16 6.212752\n' > "$TMP/water.in"

for pol in static round-robin; do
    dir=$TMP/run-$pol
    if ! "$CLUSTER" run "$TMP/2x8x2.cfg" --policy "$pol" --ini-policy "$pol" --trace summary \
            --run-dir "$dir" --timeout 120 -- "$WATER" --mgs --random "$RANDOM_IN" \
            < "$TMP/water.in" > "$TMP/$pol.out" 2>&1; then
        fail "$pol: Water on MGS failed"; tail -20 "$TMP/$pol.out"; continue
    fi
    "$TRACE" report "$dir" --format json > "$TMP/$pol.json" || { fail "$pol: ini-trace report"; continue; }
    "$TRACE" report "$dir" | sed -n '/Messages per compute node per INI/,$p' | head -22
    python3 - "$pol" "$TMP/2x8x2.cfg" "$TMP/$pol.json" "$dir" <<'EOF' || failures=$((failures + 1))
import glob, json, re, sys
pol, cfg_path, rep_path, run_dir = sys.argv[1:]
rep = json.load(open(rep_path))
bad = []
# The static INI of each compute node, from the configuration's `static`
# lists (ini-cluster gen writes one per cluster: the INI id of each node).
cfg = open(cfg_path).read()
static = [list(map(int, re.findall(r'\d+', m))) for m in re.findall(r'static\s*=\s*\[([^\]]*)\]', cfg)]
inis_of = {}
for c in rep["clusters"]:
    inis_of[c["cluster"]] = [i["ini"] for i in c["inis"]]
split = rep["pe_split"]
if len(split) != 16:
    bad.append("pe_split has %d compute nodes, expected 16" % len(split))
for e in split:
    c, pe = e["cluster"], e["pe"]
    sent, recv = e["sent"], e["received"]
    if sum(sent) == 0:
        bad.append("PE %d sent nothing" % pe)
    if pol == "static":
        local = pe - 8 * c
        # `static` names global INI ids; pe_split counts by index in the cluster
        want = inis_of[c].index(static[c][local]) if static and len(static) > c else None
        used = [k for k in range(len(sent)) if sent[k] or recv[k]]
        if len(used) != 1:
            bad.append("PE %d used INIs %s under static" % (pe, used))
        elif want is not None and used[0] != want:
            bad.append("PE %d used INI #%d, its static INI is #%d" % (pe, used[0], want))
    else:
        if sum(1 for k in sent if k) != len(sent):
            bad.append("PE %d sent through %d of %d INIs under round-robin" % (pe, sum(1 for k in sent if k), len(sent)))
if pol == "static":
    for c in rep["clusters"]:
        total = sum(i["msgs_out"] + i["msgs_in"] for i in c["inis"])
        for i in c["inis"]:
            carried = i["msgs_out"] + i["msgs_in"]
            if i["msgs_out"] == 0 or i["msgs_in"] == 0:
                bad.append("INI %d carried %d out, %d in" % (i["ini"], i["msgs_out"], i["msgs_in"]))
            elif not 0.25 <= carried / total <= 0.75:
                bad.append("INI %d carried %.0f%% of cluster %d's messages" % (i["ini"], 100 * carried / total, c["cluster"]))
    # MGS's own count per node (mgs-cluster<C>.json) equals the traces'.
    for f in glob.glob(run_dir + "/mgs-cluster*.json"):
        m = json.load(open(f))
        for n in m.get("nodes", []):
            tr = [e for e in split if e["pe"] == n["pe"]]
            if tr and sum(tr[0]["sent"]) != n["sent"]:
                bad.append("PE %d: traces count %d sent, MGS %d" % (n["pe"], sum(tr[0]["sent"]), n["sent"]))
for b in bad:
    print("FAIL: %s: %s" % (pol, b))
print("%s: %d compute nodes checked, %d problems" % (pol, len(split), len(bad)))
sys.exit(1 if bad else 0)
EOF
done
test_end
