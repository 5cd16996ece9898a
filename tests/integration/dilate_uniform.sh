#!/usr/bin/env bash
# dilate_uniform: uniform dilation (knobs dilate = K, beta; docs/config.md)
# slows every kind of thread of the emulated machine by its own CPU time,
# under the launcher.  (The exact factor on a known amount of work, within
# a stated tolerance, is tested in test_knobs and test_mgs_dilate; here the
# counters of real runs show the rule at work, with a floor that holds on a
# loaded machine and a loose ceiling.)
#   - ini-ping on 2 clusters x 1 compute node x 2 INIs, --knob
#     dilate=100,beta=0.5: every message verified; each busy INI's counters
#     say factor 50, and its busy turns lasted at least 0.9 x 50 times the
#     CPU time they used (at most 5 x: late wake-ups of a loaded machine);
#     the INIs that carried nothing (static: one compute node uses INI 0)
#     dilated no turn and were busy 0 cycles: an idle INI is not slowed;
#     no retransmission by timer (the transport's timers run 50 times
#     slower too, or every dilated turn would time them out);
#   - Water (64 molecules, 2 steps) on 2 clusters x 2 compute nodes with
#     --knob dilate=40: the same full-precision output as undilated; the
#     compute threads' and the protocol threads' dilated spans at least
#     0.98 x 40 times their CPU time; the INIs dilated too;
#     MGS_DILATE_PROTOCOL=1 leaves the protocol threads undilated;
#   - bad values refused in one line, exit 2: dilate=0.5, beta=0.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib/common.sh
water_test_start dilate_uniform build/bin/ini-cluster build/bin/ini-ping build/bin/inid
CLUSTER=build/bin/ini-cluster

json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): d=d[k]
print(d)' "$@"; }
# ratio A B LO HI: A / B within [LO, HI]
within() { awk -v a="$1" -v b="$2" -v lo="$3" -v hi="$4" 'BEGIN{exit !(b > 0 && a / b >= lo && a / b <= hi)}'; }

# ---- the INI pass: ini-ping ----
"$CLUSTER" gen 2 1 2 -o "$TMP/g212.cfg" > /dev/null
RUN=$TMP/ping
if "$CLUSTER" run "$TMP/g212.cfg" --knob dilate=100,beta=0.5 --run-dir "$RUN" -- \
       build/bin/ini-ping --sizes 64,1000 --count 100 --window 1 > "$TMP/ping.out" 2>&1 &&
   [ "$(cat "$RUN"/cluster*.out | grep -c '^verified 200 messages, 0 errors')" = 2 ]; then
    ok "ini-ping with dilate=100,beta=0.5: every message verified"
else
    fail "ini-ping with dilation failed"; tail -5 "$TMP/ping.out"
fi
for i in 0 1 2 3; do
    c=$RUN/ini$i.counters.json
    [ -s "$c" ] || { fail "no $c"; continue; }
    f=$(json "$c" dilation.factor) turns=$(json "$c" dilation.turns) cpu=$(json "$c" dilation.cpu_ns)
    busy=$(json "$c" busy.cycles) retx=$(json "$c" transport.retx_timer)
    [ "$retx" = 0 ] || fail "INI $i: $retx retransmissions by timer (timers not dilated?)"
    if [ $((i % 2)) = 1 ]; then
        [ "$turns" = 0 ] && [ "$busy" = 0 ] && ok "INI $i carried nothing: 0 dilated turns, 0 busy cycles" ||
            fail "INI $i carried nothing but dilated $turns turns, $busy busy cycles"
        continue
    fi
    # the busy turns' time: busy.share x the run
    span_ns=$(awk -v u="$(json "$c" busy.share)" -v r="$(json "$c" queue.run_seconds)" \
              'BEGIN{printf "%.0f", u * r * 1e9}')
    if [ "$f" = 50.0 ] && [ "$turns" -gt 0 ] && within "$span_ns" "$cpu" 45 250; then
        ok "INI $i: factor $f, $turns busy turns lasted $(awk -v a="$span_ns" -v b="$cpu" 'BEGIN{printf "%.1f", a/b}') x their CPU time ($cpu ns)"
    else
        fail "INI $i: factor $f, $turns turns, busy $span_ns ns for $cpu ns of CPU (wanted 45..250 x)"
    fi
