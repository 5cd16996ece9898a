/*
 * test_model.c - the INI contention model of thesis chapter 6
 * (tools/model/model.c): the W = o = l = L = 0 limit of equation 6.11,
 * inputs whose solution was worked out by hand, agreement with an
 * independent iterative solution for the figure 6-3 parameters, growth of
 * the INI queue with N, convergence over a wide random sample of inputs
 * (every solution re-checked against all ten equations), and rejection of
 * invalid parameters and command-line values.  Then LoPC and LoGPC
 * (seed 001, --model lopc|logpc): the seed's worked example (table 4),
 * the closed form of the LoGPC quadratic, the 6.11 limit, agreement with
 * chapter 6 where the models must agree (o = 0, cv2 = 1) and with each
 * other (O = 0), monotonicity, and convergence over the same wide sample.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tools/model/model.h"

/* Figure 6-3: W = 41789, o = 742, O = 2336, l = L = 0 (cycles). */
static struct model_params figure_6_3(int N)
{
    return (struct model_params){ .N = N, .W = 41789, .o = 742, .l = 0, .L = 0, .O = 2336 };
}

static struct model_result solved(const struct model_params *p)
{
    struct model_result r;
    char why[256] = "";
    enum model_status s = model_solve(p, &r, why, sizeof why);
    if (s != MODEL_OK)
        fail_msg("model_solve failed for N=%d W=%g o=%g l=%g L=%g O=%g: %s",
                 p->N, p->W, p->o, p->l, p->L, p->O, why);
    assert_true(model_residual(p, &r) <= MODEL_TOLERANCE);
    return r;
}

static void assert_close(double got, double want, double rel)
{
    double scale = fmax(fabs(want), 1e-300);
    if (!(fabs(got - want) <= rel * scale))
        fail_msg("got %.17g, want %.17g (relative tolerance %g)", got, want, rel);
}

/*
 * Equation 6.11.  With W = o = l = L = 0 the PE terms vanish
 * (Q_q = Q_y = R_q = R_y = R_w = U_q = 0), so 6.1 is R = 4 R_o and
 * 6.5 gives Q_o = 4 N R_o / R = N exactly; 6.8 then gives R_o = O (1 + N)
 * and R = 4 O (N + 1).
 */
static void test_limit_is_n(void **state)
{
    (void)state;
    for (int N = 1; N <= 64; N++) {
        struct model_params p = { .N = N, .O = 2336 };
        struct model_result r = solved(&p);
        assert_close(r.Q_o, N, 1e-9);
        assert_close(r.R, 4.0 * 2336 * (N + 1), 1e-9);
        assert_close(r.R_o, 2336.0 * (N + 1), 1e-9);
        assert_true(r.Q_q == 0 && r.Q_y == 0 && r.U_q == 0);
    }
    /* And it is a limit: shrinking W, o, l, L towards 0 from the figure
     * 6-3 values brings Q_o monotonically up to N. */
    for (int N = 1; N <= 8; N++) {
        double previous_gap = INFINITY;
        for (double scale = 1; scale >= 1e-9; scale /= 10) {
            struct model_params p = figure_6_3(N);
            p.W *= scale;
            p.o *= scale;
            p.l = p.L = 100 * scale;
            double gap = N - solved(&p).Q_o;
            assert_true(gap > 0);
            assert_true(gap < previous_gap);
            previous_gap = gap;
        }
        assert_true(previous_gap < 1e-6 * N);
    }
}

/*
 * The bound behind 6.11 holds everywhere: Q_o = 4 N R_o / R and
 * R >= 4 R_o by 6.1, so Q_o <= N, with equality only in the limit.
 */
static void test_queue_never_exceeds_n(void **state)
{
    (void)state;
    for (int N = 1; N <= 200; N++) {
        struct model_params p = figure_6_3(N);
        assert_true(solved(&p).Q_o < N);
    }
}

