/*
 * test_knobs.c - the knob stage of inid (ini/inid_knobs.h): off when every
 * knob is zero, the units, the held deliveries (order, due times, full),
 * the Δg/ΔG gate, O's draws, and the virtual service clock.
 *
 * The clock is the CPU's TSC, as in the daemon; the tests check orderings
 * and bounds that hold whatever the machine's speed, never a duration.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "inid_knobs.h"

#define HZ 1000000000ull        /* 1 GHz: one cycle per ns, whatever the CPU's */

static struct inid_knobs *new_knobs(const struct ini_knobs *cfg)
{
    struct inid_knobs *k = calloc(1, sizeof(*k));
    assert_non_null(k);
    inid_knobs_init(k, cfg, HZ, 0);
    return k;
}

static void test_off_by_default(void **state)
{
    struct ini_knobs cfg = { 0 };
    struct inid_knobs *k = new_knobs(&cfg);
    assert_int_equal(k->rx_on, 0);
    assert_int_equal(k->tx_on, 0);
    assert_int_equal(inid_knobs_spend_O(k, 1, 1), 0);
    inid_knobs_tx_sent(k, 1000);
    assert_int_equal(k->next_tx, 0);
    assert_int_equal(inid_knobs_tx_wait(k), 0);
    assert_int_equal(inid_knobs_held(k), 0);
    assert_null(inid_knobs_next_due(k, UINT64_MAX));
    assert_true(inid_knobs_deadline(k, 1) == UINT64_MAX);
    free(k);
}

static void test_units(void **state)
{
    struct ini_knobs cfg = { .O_us = 2, .gap_us = 3, .per_byte_ns = 0.5, .latency_us = 7 };
    struct inid_knobs *k = new_knobs(&cfg);
    assert_int_equal(k->O, 2000);
    assert_int_equal(k->gap, 3000);
    assert_true(k->per_byte > 0.49 && k->per_byte < 0.51);
    assert_int_equal(k->latency, 7000);
    assert_int_equal(k->rx_on, 1);
    assert_int_equal(k->tx_on, 1);
    /* ΔG alone turns the gate on; ΔL alone the held deliveries. */
    struct ini_knobs g = { .per_byte_ns = 1 }, l = { .latency_us = 1 };
    struct inid_knobs *kg = new_knobs(&g), *kl = new_knobs(&l);
    assert_int_equal(kg->tx_on, 1);
    assert_int_equal(kg->rx_on, 0);
    assert_int_equal(kl->tx_on, 0);
    assert_int_equal(kl->rx_on, 1);
    free(k);
    free(kg);
    free(kl);
}

static void hold(struct inid_knobs *k, uintptr_t tag)
{
    struct inid_held *x = inid_knobs_hold_slot(k);
    assert_non_null(x);
    *x = (struct inid_held){ .p = (struct pbuf *)tag, .off = 16, .pe = 1 };
    inid_knobs_hold(k, x);
}

/* O alone: a held delivery is due at once, and released in order. */
static void test_held_for_O_due_at_once(void **state)
{
    struct ini_knobs cfg = { .O_us = 1 };
    struct inid_knobs *k = new_knobs(&cfg);
    hold(k, 1);
    hold(k, 2);
    assert_int_equal(inid_knobs_held(k), 2);
    assert_true(inid_knobs_deadline(k, 0) == 0);
    struct inid_held *x = inid_knobs_next_due(k, 0);
    assert_non_null(x);
    assert_int_equal(x->delayed, 0);
    assert_ptr_equal(x->p, (struct pbuf *)1);
    inid_knobs_release(k);
    assert_ptr_equal(inid_knobs_next_due(k, 0)->p, (struct pbuf *)2);
    inid_knobs_release(k);
    assert_null(inid_knobs_next_due(k, UINT64_MAX));
    free(k);
}

