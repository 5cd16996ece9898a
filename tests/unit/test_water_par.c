/*
 * test_water_par.c - the portable interface mgs/par.h beneath Water, as
 * implemented by par_threads.c: set-up rules, global thread ids, mutual
 * exclusion, the barrier, and the deterministic thread-order sum.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "par.h"

enum { THREADS = 8, INCREMENTS = 20000, ROUNDS = 50 };

/* Everything the workers share, in par_malloc memory. */
struct shared {
    par_lock_t lock;
    long counter;
    int id_seen[PAR_MAX_THREADS];
    int nthreads_seen[PAR_MAX_THREADS];
    long round_slot[PAR_MAX_THREADS];
    int barrier_errors;
    double sums[ROUNDS][PAR_MAX_THREADS][3]; /* every thread's par_sum result */
    bool malloc_refused[PAR_MAX_THREADS];
};

static void test_init_checks_range(void **state)
{
    (void)state;
    assert_int_equal(par_init(0), -1);
    assert_int_equal(par_init(PAR_MAX_THREADS + 1), -1);
    assert_null(par_malloc(16)); /* no set-up before par_init */
    assert_int_equal(par_init(2), 0);
    assert_int_equal(par_init(2), -1); /* only once */
    assert_int_equal(par_nthreads(), 2);
    assert_int_equal(par_self(), -1); /* not inside par_run */
    par_finalize();
}

static void test_malloc_is_zeroed_and_aligned(void **state)
{
    (void)state;
    assert_int_equal(par_init(1), 0);
    for (size_t size = 0; size < 300; size += 37) {
        unsigned char *p = par_malloc(size);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 64, 0);
        for (size_t i = 0; i < size; i++)
            assert_int_equal(p[i], 0);
    }
    par_lock_t a, b;
    assert_int_equal(par_locks_create(3, &a), 0);
    assert_int_equal(par_locks_create(1, &b), 0);
    assert_int_equal(b, a + 3); /* consecutive ids */
    par_finalize();
}

/* par_init(n) and the threads' shared state, from par_malloc (zeroed). */
static struct shared *start_shared(int n)
{
    assert_int_equal(par_init(n), 0);
    struct shared *s = par_malloc(sizeof *s);
    assert_non_null(s);
    return s;
}

static void ids_and_locks(void *arg)
{
    struct shared *s = arg;
    int self = par_self();
    s->id_seen[self]++;
    s->nthreads_seen[self] = par_nthreads();
    s->malloc_refused[self] = par_malloc(8) == NULL; /* set-up only */
    for (int i = 0; i < INCREMENTS; i++) {
        par_lock(s->lock);
        s->counter = s->counter + 1; /* a lost update would show in the total */
        par_unlock(s->lock);
    }
}

static void test_ids_and_mutual_exclusion(void **state)
{
    (void)state;
    struct shared *s = start_shared(THREADS);
    assert_int_equal(par_locks_create(1, &s->lock), 0);
    assert_int_equal(par_run(ids_and_locks, s), 0);
    for (int t = 0; t < THREADS; t++) {
        assert_int_equal(s->id_seen[t], 1); /* ids 0..P-1, each exactly once */
        assert_int_equal(s->nthreads_seen[t], THREADS);
        assert_true(s->malloc_refused[t]);
    }
    assert_int_equal(s->counter, (long)THREADS * INCREMENTS);
    /* par_run can be called again */
    assert_int_equal(par_run(ids_and_locks, s), 0);
    assert_int_equal(s->counter, 2L * THREADS * INCREMENTS);
    par_finalize();
}

static void barrier_rounds(void *arg)
{
    struct shared *s = arg;
    int self = par_self(), n = par_nthreads();
    for (long round = 1; round <= ROUNDS; round++) {
        s->round_slot[self] = round;
        par_barrier();
        /* everyone has written this round, nobody can have written the next */
        for (int t = 0; t < n; t++)
            if (s->round_slot[t] != round) {
                par_lock(s->lock);
                s->barrier_errors++;
                par_unlock(s->lock);
            }
        par_barrier();
    }
}

static void test_barrier(void **state)
{
    (void)state;
    struct shared *s = start_shared(THREADS);
    assert_int_equal(par_locks_create(1, &s->lock), 0);
    assert_int_equal(par_run(barrier_rounds, s), 0);
    assert_int_equal(s->barrier_errors, 0);
    par_finalize();
}

/* Partials chosen so that the sum depends on the order of addition. */
static double partial(int thread, int round, int k)
{
    if (k == 0)
        return thread == 0 ? 1e16 : 1.0 + round; /* small terms lost or not, by order */
    if (k == 1)
        return (thread % 2 ? -1.0 : 1.0) * (0.1 * thread + round);
    return 1.0 / (3.0 + thread + round);
}

static void sum_rounds(void *arg)
{
    struct shared *s = arg;
    int self = par_self();
    for (int round = 0; round < ROUNDS; round++) {
        double v[3];
        for (int k = 0; k < 3; k++)
            v[k] = partial(self, round, k);
        par_sum(v, 3);
        memcpy(s->sums[round][self], v, sizeof v);
    }
}

static void test_sum_is_in_thread_order_everywhere(void **state)
{
    (void)state;
    const int counts[] = { 1, 3, THREADS, 17 };
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        int n = counts[c];
        struct shared *s = start_shared(n);
        assert_int_equal(par_run(sum_rounds, s), 0);
        for (int round = 0; round < ROUNDS; round++)
            for (int k = 0; k < 3; k++) {
                double expected = partial(0, round, k);
                for (int t = 1; t < n; t++)
                    expected = expected + partial(t, round, k);
                for (int t = 0; t < n; t++)
                    assert_true(s->sums[round][t][k] == expected);
            }
        par_finalize();
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_checks_range),
        cmocka_unit_test(test_malloc_is_zeroed_and_aligned),
        cmocka_unit_test(test_ids_and_mutual_exclusion),
        cmocka_unit_test(test_barrier),
        cmocka_unit_test(test_sum_is_in_thread_order_everywhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
