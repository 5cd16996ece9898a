/*
 * clock.h - the clocks every part of the system reads, written once:
 * the monotonic clock in ns (ini_mono_ns), an absolute sleep on it that
 * survives signals (ini_sleep_until_ns), a thread's own CPU time
 * (ini_thread_cpu_ns) and uniform dilation's rule over both
 * (ini_dilate_until).
 *
 * A thread's own CPU time is the measure of uniform
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
#ifndef INI_CLOCK_H
#define INI_CLOCK_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

/* A clock's reading in ns. */
static inline uint64_t ini_clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The monotonic clock, ns: every wall-clock span and deadline. */
static inline uint64_t ini_mono_ns(void)
{
    return ini_clock_ns(CLOCK_MONOTONIC);
}

/* Sleeps until the monotonic clock reads `until_ns`.  An absolute
 * deadline, so that a signal or a late wake-up does not add to the wait. */
static inline void ini_sleep_until_ns(uint64_t until_ns)
{
    struct timespec ts = { (time_t)(until_ns / 1000000000u), (long)(until_ns % 1000000000u) };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

/* The calling thread's CPU time, ns. */
static inline uint64_t ini_thread_cpu_ns(void)
{
    return ini_clock_ns(CLOCK_THREAD_CPUTIME_ID);
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

/* Uniform dilation's rule: a piece of work that began at wall-clock
 * `wall0_ns` with the thread's CPU clock at `cpu0_ns` ends, on a processor
 * `k` times slower, at wall0 + k * c, where c is the CPU it used less one
 * read's own cost (`clock_cost_ns`).  Returns that end on the monotonic
 * clock and stores c in *cpu_ns; the caller sleeps until it (or not, when
 * it is past) and counts what it wants. */
static inline uint64_t ini_dilate_until(double k, uint64_t clock_cost_ns, uint64_t cpu0_ns,
                                        uint64_t wall0_ns, uint64_t *cpu_ns)
{
    uint64_t cpu = ini_thread_cpu_ns() - cpu0_ns;
    cpu = cpu > clock_cost_ns ? cpu - clock_cost_ns : 0;
    *cpu_ns = cpu;
    return wall0_ns + (uint64_t)(k * (double)cpu);
}

#endif