/*
 * Hand-checked solutions.  For the mixed cases the cycle time R was
 * chosen first and W worked backwards from it, in exact fractions:
 * with a = o/R and D = 1 - a - a^2, 6.3/6.4/6.6/6.7 give
 * Q_q = a(1+a)/D and Q_y = a/D; 6.5/6.8 give Q_o = b/(1-b) with
 * b = 4NO/R; 6.1 gives R_w = R - 2l - 2L - R_q - R_y - 4R_o; and 6.9
 * gives W = R_w (1 - a) - o Q_q.  Solving with that W must return R.
 */
/* Every field of p's solution against want: relative 1e-12, and a 0
 * must be exactly 0. */
static void assert_solution(const struct model_params *p, const struct model_result *want)
{
#define FIELD(f) { #f, offsetof(struct model_result, f) }
    static const struct { const char *name; size_t off; } fields[] = {
        FIELD(R), FIELD(lambda), FIELD(R_w), FIELD(R_q), FIELD(R_y), FIELD(R_o),
        FIELD(Q_q), FIELD(Q_y), FIELD(Q_o), FIELD(U_q), FIELD(U_o),
    };
#undef FIELD
    struct model_result r = solved(p);
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        double got, w;
        memcpy(&got, (const char *)&r + fields[i].off, sizeof got);
        memcpy(&w, (const char *)want + fields[i].off, sizeof w);
        if (w == 0 ? got != 0 : !(fabs(got - w) <= 1e-12 * fabs(w)))
            fail_msg("N=%d W=%g: %s is %.17g, want %.17g", p->N, p->W, fields[i].name, got, w);
    }
}

static void test_hand_checked(void **state)
{
    (void)state;
    static const struct { struct model_params p; struct model_result want; } cases[] = {
        /* No handler costs (o = O = 0): no queues, R = W + 2l + 2L
         * = 100 + 10 + 40 = 150. */
        { { .N = 5, .W = 100, .l = 5, .L = 20 },
          { .R = 150, .lambda = 1.0 / 150, .R_w = 100 } },
        /* Only the PEs contend: N = 1, o = 1, O = l = L = 0, R = 10.
         *   a = 1/10, D = 89/100, Q_q = (11/100)/(89/100) = 11/89,
         *   Q_y = 10/89, R_q = 1 + 21/89 = 110/89, R_y = 100/89,
         *   R_w = 10 - 210/89 = 680/89, W = 680/89 * 9/10 - 11/89 = 601/89. */
        { { .N = 1, .W = 601.0 / 89, .o = 1 },
          { .R = 10, .lambda = 0.1, .R_w = 680.0 / 89, .R_q = 110.0 / 89, .R_y = 100.0 / 89,
            .Q_q = 11.0 / 89, .Q_y = 10.0 / 89, .U_q = 0.1 } },
        /* Everything at once: N = 2, o = 5, O = 2, l = 3, L = 7, R = 100.
         *   a = 1/20, D = 379/400, Q_q = 21/379, Q_y = 20/379,
         *   R_q = 5 * 420/379 = 2100/379, R_y = 5 * 400/379 = 2000/379,
         *   b = 16/100, Q_o = 4/21, R_o = 2 * 25/21 = 50/21,
         *   R_w = 100 - 6 - 14 - 4100/379 - 200/21 = 474820/7959,
         *   W = 474820/7959 * 19/20 - 105/379 = 448874/7959 (~56.398),
         *   U_o = 4 N O / R = 0.16. */
        { { .N = 2, .W = 448874.0 / 7959, .o = 5, .l = 3, .L = 7, .O = 2 },
          { .R = 100, .lambda = 0.01, .R_w = 474820.0 / 7959, .R_q = 2100.0 / 379, .R_y = 2000.0 / 379,
            .R_o = 50.0 / 21, .Q_q = 21.0 / 379, .Q_y = 20.0 / 379, .Q_o = 4.0 / 21, .U_q = 0.05, .U_o = 0.16 } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_solution(&cases[i].p, &cases[i].want);
}

/*
 * Figure 6-3 against an independent solution: a damped (factor 1/2)
 * fixed-point iteration over all ten unknowns of 6.1-6.10, written in
 * Python without the closed forms or the bisection used here, run for
 * 20000 steps.  It printed (R, Q_o):
 *   N=1  55134.829903  0.2040583239
 *   N=4  65533.217980  1.3274038659
 *   N=8  92448.787196  4.2240435607
 */
static void test_figure_6_3_independent(void **state)
{
    (void)state;
    struct { int N; double R, Q_o; } want[] = {
        { 1, 55134.829903, 0.2040583239 },
        { 4, 65533.217980, 1.3274038659 },
        { 8, 92448.787196, 4.2240435607 },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        struct model_params p = figure_6_3(want[i].N);
        struct model_result r = solved(&p);
        assert_close(r.R, want[i].R, 1e-10);
        assert_close(r.Q_o, want[i].Q_o, 1e-9);
    }
}

/* More PEs per INI: more INI traffic, so the INI queue (Q_o), the time a
 * message spends there (R_o) and the cycle (R) all grow, while each PE
 * sends less often (lambda falls). */
static void test_monotone_in_n(void **state)
{
    (void)state;
    struct model_params p = figure_6_3(1);
    struct model_result previous = solved(&p);
    for (int N = 2; N <= 256; N++) {
        p = figure_6_3(N);
        struct model_result r = solved(&p);
        assert_true(r.Q_o > previous.Q_o);
        assert_true(r.R_o > previous.R_o);
        assert_true(r.R > previous.R);
        assert_true(r.lambda < previous.lambda);
        previous = r;
    }
}

/* Deterministic pseudo-random numbers (xorshift64*). */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static double uniform01(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717u) >> 11) / 9007199254740992.0;
}