/* ΔL: due ΔL after it was held; the deadline names it; in order. */
static void test_held_for_latency(void **state)
{
    struct ini_knobs cfg = { .latency_us = 1000 };
    struct inid_knobs *k = new_knobs(&cfg);
    uint64_t before = rte_rdtsc();
    hold(k, 1);
    hold(k, 2);
    uint64_t after = rte_rdtsc();
    struct inid_held *x = &k->held[k->head % INID_HELD];
    assert_int_equal(x->delayed, 1);
    assert_true(x->due >= before + 1000000 && x->due <= after + 1000000);
    assert_null(inid_knobs_next_due(k, x->due - 1));
    assert_true(inid_knobs_deadline(k, 0) == x->due);
    assert_ptr_equal(inid_knobs_next_due(k, x->due), x);
    inid_knobs_release(k);
    assert_ptr_equal(inid_knobs_next_due(k, UINT64_MAX)->p, (struct pbuf *)2);
    free(k);
}

static void test_held_full(void **state)
{
    struct ini_knobs cfg = { .latency_us = 1 };
    struct inid_knobs *k = new_knobs(&cfg);
    for (int i = 0; i < INID_HELD; i++)
        hold(k, (uintptr_t)i + 1);
    assert_null(inid_knobs_hold_slot(k));
    inid_knobs_release(k);
    assert_non_null(inid_knobs_hold_slot(k));
    free(k);
}

/* Δg/ΔG: the gap after a message grows with its bytes; the deadline
 * names its end only while messages wait for it. */
static void test_gap(void **state)
{
    struct ini_knobs cfg = { .gap_us = 1000000, .per_byte_ns = 1000 };
    struct inid_knobs *k = new_knobs(&cfg);
    assert_int_equal(inid_knobs_tx_wait(k), 0);
    uint64_t before = rte_rdtsc();
    inid_knobs_tx_sent(k, 100);
    assert_true(k->next_tx >= before + 1000000000ull + 100000);
    assert_int_equal(inid_knobs_tx_wait(k), 1);
    assert_true(inid_knobs_deadline(k, 1) == k->next_tx);
    assert_true(inid_knobs_deadline(k, 0) == UINT64_MAX);
    free(k);
}

/* Fixed O is O; exponential O has mean O, and is the same sequence for
 * the same INI. */
static void test_draw_O(void **state)
{
    struct ini_knobs fixed = { .O_us = 5 }, exp = { .O_us = 5, .O_exp = 1 };
    struct inid_knobs *kf = new_knobs(&fixed), *ke = new_knobs(&exp), *ke2 = new_knobs(&exp);
    assert_int_equal(inid_knobs_draw_O(kf), 5000);
    double sum = 0;
    const int n = 200000;
    for (int i = 0; i < n; i++) {
        uint64_t o = inid_knobs_draw_O(ke);
        assert_int_equal(o, inid_knobs_draw_O(ke2));
        sum += (double)o;
    }
    double mean = sum / n;
    assert_true(mean > 4900 && mean < 5100);
    free(kf);
    free(ke);
    free(ke2);
}

/* The virtual clock: a service ends at max(arrival, previous end) + work +
 * extra, and the stage waits until then; a message that arrives while the
 * previous one is served starts at that one's end. */
static void test_virtual_clock(void **state)
{
    struct ini_knobs cfg = { .O_us = 20 };
    struct inid_knobs *k = new_knobs(&cfg);
    uint64_t t0 = rte_rdtsc();
    inid_knobs_spend(k, t0, t0, 20000);
    uint64_t end1 = k->until;
    assert_true(end1 >= t0 + 20000);
    assert_true(k->left >= end1);           /* waited until the end */
    /* Arrived before the first one ended: queued behind it. */
    inid_knobs_spend(k, t0 + 1, k->left, 20000);
    assert_true(k->until >= end1 + 20000);
    assert_true(k->left >= k->until);
    /* Behind the clock (the service should have ended long ago, as after
     * a late wake-up): no wait, the clock keeps its own time. */
    k->until = 0;
    uint64_t now = rte_rdtsc();
    inid_knobs_spend(k, 1, now, 1000);
    assert_true(k->until < now);
    assert_true(k->left >= now);
    free(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_off_by_default),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_held_for_O_due_at_once),
        cmocka_unit_test(test_held_for_latency),
        cmocka_unit_test(test_held_full),
        cmocka_unit_test(test_gap),
        cmocka_unit_test(test_draw_O),
        cmocka_unit_test(test_virtual_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
