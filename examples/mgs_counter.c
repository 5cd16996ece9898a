/*
 * mgs_counter.c - a counter in MGS shared memory, incremented under a lock
 * by every compute thread of every cluster.
 *
 *     ini-cluster run conf/default.cfg -- ./mgs_counter [INCREMENTS]
 *
 * MGS (mgs.h) makes one address range shared by the threads of all cluster
 * processes; par.h is the small SPMD interface on top of it (the same one
 * runs on plain threads).  Every cluster process runs this same program:
 *
 *   set-up   every process makes the same par_malloc / par_locks_create
 *            calls in the same order, so they all get the same addresses
 *            and lock ids; cluster 0's set-up writes are the ones that count
 *   par_run  one thread per compute node runs worker(); thread ids are
 *            global (0..P-1) over all clusters
 *   worker   INCREMENTS times: lock, counter++, unlock; then a barrier,
 *            after which every thread must see P x INCREMENTS
 *
 * The memory model is release consistency: a write is visible to another
 * thread once the writer released (unlock, barrier) and the reader acquired
 * (lock of the same lock, the same barrier).  So the counter is only ever
 * touched under its lock, and read without it only after the barrier.
 * Each cluster process prints
 * "mgs_counter: cluster C: counter V, expected X, E errors" (E summed over
 * every thread of every cluster) and exits 1 if E > 0.
 */
#include <stdio.h>
#include <stdlib.h>

#include <ini/mgs.h>
#include <ini/par.h>

struct shared {                 /* lives in the shared range (par_malloc) */
    long counter;
    par_lock_t lock;
    int increments;
};

/* Private to this process, written by the cluster's first thread (the one
 * that called par_run) and read by it after par_run returns. */
static long seen_counter;
static double total_errors;

static void worker(void *arg)
{
    struct shared *sh = arg;    /* a pointer into the shared range: valid in every thread */
    int n = sh->increments;     /* set-up data, published by par_run */
    for (int i = 0; i < n; i++) {
        par_lock(sh->lock);
        sh->counter++;
        par_unlock(sh->lock);
    }
    par_barrier();              /* every increment is visible after this */

    long want = (long)par_nthreads() * n;
    long got = sh->counter;
    double errors = got != want;
    if (errors)
        fprintf(stderr, "mgs_counter: thread %d sees %ld, expected %ld\n", par_self(), got, want);
    par_sum(&errors, 1);        /* a summing barrier: every thread gets the total */

    if (par_self() == mgs_thread_base(mgs_cluster())) {
        seen_counter = got;
        total_errors = errors;
    }
}

int main(int argc, char **argv)
{
    int increments = argc > 1 ? atoi(argv[1]) : 200;
    if (increments <= 0) {
        fprintf(stderr, "usage: mgs_counter [INCREMENTS]\n");
        return 2;
    }
    char err[256];
    if (mgs_start(err, sizeof err) != 0) {      /* attach to the INIs; map the range */
        fprintf(stderr, "mgs_counter: %s (run me under ini-cluster run)\n", err);
        return 2;
    }
    par_use_mgs();                              /* par.h over MGS, not plain threads */
    int nthreads = mgs_total_threads();         /* P: every compute node of the machine */
    if (par_init(nthreads) != 0) {
        fprintf(stderr, "mgs_counter: par_init(%d) failed\n", nthreads);
        return 1;
    }

    /* Set-up: the same calls in every process. */
    struct shared *sh = par_malloc(sizeof *sh);
    if (!sh || par_locks_create(1, &sh->lock) != 0) {
        fprintf(stderr, "mgs_counter: set-up failed\n");
        return 1;
    }
    sh->counter = 0;
    sh->increments = increments;

    if (par_run(worker, sh) != 0) {
        fprintf(stderr, "mgs_counter: cannot start the threads\n");
        return 1;
    }
    /* par_run's return is an acquire: the workers' writes are visible here. */
    long want = (long)nthreads * increments;
    printf("mgs_counter: cluster %d: counter %ld, expected %ld, %.0f errors\n", mgs_cluster(), seen_counter,
           want, total_errors);
    par_finalize();                             /* last barrier, counters, shutdown */
    return total_errors != 0 || seen_counter != want ? 1 : 0;
}
