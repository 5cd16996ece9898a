/*
 * bench_logp_internal.h - what the two files of ini-bench --logp share
 * (bench_logp.h says what the mode is).
 *
 * Two compute nodes, one per cluster, each a cluster process's only PE.
 * Cluster 0's measures; cluster 1's serves.  Active messages, as seed
 * 000's Split-C ran on (every payload starts with struct lp_msg):
 *
 *   LP_REQ   client -> server  a request; with LP_F_REPLY the server's
 *                              handler answers it at once with an LP_REP
 *   LP_REP   server -> client  the reply (8 bytes)
 *   LP_CTL   client -> server  LP_OP_FLOOD: send `n` LP_DATA of 8 bytes
 *                              back to back; LP_OP_STOP: end
 *   LP_DATA  server -> client  one message of a flood
 *
 * The client runs alone on its core and busy-polls; the server waits
 * (adaptive idle) on the core it shares with the INIs, so that the INIs'
 * work is never the measured compute node's (docs/logp.md, "Where the
 * threads run").
 */
#ifndef INI_BENCH_LOGP_INTERNAL_H
#define INI_BENCH_LOGP_INTERNAL_H

#include <stdint.h>

#include "ini_cn.h"

enum { LP_REQ = 1, LP_REP, LP_CTL, LP_DATA };
enum { LP_F_REPLY = 1 };
enum { LP_OP_FLOOD = 1, LP_OP_STOP };

struct lp_msg {
    uint32_t op;              /* LP_REQ: flags; LP_CTL: LP_OP_* */
    uint32_t n;               /* LP_OP_FLOOD: messages (of LP_MIN_MSG bytes) */
};

#define LP_MIN_MSG   8        /* the seeds' minimum message */
#define LP_MAX_DELTAS 16
#define LP_MAX_BURSTS 24
#define LP_SWEEP     17       /* the overlap test's computations: k g / 8, k = 0..16 */

struct lp_opts {
    int signature, overlap;   /* which tests */
    int n_deltas;
    double deltas_us[LP_MAX_DELTAS];   /* the signature's Δ */
    int n_bursts;
    uint32_t bursts[LP_MAX_BURSTS];    /* the signature's m, ascending */
    uint32_t window;          /* requests outstanding at most */
    uint32_t bulk;            /* bytes of the G test's requests */
    int reps;                 /* bursts (or blocks) per point: the median is kept */
    uint32_t count;           /* messages per overlap point and per round-trip block, at most */
    long timeout_ms;          /* no progress for this long: the run fails */
    int cores[2];             /* the client's and the server's CPU */
};

/* One point of the signature: average initiation interval (us) of a burst
 * of m requests with Δ between them, median of the bursts. */
struct lp_point {
    double delta_us;
    uint32_t m;
    double interval_us;
};

/* The overlap test on one side: time per message T(D) of a flood with D
 * of computation per message. */
struct lp_sweep {
    double g_us;              /* T(0) */
    double d_us[LP_SWEEP], t_us[LP_SWEEP];
    double o_us;              /* median of T(D) - D over D >= 1.25 g (past any knee) */
    double o_knee_us;         /* g - Dmax, Dmax the largest D before T(D) > 1.05 T(0) */
};

struct lp_result {
    double tsc_ghz;
    double rtt_us, eel_us;
    double o_s_us, o_r_us, g_us, G_ns_per_byte, L_us;
    double o_r_steady_us;     /* o_r read as the seed does: steady state - Δ - o_s */
    double delta_big_us;      /* the Δ o_r was read at */
    double bulk_interval_us;  /* steady-state interval of bulk requests */
    int n_points;
    struct lp_point points[LP_MAX_DELTAS * LP_MAX_BURSTS];
    struct lp_sweep send, recv;
};

/* The measuring compute node's state; handlers run on its thread. */
struct lp_client {
    struct ini_pe *pe;
    int peer;                 /* the server's PE */
    uint64_t hz;
    uint64_t replies, data_rx;
    uint64_t rx_delta_ns;     /* computation after each LP_DATA handled */
    uint64_t t_data_last;     /* TSC when the last LP_DATA was handled */
    uint8_t *buf;             /* the requests' payload, o->bulk bytes */
    const struct lp_opts *o;
    char err[160];
};

/* bench_logp_tests.c: every test the options ask for, into r; 0 or -1
 * (c->err says why). */
int lp_measure(struct lp_client *c, struct lp_result *r);
/* A message of `len` bytes starting with {op, n} to the server. */
int lp_send(struct lp_client *c, uint16_t handler, uint32_t op, uint32_t n, uint32_t len);

#endif
