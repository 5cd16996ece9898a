#!/usr/bin/env bash
# fig63.sh - the figure 6-3 experiment of the thesis as one command: the
# average INI queue length measured with ini-synth for N = 1..8 compute
# nodes per INI, beside the contention model's prediction (ini-model).
#
# usage: tools/synth/fig63.sh [--quick] [--N LIST] [--duration SEC] [--scale US_PER_CYCLE]
#                             [--seed S] [--out DIR] [--keep-runs] [--measure trace|counters]
#                             [--time real|virtual] [--cycles N]
#
# The machine: 2 clusters of N PEs and 1 INI each (ini-cluster gen 2 N 1),
# memif, adaptive idle (more threads than cores), every PE running the
# compute/request cycle of figure 6-2 with the thesis's parameters
# W = 41789, o = 742, O = 2336 cycles, l = L = 0, exponentially
# distributed on the PE side (the model's assumption).  --time virtual
# runs it on the emulated machine (docs/virtual-time.md): W and o are
# declared, the INI's service is the thesis cost set (about 2,500 cycles
# a side per message, in place of O: no knob), each PE makes --cycles
# cycles (default 200, --quick 50) instead of running --duration seconds,
# and the host's load does not matter (no wait for a quiet machine).
# Otherwise (real time, the default): cycles become time
# by --scale microseconds per cycle (default 0.5: the 20 MHz Alewife
# stretched 10 times, so that O = 1168 us is large against the tens of
# microseconds a sleeping thread takes to wake up here).  W and o are spent
# sleeping (ini-synth --mode sleep), O is the INI's O knob, also sleeping.
#
# What is measured, per N:
#   Q        the model's Q_o: messages at an INI, the one in service
#            included, counted from the moment a message reaches the INI
#            (its PE submitted it, or the peer INI sent it), time-averaged
#            over the steady-state window of the run, mean of the two
#            INIs.  Computed by synth-queue from detailed traces (the only
#            traces with the PE's submit stamp t0).  Without traces
#            (--measure counters, or none written): the counters'
#            queue.time_avg, else loop.avg_queue (column source).
#   model    ini-model --N n with the nominal W, o, O (Q_o column).
#   model_eff  ini-model with the W, o and O the run achieved (sleeps
#            overshoot; the INI adds its own processing): separates the
#            model's error from the emulation's.
#   mva      exact mean-value analysis of the same closed network (two FIFO
#            INIs of demand 2 O_eff per cycle, PEs as delay W_eff + 2 o_eff,
#            2N customers): what an ideal measurement with exponential
#            service would give; the thesis's model approximates it.
#
# Output: a table on stdout as the runs finish (with progress on stderr),
# DIR/fig6-3.csv, DIR/fig6-3.png (gnuplot), DIR/fig6-3.txt (the table and
# the settings).  DIR defaults to docs/results; --quick (N = 1, 2, 4, 5 s
# runs, for CI) defaults to a temporary directory and prints its path.
# Exit status: 0, 1 when a run failed, 2 on bad arguments.
PROG=fig63.sh; . "$(dirname "$0")/../lib/options.sh"

W_CYCLES=41789
o_CYCLES=742
O_CYCLES=2336

die_usage() { die "$@"; }
fail() { echo "fig63.sh: $*" >&2; exit 1; }

quick=0 N_LIST="" duration="" scale=0.5 seed=1 out="" keep=0 measure=trace time=real pe_cycles=""
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1; shift; continue ;;
        --keep-runs) keep=1; shift; continue ;;
        -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    esac
    [ $# -ge 2 ] || die_usage "$1: unknown option or missing value"
    case "$1" in
        --N) N_LIST=$2 ;;
        --duration) duration=$2 ;;
        --scale) scale=$2 ;;
        --seed) seed=$2 ;;
        --out) out=$2 ;;
        --measure) measure=$2 ;;
        --time) time=$2 ;;
        --cycles) pe_cycles=$2 ;;
        *) die_usage "unknown option '$1'" ;;
    esac
    shift 2