/* A time that is 0 a fifth of the time, else log-uniform over 1e-9 ..
 * MODEL_MAX_TIME, or now and then down to MODEL_MIN_TIME, so that every
 * term in turn dominates the cycle. */
static double random_time(void)
{
    double pick = uniform01();
    if (pick < 0.2)
        return 0;
    if (pick < 0.25)
        return MODEL_MIN_TIME * pow(10, 115 * uniform01());
    return pow(10, -9 + 24 * uniform01());
}

/* Chapter 6 parameters from the whole range: N in 1..16 half the time,
 * else up to MODEL_MAX_N, the times from random_time() (all of them 0
 * now and then, which model_validate rejects). */
static struct model_params random_params(void)
{
    struct model_params p = {
        .N = 1 + (int)(uniform01() * (uniform01() < 0.5 ? 16 : MODEL_MAX_N)),
        .W = random_time(), .o = random_time(), .l = random_time(),
        .L = random_time(), .O = random_time(),
    };
    if (p.N > MODEL_MAX_N)
        p.N = MODEL_MAX_N;
    return p;
}

/* "Converges for every valid input": a wide sample, the extreme corners,
 * each answer finite and satisfying all ten equations. */
static void test_converges_everywhere(void **state)
{
    (void)state;
    for (int i = 0; i < 200000; i++) {
        struct model_params p = random_params();
        if (model_validate(&p, NULL, 0) != MODEL_OK)
            continue;           /* all zero: rejected, tested below */
        struct model_result r = solved(&p);
        /* Q_o <= N up to rounding: near the 6.11 limit Q_o = 4NO/(R - 4NO)
         * subtracts nearly equal numbers. */
        if (!(isfinite(r.R) && r.R > 0 && r.Q_o <= p.N * (1 + MODEL_TOLERANCE)))
            fail_msg("N=%d W=%g o=%g l=%g L=%g O=%g: R=%g Q_o=%.17g", p.N, p.W, p.o, p.l, p.L, p.O, r.R, r.Q_o);
    }
    const double corners[] = { 0, MODEL_MIN_TIME, 1, MODEL_MAX_TIME };
    const int ns[] = { 1, 2, MODEL_MAX_N };
    for (int mask = 0; mask < 4 * 4 * 4 * 4 * 4; mask++)
        for (size_t n = 0; n < 3; n++) {
            int m = mask;
            struct model_params p = { .N = ns[n] };
            p.W = corners[m % 4]; m /= 4;
            p.o = corners[m % 4]; m /= 4;
            p.l = corners[m % 4]; m /= 4;
            p.L = corners[m % 4]; m /= 4;
            p.O = corners[m % 4];
            if (model_validate(&p, NULL, 0) == MODEL_OK)
                solved(&p);
        }
}

