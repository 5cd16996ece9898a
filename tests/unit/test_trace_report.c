/*
 * test_trace_report.c - the numbers of `ini-trace report` (tools/trace/
 * report.c) on hand-built runs, each worked out by hand in the comments.
 *
 *   two_clusters    tables 5.1 / 5.2 and 5.3: one INI per cluster, three
 *                   messages from INI 0 to INI 1 (detailed)
 *   misrouting      table 5.6: a cluster of two INIs (detailed), then the
 *                   same run in summary mode (service start reconstructed)
 *   same instant    two messages pulled in the same loop turn
 *   drops           a trace whose buffer filled up
 *   pow2 buckets    more than 16 distinct lengths
 *   printing        text, CSV and JSON carry the tables and the n/a cases
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report.h"
#include "trace_file.h"
#include "trace_fixtures/trace_fixture.h"

#define HZ 2000000000ull       /* 2 GHz: one cycle is 0.5 ns */

static void near(double got, double want, const char *what)
{
    if (!(fabs(got - want) <= 1e-9 * (fabs(want) > 1 ? fabs(want) : 1)))
        fail_msg("%s: got %.12g, want %.12g", what, got, want);
}

static void build(const char *dir, struct trace_run *run, struct report *rep)
{
    char err[TRACE_ERR_LEN];
    if (trace_run_load(run, dir, err, sizeof(err)) < 0)
        fail_msg("load: %s", err);
    if (report_build(rep, run, err, sizeof(err)) < 0)
        fail_msg("report: %s", err);
}

/* ---- tables 5.1, 5.2, 5.3 -------------------------------------------- */

/*
 * Cluster 0 = INI 0 (PEs 0, 1), cluster 1 = INI 1 (PEs 2, 3), run
 * [1000, 11000] (10000 cycles) on both, 2 GHz.
 *
 * INI 0, outbound     t0    t1    t2    t3    t4    t5  | hndl queue win UDP   IP  total | t5-t1
 *   m1 len 100 q0   1000  1100  1150  1200  1300  1500  |  100   50  50  100  200   500 |  400
 *   m2 len 100 q1   1300  1400  1500  1560  1660  1900  |  100  100  60  100  240   600 |  500
 *   m3 len 2000 q0  3000  3100  3110  3150  3350  4350  |  100   10  40  200 1000  1350 | 1250
 * INI 1, inbound      t1    t2    t3    t4    t5    t6  | queue  IP UDP  win deliv total
 *   r1 len 100 q0   1600  1620  1700  1800  1830  1900  |   20   80 100   30   70   300
 *   r2 len 100 q2   2000  2100  2180  2300  2330  2400  |  100   80 120   30   70   400
 *   r3 len 2000 q0  4500  4500  5500  5700  5740  5800  |    0 1000 200   40   60  1300
 *
 * Table 5.1, len 100: handler 100, queue 75, win 55, UDP 100, IP 220, total 550
 *            len 2000: 100, 10, 40, 200, 1000, 1350; all: 100, 160/3, 50, 400/3, 480, 2450/3
 * Table 5.2, len 100: queue 60, IP 80, UDP 110, win 30, delivery 70, total 350
 *            len 2000: 0, 1000, 200, 40, 60, 1300
 * ns = cycles / 2.
 *
 * Table 5.3:
 *   INI 0: msg len 2200/3; send time (400+500+1250)/3 = 2150/3; no inbound
 *          queue length = sum(t5 - t1) / run = 2150/10000 = 0.215
 *          at arrival (0+1+0)/3; busy = [1150,1500] + [1500,1900] + [3110,4350]
 *          = 350 + 400 + 1240 = 1990, utilization 0.199
 *   INI 1: recv time (300+400+1300)/3 = 2000/3; queue 2000/10000 = 0.2;
 *          at arrival 2/3; busy 280 + 300 + 1300 = 1880, utilization 0.188
 *   all:   msg len 4400/6, msg time 2150/3 + 2000/3 = 4150/3 (ns: half),
 *          queue (0.215 + 0.2)/2, at arrival 3/6, utilization (0.199 + 0.188)/2
 */
static char *two_clusters_run(enum ini_trace_mode mode)
{
    char *dir = fx_mkdir();
    struct ini_trace t;
    assert_int_equal(fx_init(&t, mode, 16, HZ, 0, 0, 0, 1, 2, 1000, 11000), 0);
    fx_out(&t, 0, 2, 1, 100, 0, 1000, 1100, 1150, 1200, 1300, 1500);
    fx_out(&t, 1, 3, 1, 100, 1, 1300, 1400, 1500, 1560, 1660, 1900);
    fx_out(&t, 0, 3, 1, 2000, 0, 3000, 3100, 3110, 3150, 3350, 4350);
    assert_int_equal(fx_write(&t, dir), 0);
    assert_int_equal(fx_init(&t, mode, 16, HZ, 1, 1, 0, 1, 2, 1000, 11000), 0);
    fx_in(&t, 0, 2, 0, 100, 0, 1600, 1620, 1700, 1800, 1830, 1900);
    fx_in(&t, 1, 3, 0, 100, 2, 2000, 2100, 2180, 2300, 2330, 2400);
    fx_in(&t, 0, 3, 0, 2000, 0, 4500, 4500, 5500, 5700, 5740, 5800);
    assert_int_equal(fx_write(&t, dir), 0);
    return dir;
}

