#!/usr/bin/env bash
# vtime_water_trace: MGS's own compute-node records in a virtual-time run are
# on the emulated clock, so `ini-trace whatif` replays a virtual Water run
# (docs/whatif.md, "Virtual Water").  Water 64 molecules, 2 steps,
# --deterministic, the thesis costs, traced (summary), 2 clusters x 2 nodes.
#   1. The header: every cn*.trace says node handlers + virtual (flags 5),
#      and holds MGS's ACTION and REQ records (> 0 of each).
#   2. The stamps are cycles of the run: every stamp of every record lies
#      in [1, 1 + the run's virtual cycles] (the clock's origin is 1), the
#      last record's latest stamp > 1.  The run's cycles are the golden
#      water64-c221 of vtime_golden.tsv (tracing charges nothing).
#   3. whatif replays the 1-INI run as it ran: its span within 3% of the
#      run's virtual time (measured while writing this: +1.7%), and with 2
#      INIs a cluster predicts the live 2-INI run's virtual time within 5%
#      (measured: 0.3506 s predicted, 0.3570 s live, -1.8%); the prediction
#      is below the 1-INI run's (a second INI shortens the queue).
#   4. The replay's report as it ran is the run's: message time and
#      time-averaged queue within 10% of `ini-trace report`'s (measured:
#      -2.4%, -4.1%; before the replay stamped a virtual INI's input at its
#      arrival, its message time was its services alone, -48%).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
water_test_start vtime_water_trace build/bin/ini-cluster build/bin/inid build/bin/ini-trace
L=build/bin/ini-cluster TR=build/bin/ini-trace
. tests/integration/lib/vtime_water.sh
input 64 4 > "$TMP/in64"
vrun() {    # NAME INIS: a traced virtual run on 2 x 2 x INIS; its status
    $L gen 2 2 "$2" -o "$TMP/$1.cfg" > /dev/null || return 1
    timeout 600 $L run "$TMP/$1.cfg" --time virtual --vt-costs thesis --trace summary --timeout 550 \
        --run-dir "$TMP/$1" -- "$WATER" --mgs --deterministic --random "$RANDOM_IN" < "$TMP/in64" > "$TMP/$1.out" 2>&1
}
vrun i1 1; r1=$?
vrun i2 2; r2=$?
c1=$(vcycles i1) c2=$(vcycles i2)
if [ $r1$r2 != 00 ] || [ -z "$c1" ] || [ -z "$c2" ]; then
    fail "the virtual runs failed (status $r1 $r2); see $TMP/i1.out $TMP/i2.out"
    test_end
fi

# --- 1, 2: the header and the stamps, read from the files as traces.md lays them out
check=$(python3 - "$TMP/i1" "$c1" <<'EOF'
import glob, struct, sys
d, cycles = sys.argv[1], int(sys.argv[2])
out = []
for f in sorted(glob.glob(d + '/cn*.trace')):
    b = open(f, 'rb').read()
    flags, = struct.unpack_from('<H', b, 14)
    kinds, bad, last = {}, 0, 0
    for off in range(128, len(b), 48):
        kind = b[off]
        t = [x for x in struct.unpack_from('<3Q', b, off + 24) if x]
        kinds[kind] = kinds.get(kind, 0) + 1
        bad += sum(1 for x in t if not 1 <= x <= 1 + cycles)
        last = max(t) if t else last
    out.append('%s flags=%d actions=%d reqs=%d bad=%d last=%d' %
               (f.rsplit('/', 1)[1], flags, kinds.get(3, 0), kinds.get(4, 0), bad, last))
print('; '.join(out))
EOF
)
if [ "$(grep -o 'flags=5 ' <<< "$check" | wc -l)" = 2 ] && ! grep -qE 'actions=0|reqs=0|last=[01];|last=[01]$' <<< "$check" &&
   [ "$(grep -o 'bad=0' <<< "$check" | wc -l)" = 2 ]; then
    ok "virtual Water's compute-node traces: flags 5, every stamp in [1, 1 + $c1] ($check)"
else
    fail "virtual Water's compute-node traces: $check (run of $c1 cycles)"
fi
vt_golden water64-c221 "$c1"     # tracing charges nothing: the untraced run's cycles

# --- 3: the replay as it ran, and with 2 INIs
span() { $TR whatif "$TMP/i1" --inis-per-cluster "$1" --format json 2> "$TMP/whatif$1.err" |
         python3 -c 'import json,sys; print(json.load(sys.stdin)["whatif"]["replay_span_s"])'; }
s1=$(span 1) s2=$(span 2)
verdict=$(python3 - "${s1:-nan}" "${s2:-nan}" "$c1" "$c2" <<'EOF'
import sys
s1, s2, c1, c2 = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
t1, t2 = c1 / 20e6, c2 / 20e6
e1, e2 = s1 / t1 - 1, s2 / t2 - 1
ok = abs(e1) <= 0.03 and abs(e2) <= 0.05 and s2 < t1
print('%s as run %.4f s of %.4f s (%+.1f%%); 2 INIs %.4f s predicted, %.4f s live (%+.1f%%)'
      % ('ok' if ok else 'FAIL', s1, t1, 100 * e1, s2, t2, 100 * e2))
EOF
)
case $verdict in
    ok*) ok "whatif on virtual Water: ${verdict#ok }" ;;
    *) fail "whatif on virtual Water: ${verdict#FAIL } (see $TMP/whatif1.err, $TMP/whatif2.err)" ;;
esac

# --- 4: the report replayed as it ran against the run's
$TR report "$TMP/i1" --format json > "$TMP/report1.json" 2> "$TMP/report1.err"
$TR whatif "$TMP/i1" --format json > "$TMP/whatif1.json" 2> "$TMP/whatif1.err"
verdict=$(python3 - "$TMP/report1.json" "$TMP/whatif1.json" <<'EOF'
import json, sys
try:
    run = json.load(open(sys.argv[1]))['machine']
    rep = json.load(open(sys.argv[2]))['report']['machine']
except (OSError, ValueError, KeyError) as e:
    sys.exit(print('FAIL unreadable: %s' % e))
e = {k: rep[k] / run[k] - 1 for k in ('msg_cycles', 'queue_len')}
print('%s message time %.0f against %.0f cycles (%+.1f%%), queue %.3f against %.3f (%+.1f%%)'
      % ('ok' if all(abs(v) <= 0.10 for v in e.values()) else 'FAIL', rep['msg_cycles'], run['msg_cycles'],
         100 * e['msg_cycles'], rep['queue_len'], run['queue_len'], 100 * e['queue_len']))
EOF
)
case $verdict in
    ok*) ok "whatif's report as it ran: ${verdict#ok }" ;;
    *) fail "whatif's report as it ran: ${verdict#FAIL }" ;;
esac
test_end
