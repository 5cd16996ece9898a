/*
 * par_mgs.c - par.h over MGS, and the switch between the two implementations.
 *
 * One program binary holds both implementations of par.h: this file defines
 * the par_* functions and forwards each call either to the pthreads
 * implementation (mgs/par_threads.c, compiled a second time with its
 * functions renamed par_threads_*, see mgs/module.mk) or to the MGS one
 * below.  par_use_mgs() before par_init selects MGS.
 *
 * par.h over MGS (SPMD: every cluster process runs the same program)
 *   par_init(P)        attaches MGS; P must equal the compute nodes of the
 *                      configuration (outside the launcher: one cluster of
 *                      P threads, mgs_start_standalone).  Thread ids are
 *                      global: cluster c runs
 *                      threads thread_base(c) .. thread_base(c)+n_pes(c)-1,
 *                      so thread 0 is in cluster 0, the "initial process".
 *   par_malloc         bump allocation in the shared range; every process
 *   par_locks_create   makes the same calls (the set-up is deterministic),
 *                      so addresses and lock ids agree.  Only cluster 0's
 *                      set-up writes count: mgs_begin_parallel publishes them
 *                      and drops every other cluster's (a dry run).
 *   par_run            first call: mgs_begin_parallel (the release of the
 *                      set-up, checked for agreement).  Then the cluster's
 *                      threads run the worker, the caller being the
 *                      cluster's first thread, and finish with a barrier, so
 *                      the return is an acquire of all workers' writes.
 *   par_lock/unlock    MGS locks; par_barrier, par_sum: MGS barrier (par_sum
 *                      adds in thread order, bit-identical to par_threads.c)
 *   par_finalize       mgs_stop: a last barrier, counters, shutdown
 * Allocation after the first par_run is refused (returns NULL/-1): set-up
 * writes are published once.
 */
#include "par.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mgs.h"

/* The pthreads implementation, renamed (mgs/module.mk). */
int par_threads_init(int nthreads);
void par_threads_finalize(void);
void *par_threads_malloc(size_t size);
int par_threads_locks_create(unsigned count, par_lock_t *first);
void par_threads_lock(par_lock_t id);
void par_threads_unlock(par_lock_t id);
void par_threads_barrier(void);
void par_threads_work(uint64_t cycles);
double par_threads_vtime_seconds(void);
void par_threads_sum(double *values, int count);
int par_threads_self(void);
int par_threads_nthreads(void);
int par_threads_run(void (*worker)(void *arg), void *arg);

static bool use_mgs;

void par_use_mgs(void) { use_mgs = true; }
int par_using_mgs(void) { return use_mgs; }

/* ---- the MGS implementation ------------------------------------------------ */

static struct {
    bool initialised;
    bool parallel;        /* mgs_begin_parallel done */
    bool running;
    int nthreads;
    unsigned nlocks;
} pm;

static _Thread_local int self_id = -1;

static void fatal(const char *what)
{
    fprintf(stderr, "par: fatal: %s\n", what);
    abort();
}

static int mgsp_init(int nthreads)
{
    if (pm.initialised || nthreads < 1 || nthreads > PAR_MAX_THREADS)
        return -1;
    char err[512];
    /* Under the launcher the configuration gives the machine; outside it,
     * one cluster of nthreads threads. */
    int rc = mgs_started() || getenv("INI_CONFIG") ? mgs_start(err, sizeof err)
                                                   : mgs_start_standalone(nthreads, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "par: MGS: %s\n", err);
        return -1;
    }
    if (nthreads != mgs_total_threads()) {
        fprintf(stderr, "par: MGS: %d threads requested, but the configuration has %d compute nodes\n",
                nthreads, mgs_total_threads());
        return -1;
    }
    pm.nthreads = nthreads;
    pm.initialised = true;
    return 0;
}

static void *mgsp_malloc(size_t size)
{
    if (!pm.initialised || pm.parallel || size > SIZE_MAX - 64)
        return NULL;
    return mgs_alloc(size ? (size + 63) / 64 * 64 : 64, 64);
}

static int mgsp_locks_create(unsigned count, par_lock_t *first)
{
    if (!pm.initialised || pm.parallel || count == 0 || count > (1u << 30) - pm.nlocks)
        return -1;
    *first = pm.nlocks;
    pm.nlocks += count;
    return 0;
}

struct thread_start {
    int id;
    void (*worker)(void *);
    void *arg;
};

static void run_one(int id, void (*worker)(void *), void *arg)
{
    self_id = id;
    mgs_thread_enter(id);
    worker(arg);
    mgs_barrier(NULL, 0);   /* release this thread's writes; par_run returns after all */
    self_id = -1;
}