static void test_invalid_parameters(void **state)
{
    (void)state;
    struct model_params bad[] = {
        { .N = 0, .W = 1 },
        { .N = -3, .W = 1 },
        { .N = MODEL_MAX_N + 1, .W = 1 },
        { .N = 1, .W = -1 },
        { .N = 1, .W = 1, .o = -742 },
        { .N = 1, .W = 1, .l = -0.5 },
        { .N = 1, .W = 1, .L = -1e-9 },
        { .N = 1, .W = 1, .O = -2336 },
        { .N = 1, .W = NAN },
        { .N = 1, .W = 1, .O = INFINITY },
        { .N = 1, .W = 1, .o = -INFINITY },
        { .N = 1, .W = 2 * MODEL_MAX_TIME },
        { .N = 1, .W = 1, .o = MODEL_MIN_TIME / 2 },
        { .N = 1, .W = 1e-320 },        /* subnormal: 1/R would overflow */
        { .N = 4 },                     /* every time zero */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char why[256] = "";
        assert_int_equal(model_validate(&bad[i], why, sizeof why), MODEL_INVALID);
        assert_true(strlen(why) > 0 && !strchr(why, '\n'));
        struct model_result untouched = { .R = -1 };
        assert_int_equal(model_solve(&bad[i], &untouched, why, sizeof why), MODEL_INVALID);
        assert_true(untouched.R == -1);
    }
    struct model_params good = figure_6_3(4);
    assert_int_equal(model_validate(&good, NULL, 0), MODEL_OK);
}

static void test_parsers(void **state)
{
    (void)state;
    char why[256];
    double t;
    const char *bad_times[] = { "", "abc", "1x", "-1", "-0.001", "inf", "nan",
                                "0x10", " 1", "1 ", "1e400", "2e15", "1e", ".", "--1",
                                "1e-101", "1e-400" };
    for (size_t i = 0; i < sizeof bad_times / sizeof bad_times[0]; i++) {
        why[0] = '\0';
        assert_int_equal(model_parse_time(bad_times[i], &t, why, sizeof why), -1);
        assert_true(strlen(why) > 0);
    }
    assert_int_equal(model_parse_time("41789", &t, why, sizeof why), 0);
    assert_true(t == 41789);
    assert_int_equal(model_parse_time("1.5e3", &t, why, sizeof why), 0);
    assert_true(t == 1500);
    assert_int_equal(model_parse_time("-0", &t, why, sizeof why), 0);
    assert_true(t == 0 && !signbit(t));

    int n;
    const char *bad_ns[] = { "", "0", "-1", "+4", "4.0", "abc", "4x", "1000001",
                             "99999999999999999999" };
    for (size_t i = 0; i < sizeof bad_ns / sizeof bad_ns[0]; i++)
        assert_int_equal(model_parse_n(bad_ns[i], &n, why, sizeof why), -1);
    assert_int_equal(model_parse_n("8", &n, why, sizeof why), 0);
    assert_int_equal(n, 8);

    int first, last;
    const char *bad_sweeps[] = { "", "N=", "1..8", "N=1..", "N=..8", "N=8..1",
                                 "N=0..3", "N=1-8", "M=1..8", "n=1..8", "N=1..8..9",
                                 "N=1...8", "N=1..x", "N=1.5..8",
                                 "N=111111111111111111111111111111111111..2" };
    for (size_t i = 0; i < sizeof bad_sweeps / sizeof bad_sweeps[0]; i++)
        assert_int_equal(model_parse_sweep(bad_sweeps[i], &first, &last, why, sizeof why), -1);
    assert_int_equal(model_parse_sweep("N=1..8", &first, &last, why, sizeof why), 0);
    assert_true(first == 1 && last == 8);
    assert_int_equal(model_parse_sweep("N=3..3", &first, &last, why, sizeof why), 0);
    assert_true(first == 3 && last == 3);
}