static void check_bucket(const struct report_bucket *b, uint32_t lo, uint32_t hi, uint64_t count,
                         const double want[REPORT_COLS])
{
    assert_int_equal(b->len_lo, lo);
    assert_int_equal(b->len_hi, hi);
    assert_int_equal(b->count, count);
    for (int c = 0; c < REPORT_COLS; c++) {
        near(b->cycles[c], want[c], "cycles");
        near(b->ns[c], want[c] / 2, "ns");
    }
}

static void test_breakdown_tables(void **state)
{
    char *dir = two_clusters_run(INI_TRACE_DETAILED);
    struct trace_run run;
    struct report rep;
    build(dir, &run, &rep);
    assert_int_equal(rep.n_detailed, 2);
    assert_false(rep.pow2_buckets);

    assert_int_equal(rep.send.n_buckets, 2);
    assert_int_equal(rep.send.n_msgs, 3);
    check_bucket(&rep.send.buckets[0], 100, 100, 2, (double[]){ 100, 75, 55, 100, 220, 550 });
    check_bucket(&rep.send.buckets[1], 2000, 2000, 1, (double[]){ 100, 10, 40, 200, 1000, 1350 });
    check_bucket(&rep.send.all, 100, 2000, 3, (double[]){ 100, 160.0 / 3, 50, 400.0 / 3, 480, 2450.0 / 3 });

    assert_int_equal(rep.recv.n_buckets, 2);
    check_bucket(&rep.recv.buckets[0], 100, 100, 2, (double[]){ 60, 80, 110, 30, 70, 350 });
    check_bucket(&rep.recv.buckets[1], 2000, 2000, 1, (double[]){ 0, 1000, 200, 40, 60, 1300 });
    report_free(&rep);
    trace_run_free(&run);
    fx_rmdir(dir);
}

static void test_cluster_table(void **state)
{
    char *dir = two_clusters_run(INI_TRACE_DETAILED);
    struct trace_run run;
    struct report rep;
    build(dir, &run, &rep);
    assert_int_equal(rep.n_clusters, 2);
    assert_int_equal(rep.pe_policy, INI_POLICY_STATIC);
    assert_int_equal(rep.ini_policy, INI_POLICY_ROUND_ROBIN);

    const struct report_perf *p0 = &rep.inis[0].perf, *p1 = &rep.inis[1].perf;
    assert_int_equal(rep.inis[0].ini_id, 0);
    assert_int_equal(p0->n_out, 3);
    assert_int_equal(p0->n_in, 0);
    near(p0->msg_len, 2200.0 / 3, "INI 0 msg len");
    near(p0->send_cycles, 2150.0 / 3, "INI 0 send");
    near(p0->send_ns, 2150.0 / 6, "INI 0 send ns");
    assert_true(isnan(p0->recv_cycles));
    assert_true(isnan(p0->msg_cycles));
    near(p0->queue_len, 0.215, "INI 0 queue");
    near(p0->queue_at_arrival, 1.0 / 3, "INI 0 at arrival");
    near(p0->busy_cycles, 1990, "INI 0 busy");
    near(p0->run_cycles, 10000, "INI 0 run");
    near(p0->utilization, 0.199, "INI 0 utilization");
    near(p0->service_cycles, (350 + 400 + 1240) / 3.0, "INI 0 service (t5 - t2)");

    near(p1->recv_cycles, 2000.0 / 3, "INI 1 recv");
    near(p1->queue_len, 0.2, "INI 1 queue");
    near(p1->queue_at_arrival, 2.0 / 3, "INI 1 at arrival");
    near(p1->utilization, 0.188, "INI 1 utilization");

    /* a one-INI cluster's row is its INI's */
    near(rep.clusters[0].perf.utilization, 0.199, "cluster 0 utilization");
    assert_int_equal(rep.clusters[0].n_pes, 2);
    assert_false(rep.clusters[0].mis.applicable);
    assert_false(rep.clusters[1].mis.applicable);
    assert_false(rep.all_mis.applicable);

    near(rep.all.msg_len, 4400.0 / 6, "all msg len");
    near(rep.all.msg_cycles, 4150.0 / 3, "all msg time");
    near(rep.all.msg_ns, 4150.0 / 6, "all msg time ns");
    near(rep.all.queue_len, (0.215 + 0.2) / 2, "all queue");
    near(rep.all.queue_at_arrival, 0.5, "all at arrival");
    near(rep.all.utilization, (0.199 + 0.188) / 2, "all utilization");
    report_free(&rep);
    trace_run_free(&run);
    fx_rmdir(dir);
}

/* In summary mode the same run has no breakdown, and the FIFO
 * reconstruction of the service start gives: INI 0 s = t1, max(t1, 1500),
 * t1 = 1100, 1500, 3100 -> busy [1100,1500] + [1500,1900] + [3100,4350] =
 * 2050; INI 1: 1600, 2000, 4500 -> 300 + 400 + 1300 = 2000.  Times in the
 * INI and queue lengths only need t1 and done, so they are unchanged. */
