# ping.sh - sourced by the ini-ping integration tests.
#
#   ping_run NAME CONFIG SIZES COUNT [LAUNCHER ARGS...] -- [PING ARGS...]
# runs ini-ping under the launcher on CONFIG and checks what every such
# test checks: the launcher's status and last line, that each cluster
# verified exactly (its PEs x COUNT x sizes) messages with 0 errors, and
# that every INI left its log and counters.  On failure it prints why and
# exits 1; on success RUN_DIR names the run directory.

ping_fail() { echo "$PING_NAME: FAIL: $*"; exit 1; }

ping_run() {
    PING_NAME=$1 PING_CONFIG=$2
    local sizes=$3 count=$4
    shift 4
    local launcher_args=() ping_args=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do launcher_args+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    ping_args=("$@")
    [ -x build/bin/ini-cluster ] && [ -x build/bin/ini-ping ] && [ -x build/bin/inid ] ||
        ping_fail "build first (make)"

    RUN_DIR=$(mktemp -d "/tmp/ini-$PING_NAME.XXXXXX")
    local out="$RUN_DIR.out"
    build/bin/ini-cluster run "$PING_CONFIG" "${launcher_args[@]}" --run-dir "$RUN_DIR" -- \
        build/bin/ini-ping --sizes "$sizes" --count "$count" "${ping_args[@]}" > "$out" 2>&1
    local rc=$?
    cat "$out"
    [ "$rc" -eq 0 ] || ping_fail "ini-cluster exited with $rc"
    [ "$(tail -n 1 "$out")" = "run directory: $RUN_DIR" ] || ping_fail "last line is not 'run directory: $RUN_DIR'"

    # Expected per cluster: its PEs (counted in the config) x COUNT x sizes.
    PING_SIZES=$(echo "$sizes" | tr ',' '\n' | wc -l)
    mapfile -t PING_PES < <(grep -o 'pes *= *\[[^]]*\]' "$PING_CONFIG" | sed 's/[^,]//g' |
                            awk '{print length($0) + 1}')
    [ "${#PING_PES[@]}" -ge 2 ] || ping_fail "cannot read the clusters of $PING_CONFIG"
    for c in "${!PING_PES[@]}"; do
        local want="verified $((PING_PES[c] * count * PING_SIZES)) messages, 0 errors"
        local got
        got=$(grep '^verified ' "$RUN_DIR/cluster$c.out" | tail -n 1)
        [ "$got" = "$want" ] || ping_fail "cluster $c: '$got', expected '$want'"
    done
    PING_INIS=$(grep -c 'ip *= *"' "$PING_CONFIG")
    for ((i = 0; i < PING_INIS; i++)); do
        [ -s "$RUN_DIR/ini$i.log" ] || ping_fail "no $RUN_DIR/ini$i.log"
        [ -s "$RUN_DIR/ini$i.counters.json" ] || ping_fail "no $RUN_DIR/ini$i.counters.json"
    done
}

ping_cleanup() { rm -rf "$RUN_DIR" "$RUN_DIR.out"; }
