# runs.sh - the run loop and the output of the experiments that repeat
# runs in one seeded random order: tools/thesis/experiments.sh (chapter 5)
# and tools/sweeps/sweep.sh (one knob at a time).  Sourced, not run.  The
# layout it writes (runs.tsv, reports.jsonl, errors.log beside the
# caller's meta.txt) is described in tools/inimeasure/runs.py, which reads it.
#
#   runs_plan POINTS REPS SEED   every line of POINTS REPS times (a line
#                                ending with a field reps=N: N times, the
#                                field dropped), shuffled by SEED, each
#                                line ending with its rep
#   runs_open OUT COLUMN...      the runs table's header (the plan's
#                                columns); removes OUT's earlier runs
#   runs_loop PLAN FUNCTION      for each line of the plan: the machine's
#                                load before, FUNCTION with the line's
#                                fields, the load after, the row, progress
#   runs_summary                 "N runs, F failure(s), ..." (RUNS_FAILED: F)
#
# FUNCTION makes one run and sets RUN_STATUS (ok or failed), RUN_TIME (s)
# and RUN_NOTE (the progress line's figures).  Inside it:
#   runs_launch DIR INPUT CMD... starts CMD (stdin INPUT, output kept in
#                                RUNS_TMP/log, CPU time taken, the load
#                                sampled every second while it runs) and
#                                starts it again, at most twice, when the
#                                launcher says the daemons never became ready
#   runs_fail DIR WHY            the run failed: its logs into errors.log
#   runs_report DIR [ARGS...]    the run's ini-trace report into
#                                reports.jsonl (ARGS: runs.py add's --field,
#                                --program); RUNS_TMP/report.json keeps it
#   runs_error TITLE FILE...     a section of errors.log (empty files skipped)
#   runs_keep DIR                with RUNS_KEEP set (a directory): the run's
#                                traces (ini*.trace, cn*.trace, clocks.tsv,
#                                time-c*.txt) into RUNS_KEEP/LABEL-rREP/, for
#                                a replay later (tools/trace/replay_check.sh)
#
# The caller sets RUNS_TMP (a scratch directory), RUNS_TRACE (ini-trace),
# and may set RUNS_SAMPLE_S (seconds of the load sample, 1), RUNS_LOADLIM
# (a load average that flags a run too, none), RUNS_LABEL_COLS (how many of
# the plan's columns name a run in the progress lines, all).
# Water helpers for the scripts that run it: water_input, water_time.

# runs_add ARGS...: `runs.py add` (tools/inimeasure/runs.py; PYTHONPATH from
# tools/lib/options.sh, which the drivers source first).
runs_add() { python3 -m inimeasure.runs add "$@"; }
RUNS_PROBE=${RUNS_PROBE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/bin/ini-bench}
RUNS_SAMPLE_S=${RUNS_SAMPLE_S:-1} RUNS_LOADLIM=${RUNS_LOADLIM:-none}

runs_plan() {
    python3 - "$@" <<'EOF'
import random, sys
points = [l.split() for l in open(sys.argv[1]) if l.strip()]
reps = lambda p: int(p[-1][5:]) if p[-1].startswith("reps=") else int(sys.argv[2])
runs = [[f for f in p if not f.startswith("reps=")] + [str(r)] for p in points for r in range(1, reps(p) + 1)]
random.Random(int(sys.argv[3])).shuffle(runs)
for r in runs:
    print(" ".join(r))
EOF
}

runs_open() {
    RUNS_OUT=$1; shift
    RUNS_COLS=("$@")
    rm -rf "$RUNS_OUT/raw"
    rm -f "$RUNS_OUT/reports.jsonl" "$RUNS_OUT/reports.jsonl.xz" "$RUNS_OUT/errors.log"
    runs_row seq "$@" rep status runtime_s load_before load_after others flag cpu_user_s cpu_sys_s starts \
        load_mean load_max busy_mean busy_max others_during probe_rtt_ns probe_spin_ns > "$RUNS_OUT/runs.tsv"
    RUNS_N=0 RUNS_FAILED=0 RUNS_LOADED=0 RUNS_RESTARTS=0 RUNS_START=$SECONDS RUNS_DURS=()
}

