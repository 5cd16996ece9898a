#!/usr/bin/env bash
# ab64.sh - 64 KB bandwidth of two or more ini-bench builds, alternating in
# turns: tools/bench/ab.sh 64k (its header says what is run and printed).
#
#   tools/bench/ab64.sh TURNS on|off BIN BIN...
case ${1-} in -h|--help) sed -n '2,5p' "$0" | sed -e 's/^# \{0,1\}//'; exit 0 ;; esac
AB_NAME=ab64 AB_USAGE=ab64.sh exec "$(dirname "$0")/ab.sh" 64k "$@"
