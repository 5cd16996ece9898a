#!/usr/bin/env bash
# blackout.sh - how long the compute nodes go without a message when an INI
# dies and the launcher restarts it (issue 34; docs/transport.md, "An INI
# that restarts").  Each run is ini-ping under `ini-cluster run CONFIG`,
# one request in flight per compute node (--window 1, 64 bytes, pattern
# all), so every PE's traffic crosses both INIs; one INI (inid 0 or 1,
# drawn per run: a memif link's server or its client) is killed with
# SIGKILL once, at a random point 0.5-1.5 s after cluster 1's program
# started.  The blackout of a run, as the compute nodes see it, is the
# longest gap between two verified echoes of any PE of a cluster
# (ini-ping's "longest gap between echoes" line): last echo before the
# kill to first echo after the restart.  Beside it, per run: the INI
# killed, the launcher's "is back, N ms after it died" (relaunch until
# ready), the
# messages verified and the errors of both clusters, the exit status and
# the load average at the start.  Runs without a kill, interleaved, give
# the same gap when nothing dies (the machine's own stalls).
#
#   tools/bench/blackout.sh [--runs N] [--calm N] [--seed S] [--config CFG]
#                           [--count N] [--out DIR]
#       --runs N    runs with a kill (default 10)
#       --calm N    runs without one, every other run from the start
#                   (default 5)
#       --seed S    the kill points' generator (default: the time; printed)
#       --ini K     kill inid K in every run (default: 0 or 1, drawn)
#       --config    default conf/default.cfg (memif, no root needed; INI K
#                   is cluster K's)
#       --count N   requests per compute node and size (default 100000;
#                   the run must outlast the kill and the restart)
#       --out DIR   default docs/results/blackout; refused if DIR has
#                   runs already (a new series goes into a new directory)
#
# Writes DIR/runs.tsv (a row per run, none left out), DIR/reports.jsonl (a
# line per run with the same figures and the launcher's restart lines),
# DIR/meta.txt (command, commit, machine) and DIR/summary.txt (median,
# spread and max of the blackout and of the relaunch, per kind of run).
set -u
cd "$(dirname "$0")/../.."
case ${1-} in -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
me=blackout
RUNS=10 CALM=5 SEED=$(date +%s) CFG=conf/default.cfg COUNT=100000 OUT=docs/results/blackout INI=random
int_arg() { case $2 in ''|*[!0-9]*) echo "$me: $1: expected a non-negative integer, got '$2'" >&2; exit 2 ;; esac; }
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || { echo "$me: $1: expected a value" >&2; exit 2; }
    case $1 in
    --runs) int_arg "$1" "$2"; RUNS=$2 ;;
    --calm) int_arg "$1" "$2"; CALM=$2 ;;
    --seed) int_arg "$1" "$2"; SEED=$2 ;;
    --count) int_arg "$1" "$2"; COUNT=$2 ;;
    --ini) case $2 in 0|1) INI=$2 ;; *) echo "$me: --ini: expected 0 or 1, got '$2'" >&2; exit 2 ;; esac ;;
    --config) CFG=$2 ;;
    --out) OUT=$2 ;;
    *) echo "$me: unknown option '$1'" >&2; exit 2 ;;
    esac
    shift 2
done
[ "$COUNT" -gt 0 ] || { echo "$me: --count: expected a positive integer" >&2; exit 2; }
[ -r "$CFG" ] || { echo "$me: $CFG: cannot read the configuration" >&2; exit 2; }
for p in build/bin/ini-cluster build/bin/inid build/bin/ini-ping; do
    [ -x $p ] || { echo "$me: $p not built (run make)" >&2; exit 2; }
done
[ -e "$OUT/runs.tsv" ] && { echo "$me: $OUT/runs.tsv exists: a new series goes into a new --out directory" >&2; exit 2; }
mkdir -p "$OUT" || exit 2
RANDOM=$SEED
TMP=$(mktemp -d /tmp/ini-blackout.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
{
    echo "# tools/bench/blackout.sh --runs $RUNS --calm $CALM --seed $SEED --ini $INI --config $CFG --count $COUNT --out $OUT"
    echo "# commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with changes)'), $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "# $(uname -srm), $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
} > "$OUT/meta.txt"
printf "run\tkind\tini\tload1\tkill_at_s\tback_ms\tgap0_ms\tgap1_ms\tverified0\tverified1\terrors\tstatus\n" > "$OUT/runs.tsv"
: > "$OUT/reports.jsonl"
echo "$me: $RUNS runs with a kill, $CALM without, seed $SEED, into $OUT"

# run_one N KIND: one run; appends its row and its report line.
run_one() {
    local n=$1 kind=$2 dir=$TMP/run$1 out=$TMP/run$1.out load pid= kill_at=- launcher victim=-
    load=$(cut -d' ' -f1 /proc/loadavg)
    build/bin/ini-cluster run "$CFG" --run-dir "$dir" -- \
        build/bin/ini-ping --sizes 64 --window 1 --count "$COUNT" --timeout-ms 60000 > "$out" 2>&1 &
    launcher=$!
    if [ "$kind" = kill ]; then
        victim=$INI
        [ "$victim" = random ] && victim=$((RANDOM % 2))
        for _ in $(seq 300); do
            pid=$(pgrep -f -- "--ini $victim --tag [0-9a-f]* --run-dir $dir( |\$)") && [ -e "$dir/cluster1.out" ] && break
            pid=
            sleep 0.1
        done
        local ms=$((500 + RANDOM % 1001))
        kill_at=$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))
        sleep "$kill_at"
        if [ -n "$pid" ] && kill -0 $launcher 2>/dev/null; then
            kill -KILL "$pid"
        else
            kill_at="missed"
        fi
    fi
    wait $launcher
    local status=$?
    local back gap0 gap1 v0 v1 errs
    back=$(sed -n "s/.*inid $victim (cluster [0-9]*) is back, \([0-9]*\) ms after it died.*/\1/p" "$out" | head -n 1)
    gap0=$(sed -n 's/^longest gap between echoes \([0-9.]*\) ms.*/\1/p' "$dir/cluster0.out" 2>/dev/null | tail -n 1)
    gap1=$(sed -n 's/^longest gap between echoes \([0-9.]*\) ms.*/\1/p' "$dir/cluster1.out" 2>/dev/null | tail -n 1)
    v0=$(sed -n 's/^verified \([0-9]*\) messages.*/\1/p' "$dir/cluster0.out" 2>/dev/null | tail -n 1)
    v1=$(sed -n 's/^verified \([0-9]*\) messages.*/\1/p' "$dir/cluster1.out" 2>/dev/null | tail -n 1)
    errs=$(cat "$dir"/cluster*.out 2>/dev/null | sed -n 's/^verified [0-9]* messages, \([0-9]*\) errors.*/\1/p' |
           awk '{ s += $1 } END { print s + 0 }')
    printf "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n" "$n" "$kind" "$victim" "$load" "$kill_at" "${back:--}" \
        "${gap0:--}" "${gap1:--}" "${v0:--}" "${v1:--}" "$errs" "$status" >> "$OUT/runs.tsv"
    python3 - "$OUT/reports.jsonl" "$out" "$n" "$kind" "$victim" "$load" "$kill_at" "${back:-}" "${gap0:-}" \
        "${gap1:-}" "${v0:-}" "${v1:-}" "$errs" "$status" <<'PY'