static void test_summary_only(void **state)
{
    char *dir = two_clusters_run(INI_TRACE_SUMMARY);
    struct trace_run run;
    struct report rep;
    build(dir, &run, &rep);
    assert_int_equal(rep.n_detailed, 0);
    assert_int_equal(rep.send.n_buckets, 0);
    assert_int_equal(rep.recv.n_buckets, 0);
    bool said = false;
    for (int i = 0; i < rep.n_notes; i++)
        said |= strstr(rep.notes[i], "summary traces only") != NULL;
    assert_true(said);
    near(rep.inis[0].perf.send_cycles, 2150.0 / 3, "send");
    near(rep.inis[0].perf.queue_len, 0.215, "queue");
    near(rep.inis[0].perf.utilization, 0.205, "INI 0 utilization");
    near(rep.inis[1].perf.utilization, 0.2, "INI 1 utilization");
    report_free(&rep);
    trace_run_free(&run);
    fx_rmdir(dir);
}

/* ---- misrouting ------------------------------------------------------ */

/*
 * One cluster of two INIs, 4 PEs, run [1000, 2000] (1000 cycles).
 * Queue time = the part of [t1, t2) during which the INI processed other
 * messages (busy = union of [t2, done]).
 *
 *   INI 0      t1    t2  done | INI busy in [t1, t2)     queue
 *     a      1000  1000  1100 |   -                        0
 *     b      1050  1100  1200 |  a: [1050, 1100)          50
 *     c      1060  1200  1300 |  a, b: [1060, 1200)      140
 *     d      1500  1510  1600 |  nothing (waited behind nobody)  0
 *   INI 1
 *     e      1040  1040  1055 |   -                        0
 *     f      1080  1080  1090 |   -  (a local message: not counted, but it occupies the INI)
 *     g      1085  1090  1150 |  f: [1085, 1090)           5
 *     h      1700  1700  1800 |   -                        0
 *     i      1750  1800  1850 |  h: [1750, 1800)          50
 *
 * Occupancy [t1, done): INI 0 [1000,1300) [1500,1600); INI 1 [1040,1055)
 * [1080,1150) [1700,1850).
 *   b at 1050: INI 1 holds e            -> not misrouted
 *   c at 1060: INI 1 idle until f, 1080 -> misrouted, saves 140, bounded min(140, 20) = 20
 *   g at 1085: INI 0 holds a, b, c      -> not misrouted
 *   i at 1750: INI 0 idle to the end    -> misrouted, saves 50, bounded min(50, 2000 - 1750) = 50
 * Inter-cluster messages: 8 (f is local).  Their processing time (union of
 * [t2, done]): INI 0 300 + 90 = 390; INI 1 15 + 60 + 100 + 50 = 225; total 615.
 * count rate 2/8, time rate 190/615, bounded 70/615.
 * Utilization (every message, f included) 0.39 and 0.235; queue length
 * (100+150+240+100)/1000 = 0.59 and (15+10+65+100+100)/1000 = 0.29.
 */
static char *misrouting_run(enum ini_trace_mode mode)
{
    char *dir = fx_mkdir();
    struct ini_trace t;
    assert_int_equal(fx_init(&t, mode, 16, HZ, 0, 0, 0, 2, 4, 1000, 2000), 0);
    fx_out(&t, 0, 4, 2, 64, 0, 990, 1000, 1000, 1010, 1020, 1100);    /* a */
    fx_out(&t, 1, 4, 2, 64, 0, 1040, 1050, 1100, 1110, 1120, 1200);   /* b */
    fx_out(&t, 2, 5, 2, 64, 1, 1050, 1060, 1200, 1210, 1220, 1300);   /* c */
    fx_out(&t, 3, 5, 2, 64, 0, 1490, 1500, 1510, 1520, 1530, 1600);   /* d */
    assert_int_equal(fx_write(&t, dir), 0);
    assert_int_equal(fx_init(&t, mode, 16, HZ, 1, 0, 1, 2, 4, 1000, 2000), 0);
    fx_in(&t, 4, 0, 2, 64, 0, 1040, 1040, 1045, 1050, 1052, 1055);    /* e */
    fx_local(&t, 0, 1, 64, 0, 1080, 1080, 1090);                      /* f */
    fx_in(&t, 4, 1, 2, 64, 1, 1085, 1090, 1100, 1110, 1120, 1150);    /* g */
    fx_in(&t, 5, 2, 2, 64, 0, 1700, 1700, 1710, 1720, 1730, 1800);    /* h */
    fx_in(&t, 5, 3, 2, 64, 1, 1750, 1800, 1810, 1820, 1830, 1850);    /* i */
    assert_int_equal(fx_write(&t, dir), 0);
    return dir;
}