done
if [ -z "$N_LIST" ]; then
    if [ "$quick" = 1 ]; then N_LIST="1,2,4"; else N_LIST="1,2,3,4,5,6,7,8"; fi
fi
[ -n "$duration" ] || { if [ "$quick" = 1 ]; then duration=5; else duration=50; fi; }
[[ "$N_LIST" =~ ^[0-9]+(,[0-9]+)*$ ]] || die_usage "--N: '$N_LIST' is not a list like 1,2,4"
IFS=, read -r -a Ns <<< "$N_LIST"
for n in "${Ns[@]}"; do
    [ "$n" -ge 1 ] && [ "$n" -le 32 ] || die_usage "--N: $n is not in 1..32"
done
[[ "$duration" =~ ^[0-9]+$ ]] && [ "$duration" -ge 1 ] || die_usage "--duration: '$duration' is not a whole number of seconds >= 1"
[[ "$scale" =~ ^[0-9]*\.?[0-9]+$ ]] && awk -v s="$scale" 'BEGIN { exit !(s > 0) }' ||
    die_usage "--scale: '$scale' is not a positive number"
[[ "$seed" =~ ^[0-9]+$ ]] || die_usage "--seed: '$seed' is not a number"
case "$time" in real|virtual) ;; *) die_usage "--time: '$time' is not real or virtual" ;; esac
[ -n "$pe_cycles" ] || { if [ "$quick" = 1 ]; then pe_cycles=50; else pe_cycles=200; fi; }
[[ "$pe_cycles" =~ ^[0-9]+$ ]] && [ "$pe_cycles" -ge 1 ] || die_usage "--cycles: '$pe_cycles' is not a whole number >= 1"
case "$measure" in trace) trace_mode=detailed ;; counters) trace_mode=off ;;
    *) die_usage "--measure: '$measure' is not trace or counters" ;; esac
if [ -z "$out" ]; then
    if [ "$quick" = 1 ]; then out=$(mktemp -d /tmp/fig63-quick.XXXXXX); else out=docs/results; fi
fi
mkdir -p "$out" || fail "cannot create $out"

# ---- build what the experiment runs ----
targets="build/bin/ini-cluster build/bin/inid build/bin/ini-model build/bin/ini-synth build/bin/synth-queue"
if grep -q 'tools/synth/module.mk' tools/module.mk 2>/dev/null; then
    make -s $targets >/dev/null || fail "build failed (make $targets)"
else
    make -s -f Makefile -f tools/synth/module.mk $targets >/dev/null || fail "build failed"
fi
work=$(mktemp -d /tmp/fig63.XXXXXX)
trap 'rm -rf "$work"' EXIT
# Run private copies: a rebuild in the tree during the experiment (other
# work goes on on this machine) must not swap binaries between two runs.
# ini-cluster finds inid next to itself.
mkdir -p "$work/bin" && cp $targets "$work/bin/" || fail "cannot copy the binaries to $work/bin"
bin="$work/bin"

# Other runs on this machine share its two cores and would disturb the
# timing: wait (a minute at most, to keep within the time budget) until
# no other inid is running, and mark the rows of runs that had company.
other_inids() { pgrep -a -x inid 2>/dev/null | grep -v -F -- "$work/" | wc -l; }
wait_quiet() {
    local waited=0
    while [ "$(other_inids)" -gt 0 ] && [ $waited -lt 60 ]; do
        [ $waited = 0 ] && echo "      waiting for other runs on this machine to finish ..." >&2
        sleep 5; waited=$((waited + 5))
    done
}

# ---- what the INI side offers ----
# The launcher checks --knob before it looks at the program, so a missing
# program tells whether a knob exists without starting anything.
knob_ok() {
    "$bin"/ini-cluster run conf/default.cfg --knob "$1" -- /nonexistent/program 2>&1 |
        grep -q 'no such program'
}
O_us=$(awk -v c=$O_CYCLES -v s="$scale" 'BEGIN { printf "%g", c * s }')
knob=""
if [ "$time" = virtual ]; then
    :   # the cost set is the INI's service; the launcher refuses knobs here
