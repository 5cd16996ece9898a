/*
 * model.c - solver for the INI contention model of thesis chapter 6
 * (equations 6.1 to 6.10; see model.h for the equations and docs/model.md
 * for how they were reconstructed).
 *
 * How it is solved.  Fix a trial cycle time R.  Then lambda = 1/R and
 * U_q = o/R are known, and the rest falls apart into independent pieces:
 *
 *   PE handlers (6.3, 6.4, 6.6, 6.7), with a = o/R:
 *       Q_q = a (1 + Q_q + Q_y),  Q_y = a (1 + Q_q)
 *    => Q_q = a (1 + a) / D,  Q_y = a / D,  D = 1 - a - a^2
 *   INI (6.5, 6.8), with b = 4 N O / R:
 *       Q_o = b (1 + Q_o)  =>  Q_o = b / (1 - b) = 4 N O / (R - 4 N O)
 *   compute thread (6.9):  R_w = (W + o Q_q) / (1 - a)
 *
 * and 6.1 becomes the scalar equation R = f(R).  The pieces are finite and
 * positive only while D > 0 and b < 1, i.e. for R > R_min with
 * R_min = max(o (1 + sqrt 5) / 2, 4 N O); every term of f decreases as R
 * grows, and f blows up as R approaches R_min (whenever R_min > 0).  So
 * g(R) = f(R) - R is strictly decreasing from +infinity, crosses zero
 * exactly once, and bisection between a point where g >= 0 and one where
 * g <= 0 finds the root in at most a few thousand halvings (it stops when
 * the bracket is two adjacent doubles).  The upper end of the bracket is
 * proved, not searched for: see upper_bracket().
 *
 * lopc and logpc (seed 001) need no search: lopc is a sum, and logpc's
 * closing equation (seed 001 eq. 7 with the INI wait) is a quadratic in R
 * whose larger root is the one above the INI's saturation point; see
 * solve_lopc_family().
 */
#include "model.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* (1 + sqrt 5) / 2: o/R must stay below its inverse for D = 1 - a - a^2
 * (the PE handler queue denominator) to be positive. */
#define GOLDEN_RATIO 1.6180339887498948482

/* Halvings of a bracket of doubles never exceed ~2100 (exponent range plus
 * mantissa); the cap only guards against a logic error. */
#define MAX_BISECTIONS 4000

