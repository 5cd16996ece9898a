#!/usr/bin/env bash
# incast.sh: many clusters into one on the af_packet LAN (issue 50):
# SENDERS + 1 clusters of one compute node and one INI each
# (ini-cluster gen ... --mode af_packet), every sender's compute node
# sending COUNT messages of SIZE bytes to compute node 0 (ini-ping
# --incast: the first sender alone first, then all of them), and appends
# one row per run to OUT (a runs.tsv: tools/inimeasure/incast.py says its
# columns), writing its header if OUT is new.  The run's directory is
# kept under OUT's directory, in runs/LABEL-SENDERSxCOUNTxSIZE-N/ (the
# target's counters file, compute node's output and incast.json, the
# launcher's output with every INI's summary line, the launcher's log,
# the target INI's log: its port resets, one line each).
#   usage: [WINDOW=N] [DEVARGS=TEMPLATE] tools/ping/incast.sh LABEL SENDERS COUNT SIZE OUT [TIMEOUT_S]
# Needs root (network namespaces).  Exits with ini-cluster's status.
PROG=incast; . "$(dirname "$0")/../lib/options.sh"
case ${1-} in -h|--help) help_header; exit 0 ;; esac
[ $# -ge 5 ] || die "usage: tools/ping/incast.sh LABEL SENDERS COUNT SIZE OUT [TIMEOUT_S]"
LABEL=$1 SENDERS=$2 COUNT=$3 SIZE=$4 OUT=$5 TIMEOUT=${6:-300}
posint SENDERS "$SENDERS"; posint COUNT "$COUNT"; posint SIZE "$SIZE"; posint TIMEOUT "$TIMEOUT"
[ "$(id -u)" -eq 0 ] || die "needs root (network namespaces)"
mkdir -p "$(dirname "$OUT")/runs"
n=1
while [ -e "$(dirname "$OUT")/runs/$LABEL-${SENDERS}x${COUNT}x$SIZE-$n" ]; do n=$((n + 1)); done
RUN=$(dirname "$OUT")/runs/$LABEL-${SENDERS}x${COUNT}x$SIZE-$n
CFG=$(mktemp /tmp/ini-incast.XXXXXX.cfg)
trap 'rm -f "$CFG"' EXIT
build/bin/ini-cluster gen $((SENDERS + 1)) 1 1 --mode af_packet -o "$CFG" || exit 1
# WINDOW=N: stack.window for the run (the generator writes the default).
if [ -n "${WINDOW:-}" ]; then
    posint WINDOW "$WINDOW"
    sed -i "s/window = [0-9]*;/window = $WINDOW;/" "$CFG"
fi
# DEVARGS=TEMPLATE: every INI's port from devargs, {ID} its id (e.g.
# 'net_af_packet{ID},iface=i{ID},framecnt=4096': DPDK's af_packet driver
# instead of the default af_xdp one).
if [ -n "${DEVARGS:-}" ]; then
    case $DEVARGS in *'"'*|*'|'*) die "DEVARGS: no quote or bar allowed" ;; esac
    tmpl=$(printf %s "$DEVARGS" | sed 's/[&\\]/\\&/g; s/{ID}/\\1/g')
    sed -i -E "s|\{ id = ([0-9]+); core = |{ id = \\1; devargs = \"$tmpl\"; core = |" "$CFG"
fi
t0=$(date +%s.%N)
build/bin/ini-cluster run "$CFG" --run-dir "$RUN" --timeout "$TIMEOUT" -- \
    build/bin/ini-ping --incast --sizes "$SIZE" --count "$COUNT" --timeout-ms 60000 > "$RUN.out" 2>&1
rc=$?
wall=$(echo "$(date +%s.%N) - $t0" | bc)
mv "$RUN.out" "$RUN/output.txt"
# Only what the table needs stays: the counters, the report, the output.
find "$RUN" -maxdepth 1 -type f ! -name '*.counters.json' ! -name incast.json ! -name output.txt \
    ! -name 'cluster*.out' ! -name launcher.log ! -name ini0.log -delete
[ -s "$OUT" ] || python3 -m inimeasure.incast --header > "$OUT"
python3 -m inimeasure.incast "$RUN" "$LABEL" "$SENDERS" "$COUNT" "$SIZE" "$rc" "$(printf %.1f "$wall")" >> "$OUT"
# The row has the senders' figures; of the files, the target's stay (the
# output has every INI's summary line).
find "$RUN" -maxdepth 1 -type f \( \( -name 'ini*.counters.json' ! -name ini0.counters.json \) -o \
    \( -name 'cluster*.out' ! -name cluster0.out \) \) -delete
tail -n 1 "$OUT"
exit "$rc"
