/*
 * bench_handover.c - ini-bench --handover: what handing one core between
 * two processes costs on this machine, the floor under the
 * compute-to-compute round trip when each compute node shares its INI's
 * core (idle.colocate: four hand-overs a round trip, docs/performance.md).
 *
 * Two processes pinned to CPU A pass a counter through a shared line; the
 * one whose turn it is not calls sched_yield until it is, as inid and a
 * waiting compute node do.  A yield that returns within
 * INI_FABRIC_YIELD_KEPT_NS ran no one else (ini/cn/fabric.h: the scheduler
 * kept the caller); they are counted, not acted on, so the figure is the
 * bare mechanism's.
 *
 * Output, one line:  handover ns_per_switch=H kept_per_switch=K
 *   H  median over 7 batches of 20,000 rounds (two switches each), ns
 *   K  yields the scheduler kept, per switch, over all batches
 */
#include "bench/bench.h"
#include "cli.h"
#include "fabric.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

enum { BATCHES = 7, ROUNDS = 20000 };

struct shared {
    _Alignas(64) atomic_uint turn;   /* even: the measuring side's turn */
    atomic_ulong kept;
};

/* Waits for the counter to reach `want`, yielding the core meanwhile. */
static void wait_turn(struct shared *s, unsigned want)
{
    while (atomic_load_explicit(&s->turn, memory_order_acquire) != want)
        if (!ini_fabric_yield())
            atomic_fetch_add_explicit(&s->kept, 1, memory_order_relaxed);
}

int bench_handover_main(int argc, char **argv)
{
    int cpu = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--cores")) {
            long c[2];
            if (bench_parse_list(cli_value(argc, argv, &i), c, 2, 0, 1023) < 1)
                cli_bad_arg("--cores: expected a CPU number A (the first of A,B is used)");
            cpu = (int)c[0];
        } else if (!cli_common_flag(argv[i])) {
            cli_unknown_option(argv[i]);
        }
    }
    struct shared *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED) {
        cli_error("--handover: cannot map a shared page");
        return 1;
    }
    atomic_init(&s->turn, 0);
    atomic_init(&s->kept, 0);
    const unsigned last = 2u * BATCHES * (ROUNDS + 1);
    if (bench_pin_cpu(cpu) != 0) {
        cli_error("--handover: cannot run on CPU %d", cpu);
        return 1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        cli_error("--handover: cannot fork");
        return 1;
    }
    if (pid == 0) {                  /* the answering side, on the same CPU */
        for (unsigned want = 1; want < last; want += 2) {
            wait_turn(s, want);
            atomic_store_explicit(&s->turn, want + 1, memory_order_release);
        }
        _exit(0);
    }
    double hz = (double)bench_tsc_hz(), per[BATCHES];
    unsigned v = 0;
    for (int b = 0; b < BATCHES; b++) {
        /* one untimed round: both sides are running */
        atomic_store_explicit(&s->turn, ++v, memory_order_release);
        wait_turn(s, ++v);
        uint64_t t0 = bench_rdtsc();
        for (int k = 0; k < ROUNDS; k++) {
            atomic_store_explicit(&s->turn, ++v, memory_order_release);
            wait_turn(s, ++v);
        }
        per[b] = (double)(bench_rdtsc() - t0) / hz * 1e9 / ROUNDS / 2;
    }
    int st = 0;
    waitpid(pid, &st, 0);
    printf("handover ns_per_switch=%.1f kept_per_switch=%.4f\n", bench_stat(per, BATCHES).med,
           (double)atomic_load(&s->kept) / (2.0 * BATCHES * (ROUNDS + 1)));
    munmap(s, sizeof(*s));
    return 0;
}