static void set_why(char *why, size_t why_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_why(char *why, size_t why_len, const char *fmt, ...)
{
    if (!why || why_len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
}

static int time_ok(const char *name, double v, char *why, size_t why_len)
{
    if (!(v == 0 || (v >= MODEL_MIN_TIME && v <= MODEL_MAX_TIME))) {
        set_why(why, why_len, "%s must be 0 or in [%g, %g] (got %g)",
                name, MODEL_MIN_TIME, MODEL_MAX_TIME, v);
        return 0;
    }
    return 1;
}

const char *model_kind_name(enum model_kind kind)
{
    switch (kind) {
    case MODEL_MVA:   return "mva";
    case MODEL_LOPC:  return "lopc";
    case MODEL_LOGPC: return "logpc";
    }
    return "?";
}

int model_kind_parse(const char *text, enum model_kind *kind)
{
    static const enum model_kind all[] = { MODEL_MVA, MODEL_LOPC, MODEL_LOGPC };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (!strcmp(text, model_kind_name(all[i]))) {
            *kind = all[i];
            return 0;
        }
    return -1;
}

enum model_status model_validate(const struct model_params *p,
                                 char *why, size_t why_len)
{
    if (p->kind != MODEL_MVA && p->kind != MODEL_LOPC && p->kind != MODEL_LOGPC) {
        set_why(why, why_len, "unknown model %d", (int)p->kind);
        return MODEL_INVALID;
    }
    if (!(p->cv2 >= 0 && p->cv2 <= MODEL_MAX_CV2)) {
        set_why(why, why_len, "cv2 must be in [0, %g] (got %g)", MODEL_MAX_CV2, p->cv2);
        return MODEL_INVALID;
    }
    if (p->N < 1 || p->N > MODEL_MAX_N) {
        set_why(why, why_len, "N must be an integer in [1, %d] (got %d)",
                MODEL_MAX_N, p->N);
        return MODEL_INVALID;
    }
    if (!time_ok("W", p->W, why, why_len) || !time_ok("o", p->o, why, why_len) ||
        !time_ok("l", p->l, why, why_len) || !time_ok("L", p->L, why, why_len) ||
        !time_ok("O", p->O, why, why_len))
        return MODEL_INVALID;
    if (p->W + p->o + p->l + p->L + p->O <= 0) {
        set_why(why, why_len,
                "at least one of W, o, l, L, O must be positive "
                "(otherwise the cycle takes no time)");
        return MODEL_INVALID;
    }
    return MODEL_OK;
}

/*
 * Fills r with the solution of 6.2 to 6.10 for the trial cycle time R and
 * returns f(R), the right-hand side of 6.1.  Returns +infinity when R is
 * at or below R_min (a queue would be infinite): to the bisection that
 * means "the root lies above R".
 */
static double cycle_from_trial(const struct model_params *p, double R,
                               struct model_result *r)
{
    double a = p->o / R;                    /* U_q, by 6.10 */
    double pe_denominator = 1.0 - a - a * a;
    double ini_load = 4.0 * p->N * p->O;    /* INI busy time per unit of
                                             * cycle: 4 visits from each
                                             * of N PEs */
    double ini_slack = R - ini_load;        /* R (1 - b), computed without
                                             * forming b, to keep precision
                                             * when b is close to 1 */
    if (!(pe_denominator > 0) || !(ini_slack > 0))
        return INFINITY;

    r->R = R;
    r->lambda = 1.0 / R;                                /* 6.2 */
    r->U_q = a;                                         /* 6.10 */
    r->Q_q = a * (1.0 + a) / pe_denominator;            /* 6.3 with 6.6 */
    r->Q_y = a / pe_denominator;                        /* 6.4 with 6.7 */
    r->R_q = p->o * (1.0 + r->Q_q + r->Q_y);            /* 6.6 */
    r->R_y = p->o * (1.0 + r->Q_q);                     /* 6.7 */
    r->Q_o = ini_load / ini_slack;                      /* 6.5 with 6.8 */
    r->R_o = p->O * (R / ini_slack);                    /* 6.8; the ratio
                                                         * first, so that
                                                         * O R cannot
                                                         * underflow */
    r->R_w = (p->W + p->o * r->Q_q) / (1.0 - a);        /* 6.9 */
    r->U_o = ini_load / R;
    return r->R_w + 2.0 * p->l + r->R_q + 2.0 * p->L + 4.0 * r->R_o + r->R_y;
}

/*
 * A cycle time at which g <= 0, from bounds on each term.  Take
 *   R >= 8 N O     so b <= 1/2 and R_o = O / (1 - b) <= 2 O,
 *   R >= 4 o       so a <= 1/4, D >= 11/16, Q_q <= 5/11, Q_y <= 4/11,
 *                  R_q <= 20/11 o, R_y <= 16/11 o and
 *                  R_w <= (W + 5/11 o) / (3/4) <= 4/3 W + 20/33 o;
 * then f(R) <= 4/3 W + 2l + 2L + 8 O + (20/33 + 20/11 + 16/11) o
 *           <  4/3 W + 2l + 2L + 8 O + 4 o.
 * Any R no smaller than each of these three bounds has f(R) <= R.  The
 * bound can be tight (W = o = l = L = 0, N = 1 has its root at exactly
 * 8 O), so it is doubled to make g strictly negative despite rounding.
 */
static double upper_bracket(const struct model_params *p)
{
    double hi = 8.0 * p->N * p->O;
    if (4.0 * p->o > hi)
        hi = 4.0 * p->o;
    double terms = 4.0 / 3.0 * p->W + 2.0 * p->l + 2.0 * p->L + 8.0 * p->O + 4.0 * p->o;
    return 2.0 * (terms > hi ? terms : hi);
}

/*
 * lopc and logpc (seed 001).  The LogP cycle of this workload is
 * W + 2l + 2L + 2o + 4O (compute, two one-way trips through two INIs
 * each, the request and the reply handler); LoPC adds C_r = o, the wait
 * of a request behind the handler in progress at its destination (seed
 * 001 section 5.1.1: C_r is "approximately equal to the cost of a message
 * handler that sends a reply", o_r + o_s, which is o here).  So
 *
 *   R_1 = W + 2l + 2L + 3o + 4O                                (lopc)
 *
 * LoGPC adds the contention C_n of each message's two INI visits: an open
 * M/G/1 queue per INI (Pollaczek-Khinchine; Agarwal's eq. 3 for a single
 * FIFO server of service time O instead of a B-flit channel) whose
 * arrival rate is the closed injection rate, 4 N m_c with m_c = 1/R
 * (eq. 7), so with b = 4 N O (rho = b/R) and k = (1 + cv2)/2:
 *
 *   w = k rho O / (1 - rho) = k b O / (R - b),   R = R_1 + 4 w
 *   => (R - R_1)(R - b) = 4 k b O,
 *   R = ((R_1 + b) + sqrt((R_1 - b)^2 + 16 k b O)) / 2           (logpc)
 *
 * the root above b (the other lies below both R_1 and b).  hypot keeps
 * the square root free of overflow and underflow.
 */
static void solve_lopc_family(const struct model_params *p, struct model_result *r)
{
    double base = p->W + 2.0 * p->l + 2.0 * p->L + 3.0 * p->o + 4.0 * p->O;
    double ini_load = 4.0 * p->N * p->O;
    double k = p->kind == MODEL_LOGPC ? (1.0 + p->cv2) / 2.0 : 0.0;
    double R = base;
    double wait = 0;
    if (k > 0 && ini_load > 0) {
        R = ((base + ini_load) + hypot(base - ini_load, 4.0 * sqrt(k * ini_load) * sqrt(p->O))) / 2.0;
        wait = k * p->O * (ini_load / (R - ini_load));
    }
    r->R = R;
    r->lambda = 1.0 / R;
    r->R_w = p->W;                     /* no BKT stretching: C_r stands for it */
    r->R_q = 2.0 * p->o;               /* o, plus C_r = o of waiting */
    r->R_y = p->o;
    r->R_o = p->O + wait;
    r->Q_q = r->R_q / R;
    r->Q_y = r->R_y / R;
    r->Q_o = 4.0 * p->N * r->R_o / R;   /* Little, as 6.5 */
    r->U_q = p->o / R;
    r->U_o = ini_load / R;
}

enum model_status model_solve(const struct model_params *p,
                              struct model_result *out,
                              char *why, size_t why_len)
{
    if (model_validate(p, why, why_len) != MODEL_OK)
        return MODEL_INVALID;

    if (p->kind != MODEL_MVA) {
        struct model_result r;
        solve_lopc_family(p, &r);
        double residual = model_residual(p, &r);
        if (!(residual <= MODEL_TOLERANCE)) {
            set_why(why, why_len, "no convergence: residual %g of the %s equations "
                    "exceeds %g", residual, model_kind_name(p->kind), MODEL_TOLERANCE);
            return MODEL_NO_CONVERGENCE;
        }
        *out = r;
        return MODEL_OK;
    }

    /* Lower end: R_min, where g is +infinity, or, if larger, the limit of
     * f at infinity (f only decreases towards it, so g >= 0 there). */
    double r_min = GOLDEN_RATIO * p->o;
    if (4.0 * p->N * p->O > r_min)
        r_min = 4.0 * p->N * p->O;
    double f_at_infinity = p->W + 2.0 * p->l + 2.0 * p->L + 2.0 * p->o + 4.0 * p->O;
    double lo = r_min > f_at_infinity ? r_min : f_at_infinity;
    double hi = upper_bracket(p);

    struct model_result trial;
    double g_lo = lo > 0 ? cycle_from_trial(p, lo, &trial) - lo : INFINITY;
    double g_hi = cycle_from_trial(p, hi, &trial) - hi;
    if (!(g_hi <= 0) || hi < lo) {
        set_why(why, why_len, "internal error: cannot bracket the cycle time "
                "(lo %g, hi %g, g(hi) %g)", lo, hi, g_hi);
        return MODEL_NO_CONVERGENCE;
    }

    for (int i = 0; i < MAX_BISECTIONS && g_lo != 0 && g_hi != 0; i++) {
        double mid = lo + (hi - lo) / 2.0;
        if (mid <= lo || mid >= hi)
            break;                  /* lo and hi are adjacent doubles */
        double g_mid = cycle_from_trial(p, mid, &trial) - mid;
        if (g_mid > 0) {
            lo = mid;
            g_lo = g_mid;
        } else {
            hi = mid;
            g_hi = g_mid;
        }
    }

    /* Report the end of the bracket that satisfies 6.1 best; lo may still
     * be the singular R_min, where g_lo is infinite. */
    double R = fabs(g_lo) < fabs(g_hi) ? lo : hi;
    if (cycle_from_trial(p, R, &trial) == INFINITY) {
        set_why(why, why_len, "no convergence: cycle time %g is not above "
                "the saturation point %g", R, r_min);
        return MODEL_NO_CONVERGENCE;
    }
    double residual = model_residual(p, &trial);
    if (!(residual <= MODEL_TOLERANCE)) {
        set_why(why, why_len, "no convergence: residual %g of equations "
                "6.1-6.10 exceeds %g", residual, MODEL_TOLERANCE);
        return MODEL_NO_CONVERGENCE;
    }
    *out = trial;
    return MODEL_OK;
}

/* |lhs - rhs| / max(|lhs|, |rhs|, floor); 0 when that scale is 0. */
static double scaled_gap(double lhs, double rhs, double floor)
{
    double scale = fmax(fmax(fabs(lhs), fabs(rhs)), floor);
    if (scale == 0)
        return 0;
    double gap = fabs(lhs - rhs) / scale;
    return isnan(gap) ? INFINITY : gap;
}

/* One equation of a model, its two sides and the floor of scaled_gap. */
struct equation {
    double lhs, rhs, floor;
};

/* The largest scaled_gap of n equations. */
static double worst_gap(const struct equation *eq, size_t n)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        double gap = scaled_gap(eq[i].lhs, eq[i].rhs, eq[i].floor);
        if (gap > worst)
            worst = gap;
    }
    return worst;
}

