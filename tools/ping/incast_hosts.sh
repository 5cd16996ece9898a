#!/usr/bin/env bash
# incast_hosts.sh: many clusters into one across lab hosts over ssh (issue
# 50): SENDERS + 1 namespace hosts h0..hSENDERS of tools/cluster/ini-lab
# (each with its own sshd; its INI on its interface d0, a veth on the
# lab's bridge), one cluster of one compute node and one INI each
# (ini-cluster gen N 1 1 --hosts h0,... --device d0), launched from the
# lab's head over ssh (docs/deploy.md's recipe); every sender's compute
# node sends COUNT messages of SIZE bytes to compute node 0, on h0
# (ini-ping --incast: the first sender alone first, then all of them).
# The row, the run's directory and its files are tools/ping/incast.sh's
# (tools/ping/incast_lib.sh, what both share): one row per run appended
# to OUT (columns: tools/inimeasure/incast.py), the files in
# runs/LABEL-SENDERSxCOUNTxSIZE-N/ under OUT's directory.
#   usage: [LAB=NAME] [PORT=auto|af_xdp|af_packet] [WINDOW=N] [DEVARGS=TEMPLATE] tools/ping/incast_hosts.sh LABEL SENDERS COUNT SIZE OUT [TIMEOUT_S]
# PORT: network.port (auto: af_packet on a virtual device such as the lab's veth d0, af_xdp on a NIC: docs/config.md);
# WINDOW, DEVARGS as incast.sh's.  LAB=NAME: a lab already up (ini-lab
# --name NAME up N, N > SENDERS), left up; without it the run brings up
# a lab of its own, SENDERS + 1 hosts named inc<PID>, and takes it down
# at the end.  Needs root.  Exits with ini-cluster's status.
PROG=incast_hosts; . "$(dirname "$0")/../lib/options.sh"
. tools/ping/incast_lib.sh
case ${1-} in -h|--help) help_header; exit 0 ;; esac
incast_args "$@"
trap 'rm -f "$CFG"' EXIT
[ "$SENDERS" -le 31 ] || die "SENDERS: at most 31 (ini-lab has 32 hosts at most), got $SENDERS"
lab() { tools/cluster/ini-lab --name "$LAB_NAME" "$@"; }
if [ -n "${LAB:-}" ]; then
    LAB_NAME=$LAB
    dir=$(lab dir) || die "LAB: no lab '$LAB' is up"
    [ "$(cat "$dir/hosts.n")" -gt "$SENDERS" ] || die "LAB: lab '$LAB' has $(cat "$dir/hosts.n") hosts, $((SENDERS + 1)) needed"
else
    LAB_NAME=inc$$
    trap 'rm -f "$CFG"; lab down > /dev/null 2>&1' EXIT
    lab up $((SENDERS + 1)) > "$CFG.lab" 2>&1 || { cat "$CFG.lab" >&2; rm -f "$CFG.lab"; exit 1; }
    rm -f "$CFG.lab"
fi
hosts=$(seq -s, -f 'h%g' 0 "$SENDERS")
build/bin/ini-cluster gen $((SENDERS + 1)) 1 1 --hosts "$hosts" --device d0 -o "$CFG" > /dev/null || exit 1
incast_edit_cfg
INCAST_RUN_ARGS=(--ssh "$(lab ssh)")
incast_run tools/cluster/ini-lab --name "$LAB_NAME" exec head "$ROOT/build/bin/ini-cluster"
incast_record
exit "$RC"
