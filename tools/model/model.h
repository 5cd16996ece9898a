/*
 * model.h - the analytical model of INI contention (thesis chapter 6).
 *
 * A mean-value (MVA) model, in the style of LoPC, of a clustered
 * multiprocessor in which N compute nodes (PEs) share one INI node.  Each
 * PE thread computes for W cycles, then sends one inter-cluster request and
 * blocks until the reply has been handled.  A request passes through the
 * INI of its own cluster and the INI of the destination cluster, is handled
 * (overhead o) on the destination PE, and the reply comes back the same way:
 * four INI visits (O each, plus queueing) and two PE handlers per cycle.
 * The ten equations 6.1 to 6.10, as implemented (see docs/model.md):
 *
 *   6.1   R   = R_w + 2l + R_q + 2L + 4 R_o + R_y
 *   6.2   lambda = 1 / R
 *   6.3   Q_q = lambda R_q
 *   6.4   Q_y = lambda R_y
 *   6.5   Q_o = 4 N lambda R_o
 *   6.6   R_q = o (1 + Q_q + Q_y)
 *   6.7   R_y = o (1 + Q_q)
 *   6.8   R_o = O (1 + Q_o)
 *   6.9   R_w = (W + o Q_q) / (1 - U_q)
 *   6.10  U_q = o / R
 *
 * Design: given a trial cycle time R, equations 6.2 to 6.10 have a closed
 * form (two small linear systems), so the whole model reduces to the
 * scalar fixed point R = f(R), where f is strictly decreasing on the
 * admissible range R > R_min = max(o (1 + sqrt 5) / 2, 4 N O) and tends to
 * infinity at R_min.  g(R) = f(R) - R is therefore strictly decreasing with
 * exactly one root, which bisection brackets and finds in a bounded number
 * of steps.  The solution is then checked against all ten equations; a
 * residual above tolerance is reported as non-convergence, never printed.
 *
 * All times are in the same unit (the thesis uses processor cycles).
 */
#ifndef INI_MODEL_H
#define INI_MODEL_H

#include <stddef.h>

/* Input bounds: a time is 0 or in [MODEL_MIN_TIME, MODEL_MAX_TIME].  They
 * keep every intermediate value (lambda = 1/R, products of a small and a
 * large time) far from overflow and underflow, so the solver can promise
 * a result for every input that validates. */
#define MODEL_MAX_N    1000000
#define MODEL_MIN_TIME 1e-100
#define MODEL_MAX_TIME 1e15

/* Architectural and application parameters (thesis tables 6.1 and 6.2). */
struct model_params {
    int    N;   /* compute nodes (PEs) sharing one INI node */
    double W;   /* average work between blocking requests */
    double o;   /* message handler overhead on a PE */
    double l;   /* intra-cluster wire latency */
    double L;   /* inter-cluster wire latency */
    double O;   /* INI processing time per message */
};

/* The ten unknowns of equations 6.1 to 6.10 (thesis table 6.2). */
struct model_result {
    double R;       /* average round trip of a compute/request cycle */
    double lambda;  /* requests per unit time sent by one PE (1/R) */
    double R_w;     /* residence time of the compute thread (W plus
                     * the request handlers that interrupt it) */
    double R_q;     /* response time of a request handler on a PE */
    double R_y;     /* response time of a reply handler on a PE */
    double R_o;     /* residence time of a message at an INI */
    double Q_q;     /* average number of requests queued at a PE */
    double Q_y;     /* average number of replies queued at a PE */
    double Q_o;     /* average number of messages queued at an INI
                     * (in service included): the INI queue length */
    double U_q;     /* PE utilisation by request handlers */
};

enum model_status {
    MODEL_OK = 0,
    MODEL_INVALID,       /* parameters outside the model's domain */
    MODEL_NO_CONVERGENCE /* the solution failed its residual check */
};

/*
 * Checks that p is inside the model's domain: 1 <= N <= MODEL_MAX_N, every
 * time 0 or in [MODEL_MIN_TIME, MODEL_MAX_TIME], and at least one positive
 * (otherwise the cycle has zero length and lambda is infinite).  On
 * failure writes a one-line reason into why (if non-NULL).
 */
enum model_status model_validate(const struct model_params *p,
                                 char *why, size_t why_len);

/*
 * Solves equations 6.1 to 6.10 for p.  Returns MODEL_OK and fills out, or
 * an error with a one-line reason in why; out is untouched on error.
 */
enum model_status model_solve(const struct model_params *p,
                              struct model_result *out,
                              char *why, size_t why_len);

/*
 * The largest residual of equations 6.1 to 6.10 for r under p:
 * |lhs - rhs| / max(|lhs|, |rhs|), 0 when both sides are 0, except that
 * for the dimensionless Q_q, Q_y, Q_o and U_q the divisor is at least 1
 * (an absolute error below one message).  model_solve
 * requires it to be at most MODEL_TOLERANCE; tests use it to check
 * solutions independently of the solver's internals.
 */
/* Why 1e-8: bisection leaves R within one ulp of the root, and 6.1 then
 * holds to |f'(R)| ulps, where |f'| <= Q_o^2 / N + O(1) <= N + O(1): about
 * 1e-10 at MODEL_MAX_N, so the tolerance keeps a 100-fold margin, while a
 * wrong root or a NaN would miss it by orders of magnitude. */
#define MODEL_TOLERANCE 1e-8
double model_residual(const struct model_params *p,
                      const struct model_result *r);

/*
 * Parsers for the command line, here so that tests can reach them.  Each
 * accepts the whole string or nothing and returns 0 on success, -1 (with
 * a reason in why) otherwise.
 *   model_parse_time   a decimal number, 0 or in [MODEL_MIN_TIME,
 *                      MODEL_MAX_TIME] (no inf, nan, hex)
 *   model_parse_n      a decimal integer in [1, MODEL_MAX_N]
 *   model_parse_sweep  "N=FIRST..LAST", 1 <= FIRST <= LAST <= MODEL_MAX_N
 */
int model_parse_time(const char *text, double *value, char *why, size_t why_len);
int model_parse_n(const char *text, int *value, char *why, size_t why_len);
int model_parse_sweep(const char *text, int *first, int *last,
                      char *why, size_t why_len);

#endif