/* The lopc/logpc equations (see solve_lopc_family): 6.1 to 6.5 and 6.10
 * as in chapter 6, then R_w = W, R_q = 2o, R_y = o in place of 6.6, 6.7,
 * 6.9, and R_o = O + k b O / (R - b) in place of 6.8; U_o = b / R. */
static double lopc_residual(const struct model_params *p, const struct model_result *r)
{
    double ini_load = 4.0 * p->N * p->O;
    double k = p->kind == MODEL_LOGPC ? (1.0 + p->cv2) / 2.0 : 0.0;
    double slack = r->R - ini_load;
    double R_o = p->O;
    if (k > 0 && ini_load > 0)
        R_o = slack > 0 ? p->O + k * p->O * (ini_load / slack) : INFINITY;
    const struct equation eq[] = {
        { r->R, r->R_w + 2.0 * p->l + r->R_q + 2.0 * p->L + 4.0 * r->R_o + r->R_y, 0 },
        { r->lambda, 1.0 / r->R, 0 },
        { r->Q_q, r->lambda * r->R_q, 1 },
        { r->Q_y, r->lambda * r->R_y, 1 },
        { r->Q_o, 4.0 * p->N * r->lambda * r->R_o, 1 },
        { r->R_w, p->W, 0 },
        { r->R_q, 2.0 * p->o, 0 },
        { r->R_y, p->o, 0 },
        { r->R_o, R_o, 0 },
        { r->U_q, p->o / r->R, 1 },
        { r->U_o, ini_load / r->R, 1 },
    };
    return worst_gap(eq, sizeof eq / sizeof eq[0]);
}

