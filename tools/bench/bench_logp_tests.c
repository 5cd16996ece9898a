/*
 * bench_logp_tests.c - the measurements of ini-bench --logp (bench_logp.h),
 * made by the client compute node alone on its core, busy-polling.
 *
 * Seed 000's calibration (section 3.3).  A burst is m requests, each
 * answered by the server's handler at once, with Δ of computation between
 * two and at most `window` unanswered; the clock stops when the last
 * request is issued.  Its average initiation interval T/m against m, one
 * curve per Δ, is the LogP signature, from which the parameters are read:
 *   o_s  the interval of a burst of one (m = 1);
 *   g    the steady-state interval at Δ = 0, from the second half of the
 *        longest burst (the first half includes the window's filling);
 *   o_r  at Δ large enough that the processor is the bottleneck (1.5 g
 *        + 5 us), the steady-state interval is o_s + o_r + Δ (the seed's
 *        reading, o_r_steady); the time of the polls that took the
 *        replies, per reply, is the same o_r read directly, and a
 *        preemption of the client during Δ does not enter it, so it is
 *        the o_r reported and used for L;
 *   G    the same steady state with requests of `bulk` bytes:
 *        (interval - g) / (bulk - 8) per byte;
 *   L    half the 8-byte round trip less o_s and o_r; the round trips
 *        are timed one by one with Δ = 1.5 g + 5 us before each, so
 *        that a gap longer than the round trip does not enter it.
 *
 * Seed 003's CPU overlap test (section 4.3), on each side: a flood of
 * 8-byte messages with D of computation per message, D from 0 to 2 g in
 * steps of g/8.  Sending: D after each ini_send (which completes the send
 * locally: the buffer is the caller's again), the last message answered
 * so that the time covers delivery.  Receiving: the server floods, the
 * client computes D in each message's handler.  The seed reads the
 * overhead as g - Dmax, Dmax the most computation that does not lengthen
 * the flood (o_knee, within the step g/8 and a 5% tolerance); past the
 * knee the time per message is o + D, so the median of T(D) - D over
 * D >= 1.25 g is the same quantity without a threshold (o).
 *
 * Every point is the median of o->reps bursts or floods.
 */
#include "bench.h"
#include "bench_logp_internal.h"

#include <stdio.h>
#include <string.h>

static double cyc_us(const struct lp_client *c, uint64_t t)
{
    return (double)t * 1e6 / (double)c->hz;
}

int lp_send(struct lp_client *c, uint16_t handler, uint32_t op, uint32_t n, uint32_t len)
{
    const struct lp_msg m = { op, n };
    memcpy(c->buf, &m, sizeof(m));
    if (ini_send(c->pe, c->peer, handler, c->buf, len) == 0)
        return 0;
    snprintf(c->err, sizeof(c->err), "ini_send failed (the INIs stopped?)");
    return -1;
}

/* Polls until *ctr >= want; -1 when nothing arrives for the timeout. */
static int wait_for(struct lp_client *c, const uint64_t *ctr, uint64_t want, const char *what)
{
    const uint64_t limit = (uint64_t)c->o->timeout_ms * (c->hz / 1000);
    uint64_t last = *ctr, since = bench_rdtsc();
    while (*ctr < want) {
        if (ini_poll(c->pe) > 0 || *ctr != last) {
            last = *ctr;
            since = bench_rdtsc();
        } else if (bench_rdtsc() - since > limit) {
            snprintf(c->err, sizeof(c->err), "nothing for %ld ms while waiting for %s (%llu of %llu)",
                     c->o->timeout_ms, what, (unsigned long long)*ctr, (unsigned long long)want);
            return -1;
        }
    }
    return 0;
}

/* One burst's times (cycles): the whole (from its start to the return of
 * the last send), its second half (messages m/2..m-1: the steady state),
 * and, in that half, the polls after each send with the replies they
 * handled. */
struct lp_burst {
    uint64_t total, tail, poll, polled;
};

/* One burst (header).  Then every reply is awaited, untimed, so that the
 * next burst starts on an empty path. */