/* ---- LoPC and LoGPC (seed 001) ---------------------------------------- */

static struct model_params with_kind(struct model_params p, enum model_kind kind, double cv2)
{
    p.kind = kind;
    p.cv2 = cv2;
    return p;
}

/*
 * Seed 001, table 4, synchronous all-to-all remap with two-argument short
 * messages on Alewife (cycles): L = 21, o_s = 15, o_r = 122; LogP
 * 2(o_s + L + o_r) = 316, LoPC 316 + C_r = 453 with C_r = o_s + o_r = 137.
 * Here: no compute (W = 0), a handler o = o_s + o_r = 137, the one-way
 * trip L = 21, no INI (O = 0, so LoGPC adds nothing: its C_n is the INI
 * queue, while the seed's 2 C_n = 46 is Alewife's mesh, which this
 * machine does not have).
 */
static void test_lopc_seed_table_4(void **state)
{
    (void)state;
    struct model_params p = { .kind = MODEL_LOPC, .N = 1, .W = 0, .o = 137, .L = 21 };
    struct model_result r = solved(&p);
    assert_close(r.R, 453, 1e-15);
    assert_close(r.R - r.R_q / 2, 316, 1e-15);    /* the LogP cycle: R minus C_r */
    p.kind = MODEL_LOGPC;
    for (double cv2 = 0; cv2 <= 4; cv2 += 0.5) {
        p.cv2 = cv2;
        assert_close(solved(&p).R, 453, 1e-15);
    }
}

/*
 * The LoGPC quadratic by hand.  N = 1, O = 1, W = o = l = L = 0:
 * R_1 = 4 O = 4, b = 4 N O = 4.
 *   cv2 = 1 (k = 1): (R - 4)^2 = 16, R = 8 = 4 O (N + 1), chapter 6's value.
 *   cv2 = 0 (k = 1/2): (R - 4)^2 = 8, R = 4 + 2 sqrt 2,
 *     R_o = 1 + (1/2) 4 / (2 sqrt 2) = 1 + 1/sqrt 2, Q_o = 4 R_o / R = 1.
 * N = 2, W = 10, o = 1, O = 1, l = L = 0, cv2 = 1: R_1 = 10 + 3 + 4 = 17,
 * b = 8, (R - 17)(R - 8) = 32: R = (25 + sqrt(81 + 128)) / 2.
 */
static void test_logpc_by_hand(void **state)
{
    (void)state;
    struct model_params p = { .kind = MODEL_LOGPC, .cv2 = 1, .N = 1, .O = 1 };
    struct model_result r = solved(&p);
    assert_close(r.R, 8, 1e-15);
    assert_close(r.Q_o, 1, 1e-15);
    p.cv2 = 0;
    r = solved(&p);
    assert_close(r.R, 4 + 2 * sqrt(2), 1e-15);
    assert_close(r.R_o, 1 + 1 / sqrt(2), 1e-15);
    assert_close(r.Q_o, 1, 1e-14);
    assert_close(r.U_o, 4 / (4 + 2 * sqrt(2)), 1e-15);
    p = (struct model_params){ .kind = MODEL_LOGPC, .cv2 = 1, .N = 2, .W = 10, .o = 1, .O = 1 };
    r = solved(&p);
    assert_close(r.R, (25 + sqrt(209)) / 2, 1e-15);
    assert_close(r.R_w, 10, 0);
    assert_close(r.R_q, 2, 0);
    assert_close(r.R_y, 1, 0);
}

/*
 * L = o = 0 and the other limits.  With W = o = l = L = 0 the cycle is
 * four INI residences, R = 4 R_o, so Q_o = 4 N R_o / R = N in every
 * model (6.11); lopc then has R = 4 O.  With l = L = o = 0, lopc is
 * W + 4 O exactly, and logpc with cv2 = 1 is chapter 6 (the PE terms of
 * both vanish, and 6.5 with 6.8 is the M/M/1 queue of logpc).
 */
