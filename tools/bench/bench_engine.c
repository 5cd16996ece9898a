/*
 * bench_engine.c - the seed's tests over any layer (see bench.h).
 *
 * Ping-pong: PING of 8 bytes, the peer answers PONG; round trip = total
 * time / count, EEL = round trip / 2.
 *
 * Flood at queue depth q: at most q messages outstanding; issue q, wait
 * for q/2 completions, issue q/2, ...; the last DATA asks for END and the
 * run ends when END arrives.  Per-message gap = total time / count.
 *
 * CPU overlap (o_s, o_r): the flood at q = 1 with a computation of D ns
 * inserted between initiating a send and waiting for its completion
 * (o_s), or at the receiver after each message (o_r).  The seed infers the
 * overhead as g - Dmax, Dmax being the largest D that does not lengthen
 * the run; past that knee the time per message is overhead + D, so we
 * measure once with D = 1.5 g (beyond the knee for any overhead >= 0) and
 * report T(D) - D, which is the same quantity without a search.
 *
 * Every test runs p->runs times after one calibration run that also picks
 * the message count: at most p->count, and few enough that a run takes
 * about p->run_budget_ns.
 */
#include "bench.h"
#include "clock.h"

#include <errno.h>
#include <sched.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const bench_layer_names[L_COUNT] = {
    "raw-dpdk", "udp-ip", "reliable", "compute-to-compute", "kernel-udp",
    "ucx-am-tcp", "ucx-am-sm", "ofi-rxd-udp",
};

/* ---- clock ---- */

uint64_t bench_tsc_hz(void)
{
    static uint64_t hz;
    if (hz)
        return hz;
    uint64_t a = ini_mono_ns();
    uint64_t r0 = bench_rdtsc();
    ini_sleep_until_ns(a + 20000000u);
    uint64_t ns = ini_mono_ns() - a;
    uint64_t r1 = bench_rdtsc();
    hz = (uint64_t)((double)(r1 - r0) * 1e9 / (double)ns);
    return hz;
}

void bench_spin_ns(uint64_t ns)
{
    uint64_t end = bench_rdtsc() + ns * bench_tsc_hz() / 1000000000u;
    while (bench_rdtsc() < end)
        __builtin_ia32_pause();
}

int bench_pin_cpu(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof(set), &set);
}

static inline double ticks_ns(const struct bench_eng *e, uint64_t t)
{
    return (double)t * 1e9 / (double)e->hz;
}

/* ---- statistics ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

struct stat2 bench_stat(double *v, int n)
{
    struct stat2 s = { 0, 0 };
    if (n <= 0)
        return s;
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    s.min = v[0];
    s.med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return s;
}

/* ---- arguments ---- */

/* A comma list of integers in lo..hi, at most max of them, into out.
 * Here, below every mode's main (ini-bench.c, bench_probe.c,
 * bench_handover.c, bench_logp.c), so that no mode calls up into
 * ini-bench.c. */
int bench_parse_list(const char *s, long *out, int max, long lo, long hi)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        long x = strtol(p, &end, 10);
        if (end == p || errno || x < lo || x > hi || n >= max || (*end && *end != ','))
            return -1;
        out[n++] = x;
        p = *end ? end + 1 : end;
        if (*end && !*p)
            return -1;
    }
    return n;
}

void bench_derive(const struct bench_params *p, struct layer_result *r)
{
    r->g_ns = 0;
    for (int i = 0; i < p->n_depths; i++)
        if (r->flood[i].med > 0 && (r->g_ns == 0 || r->flood[i].med < r->g_ns)) {
            r->g_ns = r->flood[i].med;
            r->best_depth = p->depths[i];
        }
    r->rate_mps = r->g_ns > 0 ? 1e3 / r->g_ns : 0;
    int last = p->n_sizes - 1;
    if (last > 0 && r->size_ns[last].med > 0) {
        /* G is the slope from the small sizes to the largest.  The small
         * end is the median of the first (up to) three sizes' gaps, not
         * the first alone: a stall in one short measurement (11 us once,
         * in a --quick run on a busy machine) would otherwise outweigh
         * the 64 KB message's whole per-byte cost and turn G negative. */
        int nb = last < 3 ? last : 3;
        double gap[3], size[3];
        for (int i = 0; i < nb; i++) {
            gap[i] = r->size_ns[i].med;
            size[i] = (double)p->sizes[i];
        }
        double base_gap = bench_stat(gap, nb).med, base_size = bench_stat(size, nb).med;
        r->G_ns_per_byte = (r->size_ns[last].med - base_gap) / ((double)p->sizes[last] - base_size);
        r->gbps_max = (double)p->sizes[last] * 8.0 / r->size_ns[last].med;
    }
    r->M_bytes = r->G_ns_per_byte > 0 ? r->g_ns / r->G_ns_per_byte : 0;
}

