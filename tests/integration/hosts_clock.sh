#!/usr/bin/env bash
# hosts_clock: one clock across hosts (issue 46, point 1).  The lab's 3
# namespace hosts on one machine (lib/hosts.sh, with Slurm), so every
# host's true offset is 0.  ini-ping traced (detailed) across the 3 hosts,
# launched over ssh and again by Slurm (srun inside salloc); for each run:
#
#  1. clocks.tsv has one line per host, named as the launcher names it (h0,
#     h1, h2: the lab's hosts all call themselves by one name), each offset
#     at the start and at the end within 50 us of 0, with its uncertainty,
#     measured over the INIs' links (its note line; every INI's
#     ini<ID>.clock has both other INIs answered at the start, and pairs
#     joining the three measured again at the end, one way or the other:
#     parts stop at their own times), each host's uncertainty the half
#     round trip of its path to the reference;
#  2. every trace carries its host's launcher name (the header's host);
#  3. `ini-trace report`, `critical`, `timeline` and `whatif` print the
#     uncertainty ("clock: 3 hosts ... +-X us") and how it was measured;
#  4. critical's wire share is within 2 points of the same run read with
#     every offset 0;
#  5. read with every uncertainty 10 ms (what ssh round trips gave before),
#     critical warns that the offsets' error is larger than the wire time.
# Needs root, network namespaces, sshd, slurm-wlm and munge (else exit 77).
set -u
cd "$(dirname "$0")/../.."
NAME=hosts_clock
. tests/integration/lib/hosts.sh
hosts_need_root $NAME
for b in build/bin/ini-cluster build/bin/inid build/bin/ini-ping build/bin/ini-trace; do
    [ -x "$b" ] || { echo "$NAME: FAIL: $b not built (run make)"; rm -rf "$HOSTS_TMP"; exit 1; }
done
for tool in sshd slurmctld slurmd munged salloc srun unshare; do
    command -v $tool > /dev/null || [ -x /usr/sbin/$tool ] ||
        { echo "$NAME: SKIP: $tool missing (tools/install-deps.sh installs it)"; rm -rf "$HOSTS_TMP"; exit 77; }
done
CLUSTER=$PWD/build/bin/ini-cluster PING=$PWD/build/bin/ini-ping TRACE=$PWD/build/bin/ini-trace
T=$HOSTS_TMP
failures=0
fail() { echo "$NAME: FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok:   $*"; }
trap hosts_teardown EXIT

hosts_setup 3 --slurm || { echo "$NAME: FAIL: the lab with Slurm did not come up"; exit 1; }
"$CLUSTER" gen 3 1 1 --hosts h0,h1,h2 --device d0 -o "$T/3h.cfg" > /dev/null || { echo "$NAME: FAIL: gen"; exit 1; }
sed '/^    host   = /d' "$T/3h.cfg" > "$T/3s.cfg"     # Slurm places the clusters
PROG=("$PING" --sizes 64,1000 --count 300)

# wire_share FILE: the "all" row's wire column of `ini-trace critical`
wire_share() {
    awk '$1 == "step" { for (i = 1; i <= NF; i++) if ($i == "wire") col = i }
         $1 == "all" && col { v = $(col - 1); sub("%", "", v); print v }' "$1"
}