static void *thread_main(void *p)
{
    struct thread_start *s = p;
    run_one(s->id, s->worker, s->arg);
    return NULL;
}

/* Virtual time: node `local` of this cluster runs its part (mgs_start_nodes). */
static void node_part(void *p, int local)
{
    struct thread_start *s = p;
    run_one(s->id + local, s->worker, s->arg);
}

/* par_run's threads in virtual time: the cluster's nodes are MGS's own
 * threads, each serving its messages when not working (mgs.h); the last
 * barrier of run_one is the join. */
static void run_virtual(int base, void (*worker)(void *), void *arg)
{
    static struct thread_start job;
    job = (struct thread_start){ base, worker, arg };
    mgs_start_nodes(node_part, &job);
    run_one(base, worker, arg);
}

static int mgsp_run(void (*worker)(void *), void *arg)
{
    if (!pm.initialised || pm.running || !worker)
        return -1;
    if (!pm.parallel) {
        char err[512];
        if (mgs_begin_parallel(pm.nlocks, err, sizeof err) != 0) {
            fprintf(stderr, "par: MGS: %s\n", err);
            return -1;
        }
        pm.parallel = true;
    }
    pm.running = true;
    int cluster = mgs_cluster();
    int local = mgs_local_threads(cluster), base = mgs_thread_base(cluster);
    if (mgs_virtual()) {
        run_virtual(base, worker, arg);
        mgs_thread_enter(base);
        pm.running = false;
        return 0;
    }
    pthread_t threads[PAR_MAX_THREADS];
    struct thread_start starts[PAR_MAX_THREADS];
    for (int i = 1; i < local; i++) {
        starts[i] = (struct thread_start){ base + i, worker, arg };
        /* Other clusters are already running: a partial start cannot be
         * undone, only reported by failing loudly. */
        if (pthread_create(&threads[i], NULL, thread_main, &starts[i]) != 0)
            fatal("cannot start the compute threads of this cluster");
    }
    run_one(base, worker, arg);
    for (int i = 1; i < local; i++)
        pthread_join(threads[i], NULL);
    mgs_thread_enter(base);   /* the caller keeps faulting as a cluster thread */
    pm.running = false;
    return 0;
}

static void mgsp_finalize(void)
{
    if (!pm.initialised || pm.running)
        return;
    mgs_stop();
    pm.initialised = false;
}

/* id, once it is known to name a lock made by par_locks_create (the lock
 * calls of MGS do not check it). */
static par_lock_t checked_lock(par_lock_t id)
{
    if (id >= pm.nlocks)
        fatal("no such lock");
    return id;
}

/* ---- par.h: forward to the selected implementation -------------------------- */

int par_init(int nthreads) { return use_mgs ? mgsp_init(nthreads) : par_threads_init(nthreads); }

void par_finalize(void)
{
    if (use_mgs)
        mgsp_finalize();
    else
        par_threads_finalize();
}

void *par_malloc(size_t size) { return use_mgs ? mgsp_malloc(size) : par_threads_malloc(size); }

int par_locks_create(unsigned count, par_lock_t *first)
{
    return use_mgs ? mgsp_locks_create(count, first) : par_threads_locks_create(count, first);
}

void par_lock(par_lock_t id)
{
    if (use_mgs)
        mgs_lock(checked_lock(id));
    else
        par_threads_lock(id);
}

void par_unlock(par_lock_t id)
{
    if (use_mgs)
        mgs_unlock(checked_lock(id));
    else
        par_threads_unlock(id);
}

void par_barrier(void)
{
    if (use_mgs)
        mgs_barrier(NULL, 0);
    else
        par_threads_barrier();
}

void par_sum(double *values, int count)
{
    if (!use_mgs) {
        par_threads_sum(values, count);
        return;
    }
    if (count < 1 || count > PAR_SUM_MAX || count > MGS_SUM_MAX || self_id < 0)
        fatal("par_sum: bad count or called outside par_run");
    mgs_barrier(values, count);
}

int par_self(void) { return use_mgs ? self_id : par_threads_self(); }
int par_nthreads(void) { return use_mgs ? pm.nthreads : par_threads_nthreads(); }

int par_run(void (*worker)(void *arg), void *arg)
{
    return use_mgs ? mgsp_run(worker, arg) : par_threads_run(worker, arg);
}

void par_work(uint64_t cycles)
{
    if (use_mgs)
        mgs_work_cycles(cycles);
    else
        par_threads_work(cycles);
}

double par_vtime_seconds(void) { return use_mgs ? mgs_vtime_seconds() : par_threads_vtime_seconds(); }