static void test_misrouting_detailed(void **state)
{
    char *dir = misrouting_run(INI_TRACE_DETAILED);
    struct trace_run run;
    struct report rep;
    build(dir, &run, &rep);
    assert_int_equal(rep.n_clusters, 1);
    const struct report_misroute *m = &rep.clusters[0].mis;
    assert_true(m->applicable);
    assert_int_equal(m->messages, 8);
    assert_int_equal(m->blocked, 4);
    assert_int_equal(m->misrouted, 2);
    near(m->saved_cycles, 190, "saved");
    near(m->saved_bounded_cycles, 70, "saved bounded");
    near(m->busy_cycles, 615, "busy");
    near(m->count_rate, 2.0 / 8, "count rate");
    near(m->time_rate, 190.0 / 615, "time rate");
    near(m->time_rate_bounded, 70.0 / 615, "bounded time rate");
    near(rep.all_mis.time_rate, 190.0 / 615, "machine time rate");

    near(rep.inis[0].perf.utilization, 0.39, "INI 0 utilization");
    near(rep.inis[1].perf.utilization, 0.235, "INI 1 utilization");
    near(rep.inis[0].perf.queue_len, 0.59, "INI 0 queue");
    near(rep.inis[1].perf.queue_len, 0.29, "INI 1 queue");
    assert_int_equal(rep.inis[1].perf.n_local, 1);
    near(rep.inis[1].perf.local_cycles, 10, "local time");
    near(rep.clusters[0].perf.utilization, (0.39 + 0.235) / 2, "cluster utilization");
    near(rep.clusters[0].perf.queue_len, (0.59 + 0.29) / 2, "cluster queue");
    /* pooled: 4 outbound (t5 - t1 = 100, 150, 240, 100), 4 inbound (15, 65, 100, 100) */
    near(rep.clusters[0].perf.send_cycles, 590.0 / 4, "cluster send");
    near(rep.clusters[0].perf.recv_cycles, 280.0 / 4, "cluster recv");
    near(rep.clusters[0].perf.msg_cycles, 870.0 / 4, "cluster msg time");
    report_free(&rep);
    trace_run_free(&run);
    fx_rmdir(dir);
}

/* Summary mode reconstructs s = max(t1, done of the message finished just
 * before): the same as t2 everywhere except d (1500 instead of 1510, which
 * waited behind nobody): INI 0 busy 400, total 625, time rate 190/625; the
 * counts are unchanged. */
static void test_misrouting_summary(void **state)
{
    char *dir = misrouting_run(INI_TRACE_SUMMARY);
    struct trace_run run;
    struct report rep;
    build(dir, &run, &rep);
    const struct report_misroute *m = &rep.clusters[0].mis;
    assert_int_equal(m->messages, 8);
    assert_int_equal(m->blocked, 4);
    assert_int_equal(m->misrouted, 2);
    near(m->saved_cycles, 190, "saved");
    near(m->busy_cycles, 625, "busy");
    near(m->time_rate, 190.0 / 625, "time rate");
    near(m->count_rate, 2.0 / 8, "count rate");
    near(rep.inis[0].perf.utilization, 0.4, "INI 0 utilization");
    report_free(&rep);
    trace_run_free(&run);
    fx_rmdir(dir);
}

/*
 * x and y enter INI 0 in the same loop turn (t1 = 200 both); x is served
 * first [200, 300], y [300, 400]: y is behind x, blocked, waits 100.  INI 1
 * has no message at all: idle the whole run [100, 1100], so y is
 * misrouted, saving 100 (bounded by 1100 - 200 = 900: 100).  Busy 200 + 0:
 * time rate 0.5, count rate 1/2.
 */
static void test_same_instant_arrivals(void **state)
{
    char *dir = fx_mkdir();
    struct ini_trace t;
    assert_int_equal(fx_init(&t, INI_TRACE_DETAILED, 16, HZ, 0, 0, 0, 2, 2, 100, 1100), 0);
    fx_out(&t, 1, 3, 2, 10, 1, 150, 200, 300, 320, 340, 400);    /* y, committed last in real life */
    fx_out(&t, 0, 3, 2, 10, 0, 150, 200, 200, 220, 240, 300);    /* x */
    assert_int_equal(fx_write(&t, dir), 0);
    assert_int_equal(fx_init(&t, INI_TRACE_DETAILED, 16, HZ, 1, 0, 1, 2, 2, 100, 1100), 0);
    assert_int_equal(fx_write(&t, dir), 0);
    struct trace_run run;
    struct report rep;
    build(dir, &run, &rep);
    const struct report_misroute *m = &rep.clusters[0].mis;
    assert_int_equal(m->messages, 2);
    assert_int_equal(m->blocked, 1);
    assert_int_equal(m->misrouted, 1);
    near(m->saved_cycles, 100, "saved");
    near(m->saved_bounded_cycles, 100, "bounded");
    near(m->time_rate, 0.5, "time rate");
    near(m->count_rate, 0.5, "count rate");
    near(rep.inis[1].perf.utilization, 0, "idle INI");
    assert_true(isnan(rep.inis[1].perf.msg_len));
    report_free(&rep);
    trace_run_free(&run);
    fx_rmdir(dir);
}

/* ---- section 5.4's definitions, case by case ---------------------------
 *
 * Each case: cluster 0 with INIs 0 and 1 (4 PEs), run [10, 10000], detailed
 * traces; OUT(ini-trace, src, t1, t2, done) is an outbound message.  The
 * rates are checked against the hand count, and the realistic cases also
 * against [0, 1].
 */
struct two_ini {
    char *dir;
    struct ini_trace t[2];
};

static void two_ini_init(struct two_ini *c)
{
    c->dir = fx_mkdir();
    for (int i = 0; i < 2; i++)
        assert_int_equal(fx_init(&c->t[i], INI_TRACE_DETAILED, 16, HZ, i, 0, i, 2, 4, 10, 10000), 0);
}

static void two_ini_out(struct two_ini *c, int ini, uint16_t src, uint64_t t1, uint64_t t2, uint64_t done)
{
    fx_out(&c->t[ini], src, 4, 2, 64, 0, t1, t1, t2, t2 + (done - t2) / 3, t2 + 2 * (done - t2) / 3, done);
}

static const struct report_misroute *two_ini_report(struct two_ini *c, struct trace_run *run, struct report *rep)
{
    for (int i = 0; i < 2; i++)
        assert_int_equal(fx_write(&c->t[i], c->dir), 0);
    build(c->dir, run, rep);
    return &rep->clusters[0].mis;
}

