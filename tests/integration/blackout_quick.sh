#!/usr/bin/env bash
# blackout_quick: the short form of tools/bench/blackout.sh (issue 34): one
# run with inid 1 killed once and one without, into a scratch directory.
# Asserted: two rows in runs.tsv and two lines in reports.jsonl, both runs
# exited 0 with every message verified in both clusters (2 PEs x COUNT)
# and 0 errors; the killed run has the launcher's relaunch time and a
# blackout no shorter than it (no echo can complete while inid 1 is down);
# the summary has both kinds; a second series into the same directory is
# refused (exit 2), so committed runs are never overwritten.  The figures
# themselves are not judged here: docs/transport.md has the committed ones.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
test_start blackout_quick build/bin/ini-cluster build/bin/inid build/bin/ini-ping
COUNT=100000   # 2-4 s a run: the kill (0.5-1.5 s in) lands before the end
tools/bench/blackout.sh --runs 1 --calm 1 --count $COUNT --seed 34 --out "$TMP/bo" > "$TMP/out" 2>&1 ||
    fail "blackout.sh exited $?: $(tail -n 3 "$TMP/out")"
python3 - "$TMP/bo" "$COUNT" <<'PY' || fail "the runs table"
import csv, json, sys
d, count = sys.argv[1], int(sys.argv[2])
rows = list(csv.DictReader(open(f"{d}/runs.tsv"), delimiter="\t"))
reports = [json.loads(l) for l in open(f"{d}/reports.jsonl")]
bad = []
if [r["kind"] for r in rows] != ["kill", "calm"] or len(reports) != 2:
    bad.append(f"expected a kill run then a calm one, got {[r['kind'] for r in rows]} and {len(reports)} reports")
for r in rows:
    want = str(2 * count)
    if r["status"] != "0" or r["errors"] != "0" or r["verified0"] != want or r["verified1"] != want:
        bad.append(f"run {r['run']} ({r['kind']}): status {r['status']}, errors {r['errors']}, "
                   f"verified {r['verified0']}/{r['verified1']} (want {want} each)")
k = rows[0] if rows else {}
try:
    back, gap = float(k["back_ms"]), max(float(k["gap0_ms"]), float(k["gap1_ms"]))
    if not 0 < back <= gap:
        bad.append(f"kill run: relaunch {back} ms, blackout {gap} ms (want 0 < relaunch <= blackout)")
    else:
        print(f"blackout_quick: ok: killed at {k['kill_at_s']} s: relaunch {back:.0f} ms, blackout {gap:.1f} ms; "
              f"calm run's longest gap {max(float(rows[1]['gap0_ms']), float(rows[1]['gap1_ms'])):.1f} ms")
except (KeyError, ValueError, IndexError) as e:
    bad.append(f"kill run without its figures: {e}")
for b in bad:
    print("blackout_quick: FAIL: " + b)
sys.exit(1 if bad else 0)
PY
grep -q "^kill: 1 runs" "$TMP/bo/summary.txt" && grep -q "^calm: 1 runs" "$TMP/bo/summary.txt" ||
    fail "summary.txt lacks a kind: $(cat "$TMP/bo/summary.txt")"
tools/bench/blackout.sh --runs 1 --calm 0 --out "$TMP/bo" > /dev/null 2> "$TMP/again.err"
[ $? -eq 2 ] && grep -q "exists" "$TMP/again.err" && ok "a second series into the same directory refused" ||
    fail "a second series into $TMP/bo was not refused: $(cat "$TMP/again.err")"
test_end
