#!/usr/bin/env bash
# `make run`: Water on MGS on the default configuration (conf/default.cfg:
# two clusters of two compute nodes, one INI each, memif between the INIs),
# 512 molecules, 3 steps, NumProcs 4, with summary traces; then the INI
# report (tables 5.3/5.4) and the misrouting report (5.6/5.7) of the run.
set -euo pipefail
cd "$(dirname "$0")/../.."
RANDOM_IN=../shared/water/random.in
if [ ! -r "$RANDOM_IN" ]; then
    echo "make run: Water's data file $RANDOM_IN (relative to $PWD) is missing;" >&2
    echo "          put the SPLASH-2 random.in there (or set nothing else: it is required)" >&2
    exit 1
fi
RUN_DIR=runs/make-run-$(date +%Y%m%d-%H%M%S)-$$
echo "== Water on MGS, conf/default.cfg (2 clusters x 2 compute nodes), N=512, 3 steps =="
printf '  1.5e-16   512  3   6\n -1      3000     3  0\n4 6.212752\n' |
    build/bin/ini-cluster run conf/default.cfg --trace summary --run-dir "$RUN_DIR" -- \
        build/bin/water --mgs --random "$RANDOM_IN"
echo
echo "== INI report: ini-trace report $RUN_DIR =="
build/bin/ini-trace report "$RUN_DIR"