static void two_ini_free(struct two_ini *c, struct trace_run *run, struct report *rep)
{
    report_free(rep);
    trace_run_free(run);
    fx_rmdir(c->dir);
}

static void in_unit_range(const struct report_misroute *m)
{
    assert_true(m->count_rate >= 0 && m->count_rate <= 1);
    assert_true(m->time_rate >= 0 && m->time_rate <= 1);
    assert_true(m->time_rate_bounded >= 0 && m->time_rate_bounded <= m->time_rate);
}

/* No contention: every message finds its INI empty -> nothing blocked,
 * both rates 0.  Busy 100 + 100 + 100 = 300. */
static void test_misroute_no_contention(void **state)
{
    struct two_ini c;
    two_ini_init(&c);
    two_ini_out(&c, 0, 0, 1000, 1000, 1100);
    two_ini_out(&c, 0, 1, 2000, 2000, 2100);
    two_ini_out(&c, 1, 2, 1050, 1050, 1150);       /* both INIs busy at once, each with its own */
    struct trace_run run;
    struct report rep;
    const struct report_misroute *m = two_ini_report(&c, &run, &rep);
    assert_int_equal(m->messages, 3);
    assert_int_equal(m->blocked, 0);
    assert_int_equal(m->misrouted, 0);
    near(m->busy_cycles, 300, "busy");
    near(m->count_rate, 0, "count rate");
    near(m->time_rate, 0, "time rate");
    in_unit_range(m);
    two_ini_free(&c, &run, &rep);
}

/* One INI busy, its sibling idle: y arrives at 1050 while x is processed
 * [1000, 1200] and waits until 1200 (queue 150); INI 1 holds nothing at
 * 1050 and stays idle until 3000 -> y misrouted, wasted 150, bounded
 * min(150, 3000 - 1050) = 150.  z at INI 1 [3000, 3100] is alone.
 * Busy: INI 0 200 + 100 = 300, INI 1 100: total 400.
 * count rate 1/3, time rate 150/400 = 0.375. */
static void test_misroute_sibling_idle(void **state)
{
    struct two_ini c;
    two_ini_init(&c);
    two_ini_out(&c, 0, 0, 1000, 1000, 1200);       /* x */
    two_ini_out(&c, 0, 1, 1050, 1200, 1300);       /* y */
    two_ini_out(&c, 1, 2, 3000, 3000, 3100);       /* z */
    struct trace_run run;
    struct report rep;
    const struct report_misroute *m = two_ini_report(&c, &run, &rep);
    assert_int_equal(m->messages, 3);
    assert_int_equal(m->blocked, 1);
    assert_int_equal(m->misrouted, 1);
    near(m->saved_cycles, 150, "wasted");
    near(m->saved_bounded_cycles, 150, "wasted, bounded");
    near(m->busy_cycles, 400, "busy");
    near(m->count_rate, 1.0 / 3, "count rate");
    near(m->time_rate, 0.375, "time rate");
    in_unit_range(m);
    /* the split: PE 0 and PE 1 sent through INI #0, PE 2 through INI #1 */
    assert_int_equal(rep.clusters[0].n_split_pes, 3);
    const struct report_pe_split *p = &rep.pe_split[rep.clusters[0].first_pe];
    assert_int_equal(p[0].pe, 0);
    assert_int_equal(p[0].sent[0], 1);
    assert_int_equal(p[0].sent[1], 0);
    assert_int_equal(p[2].pe, 2);
    assert_int_equal(p[2].sent[1], 1);
    assert_int_equal(rep.pe_inis_min, 1);
    assert_int_equal(rep.pe_inis_max, 1);
    near(rep.inis[0].share, 2.0 / 3, "INI 0 share");
    assert_int_equal(rep.busiest_ini, 0);
    two_ini_free(&c, &run, &rep);
}

/* Both INIs busy: as above, but INI 1 processes w [1040, 1100] when y
 * arrives at 1050 -> y is blocked (queue 150), not misrouted.  Busy
 * 300 + 60 + 100 = 460; count 0, time 0. */
static void test_misroute_both_busy(void **state)
{
    struct two_ini c;
    two_ini_init(&c);
    two_ini_out(&c, 0, 0, 1000, 1000, 1200);       /* x */
    two_ini_out(&c, 0, 1, 1050, 1200, 1300);       /* y */
    two_ini_out(&c, 1, 2, 1040, 1040, 1100);       /* w */
    two_ini_out(&c, 1, 3, 3000, 3000, 3100);
    struct trace_run run;
    struct report rep;
    const struct report_misroute *m = two_ini_report(&c, &run, &rep);
    assert_int_equal(m->messages, 4);
    assert_int_equal(m->blocked, 1);
    assert_int_equal(m->misrouted, 0);
    near(m->busy_cycles, 460, "busy");
    near(m->time_rate, 0, "time rate");
    in_unit_range(m);
    two_ini_free(&c, &run, &rep);
}

