/*
 * clockshift.c - an LD_PRELOAD library for tests: CLOCK_MONOTONIC reads
 * CLOCK_SHIFT_MS milliseconds later than the host's (negative: earlier), as
 * if the host had been up that much longer.  vtime_host_clock.sh runs a
 * program under two shifts to show the host's clock does not reach its
 * virtual time.  Test-only: never linked into the project.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

int clock_gettime(clockid_t id, struct timespec *ts)
{
    static int (*real)(clockid_t, struct timespec *);
    static long long shift_ns;
    static int ready;
    if (!ready) {
        real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
        const char *s = getenv("CLOCK_SHIFT_MS");
        shift_ns = s ? atoll(s) * 1000000LL : 0;
        ready = 1;
    }
    int r = real(id, ts);
    if (r == 0 && id == CLOCK_MONOTONIC && shift_ns != 0) {
        long long ns = (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec + shift_ns;
        if (ns < 0)
            ns = 0;
        ts->tv_sec = (time_t)(ns / 1000000000LL);
        ts->tv_nsec = (long)(ns % 1000000000LL);
    }
    return r;
}