double model_residual(const struct model_params *p, const struct model_result *r)
{
    if (p->kind != MODEL_MVA)
        return lopc_residual(p, r);
    /* Times and lambda are compared relatively.  Queue lengths and the
     * utilisation are numbers of messages (or a fraction), so they are
     * compared relatively above 1 and absolutely below: a queue of 1e-315
     * messages (o = 1e-300 against R = 1e15 underflows to a subnormal) is
     * 0 for every purpose, and its relative error is meaningless. */
    const struct equation eq[] = {
        { r->R, r->R_w + 2.0 * p->l + r->R_q + 2.0 * p->L + 4.0 * r->R_o + r->R_y, 0 }, /* 6.1 */
        { r->lambda, 1.0 / r->R, 0 },                               /* 6.2 */
        { r->Q_q, r->lambda * r->R_q, 1 },                          /* 6.3 */
        { r->Q_y, r->lambda * r->R_y, 1 },                          /* 6.4 */
        { r->Q_o, 4.0 * p->N * r->lambda * r->R_o, 1 },             /* 6.5 */
        { r->R_q, p->o * (1.0 + r->Q_q + r->Q_y), 0 },              /* 6.6 */
        { r->R_y, p->o * (1.0 + r->Q_q), 0 },                       /* 6.7 */
        { r->R_o, p->O * (1.0 + r->Q_o), 0 },                       /* 6.8 */
        { r->R_w, (p->W + p->o * r->Q_q) / (1.0 - r->U_q), 0 },     /* 6.9 */
        { r->U_q, p->o / r->R, 1 },                                 /* 6.10 */
        { r->U_o, 4.0 * p->N * p->O / r->R, 1 },                    /* U_o */
    };
    return worst_gap(eq, sizeof eq / sizeof eq[0]);
}