static int burst(struct lp_client *c, uint32_t m, uint64_t delta_ns, uint32_t len, struct lp_burst *b)
{
    const uint64_t base = c->replies;
    const uint32_t half = m / 2, w = c->o->window;
    uint64_t t0 = bench_rdtsc(), th = t0, t1 = t0;
    memset(b, 0, sizeof(*b));
    for (uint32_t i = 0; i < m; i++) {
        if (i == half)
            th = bench_rdtsc();
        if (i && delta_ns)
            bench_spin_ns(delta_ns);
        if (i - (c->replies - base) >= w && wait_for(c, &c->replies, base + i - w + 1, "a reply (window full)") < 0)
            return -1;
        if (lp_send(c, LP_REQ, LP_F_REPLY, 0, len) < 0)
            return -1;
        t1 = bench_rdtsc();
        if (i + 1 == m)
            break;
        uint64_t r0 = c->replies;
        ini_poll(c->pe);    /* the replies that arrived: o_r each */
        if (i >= half) {
            b->poll += bench_rdtsc() - t1;
            b->polled += c->replies - r0;
        }
    }
    b->total = t1 - t0;
    b->tail = t1 - th;
    return wait_for(c, &c->replies, base + m, "the burst's replies");
}

/* What a burst gives, us per message: the average interval, the steady
 * state's, and the poll time per reply handled in the steady state. */
enum { LP_AVERAGE, LP_STEADY, LP_POLL, LP_READS };

/* Each of them, the median over o->reps bursts. */
static int burst_median(struct lp_client *c, uint32_t m, double delta_us, uint32_t len, double med[LP_READS])
{
    double v[LP_READS][256];
    int n = c->o->reps > 256 ? 256 : c->o->reps;
    for (int k = 0; k < n; k++) {
        struct lp_burst b;
        if (burst(c, m, (uint64_t)(delta_us * 1e3), len, &b) < 0)
            return -1;
        v[LP_AVERAGE][k] = cyc_us(c, b.total) / (double)m;
        v[LP_STEADY][k] = cyc_us(c, b.tail) / (double)(m - m / 2);
        v[LP_POLL][k] = cyc_us(c, b.poll) / (double)(b.polled ? b.polled : 1);
    }
    for (int i = 0; i < LP_READS; i++)
        med[i] = bench_stat(v[i], n).med;
    return 0;
}

/* n round trips of 8 bytes, each timed alone, with pause_ns of idle
 * computation before each; us per round trip, the pauses left out. */
static int pingpong(struct lp_client *c, uint32_t n, uint64_t pause_ns, double *us)
{
    const uint64_t base = c->replies;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (pause_ns)
            bench_spin_ns(pause_ns);
        uint64_t t0 = bench_rdtsc();
        if (lp_send(c, LP_REQ, LP_F_REPLY, 0, LP_MIN_MSG) < 0 ||
            wait_for(c, &c->replies, base + i + 1, "a round trip's reply") < 0)
            return -1;
        sum += bench_rdtsc() - t0;
    }
    *us = cyc_us(c, sum) / (double)n;
    return 0;
}

/* The round trip: the median of o->reps blocks.  A pause longer than the
 * gap g before each keeps Δg out of it (a round trip shorter than the gap
 * would otherwise wait for it): L is the path's latency, not g's. */
static int round_trip(struct lp_client *c, double pause_us, struct lp_result *r)
{
    double v[256], us;
    int n = c->o->reps > 256 ? 256 : c->o->reps;
    uint64_t pause_ns = (uint64_t)(pause_us * 1e3);
    if (pingpong(c, c->o->count < 200 ? c->o->count : 200, pause_ns, &us) < 0)        /* warm-up */
        return -1;
    for (int k = 0; k < n; k++)
        if (pingpong(c, c->o->count, pause_ns, &v[k]) < 0)
            return -1;
    r->rtt_us = bench_stat(v, n).med;
    r->eel_us = r->rtt_us / 2;
    return 0;
}

