#!/usr/bin/env bash
# bench_quick: `ini-bench --quick --format json` must finish within two
# minutes and report every layer - raw-dpdk, udp-ip, reliable,
# compute-to-compute, kernel-udp - as measured, with positive figures:
# rtt_ns, eel_ns (= rtt_ns / 2), o_s_ns, o_r_ns, g_ns, G_ns_per_byte,
# M_bytes, rate_mps, gbps_64k, and a positive gap at every queue depth and
# every message size; the three memif layers also have round trips in
# turns (rtt_turns_ns) and their ratio to raw-dpdk (1 for raw-dpdk itself),
# and, run with --split, the receive and send times of those turns.
# The peers (ucx-am-tcp, ucx-am-sm, ofi-rxd-udp) must each be there, either
# measured with the same positive figures and the reliable layer's ratios
# to them, or skipped with a reason (library missing) - never failed.
# Bad flags must give one line on stderr and exit 2.  `--checksum` must
# measure every checksum path the CPU has; `--mtu 9000` must move 64 KB
# in 9,000-byte frames without a retransmission; `--probe` and
# `--handover` must print their figures; `--cn-trace` must keep a traced
# run that tools/inimeasure/c2c_path.py splits into phases.  The
# compute-to-compute layer's copies per byte delivered must be those of
# the path (docs/performance.md, "Copies of a message").
# The figures themselves are not judged (other work on the machine moves
# them); docs/performance.md is where they are.
set -u
cd "$(dirname "$0")/../.."
PROG=bench_quick; . tools/lib/options.sh   # PYTHONPATH for python3 -m inimeasure.*
B=build/bin/ini-bench
LIMIT_S=120

fail() { echo "bench_quick: FAIL: $*"; exit 1; }
[ -x $B ] && [ -x build/bin/inid ] && [ -x build/bin/ini-cluster ] || fail "build first (make)"
command -v python3 > /dev/null || fail "python3 is needed to read the JSON"

for bad in "--bogus" "--format xml" "--depths 0" "--layers raw-dpdk,nope" "--cores 0" "--cores 1,1"; do
    # shellcheck disable=SC2086
    $B $bad > /dev/null 2> /tmp/bench_quick.err
    rc=$?
    [ "$rc" -eq 2 ] || fail "ini-bench $bad: exit $rc, expected 2"
    [ "$(wc -l < /tmp/bench_quick.err)" -eq 1 ] || fail "ini-bench $bad: expected one line on stderr"
done
rm -f /tmp/bench_quick.err

OUT=$(mktemp /tmp/bench_quick.XXXXXX)
trap 'rm -f "$OUT" "$OUT.err"' EXIT
start=$(date +%s)
timeout $LIMIT_S $B --quick --split --format json > "$OUT" 2> "$OUT.err"
rc=$?
elapsed=$(($(date +%s) - start))
[ "$rc" -ne 124 ] || fail "ini-bench --quick took more than $LIMIT_S s"
[ "$rc" -eq 0 ] || fail "ini-bench --quick exited with $rc: $(tail -n 3 "$OUT.err")"

python3 - "$OUT" "$elapsed" <<'PY' || exit 1
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError as e:
    print(f"bench_quick: FAIL: output is not JSON: {e}")
    sys.exit(1)
want = ["raw-dpdk", "udp-ip", "reliable", "compute-to-compute", "kernel-udp"]
keys = ["rtt_ns", "eel_ns", "o_s_ns", "o_r_ns", "g_ns", "G_ns_per_byte", "M_bytes", "rate_mps", "gbps_64k"]
layers = {l.get("name"): l for l in d.get("layers", [])}
errors = []
for name in want:
    l = layers.get(name)
    if l is None:
        errors.append(f"{name}: missing")
        continue
    if not l.get("ok"):
        errors.append(f"{name}: not measured: {l.get('error')}")
        continue
    for k in keys:
        v = l.get(k)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
            errors.append(f"{name}: {k} = {v!r}, expected a positive number")
    if l.get("rtt_ns", 0) > 0 and abs(l["eel_ns"] - l["rtt_ns"] / 2) > 0.1 + 1e-6 * l["rtt_ns"]:
        errors.append(f"{name}: eel_ns {l['eel_ns']} is not rtt_ns / 2")
    if not l.get("flood") or any(not f.get("ns_per_msg", 0) > 0 for f in l["flood"]):
        errors.append(f"{name}: a queue depth has no positive gap")
    if not l.get("sizes") or any(not s.get("ns_per_msg", 0) > 0 for s in l["sizes"]):
        errors.append(f"{name}: a message size has no positive gap")
    if name in ("raw-dpdk", "udp-ip", "reliable"):
        t, r = l.get("rtt_turns_ns", 0), l.get("rtt_turns_ratio", 0)
        if not (isinstance(t, (int, float)) and t > 0 and isinstance(r, (int, float)) and r > 0):
            errors.append(f"{name}: no round trips in turns ({t!r}, ratio {r!r})")
        elif name == "raw-dpdk" and abs(r - 1) > 1e-9:
            errors.append(f"raw-dpdk: its ratio to itself is {r}")
        for k in ("split_receive_ns", "split_send_ns"):
            v = l.get(k)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
                errors.append(f"{name}: --split: {k} = {v!r}, expected a positive number")