/* ---- the protocol ---- */

void bench_eng_init(struct bench_eng *e, const struct bench_ops *ops, void *ctx)
{
    memset(e, 0, sizeof(*e));
    e->ops = ops;
    e->ctx = ctx;
    e->hz = bench_tsc_hz();
    e->stall_ns = 3000000000ull;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void hdr(uint8_t h[BENCH_HDR], uint8_t kind, uint8_t flags, uint16_t credit_every, uint32_t arg)
{
    h[0] = kind;
    h[1] = flags;
    h[2] = (uint8_t)credit_every;
    h[3] = (uint8_t)(credit_every >> 8);
    put32(h + 4, arg);
}

static int fail(struct bench_eng *e, const char *what)
{
    if (!e->failed)
        snprintf(e->err, sizeof(e->err), "%s", what);
    e->failed = 1;
    return -1;
}

void bench_deliver(struct bench_eng *e, const uint8_t h[BENCH_HDR], uint32_t len)
{
    switch (h[0]) {
    case BK_DATA: {
        if (h[1] & BF_RESET)
            e->rx_data = 0;
        e->rx_data++;
        uint16_t every = (uint16_t)(h[2] | h[3] << 8);
        if (every && e->rx_data % every == 0) {
            e->pend_credit = 1;
            e->credit_val = e->rx_data;
        }
        if (h[1] & BF_REPLY)
            e->pend_end++;
        e->pend_delta_ns += get32(h + 4);
        break;
    }
    case BK_PING:
        e->pend_pong++;
        e->pong_len = len;
        break;
    case BK_PONG: e->rx_pong++; break;
    case BK_CREDIT: e->credit = get32(h + 4); break;
    case BK_END: e->rx_end++; break;
    case BK_STOP: e->stop = 1; break;
    default: break;
    }
}

/* Sends, polling while the layer has no room. */
static int eng_send(struct bench_eng *e, const uint8_t h[BENCH_HDR], uint32_t len)
{
    uint64_t since = 0;
    while (e->ops->send(e->ctx, h, len) < 0) {
        e->ops->flush(e->ctx);
        e->ops->poll(e->ctx);
        uint64_t now = bench_rdtsc();
        if (!since)
            since = now;
        else if (ticks_ns(e, now - since) > (double)e->stall_ns)
            return fail(e, "send: the layer took no message for 3 s");
    }
    return 0;
}

/* Answers what arrived: PONGs, the latest CREDIT, END; then the receive
 * side's inserted computation. */
static void service(struct bench_eng *e)
{
    uint8_t h[BENCH_HDR];
    int sent = 0;
    while (e->pend_pong) {
        e->pend_pong--;
        hdr(h, BK_PONG, 0, 0, 0);
        eng_send(e, h, e->pong_len);
        sent++;
    }
    if (e->pend_credit) {
        e->pend_credit = 0;
        hdr(h, BK_CREDIT, 0, 0, e->credit_val);
        eng_send(e, h, BENCH_HDR);
        sent++;
    }
    while (e->pend_end) {
        e->pend_end--;
        hdr(h, BK_END, 0, 0, 0);
        eng_send(e, h, BENCH_HDR);
        sent++;
    }
    if (sent)
        e->ops->flush(e->ctx);
    if (e->pend_delta_ns) {
        bench_spin_ns(e->pend_delta_ns);
        e->pend_delta_ns = 0;
    }
}

static int step(struct bench_eng *e)
{
    int n = e->ops->poll(e->ctx);
    service(e);
    return n;
}

/* Waits until *ctr >= target; -1 after stall_ns without progress. */
static int wait_ge(struct bench_eng *e, const uint64_t *ctr, uint64_t target, const char *what)
{
    uint64_t last = *ctr, since = 0;
    while (*ctr < target) {
        step(e);
        if (*ctr != last) {
            last = *ctr;
            since = 0;
            continue;
        }
        uint64_t now = bench_rdtsc();
        if (!since)
            since = now;
        else if (ticks_ns(e, now - since) > (double)e->stall_ns) {
            char msg[160];
            snprintf(msg, sizeof(msg), "%s: no progress for 3 s (%llu of %llu)", what,
                     (unsigned long long)*ctr, (unsigned long long)target);
            return fail(e, msg);
        }
    }
    return 0;
}

void bench_serve(struct bench_eng *e)
{
    e->stop = 0;
    while (!e->stop)
        step(e);
}

void bench_drain(struct bench_eng *e, unsigned ms)
{
    uint64_t end = bench_rdtsc() + (uint64_t)ms * e->hz / 1000;
    while (bench_rdtsc() < end)
        step(e);
}

void bench_send_kind(struct bench_eng *e, uint8_t kind)
{
    uint8_t h[BENCH_HDR];
    hdr(h, kind, 0, 0, 0);
    eng_send(e, h, BENCH_HDR);
    e->ops->flush(e->ctx);
}

/* ---- the tests: each returns ns per round trip / per message, or -1 ---- */

static double pingpong(struct bench_eng *e, uint32_t len, int n)
{
    uint8_t h[BENCH_HDR];
    hdr(h, BK_PING, 0, 0, 0);
    uint64_t base = e->rx_pong, t0 = bench_rdtsc();
    for (int i = 0; i < n; i++) {
        if (eng_send(e, h, len) < 0)
            return -1;
        e->ops->flush(e->ctx);
        if (wait_ge(e, &e->rx_pong, base + (uint64_t)i + 1, "ping-pong") < 0)
            return -1;
    }
    return ticks_ns(e, bench_rdtsc() - t0) / n;
}

double bench_pingpong(struct bench_eng *e, uint32_t bytes, int warmup, int n)
{
    if (warmup && pingpong(e, bytes, warmup) < 0)
        return -1;
    return pingpong(e, bytes, n);
}

/* The seed's flood; delta_s / delta_r insert computation (q = 1);
 * *call_ns gets the mean time inside send + flush when q = 1. */
static double flood(struct bench_eng *e, int q, uint32_t len, int n, uint32_t delta_s, uint32_t delta_r,
                    double *call_ns)
{
    const int half = q / 2 ? q / 2 : 1;
    const uint16_t every = e->ops->completes ? 0 : (uint16_t)half;
    uint64_t base = 0;
    const uint64_t *done;
    if (e->ops->completes) {
        base = e->completed;
        done = &e->completed;
    } else {
        e->credit = 0;
        done = &e->credit;
    }
    uint64_t end0 = e->rx_end, call = 0;
    uint8_t h[BENCH_HDR];
    int issued = 0;
    uint64_t t0 = bench_rdtsc();
    while (issued < n) {
        if (*done - base > (uint64_t)issued)    /* a layer that completes what it never took */
            return fail(e, "flood: more messages completed than sent");
        while (issued < n && (uint64_t)issued - (*done - base) < (uint64_t)q) {
            uint8_t flags = (uint8_t)((issued == 0 ? BF_RESET : 0) | (issued == n - 1 ? BF_REPLY : 0));
            hdr(h, BK_DATA, flags, every, delta_r);
            /* Timed only at q = 1 (o_s): a clock read costs about 10 ns
             * here, a sixth of raw memif's gap at depth 64. */
            uint64_t c0 = q == 1 ? bench_rdtsc() : 0;
            if (eng_send(e, h, len) < 0)
                return -1;
            issued++;
            if (q == 1) {
                e->ops->flush(e->ctx);
                call += bench_rdtsc() - c0;
            }
        }
        if (q > 1)
            e->ops->flush(e->ctx);
        if (delta_s)
            bench_spin_ns(delta_s);
        if (issued < n && wait_ge(e, done, base + (uint64_t)(issued - (q - half)), "flood") < 0)
            return -1;
    }
    if (wait_ge(e, &e->rx_end, end0 + 1, "flood end") < 0)
        return -1;
    double ns = ticks_ns(e, bench_rdtsc() - t0) / n;
    if (call_ns)
        *call_ns = ticks_ns(e, call) / n;
    /* Untimed: every message released before the next test counts its
     * own (the reliable layer takes the ack that rides on the END reply
     * at its next poll, after the reply is delivered). */
    if (e->ops->completes && wait_ge(e, done, base + (uint64_t)n, "flood completions") < 0)
        return -1;
    return ns;
}

/* One test configuration, run p->runs times. */
struct test {
    int kind;                 /* 0 ping-pong, 1 flood */
    int q;
    uint32_t len, delta_s, delta_r;
};

static double run_once(struct bench_eng *e, const struct test *t, int n, double *call_ns)
{
    if (t->kind == 0)
        return pingpong(e, t->len, n);
    return flood(e, t->q, t->len, n, t->delta_s, t->delta_r, call_ns);
}

static int measure(struct bench_eng *e, const struct bench_params *p, const struct test *t,
                   struct stat2 *out, struct stat2 *call_out)
{
    int floor_n = t->kind ? 4 * t->q : 1;
    int n0 = floor_n > 32 ? floor_n : 32;
    if (n0 > p->count && p->count >= floor_n)
        n0 = p->count;
    double ns = run_once(e, t, n0, NULL);        /* calibration and warm-up */
    if (ns < 0)
        return -1;
    double want = (double)p->run_budget_ns / ns;
    int n = want > p->count ? p->count : (int)want;
    if (n < floor_n)
        n = floor_n;
    if (n < 20)
        n = 20;
    double v[256], c[256];
    int runs = p->runs > 256 ? 256 : p->runs;
    for (int r = 0; r < runs; r++) {
        c[r] = 0;
        v[r] = run_once(e, t, n, &c[r]);
        if (v[r] < 0)
            return -1;
    }
    *out = bench_stat(v, runs);
    if (call_out)
        *call_out = bench_stat(c, runs);
    if (p->verbose)
        fprintf(stderr, "    %s q=%d len=%u ds=%u dr=%u: n=%d min %.1f med %.1f ns\n",
                t->kind ? "flood" : "ping-pong", t->q, t->len, t->delta_s, t->delta_r, n, out->min,
                out->med);
    return 0;
}

static int set_window(struct bench_eng *e, int depth, uint32_t len)
{
    if (!e->ops->set_window || (e->window == depth && e->window_len == len))
        return 0;
    if (e->ops->set_window(e->ctx, depth, len) < 0)
        return fail(e, "could not set the window");
    e->window = depth;
    e->window_len = len;
    return 0;
}

static int overlap(struct bench_eng *e, const struct bench_params *p, struct layer_result *r)
{
    struct test t = { 1, 1, BENCH_HDR, 0, 0 };
    if (measure(e, p, &t, &r->g1, &r->o_s_call) < 0)
        return -1;
    uint32_t delta = (uint32_t)(1.5 * r->g1.med) + 100;
    struct stat2 s;
    t.delta_s = delta;
    if (measure(e, p, &t, &s, NULL) < 0)
        return -1;
    r->o_s.min = s.min - delta;
    r->o_s.med = s.med - delta;
    t.delta_s = 0;
    t.delta_r = delta;
    if (measure(e, p, &t, &s, NULL) < 0)
        return -1;
    r->o_r.min = s.min - delta;
    r->o_r.med = s.med - delta;
    return 0;
}

static int sizes(struct bench_eng *e, const struct bench_params *p, struct layer_result *r)
{
    for (int i = 0; i < p->n_sizes; i++) {
        struct test t = { 1, p->bw_depth, p->sizes[i], 0, 0 };
        if (set_window(e, p->bw_depth, p->sizes[i]) < 0 || measure(e, p, &t, &r->size_ns[i], NULL) < 0)
            return -1;
    }
    return 0;
}

int bench_run_suite(struct bench_eng *e, const struct bench_params *p, struct layer_result *r)
{
    memset(r, 0, sizeof(*r));
    struct rusage ru0, ru1;
    getrusage(RUSAGE_THREAD, &ru0);
    uint64_t t_start = bench_rdtsc();
    int have1 = 0, have_bw = 0;
    struct test pp = { 0, 1, p->rtt_bytes, 0, 0 };
    if (set_window(e, p->window, p->rtt_bytes) < 0 || measure(e, p, &pp, &r->rtt, NULL) < 0)
        goto out;
    for (int i = 0; i < p->n_depths; i++) {
        int q = p->depths[i];
        struct test t = { 1, q, BENCH_HDR, 0, 0 };
        if (set_window(e, q, BENCH_HDR) < 0 || measure(e, p, &t, &r->flood[i], NULL) < 0)
            goto out;
        if (q == 1) {
            have1 = 1;
            if (overlap(e, p, r) < 0)
                goto out;
        }
        if (q == p->bw_depth) {
            have_bw = 1;
            if (sizes(e, p, r) < 0)
                goto out;
        }
    }
    if (!have1 && (set_window(e, 1, BENCH_HDR) < 0 || overlap(e, p, r) < 0))
        goto out;
    if (!have_bw && sizes(e, p, r) < 0)
        goto out;
    bench_derive(p, r);
    r->ok = 1;
out:
    getrusage(RUSAGE_THREAD, &ru1);
    r->seconds = ticks_ns(e, bench_rdtsc() - t_start) / 1e9;
    r->preempt_per_s = r->seconds > 0 ? (double)(ru1.ru_nivcsw - ru0.ru_nivcsw) / r->seconds : 0;
    if (!r->ok)
        snprintf(r->err, sizeof(r->err), "%s", e->err[0] ? e->err : "failed");
    return r->ok ? 0 : -1;
}
