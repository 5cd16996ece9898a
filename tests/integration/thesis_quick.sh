#!/usr/bin/env bash
# thesis_quick: tools/thesis/experiments.sh --quick into a temporary
# directory; every table exists and has numbers for every configuration run
# (4x4 with 1 and 2 INIs, static and round-robin, plus the no-INI and
# INI-delay baselines), and the figures are PNGs.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
if ! tools/thesis/experiments.sh --quick --out "$tmp/out" > "$tmp/log" 2>&1; then
    fail "experiments.sh --quick failed"; tail -20 "$tmp/log"
fi
grep -q '^  \[ *[0-9]*\] ' "$tmp/log" || fail "no progress lines"
o=$tmp/out
num='[0-9]+(\.[0-9]+)?'
for pol in static round-robin; do
    t=$(ls "$o"/table5_*_ini_$pol.txt 2>/dev/null | head -1)
    [ -n "$t" ] || { fail "no INI table for $pol"; continue; }
    for i in 1 2; do
        grep -qE "^ +4 +$i +$num +$num +$num +$num +$num +$num$" "$t" || fail "$t: no row for 4x4, $i INIs"
    done
    m=$(ls "$o"/table5_*_misrouting_$pol.txt 2>/dev/null | head -1)
    [ -n "$m" ] && grep -qE "^ +4 +2 +$num% +$num%$" "$m" || fail "misrouting table for $pol: no row for 4x4, 2 INIs"
    s=$(ls "$o"/table5_*_sqrt_scaling_$pol.txt 2>/dev/null | head -1)
    [ -n "$s" ] && grep -qE "slowdown +$num$" "$s" || fail "sqrt-scaling table for $pol: no slowdown"
done
r=$o/table5_5_runtime.txt
for row in 'static \(ms\)' 'round-robin \(ms\)' 'no INI \(ms\)' 'INI delay \(ms\)'; do
    grep -qE "^ *$row +[0-9]+ +[0-9]+$" "$r" 2>/dev/null || fail "table 5.5: row '$row' lacks numbers"
done
for f in "$o"/figure5-1_static.png "$o"/figure5-2_round-robin.png; do
    head -c 8 "$f" 2>/dev/null | grep -q PNG || fail "$f is not a PNG"
done
grep -q '^# made by: tools/thesis/experiments.sh --quick' "$r" 2>/dev/null || fail "no command header in $r"
[ "$failures" -eq 0 ] && echo "thesis_quick: all passed" || echo "thesis_quick: $failures failed"
[ "$failures" -eq 0 ]
