/*
 * test_mgs_dilate.c - MGS's time dilation (mgs/mgs_dilate.c) on its own: a
 * known amount of CPU work (spun until the thread's CPU clock has advanced
 * by it, so that preemption does not change it) takes K times as long in a
 * compute thread (from its mark to its next call into MGS) and in the
 * protocol thread (a busy iteration), within the tolerance cpu_work.h
 * states;
 * the counters show it; work whose wall time already exceeded K times its
 * CPU time is not stretched further; the environment is checked.
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
#include "mgs_internal.h"




static struct mgs *dilated(double compute, double protocol)
{
    struct mgs *g = calloc(1, sizeof *g);
    assert_non_null(g);
    g->dilate = compute;
    g->dilate_protocol = protocol;
    g->clock_cost_ns = ini_thread_clock_cost_ns();
    return g;
}

/* A compute thread: 10 ms of work between two calls into MGS lasts K x 10
 * ms, counted from its mark. */
static double compute_work(void *arg)
{
    struct mgs *g = dilated(8, 1);
    uint64_t t0 = mono_ns();
    mgs_dilate_mark(g, 0);
    spin_cpu(10000000);
    mgs_dilate_compute(g);
    double got = (double)(mono_ns() - t0);
    struct mgs_counters c;
    memset(&c, 0, sizeof c);
    mgs_dilate_counters(g, &c);
    assert_true(c.dilate_sleeps <= 1);       /* none if the work's wall time was longer already */
    assert_true(c.dilate_cpu_us >= 10000 && c.dilate_cpu_us < 11000);
    assert_true(c.dilate_span_us >= 8 * c.dilate_cpu_us * DILATE_TOL_LO);
    assert_int_equal(c.protocol_dilate_sleeps, 0);
    free(g);
    return got;
}

static void test_compute_thread(void **state)
{
    assert_true(dilated_within("compute thread, K = 8", compute_work, NULL, 80e6));
}

/* The protocol thread: a busy iteration of 10 ms of work lasts K x 10 ms. */
static double protocol_work(void *arg)
{
    struct mgs *g = dilated(1, 6);
    struct mgs_dilate_turn t;
    uint64_t t0 = mono_ns();
    mgs_dilate_protocol_begin(g, &t);
    spin_cpu(10000000);
    mgs_dilate_protocol_end(g, &t);
    double got = (double)(mono_ns() - t0);
    struct mgs_counters c;
    memset(&c, 0, sizeof c);
    mgs_dilate_counters(g, &c);
    assert_true(c.protocol_dilate_sleeps <= 1);
    assert_true(c.protocol_dilate_cpu_us >= 10000 && c.protocol_dilate_cpu_us < 11000);
    assert_int_equal(c.dilate_sleeps, 0);
    free(g);
    return got;
}

static void test_protocol_thread(void **state)
{
    assert_true(dilated_within("protocol thread, K = 6", protocol_work, NULL, 60e6));
}

/* Off (factor 1): nothing is read or slept. */
static void test_off(void **state)
{
    struct mgs *g = dilated(1, 1);
    struct mgs_dilate_turn t = { 0, 0 };
    mgs_dilate_mark(g, 0);
    mgs_dilate_protocol_begin(g, &t);
    assert_int_equal(t.cpu0, 0);
    spin_cpu(1000000);
    mgs_dilate_compute(g);
    mgs_dilate_protocol_end(g, &t);
    struct mgs_counters c;
    memset(&c, 0, sizeof c);
    mgs_dilate_counters(g, &c);
    assert_int_equal(c.dilate_cpu_us + c.protocol_dilate_cpu_us + c.dilate_sleeps + c.protocol_dilate_sleeps, 0);
    free(g);
}

/* Work that waited off the CPU for longer than K times its CPU time (as a
 * preempted thread does) is not stretched: its wall time counts. */
static void test_preempted(void **state)
{
    struct mgs *g = dilated(1, 3);
    struct mgs_dilate_turn t;
    uint64_t t0 = mono_ns();
    mgs_dilate_protocol_begin(g, &t);
    struct timespec ts = { 0, 40000000 };
    nanosleep(&ts, NULL);
    mgs_dilate_protocol_end(g, &t);
    assert_true(mono_ns() - t0 < 100000000);     /* not 3 x 40 ms */
    struct mgs_counters c;
    memset(&c, 0, sizeof c);
    mgs_dilate_counters(g, &c);
    assert_int_equal(c.protocol_dilate_sleeps, 0);
    free(g);
}

/* The environment: factors 1..1000, a bad one refused with its name. */
static void test_env(void **state)
{
    struct mgs *g = dilated(1, 1);
    char err[256];
    setenv("MGS_DILATE", "300", 1);
    setenv("MGS_DILATE_PROTOCOL", "120", 1);
    assert_int_equal(mgs_dilate_read_env(g, err, sizeof err), 0);
    assert_true(g->dilate == 300 && g->dilate_protocol == 120);
    unsetenv("MGS_DILATE");
    unsetenv("MGS_DILATE_PROTOCOL");
    assert_int_equal(mgs_dilate_read_env(g, err, sizeof err), 0);
    assert_true(g->dilate == 1 && g->dilate_protocol == 1);   /* no INIs, no knob: off */
    setenv("MGS_DILATE_PROTOCOL", "0.5", 1);
    assert_int_equal(mgs_dilate_read_env(g, err, sizeof err), -1);
    assert_string_equal(err, "MGS_DILATE_PROTOCOL=0.5: expected a factor from 1 to 1000");
    unsetenv("MGS_DILATE_PROTOCOL");
    free(g);
}

int main(void)
{
    dilated_thread_priority();   /* as the dilated threads (cpu_work.h) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compute_thread),
        cmocka_unit_test(test_protocol_thread),
        cmocka_unit_test(test_off),
        cmocka_unit_test(test_preempted),
        cmocka_unit_test(test_env),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
