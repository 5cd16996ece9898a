/*
 * test_loadbal.c - the INI scheduling policies (loadbal/loadbal.h), both
 * decisions: the compute node's choice of its cluster's INI (ini_lb_pe_pick)
 * and the sending INI's choice of the destination cluster's INI
 * (ini_lb_conn_pick).
 *
 *   static        always the assigned INI;
 *   round-robin   every INI in turn: n picks over k INIs give each n/k;
 *   load-aware    the least loaded INI; among equally loaded ones the turn
 *                 moves on round-robin, so ties spread too.
 *
 * Built with loadbal/'s include path alone: the policies need nothing of
 * the daemon or its configuration (tests/module.mk).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "loadbal.h"

/* ---- compute node: which INI of its cluster ---- */

/* Counters an INI publishes in its cluster's segment, here plain memory. */
static _Atomic uint64_t submitted[INI_LB_MAX_CHOICES], processed[INI_LB_MAX_CHOICES];
static _Atomic uint32_t inbound[INI_LB_MAX_CHOICES];

static struct ini_lb_pe pe_lb(enum ini_policy policy, int n_inis, int static_local, uint32_t rr_start)
{
    struct ini_lb_pe lb = { .policy = policy, .n_inis = n_inis, .static_local = static_local,
                            .rr_next = rr_start };
    for (int i = 0; i < n_inis; i++) {
        submitted[i] = processed[i] = 0;
        inbound[i] = 0;
        lb.submitted[i] = &submitted[i];
        lb.processed[i] = &processed[i];
        lb.inbound[i] = &inbound[i];
    }
    return lb;
}

static void test_pe_static(void **state)
{
    struct ini_lb_pe lb = pe_lb(INI_POLICY_STATIC, 4, 2, 0);
    submitted[2] = 1000;            /* loaded or not: static does not look */
    for (int k = 0; k < 100; k++)
        assert_int_equal(ini_lb_pe_pick(&lb), 2);
}

static void test_pe_round_robin_even(void **state)
{
    int count[INI_LB_MAX_CHOICES] = { 0 };
    struct ini_lb_pe lb = pe_lb(INI_POLICY_ROUND_ROBIN, 3, 0, 1);
    int prev = -1;
    for (int k = 0; k < 300; k++) {
        int i = ini_lb_pe_pick(&lb);
        assert_in_range(i, 0, 2);
        assert_int_not_equal(i, prev);           /* never the same twice in a row */
        prev = i;
        count[i]++;
    }
    for (int i = 0; i < 3; i++)
        assert_int_equal(count[i], 100);
    /* Two compute nodes starting at different turns pick differently. */
    struct ini_lb_pe a = pe_lb(INI_POLICY_ROUND_ROBIN, 2, 0, 0), b = pe_lb(INI_POLICY_ROUND_ROBIN, 2, 0, 1);
    assert_int_not_equal(ini_lb_pe_pick(&a), ini_lb_pe_pick(&b));
}

static void test_pe_load_aware_least_loaded(void **state)
{
    struct ini_lb_pe lb = pe_lb(INI_POLICY_LOAD_AWARE, 3, 0, 0);
    submitted[0] = 10; processed[0] = 5;         /* 5 */
    submitted[1] = 10; processed[1] = 9;         /* 1 */
    submitted[2] = 10; processed[2] = 7;         /* 3 */
    for (int k = 0; k < 10; k++)
        assert_int_equal(ini_lb_pe_pick(&lb), 1);
    /* Inbound work counts too. */
    inbound[1] = 5;                               /* 1 + 5 = 6: now INI 2 (3) */
    for (int k = 0; k < 10; k++)
        assert_int_equal(ini_lb_pe_pick(&lb), 2);
    /* Processed ahead of submitted (a compute node counts after it
     * publishes): no load, not a wrapped huge one. */
    submitted[0] = 3;
    processed[0] = 4;
    for (int k = 0; k < 10; k++)
        assert_int_equal(ini_lb_pe_pick(&lb), 0);
}

static void test_pe_load_aware_ties(void **state)
{
    int count[INI_LB_MAX_CHOICES] = { 0 };
    struct ini_lb_pe lb = pe_lb(INI_POLICY_LOAD_AWARE, 4, 0, 0);
    /* All idle: the turn decides, every INI in turn. */
    for (int k = 0; k < 400; k++)
        count[ini_lb_pe_pick(&lb)]++;
    for (int i = 0; i < 4; i++)
        assert_int_equal(count[i], 100);
    /* Two equally least loaded of four: only those two, evenly. */
    memset(count, 0, sizeof count);
    for (int i = 0; i < 4; i++)
        submitted[i] = (i == 1 || i == 3) ? 2 : 6;
    for (int k = 0; k < 400; k++)
        count[ini_lb_pe_pick(&lb)]++;
    assert_int_equal(count[0] + count[2], 0);
    assert_int_equal(count[1], 200);
    assert_int_equal(count[3], 200);
}

/* ---- sending INI: which INI of the destination cluster ---- */

/* Destination cluster 5 has INIs 10, 11, 12; cluster 6 has 20 and 21. */
static const int c5[] = { 10, 11, 12 }, c6[] = { 20, 21 };

static void test_conn_static(void **state)
{
    struct ini_lb_conn lb = { .policy = INI_POLICY_STATIC };
    lb.peer_load[11] = 100;
    for (int k = 0; k < 50; k++) {
        assert_int_equal(ini_lb_conn_pick(&lb, 5, c5, 3, 11), 11);
        assert_int_equal(ini_lb_conn_pick(&lb, 6, c6, 2, 20), 20);
    }
}

static void test_conn_round_robin_even(void **state)
{
    struct ini_lb_conn lb;
    memset(&lb, 0, sizeof lb);
    lb.policy = INI_POLICY_ROUND_ROBIN;
    int count[32] = { 0 };
    for (int k = 0; k < 300; k++) {
        count[ini_lb_conn_pick(&lb, 5, c5, 3, 10)]++;
        if (k % 3 == 0)                           /* the other cluster's turn is its own */
            count[ini_lb_conn_pick(&lb, 6, c6, 2, 20)]++;
    }
    assert_int_equal(count[10], 100);
    assert_int_equal(count[11], 100);
    assert_int_equal(count[12], 100);
    assert_int_equal(count[20], 50);
    assert_int_equal(count[21], 50);
}

static void test_conn_load_aware(void **state)
{
    struct ini_lb_conn lb;
    memset(&lb, 0, sizeof lb);
    lb.policy = INI_POLICY_LOAD_AWARE;
    lb.peer_load[10] = 7, lb.peer_load[11] = 2, lb.peer_load[12] = 9;
    for (int k = 0; k < 30; k++)
        assert_int_equal(ini_lb_conn_pick(&lb, 5, c5, 3, 10), 11);
    /* Ties: every equally loaded INI in turn. */
    int count[32] = { 0 };
    lb.peer_load[10] = lb.peer_load[11] = lb.peer_load[12] = 4;
    for (int k = 0; k < 300; k++)
        count[ini_lb_conn_pick(&lb, 5, c5, 3, 10)]++;
    assert_int_equal(count[10], 100);
    assert_int_equal(count[11], 100);
    assert_int_equal(count[12], 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pe_static),
        cmocka_unit_test(test_pe_round_robin_even),
        cmocka_unit_test(test_pe_load_aware_least_loaded),
        cmocka_unit_test(test_pe_load_aware_ties),
        cmocka_unit_test(test_conn_static),
        cmocka_unit_test(test_conn_round_robin_even),
        cmocka_unit_test(test_conn_load_aware),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