static void test_lopc_logpc_limits(void **state)
{
    (void)state;
    for (int N = 1; N <= 32; N++)
        for (int kind = MODEL_MVA; kind <= MODEL_LOGPC; kind++)
            for (double cv2 = 0; cv2 <= 2; cv2 += 0.5) {
                struct model_params p = { .kind = (enum model_kind)kind, .cv2 = cv2, .N = N, .O = 2336 };
                struct model_result r = solved(&p);
                assert_close(r.Q_o, N, 1e-9);
                if (kind == MODEL_LOPC)
                    assert_close(r.R, 4 * 2336.0, 1e-15);
            }
    for (int N = 1; N <= 16; N++) {
        struct model_params p = { .N = N, .W = 41789, .O = 2336 };
        assert_close(solved(&p).R, solved(&(struct model_params){ .kind = MODEL_LOGPC, .cv2 = 1,
                     .N = N, .W = 41789, .O = 2336 }).R, 1e-12);
        p.kind = MODEL_LOPC;
        assert_close(solved(&p).R, 41789 + 4 * 2336.0, 1e-15);
    }
}

/*
 * Agreement over a random sample: o = 0 makes logpc (cv2 = 1) and mva the
 * same model; O = 0 makes logpc (any cv2) and lopc the same; and C_n >= 0:
 * logpc's cycle is never shorter than lopc's, and it grows with cv2.
 */
static void test_models_agree(void **state)
{
    (void)state;
    for (int i = 0; i < 20000; i++) {
        struct model_params p = {
            .N = 1 + (int)(uniform01() * 64),
            .W = pow(10, 6 * uniform01()), .o = 0,
            .l = uniform01() < 0.5 ? 0 : pow(10, 4 * uniform01()),
            .L = uniform01() < 0.5 ? 0 : pow(10, 4 * uniform01()),
            .O = pow(10, 5 * uniform01()),
        };
        struct model_result mva = solved(&p);
        struct model_result logpc = solved(&(struct model_params){ .kind = MODEL_LOGPC, .cv2 = 1,
            .N = p.N, .W = p.W, .l = p.l, .L = p.L, .O = p.O });
        assert_close(logpc.R, mva.R, 1e-9);
        assert_close(logpc.Q_o, mva.Q_o, 1e-8);
        assert_close(logpc.R_o, mva.R_o, 1e-8);

        p.o = pow(10, 4 * uniform01());
        double cv2 = 3 * uniform01();
        struct model_result lopc = solved(&(struct model_params){ .kind = MODEL_LOPC,
            .N = p.N, .W = p.W, .o = p.o, .l = p.l, .L = p.L, .O = p.O });
        struct model_result lo = solved(&(struct model_params){ .kind = MODEL_LOGPC, .cv2 = cv2,
            .N = p.N, .W = p.W, .o = p.o, .l = p.l, .L = p.L, .O = p.O });
        struct model_result hi = solved(&(struct model_params){ .kind = MODEL_LOGPC, .cv2 = cv2 + 0.5,
            .N = p.N, .W = p.W, .o = p.o, .l = p.l, .L = p.L, .O = p.O });
        assert_true(lo.R >= lopc.R && hi.R > lo.R && hi.Q_o > lo.Q_o);

        struct model_result no_ini = solved(&(struct model_params){ .kind = MODEL_LOGPC, .cv2 = cv2,
            .N = p.N, .W = p.W, .o = p.o, .l = p.l, .L = p.L, .O = 0 });
        struct model_result no_ini_lopc = solved(&(struct model_params){ .kind = MODEL_LOPC,
            .N = p.N, .W = p.W, .o = p.o, .l = p.l, .L = p.L, .O = 0 });
        assert_close(no_ini.R, no_ini_lopc.R, 1e-15);
        assert_true(no_ini.Q_o == 0 && no_ini_lopc.Q_o == 0);
    }
}

/* More PEs per INI: in every model the INI is busier and its queue longer;
 * where the INI queues (mva, logpc) the cycle grows too; more compute per
 * cycle (W) shortens the queue. */