/* --- command-line parsing ------------------------------------------------ */

/* strtod also takes leading blanks, "inf", "nan" and hexadecimal; a
 * parameter is plain decimal, so anything else is refused up front. */
static int plain_decimal(const char *text)
{
    if (*text == '\0')
        return 0;
    for (const char *c = text; *c; c++)
        if (!strchr("0123456789.eE+-", *c))
            return 0;
    return 1;
}

int model_parse_time(const char *text, double *value, char *why, size_t why_len)
{
    if (!plain_decimal(text)) {
        set_why(why, why_len, "'%s' is not a number", text);
        return -1;
    }
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (*end != '\0') {
        set_why(why, why_len, "'%s' is not a number", text);
        return -1;
    }
    if (errno == ERANGE || !isfinite(v)) {
        set_why(why, why_len, "'%s' is out of range", text);
        return -1;
    }
    if (v < 0) {
        set_why(why, why_len, "'%s' is negative; times must be >= 0", text);
        return -1;
    }
    if (v > MODEL_MAX_TIME) {
        set_why(why, why_len, "'%s' exceeds the maximum %g", text, MODEL_MAX_TIME);
        return -1;
    }
    if (v > 0 && v < MODEL_MIN_TIME) {
        set_why(why, why_len, "'%s' is below the minimum %g (use 0)",
                text, MODEL_MIN_TIME);
        return -1;
    }
    *value = v + 0.0;   /* turns -0 into +0 */
    return 0;
}

int model_parse_n(const char *text, int *value, char *why, size_t why_len)
{
    size_t digits = strspn(text, "0123456789");
    if (digits == 0 || text[digits] != '\0') {
        set_why(why, why_len, "'%s' is not a positive integer", text);
        return -1;
    }
    errno = 0;
    long v = strtol(text, NULL, 10);
    if (errno == ERANGE || v < 1 || v > MODEL_MAX_N) {
        set_why(why, why_len, "'%s' is outside [1, %d]", text, MODEL_MAX_N);
        return -1;
    }
    *value = (int)v;
    return 0;
}

int model_parse_sweep(const char *text, int *first, int *last,
                      char *why, size_t why_len)
{
    const char *range = text + 2;
    const char *dots = strncmp(text, "N=", 2) == 0 ? strstr(range, "..") : NULL;
    char first_text[32];
    if (!dots || (size_t)(dots - range) >= sizeof first_text) {
        set_why(why, why_len, "'%s' is not of the form N=FIRST..LAST", text);
        return -1;
    }
    memcpy(first_text, range, (size_t)(dots - range));
    first_text[dots - range] = '\0';
    int a, b;
    char inner[128];
    if (model_parse_n(first_text, &a, inner, sizeof inner) != 0 ||
        model_parse_n(dots + 2, &b, inner, sizeof inner) != 0) {
        set_why(why, why_len, "'%s' is not a valid N=FIRST..LAST range: %s",
                text, inner);
        return -1;
    }
    if (a > b) {
        set_why(why, why_len, "'%s': FIRST must not exceed LAST", text);
        return -1;
    }
    *first = a;
    *last = b;
    return 0;
}