import json, sys
path, out, n, kind, victim, load, kill_at, back, g0, g1, v0, v1, errs, status = sys.argv[1:]
num = lambda s: float(s) if s not in ("", "-", "missed") else None
lines = [l.rstrip("\n") for l in open(out, errors="replace") if "ini-cluster:" in l or "restart" in l]
rec = {"run": int(n), "kind": kind, "ini": int(victim) if victim != "-" else None, "load1": float(load), "kill_at_s": num(kill_at), "back_ms": num(back),
       "gap_ms": [num(g0), num(g1)], "verified": [num(v0), num(v1)], "errors": int(errs),
       "status": int(status), "launcher": lines[-12:]}
open(path, "a").write(json.dumps(rec) + "\n")
PY
    printf "%s: run %d (%s%s): status %d, relaunch %s ms, blackout %s / %s ms, verified %s / %s, %s errors\n" \
        "$me" "$n" "$kind" "$([ "$victim" = - ] || echo " inid $victim")" "$status" "${back:--}" "${gap0:--}" "${gap1:--}" "${v0:--}" "${v1:--}" "$errs"
    [ "$status" -eq 0 ] || cp "$out" "$OUT/run$n.failed.out"
}

n=0 k=0 c=0
while [ $k -lt "$RUNS" ] || [ $c -lt "$CALM" ]; do
    if [ $c -lt "$CALM" ] && { [ $((n % 2)) -eq 1 ] || [ $k -ge "$RUNS" ]; }; then
        c=$((c + 1)); n=$((n + 1)); run_one $n calm
    else
        k=$((k + 1)); n=$((n + 1)); run_one $n kill
    fi
done

python3 - "$OUT" > "$OUT/summary.txt" <<'PY'
import csv, statistics, sys
out = sys.argv[1]
rows = list(csv.DictReader(open(f"{out}/runs.tsv"), delimiter="\t"))
def num(v):
    try: return float(v)
    except ValueError: return None
print(f"# {open(out + '/meta.txt').readline()[2:].strip()}")
print(f"# {len(rows)} runs, every one below and in runs.tsv; the blackout of a run is the larger")
print("# of its two clusters' longest gap between verified echoes (ms)")
for kind in ("kill", "calm"):
    rs = [r for r in rows if r["kind"] == kind]
    if not rs:
        continue
    failed = [r["run"] for r in rs if r["status"] != "0" or r["errors"] != "0"]
    gaps = sorted(max(g for g in (num(r["gap0_ms"]), num(r["gap1_ms"])) if g is not None)
                  for r in rs if num(r["gap0_ms"]) is not None or num(r["gap1_ms"]) is not None)
    backs = sorted(b for b in (num(r["back_ms"]) for r in rs) if b is not None)
    loads = [float(r["load1"]) for r in rs]
    def line(name, v):
        if not v:
            return f"{name:26s} -"
        q = statistics.quantiles(v, n=4, method="inclusive") if len(v) >= 2 else [v[0]] * 3
        return (f"{name:26s} n {len(v):2d}  min {v[0]:8.1f}  q1 {q[0]:8.1f}  median {statistics.median(v):8.1f}"
                f"  q3 {q[2]:8.1f}  max {v[-1]:8.1f}")
    print(f"\n{kind}: {len(rs)} runs, failed (status or errors): {', '.join(failed) or 'none'}; "
          f"load average at the start {min(loads):.2f}-{max(loads):.2f}")
    print(line("blackout (ms)", gaps))
    if kind == "kill":
        print(line("relaunch until ready (ms)", backs))
        for ini in sorted({r["ini"] for r in rs}):
            g = sorted(max(x for x in (num(r["gap0_ms"]), num(r["gap1_ms"])) if x is not None)
                       for r in rs if r["ini"] == ini and (num(r["gap0_ms"]) is not None or num(r["gap1_ms"]) is not None))
            print(line(f"  inid {ini} killed", g))
PY
cat "$OUT/summary.txt"