/* The sibling has a queue but does not process: v entered INI 1 at 1020
 * and starts only at 1500 (a full window, say), and INI 1 processes
 * nothing in between.  At 1050, y's arrival, INI 1 is not idle (it holds
 * v) -> y not misrouted.  v itself waited 480 behind no processing: queue
 * time 0, not blocked (a message in a ring while its INI sleeps or stalls
 * does not wait behind a message being processed).  The partial case: u
 * arrives at INI 1 at 1450 (v is still waiting), starts at 1600 after v's
 * [1500, 1600]: only those 100 are queue time, and at 1450 INI 0 is idle
 * (x and y done at 1300) -> u misrouted, wasted 100.
 * Busy: INI 0 300; INI 1 v 100 + u 100 = 200; total 500.
 * count 1/4, time 100/500 = 0.2. */
static void test_misroute_sibling_queue(void **state)
{
    struct two_ini c;
    two_ini_init(&c);
    two_ini_out(&c, 0, 0, 1000, 1000, 1200);       /* x */
    two_ini_out(&c, 0, 1, 1050, 1200, 1300);       /* y */
    two_ini_out(&c, 1, 2, 1020, 1500, 1600);       /* v */
    two_ini_out(&c, 1, 3, 1450, 1600, 1700);       /* u */
    struct trace_run run;
    struct report rep;
    const struct report_misroute *m = two_ini_report(&c, &run, &rep);
    assert_int_equal(m->messages, 4);
    assert_int_equal(m->blocked, 2);               /* y and u */
    assert_int_equal(m->misrouted, 1);             /* u */
    near(m->saved_cycles, 100, "wasted");
    near(m->busy_cycles, 500, "busy");
    near(m->count_rate, 0.25, "count rate");
    near(m->time_rate, 0.2, "time rate");
    in_unit_range(m);
    two_ini_free(&c, &run, &rep);
}

/* The pathological burst: five messages enter INI 0 in one loop turn
 * (t1 = 1000) and are served back to back, 100 each; INI 1 is idle all
 * the time.  Queue times 0, 100, 200, 300, 400: wasted 1000 over a busy
 * time of 500 -> time rate 2.0, above 100 % by definition (in general
 * (n - 1) / 2 for a burst of n); count rate 4/5 stays within [0, 1]. */
static void test_misroute_burst(void **state)
{
    struct two_ini c;
    two_ini_init(&c);
    for (uint64_t k = 0; k < 5; k++)
        two_ini_out(&c, 0, (uint16_t)(k % 2), 1000, 1000 + 100 * k, 1100 + 100 * k);
    struct trace_run run;
    struct report rep;
    const struct report_misroute *m = two_ini_report(&c, &run, &rep);
    assert_int_equal(m->messages, 5);
    assert_int_equal(m->misrouted, 4);
    near(m->saved_cycles, 1000, "wasted");
    near(m->busy_cycles, 500, "busy");
    near(m->time_rate, 2.0, "time rate");
    near(m->count_rate, 0.8, "count rate");
    two_ini_free(&c, &run, &rep);
}

/* Summary traces: a message that stalled (window full) and finished late
 * does not hold up the ones that overtook it.  INI 0: p t1 100, done 1000
 * (stalled); q t1 200, done 300; r t1 400, done 500.  In the order of
 * completion: q starts at 200, r at max(400, 300) = 400, p at max(100,
 * 500) = 500.  Queue times: q 0, r 0, p = busy in [100, 500) = 200.  INI 1
 * is idle at 100 -> p misrouted, wasted 200.  Busy 100 + 100 + 500 = 700. */
static void test_misroute_summary_stall(void **state)
{
    char *dir = fx_mkdir();
    struct ini_trace t;
    assert_int_equal(fx_init(&t, INI_TRACE_SUMMARY, 16, HZ, 0, 0, 0, 2, 4, 10, 10000), 0);
    fx_out(&t, 0, 4, 2, 64, 0, 100, 100, 0, 0, 0, 1000);      /* p */
    fx_out(&t, 1, 4, 2, 64, 0, 200, 200, 0, 0, 0, 300);       /* q */
    fx_out(&t, 0, 4, 2, 64, 0, 400, 400, 0, 0, 0, 500);       /* r */
    assert_int_equal(fx_write(&t, dir), 0);
    assert_int_equal(fx_init(&t, INI_TRACE_SUMMARY, 16, HZ, 1, 0, 1, 2, 4, 10, 10000), 0);
    assert_int_equal(fx_write(&t, dir), 0);
    struct trace_run run;
    struct report rep;
    build(dir, &run, &rep);
    const struct report_misroute *m = &rep.clusters[0].mis;
    assert_int_equal(m->blocked, 1);
    assert_int_equal(m->misrouted, 1);
    near(m->saved_cycles, 200, "wasted");
    near(m->busy_cycles, 700, "busy");
    near(rep.inis[0].perf.utilization, 700.0 / 9990, "utilization");
    in_unit_range(m);
    report_free(&rep);
    trace_run_free(&run);
    fx_rmdir(dir);
}

/*
 * A buffer of two records on INI 0 (run [1000, 5000]): outbound messages
 * [1000, 1100] and [1200, 1300] are kept, the third is dropped.  The run is
 * cut at the last recorded done, 1300: run 300, busy 200, utilization 2/3,
 * queue length 200/300.  The cluster's other INI (full run, one message
 * [1250, 1260] and one [2000, 2100]) is then only compared up to 1300: its
 * second message is outside the misrouting window (messages = 3) and its
 * busy time in the window is 10 (time rate 0/210).
 */
