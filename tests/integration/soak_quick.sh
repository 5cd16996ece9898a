#!/usr/bin/env bash
# soak_quick: the 2-minute form of ini-soak (tools/soak/ini-soak, issue 48).
#  1. 60 s on a generated 3 clusters x 2 compute nodes x 1 INI with the
#     fault mix, one INI killed and restarted, one Water run: exit 0,
#     every ping round verified with 0 errors, the kill counted and the
#     restart seen, Water's output equal to the plain run's, no leak in
#     verdict.tsv, and a samples.tsv row per daemon and sample with the
#     telemetry's figures (mbufs, timers, lwIP pools) filled, and a
#     host.tsv row per sample (load, steal, the soak's longest sleep).
#  2. 60 s with a planted leak (INI_TEST_LEAK_MBUFS=5: each daemon leaks
#     5 mbufs a second): exit 1, one line on stderr naming the leak of
#     mbufs_in_use, and verdict.tsv flags mbufs_in_use and nothing else.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
water_test_start soak_quick build/bin/ini-cluster build/bin/inid build/bin/ini-ping
SOAK=tools/soak/ini-soak
DUR=${SOAK_QUICK_SECONDS:-60}

# 1. A clean soak.
$SOAK --duration "$DUR" --interval 3 --warmup 15 --kill-every 25 --water-every 30 --out "$TMP/clean" \
    > "$TMP/clean.out" 2> "$TMP/clean.err"
rc=$?
sum() { awk -F'\t' -v k="$2" '$1 == k { print $2 }' "$TMP/$1/summary.txt"; }
if [ $rc = 0 ] && [ "$(sum clean result)" = PASS ]; then
    ok "clean: PASS, $(sum clean ping_rounds) ping rounds, $(sum clean verified) messages verified"
else
    fail "clean: exit $rc: $(cat "$TMP/clean.err")"; cat "$TMP/clean.out"
fi
[ "$(sum clean verified)" -gt 0 ] 2> /dev/null || fail "clean: no message verified"
[ "$(sum clean kills)" -ge 1 ] 2> /dev/null && [ "$(sum clean restarts_seen)" -ge 1 ] 2> /dev/null &&
    ok "clean: $(sum clean kills) kill(s), restarts back after $(sum clean restart_ms) ms" ||
    fail "clean: kills '$(sum clean kills)', restarts seen '$(sum clean restarts_seen)'"
grep -q "water run 1: output equals the plain run's" "$TMP/clean/events.tsv" && ok "clean: Water's output equals the plain run's" ||
    fail "clean: no Water run equal to the plain run's"
awk -F'\t' 'NR > 1 && $11 == "True"' "$TMP/clean/verdict.tsv" | grep -q . &&
    fail "clean: a leak flagged: $(awk -F'\t' '$11 == "True"' "$TMP/clean/verdict.tsv")"
# every row filled: the telemetry answered for every daemon (a restarting
# daemon may miss one sample)
rows=$(awk 'NR > 1' "$TMP/clean/samples.tsv" | wc -l)
full=$(awk -F'\t' 'NR > 1 && $6 != "" && $7 != "" && $9 != "" && $4 != ""' "$TMP/clean/samples.tsv" | wc -l)
[ "$rows" -ge 30 ] && [ $((full * 10)) -ge $((rows * 9)) ] && ok "clean: $full of $rows sample rows with every figure" ||
    fail "clean: $full of $rows sample rows with every figure"
# host.tsv: a row per sample time, each figure a number; the soak's
# longest sleep at least the 0.25 s it asks for (after the first sample)
times=$(awk -F'\t' 'NR > 1 { print $1 }' "$TMP/clean/samples.tsv" | sort -u | wc -l)
hrows=$(awk -F'\t' 'NR > 1 && $2 ~ /^[0-9.]+$/ && $4 ~ /^[0-9]+$/ && $5 ~ /^[0-9.]+$/ && $6 ~ /^[0-9.]+$/ &&
                     (NR == 2 || $6 >= 0.25)' "$TMP/clean/host.tsv" | wc -l)
[ "$hrows" = "$times" ] && ok "clean: host.tsv, $hrows rows (load, steal, the soak's longest sleep: $(awk -F'\t' 'NR > 2 { if ($6 > m) m = $6 } END { print m }' "$TMP/clean/host.tsv") s)" ||
    fail "clean: host.tsv has $hrows well-formed rows, samples.tsv $times sample times"
judged=$(awk -F'\t' 'NR > 1 && $3 == "mbufs_in_use"' "$TMP/clean/verdict.tsv" | wc -l)
# At least 2: the two kills may fall on the same INI (drawn at random),
# whose incarnations then live under 25 s, too short to judge after the
# warm-up; the other two INIs' are judged (3 when the kills hit two INIs).
[ "$judged" -ge 2 ] || fail "clean: mbufs_in_use judged for $judged daemon incarnations, not at least 2"

# 2. The planted leak.
INI_TEST_LEAK_MBUFS=5 $SOAK --duration "$DUR" --interval 3 --warmup 15 --kill-every 0 --water-every 0 \
    --out "$TMP/leak" > "$TMP/leak.out" 2> "$TMP/leak.err"
rc=$?
if [ $rc = 1 ] && [ "$(wc -l < "$TMP/leak.err")" = 1 ] && grep -q "^ini-soak: FAIL: leak: INI [0-9]* (pid [0-9]*) mbufs_in_use rises" "$TMP/leak.err"; then
    ok "planted leak caught: $(cat "$TMP/leak.err")"
else
    fail "planted leak: exit $rc, stderr '$(cat "$TMP/leak.err")'"
fi
flagged=$(awk -F'\t' 'NR > 1 && $11 == "True" { print $3 }' "$TMP/leak/verdict.tsv" | sort | uniq -c | tr -s ' ')
[ -n "$flagged" ] && ! echo "$flagged" | grep -qv "mbufs_in_use" && ok "leak: flagged:$flagged" ||
    fail "leak: flagged resources:$flagged"
test_end
