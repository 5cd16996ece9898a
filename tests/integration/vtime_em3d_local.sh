#!/usr/bin/env bash
# vtime_em3d_local: EM3D's local graph (--graph local, docs/em3d.md "The
# local graph") in virtual time on 16 compute nodes, as 16 clusters of 1
# and as 4 clusters of 4 (1 INI each; get, 8 x 8 cells a node, radius 2,
# degree 20, 1 step):
#   1. both runs end with check=ok in every cluster;
#   2. the messages each INI carries (its counters: sent + delivered)
#      are within 3% of what the geometry gives (inimeasure.em3d_local
#      predict: 691.4 at c = 1, 1,320.9 at c = 4), and their growth from
#      c = 1 to c = 4 within 5% of the geometry's ratio 1.91 (sqrt(4) = 2
#      less the corners' share and the barrier's messages);
#   3. the graph's inter-cluster edges fall from c = 1 to c = 4 as the
#      perimeter a node's share over the cluster's (about 1/sqrt(4)).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start vtime_em3d_local build/bin/ini-cluster build/bin/inid build/bin/em3d
L=build/bin/ini-cluster
export PYTHONPATH=tools

# mean messages an INI carried, from the run's counters
ini_msgs() {
    python3 - "$TMP/$1" <<'EOF'
import glob, json, sys
c = [json.load(open(f))["transport"] for f in glob.glob(sys.argv[1] + "/ini*.counters.json")]
print("%.1f" % (sum(x["msgs_sent"] + x["msgs_delivered"] for x in c) / len(c)) if c else "")
EOF
}
model() {   # C: the geometry's mean messages an INI, get, 1 INI a cluster
    python3 -m inimeasure.em3d_local predict 8 2 20 1 | awk -F'\t' -v c="$1" '$1 == c && $2 == 1 && $3 == "get" {print $4}'
}

for c in 1 4; do
    $L gen $((16 / c)) $c 1 -o "$TMP/c$c.cfg" > /dev/null
    timeout 600 $L run "$TMP/c$c.cfg" --time virtual --timeout 500 --run-dir "$TMP/r$c" -- build/bin/em3d \
        --variant get --graph local --nodes 128 --radius 2 --degree 20 --steps 1 > "$TMP/r$c.out" 2>&1
    rc=$?
    bad=$(grep -c 'values differ' "$TMP/r$c.out" | tr -d ' ')
    differ=$(grep -o 'check: [0-9]* of' "$TMP/r$c.out" | awk '$2 != 0' | wc -l)
    if [ "$rc" = 0 ] && grep -q 'check=ok' "$TMP/r$c.out" && [ "$differ" = 0 ]; then
        ok "c=$c: check=ok (cluster 0) and $bad other clusters with 0 values differing"
    else
        fail "c=$c: status $rc; $(grep -h -o 'check=[a-zA-Z]*\|check: [0-9]* of [0-9]*' "$TMP/r$c.out" | sort | uniq -c | tr '\n' ' ')"
    fi
done

m1=$(ini_msgs r1) m4=$(ini_msgs r4) g1=$(model 1) g4=$(model 4)
if [ -n "$m1" ] && [ -n "$m4" ] && [ -n "$g1" ] && [ -n "$g4" ] &&
   python3 -c 'import sys; m1, m4, g1, g4 = map(float, sys.argv[1:]);
sys.exit(not (abs(m1 / g1 - 1) < 0.03 and abs(m4 / g4 - 1) < 0.03 and abs((m4 / m1) / (g4 / g1) - 1) < 0.05))' \
       "$m1" "$m4" "$g1" "$g4"; then
    ok "messages an INI: $m1 at c=1, $m4 at c=4 (geometry $g1, $g4); ratio $(python3 -c "print('%.3f' % ($m4 / $m1))") against $(python3 -c "print('%.3f' % ($g4 / $g1))")"
else
    fail "messages an INI: '$m1' at c=1, '$m4' at c=4, the geometry's '$g1', '$g4'"
fi

e1=$(grep -o 'edges_inter=[0-9]*' "$TMP/r1.out" | cut -d= -f2)
e4=$(grep -o 'edges_inter=[0-9]*' "$TMP/r4.out" | cut -d= -f2)
# The share of a node's edges leaving a block w cells wide, R = 2: 1 - (1 - 1.2/w)^2
if [ -n "$e1" ] && [ -n "$e4" ] && python3 -c 'import sys; e1, e4 = map(int, sys.argv[1:]);
want = (1 - (1 - 1.2 / 16) ** 2) / (1 - (1 - 1.2 / 8) ** 2); sys.exit(abs(e4 / e1 / want - 1) > 0.05)' "$e1" "$e4"; then
    ok "inter-cluster edges: $e1 at c=1, $e4 at c=4 (ratio $(python3 -c "print('%.3f' % ($e4 / $e1))"), geometry 0.520)"
else
    fail "inter-cluster edges: '$e1' at c=1, '$e4' at c=4 (want the ratio 0.520 within 5%)"
fi
test_end
