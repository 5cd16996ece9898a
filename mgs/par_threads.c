/*
 * par_threads.c - par.h over POSIX threads in a single process.
 *
 * Shared memory is ordinary heap memory (every thread sees it at the same
 * address, trivially). Locks are pthread mutexes kept in a table indexed by
 * lock id; each set-up call allocates one block of mutexes, so mutexes never
 * move once created (POSIX forbids copying them). The barrier is one
 * pthread_barrier for all P threads. par_sum uses two alternating slot
 * tables so that a single barrier per call suffices: a thread can only write
 * the table of call k+2 after everyone has passed the barrier of call k+1,
 * i.e. after everyone finished reading the table of call k.
 *
 * par_run starts P-1 threads that first wait at a start gate; only when all
 * of them exist are they released, so a failed pthread_create can be undone
 * without any worker having run (a partial start would deadlock at the first
 * barrier).
 */
#include "par.h"

#include <pthread.h>
#include <stdbool.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every allocation made for the application or for lock blocks, so that
 * par_finalize can release them. */
struct allocation {
    struct allocation *next;
    void *memory;
};

struct lock_block {
    struct lock_block *next;
    pthread_mutex_t *mutexes;
    unsigned count;
};

enum gate_state { GATE_WAIT, GATE_GO, GATE_ABORT };

struct start_gate {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    enum gate_state state;
};

struct worker_start {
    int id;
    void (*worker)(void *);
    void *arg;
    struct start_gate *gate;
};

static struct {
    bool initialised;
    bool running;
    int nthreads;
    pthread_barrier_t barrier;
    struct allocation *allocations;
    struct lock_block *lock_blocks;
    pthread_mutex_t **lock_table; /* lock id -> mutex */
    unsigned nlocks;
    unsigned lock_capacity;
    double (*sum_slots)[PAR_MAX_THREADS][PAR_SUM_MAX]; /* [2] tables */
} par;

static _Thread_local int self_id = -1;
static _Thread_local unsigned sum_calls; /* parity selects the slot table */

static void fatal(const char *what)
{
    fprintf(stderr, "par: fatal: %s\n", what);
    abort();
}

int par_init(int nthreads)
{
    if (par.initialised || nthreads < 1 || nthreads > PAR_MAX_THREADS)
        return -1;
    par.sum_slots = calloc(2, sizeof *par.sum_slots);
    if (!par.sum_slots)
        return -1;
    if (pthread_barrier_init(&par.barrier, NULL, (unsigned)nthreads) != 0) {
        free(par.sum_slots);
        par.sum_slots = NULL;
        return -1;
    }
    par.nthreads = nthreads;
    par.initialised = true;
    return 0;
}

void par_finalize(void)
{
    if (!par.initialised || par.running)
        return;
    while (par.allocations) {
        struct allocation *a = par.allocations;
        par.allocations = a->next;
        free(a->memory);
        free(a);
    }
    while (par.lock_blocks) {
        struct lock_block *b = par.lock_blocks;
        par.lock_blocks = b->next;
        for (unsigned i = 0; i < b->count; i++)
            pthread_mutex_destroy(&b->mutexes[i]);
        free(b->mutexes);
        free(b);
    }
    free(par.lock_table);
    free(par.sum_slots);
    pthread_barrier_destroy(&par.barrier);
    memset(&par, 0, sizeof par);
}

void *par_malloc(size_t size)
{
    if (!par.initialised || par.running || size > SIZE_MAX - 64)
        return NULL;
    size_t rounded = (size + 63) / 64 * 64; /* aligned_alloc wants a multiple */
    if (rounded == 0)
        rounded = 64;
    struct allocation *a = malloc(sizeof *a);
    void *memory = aligned_alloc(64, rounded);
    if (!a || !memory) {
        free(a);
        free(memory);
        return NULL;
    }
    memset(memory, 0, rounded);
    a->memory = memory;
    a->next = par.allocations;
    par.allocations = a;
    return memory;
}