for name in ["ucx-am-tcp", "ucx-am-sm", "ofi-rxd-udp"]:
    l = layers.get(name)
    if l is None:
        errors.append(f"{name}: missing")
    elif l.get("ok"):
        for k in keys:
            v = l.get(k)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
                errors.append(f"{name}: {k} = {v!r}, expected a positive number")
        rp = l.get("reliable_over_peer", {})
        if not all(isinstance(rp.get(k), (int, float)) and rp[k] > 0 for k in ("rtt", "rate", "gbps_64k")):
            errors.append(f"{name}: no ratios of the reliable layer to it ({rp!r})")
    elif not (l.get("skipped") and l.get("error")):
        errors.append(f"{name}: neither measured nor skipped with a reason: {l!r}")
    else:
        print(f"bench_quick: {name} skipped: {l['error']}")
# The compute-node path's copies per byte delivered (the INIs' counters):
# the compute nodes write in place (--cn-inplace 1, the default): none by
# them; one INI copy into frames, one into the destination's ring, one
# read by the receive checks (each within the retransmissions' and the
# small messages' headers' share; the checks count frames of 512 bytes
# and more only); memif copies every frame each way, headers and ACKs
# included.
cp = layers.get("compute-to-compute", {}).get("copies")
if not isinstance(cp, dict):
    errors.append(f"compute-to-compute: no copies ({cp!r})")
else:
    want_cp = {"cn": (0, 0), "frames": (1, 1.1), "rings": (1, 1.1), "checked": (0.9, 1.1),
               "link_out": (1, 1.5), "link_in": (1, 1.5)}
    for k, (lo, hi) in want_cp.items():
        v = cp.get(k, -1)
        if not lo <= v <= hi:
            errors.append(f"compute-to-compute: copies {k} = {v!r}, expected {lo}..{hi}")
for e in errors:
    print(f"bench_quick: FAIL: {e}")
if errors:
    sys.exit(1)
for name in want:
    l = layers[name]
    print(f"bench_quick: {name:19s} RTT {l['rtt_ns'] / 1000:8.2f} us  {l['rate_mps']:7.3f} Mmsg/s  "
          f"{l['gbps_64k']:7.2f} Gbit/s")
print(f"bench_quick: all {len(want)} layers measured in {sys.argv[2]} s")
PY

# --checksum: every path the CPU has, each with positive cycle counts,
# the fastest no slower than twice the scalar one (a sanity bound, not a
# speed claim); a bad --reps refused with exit 2.
out=$($B --checksum --reps 20) || fail "ini-bench --checksum exited $?"
echo "$out" | awk '
    /^(scalar|avx2|clmul)/ { n++; for (i = NF - 2; i <= NF; i++) if ($i + 0 <= 0) bad = 1
                             if (n == 1) s = $(NF - 2); f = $(NF - 2) }
    END { exit !(n >= 1 && !bad && f <= 2 * s) }' || fail "ini-bench --checksum table: $out"
$B --checksum --reps 0 > /dev/null 2>&1
[ $? -eq 2 ] || fail "ini-bench --checksum --reps 0: expected exit 2"
echo "bench_quick: --checksum: $(echo "$out" | grep -cE '^(scalar|avx2|clmul)') paths measured"

# --mtu 9000: the three memif layers move 9,000-byte frames (the report
# says so), 64 KB messages arrive with no retransmission; a bad MTU is
# refused.  --probe: one line, both figures positive.
$B --quick --no-plot --layers raw-dpdk,reliable --sizes 8,65000 --depths 1,16 --mtu 9000 --format json \
    > /tmp/bench_quick_mtu.json 2> /tmp/bench_quick_mtu.err || fail "ini-bench --mtu 9000 exited $?: $(tail -n 2 /tmp/bench_quick_mtu.err)"