static void test_dropped_records_cut_the_run(void **state)
{
    char *dir = fx_mkdir();
    struct ini_trace t;
    assert_int_equal(fx_init(&t, INI_TRACE_DETAILED, 2, HZ, 0, 0, 0, 2, 2, 1000, 5000), 0);
    fx_out(&t, 0, 2, 2, 8, 0, 1000, 1000, 1000, 1050, 1060, 1100);
    fx_out(&t, 0, 2, 2, 8, 0, 1200, 1200, 1200, 1250, 1260, 1300);
    fx_out(&t, 0, 2, 2, 8, 0, 1400, 1400, 1400, 1450, 1460, 1500);
    assert_int_equal(t.dropped, 1);
    assert_int_equal(fx_write(&t, dir), 0);
    assert_int_equal(fx_init(&t, INI_TRACE_DETAILED, 8, HZ, 1, 0, 1, 2, 2, 1000, 5000), 0);
    fx_out(&t, 1, 2, 2, 8, 0, 1250, 1250, 1250, 1252, 1254, 1260);
    fx_out(&t, 1, 2, 2, 8, 0, 2000, 2000, 2000, 2050, 2060, 2100);
    assert_int_equal(fx_write(&t, dir), 0);
    struct trace_run run;
    struct report rep;
    build(dir, &run, &rep);
    assert_int_equal(rep.inis[0].dropped, 1);
    near(rep.inis[0].perf.run_cycles, 300, "cut run");
    near(rep.inis[0].perf.utilization, 200.0 / 300, "utilization");
    near(rep.inis[0].perf.queue_len, 200.0 / 300, "queue");
    near(rep.inis[1].perf.run_cycles, 4000, "full run");
    const struct report_misroute *m = &rep.clusters[0].mis;
    assert_int_equal(m->messages, 3);
    assert_int_equal(m->misrouted, 0);
    near(m->busy_cycles, 210, "busy in window");
    near(m->time_rate, 0, "time rate");
    bool said = false;
    for (int i = 0; i < rep.n_notes; i++)
        said |= strstr(rep.notes[i], "ini0.trace: 1 messages not recorded") != NULL;
    assert_true(said);
    report_free(&rep);
    trace_run_free(&run);
    fx_rmdir(dir);
}

/* 17 distinct lengths -> power-of-two buckets: 0 | 1 | 2-3 | 4-7 | ... */
static void test_power_of_two_buckets(void **state)
{
    static const uint32_t lens[17] = { 0, 1, 2, 3, 5, 6, 7, 100, 127, 128, 1000, 1400, 1600, 2047, 2048, 65000, 64 };
    char *dir = fx_mkdir();
    struct ini_trace t;
    assert_int_equal(fx_init(&t, INI_TRACE_DETAILED, 32, HZ, 0, 0, 0, 1, 1, 1000, 100000), 0);
    for (int i = 0; i < 17; i++) {
        uint64_t b = 1000 + 1000 * (uint64_t)i;
        /* every module takes len-independent 10 cycles, queue i cycles */
        fx_out(&t, 0, 1, 1, lens[i], 0, b, b + 10, b + 10 + (uint64_t)i, b + 20 + (uint64_t)i,
               b + 30 + (uint64_t)i, b + 40 + (uint64_t)i);
    }
    assert_int_equal(fx_write(&t, dir), 0);
    struct trace_run run;
    struct report rep;
    build(dir, &run, &rep);
    assert_true(rep.pow2_buckets);
    /* buckets: 0, 1, 2-3 (2,3), 4-7 (5,6,7), 64-127 (100,127,64), 128-255,
     * 512-1023, 1024-2047 (1400,1600,2047), 2048-4095, 32768-65535 */
    static const uint32_t lo[] = { 0, 1, 2, 4, 64, 128, 512, 1024, 2048, 32768 };
    static const uint32_t hi[] = { 0, 1, 3, 7, 127, 255, 1023, 2047, 4095, 65535 };
    static const uint64_t count[] = { 1, 1, 2, 3, 3, 1, 1, 3, 1, 1 };
    assert_int_equal(rep.send.n_buckets, 10);
    for (int b = 0; b < 10; b++) {
        assert_int_equal(rep.send.buckets[b].len_lo, lo[b]);
        assert_int_equal(rep.send.buckets[b].len_hi, hi[b]);
        assert_int_equal(rep.send.buckets[b].count, count[b]);
        near(rep.send.buckets[b].cycles[SEND_UDP], 10, "UDP");
    }
    /* 4-7 holds i = 4, 5, 6: mean queue 5 */
    near(rep.send.buckets[3].cycles[SEND_QUEUE], 5, "queue of 4-7");
    report_free(&rep);
    trace_run_free(&run);
    fx_rmdir(dir);
}

/* ---- printing -------------------------------------------------------- */

static char *print_to_string(const struct report *rep, enum report_format fmt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    report_print(f, rep, fmt);
    fclose(f);
    if (!buf)
        abort();
    return buf;
}

static void expect_in(const char *text, const char *what)
{
    if (!strstr(text, what)) {
        fputs(text, stderr);
        fail_msg("the output above lacks \"%s\"", what);
    }
}