static void test_lopc_logpc_monotone(void **state)
{
    (void)state;
    for (int kind = MODEL_LOPC; kind <= MODEL_LOGPC; kind++)
        for (double cv2 = 0; cv2 <= 1; cv2 += 1) {
            struct model_params p = with_kind(figure_6_3(1), (enum model_kind)kind, cv2);
            struct model_result previous = solved(&p);
            for (int N = 2; N <= 256; N++) {
                p.N = N;
                struct model_result r = solved(&p);
                assert_true(r.Q_o > previous.Q_o && r.U_o > previous.U_o);
                assert_true(kind == MODEL_LOPC ? r.R == previous.R : r.R > previous.R);
                previous = r;
            }
            p = with_kind(figure_6_3(4), (enum model_kind)kind, cv2);
            double q = solved(&p).Q_o;
            p.W *= 2;
            assert_true(solved(&p).Q_o < q);
        }
}

static void test_lopc_logpc_converge_everywhere(void **state)
{
    (void)state;
    for (int i = 0; i < 200000; i++) {
        enum model_kind kind = uniform01() < 0.5 ? MODEL_LOPC : MODEL_LOGPC;
        double cv2 = uniform01() < 0.1 ? MODEL_MAX_CV2 : 2 * uniform01();
        struct model_params p = random_params();
        p.kind = kind;
        p.cv2 = cv2;
        if (model_validate(&p, NULL, 0) != MODEL_OK)
            continue;
        struct model_result r = solved(&p);
        if (!(isfinite(r.R) && r.R > 0 && isfinite(r.Q_o) &&
              (p.kind == MODEL_LOPC || r.Q_o <= p.N * (1 + MODEL_TOLERANCE))))
            fail_msg("%s cv2=%g N=%d W=%g o=%g l=%g L=%g O=%g: R=%g Q_o=%.17g",
                     model_kind_name(p.kind), p.cv2, p.N, p.W, p.o, p.l, p.L, p.O, r.R, r.Q_o);
    }
}

static void test_kind_and_cv2_invalid(void **state)
{
    (void)state;
    struct model_params bad[] = {
        { .kind = (enum model_kind)7, .N = 1, .W = 1 },
        { .kind = MODEL_LOGPC, .cv2 = -0.5, .N = 1, .W = 1 },
        { .kind = MODEL_LOGPC, .cv2 = NAN, .N = 1, .W = 1 },
        { .kind = MODEL_LOGPC, .cv2 = MODEL_MAX_CV2 * 2, .N = 1, .W = 1 },
        { .kind = MODEL_LOPC, .N = 0, .W = 1 },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char why[256] = "";
        assert_int_equal(model_validate(&bad[i], why, sizeof why), MODEL_INVALID);
        assert_true(strlen(why) > 0 && !strchr(why, '\n'));
    }
    enum model_kind k;
    assert_int_equal(model_kind_parse("logpc", &k), 0);
    assert_int_equal(k, MODEL_LOGPC);
    assert_int_equal(model_kind_parse("LoPC", &k), -1);
    assert_int_equal(model_kind_parse("", &k), -1);
    assert_string_equal(model_kind_name(MODEL_MVA), "mva");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limit_is_n),
        cmocka_unit_test(test_queue_never_exceeds_n),
        cmocka_unit_test(test_hand_checked),
        cmocka_unit_test(test_figure_6_3_independent),
        cmocka_unit_test(test_monotone_in_n),
        cmocka_unit_test(test_converges_everywhere),
        cmocka_unit_test(test_invalid_parameters),
        cmocka_unit_test(test_parsers),
        cmocka_unit_test(test_lopc_seed_table_4),
        cmocka_unit_test(test_logpc_by_hand),
        cmocka_unit_test(test_lopc_logpc_limits),
        cmocka_unit_test(test_models_agree),
        cmocka_unit_test(test_lopc_logpc_monotone),
        cmocka_unit_test(test_lopc_logpc_converge_everywhere),
        cmocka_unit_test(test_kind_and_cv2_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