check_run() { # NAME DIR
    local name=$1 dir=$2
    python3 - "$dir" <<'PY' || { fail "$name: clocks.tsv or the traces' hosts (see above)"; return; }
import glob, sys
d = sys.argv[1]
lines = open(d + "/clocks.tsv").read().split("\n")
assert lines[0].split("\t")[:3] == ["host", "offset_ns", "uncertainty_ns"], lines[0]
if not lines[1].startswith("# over the INIs' links: 2 hosts against host h"):
    sys.exit("clocks.tsv: not measured over the INIs' links: %s" % lines[1])
print("  " + lines[1])
rows = {l.split("\t")[0]: [int(x) for x in l.split("\t")[1:]] for l in lines[2:] if l}
ends = set()
for i in range(3):
    peers = {}
    for l in open("%s/ini%d.clock" % (d, i)).read().split("\n")[1:]:
        if l:
            v = [int(x) for x in l.split("\t")]
            peers[v[0]] = v
    if sorted(peers) != sorted({0, 1, 2} - {i}):
        sys.exit("ini%d.clock: peers %s, want the other two INIs" % (i, sorted(peers)))
    for p, v in sorted(peers.items()):
        if v[2] <= 0:
            sys.exit("ini%d.clock: peer %d not answered at the start: %s" % (i, p, v))
        if v[5] > 0:
            ends.add(frozenset((i, p)))
        print("  ini%d -> ini%d: %+.1f us, round trip %.1f us at the start; at the end %s" %
              (i, p, v[1] / 1e3, v[2] / 1e3, "%+.1f us, %.1f us" % (v[4] / 1e3, v[5] / 1e3) if v[5] > 0 else "-"))
if len(ends) < 2:    # two pairs join the three INIs: the launcher goes round by the third
    sys.exit("at the end, %d of the 3 pairs of INIs measured (either way): they do not join the three" % len(ends))
for h, (off, unc, at, eoff, eunc, eat) in sorted(rows.items()):
    if abs(off) > 50000 or abs(eoff) > 50000:
        sys.exit("host %s: offset %d ns at the start, %d at the end (want within 50 us of 0)" % (h, off, eoff))
    if unc < 0 or eat < at:
        sys.exit("host %s: uncertainty %d ns, measured at %d and %d" % (h, unc, at, eat))
    print("  %s: offset %+.1f us +- %.1f us at the start, %+.1f us +- %.1f us at the end" %
          (h, off / 1e3, unc / 1e3, eoff / 1e3, eunc / 1e3))
if sorted(r[1] == 0 for r in rows.values()) != [False, False, True]:
    sys.exit("want one reference host (uncertainty 0) and two measured against it: %s" % rows)
for f in glob.glob(d + "/ini*.trace") + glob.glob(d + "/cn*.trace"):
    b = open(f, "rb").read(128)
    host = b[96:128].split(b"\0")[0].decode()
    if host not in rows:
        sys.exit("%s: host '%s' not in clocks.tsv" % (f, host))
PY
    ok "$name: clocks.tsv names h0 h1 h2, measured over the INIs' links, every offset within 50 us of 0 (start and end); the traces name them too"
    "$TRACE" report "$dir" > "$T/$name.report" 2>&1 || fail "$name: report: $(tail -1 "$T/$name.report")"
    "$TRACE" critical "$dir" > "$T/$name.critical" 2>&1 || { fail "$name: critical: $(tail -1 "$T/$name.critical")"; return; }
    "$TRACE" timeline "$dir" -o "$T/$name.json" > "$T/$name.timeline" 2>&1 || fail "$name: timeline: $(tail -1 "$T/$name.timeline")"
    "$TRACE" whatif "$dir" > "$T/$name.whatif" 2>&1 || fail "$name: whatif: $(tail -1 "$T/$name.whatif")"
    local f
    for f in report critical timeline whatif; do
        grep -Eq '^clock: 3 hosts on the launcher.s clock \(clocks.tsv\), offsets uncertain by up to \+-[0-9.]+ us' \
            "$T/$name.$f" || fail "$name: $f prints no uncertainty: $(grep '^clock' "$T/$name.$f")"
        grep -q "^clock: measured over the INIs' links: 2 hosts against host h" "$T/$name.$f" ||
            fail "$name: $f does not say how the offsets were measured: $(grep '^clock' "$T/$name.$f")"
    done
    # the same run read with every offset 0 (the truth on one machine)
    mkdir -p "$T/$name-zero"
    cp "$dir"/*.trace "$T/$name-zero/"
    awk -F'\t' 'BEGIN { OFS = "\t" } NR == 1 || /^#/ { print; next } { $2 = 0; $5 = 0; print }' "$dir/clocks.tsv" > "$T/$name-zero/clocks.tsv"
    "$TRACE" critical "$T/$name-zero" > "$T/$name.critical0" 2>&1 || { fail "$name: critical with offsets 0: $(tail -1 "$T/$name.critical0")"; return; }
    local w w0
    w=$(wire_share "$T/$name.critical") w0=$(wire_share "$T/$name.critical0")
    if [ -z "$w" ] || [ -z "$w0" ]; then
        fail "$name: no wire share in critical's output: $(head -4 "$T/$name.critical")"
    elif awk -v a="$w" -v b="$w0" 'BEGIN { d = a - b; exit !(d <= 2 && d >= -2) }'; then
        ok "$name: critical's wire share $w% (offsets of 0: $w0%); $(grep '^clock:' "$T/$name.critical" | head -1)"
    else
        fail "$name: critical's wire share $w%, with offsets of 0 $w0% (more than 2 points apart)"
    fi
    awk -F'\t' 'BEGIN { OFS = "\t" } NR == 1 || /^#/ { print; next } { $3 = 10000000; $6 = 10000000; print }' "$dir/clocks.tsv" \
        > "$T/$name-zero/clocks.tsv"
    "$TRACE" critical "$T/$name-zero" > "$T/$name.critical10" 2>&1
    grep -q '^clock: warning: two hosts. offsets may be off by up to 20000.0 us together, more than a message.s mean time on the wire' \
        "$T/$name.critical10" && ok "$name: with uncertainties of 10 ms critical warns: $(grep '^clock: warning' "$T/$name.critical10")" ||
        fail "$name: no warning with uncertainties of 10 ms: $(grep '^clock' "$T/$name.critical10")"
}

# 1. over ssh
timeout 300 ip netns exec "${HOSTS_NS}-head" "$CLUSTER" run "$T/3h.cfg" --ssh "$HOSTS_SSH" --run-dir "$T/ssh" \
    --trace detailed --timeout 200 -- "${PROG[@]}" > "$T/ssh.log" 2>&1
rc=$?
[ $rc = 0 ] && check_run ssh "$T/ssh" || { fail "ssh: launcher exit status $rc"; tail -15 "$T/ssh.log"; }

# 2. by Slurm
timeout 300 "$HOSTS_LAB" --name "$HOSTS_NS" exec head salloc -N 3 --quiet "$CLUSTER" run "$T/3s.cfg" --launch slurm \
    --run-dir "$T/slurm" --trace detailed --timeout 200 -- "${PROG[@]}" > "$T/slurm.log" 2>&1
rc=$?
[ $rc = 0 ] && check_run slurm "$T/slurm" || { fail "slurm: exit status $rc"; tail -15 "$T/slurm.log"; }

hosts_teardown
hosts_finish
