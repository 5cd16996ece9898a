/*
 * test_knobs.c - the knob stage of inid (ini/daemon/inid_knobs.h): off when every
 * knob is zero, the units, the held deliveries (order, due times, full),
 * the Δg/ΔG gate, O's draws, the virtual service clock, and uniform
 * dilation.
 *
 * The clock is the CPU's TSC, as in the daemon; the tests check orderings
 * and bounds that hold whatever the machine's speed.  Dilation's tests are
 * the exception, by their nature: a known amount of CPU work (cpu_work.h)
 * must take K*beta times as long, within the tolerance cpu_work.h states.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "cpu_work.h"
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

/* ---- uniform dilation ---- */

/* The TSC's rate, measured against the monotonic clock over 20 ms. */
static uint64_t tsc_rate(void)
{
    static uint64_t hz;
    if (!hz) {
        uint64_t n0 = mono_ns(), t0 = rte_rdtsc();
        while (mono_ns() - n0 < 20000000)
            ;
        hz = (uint64_t)((double)(rte_rdtsc() - t0) * 1e9 / (double)(mono_ns() - n0));
    }
    return hz;
}

static struct inid_knobs *dilated(double K, double beta)
{
    struct ini_knobs cfg = { .dilate = K, .beta = beta };
    struct inid_knobs *k = calloc(1, sizeof(*k));
    assert_non_null(k);
    inid_knobs_init(k, &cfg, tsc_rate(), 0);
    return k;
}

/* One dilated turn of `work_ns` of CPU work: its length in ns, begun to
 * the end of the wait. */
static double turn_ns(struct inid_knobs *k, uint64_t work_ns)
{
    uint64_t t0 = rte_rdtsc(), end;
    inid_knobs_turn_begin(k);
    spin_cpu(work_ns);
    inid_knobs_dilate(k, t0, t0, &end);
    return (double)(rte_rdtsc() - t0) * 1e9 / (double)tsc_rate();
}

static void test_dilation_config(void **state)
{
    struct inid_knobs *off = dilated(0, 0), *k = dilated(10, 0), *kb = dilated(10, 2);
    assert_true(off->dil.factor == 0);
    assert_true(k->dil.factor == 10);       /* beta 0: 1 */
    assert_true(kb->dil.factor == 20);
    assert_true(kb->dil.clock_cost_ns > 0 && kb->dil.clock_cost_ns < 100000);
    assert_int_equal(off->dil.clock_cost_ns, 0);   /* never read when off */
    free(off);
    free(k);
    free(kb);
}

struct turn_case {
    double K, beta;
    uint64_t work_ns;
};

/* One turn of the case's work on a fresh stage; the counters checked. */
static double one_turn(void *arg)
{
    const struct turn_case *c = arg;
    struct inid_knobs *k = dilated(c->K, c->beta);
    double got = turn_ns(k, c->work_ns);
    assert_int_equal(k->dil.turns, 1);
    /* the counted CPU time is the work's, the clock reads' cost off */
    assert_true(k->dil.cpu_ns >= c->work_ns && k->dil.cpu_ns < c->work_ns + 1000000);
    free(k);
    return got;
}

/* A busy turn of 8 ms of CPU work lasts K x 8 ms, and K x beta x 8 ms. */
static void test_dilation_known_work(void **state)
{
    struct turn_case k10 = { 10, 1, 8000000 }, k5b3 = { 5, 3, 8000000 };
    assert_true(dilated_within("INI turn, K = 10", one_turn, &k10, 80e6));
    assert_true(dilated_within("INI turn, K = 5, beta = 3", one_turn, &k5b3, 120e6));
}

/* An idle INI is not slowed: after an idle spell the next turn lasts K
 * times its own work, not more (no debt), and the idle time cost nothing
 * (no turn counted). */
static double turn_after_idle(void *arg)
{
    struct inid_knobs *k = dilated(20, 1);
    turn_ns(k, 2000000);
    uint64_t waited = k->dil.extra_cycles;
    struct timespec ts = { 0, 200000000 };
    nanosleep(&ts, NULL);                   /* idle: no turn did work */
    assert_int_equal(k->dil.turns, 1);
    assert_true(k->dil.extra_cycles == waited);
    double got = turn_ns(k, *(uint64_t *)arg);
    free(k);
    return got;
}

static void test_dilation_idle_not_slowed(void **state)
{
    uint64_t work = 2000000;
    assert_true(dilated_within("INI turn after an idle spell, K = 20", turn_after_idle, &work, 40e6));
}

/* A turn whose wall time was longer than K times its CPU time (its thread
 * waited for a core) is not stretched further: the preemption counts
 * toward the dilated length. */
static void test_dilation_preempted(void **state)
{
    struct inid_knobs *k = dilated(4, 1);
    uint64_t t0 = rte_rdtsc(), end, work_end;
    inid_knobs_turn_begin(k);
    struct timespec ts = { 0, 50000000 };
    nanosleep(&ts, NULL);                   /* 50 ms off the CPU, about no CPU time */
    end = inid_knobs_dilate(k, t0, t0, &work_end);
    double got = (double)(rte_rdtsc() - t0) * 1e9 / (double)tsc_rate();
    assert_true(end <= work_end);           /* no wait */
    assert_true(got < 60e6);
    free(k);
}

static int polls;
static uint64_t poll_last;
static int count_poll(void *ctx, uint64_t now)
{
    assert_true(now >= poll_last);
    poll_last = now;
    polls++;
    return *(int *)ctx;
}

/* While it waits, the stage looks for arrivals every INID_DILATE_POLL_US. */
static void test_dilation_polls(void **state)
{
    struct inid_knobs *k = dilated(50, 1);
    int zero = 0;
    k->dil.poll = count_poll;
    k->dil.poll_ctx = &zero;
    polls = 0;
    double got = turn_ns(k, 1000000);       /* 50 ms of dilated turn */
    int most = (int)(got / 1000 / INID_DILATE_POLL_US) + 1;
    print_message("a 50 ms wait polled %d times (at most %d)\n", polls, most);
    assert_true(polls >= 1 && polls <= most);
    assert_int_equal(k->dil.polls, (uint64_t)polls);
    free(k);
}

int main(void)
{
    dilated_thread_priority();   /* as inid with dilation on (cpu_work.h) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_off_by_default),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_held_for_O_due_at_once),
        cmocka_unit_test(test_held_for_latency),
        cmocka_unit_test(test_held_full),
        cmocka_unit_test(test_gap),
        cmocka_unit_test(test_draw_O),
        cmocka_unit_test(test_virtual_clock),
        cmocka_unit_test(test_dilation_config),
        cmocka_unit_test(test_dilation_known_work),
        cmocka_unit_test(test_dilation_idle_not_slowed),
        cmocka_unit_test(test_dilation_preempted),
        cmocka_unit_test(test_dilation_polls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
