#!/usr/bin/env bash
# em3d: EM3D (docs/em3d.md) verified against its sequential reference.
#
#  1. bad input is refused the command-line skeleton's way (status 2, one
#     line): an odd --nodes, inter-cluster edges on one cluster, a message
#     version outside the launcher, --layout under it, an unknown variant;
#     --help and --version answer.
#  2. outside the launcher: seq, and simple and ghost over threads, with
#     inter- and intra-cluster edges: check=ok.
#  3. under ini-cluster run, 2 clusters of 4 compute nodes with 2 INIs
#     each: every version (simple and ghost on MGS, get, put, bulk on the
#     compute-node API), round-robin policies (messages overtake each
#     other), then again with faults injected (--fault drop=0.05): each run
#     exits 0, cluster 0 prints check=ok with the drawn share of
#     inter-cluster edges near the asked one, and cluster 1 says none of
#     its values differ.  The message versions' runs also must have sent
#     messages (the INIs' counters), and with faults, retransmitted.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
EM3D=$PWD/build/bin/em3d CLUSTER=$PWD/build/bin/ini-cluster
test_start em3d "$EM3D" "$CLUSTER" build/bin/inid

# 1. bad input
expect_error "odd --nodes" "--nodes: 7 is odd" "em3d: " "$EM3D" --nodes 7
expect_error "inter-cluster edges on one cluster" "--inter 0.2" "em3d: " "$EM3D" --layout 1x4 --inter 0.2
expect_error "get outside the launcher" "ini-cluster run" "em3d: " "$EM3D" --variant get
expect_error "unknown variant" "--variant" "em3d: " "$EM3D" --variant fast
expect_error "bad layout" "--layout" "em3d: " "$EM3D" --layout 2y2
expect_error "unknown option" "--bogus: unknown option" "em3d: " "$EM3D" --bogus
expect_error "--layout under the launcher" "--layout" "em3d: " env INI_CONFIG="$PWD/conf/default.cfg" "$EM3D" --layout 2x2
"$EM3D" --help | grep -q '^usage: em3d' && ok "--help" || fail "--help"
"$EM3D" --version | grep -q '^em3d [0-9]' && ok "--version" || fail "--version"

# result LINE FIELD: a field of a RESULT line
field() { sed -n "s/^RESULT .*[ ]$2=\([^ ]*\).*/\1/p" "$1"; }

# 2. outside the launcher
for v in seq simple ghost; do
    want=ok; [ $v = seq ] && want=reference
    if "$EM3D" --variant $v --layout 2x3 --inter 0.3 --intra 0.2 --nodes 100 --steps 5 > "$TMP/$v.out" 2>&1 &&
       [ "$(field "$TMP/$v.out" check)" = $want ]; then
        ok "$v (threads): check=$want, $(field "$TMP/$v.out" us_per_edge) us per edge"
    else
        fail "$v (threads)"; cat "$TMP/$v.out"
    fi
done

# 3. under the launcher
"$CLUSTER" gen 2 4 2 -o "$TMP/2x4.cfg" > /dev/null || fail "ini-cluster gen"
# counter DIR EXPR: EXPR over the transport counters of the run's INIs, summed
counter() {
    python3 - "$1" "$2" <<'PY'
import glob, json, sys
tot = {}
for f in glob.glob(sys.argv[1] + "/ini*.counters.json"):
    for k, v in json.load(open(f))["transport"].items():
        tot[k] = tot.get(k, 0) + v
print(int(eval(sys.argv[2], {}, tot)))
PY
}
# run_em3d NAME VARIANT [launcher options]
run_em3d() {
    local name=$1 v=$2; shift 2
    local dir=$TMP/$name
    timeout 300 "$CLUSTER" run "$TMP/2x4.cfg" --policy round-robin --ini-policy round-robin \
        --run-dir "$dir" --timeout 240 "$@" -- "$EM3D" --variant "$v" --nodes 200 --inter 0.3 --intra 0.2 --steps 4 \
        > "$TMP/$name.log" 2>&1
    local rc=$? out=$dir/cluster0.out
    if [ $rc != 0 ] || [ "$(field "$out" check)" != ok ]; then
        fail "$name: exit status $rc, check '$(field "$out" check 2>/dev/null)'"; tail -20 "$TMP/$name.log"; return
    fi
    local inter total share msgs retx
    inter=$(field "$out" edges_inter)
    total=$(( inter + $(field "$out" edges_intra) + $(field "$out" edges_local) ))
    share=$(awk -v a="$inter" -v t="$total" 'BEGIN{printf "%.3f", a / t}')
    awk -v s="$share" 'BEGIN{exit !(s > 0.28 && s < 0.32)}' || fail "$name: inter-cluster share $share, asked 0.3"
    grep -q '^em3d: cluster 1: check: 0 of [1-9][0-9]* values differ' "$dir/cluster1.out" ||
        { fail "$name: cluster 1's check"; cat "$dir/cluster1.out"; return; }
    msgs=$(counter "$dir" msgs_delivered) retx=$(counter "$dir" 'retx_nak + retx_timer')
    [ "$msgs" -gt 0 ] || fail "$name: the INIs delivered no message"
    [[ $name != *-faults ]] || [ "$retx" -gt 0 ] || fail "$name: faults injected but nothing retransmitted"
    ok "$name: check=ok on both clusters, inter-cluster share $share, $msgs messages ($retx retransmitted), $(field "$out" us_per_edge) us per edge"
}
for v in simple ghost get put bulk; do
    run_em3d "$v" "$v"
    run_em3d "$v-faults" "$v" --fault drop=0.05,seed=3
done
test_end
