/*
 * bench_probe.c - ini-bench --probe: the machine's state in a few
 * milliseconds, for the experiments to record beside every run.
 *
 * This VM runs in two states hours apart: memif's raw 8-byte round trip
 * is 0.5 us in the fast one and 1.3-1.9 us in the slow one, and two quiet
 * grids made hours apart differed by 12-43% in cells no code change
 * touched (docs/experiments.md, "The two grids' common cells differ").
 * memif's round trip is mostly the cost of handing cache lines from one
 * core to the other, which every INI-to-compute-node handover pays too,
 * so the probe measures that alone: two threads pinned to CPUs A and B
 * pass a counter back and forth through one cache line; and a fixed loop
 * of dependent arithmetic on CPU A gives the core's own speed beside it.
 * Whether these two tell the states apart is for the recorded runs to
 * show; the probe only makes it possible to ask.
 *
 * Output, one line:  probe rtt_ns=R spin_ns=S
 *   R  median over 7 batches of 2,000 round trips, ns per round trip
 *   S  median over 7 runs of the same 200,000-step loop, ns per step
 * A machine under load reads slower in both; that is the experiments'
 * load columns' business, not the probe's.
 */
#include "bench/bench.h"
#include "cli.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { BATCHES = 7, ROUND_TRIPS = 2000, SPIN_STEPS = 200000 };

struct line {
    _Alignas(64) atomic_uint v;      /* odd: the answering thread's turn */
    int cpu;
};

static void *answer(void *arg)
{
    struct line *l = arg;
    bench_pin_cpu(l->cpu);
    for (unsigned want = 1; want < 2u * BATCHES * (ROUND_TRIPS + 1); want += 2) {
        while (atomic_load_explicit(&l->v, memory_order_acquire) != want)
            __builtin_ia32_pause();
        atomic_store_explicit(&l->v, want + 1, memory_order_release);
    }
    return NULL;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), by_value);
    return v[n / 2];
}

/* ns per step of a chain of dependent multiply-adds: the core's speed. */
static double spin_ns(void)
{
    double hz = (double)bench_tsc_hz(), v[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        volatile uint64_t sink;
        uint64_t x = 1, t0 = bench_rdtsc();
        for (int i = 0; i < SPIN_STEPS; i++)
            x = x * 6364136223846793005ull + 1442695040888963407ull;
        sink = x;
        (void)sink;
        v[b] = (double)(bench_rdtsc() - t0) / hz * 1e9 / SPIN_STEPS;
    }
    return median(v, BATCHES);
}

int bench_probe_main(int argc, char **argv)
{
    int cores[2] = { 0, 1 };
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--cores")) {
            long c[2];
            long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
            if (bench_parse_list(cli_value(argc, argv, &i), c, 2, 0, ncpu > 0 ? ncpu - 1 : 1023) != 2)
                cli_bad_arg("--cores: expected two CPU numbers A,B of this machine (0..%ld)", ncpu - 1);
            /* Two spinning threads on one CPU pass the line once a
             * scheduler tick: minutes, not milliseconds, and no answer. */
            if (c[0] == c[1])
                cli_bad_arg("--cores: %ld,%ld: the probe needs two different CPUs", c[0], c[1]);
            cores[0] = (int)c[0];
            cores[1] = (int)c[1];
        } else if (!cli_common_flag(argv[i])) {
            cli_unknown_option(argv[i]);
        }
    }
    static struct line l;
    atomic_init(&l.v, 0);
    l.cpu = cores[1];
    if (bench_pin_cpu(cores[0]) != 0) {
        cli_error("--probe: cannot run on CPU %d", cores[0]);
        return 1;
    }
    pthread_t th;
    if (pthread_create(&th, NULL, answer, &l) != 0) {
        cli_error("--probe: cannot start the answering thread");
        return 1;
    }
    double hz = (double)bench_tsc_hz(), rtt[BATCHES];
    unsigned v = 0;
    for (int b = 0; b < BATCHES; b++) {
        /* one untimed round trip: both threads are running and warm */
        atomic_store_explicit(&l.v, ++v, memory_order_release);
        while (atomic_load_explicit(&l.v, memory_order_acquire) != v + 1)
            __builtin_ia32_pause();
        v++;
        uint64_t t0 = bench_rdtsc();
        for (int k = 0; k < ROUND_TRIPS; k++) {
            atomic_store_explicit(&l.v, ++v, memory_order_release);
            while (atomic_load_explicit(&l.v, memory_order_acquire) != v + 1)
                __builtin_ia32_pause();
            v++;
        }
        rtt[b] = (double)(bench_rdtsc() - t0) / hz * 1e9 / ROUND_TRIPS;
    }
    pthread_join(th, NULL);
    printf("probe rtt_ns=%.1f spin_ns=%.3f\n", median(rtt, BATCHES), spin_ns());
    return 0;
}
