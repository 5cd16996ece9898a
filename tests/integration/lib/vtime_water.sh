# vtime_water.sh - helpers of the tests that run Water on MGS in virtual
# time (vtime_water.sh, vtime_water_subunit.sh, vtime_water_trace.sh).  Sourced after common.sh's
# water_test_start, which sets TMP.
#
# input MOLS THREADS    Water's input: MOLS molecules, 2 steps, THREADS
# no_times              a filter: Water's output without timings and the
#                       launcher's lines, to compare with a threads run
# vcycles NAME          the virtual cycles printed in $TMP/NAME.out
input() { printf '  1.5e-16   %s  2   6\n -1      3000     2  0\n%s 6.212752\n' "$1" "$2"; }
no_times() { grep -vE '(COMPUTESTART|COMPUTEEND|COMPUTETIME|time|Time)' | grep -vE '^(\[c[0-9]+\] |MAC|INI |virtual time|run directory|mgs )' |
             sed -E 's/^\[c0\] //' | grep -v '^\[c'; }
vcycles() { sed -n 's/^virtual time: \([0-9]*\) cycles (.*/\1/p' "$TMP/$1.out"; }
