/*
 * cpu_work.h - a known amount of CPU work for the tests of time dilation
 * (test_knobs.c, test_mgs_dilate.c): spun until the thread's own CPU clock
 * has advanced by it, so that time spent waiting for a core on a loaded
 * machine does not change it; and the monotonic clock to time it by.
 */
#ifndef INI_TEST_CPU_WORK_H
#define INI_TEST_CPU_WORK_H

#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>

#include "clock.h"

/* The dilated length's stated tolerance: no less than 99% of K x work (the
 * rule's floor, less the clocks' granularity), no more than 20% over (a
 * sleep's overshoot), in the best of three attempts: on a loaded 2-core
 * machine one wake-up can come tens of ms late, and lateness is never
 * negative, so the best attempt is the one the machine disturbed least. */
#define DILATE_TOL_LO 0.99
#define DILATE_TOL_HI 1.20
#define DILATE_ATTEMPTS 3

static inline uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void spin_cpu(uint64_t ns)
{
    uint64_t c0 = ini_thread_cpu_ns();
    volatile uint64_t x = 0;
    while (ini_thread_cpu_ns() - c0 < ns)
        for (int i = 0; i < 1000; i++)
            x += (uint64_t)i;
}

/* 1 when one of DILATE_ATTEMPTS calls of attempt(arg), each a dilated
 * piece of work returning its length in ns, lies within the tolerance of
 * `want` ns; each attempt printed. */
static inline int dilated_within(const char *what, double (*attempt)(void *), void *arg, double want)
{
    for (int i = 0; i < DILATE_ATTEMPTS; i++) {
        double got = attempt(arg);
        printf("%s: %.1f ms for %.1f ms (%.3f)\n", what, got / 1e6, want / 1e6, got / want);
        if (got >= DILATE_TOL_LO * want && got <= DILATE_TOL_HI * want)
            return 1;
    }
    return 0;
}

/* Runs the test as the dilated threads run: their sleeps end when asked
 * (timer slack 1 ns), and a waking thread takes a core at once, not held
 * up behind other work on a loaded machine (nice -15; without the right,
 * said and carried on at normal priority), so that a test shows the
 * dilation rule, not the load.  Called first in main. */
static inline void dilated_thread_priority(void)
{
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    if (setpriority(PRIO_PROCESS, 0, -15) != 0)
        printf("(at normal priority: the dilation tests may see late wake-ups)\n");
}

#endif
