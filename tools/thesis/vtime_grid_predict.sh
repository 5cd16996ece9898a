#!/usr/bin/env bash
# vtime_grid_predict.sh: the pre-registration of the virtual-time Water grid
# (issue 45, point 2): from the one-INI runs in DIR (tools/thesis/vtime_grid.sh
# --cells 1:1,2:1,4:1,8:1, `thesis` and `stack` costs), the chapter-6 model's
# prediction of every other cell and the thesis's findings with their
# tolerances and nulls, to DIR/predictions.txt; prints its SHA-256, which
# goes in the message of the commit that adds it, before the multi-INI runs.
#
#   tools/thesis/vtime_grid_predict.sh DIR
PROG=vtime_grid_predict; . "$(dirname "$0")/../lib/options.sh"
[ $# = 1 ] || die "usage: vtime_grid_predict.sh DIR"
[ -f "$1/reports.jsonl" ] || die "DIR: $1 has no reports.jsonl (run the one-INI column first)"
[ -e "$1/predictions.txt" ] && die "DIR: $1/predictions.txt exists (a registration is never written over)"
python3 -m inimeasure.vtime_grid_predict "$1" > "$1/predictions.txt.tmp" || { rm -f "$1/predictions.txt.tmp"; exit 1; }
mv "$1/predictions.txt.tmp" "$1/predictions.txt"
sha256sum "$1/predictions.txt"
