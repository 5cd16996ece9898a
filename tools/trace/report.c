/*
 * report.c - the arithmetic of `ini-trace report` (report.h).
 *
 * Per INI, every message gets a processing interval [s, done]: s is t2 in
 * a detailed trace; a summary trace has no t2, and the INI is one thread
 * that runs each message to completion, so s is reconstructed in the order
 * the messages finished: s = max(t1, the done of the message finished just
 * before it).  (Reconstructing in arrival order instead would let a
 * message that stalled on a full window, and finished late, delay every
 * message that overtook it.)  From the intervals follow
 *   - busy time: the measure of their union (a union, not a sum: a message
 *     stalled on a full window keeps its [t2, done] while others run);
 *   - each message's queue time: the part of [t1, s) during which its INI
 *     was processing other messages.  Time in [t1, s) when the INI was not
 *     processing any traced message is not queue time: the message waited
 *     behind nothing (thesis figure 5-3: C waits while B is processed);
 *   - the INI's occupancy: the union of the [t1, done) intervals, when at
 *     least one message was in it (a sibling outside it is idle).
 * Arrival t1 is the moment the loop took the message into its FIFO queue
 * (docs/traces.md); a message does not arrive before a sleeping daemon
 * wakes up, so a daemon's wake-up is neither queue time nor busy time.
 *
 * A trace whose buffer filled up stops at its last recorded message, so its
 * run is cut there ("effective end"), and a cluster's misrouting is
 * measured only up to the earliest effective end of its INIs, where all the
 * siblings' traces are still complete.
 *
 * The send and receive breakdowns (tables 5.1, 5.2) are report_breakdown.c's.
 */
#include "report.h"
#include "report_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "file_util.h"

/* Per-INI working data, sorted in FIFO order (arrival, then start). */
struct ini_work {
    const struct trace_file *f;
    uint64_t start, end;            /* the run, end cut at the last done if records were dropped */
    size_t n;
    uint64_t *t1, *s, *done;        /* FIFO order */
    uint8_t *kind;
    double *queue;                  /* queue time: [t1, s) while the INI processed others */
    size_t n_occ;                   /* merged occupancy [lo, hi) intervals, ascending */
    uint64_t *occ_lo, *occ_hi;
    size_t n_busy;                  /* merged processing intervals, ascending, and the */
    uint64_t *busy_lo, *busy_hi;    /* busy time before each (busy_before[k]) */
    double *busy_before;
    double busy;                    /* |union [s, done]| within [start, end] */
};

static void note(struct report *r, const char *fmt, ...)
{
    if (r->n_notes >= REPORT_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->notes[r->n_notes++], sizeof(r->notes[0]), fmt, ap);
    va_end(ap);
}


/* ---- FIFO order, service start, occupancy, busy time ---------------- */

struct order_key {
    uint64_t first, second;
    size_t idx;
};