# The machine's load.  cpu_busy: the share of the machine's CPU time used
# in the RUNS_SAMPLE_S seconds before a run, while none of ours runs, i.e.
# by other work; loadavg: /proc/loadavg's 1-minute figure, which also
# remembers our own previous runs.
runs_row() {   # FIELD...: one line of the runs table
    local IFS=$'\t'
    echo "$*"
}

runs_cpu_busy() {
    local a b
    a=($(head -1 /proc/stat)); sleep "$RUNS_SAMPLE_S"; b=($(head -1 /proc/stat))
    local idle=$(( (b[4] + b[5]) - (a[4] + a[5]) )) total=0 i
    for i in 1 2 3 4 5 6 7 8; do total=$((total + b[i] - a[i])); done
    awk -v i=$idle -v t=$total 'BEGIN{printf("%.2f", (t > 0) ? 1 - i / t : 0)}'
}
runs_loadavg() { cut -d' ' -f1 /proc/loadavg; }

# The machine's state before a run: "RTT_NS SPIN_NS" from ini-bench
# --probe (bench_probe.c: a cache line's round trip between the cores,
# meant to tell this VM's fast and slow states apart), "- -" when it
# cannot be measured.
runs_probe() {
    local out
    out=$("$RUNS_PROBE" --probe 2> /dev/null) &&
        sed -n 's/^probe rtt_ns=\([0-9.]*\) spin_ns=\([0-9.]*\)$/\1 \2/p' <<< "$out" | grep . || echo "- -"
}