elif knob_ok "O=1,O_mode=sleep"; then
    knob="O=$O_us,O_mode=sleep"
    # Exponential INI service, as the model assumes, where inid offers it.
    knob_ok "O=1,O_mode=sleep,O_dist=exp" && knob="$knob,O_dist=exp"
else
    echo "fig63.sh: warning: this inid has no O knob; the INIs run at their own speed" >&2
fi

csv="$out/fig6-3.csv"
txt="$out/fig6-3.txt"
png="$out/fig6-3.png"
csv_tmp="$work/fig6-3.csv"
echo "N,Q_measured,Q_model,rel_err,Q_model_eff,rel_err_eff,Q_mva,Q_fifo,R_measured_us,R_model_us,U_measured,W_eff_us,o_eff_us,O_eff_us,cycles,source,disturbed" > "$csv_tmp"

settings="W = $W_CYCLES, o = $o_CYCLES, O = $O_CYCLES cycles, l = L = 0; scale $scale us/cycle"
settings="$settings (W = $(awk -v c=$W_CYCLES -v s="$scale" 'BEGIN{printf "%g", c*s}') us, o = $(awk -v c=$o_CYCLES -v s="$scale" 'BEGIN{printf "%g", c*s}') us, O = $O_us us)"
if [ "$time" = virtual ]; then
    settings="$settings; --time virtual (thesis costs); ini-synth --dist exp; $pe_cycles cycles per PE; seed $seed"
else
    settings="$settings; ini-synth --mode sleep --dist exp; knob ${knob:-none}; ${duration} s per N; seed $seed"
fi
header=$(printf "%3s %9s %9s %8s %9s %8s %9s %9s %10s %10s %6s" N Q_meas Q_model err Q_eff err_eff Q_mva Q_fifo R_meas_us R_model_us U)
echo "figure 6-3: $settings"
echo "$header"

# The first number after "KEY": in a JSON file (keys we read are unique
# in their files), and the mean of it over several files.
json_num() { grep -o "\"$2\": *[-0-9.eE+]*" "$1" | head -n 1 | sed 's/.*: *//'; }
mean_key() {
    local key=$1; shift
    for f in "$@"; do json_num "$f" "$key"; done | awk '{ s += $1; n++ } END { if (n) printf "%.6f", s / n }'
}

# Table rows from CSV rows (stdin).
print_rows() {
    awk -F, '{ printf "%3d %9.3f %9.3f %+7.1f%% %9.3f %+7.1f%% %9.3f %9.3f %10.0f %10.0f %6s%s\n",
               $1, $2, $3, 100 * $4, $5, 100 * $6, $7, $8, $9, $10, ($11 == "" ? "-" : sprintf("%.3f", $11)),
               ($17 == 1 ? " *" : "") }'
}

model_q() {   # N W o O -> "Q_o R" (the wrapper of ini-model, tools/inimeasure/ini_model.py)
    python3 -m inimeasure.ini_model --bin "$bin/ini-model" --N "$1" --W "$2" --o "$3" --O "$4" --print Q_o,R
}

