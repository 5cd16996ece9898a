/*
 * thread_clock.h - a thread's own CPU time, the measure of uniform
 * dilation (docs/config.md, knobs `dilate` and `beta`): an INI's busy turn
 * (ini/daemon/inid_knobs.h), an MGS protocol thread's busy iteration and a
 * compute thread's work between two calls into MGS (mgs/mgs_core.c) each
 * last K times the CPU time they used.
 *
 * Why CPU time and not the TSC of the turn: this machine has 2 cores and
 * 30 and more threads, so the wall time of a piece of work includes the
 * time its thread waited for a core while others ran.  A dedicated
 * processor K times slower would take K times the work, not K times the
 * work plus the preemption; the thread's CPU clock (CLOCK_THREAD_CPUTIME_ID)
 * leaves the preemption out, and the time spent waiting for a core counts
 * toward the K-times-longer end instead of adding to it.
 *
 * The price: the CPU clock is a system call (about 530 ns of CPU here, a
 * virtual machine; the TSC costs about 10 ns), so the dilated paths read
 * it once at each end of a piece of work and never per message, and
 * nothing reads it when dilation is off.  The span between two reads
 * contains about one read's own cost; ini_thread_clock_cost_ns measures
 * it once so that callers take it off.
 */
#ifndef INI_THREAD_CLOCK_H
#define INI_THREAD_CLOCK_H

#include <stdint.h>
#include <time.h>

/* The calling thread's CPU time, ns. */
static inline uint64_t ini_thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The CPU time one read adds to a span measured between two reads: the
 * least of 32 spans with nothing between their reads (the least, so that
 * a span the kernel's tick or an interrupt lengthened does not count). */
static inline uint64_t ini_thread_clock_cost_ns(void)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 32; i++) {
        uint64_t a = ini_thread_cpu_ns(), b = ini_thread_cpu_ns();
        if (b - a < best)
            best = b - a;
    }
    return best;
}

#endif