static void test_print_formats(void **state)
{
    char *dir = two_clusters_run(INI_TRACE_DETAILED);
    struct trace_run run;
    struct report rep;
    build(dir, &run, &rep);
    char *text = print_to_string(&rep, REPORT_TEXT);
    expect_in(text, "Table 5.1: time breakdown among sending modules, mean TSC cycles");
    expect_in(text, "Table 5.2: time breakdown among receiving modules, mean nanoseconds");
    expect_in(text, "Table 5.4: INI node performance per cluster");     /* round-robin INI policy */
    expect_in(text, "Table 5.7: intra-cluster INI load imbalance");
    expect_in(text, "n/a: one INI");
    expect_in(text, "Every cluster has one INI, which carried all its messages; INI utilization ranged from 0.188 to 0.199.");
    expect_in(text, "No cluster has two INIs, so no message could have gone to another INI.");
    expect_in(text, "Over all 3 messages, IP took the largest part of the time");
    /* PE 0 sent m1 and m3 through cluster 0's only INI; PE 3 received r2 and r3 */
    expect_in(text, "\n0           0           2/0     1\n");
    expect_in(text, "\n1           3           0/2     0\n");
    expect_in(text, "Every compute node that sent messages sent them through 1 INI of its cluster.");
    /* len 100 row of table 5.1: 2 msgs, 100 75 55 100 220 550 */
    expect_in(text, "100                  2      100.0       75.0       55.0      100.0      220.0      550.0");
    free(text);

    char *csv = print_to_string(&rep, REPORT_CSV);
    expect_in(csv, "send_breakdown\nlen_lo,len_hi,msgs,handler_cycles,");
    expect_in(csv, "\n100,100,2,100,75,55,100,220,550,50,37.5,27.5,50,110,275\n");
    expect_in(csv, "\n\nreceive_breakdown\n");
    expect_in(csv, "\n\nclusters\ncluster,clu_size,ios_per_clu,ini,");
    expect_in(csv, "\n\nmisrouting\ncluster,");
    expect_in(csv, "\n0,2,1,,,,,,,,,,n/a: one INI\n");
    expect_in(csv, "\n\npe_split\ncluster,pe,ini_index,ini,sent,received\n0,0,0,0,2,0\n0,1,0,0,1,0\n");
    free(csv);

    char *json = print_to_string(&rep, REPORT_JSON);
    expect_in(json, "\"send_breakdown\": {\"available\": true");
    expect_in(json, "\"receive_breakdown\": {");
    expect_in(json, "\"clusters\": [");
    expect_in(json, "\"misrouting\": [");
    expect_in(json, "\"recv_cycles\": null");          /* INI 0 receives nothing */
    expect_in(json, "\"utilization\": 0.199");
    expect_in(json, "\"share\": 1");
    expect_in(json, "{\"cluster\": 0, \"pe\": 0, \"inis_used\": 1, \"sent\": [2], \"received\": [0]}");
    free(json);
    report_free(&rep);
    trace_run_free(&run);
    fx_rmdir(dir);
}

/* Issue 17 item 4: a full buffer's drops are counted and said, in the text
 * (a line and a note that the tables cover only recorded messages) and in
 * the JSON (run-wide "recorded" and "dropped", and per INI). */
static void test_dropped_records_printed(void **state)
{
    char *dir = fx_mkdir();
    struct ini_trace t;
    assert_int_equal(fx_init(&t, INI_TRACE_SUMMARY, 2, HZ, 0, 0, 0, 1, 2, 1000, 5000), 0);
    fx_out(&t, 0, 2, 2, 8, 0, 0, 1000, 0, 0, 0, 1100);
    fx_out(&t, 0, 2, 2, 8, 0, 0, 1200, 0, 0, 0, 1300);
    fx_out(&t, 0, 2, 2, 8, 0, 0, 1400, 0, 0, 0, 1500);
    fx_out(&t, 0, 2, 2, 8, 0, 0, 1600, 0, 0, 0, 1700);
    assert_int_equal(t.dropped, 2);
    assert_int_equal(fx_write(&t, dir), 0);
    struct trace_run run;
    struct report rep;
    build(dir, &run, &rep);
    assert_int_equal(rep.recorded, 2);
    assert_int_equal(rep.dropped, 2);
    char *text = print_to_string(&rep, REPORT_TEXT);
    expect_in(text, "\n  messages: 2 recorded, 2 dropped (trace buffer full)\n");
    expect_in(text, "note: 2 messages were not recorded (trace buffers full): every table covers only the "
                    "2 recorded messages");
    free(text);
    char *json = print_to_string(&rep, REPORT_JSON);
    expect_in(json, "\"recorded\": 2, \"dropped\": 2,");
    expect_in(json, "\"mode\": \"summary\", \"dropped\": 2,");
    free(json);
    report_free(&rep);
    trace_run_free(&run);
    fx_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_breakdown_tables),
        cmocka_unit_test(test_cluster_table),
        cmocka_unit_test(test_summary_only),
        cmocka_unit_test(test_misrouting_detailed),
        cmocka_unit_test(test_misrouting_summary),
        cmocka_unit_test(test_same_instant_arrivals),
        cmocka_unit_test(test_misroute_no_contention),
        cmocka_unit_test(test_misroute_sibling_idle),
        cmocka_unit_test(test_misroute_both_busy),
        cmocka_unit_test(test_misroute_sibling_queue),
        cmocka_unit_test(test_misroute_burst),
        cmocka_unit_test(test_misroute_summary_stall),
        cmocka_unit_test(test_dropped_records_cut_the_run),
        cmocka_unit_test(test_power_of_two_buckets),
        cmocka_unit_test(test_print_formats),
        cmocka_unit_test(test_dropped_records_printed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
