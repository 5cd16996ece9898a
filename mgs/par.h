/*
 * par.h - a small portable interface for shared memory and synchronisation,
 * for SPMD applications (SPLASH style) that run P threads over shared data.
 *
 * Design
 * ------
 * The interface is written so that two implementations can sit beneath the
 * same application code:
 *   - par_threads.c: P pthreads in one process;
 *   - par_mgs.c, over MGS (mgs.h), the multigrain distributed shared
 *     memory: several processes, one per cluster, each running some of the
 *     P threads, with the shared range mapped at the same virtual address in
 *     every process.  par_use_mgs() selects it.
 *
 * An application therefore obeys four rules:
 *   1. All data that more than one thread touches lives in memory obtained
 *      from par_malloc(). Workers reach it only through pointers derived from
 *      the argument of par_run() (no shared globals). Pointers into the shared
 *      range are valid in every thread, so they may be stored in shared data.
 *   2. All communication between threads goes through par_lock/par_unlock,
 *      par_barrier and par_sum. The memory model is release consistency:
 *      writes made by one thread are guaranteed visible to another only after
 *      the writer passed a release point (par_unlock, par_barrier, par_sum,
 *      the start of par_run) and the reader then passed a matching acquire
 *      point (par_lock of the same lock, the same barrier or par_sum). No
 *      spinning on shared flags, no atomics, no data races.
 *   3. Thread ids are global, 0..P-1, whatever the split over processes, so
 *      work partitions computed from par_self() and par_nthreads() are the
 *      same under both implementations. Thread 0 runs in the initial process
 *      (the one that called par_run), so it may use that process's stdio.
 *   4. Set-up (par_malloc, par_locks_create) happens in the initial process
 *      before par_run; par_run is a release point for everything written
 *      during set-up, and its return is an acquire of everything the workers
 *      wrote.
 *
 * Locks are small integer ids rather than memory objects, because in a
 * distributed shared memory a lock is a protocol object, not a word of
 * memory; ids can be stored in shared data. There is one global barrier over
 * all P threads. par_sum is a collective, deterministic global sum: every
 * thread contributes a vector, partial vectors are added in thread-id order,
 * and every thread receives the identical result, independent of timing and
 * of how threads are distributed over processes.
 *
 * Error policy: set-up calls report failure by return value; calls made by
 * workers (lock, barrier, sum) cannot fail in a correct program and abort
 * with a message on internal errors.
 */
#ifndef MGS_PAR_H
#define MGS_PAR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest number of threads P supported. */
#define PAR_MAX_THREADS 256
/* Largest vector length of a single par_sum call. */
#define PAR_SUM_MAX 16

/* A lock id (see par_locks_create). */
typedef unsigned par_lock_t;

/* Prepares for P = nthreads threads (1..PAR_MAX_THREADS). Call once, before
 * any other function. Returns 0, or -1 if nthreads is out of range or the
 * implementation cannot start. */
int par_init(int nthreads);

/* Releases everything par_init, par_malloc and par_locks_create acquired.
 * Pointers from par_malloc become invalid. Call after the last par_run. */
void par_finalize(void);

/* Allocates size bytes of zero-filled shared memory, aligned to 64 bytes.
 * Set-up only (initial process, outside par_run). Returns NULL on failure. */
void *par_malloc(size_t size);

/* Creates count consecutive locks and returns the id of the first one; the
 * others are first+1 .. first+count-1. Set-up only. Returns 0 on success
 * with *first set, -1 on failure. */
int par_locks_create(unsigned count, par_lock_t *first);

/* Acquires / releases a lock (acquire and release points). */
void par_lock(par_lock_t id);
void par_unlock(par_lock_t id);

/* Waits until all P threads have arrived (release then acquire point). */
void par_barrier(void);

/* Collective over all P threads: on entry values[0..count-1] hold this
 * thread's partial sums; on return they hold, in every thread, the sums over
 * threads 0..P-1 taken in thread-id order (v0 + v1 + ... + v(P-1), left to
 * right), bit-identical in all threads and in every run. Includes a barrier.
 * count is 1..PAR_SUM_MAX. */
void par_sum(double *values, int count);

/* This thread's global id (0..P-1) and P. Inside par_run only for par_self;
 * par_nthreads works anywhere after par_init. */
int par_self(void);
int par_nthreads(void);

/* Runs worker(arg) on all P threads; the caller becomes thread 0 and the
 * call returns when every worker has returned. arg should point into shared
 * memory (or be NULL). Returns 0, or -1 if the threads could not be started
 * (then no worker has run). */
int par_run(void (*worker)(void *arg), void *arg);

/* Declares `cycles` of computing done by the calling thread since its last
 * par_* call, in cycles of the emulated machine: in MGS's virtual-time
 * mode its node's clock moves on by them (mgs_work_cycles, ini_work_cycles);
 * elsewhere nothing.  A program that declares its work runs the same to
 * the cycle every time (docs/virtual-time.md). */
void par_work(uint64_t cycles);
/* The calling thread's clock in emulated seconds in MGS's virtual-time
 * mode (its node's), -1 elsewhere: a program times its phases with it on
 * the emulated machine and with its own clock otherwise. */
double par_vtime_seconds(void);

#ifdef __cplusplus
}
#endif

#endif /* MGS_PAR_H */