python3 - /tmp/bench_quick_mtu.json <<'PY' || fail "ini-bench --mtu 9000: see above"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mtu"] == 9000, d["mtu"]
L = {l["name"]: l for l in d["layers"]}
for n in ("raw-dpdk", "reliable"):
    assert L[n]["ok"] and L[n]["gbps_64k"] > 0, (n, L[n].get("err"))
assert L["reliable"]["retransmissions"] == 0, L["reliable"]["retransmissions"]
print("bench_quick: --mtu 9000: raw %.1f, reliable %.1f Gbit/s at 64 KB, no retransmission"
      % (L["raw-dpdk"]["gbps_64k"], L["reliable"]["gbps_64k"]))
PY
$B --mtu 100 > /dev/null 2>&1
[ $? -eq 2 ] || fail "ini-bench --mtu 100: expected exit 2"
probe=$($B --probe) || fail "ini-bench --probe exited $?"
echo "$probe" | grep -Eq '^probe rtt_ns=[0-9.]+ spin_ns=[0-9.]+$' &&
    awk -v l="$probe" 'BEGIN { split(l, f, /[= ]/); exit !(f[3] > 0 && f[5] > 0) }' ||
    fail "ini-bench --probe: '$probe'"
echo "bench_quick: --probe: $probe"
# Two spinning threads on one CPU would take minutes: refused at once, as
# is a CPU this machine lacks (one line, status 2).
for bad in "0,0:two different CPUs" "0,4096:of this machine"; do
    timeout 20 $B --probe --cores "${bad%%:*}" > /dev/null 2> /tmp/bench_quick.err
    rc=$?
    [ "$rc" -eq 2 ] && [ "$(wc -l < /tmp/bench_quick.err)" -eq 1 ] && grep -q "${bad#*:}" /tmp/bench_quick.err ||
        fail "ini-bench --probe --cores ${bad%%:*}: exit $rc, $(cat /tmp/bench_quick.err)"
done
rm -f /tmp/bench_quick.err
# --handover: one line, a positive time per switch and a share of kept
# yields in [0, 1].
h=$($B --handover) || fail "ini-bench --handover exited $?"
echo "$h" | grep -Eq '^handover ns_per_switch=[0-9.]+ kept_per_switch=[0-9.]+$' &&
    awk -v l="$h" 'BEGIN { split(l, f, /[= ]/); exit !(f[3] > 0 && f[5] >= 0 && f[5] <= 1) }' ||
    fail "ini-bench --handover: '$h'"
echo "bench_quick: --handover: $h"
# --cn-trace: the compute-to-compute run traced and kept; c2c_path.py
# finds the ping-pong test's round trips (as many as --verbose says it
# made), each phase non-negative, the four hand-overs part of the round
# trip; a directory in use is refused.
CT=$(mktemp -d /tmp/bench_quick_ct.XXXXXX)
trap 'rm -f "$OUT" "$OUT.err"; rm -rf "$CT"' EXIT
$B --quick --layers compute-to-compute --depths 1 --sizes 8,16 --cn-trace "$CT/run" --verbose > /dev/null 2>&1 ||
    fail "ini-bench --cn-trace exited $?"
python3 -m inimeasure.c2c_path "$CT/run" --json > "$CT/path.json" || fail "c2c_path.py exited $?"
python3 - "$CT/path.json" "$CT/run/cluster0.err" <<'PY' || fail "c2c_path.py: see above"
import json, sys
p = json.load(open(sys.argv[1]))
n = next(int(l.split(" n=")[1].split()[0]) for l in open(sys.argv[2]) if l.strip().startswith("ping-pong"))
assert p["round_trips"] == p["first"] == 32 + 10 * n, (p["round_trips"], p["first"], n)
ph = p["phases"]
assert all(v["median"] >= 0 for k, v in ph.items() if not k.startswith("wire") and "skew" not in k), ph
share = ph["hand-overs' share of the round trip"]["median"]
assert 0 < share <= 1, share
print("bench_quick: --cn-trace: %d round trips, median %.2f us, hand-overs %.2f us (share %.2f)" % (
    p["round_trips"], ph["round trip: ping's send to pong's handler start"]["median"],
    ph["hand-overs: the four sends and receives"]["median"], share))
PY
$B --quick --layers compute-to-compute --cn-trace "$CT" > "$CT/refuse.out" 2>&1
[ $? -eq 2 ] && grep -q "exists and is not an empty directory" "$CT/refuse.out" ||
    fail "ini-bench --cn-trace into a directory in use: $(cat "$CT/refuse.out")"
