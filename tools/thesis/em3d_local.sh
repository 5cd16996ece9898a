#!/usr/bin/env bash
# em3d_local.sh - the square-root test on EM3D's local graph (issue 45
# point 6; docs/em3d.md, docs/results/em3d-local-sqrt): 16 compute nodes
# as clusters of c, in virtual time with declared work.
#
#   tools/thesis/em3d_local.sh [--out DIR] [--cells LIST] [--variants LIST] [--reps N]
#        [--work-scale K] [--nodes N] [--radius R] [--degree D] [--steps S] [--seed N]
#
# --cells      c:INIs pairs, comma-separated (default: 1 INI a cluster at
#              c = 1, 2, 4, 8; about sqrt(c) INIs, 2:2, 4:2, 8:3, and 8:2
#              (the torus's count for clusters of 8); the null, one INI
#              a node, 2:2, 4:4, 8:8).  c = 16 is one cluster: no
#              inter-cluster traffic to carry, left out.
# --variants   get, put, ghost (MGS), bulk (default get,put,ghost)
# --reps       runs a cell (default 1: the run is deterministic; the
#              README shows one cell run twice, equal to the cycle); a
#              run already in DIR/runs.tsv is not made again
# The graph: --graph local, --nodes 512 (16 x 16 cells a node), --radius 2,
# --degree 20, --steps 2, --seed 1; --work-scale K (default 100) the
# emulated cycles per declared instruction; `thesis` costs, memif, static
# policy.  One row per run in DIR/runs.tsv (inimeasure.em3d_local's
# columns), the run's output and directory under DIR/runs/.  DIR defaults
# to a new directory under /tmp: a quick run never overwrites committed
# results.
PROG=em3d_local.sh; . "$(dirname "$0")/../lib/options.sh"
OUT= CELLS=1:1,2:1,4:1,8:1,2:2,4:2,8:3,8:2,4:4,8:8 VARIANTS=get,put,ghost REPS=1 SCALE=100
NODES=512 RADIUS=2 DEGREE=20 STEPS=2 SEED=1
show_help() { help_between '^#   tools' '^# results.'; }
parse_options "--out=OUT --cells=CELLS --variants=VARIANTS --reps=REPS --work-scale=SCALE --nodes=NODES
    --radius=RADIUS --degree=DEGREE --steps=STEPS --seed=SEED" "$@"
posint --reps "$REPS"; posint --nodes "$NODES"; posint --radius "$RADIUS"; posint --degree "$DEGREE"
posint --steps "$STEPS"; nonneg --seed "$SEED"
awk -v k="$SCALE" 'BEGIN{exit !(k > 0 && k <= 1e6)}' || die "--work-scale: '$SCALE' is not a number from 0 to 1e6"
for v in ${VARIANTS//,/ }; do case $v in get|put|ghost|bulk) ;; *) die "--variants: unknown version '$v'" ;; esac; done
for cell in ${CELLS//,/ }; do
    [[ $cell =~ ^([0-9]+):([0-9]+)$ ]] || die "--cells: '$cell' is not c:INIS"
    c=${BASH_REMATCH[1]} i=${BASH_REMATCH[2]}
    case $c in 1|2|4|8) ;; *) die "--cells: cluster size $c is not 1, 2, 4 or 8 (16 nodes, more than one cluster)" ;; esac
    [ "$i" -ge 1 ] && [ "$i" -le "$c" ] || die "--cells: $i INIs in clusters of $c"
done
[ -n "$OUT" ] || OUT=$(mktemp -d /tmp/em3d-local.XXXXXX)
mkdir -p "$OUT/runs"
L=$ROOT/build/bin/ini-cluster E=$ROOT/build/bin/em3d TSV=$OUT/runs.tsv
[ -x "$L" ] && [ -x "$E" ] || die "build/bin/ini-cluster and build/bin/em3d: run make first"
[ -f "$TSV" ] || python3 -m inimeasure.em3d_local header > "$TSV"
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD)

# run_cell C INIS VARIANT REP: one run, one row
run_cell() {
    local c=$1 i=$2 v=$3 rep=$4 name="c$1-i$2-$3-r$4"
    local cfg=$OUT/runs/c$1-i$2.cfg dir=$OUT/runs/$name load
    [ -f "$cfg" ] || "$L" gen $((16 / c)) "$c" "$i" -o "$cfg" > /dev/null || die "ini-cluster gen $((16 / c)) $c $i failed"
    load=$(cut -d' ' -f1 /proc/loadavg)
    local t0; t0=$(date +%s.%N)
    timeout 1200 "$L" run "$cfg" --time virtual --timeout 1100 --run-dir "$dir" -- "$E" --variant "$v" \
        --graph local --nodes "$NODES" --radius "$RADIUS" --degree "$DEGREE" --steps "$STEPS" --seed "$SEED" \
        --work-scale "$SCALE" > "$dir.out" 2>&1
    local rc=$? t1; t1=$(date +%s.%N)
    python3 -m inimeasure.em3d_local row "$dir" "$dir.out" "$rc" "$t0" "$t1" "$c $i $v $rep $load" "$COMMIT" >> "$TSV"
    tail -1 "$TSV"
}

for cell in ${CELLS//,/ }; do
    for v in ${VARIANTS//,/ }; do
        for rep in $(seq 1 "$REPS"); do
            # a run already in runs.tsv is kept, not made again: --reps 2 adds the second
            if awk -F'\t' -v c="${cell%:*}" -v i="${cell#*:}" -v v="$v" -v r="$rep" \
                '$1 == c && $2 == i && $3 == v && $4 == r {found = 1} END {exit !found}' "$TSV"; then
                echo "$PROG: c=${cell%:*} INIs ${cell#*:} $v rep $rep is in $TSV already"
                continue
            fi
            run_cell "${cell%:*}" "${cell#*:}" "$v" "$rep"
        done
    done
done
echo "$PROG: rows in $TSV"