int par_locks_create(unsigned count, par_lock_t *first)
{
    if (!par.initialised || par.running || count == 0 ||
        par.nlocks > UINT_MAX / 4 || count > UINT_MAX / 4 - par.nlocks) /* room to double the table */
        return -1;
    if (par.nlocks + count > par.lock_capacity) {
        unsigned capacity = par.lock_capacity ? par.lock_capacity : 64;
        while (capacity < par.nlocks + count)
            capacity *= 2;
        pthread_mutex_t **table = realloc(par.lock_table, capacity * sizeof *table);
        if (!table)
            return -1;
        par.lock_table = table;
        par.lock_capacity = capacity;
    }
    struct lock_block *block = malloc(sizeof *block);
    pthread_mutex_t *mutexes = calloc(count, sizeof *mutexes);
    if (!block || !mutexes) {
        free(block);
        free(mutexes);
        return -1;
    }
    for (unsigned i = 0; i < count; i++) {
        pthread_mutex_init(&mutexes[i], NULL);
        par.lock_table[par.nlocks + i] = &mutexes[i];
    }
    block->mutexes = mutexes;
    block->count = count;
    block->next = par.lock_blocks;
    par.lock_blocks = block;
    *first = par.nlocks;
    par.nlocks += count;
    return 0;
}

void par_lock(par_lock_t id)
{
    if (id >= par.nlocks)
        fatal("par_lock: no such lock");
    if (pthread_mutex_lock(par.lock_table[id]) != 0)
        fatal("par_lock: pthread_mutex_lock failed");
}

void par_unlock(par_lock_t id)
{
    if (id >= par.nlocks)
        fatal("par_unlock: no such lock");
    if (pthread_mutex_unlock(par.lock_table[id]) != 0)
        fatal("par_unlock: pthread_mutex_unlock failed");
}

void par_barrier(void)
{
    int rc = pthread_barrier_wait(&par.barrier);
    if (rc != 0 && rc != PTHREAD_BARRIER_SERIAL_THREAD)
        fatal("par_barrier: pthread_barrier_wait failed");
}

void par_sum(double *values, int count)
{
    if (count < 1 || count > PAR_SUM_MAX || self_id < 0)
        fatal("par_sum: bad count or called outside par_run");
    double (*slots)[PAR_SUM_MAX] = par.sum_slots[sum_calls & 1];
    sum_calls++;
    memcpy(slots[self_id], values, (size_t)count * sizeof *values);
    par_barrier();
    for (int k = 0; k < count; k++) {
        double total = slots[0][k];
        for (int t = 1; t < par.nthreads; t++)
            total = total + slots[t][k];
        values[k] = total;
    }
}

int par_self(void)
{
    return self_id;
}

int par_nthreads(void)
{
    return par.nthreads;
}

static void *worker_main(void *opaque)
{
    struct worker_start *start = opaque;
    struct start_gate *gate = start->gate;
    pthread_mutex_lock(&gate->mutex);
    while (gate->state == GATE_WAIT)
        pthread_cond_wait(&gate->cond, &gate->mutex);
    enum gate_state state = gate->state;
    pthread_mutex_unlock(&gate->mutex);
    if (state == GATE_GO) {
        self_id = start->id;
        sum_calls = 0;
        start->worker(start->arg);
    }
    return NULL;
}

static void open_gate(struct start_gate *gate, enum gate_state state)
{
    pthread_mutex_lock(&gate->mutex);
    gate->state = state;
    pthread_cond_broadcast(&gate->cond);
    pthread_mutex_unlock(&gate->mutex);
}

int par_run(void (*worker)(void *arg), void *arg)
{
    if (!par.initialised || par.running || !worker)
        return -1;
    int others = par.nthreads - 1;
    pthread_t *threads = calloc((size_t)others + 1, sizeof *threads);
    struct worker_start *starts = calloc((size_t)others + 1, sizeof *starts);
    if (!threads || !starts) {
        free(threads);
        free(starts);
        return -1;
    }
    struct start_gate gate = { .state = GATE_WAIT };
    pthread_mutex_init(&gate.mutex, NULL);
    pthread_cond_init(&gate.cond, NULL);

    par.running = true;
    int created = 0;
    for (; created < others; created++) {
        struct worker_start *s = &starts[created];
        *s = (struct worker_start){ .id = created + 1, .worker = worker, .arg = arg, .gate = &gate };
        if (pthread_create(&threads[created], NULL, worker_main, s) != 0)
            break;
    }
    bool started = created == others;
    open_gate(&gate, started ? GATE_GO : GATE_ABORT);
    if (started) {
        self_id = 0;
        sum_calls = 0;
        worker(arg);
        self_id = -1;
    }
    for (int i = 0; i < created; i++)
        pthread_join(threads[i], NULL);
    par.running = false;

    pthread_cond_destroy(&gate.cond);
    pthread_mutex_destroy(&gate.mutex);
    free(threads);
    free(starts);
    return started ? 0 : -1;
}

/* Threads keep no emulated clock. */
void par_work(uint64_t cycles) { (void)cycles; }
double par_vtime_seconds(void) { return -1; }
