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
#   usage: [WINDOW=N] [PORT=auto|af_xdp|af_packet] [DEVARGS=TEMPLATE] tools/ping/incast.sh LABEL SENDERS COUNT SIZE OUT [TIMEOUT_S]
# WINDOW: stack.window for the run (the generator writes the default);
# PORT: network.port; DEVARGS: every INI's port from devargs, {ID} its id
# (e.g. 'net_af_xdp{ID},iface=i{ID}').  tools/ping/incast_lib.sh has the
# parts tools/ping/incast_hosts.sh (the same across lab hosts) shares.
# Needs root (network namespaces).  Exits with ini-cluster's status.
PROG=incast; . "$(dirname "$0")/../lib/options.sh"
. tools/ping/incast_lib.sh
case ${1-} in -h|--help) help_header; exit 0 ;; esac
incast_args "$@"
trap 'rm -f "$CFG"' EXIT
build/bin/ini-cluster gen $((SENDERS + 1)) 1 1 --mode af_packet -o "$CFG" || exit 1
incast_edit_cfg
incast_run "$ROOT/build/bin/ini-cluster"
incast_record
exit "$RC"