/* The parameters, each from its own bursts, then the signature's grid. */
static int signature(struct lp_client *c, struct lp_result *r)
{
    const struct lp_opts *o = c->o;
    const uint32_t big = o->bursts[o->n_bursts - 1];
    double one[LP_READS], flat[LP_READS], busy[LP_READS], bulk[LP_READS];
    if (burst_median(c, 1, 0, LP_MIN_MSG, one) < 0 || burst_median(c, big, 0, LP_MIN_MSG, flat) < 0)
        return -1;
    r->o_s_us = one[LP_AVERAGE];
    r->g_us = flat[LP_STEADY];
    r->delta_big_us = 1.5 * r->g_us + 5;
    if (round_trip(c, r->delta_big_us, r) < 0)
        return -1;
    if (burst_median(c, big, r->delta_big_us, LP_MIN_MSG, busy) < 0 || burst_median(c, big, 0, o->bulk, bulk) < 0)
        return -1;
    r->o_r_us = busy[LP_POLL];
    r->o_r_steady_us = busy[LP_STEADY] - r->delta_big_us - r->o_s_us;
    r->bulk_interval_us = bulk[LP_STEADY];
    r->G_ns_per_byte = (r->bulk_interval_us - r->g_us) * 1e3 / (double)(o->bulk - LP_MIN_MSG);
    r->L_us = r->eel_us - r->o_s_us - r->o_r_us;
    r->n_points = 0;
    for (int d = 0; d < o->n_deltas; d++)
        for (int b = 0; b < o->n_bursts; b++) {
            struct lp_point *p = &r->points[r->n_points++];
            p->delta_us = o->deltas_us[d];
            p->m = o->bursts[b];
            double med[LP_READS];
            if (burst_median(c, p->m, p->delta_us, LP_MIN_MSG, med) < 0)
                return -1;
            p->interval_us = med[LP_AVERAGE];
        }
    return 0;
}

/* Seed 003's flood with computation, sending side: us per message. */
static int flood_send(struct lp_client *c, uint64_t d_ns, double *us)
{
    const uint32_t n = c->o->count;
    const uint64_t base = c->replies, t0 = bench_rdtsc();
    for (uint32_t i = 0; i < n; i++) {
        if (lp_send(c, LP_REQ, i + 1 == n ? LP_F_REPLY : 0, 0, LP_MIN_MSG) < 0)
            return -1;
        if (d_ns)
            bench_spin_ns(d_ns);
    }
    if (wait_for(c, &c->replies, base + 1, "the flood's reply") < 0)
        return -1;
    *us = cyc_us(c, bench_rdtsc() - t0) / (double)n;
    return 0;
}

/* ... receiving side: the server floods, each handler computes d_ns. */
static int flood_recv(struct lp_client *c, uint64_t d_ns, double *us)
{
    const uint32_t n = c->o->count;
    c->data_rx = 0;
    c->rx_delta_ns = d_ns;
    const uint64_t t0 = bench_rdtsc();
    int rc = lp_send(c, LP_CTL, LP_OP_FLOOD, n, LP_MIN_MSG) < 0 ? -1 : wait_for(c, &c->data_rx, n, "the flood");
    c->rx_delta_ns = 0;
    if (rc == 0)
        *us = cyc_us(c, c->t_data_last - t0) / (double)n;
    return rc;
}

static int flood_median(struct lp_client *c, int recv, double d_us, double *us)
{
    double v[256];
    int n = c->o->reps > 256 ? 256 : c->o->reps;
    for (int k = 0; k < n; k++)
        if ((recv ? flood_recv : flood_send)(c, (uint64_t)(d_us * 1e3), &v[k]) < 0)
            return -1;
    *us = bench_stat(v, n).med;
    return 0;
}

static int sweep(struct lp_client *c, int recv, struct lp_sweep *s)
{
    double g;
    if (flood_median(c, recv, 0, &g) < 0)     /* the scale of D; also a warm-up */
        return -1;
    double past[LP_SWEEP];
    int n_past = 0;
    for (int k = 0; k < LP_SWEEP; k++) {
        s->d_us[k] = g * k / 8;
        if (flood_median(c, recv, s->d_us[k], &s->t_us[k]) < 0)
            return -1;
        if (k >= 10)
            past[n_past++] = s->t_us[k] - s->d_us[k];
    }
    s->g_us = s->t_us[0];
    s->o_us = bench_stat(past, n_past).med;
    double dmax = 0;
    for (int k = 1; k < LP_SWEEP && s->t_us[k] <= 1.05 * s->t_us[0]; k++)
        dmax = s->d_us[k];
    s->o_knee_us = s->g_us - dmax;
    return 0;
}

int lp_measure(struct lp_client *c, struct lp_result *r)
{
    memset(r, 0, sizeof(*r));
    r->tsc_ghz = (double)c->hz / 1e9;
    if (c->o->signature ? signature(c, r) < 0 : round_trip(c, 0, r) < 0)
        return -1;
    if (c->o->overlap && (sweep(c, 0, &r->send) < 0 || sweep(c, 1, &r->recv) < 0))
        return -1;
    return 0;
}
