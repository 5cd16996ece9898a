/*
 * mgs_dilate.c - time dilation of MGS's threads (docs/mgs.md): a compute
 * node, and with uniform dilation the cluster's protocol thread, run as
 * dedicated processors K times slower.
 *
 * One rule for both: a piece of work that began at wall-clock time w0 with
 * the thread's CPU clock at c0, and used c of CPU time (one clock read's
 * own cost off, ini/util/clock.h), must have taken K*c of wall-clock
 * time; the thread sleeps until w0 + K*c.  Time it spent waiting for a
 * core already counts toward that end, so on a machine with fewer cores
 * than threads a preempted thread is not slowed twice.  Asleep, the thread
 * leaves the cores to the others, so the machine's own costs (a wake-up,
 * a sleep's overshoot, a system call) become small beside the dilated
 * work, as they were beside the thesis's 20 MHz processors
 * (docs/experiments.md).
 *
 *   compute threads   the work between two calls into MGS: marked when a
 *                     call returns (mgs_dilate_mark), settled when the next
 *                     one begins (mgs_dilate_compute), in the fault handler
 *                     too (clock_gettime and clock_nanosleep are
 *                     async-signal-safe).  MGS_DILATE, else the
 *                     configuration's `dilate` knob.
 *   protocol thread   every iteration of its loop that did work (handlers
 *                     run, requests served, messages sent): on Alewife the
 *                     handlers ran on the compute processors, which were K
 *                     times slower too.  MGS_DILATE_PROTOCOL, else the
 *                     `dilate` knob.  One thread serves every node of the
 *                     cluster, so its dilated handlers queue behind each
 *                     other where Alewife's nodes ran theirs in parallel
 *                     (docs/mgs.md says so).
 *
 * Each kind counts its CPU time and the wall-clock span of its dilated
 * work (work plus sleep), so that a run shows span / CPU = K.
 */
#include "mgs_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

#include "clock.h"

/* Dilation (MGS_DILATE): the thread CPU and wall-clock time, in ns, when
 * the compute thread last came back from MGS. */
static _Thread_local uint64_t tls_mark_cpu_ns, tls_mark_wall_ns;

/* The rule (above): sleeps until w0 + k*c; counts c, the span and the
 * sleep. */
static void settle(struct mgs_dilation *dl, double k, uint64_t cost_ns, uint64_t cpu0, uint64_t wall0)
{
    uint64_t cpu;
    uint64_t until = ini_dilate_until(k, cost_ns, cpu0, wall0, &cpu);
    uint64_t now = ini_mono_ns();
    if (now < until) {
        ini_sleep_until_ns(until);
        atomic_fetch_add_explicit(&dl->sleeps, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&dl->sleep_ns, until - now, memory_order_relaxed);
        now = ini_mono_ns();
    }
    atomic_fetch_add_explicit(&dl->cpu_ns, cpu, memory_order_relaxed);
    atomic_fetch_add_explicit(&dl->span_ns, now - wall0, memory_order_relaxed);
}

void mgs_dilate_compute(struct mgs *g)
{
    if (g->dilate > 1.0 && tls_mark_wall_ns)
        settle(&g->compute, g->dilate, g->clock_cost_ns, tls_mark_cpu_ns, tls_mark_wall_ns);
}

void mgs_dilate_mark(const struct mgs *g, int thread)
{
    if (g->dilate <= 1.0 || thread < 0)
        return;
    tls_mark_cpu_ns = ini_thread_cpu_ns();
    tls_mark_wall_ns = ini_mono_ns();
}

void mgs_dilate_protocol_begin(const struct mgs *g, struct mgs_dilate_turn *t)
{
    if (g->dilate_protocol > 1.0) {
        t->cpu0 = ini_thread_cpu_ns();
        t->wall0 = ini_mono_ns();
    }
}

void mgs_dilate_protocol_end(struct mgs *g, const struct mgs_dilate_turn *t)
{
    if (g->dilate_protocol > 1.0)
        settle(&g->protocol, g->dilate_protocol, g->clock_cost_ns, t->cpu0, t->wall0);
}

/* A dilated thread's own setting: its sleeps end when asked, not up to
 * the kernel's default 50 us later. */
static void exact_sleeps(double k)
{
    if (k > 1.0)
        prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
}

void mgs_dilate_compute_thread(const struct mgs *g, int thread)
{
    exact_sleeps(g->dilate);
    mgs_dilate_mark(g, thread);
}

void mgs_dilate_protocol_thread(const struct mgs *g)
{
    exact_sleeps(g->dilate_protocol);
}

static void copy(const struct mgs_dilation *dl, uint64_t *sleeps, uint64_t *sleep_us, uint64_t *cpu_us,
                 uint64_t *span_us)
{
    *sleeps = atomic_load_explicit(&dl->sleeps, memory_order_relaxed);
    *sleep_us = atomic_load_explicit(&dl->sleep_ns, memory_order_relaxed) / 1000;
    *cpu_us = atomic_load_explicit(&dl->cpu_ns, memory_order_relaxed) / 1000;
    *span_us = atomic_load_explicit(&dl->span_ns, memory_order_relaxed) / 1000;
}

void mgs_dilate_counters(struct mgs *g, struct mgs_counters *out)
{
    copy(&g->compute, &out->dilate_sleeps, &out->dilate_sleep_us, &out->dilate_cpu_us, &out->dilate_span_us);
    copy(&g->protocol, &out->protocol_dilate_sleeps, &out->protocol_dilate_sleep_us, &out->protocol_dilate_cpu_us,
         &out->protocol_dilate_span_us);
}

/* One factor from the environment, else `fallback`: 1..1000. */
static int read_factor(const char *name, double fallback, double *out, char *err, size_t errlen)
{
    const char *v = getenv(name);
    *out = fallback;
    if (!v || !*v)
        return 0;
    char *end;
    *out = strtod(v, &end);
    if (*end || !(*out >= 1.0 && *out <= 1000.0)) {
        snprintf(err, errlen, "%s=%s: expected a factor from 1 to 1000", name, v);
        return -1;
    }
    return 0;
}

int mgs_dilate_read_env(struct mgs *g, char *err, size_t errlen)
{
    /* Uniform dilation: the configuration's `dilate` knob (ini-cluster run
     * --knob dilate=K) slows every processor, these threads included. */
    double knob = g->cn ? ini_cn_config(g->cn)->knobs.dilate : 0.0;
    double fallback = knob >= 1.0 ? knob : 1.0;
    if (read_factor("MGS_DILATE", fallback, &g->dilate, err, errlen) < 0 ||
        read_factor("MGS_DILATE_PROTOCOL", fallback, &g->dilate_protocol, err, errlen) < 0)
        return -1;
    if (g->dilate > 1.0 || g->dilate_protocol > 1.0)
        g->clock_cost_ns = ini_thread_clock_cost_ns();
    return 0;
}
