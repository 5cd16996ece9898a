# turns.sh - variants measured in turns (sourced, not run).  This machine
# moves between a fast and a slow state for seconds at a time
# (docs/performance.md), which moves every figure: two builds, or two modes
# of one build, are compared only within a turn, never a run of one against
# a run of the other at another time.  Each turn runs every variant once,
# the order rotating by one from turn to turn so that none always goes
# first.  Used by ab.sh (and ab64.sh), segment_compare.sh and
# tools/ping/loss_vs_size.sh.
#
#   turn_order TURN VARIANT...          the variants in turn TURN's order, one a line
#   in_turns TURNS FUNCTION VARIANT...  FUNCTION TURN VARIANT, for turns 1..TURNS and
#                                       every variant in that turn's order

turn_order() {
    local t=$1 j
    shift
    local v=("$@")
    for ((j = 0; j < ${#v[@]}; j++)); do
        printf '%s\n' "${v[(j + t) % ${#v[@]}]}"
    done
}

in_turns() {
    local turns=$1 fn=$2 t v
    shift 2
    for ((t = 1; t <= turns; t++)); do
        while IFS= read -r v; do
            "$fn" "$t" "$v" < /dev/null
        done < <(turn_order "$t" "$@")
    done
}