# The load during a run (runs_launch).  A sampler in the background writes, every
# second, the 1-minute load average and the share of the machine's CPU
# time used in that second (by everything: our run too) to RUNS_TMP/samples;
# /proc/stat is read at the run's start and end as well.  After the run:
# RUN_LOAD_MEAN/MAX, RUN_BUSY_MEAN/MAX over the samples, and
# RUN_OTHERS_DURING, the share of the machine other work used during the
# run: the busy CPU time of the whole machine over the run, less the run's
# own CPU time (runs_launch's /usr/bin/time), over wall time x cores.
runs_stat_busy() { awk 'NR==1 {b=0; for (i=2; i<=9; i++) if (i!=5 && i!=6) b+=$i; print b, $5+$6; exit}' /proc/stat; }
runs_sample_start() {
    read -r RUNS_B0 RUNS_I0 < <(runs_stat_busy)
    RUNS_T0=$(date +%s.%N)
    (
        read -r b0 i0 < <(runs_stat_busy)
        while sleep 1; do
            read -r b1 i1 < <(runs_stat_busy)
            awk -v b=$((b1 - b0)) -v i=$((i1 - i0)) -v l="$(runs_loadavg)" 'BEGIN{printf "%s %.3f\n", l, (b + i > 0) ? b / (b + i) : 0}'
            b0=$b1 i0=$i1
        done
    ) > "$RUNS_TMP/samples" 2> /dev/null &
    RUNS_SAMPLER=$!
}
runs_sample_stop() {
    kill "$RUNS_SAMPLER" 2> /dev/null; wait "$RUNS_SAMPLER" 2> /dev/null
    local b1 i1
    read -r b1 i1 < <(runs_stat_busy)
    # A run shorter than a second: one sample, the whole run.
    [ -s "$RUNS_TMP/samples" ] || awk -v b=$((b1 - RUNS_B0)) -v i=$((i1 - RUNS_I0)) -v l="$(runs_loadavg)" \
        'BEGIN{printf "%s %.3f\n", l, (b + i > 0) ? b / (b + i) : 0}' > "$RUNS_TMP/samples"
    read -r RUN_LOAD_MEAN RUN_LOAD_MAX RUN_BUSY_MEAN RUN_BUSY_MAX < <(awk '
        {l+=$1; b+=$2; if ($1>lm) lm=$1; if ($2>bm) bm=$2; n++}
        END {if (n) printf "%.2f %.2f %.3f %.3f\n", l/n, lm, b/n, bm; else print "- - - -"}' "$RUNS_TMP/samples")
    RUN_OTHERS_DURING=$(awk -v b=$((b1 - RUNS_B0)) -v hz="$(getconf CLK_TCK)" -v t0="$RUNS_T0" -v t1="$(date +%s.%N)" \
        -v u="${RUN_CPU_USER:-}" -v s="${RUN_CPU_SYS:-}" -v n="$(nproc)" 'BEGIN{
            w = (t1 - t0) * n; if (u == "" || w <= 0) { print ""; exit }
            o = (b / hz - u - s) / w; printf "%.2f", (o < 0) ? 0 : o}')
    [ "$RUN_LOAD_MEAN" = - ] && RUN_LOAD_MEAN= RUN_LOAD_MAX= RUN_BUSY_MEAN= RUN_BUSY_MAX=
}

runs_error() {
    local title=$1 f any=0; shift
    for f in "$@"; do [ -s "$f" ] && any=1; done
    [ $any = 1 ] || return 0
    {
        echo "== $title"
        for f in "$@"; do
            [ -s "$f" ] || continue
            [ $# -gt 1 ] && echo "-- ${f##*/}"
            cat "$f"
        done
    } >> "$RUNS_OUT/errors.log"
}

runs_launch() {
    local dir=$1 input=$2 attempt
    shift 2
    for attempt in 1 2 3; do
        RUN_STARTS=$attempt
        rm -rf "$dir"
        runs_sample_start
        /usr/bin/time -f "%U %S" -o "$RUNS_TMP/cpu" "$@" < "$input" > "$RUNS_TMP/log" 2>&1
        RUN_RC=$?
        # "%U %S" is the last line (time puts "Command exited ..." before it)
        read -r RUN_CPU_USER RUN_CPU_SYS < <(tail -n 1 "$RUNS_TMP/cpu" 2>/dev/null)
        runs_sample_stop
        [ $RUN_RC != 0 ] && [ $attempt -lt 3 ] &&
            grep -q '^ini-cluster: .*\(before ready\|not ready after\)' "$RUNS_TMP/log" || break
        runs_error "$RUN_LABEL rep $RUN_REP: start $attempt: daemons not ready" "$RUNS_TMP/log" "$dir"/ini*.log
        echo "  RESTART $RUN_LABEL rep $RUN_REP: daemons not ready (logs in errors.log)"
        RUNS_RESTARTS=$((RUNS_RESTARTS + 1))
    done
    return $RUN_RC
}

runs_fail() {
    local dir=$1 f
    RUN_STATUS=failed RUN_NOTE=$2
    # The launcher's output whole, the last 100 lines of each daemon's and
    # program's log.
    {
        cat "$RUNS_TMP/log"
        for f in "$dir"/*.err "$dir"/*.log; do
            [ -s "$f" ] && { echo "-- ${f##*/} (last 100 lines)"; tail -n 100 "$f"; }
        done
    } > "$RUNS_TMP/fail.log" 2> /dev/null
    runs_error "$RUN_LABEL rep $RUN_REP: failed, $2" "$RUNS_TMP/fail.log"
}

runs_report() {
    local dir=$1 rep=()
    shift
    rm -f "$RUNS_TMP/report.json"
    if "$RUNS_TRACE" report "$dir" --format json > "$RUNS_TMP/report.json" 2> "$RUNS_TMP/report.err"; then
        rep=(--report "$RUNS_TMP/report.json")
    else
        rm -f "$RUNS_TMP/report.json"
    fi
    runs_error "$RUN_LABEL rep $RUN_REP: ini-trace report" "$RUNS_TMP/report.err"
    runs_add "$RUNS_OUT" "${RUN_IDS[@]}" "${rep[@]}" "$@"
}

runs_keep() {
    [ -n "${RUNS_KEEP:-}" ] || return 0
    local to=$RUNS_KEEP/${RUN_LABEL// /-}-r$RUN_REP f
    mkdir -p "$to" || return 1
    for f in "$1"/ini*.trace "$1"/cn*.trace "$1"/clocks.tsv "$1"/time-c*.txt; do
        [ -e "$f" ] && cp "$f" "$to/"
    done
    return 0
}

runs_loop() {
    local plan=$1 fn=$2 nruns line busy la0 la1 flag t0 eta i p_rtt p_spin ncol=${#RUNS_COLS[@]}
    nruns=$(grep -c . "$plan")
    while read -r -a line; do
        local vals=("${line[@]:0:ncol}")
        RUN_REP=${line[ncol]}
        RUN_LABEL="${vals[*]:0:${RUNS_LABEL_COLS:-$ncol}}"
        RUN_IDS=()
        for ((i = 0; i < ncol; i++)); do RUN_IDS+=(--id "${RUNS_COLS[i]}=${vals[i]}"); done
        RUN_IDS+=(--id "rep=$RUN_REP")
        RUN_STATUS=failed RUN_TIME= RUN_NOTE= RUN_CPU_USER= RUN_CPU_SYS= RUN_STARTS=1 flag=ok t0=$SECONDS
        RUN_LOAD_MEAN= RUN_LOAD_MAX= RUN_BUSY_MEAN= RUN_BUSY_MAX= RUN_OTHERS_DURING=
        # The probe after the second of load sampling, not before it: a
        # previous run's daemons may still be exiting on the cores.
        busy=$(runs_cpu_busy); la0=$(runs_loadavg)
        read -r p_rtt p_spin < <(runs_probe)
        [ "$p_rtt" = - ] && p_rtt= p_spin=
        "$fn" "${line[@]}" < /dev/null
        la1=$(runs_loadavg)
        RUNS_N=$((RUNS_N + 1))
        # Flagged: other work used more than a quarter of the machine (half
        # a core of two) in the sample before the run or during it, or,
        # with a load limit, the load average exceeded it (it counts our own
        # previous run's 30-50 threads for about a minute, so it reads 5-8
        # after our runs on an otherwise idle 2-core machine).
        if awk -v b="$busy" -v d="${RUN_OTHERS_DURING:-0}" -v l="$la0" -v lim="$RUNS_LOADLIM" \
               'BEGIN{exit !(b > 0.25 || d > 0.25 || (lim != "none" && l > lim + 0))}'; then
            flag=loaded; RUNS_LOADED=$((RUNS_LOADED + 1))
        fi
        runs_row "$RUNS_N" "${vals[@]}" "$RUN_REP" "$RUN_STATUS" "$RUN_TIME" "$la0" "$la1" "$busy" "$flag" \
            "$RUN_CPU_USER" "$RUN_CPU_SYS" "$RUN_STARTS" "$RUN_LOAD_MEAN" "$RUN_LOAD_MAX" "$RUN_BUSY_MEAN" \
            "$RUN_BUSY_MAX" "$RUN_OTHERS_DURING" "$p_rtt" "$p_spin" >> "$RUNS_OUT/runs.tsv"
        if [ "$RUN_STATUS" != ok ]; then
            RUNS_FAILED=$((RUNS_FAILED + 1))
            echo "  FAIL $RUN_LABEL rep $RUN_REP: $RUN_NOTE (logs in $RUNS_OUT/errors.log)"
            continue
        fi
        RUNS_DURS+=($((SECONDS - t0)))
        eta=$(printf '%s\n' "${RUNS_DURS[@]}" | sort -n | awk -v left=$((nruns - RUNS_N)) '{v[NR]=$1} END{m=v[int((NR+1)/2)]; s=m*left; printf "%d:%02d:%02d", s/3600, s%3600/60, s%60}')
        printf '  [%3d/%d] %-28s rep %d: %s; load %s->%s, others %s (during %s), probe %s ns%s; %ds, left ~%s\n' "$RUNS_N" "$nruns" \
            "$RUN_LABEL" "$RUN_REP" "$RUN_NOTE" "$la0" "$la1" "$busy" "${RUN_OTHERS_DURING:--}" "${p_rtt:--}" "$([ $flag = loaded ] && echo ' [LOADED]')" \
            $((SECONDS - t0)) "$eta"
    done < "$plan"
}

runs_summary() {
    echo "$RUNS_N runs, $RUNS_FAILED failure(s), $RUNS_RESTARTS restart(s) of runs whose daemons never became ready, $RUNS_LOADED taken under load (kept, flagged); $((SECONDS - RUNS_START)) s"
}

# water_input NMOL NSTEP FILE: Water's standard input (WATER_SPEC.md
# section 1) with NMOL molecules, NSTEP steps and 16 processes; NPRINT
# stays 3 as in the shipped input (so with 2 steps no potential energy is
# computed, as in the SPLASH input the thesis ran).
water_input() {
    printf '  1.5e-16   %d  %d   6\n -1      3000     3  0\n16 6.212752\n' "$1" "$2" > "$3"
}

# water_time DIR: Water's run time (s) from the records of
# tools/thesis/timed-water.sh in the run directory: the last end minus the
# first start over the clusters (launcher and daemon bring-up excluded).
water_time() {
    cat "$1"/time-c*.txt 2>/dev/null |
        awk 'NR==1{s=$1;e=$2} {if($1<s)s=$1; if($2>e)e=$2} END{if (NR) printf "%.4f", (e-s)/1e9}'
}
