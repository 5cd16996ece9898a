# incast_lib.sh - what the incast drivers share (issue 50): one run of
# `ini-ping --incast` under the launcher and its row of a runs.tsv
# (tools/inimeasure/incast.py says its columns).  Sourced, after
# tools/lib/options.sh (PROG, die, posint), by tools/ping/incast.sh (one
# host, the launcher's LAN) and tools/ping/incast_hosts.sh (lab hosts over
# ssh), which differ only in how the clusters are made and launched.
#
#   incast_args "$@"     LABEL SENDERS COUNT SIZE OUT [TIMEOUT_S] checked into
#                        those variables (and root: namespaces); RUN, the run's new directory
#                        (absolute: the hosts' parts write there too),
#                        OUT's directory's runs/LABEL-SENDERSxCOUNTxSIZE-N;
#                        CFG, a temporary file for the configuration (the
#                        caller removes it at exit)
#   incast_edit_cfg      the run's settings from the environment, into CFG:
#                        WINDOW=N (stack.window), PORT=auto|af_xdp|af_packet
#                        (network.port), DEVARGS=TEMPLATE (every INI's port
#                        from devargs, {ID} its id, e.g.
#                        'net_af_packet{ID},iface=i{ID},framecnt=4096')
#   incast_run CMD...    CMD run CFG --run-dir RUN --timeout TIMEOUT
#                        "${INCAST_RUN_ARGS[@]}" -- ini-ping --incast ...,
#                        CMD being the launcher (with whatever runs it: a
#                        namespace); sets RC (its exit status) and WALL (s)
#   incast_record        the run's files pruned to what the table needs, its
#                        row appended to OUT (the header first if OUT is
#                        new) and printed

INCAST_RUN_ARGS=()

incast_args() {
    [ $# -ge 5 ] && [ $# -le 6 ] || die "usage: $(help_usage | sed -n '1s/^usage: //p')"
    LABEL=$1 SENDERS=$2 COUNT=$3 SIZE=$4 OUT=$5 TIMEOUT=${6:-300}
    case $LABEL in ''|*[!A-Za-z0-9_.-]*) die "LABEL: expected letters, digits, _, . or -, got '$LABEL'" ;; esac
    posint SENDERS "$SENDERS"; posint COUNT "$COUNT"; posint SIZE "$SIZE"; posint TIMEOUT "$TIMEOUT"
    [ "$(id -u)" -eq 0 ] || die "needs root (network namespaces)"
    mkdir -p "$(dirname "$OUT")/runs" || die "OUT: cannot make $(dirname "$OUT")/runs"
    local base n=1
    base=$(cd "$(dirname "$OUT")" && pwd)/runs/$LABEL-${SENDERS}x${COUNT}x$SIZE
    while [ -e "$base-$n" ]; do n=$((n + 1)); done
    RUN=$base-$n
    CFG=$(mktemp /tmp/ini-incast.XXXXXX.cfg)
}

incast_edit_cfg() {
    if [ -n "${WINDOW:-}" ]; then
        posint WINDOW "$WINDOW"
        sed -i "s/window = [0-9]*;/window = $WINDOW;/" "$CFG"
    fi
    if [ -n "${PORT:-}" ]; then
        case $PORT in auto|af_xdp|af_packet) ;; *) die "PORT: expected auto, af_xdp or af_packet, got '$PORT'" ;; esac
        sed -i "s/port = \"[a-z_]*\";/port = \"$PORT\";/" "$CFG"
    fi
    if [ -n "${DEVARGS:-}" ]; then
        case $DEVARGS in *'"'*|*'|'*) die "DEVARGS: no quote or bar allowed" ;; esac
        local tmpl
        tmpl=$(printf %s "$DEVARGS" | sed 's/[&\\]/\\&/g; s/{ID}/\\1/g')
        sed -i -E "s|\{ id = ([0-9]+); core = |{ id = \\1; devargs = \"$tmpl\"; core = |" "$CFG"
    fi
}

incast_run() {
    local t0
    t0=$(date +%s.%N)
    "$@" run "$CFG" --run-dir "$RUN" --timeout "$TIMEOUT" "${INCAST_RUN_ARGS[@]}" -- \
        "$ROOT/build/bin/ini-ping" --incast --sizes "$SIZE" --count "$COUNT" --timeout-ms 60000 > "$RUN.out" 2>&1
    RC=$?
    WALL=$(echo "$(date +%s.%N) - $t0" | bc)
}

incast_record() {
    mkdir -p "$RUN"
    mv "$RUN.out" "$RUN/output.txt"
    # Only what the table needs stays: the counters, the report, the output.
    find "$RUN" -maxdepth 1 -type f ! -name '*.counters.json' ! -name incast.json ! -name output.txt \
        ! -name 'cluster*.out' ! -name launcher.log ! -name ini0.log -delete
    [ -s "$OUT" ] || python3 -m inimeasure.incast --header > "$OUT"
    python3 -m inimeasure.incast "$RUN" "$LABEL" "$SENDERS" "$COUNT" "$SIZE" "$RC" "$(printf %.1f "$WALL")" >> "$OUT"
    # The row has the senders' figures; of the files, the target's stay (the
    # output has every INI's summary line).
    find "$RUN" -maxdepth 1 -type f \( \( -name 'ini*.counters.json' ! -name ini0.counters.json \) -o \
        \( -name 'cluster*.out' ! -name cluster0.out \) \) -delete
    tail -n 1 "$OUT"
}
