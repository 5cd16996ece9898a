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
 * Two more models of the same workload, from ../shared/seeds/001 (Moritz
 * and Frank, LoGPC), share the structure and the output (docs/model.md):
 *
 *   lopc   LoPC as seed 001 section 5.1.1 uses it: the contention-free
 *          (LogP) cycle plus C_r = o, the processor contention of one
 *          request/reply cycle ("approximately equal to the cost of a
 *          message handler that sends a reply"); the INIs are latency:
 *          R = W + 2l + 2L + 2o + 4O + C_r, no INI queueing.
 *   logpc  LoGPC: lopc plus the network contention C_n of every message
 *          (eq. 8: T_s-r = o_s + L + C_n + o_r), where the contended
 *          resource is an INI, an open M/G/1 queue (Agarwal's channel
 *          model, eq. 3, for one FIFO server) fed the injection rate
 *          m_c = 1/R and closed by it (eq. 7), a quadratic in R:
 *          R = R_lopc + 4 w,  w = k rho O / (1 - rho),
 *          rho = 4 N O / R,   k = (1 + cv2) / 2.
 *
 * With cv2 = 1 the logpc INI term equals chapter 6's (6.5 with 6.8 is the
 * M/M/1 queue), so logpc and mva differ only in the PE contention (C_r = o
 * against the MVA of 6.3-6.10); with o = 0 they coincide, and with O = 0
 * logpc is lopc.  The tests check both.
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

/* Which model to solve.  MODEL_MVA is 0, so a zeroed struct is chapter 6. */
enum model_kind {
    MODEL_MVA = 0,  /* thesis chapter 6, equations 6.1-6.10 */
    MODEL_LOPC,     /* seed 001: LogP cycle + C_r = o, INIs contention-free */
    MODEL_LOGPC     /* seed 001: LoPC + open M/G/1 INI queues closed by rate */
};

/* The limit on cv2 keeps k = (1 + cv2) / 2 moderate; real service time
 * distributions have cv2 of a few at most. */
#define MODEL_MAX_CV2 100.0

/* Architectural and application parameters (thesis tables 6.1 and 6.2). */
struct model_params {
    enum model_kind kind;
    int    N;   /* compute nodes (PEs) sharing one INI node */
    double W;   /* average work between blocking requests */
    double o;   /* message handler overhead on a PE */
    double l;   /* intra-cluster wire latency */
    double L;   /* inter-cluster wire latency */
    double O;   /* INI processing time per message */
    double cv2; /* logpc only: squared coefficient of variation of the
                 * INI service time, 0 (constant, Agarwal's channels) to
                 * MODEL_MAX_CV2; 1 is exponential (chapter 6's assumption) */
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
    double U_o;     /* INI utilisation, 4 N lambda O (not an unknown of
                     * chapter 6: follows from the others) */
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

/* "mva", "lopc", "logpc"; and the inverse (-1 when unknown). */
const char *model_kind_name(enum model_kind kind);
int model_kind_parse(const char *text, enum model_kind *kind);

/*
 * Solves p's model (equations 6.1 to 6.10 for mva).  Returns MODEL_OK and fills out, or
 * an error with a one-line reason in why; out is untouched on error.
 */
enum model_status model_solve(const struct model_params *p,
                              struct model_result *out,
                              char *why, size_t why_len);

/*
 * The largest residual of p's model's equations for r (for mva, 6.1 to
 * 6.10; lopc and logpc replace 6.6-6.9 and 6.8 by their own, see
 * model.c):
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
