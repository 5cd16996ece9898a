#!/usr/bin/env bash
# Runs its arguments (Water) and records start/end wall-clock ns in
# $INI_RUN_DIR/time-c$INI_CLUSTER.txt; the run time of a configuration is
# max(end) - min(start) over the clusters (launcher bring-up excluded).
s=$(date +%s%N)
"$@"
rc=$?
e=$(date +%s%N)
[ -n "${INI_RUN_DIR:-}" ] && echo "$s $e" > "$INI_RUN_DIR/time-c${INI_CLUSTER:-0}.txt"
exit $rc
