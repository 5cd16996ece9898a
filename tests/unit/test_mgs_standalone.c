/*
 * test_mgs_standalone.c - MGS in one process without INIs
 * (mgs_start_standalone: one cluster, every home local).  The protocol runs
 * as across clusters, minus the network: faults trapped and served by the
 * protocol thread, fetches from the master copies, twins, releases at
 * barriers, single-writer grants, lock hand-offs, summing barriers.
 *
 * One scenario (MGS starts once per process): set-up data published at the
 * start, 4 threads that increment a counter under a lock, write their own
 * bytes of shared words, and meet at summing barriers; the contents and the
 * counters are checked.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mgs.h"

#define THREADS 4
#define ITERS 2000

static uint64_t *counter;
static uint8_t *bytes;          /* THREADS x 64 bytes, interleaved by thread */
static uint64_t *setup_data;    /* written during set-up */
static size_t setup_words;
static int sum_errors;

static void *thread_main(void *arg)
{
    int id = (int)(intptr_t)arg;
    mgs_thread_enter(id);
    for (size_t i = 0; i < setup_words; i++)
        if (setup_data[i] != i * 7 + 1)
            __atomic_fetch_add(&sum_errors, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < ITERS; i++) {
        mgs_lock(0);
        (*counter)++;
        mgs_unlock(0);
        if (i % 500 == 0) {
            for (int k = 0; k < 64; k++)
                bytes[k * THREADS + id] = (uint8_t)(i / 500 + id + k);
            double v[2] = { id == 0 ? 1e16 : 1.0, (double)id };
            mgs_barrier(v, 2);
            double expect0 = 1e16;
            for (int t = 1; t < THREADS; t++)
                expect0 = expect0 + 1.0;   /* thread order, left to right */
            if (v[0] != expect0 || v[1] != 0.0 + 1.0 + 2.0 + 3.0)
                __atomic_fetch_add(&sum_errors, 1, __ATOMIC_RELAXED);
            for (int t = 0; t < THREADS; t++)
                for (int k = 0; k < 64; k++)
                    if (bytes[k * THREADS + t] != (uint8_t)(i / 500 + t + k))
                        __atomic_fetch_add(&sum_errors, 1, __ATOMIC_RELAXED);
            mgs_barrier(NULL, 0);
        }
    }
    mgs_barrier(NULL, 0);
    return NULL;
}

static void test_standalone(void **state)
{
    char err[256];
    assert_int_equal(mgs_start_standalone(THREADS, err, sizeof err), 0);
    assert_int_equal(mgs_n_clusters(), 1);
    assert_int_equal(mgs_total_threads(), THREADS);
    counter = mgs_alloc(sizeof *counter, 64);
    bytes = mgs_alloc(64 * THREADS, 64);
    setup_words = 3 * mgs_unit_size() / sizeof(uint64_t);
    setup_data = mgs_alloc(setup_words * sizeof(uint64_t), mgs_unit_size());
    assert_non_null(counter);
    assert_non_null(bytes);
    assert_non_null(setup_data);
    assert_true((uintptr_t)setup_data >= (uintptr_t)mgs_base());
    for (size_t i = 0; i < setup_words; i++)
        setup_data[i] = i * 7 + 1;
    assert_int_equal(mgs_begin_parallel(2, err, sizeof err), 0);
    assert_null(mgs_alloc(64, 64));   /* set-up is over */

    pthread_t th[THREADS];
    for (int t = 1; t < THREADS; t++)
        assert_int_equal(pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t), 0);
    thread_main((void *)0);
    for (int t = 1; t < THREADS; t++)
        pthread_join(th[t], NULL);

    assert_int_equal(sum_errors, 0);
    assert_int_equal(*counter, (uint64_t)THREADS * ITERS);
    struct mgs_counters c;
    mgs_get_counters(&c);
    assert_true(c.read_faults + c.write_faults > 0);
    assert_true(c.pages_fetched >= 4);          /* counter, bytes, 3 set-up units at least */
    assert_true(c.sw_grants > 0);               /* one cluster: every release grants */
    assert_int_equal(c.barriers, 2 * (ITERS / 500) + 1 + 1);   /* + the start barrier */
    assert_true(c.lock_acquires >= (uint64_t)THREADS * ITERS);
    for (int t = 1; t < MGS_M_TYPES; t++)
        assert_int_equal(c.msg[t].sent, 0);     /* nothing crossed an INI */
    assert_true(c.msg[MGS_M_RREQ].local + c.msg[MGS_M_WREQ].local > 0);

    mgs_stop();
    mgs_get_counters(&c);   /* still readable after the stop */
    assert_int_equal(*(volatile int *)&sum_errors, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_standalone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
