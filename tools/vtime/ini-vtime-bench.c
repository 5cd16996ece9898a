/*
 * ini-vtime-bench - what the virtual-time machine's turn costs on this host: the
 * host time of one hand-over of the turn between two processors, as
 * threads of one process and as two processes sharing the segment (inid
 * and a cluster's compute nodes are processes), and of an event that
 * keeps the turn (no hand-over).  Prints one line per figure: the median
 * of `--runs` runs of `--events` events each, with the least and the
 * greatest.
 *
 *   ini-vtime-bench [--events N] [--runs R]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "clock.h"
#include "vt_machine.h"

struct bench { struct ini_vt_machine *m; uint32_t events; int keep; };

/* Slot `id` takes its turns: at 2i + id when the two alternate, at i
 * when slot 0 alone has events (slot 1 waits for nothing). */
static void take_turns(struct bench *b, uint32_t id)
{
    uint64_t t, next = b->keep ? (id ? INI_VT_NEVER : 0) : id;
    for (uint32_t i = 0; i < b->events; i++) {
        if (ini_vt_wait_turn(b->m, id, next, &t) != INI_VT_GRANTED)
            break;
        if (b->keep && id)
            break;
        next = b->keep ? t + 1 : t + 2;
    }
    ini_vt_done(b->m, id);
}

static void *slot1(void *arg)
{
    take_turns(arg, 1);
    return NULL;
}

static struct ini_vt_machine *shared_machine(void)
{
    char err[128];
    struct ini_vt_machine *m = mmap(NULL, ini_vt_size(2), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || ini_vt_init(m, 2, 20000000, err, sizeof err) < 0) {
        cli_error("the machine: %s", m == MAP_FAILED ? "mmap failed" : err);
        exit(1);
    }
    return m;
}

/* ns per event of one run: `procs` 0 threads, 1 processes. */
static double one_run(uint32_t events, int procs, int keep)
{
    struct bench b = { shared_machine(), events, keep };
    uint64_t t0 = ini_mono_ns();
    if (procs) {
        pid_t pid = fork();
        if (pid == 0) {
            take_turns(&b, 1);
            _exit(0);
        }
        take_turns(&b, 0);
        waitpid(pid, NULL, 0);
    } else {
        pthread_t th;
        pthread_create(&th, NULL, slot1, &b);
        take_turns(&b, 0);
        pthread_join(th, NULL);
    }
    double ns = (double)(ini_mono_ns() - t0) / (keep ? events : 2.0 * events);
    munmap(b.m, ini_vt_size(2));
    return ns;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void figure(const char *what, uint32_t events, uint32_t runs, int procs, int keep)
{
    double v[64];
    for (uint32_t r = 0; r < runs; r++)
        v[r] = one_run(events, procs, keep);
    qsort(v, runs, sizeof v[0], cmp_double);
    printf("%-34s median %8.0f ns  (%0.f-%0.f over %u runs of %u events)\n", what, v[runs / 2], v[0], v[runs - 1],
           runs, events);
}

int main(int argc, char **argv)
{
    cli_init("ini-vtime-bench", "usage: ini-vtime-bench [--events N] [--runs R]\n"
                         "  the host time of the virtual-time machine's turn: a hand-over between two\n"
                         "  threads, between two processes, and an event that keeps the turn\n");
    uint32_t events = 20000, runs = 5;
    const char *a;
    for (int i = 0; (a = cli_next_arg(argc, argv, &i));) {
        if (!strcmp(a, "--events"))
            events = (uint32_t)cli_parse_long(a, cli_value(argc, argv, &i), 1, 10000000);
        else if (!strcmp(a, "--runs"))
            runs = (uint32_t)cli_parse_long(a, cli_value(argc, argv, &i), 1, 64);
        else
            cli_unknown_option(a);
    }
    figure("hand-over, threads", events, runs, 0, 0);
    figure("hand-over, processes", events, runs, 1, 0);
    figure("event keeping the turn", events, runs, 0, 1);
    return 0;
}