failed=0
k=0
for n in "${Ns[@]}"; do
    k=$((k + 1))
    cfg="$work/fig63-n$n.cfg"
    run="$work/run-n$n"
    "$bin"/ini-cluster gen 2 "$n" 1 -o "$cfg" >/dev/null || fail "ini-cluster gen 2 $n 1 failed"
    # Detailed traces: the PE's submit stamp makes waiting in the PE ring
    # count as queueing at the INI.  The SEND timer must outlast the
    # longest wait at the peer INI (up to 2N messages of O each), or
    # spurious retransmissions add load the model does not have.
    sed -i -e "s/mode = \"off\"; records = [0-9]*/mode = \"$trace_mode\"; records = 1048576/" \
           -e 's/idle    = { mode = "auto"/idle    = { mode = "adaptive"/' \
           -e 's/send_timeout_us = [0-9]*/send_timeout_us = 2000000/' "$cfg"
    grep -q "mode = \"$trace_mode\"" "$cfg" && grep -q 'mode = "adaptive"' "$cfg" ||
        fail "cannot set trace and idle modes in $cfg (has ini-cluster gen changed its output?)"

    if [ "$time" = virtual ]; then
        printf "[%d/%d] N = %d: running %d cycles per PE in virtual time ...\n" "$k" "${#Ns[@]}" "$n" "$pe_cycles" >&2
        span=(--time virtual --timeout 1800) stop=(--cycles "$pe_cycles")
    else
        wait_quiet
        printf "[%d/%d] N = %d: running %d s ...\n" "$k" "${#Ns[@]}" "$n" "$duration" >&2
        span=(--timeout $((duration * 4 + 120))) stop=(--duration "$duration")
    fi
    start=$(date +%s)
    disturbed=0
    "$bin"/ini-cluster run "$cfg" --run-dir "$run" ${knob:+--knob "$knob"} "${span[@]}" -- \
        "$bin"/ini-synth --W $W_CYCLES --o $o_CYCLES --scale "$scale" --mode sleep --dist exp \
        "${stop[@]}" --seed "$seed" > "$work/run-n$n.log" 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        sleep 1
        # virtual time: the host's company changes nothing
        [ "$time" = real ] && [ "$(other_inids)" -gt 0 ] && disturbed=1
        [ -t 2 ] && printf "\r      %3d s" $(( $(date +%s) - start )) >&2
    done
    wait "$pid"
    rc=$?
    [ -t 2 ] && printf "\r" >&2
    if [ "$rc" -ne 0 ]; then
        echo "fig63.sh: N = $n: ini-cluster exited with $rc; its output:" >&2
        tail -n 15 "$work/run-n$n.log" >&2
        failed=1
        [ "$keep" = 1 ] && cp -r "$run" "$out/run-n$n" 2>/dev/null
        continue
    fi

    # Measured queue length.
    source="trace" Q="" Qfifo="" U="" O_eff=""
    if ls "$run"/ini*.trace >/dev/null 2>&1 &&
       line=$("$bin"/synth-queue "$run" --format csv 2>"$work/sq.err" | grep '^mean,'); then
        IFS=, read -r _ _ _ Qfifo Q U O_eff _ _ <<< "$line"
    else
        [ -s "$work/sq.err" ] && echo "fig63.sh: N = $n: $(cat "$work/sq.err")" >&2
        if grep -q '"time_avg"' "$run"/ini0.counters.json 2>/dev/null; then
            source="counters.time_avg"
            Q=$(mean_key time_avg "$run"/ini*.counters.json)
        else
            source="counters.avg_queue"
            Q=$(mean_key avg_queue "$run"/ini*.counters.json)
        fi
        Qfifo=$Q U="" O_eff=""
        # The counters' busy group: INI time per message (busy share x
        # run / messages, messages = busy cycles / cycles per message).
        # The share was called "utilization" in counters files before
        # docs/traces.md gave that word to the report alone.
        if grep -q '"cycles_per_message"' "$run"/ini0.counters.json 2>/dev/null; then
            share=share
            grep -q '"share"' "$run"/ini0.counters.json || share=utilization
            U=$(mean_key $share "$run"/ini*.counters.json)
            O_eff=$(for f in "$run"/ini*.counters.json; do
                        echo "$(json_num "$f" $share) $(json_num "$f" run_seconds) $(json_num "$f" cycles_per_message)" \
                             "$(grep -o '"busy": *{"cycles": *[0-9]*' "$f" | sed 's/.*: *//')"
                    done | awk '$4 > 0 { s += $1 * $2 * $3 / $4 * 1e6; n++ } END { if (n) printf "%.3f", s / n }')
        fi
    fi
    # What the PEs achieved: cycle time, work and handler means, pooled.
    read -r cycles R_meas W_eff o_eff < <(for f in "$run"/synth-cluster*.json; do
            echo "$(json_num "$f" total_cycles) $(json_num "$f" pooled_R_us) $(json_num "$f" pooled_work_us)" \
                 "$(json_num "$f" pooled_o_us)"
        done | awk '$1 > 0 { c += $1; r += $1 * $2; w += $1 * $3; o += $1 * $4 }
                    END { if (c) printf "%d %.3f %.3f %.3f\n", c, r / c, w / c, o / c }')
    [ -n "$Q" ] && [ -n "${R_meas:-}" ] || { echo "fig63.sh: N = $n: no measurement in $run" >&2; failed=1; continue; }
    # Virtual time: the traces' and counters' microseconds are the emulated
    # machine's (20 MHz), ini-synth's are --scale us a cycle.
    if [ "$time" = virtual ] && [ -n "$O_eff" ]; then
        O_eff=$(awk -v x="$O_eff" -v s="$scale" 'BEGIN { printf "%.3f", x * 20 * s }')
    fi
    [ -n "$O_eff" ] || O_eff=$O_us

    read -r Qm Rm < <(model_q "$n" $W_CYCLES $o_CYCLES $O_CYCLES)
    read -r Qe _ < <(model_q "$n" "$W_eff" "$o_eff" "$O_eff")
    Qmva=$(awk -v K=$((2 * n)) -v W="$W_eff" -v o="$o_eff" -v O="$O_eff" 'BEGIN {
        z = W + 2 * o; d = 2 * O; q = 0
        for (k = 1; k <= K; k++) { r = d * (1 + q); x = k / (z + 2 * r); q = x * r }
        printf "%.6f", q }')
    row=$(awk -v n="$n" -v q="$Q" -v qm="$Qm" -v qe="$Qe" -v qv="$Qmva" -v qf="$Qfifo" -v r="$R_meas" \
              -v rm="$Rm" -v s="$scale" -v u="$U" -v w="$W_eff" -v o="$o_eff" -v O="$O_eff" -v c="$cycles" \
              -v src="$source" -v dist="$disturbed" 'BEGIN {
        printf "%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.1f,%.1f,%s,%.1f,%.1f,%.1f,%d,%s,%d\n",
               n, q, qm, (q - qm) / qm, qe, (q - qe) / qe, qv, qf, r, rm * s, u, w, o, O, c, src, dist }')
    [ "$disturbed" = 1 ] && echo "fig63.sh: N = $n: another run shared the machine meanwhile (column disturbed)" >&2
    echo "$row" >> "$csv_tmp"
    print_rows <<< "$row"
    [ "$keep" = 1 ] && cp -r "$run" "$out/run-n$n"
done

mv "$csv_tmp" "$csv"
{
    echo "figure 6-3: $settings"
    echo "$header"
    tail -n +2 "$csv" | print_rows
    grep -q ',1$' "$csv" && echo "(*: another run shared the machine during this one)"
} > "$txt"

# ---- the figure ----
if command -v gnuplot >/dev/null; then
    term=png
    gnuplot -e 'set terminal' 2>&1 | grep -q pngcairo && term="pngcairo size 800,560"
    gnuplot <<EOF 2>"$work/gnuplot.err" || echo "fig63.sh: gnuplot failed: $(head -n 3 "$work/gnuplot.err")" >&2
set terminal $term
set output "$png"
set datafile separator ","
set title "Figure 6-3: average INI queue length (W = $W_CYCLES, o = $o_CYCLES, O = $O_CYCLES, l = L = 0)"
set xlabel "N, compute nodes per INI"
set ylabel "average number of messages at an INI"
set key top left
set grid
set xrange [0.5:$(printf '%s\n' "${Ns[@]}" | sort -n | tail -n 1).5]
set yrange [0:*]
plot "$csv" every ::1 using 1:3 with linespoints lw 2 pt 6 title "model (ini-model, nominal W, o, O)", \
     "$csv" every ::1 using 1:5 with lines dt 2 lw 2 title "model at the achieved W, o, O", \
     "$csv" every ::1 using 1:7 with lines dt 4 lw 2 lc rgb "#808080" title "exact MVA of the same network (exponential O)", \
     "$csv" every ::1 using 1:2 with points pt 7 ps 1.5 title "measured (ini-synth)"
EOF
else
    echo "fig63.sh: gnuplot not installed: no $png" >&2
fi

echo "wrote $csv, $txt${png:+, $png}"
exit $failed