done

# ---- compute and protocol threads: Water ----
printf '1.5e-16 64 2 6 -1 3000 1 0 4 6.212752\n' > "$TMP/water.in"
"$CLUSTER" gen 2 2 1 -o "$TMP/g221.cfg" > /dev/null
water() { # NAME [env...] -- [launcher args...]
    local name=$1 envs=()
    shift
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    env "${envs[@]}" "$CLUSTER" run "$TMP/g221.cfg" "$@" --run-dir "$TMP/$name" -- \
        "$WATER" --mgs --random "$RANDOM_IN" --deterministic --full < "$TMP/water.in" > "$TMP/$name.log" 2>&1
}
times() { grep -vE '^(COMPUTESTART|COMPUTEEND|COMPUTETIME|Measured Time|Intramolecular time|Intermolecular time|Other time)' "$1"; }
if water plain -- && water uniform -- --knob dilate=40 && water noproto MGS_DILATE_PROTOCOL=1 -- --knob dilate=40; then
    if grep -q '^FULL 2 ' "$TMP/plain/cluster0.out" &&
       cmp -s <(times "$TMP/plain/cluster0.out") <(times "$TMP/uniform/cluster0.out"); then
        ok "Water with dilate=40: output identical to the undilated run (full precision)"
    else
        fail "dilate=40 changed Water's output"
    fi
    for c in 0 1; do
        m=$TMP/uniform/mgs-cluster$c.json
        for kind in dilate protocol_dilate; do
            cpu=$(json "$m" ${kind}_cpu_us) span=$(json "$m" ${kind}_span_us)
            if [ "$cpu" -gt 0 ] && within "$span" "$cpu" 39.2 1000; then
                ok "cluster $c, $([ $kind = dilate ] && echo compute || echo protocol) threads: dilated spans $(awk -v a="$span" -v b="$cpu" 'BEGIN{printf "%.1f", a/b}') x their CPU time ($cpu us)"
            else
                fail "cluster $c, $kind: span $span us for $cpu us of CPU (wanted >= 39.2 x)"
            fi
        done
        p=$(json "$TMP/noproto/mgs-cluster$c.json" protocol_dilate_cpu_us)
        d=$(json "$TMP/noproto/mgs-cluster$c.json" dilate_cpu_us)
        [ "$p" = 0 ] && [ "$d" -gt 0 ] && ok "cluster $c: MGS_DILATE_PROTOCOL=1 left the protocol thread undilated" ||
            fail "cluster $c: MGS_DILATE_PROTOCOL=1: protocol $p us, compute $d us dilated"
        [ "$(json "$TMP/plain/mgs-cluster$c.json" dilate_cpu_us)" = 0 ] || fail "cluster $c: dilated without the knob"
    done
    t=$(json "$TMP/uniform/ini0.counters.json" dilation.turns)
    [ "$t" -gt 0 ] && ok "INI 0 dilated $t turns under Water" || fail "INI 0 dilated no turn under Water"
else
    fail "Water under the launcher failed"; tail -5 "$TMP"/*.log
fi

# ---- bad values ----
expect_error "dilate=0.5" "dilate: \"0.5\" is not a number in 0 (off) or 1..1000" "ini-cluster: " \
    "$CLUSTER" run "$TMP/g221.cfg" --knob dilate=0.5 -- /bin/true
expect_error "beta=0" "beta: \"0\" is not a number in 0.001..1000" "ini-cluster: " \
    "$CLUSTER" run "$TMP/g221.cfg" --knob dilate=10,beta=0 -- /bin/true
test_end