static int cmp_order(const void *a, const void *b)
{
    const struct order_key *x = a, *y = b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    if (x->second != y->second)
        return x->second < y->second ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

struct interval {
    uint64_t lo, hi;
};

static int cmp_interval(const void *a, const void *b)
{
    const struct interval *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return (x->hi > y->hi) - (x->hi < y->hi);
}

/* Measure of the union of iv[0..n) clipped to [clip_lo, clip_hi]; sorts iv. */
static double union_length(struct interval *iv, size_t n, uint64_t clip_lo, uint64_t clip_hi)
{
    qsort(iv, n, sizeof(*iv), cmp_interval);
    double total = 0;
    uint64_t cur_lo = 0, cur_hi = 0;
    bool open = false;
    for (size_t i = 0; i <= n; i++) {
        if (i < n) {
            uint64_t lo = iv[i].lo < clip_lo ? clip_lo : iv[i].lo;
            uint64_t hi = iv[i].hi > clip_hi ? clip_hi : iv[i].hi;
            if (hi <= lo)
                continue;
            if (open && lo <= cur_hi) {
                if (hi > cur_hi)
                    cur_hi = hi;
                continue;
            }
        }
        if (open)
            total += (double)(cur_hi - cur_lo);
        if (i < n) {
            cur_lo = iv[i].lo < clip_lo ? clip_lo : iv[i].lo;
            cur_hi = iv[i].hi > clip_hi ? clip_hi : iv[i].hi;
            open = true;
        }
    }
    return total;
}

static void work_free(struct ini_work *w)
{
    INI_FREE_ALL(w->t1, w->s, w->done, w->kind, w->queue, w->occ_lo, w->occ_hi, w->busy_lo, w->busy_hi,
                 w->busy_before);
    memset(w, 0, sizeof(*w));
}

/* The index of the first of the n sorted starts v[] after x (n if none):
 * the interval that follows instant x. */
static size_t first_after(const uint64_t *v, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Busy time of INI w before instant x (from the start of time). */
static double busy_until(const struct ini_work *w, uint64_t x)
{
    size_t lo = first_after(w->busy_lo, w->n_busy, x);
    if (lo == 0)
        return 0;
    size_t k = lo - 1;
    uint64_t end = x < w->busy_hi[k] ? x : w->busy_hi[k];
    return w->busy_before[k] + (double)(end - w->busy_lo[k]);
}

/* Service starts by record index: t2, or for a summary trace in the
 * order of completion (key: scratch room for f->n keys). */
static void service_starts(const struct trace_file *f, struct order_key *key, uint64_t *start_of)
{
    size_t n = (size_t)f->n;
    if (f->mode == INI_TRACE_DETAILED) {
        for (size_t i = 0; i < n; i++)
            start_of[i] = f->msgs[i].t[INI_TS_DEQUEUE];
        return;
    }
    for (size_t i = 0; i < n; i++)
        key[i] = (struct order_key){ trace_msg_done(&f->msgs[i]), f->msgs[i].t[INI_TS_ENQUEUE], i };
    qsort(key, n, sizeof(*key), cmp_order);
    uint64_t prev_done = 0;
    for (size_t k = 0; k < n; k++) {
        uint64_t t1 = key[k].second, done = key[k].first;
        uint64_t s = prev_done > t1 ? prev_done : t1;
        start_of[key[k].idx] = s < done ? s : done;
        prev_done = done;
    }
}

int report_service_starts(const struct trace_file *f, uint64_t *start_of)
{
    struct order_key *key = malloc((f->n ? (size_t)f->n : 1) * sizeof(*key));
    if (!key)
        return -1;
    service_starts(f, key, start_of);
    free(key);
    return 0;
}

/* w's arrays for n1 records: 0, or -1 out of memory (w freed). */
static int work_alloc(struct ini_work *w, size_t n1)
{
    w->t1 = malloc(n1 * sizeof(uint64_t));
    w->s = malloc(n1 * sizeof(uint64_t));
    w->done = malloc(n1 * sizeof(uint64_t));
    w->kind = malloc(n1);
    w->queue = malloc(n1 * sizeof(double));
    w->occ_lo = malloc(n1 * sizeof(uint64_t));
    w->occ_hi = malloc(n1 * sizeof(uint64_t));
    w->busy_lo = malloc(n1 * sizeof(uint64_t));
    w->busy_hi = malloc(n1 * sizeof(uint64_t));
    w->busy_before = malloc(n1 * sizeof(double));
    if (!w->t1 || !w->s || !w->done || !w->kind || !w->queue || !w->occ_lo || !w->occ_hi || !w->busy_lo ||
        !w->busy_hi || !w->busy_before) {
        work_free(w);
        return -1;
    }
    return 0;
}

/* The records in FIFO order (arrival, then service start) into w's
 * arrays, their processing intervals into iv, and the occupancy: the
 * merged intervals from an arrival to its done. */
static void work_order(struct ini_work *w, const struct trace_file *f, struct order_key *key,
                       const uint64_t *start_of, struct interval *iv)
{
    for (size_t i = 0; i < w->n; i++)
        key[i] = (struct order_key){ f->msgs[i].t[INI_TS_ENQUEUE], start_of[i], i };
    qsort(key, w->n, sizeof(*key), cmp_order);
    for (size_t k = 0; k < w->n; k++) {
        const struct trace_msg *m = &f->msgs[key[k].idx];
        uint64_t t1 = m->t[INI_TS_ENQUEUE], done = trace_msg_done(m);
        w->t1[k] = t1;
        w->s[k] = start_of[key[k].idx];
        w->done[k] = done;
        w->kind[k] = m->kind;
        iv[k] = (struct interval){ w->s[k], done };
        /* occupancy: arrivals are ascending, so merging is one pass */
        if (done > t1) {
            if (w->n_occ && t1 <= w->occ_hi[w->n_occ - 1]) {
                if (done > w->occ_hi[w->n_occ - 1])
                    w->occ_hi[w->n_occ - 1] = done;
            } else {
                w->occ_lo[w->n_occ] = t1;
                w->occ_hi[w->n_occ] = done;
                w->n_occ++;
            }
        }
    }
}

/* The merged processing intervals (iv sorted by start) with the busy
 * time before each. */
static void work_busy_intervals(struct ini_work *w, const struct interval *iv)
{
    double before = 0;
    for (size_t k = 0; k < w->n; k++) {
        if (iv[k].hi <= iv[k].lo)
            continue;
        if (w->n_busy && iv[k].lo <= w->busy_hi[w->n_busy - 1]) {
            if (iv[k].hi > w->busy_hi[w->n_busy - 1]) {
                before += (double)(iv[k].hi - w->busy_hi[w->n_busy - 1]);
                w->busy_hi[w->n_busy - 1] = iv[k].hi;
            }
            continue;
        }
        w->busy_lo[w->n_busy] = iv[k].lo;
        w->busy_hi[w->n_busy] = iv[k].hi;
        w->busy_before[w->n_busy] = before;
        before += (double)(iv[k].hi - iv[k].lo);
        w->n_busy++;
    }
}

static int work_build(struct ini_work *w, const struct trace_file *f)
{
    memset(w, 0, sizeof(*w));
    w->f = f;
    w->n = (size_t)f->n;
    w->start = f->info.start_tsc;
    w->end = f->info.end_tsc;
    if (f->dropped) {
        /* Recording stopped when the buffer filled: beyond the last
         * recorded done the trace knows nothing. */
        uint64_t last = w->start;
        for (size_t i = 0; i < w->n; i++)
            if (trace_msg_done(&f->msgs[i]) > last)
                last = trace_msg_done(&f->msgs[i]);
        w->end = last;
    }
    size_t n1 = w->n ? w->n : 1;
    struct order_key *key = malloc(n1 * sizeof(*key));
    struct interval *iv = malloc(n1 * sizeof(*iv));
    uint64_t *start_of = malloc(n1 * sizeof(uint64_t));    /* by record index */
    int rc = !key || !iv || !start_of ? -1 : work_alloc(w, n1);
    if (rc == 0) {
        service_starts(f, key, start_of);
        work_order(w, f, key, start_of, iv);
        w->busy = union_length(iv, w->n, w->start, w->end);    /* sorts iv by start */
        work_busy_intervals(w, iv);
        for (size_t k = 0; k < w->n; k++)
            w->queue[k] = w->s[k] > w->t1[k] ? busy_until(w, w->s[k]) - busy_until(w, w->t1[k]) : 0;
    } else {
        work_free(w);
    }
    free(key);
    free(iv);
    free(start_of);
    return rc;
}

/* How long INI w stays idle from instant x on: -1 if it is not idle at x
 * (a message is in it, or x is outside its run), else the time to its
 * next arrival or to the end of its run. */
static double idle_left(const struct ini_work *w, uint64_t x)
{
    if (x < w->start || x >= w->end)
        return -1;
    size_t lo = first_after(w->occ_lo, w->n_occ, x);   /* the next occupancy interval */
    if (lo > 0 && x < w->occ_hi[lo - 1])
        return -1;
    uint64_t until = lo < w->n_occ ? w->occ_lo[lo] : w->end;
    return (double)(until - x);
}

/* ---- table 5.3 ------------------------------------------------------ */

/* Sums behind a report_perf row, so rows can be pooled. */
struct perf_acc {
    uint64_t n_out, n_in, n_local, n_msgs;
    double len, send, send_ns, recv, recv_ns, local, qlen, service, service_ns;
    double queue_len_sum, util_sum;     /* of the per-INI values */
    int n_queue_len, n_util;
    double busy, run;
};

static void acc_ini(struct perf_acc *a, const struct ini_work *w)
{
    const struct trace_file *f = w->f;
    double residence = 0;
    for (uint64_t i = 0; i < f->n; i++) {
        const struct trace_msg *m = &f->msgs[i];
        double in_ini = (double)(trace_msg_done(m) - m->t[INI_TS_ENQUEUE]);
        residence += in_ini;
        a->qlen += m->qlen;
        a->n_msgs++;
        if (m->kind != INI_TRACE_OUT && m->kind != INI_TRACE_IN) {
            a->n_local++;
            a->local += in_ini;
            continue;
        }
        /* outbound and inbound alike, each into its own sums */
        bool out = m->kind == INI_TRACE_OUT;
        uint64_t *n = out ? &a->n_out : &a->n_in;
        double *cycles = out ? &a->send : &a->recv, *ns = out ? &a->send_ns : &a->recv_ns;
        (*n)++;
        a->len += m->len;
        *cycles += in_ini;
        *ns += cycles_to_ns(in_ini, f->info.tsc_hz);
    }
    for (size_t k = 0; k < w->n; k++)
        if (w->kind[k] != INI_TRACE_LOCAL) {
            a->service += (double)(w->done[k] - w->s[k]);
            a->service_ns += cycles_to_ns((double)(w->done[k] - w->s[k]), f->info.tsc_hz);
        }
    double run = (double)(w->end - w->start);
    if (run > 0) {
        /* Little's law: the time-average number of messages in the INI is
         * the total time they spent in it over the run's length. */
        a->queue_len_sum += residence / run;
        a->n_queue_len++;
        a->util_sum += w->busy / run;
        a->n_util++;
    }
    a->busy += w->busy;
    a->run += run;
}

static void acc_merge(struct perf_acc *to, const struct perf_acc *from)
{
    to->n_out += from->n_out;
    to->n_in += from->n_in;
    to->n_local += from->n_local;
    to->n_msgs += from->n_msgs;
    to->len += from->len;
    to->send += from->send;
    to->send_ns += from->send_ns;
    to->recv += from->recv;
    to->recv_ns += from->recv_ns;
    to->local += from->local;
    to->qlen += from->qlen;
    to->service += from->service;
    to->service_ns += from->service_ns;
    to->queue_len_sum += from->queue_len_sum;
    to->n_queue_len += from->n_queue_len;
    to->util_sum += from->util_sum;
    to->n_util += from->n_util;
    to->busy += from->busy;
    to->run += from->run;
}

static struct report_perf acc_finish(const struct perf_acc *a)
{
    struct report_perf p = {
        .n_out = a->n_out, .n_in = a->n_in, .n_local = a->n_local,
        .msg_len = mean(a->len, a->n_out + a->n_in),
        .send_cycles = mean(a->send, a->n_out), .send_ns = mean(a->send_ns, a->n_out),
        .recv_cycles = mean(a->recv, a->n_in), .recv_ns = mean(a->recv_ns, a->n_in),
        .local_cycles = mean(a->local, a->n_local),
        .service_cycles = mean(a->service, a->n_out + a->n_in),
        .service_ns = mean(a->service_ns, a->n_out + a->n_in),
        .queue_len = mean(a->queue_len_sum, (uint64_t)a->n_queue_len),
        .queue_at_arrival = mean(a->qlen, a->n_msgs),
        .utilization = mean(a->util_sum, (uint64_t)a->n_util),
        .busy_cycles = a->busy, .run_cycles = a->run,
    };
    p.msg_cycles = p.send_cycles + p.recv_cycles;   /* NaN unless both exist */
    p.msg_ns = p.send_ns + p.recv_ns;
    return p;
}

/* ---- section 5.4: misrouting ---------------------------------------- */

static void misroute_finish(struct report_misroute *m)
{
    m->count_rate = m->messages ? (double)m->misrouted / (double)m->messages : NAN;
    m->time_rate = m->busy_cycles > 0 ? m->saved_cycles / m->busy_cycles : NAN;
    m->time_rate_bounded = m->busy_cycles > 0 ? m->saved_bounded_cycles / m->busy_cycles : NAN;
}

/* Section 5.4 (thesis figure 5-3): an inter-cluster message is misrouted
 * when it queued at its INI while that INI processed other messages
 * (queue time > 0) and, at its arrival, a sibling INI of the cluster held
 * no message at all (neither processing nor queueing one); its queue time
 * is the wasted time.  The time rate divides the wasted time by the time
 * the cluster's INIs spent processing inter-cluster messages. */
static int misroute_cluster(struct report_misroute *mis, const struct ini_work *w, int n)
{
    memset(mis, 0, sizeof(*mis));
    mis->applicable = n >= 2;
    if (!mis->applicable)
        return 0;
    uint64_t window_end = UINT64_MAX;
    for (int i = 0; i < n; i++)
        if (w[i].end < window_end)
            window_end = w[i].end;
    for (int i = 0; i < n; i++) {
        struct interval *iv = malloc((w[i].n ? w[i].n : 1) * sizeof(*iv));
        if (!iv)
            return -1;
        size_t n_iv = 0;
        for (size_t k = 0; k < w[i].n; k++) {
            uint64_t t1 = w[i].t1[k];
            if (w[i].kind[k] == INI_TRACE_LOCAL)
                continue;
            iv[n_iv++] = (struct interval){ w[i].s[k], w[i].done[k] };
            if (t1 >= window_end)
                continue;
            mis->messages++;
            double queue = w[i].queue[k];
            if (queue <= 0)
                continue;
            mis->blocked++;
            double best = -1;           /* longest idle time left among idle siblings */
            for (int j = 0; j < n; j++) {
                if (j == i)
                    continue;
                double left = idle_left(&w[j], t1);
                if (left > best)
                    best = left;
            }
            if (best < 0)
                continue;
            mis->misrouted++;
            mis->saved_cycles += queue;
            mis->saved_bounded_cycles += queue < best ? queue : best;
        }
        /* the inter-cluster processing time inside the window [start, window_end] */
        mis->busy_cycles += union_length(iv, n_iv, w[i].start, window_end);
        free(iv);
    }
    misroute_finish(mis);
    return 0;
}

/* ---- messages per compute node per INI --------------------------------- */

/* The compute node of this cluster a message belongs to: the sender of
 * an outbound or local message, the receiver of an inbound one. */
static int msg_pe(const struct trace_msg *m)
{
    return m->kind == INI_TRACE_IN ? m->dst_pe : m->src_pe;
}

static int cmp_split_pe(const void *a, const void *b)
{
    const struct report_pe_split *x = a, *y = b;
    return (x->pe > y->pe) - (x->pe < y->pe);
}

/* A compute node's mark in split_cluster's row_of[] before it has a row. */
enum { PE_UNSEEN = -1, PE_SEEN = -2, PE_LISTED = -3 };

/* Every compute node of the n_inis INIs' records (w[]) marked `from` in
 * row_of[] is marked `to`; each also gets the next zeroed row of rows[]
 * when rows is not NULL.  Returns how many were remarked. */
static int remark_pes(const struct ini_work *w, int n_inis, int *row_of, int from, int to,
                      struct report_pe_split *rows)
{
    int n = 0;
    for (int k = 0; k < n_inis; k++)
        for (uint64_t j = 0; j < w[k].f->n; j++) {
            int pe = msg_pe(&w[k].f->msgs[j]);
            if (row_of[pe] != from)
                continue;
            row_of[pe] = to;
            if (rows) {
                memset(&rows[n], 0, sizeof(rows[n]));
                rows[n].pe = pe;
            }
            n++;
        }
    return n;
}

/* Appends cluster c's rows to r->pe_split (one per compute node seen in its
 * INIs' records, ascending id).  row_of is scratch of 65536 ints, all -1
 * on entry and on return.  The work is in the number of records, not in
 * the 65536 possible ids: the ids seen are listed, then sorted. */
static int split_cluster(struct report *r, struct report_cluster *c, const struct ini_work *w, int *row_of)
{
    int n_inis = c->n_inis < REPORT_MAX_INIS_PER_CLUSTER ? c->n_inis : REPORT_MAX_INIS_PER_CLUSTER;
    int n_new = remark_pes(w, n_inis, row_of, PE_UNSEEN, PE_SEEN, NULL);
    struct report_pe_split *grown = realloc(r->pe_split, (size_t)(r->n_pe_split + n_new + 1) * sizeof(*grown));
    if (!grown) {
        remark_pes(w, n_inis, row_of, PE_SEEN, PE_UNSEEN, NULL);
        return -1;
    }
    r->pe_split = grown;
    c->first_pe = r->n_pe_split;
    c->n_split_pes = n_new;
    struct report_pe_split *rows = grown + c->first_pe;
    remark_pes(w, n_inis, row_of, PE_SEEN, PE_LISTED, rows);
    qsort(rows, (size_t)n_new, sizeof(*rows), cmp_split_pe);
    for (int i = 0; i < n_new; i++)
        row_of[rows[i].pe] = c->first_pe + i;
    for (int k = 0; k < n_inis; k++)
        for (uint64_t j = 0; j < w[k].f->n; j++) {
            const struct trace_msg *m = &w[k].f->msgs[j];
            struct report_pe_split *row = &grown[row_of[msg_pe(m)]];
            if (m->kind == INI_TRACE_IN)
                row->received[k]++;
            else
                row->sent[k]++;
        }
    for (int i = 0; i < n_new; i++) {
        for (int k = 0; k < n_inis; k++)
            rows[i].inis_used += rows[i].sent[k] > 0;
        row_of[rows[i].pe] = PE_UNSEEN;
    }
    r->n_pe_split += n_new;
    return 0;
}

/* The figures the tables' one-sentence summaries quote. */
static void summarise(struct report *r)
{
    r->busiest_ini = -1;
    r->util_min = INFINITY;
    r->util_max = -INFINITY;
    for (int c = 0; c < r->n_clusters; c++) {
        const struct report_cluster *cl = &r->clusters[c];
        uint64_t total = cl->perf.n_out + cl->perf.n_in + cl->perf.n_local;
        for (int k = cl->first_ini; k < cl->first_ini + cl->n_inis; k++) {
            struct report_ini *ri = &r->inis[k];
            ri->share = total ? (double)(ri->perf.n_out + ri->perf.n_in + ri->perf.n_local) / (double)total : NAN;
            if (!isnan(ri->perf.utilization)) {
                r->util_min = fmin(r->util_min, ri->perf.utilization);
                r->util_max = fmax(r->util_max, ri->perf.utilization);
            }
            if (cl->n_inis >= 2 && !isnan(ri->share) &&
                (r->busiest_ini < 0 || ri->share > r->inis[r->busiest_ini].share))
                r->busiest_ini = k;
        }
    }
    if (r->util_min > r->util_max)
        r->util_min = r->util_max = NAN;
    r->pe_inis_min = r->pe_inis_max = 0;
    bool any = false;
    for (int i = 0; i < r->n_pe_split; i++) {
        int u = r->pe_split[i].inis_used;
        if (u == 0)
            continue;
        r->pe_inis_min = !any || u < r->pe_inis_min ? u : r->pe_inis_min;
        r->pe_inis_max = !any || u > r->pe_inis_max ? u : r->pe_inis_max;
        any = true;
    }
}

/* ---- the whole report ----------------------------------------------- */

static int cmp_work(const void *a, const void *b)
{
    const struct ini_work *x = a, *y = b;
    if (x->f->info.cluster_id != y->f->info.cluster_id)
        return x->f->info.cluster_id < y->f->info.cluster_id ? -1 : 1;
    return (x->f->info.ini_index > y->f->info.ini_index) - (x->f->info.ini_index < y->f->info.ini_index);
}

static int common_policy(const struct trace_run *run, bool ini_side)
{
    int p = ini_side ? run->files[0].info.ini_policy : run->files[0].info.pe_policy;
    for (int i = 1; i < run->n_files; i++)
        if ((ini_side ? run->files[i].info.ini_policy : run->files[i].info.pe_policy) != p)
            return -2;
    return p;
}

/* The run's files counted by mode, recorded and dropped; its policies. */
static void report_counts(struct report *r, const struct trace_run *run)
{
    for (int i = 0; i < run->n_files; i++) {
        if (run->files[i].mode == INI_TRACE_DETAILED)
            r->n_detailed++;
        else
            r->n_summary++;
        r->recorded += run->files[i].n;
        r->dropped += run->files[i].dropped;
        r->n_virtual += run->files[i].info.clock == INI_TRACE_CLOCK_VIRTUAL;
    }
    if (r->dropped)
        note(r, "%llu messages were not recorded (trace buffers full): every table covers only the "
                "%llu recorded messages; raise trace.records", (unsigned long long)r->dropped,
             (unsigned long long)r->recorded);
    r->pe_policy = run->n_files ? common_policy(run, false) : -1;
    r->ini_policy = run->n_files ? common_policy(run, true) : -1;
}

/* INI k's row from its work w, its sums added to the cluster's. */
static void report_ini_row(struct report *r, int k, const struct ini_work *w, struct perf_acc *cacc)
{
    const struct trace_file *f = w->f;
    struct report_ini *ri = &r->inis[k];
    ri->ini_id = f->info.ini_id;
    ri->cluster_id = f->info.cluster_id;
    ri->ini_index = f->info.ini_index;
    snprintf(ri->file, sizeof(ri->file), "%s", f->name);
    ri->mode = f->mode;
    ri->dropped = f->dropped;
    ri->tsc_hz = f->info.tsc_hz;
    ri->virtual_clock = f->info.clock == INI_TRACE_CLOCK_VIRTUAL;
    struct perf_acc a = { 0 };
    acc_ini(&a, w);
    ri->perf = acc_finish(&a);
    acc_merge(cacc, &a);
    if (f->dropped)
        note(r, "%s: %llu messages not recorded (trace buffer full); its run is cut at its last "
                "recorded message", f->name, (unsigned long long)f->dropped);
}

static void misroute_add(struct report_misroute *all, const struct report_misroute *c)
{
    if (!c->applicable)
        return;
    all->applicable = true;
    all->messages += c->messages;
    all->blocked += c->blocked;
    all->misrouted += c->misrouted;
    all->saved_cycles += c->saved_cycles;
    all->saved_bounded_cycles += c->saved_bounded_cycles;
    all->busy_cycles += c->busy_cycles;
}

/* The cluster whose INIs start at w[i] (sorted by cluster): its rows, sums,
 * misrouting and split; 0, or -1 out of memory. */
static int report_cluster(struct report *r, struct ini_work *w, int i, struct perf_acc *all,
                          struct report_misroute *all_mis, int *row_of, int rc)
{
    struct report_cluster *c = &r->clusters[r->n_clusters++];
    c->cluster_id = w[i].f->info.cluster_id;
    c->n_inis = w[i].f->info.cluster_inis;
    c->n_pes = w[i].f->info.cluster_pes;
    c->first_ini = i;
    struct perf_acc cacc = { 0 };
    for (int k = i; k < i + c->n_inis; k++)
        report_ini_row(r, k, &w[k], &cacc);
    c->perf = acc_finish(&cacc);
    acc_merge(all, &cacc);
    if (misroute_cluster(&c->mis, &w[i], c->n_inis) < 0)
        rc = -1;
    misroute_add(all_mis, &c->mis);
    if (rc == 0 && split_cluster(r, c, &w[i], row_of) < 0)
        rc = -1;
    return rc;
}

/* The clusters' common PE and INI counts, 0 when they differ. */
static void report_common(struct report *r)
{
    r->common_pes = r->n_clusters ? r->clusters[0].n_pes : 0;
    r->common_inis = r->n_clusters ? r->clusters[0].n_inis : 0;
    for (int c = 1; c < r->n_clusters; c++) {
        if (r->clusters[c].n_pes != r->common_pes)
            r->common_pes = 0;
        if (r->clusters[c].n_inis != r->common_inis)
            r->common_inis = 0;
    }
}

/* The notes on what the tables rest on: trace modes, TSC rates, buckets. */
static void report_notes(struct report *r, const struct trace_run *run)
{
    if (r->n_detailed == 0)
        note(r, "summary traces only: the send and receive breakdowns (tables 5.1, 5.2) need trace.mode = detailed");
    else if (r->n_summary)
        note(r, "breakdowns from the %d detailed traces only (%d summary)", r->n_detailed, r->n_summary);
    if (r->n_virtual)
        note(r, "virtual time: every time is the emulated machine's (%.3f MHz); its cost model charges an INI's "
                "event whole, so a detailed breakdown puts an event's time in its last module",
             (double)run->files[0].info.tsc_hz / 1e6);
    if (r->n_virtual && r->n_virtual != r->n_files)
        note(r, "%d of %d files are a virtual-time run's: their times are not the others'", r->n_virtual, r->n_files);
    if (r->n_summary)
        note(r, "summary traces have no dequeue stamp: service start taken as max(arrival, previous done) "
                "(FIFO, run to completion)");
    uint64_t hz_lo = UINT64_MAX, hz_hi = 0;
    for (int i = 0; i < run->n_files; i++) {
        uint64_t hz = run->files[i].info.tsc_hz;
        hz_lo = hz < hz_lo ? hz : hz_lo;
        hz_hi = hz > hz_hi ? hz : hz_hi;
    }
    if (run->n_files && hz_lo != hz_hi)
        note(r, "the files' TSC rates differ (%.3f to %.3f MHz): each file's rate converts its own records "
                "to ns", (double)hz_lo / 1e6, (double)hz_hi / 1e6);
    if (r->pow2_buckets)
        note(r, "more than %d distinct message lengths: lengths grouped in power-of-two buckets",
             REPORT_MAX_DISTINCT_LENGTHS);
}

/* Each file's work (w, n_files of them): the breakdowns and every INI's
 * intervals; 0, or -1 out of memory (what was built freed). */
static int report_work(struct report *r, const struct trace_run *run, struct ini_work *w)
{
    int rc = report_choose_pow2(run, &r->pow2_buckets);
    if (rc == 0)
        rc = report_breakdown_build(&r->send, run, INI_TRACE_OUT, r->pow2_buckets);
    if (rc == 0)
        rc = report_breakdown_build(&r->recv, run, INI_TRACE_IN, r->pow2_buckets);
    int built = 0;
    for (; rc == 0 && built < run->n_files; built++)
        rc = work_build(&w[built], &run->files[built]);
    if (rc < 0)
        for (int i = 0; i < built; i++)
            work_free(&w[i]);
    return rc;
}

int report_build(struct report *r, const struct trace_run *run, char *err, size_t errlen)
{
    memset(r, 0, sizeof(*r));
    snprintf(r->dir, sizeof(r->dir), "%s", run->dir);
    r->n_files = run->n_files;
    report_counts(r, run);

    struct ini_work *w = calloc(run->n_files ? (size_t)run->n_files : 1, sizeof(*w));
    r->inis = calloc(run->n_files ? (size_t)run->n_files : 1, sizeof(*r->inis));
    r->clusters = calloc(run->n_files ? (size_t)run->n_files : 1, sizeof(*r->clusters));
    int rc = (w && r->inis && r->clusters) ? 0 : -1;
    if (rc == 0)
        rc = report_work(r, run, w);
    if (rc < 0) {
        free(w);
        report_free(r);
        snprintf(err, errlen, "%s: out of memory", run->dir);
        return -1;
    }
    qsort(w, (size_t)run->n_files, sizeof(*w), cmp_work);

    struct perf_acc all = { 0 };
    struct report_misroute all_mis = { 0 };
    int *row_of = malloc(65536 * sizeof(int));
    if (!row_of)
        rc = -1;
    else
        memset(row_of, 0xff, 65536 * sizeof(int));   /* every int -1: no row yet */
    r->n_inis = run->n_files;
    for (int i = 0; i < run->n_files; i += r->clusters[r->n_clusters - 1].n_inis)
        rc = report_cluster(r, w, i, &all, &all_mis, row_of, rc);
    free(row_of);
    r->all = acc_finish(&all);
    report_common(r);
    misroute_finish(&all_mis);
    r->all_mis = all_mis;
    summarise(r);
    report_notes(r, run);

    for (int i = 0; i < run->n_files; i++)
        work_free(&w[i]);
    free(w);
    if (rc < 0) {
        report_free(r);
        snprintf(err, errlen, "%s: out of memory", run->dir);
    }
    return rc;
}

void report_free(struct report *r)
{
    free(r->send.buckets);
    free(r->recv.buckets);
    free(r->inis);
    free(r->clusters);
    free(r->pe_split);
    r->pe_split = NULL;
    r->send.buckets = r->recv.buckets = NULL;
    r->inis = NULL;
    r->clusters = NULL;
}
