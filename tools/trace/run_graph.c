/*
 * run_graph.c - joins a run's INI and compute-node traces into one graph
 * on one clock (run_graph.h).
 *
 * Messages are found by name through an open-addressing hash of (source
 * PE, local?, sequence); actions and requests by (cluster, id).  Every
 * stamp becomes nanoseconds since the run's earliest anchor: a file's TSC
 * minus its anchor TSC, at its own rate, plus its anchor's CLOCK_REALTIME
 * and its host's offset.
 */
#include "run_graph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_util.h"
#include "report.h"


/* ---- a small hash of 64-bit keys to indices ---- */

struct idx_map {
    uint64_t *key;
    int *val;
    size_t cap;             /* power of two */
};

static int map_init(struct idx_map *m, size_t n)
{
    m->cap = 16;
    while (m->cap < 2 * n + 2)
        m->cap *= 2;
    m->key = malloc(m->cap * sizeof(*m->key));
    m->val = malloc(m->cap * sizeof(*m->val));
    if (!m->key || !m->val)
        return -1;
    for (size_t i = 0; i < m->cap; i++)
        m->val[i] = -1;
    return 0;
}

static void map_free(struct idx_map *m)
{
    free(m->key);
    free(m->val);
}

static size_t map_slot(const struct idx_map *m, uint64_t k)
{
    uint64_t h = k * 0x9e3779b97f4a7c15ull;
    size_t i = (size_t)(h >> 20) & (m->cap - 1);
    while (m->val[i] >= 0 && m->key[i] != k)
        i = (i + 1) & (m->cap - 1);
    return i;
}

/* The index under k, or -1; with put >= 0, stores it if absent and
 * returns -2 if k was there already. */
static int map_get_put(struct idx_map *m, uint64_t k, int put)
{
    size_t i = map_slot(m, k);
    if (m->val[i] >= 0)
        return put >= 0 ? -2 : m->val[i];
    if (put >= 0) {
        m->key[i] = k;
        m->val[i] = put;
        return put;
    }
    return -1;
}

static uint64_t msg_key(int src_pe, bool local, uint32_t seq)
{
    return (uint64_t)(uint16_t)src_pe << 33 | (uint64_t)local << 32 | seq;
}

static uint64_t id_key(int cluster, uint32_t id)
{
    return (uint64_t)(uint32_t)cluster << 32 | id;
}

/* ---- clocks ---- */

struct clock_of {
    double anchor_ns;       /* corrected CLOCK_REALTIME of the anchor, minus the origin */
    uint64_t anchor_tsc;
    double ns_per_tsc;
};

static double to_ns(const struct clock_of *c, uint64_t tsc)
{
    return c->anchor_ns + ((double)tsc - (double)c->anchor_tsc) * c->ns_per_tsc;
}

/* Each file's clock.  The files of one host share its TSC, so they share
 * one conversion too (else the INIs' nominal TSC rate and the compute
 * nodes' measured one would disagree by tens of us over a run, and a
 * message could seem to reach its INI before it was sent): the host's
 * earliest anchor (TSC, CLOCK_REALTIME) and the rate between its two
 * anchors furthest apart, or the INIs' rate when they are too close.  The
 * origin is the earliest anchor of the run. */
struct host_clock {
    const char *host;
    uint64_t lo_tsc, hi_tsc;
    double lo_ns, hi_ns, nominal_hz;
};

static struct host_clock *host_of(struct host_clock *h, int *n, const char *name)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp(h[i].host, name))
            return &h[i];
    h[*n] = (struct host_clock){ .host = name, .lo_tsc = UINT64_MAX };
    return &h[(*n)++];
}

static void host_anchor(struct host_clock *h, uint64_t tsc, double ns)
{
    if (tsc < h->lo_tsc) {
        h->lo_tsc = tsc;
        h->lo_ns = ns;
    }
    if (tsc > h->hi_tsc) {
        h->hi_tsc = tsc;
        h->hi_ns = ns;
    }
}

static struct clock_of host_conversion(const struct host_clock *h, double origin)
{
    double span = h->hi_ns - h->lo_ns;
    double ns_per_tsc = span > 1e8 || h->nominal_hz <= 0 ? span / (double)(h->hi_tsc - h->lo_tsc)
                                                          : 1e9 / h->nominal_hz;
    return (struct clock_of){ h->lo_ns - origin, h->lo_tsc, ns_per_tsc };
}

static int clocks_of(struct run_graph *g, const struct clock_table *ct, struct clock_of *ini_c,
                     struct clock_of *cn_c, char *err, size_t errlen)
{
    int n = 0, nf = g->ini->n_files + g->cn->n_files;
    struct host_clock *h = calloc((size_t)nf + 1, sizeof(*h));
    int *which = calloc((size_t)nf + 1, sizeof(int));
    if (!h || !which) {
        free(h);
        free(which);
        return ini_fail(err, errlen, "out of memory");
    }
    int rc = 0;
    for (int i = 0; rc == 0 && i < nf; i++) {
        bool is_ini = i < g->ini->n_files;
        const struct trace_file *fi = is_ini ? &g->ini->files[i] : NULL;
        const struct cn_file *fc = is_ini ? NULL : &g->cn->files[i - g->ini->n_files];
        const char *name = is_ini ? fi->info.host : fc->info.host;
        int64_t off;
        double when = is_ini ? (double)fi->info.start_ns : (double)fc->info.start_ns;
        if (clock_table_offset(ct, name, when, &off) < 0) {
            rc = ini_fail(err, errlen, "%s: host '%s' is not in the run's clocks.tsv", is_ini ? fi->shown : fc->shown, name);
            break;
        }
        struct host_clock *x = host_of(h, &n, name);
        which[i] = (int)(x - h);
        if (is_ini) {
            host_anchor(x, fi->info.start_tsc, (double)fi->info.start_ns + (double)off);
            x->nominal_hz = (double)fi->info.tsc_hz;
        } else {
            int64_t end_off;
            clock_table_offset(ct, name, (double)fc->info.end_ns, &end_off);   /* drift: the offset then */
            host_anchor(x, fc->info.start_tsc, (double)fc->info.start_ns + (double)off);
            host_anchor(x, fc->info.end_tsc, (double)fc->info.end_ns + (double)end_off);
        }
    }
    double origin = INFINITY;
    for (int k = 0; k < n; k++)
        origin = fmin(origin, h[k].lo_ns);
    for (int i = 0; rc == 0 && i < nf; i++) {
        struct clock_of c = host_conversion(&h[which[i]], origin);
        if (i < g->ini->n_files)
            ini_c[i] = c;
        else
            cn_c[i - g->ini->n_files] = c;
    }
    g->origin_ns = origin;
    free(h);
    free(which);
    return rc;
}

/* ---- checks before joining ---- */

static int check_joinable(const struct run_graph *g, char *err, size_t errlen)
{
    const struct trace_run *r = g->ini;
    for (int i = 0; i < r->n_files; i++) {
        const struct trace_file *f = &r->files[i];
        if (f->version < 2 || f->info.start_ns == 0)
            return ini_fail(err, errlen, "%s: a version-%d trace names no messages: this needs version-2 traces "
                        "(a run traced by this release)", f->shown, f->version);
        if (f->dropped)
            return ini_fail(err, errlen, "%s: %llu records dropped (trace buffer full): raise trace.records",
                        f->shown, (unsigned long long)f->dropped);
    }
    if (g->cn->n_files == 0)
        return ini_fail(err, errlen, "%s: no cn<CLUSTER>.trace files: the compute nodes were not traced "
                    "(run the program under ini-cluster run --trace)", r->shown);
    for (int i = 0; i < g->cn->n_files; i++)
        if (g->cn->files[i].info.dropped)
            return ini_fail(err, errlen, "%s: %llu records dropped (buffer full): raise INI_CN_TRACE_RECORDS",
                        g->cn->files[i].shown, (unsigned long long)g->cn->files[i].info.dropped);
    return 0;
}

/* ---- building ---- */

struct builder {
    struct run_graph *g;
    struct idx_map msgs, actions, reqs;
    const struct clock_of *cn_c;
    char *err;
    size_t errlen;
};

static void count_kinds(const struct cn_run *cn, int n[6])
{
    memset(n, 0, 6 * sizeof(int));
    for (int i = 0; i < cn->n_files; i++)
        for (uint64_t k = 0; k < cn->files[i].n; k++)
            n[cn->files[i].recs[k].kind]++;
}

static int add_msg(struct builder *b, const struct cn_file *f, const struct ini_cn_trace_rec *r)
{
    struct run_graph *g = b->g;
    bool local = (r->flags & INI_CN_LOCAL) != 0;
    int k = map_get_put(&b->msgs, msg_key(r->pe, local, r->a), g->n_msgs);
    if (k == -2)
        return ini_fail(b->err, b->errlen, "%s: message %u of PE %u sent twice", f->shown, r->a, r->pe);
    struct rg_msg *m = &g->msgs[g->n_msgs++];
    *m = (struct rg_msg){
        .src_pe = r->pe, .dst_pe = r->peer, .src_cluster = f->info.cluster, .dst_cluster = -1,
        .seq = r->a, .local = local, .type = r->tag, .len = r->b, .arg = r->d,
        .send = to_ns(&b->cn_c[f - g->cn->files], r->t[0]), .cause = (int)r->c /* id, resolved later */,
        .out_file = -1, .in_file = -1, .recv = -1, .action = -1,
    };
    return 0;
}

static int pass_records(struct builder *b, int kind)
{
    struct run_graph *g = b->g;
    for (int fi = 0; fi < g->cn->n_files; fi++) {
        const struct cn_file *f = &g->cn->files[fi];
        const struct clock_of *c = &b->cn_c[fi];
        int cl = f->info.cluster;
        for (uint64_t k = 0; k < f->n; k++) {
            const struct ini_cn_trace_rec *r = &f->recs[k];
            if (r->kind != kind)
                continue;
            if (r->pe < g->max_pe)
                g->pe_cluster[r->pe] = (int8_t)cl;
            if (kind == INI_CN_SEND && add_msg(b, f, r) < 0)
                return -1;
            if (kind == INI_CN_RECV) {
                int m = map_get_put(&b->msgs, msg_key(r->peer, false, r->a), -1);
                g->recvs[g->n_recvs] = (struct rg_recv){ m, r->pe, to_ns(c, r->t[0]), to_ns(c, r->t[1]) };
                if (m >= 0)
                    g->msgs[m].recv = g->n_recvs;
                g->n_recvs++;
            }
            if (kind == INI_CN_ACTION) {
                if (map_get_put(&b->actions, id_key(cl, r->a), g->n_actions) == -2)
                    return ini_fail(b->err, b->errlen, "%s: action %u recorded twice", f->shown, r->a);
                int m = r->tag == INI_CN_ACT_REQ ? -1
                        : map_get_put(&b->msgs, msg_key(r->peer, r->tag == INI_CN_ACT_LOCAL, r->b), -1);
                g->actions[g->n_actions++] = (struct rg_action){
                    .cluster = cl, .pe = r->pe, .kind = r->tag, .id = r->a, .t0 = to_ns(c, r->t[0]),
                    .t1 = to_ns(c, r->t[1]), .parent = (int)r->c, .msg = m, .req = r->tag == INI_CN_ACT_REQ ? (int)r->b : -1,
                };
                if (m >= 0 && r->c == 0)      /* a nested action serves a message deferred earlier */
                    g->msgs[m].action = g->n_actions - 1;
            }
            if (kind == INI_CN_REQ) {
                if (map_get_put(&b->reqs, id_key(cl, r->a), g->n_reqs) == -2)
                    return ini_fail(b->err, b->errlen, "%s: request %u recorded twice", f->shown, r->a);
                g->reqs[g->n_reqs++] = (struct rg_req){
                    .cluster = cl, .pe = r->pe, .thread = (int)(int32_t)r->c, .kind = r->tag, .id = r->a,
                    .submit = to_ns(c, r->t[0]), .complete = to_ns(c, r->t[1]),
                    .resumed = r->t[2] ? to_ns(c, r->t[2]) : NAN, .pickup = -1, .done = (int)r->b,
                };
            }
            if (kind == INI_CN_JOIN)
                g->joins[g->n_joins++] = (struct rg_join){ cl, r->tag, -1 - (int)r->b, r->a,
                                                           (r->flags & INI_CN_LAST) != 0, to_ns(c, r->t[0]) };
        }
    }
    return 0;
}

/* Ids into indices: causes, parents, requests, joins. */
static void resolve(struct builder *b)
{
    struct run_graph *g = b->g;
    for (int i = 0; i < g->n_msgs; i++) {
        struct rg_msg *m = &g->msgs[i];
        m->cause = m->cause ? map_get_put(&b->actions, id_key(m->src_cluster, (uint32_t)m->cause), -1) : -1;
        if (m->dst_pe >= 0 && m->dst_pe < g->max_pe)
            m->dst_cluster = g->pe_cluster[m->dst_pe];
    }
    for (int i = 0; i < g->n_actions; i++) {
        struct rg_action *a = &g->actions[i];
        a->parent = a->parent ? map_get_put(&b->actions, id_key(a->cluster, (uint32_t)a->parent), -1) : -1;
        if (a->kind == INI_CN_ACT_REQ) {
            a->req = map_get_put(&b->reqs, id_key(a->cluster, (uint32_t)a->req), -1);
            if (a->req >= 0)
                g->reqs[a->req].pickup = i;
        }
    }
    for (int i = 0; i < g->n_reqs; i++) {
        struct rg_req *q = &g->reqs[i];
        q->done = q->done ? map_get_put(&b->actions, id_key(q->cluster, (uint32_t)q->done), -1) : -1;
    }
    for (int i = 0; i < g->n_joins; i++) {
        struct rg_join *j = &g->joins[i];
        uint32_t id = (uint32_t)(-1 - j->action);
        j->action = id ? map_get_put(&b->actions, id_key(j->cluster, id), -1) : -1;
    }
}

/* ---- which completion each request follows ---- */

/* What cmp_req_thread sorts by: the graph and each request's thread
 * (thread_ids). */
struct req_thread_ctx {
    const struct run_graph *g;
    const int *thread;
};

/* Requests by cluster, thread, submit. */
static int cmp_req_thread(const void *a, const void *b, void *arg)
{
    const struct req_thread_ctx *k = arg;
    int i = *(const int *)a, j = *(const int *)b, c;
    const struct rg_req *x = &k->g->reqs[i], *y = &k->g->reqs[j];
    if ((c = rg_cmp_int(x->cluster, y->cluster)) || (c = rg_cmp_int(k->thread[i], k->thread[j])))
        return c;
    return rg_cmp_double(x->submit, y->submit);
}

/* Requests by cluster, completion; arg: the graph. */
static int cmp_req_complete(const void *a, const void *b, void *arg)
{
    const struct run_graph *g = arg;
    const struct rg_req *x = &g->reqs[*(const int *)a], *y = &g->reqs[*(const int *)b];
    int c = rg_cmp_int(x->cluster, y->cluster);
    return c ? c : rg_cmp_double(x->complete, y->complete);
}

/* The latest request of cluster c completed at or before t (by[] sorted
 * by cmp_req_complete), or -1. */
static int latest_before(const struct run_graph *g, const int *by, int n, int c, double t)
{
    int lo = 0, hi = n;
    while (lo < hi) {      /* first index with (cluster, complete) > (c, t) */
        int mid = (lo + hi) / 2;
        const struct rg_req *q = &g->reqs[by[mid]];
        if (q->cluster < c || (q->cluster == c && q->complete <= t))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && g->reqs[by[lo - 1]].cluster == c ? by[lo - 1] : -1;
}

/* A cluster's main thread makes requests as thread -1 before it becomes
 * the cluster's first compute thread (par_mgs.c): one thread, the
 * cluster's lowest id. */
static int thread_ids(const struct run_graph *g, int *thread)
{
    int *base = malloc(INI_MAX_CLUSTERS * sizeof(int));
    if (!base)
        return -1;
    for (int c = 0; c < INI_MAX_CLUSTERS; c++)
        base[c] = -1;
    for (int q = 0; q < g->n_reqs; q++) {
        const struct rg_req *x = &g->reqs[q];
        if (x->thread >= 0 && x->cluster < INI_MAX_CLUSTERS && (base[x->cluster] < 0 || x->thread < base[x->cluster]))
            base[x->cluster] = x->thread;
    }
    for (int q = 0; q < g->n_reqs; q++) {
        const struct rg_req *x = &g->reqs[q];
        thread[q] = x->thread >= 0 || x->cluster >= INI_MAX_CLUSTERS ? x->thread : base[x->cluster];
    }
    free(base);
    return 0;
}

static int link_requests(struct run_graph *g)
{
    int n = g->n_reqs;
    int *order = malloc(((size_t)n + 1) * sizeof(int)), *by = malloc(((size_t)n + 1) * sizeof(int));
    int *thread = malloc(((size_t)n + 1) * sizeof(int));
    if (!order || !by || !thread || thread_ids(g, thread) < 0) {
        free(order), free(by), free(thread);
        return -1;
    }
    for (int q = 0; q < n; q++)
        order[q] = by[q] = q;
    struct req_thread_ctx ctx = { g, thread };
    qsort_r(order, (size_t)n, sizeof(int), cmp_req_thread, &ctx);
    qsort_r(by, (size_t)n, sizeof(int), cmp_req_complete, g);
    for (int k = 0; k < n; k++) {
        int q = order[k];
        struct rg_req *x = &g->reqs[q];
        int prev = k > 0 && g->reqs[order[k - 1]].cluster == x->cluster && thread[order[k - 1]] == thread[q]
                       ? order[k - 1] : -1;
        x->pred = -1;
        if (isnan(x->resumed))
            continue;                    /* nothing before it */
        if (prev >= 0 && g->reqs[prev].complete <= x->resumed)
            x->pred = prev;
        else
            x->pred = latest_before(g, by, n, x->cluster, x->resumed);
    }
    free(order), free(by), free(thread);
    return 0;
}

/* ---- the INI records ---- */

static int cmp_pair(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* The union of an INI's service intervals, for rg_busy_in. */
static int merge_busy(struct rg_ini *x, uint64_t n)
{
    double *iv = malloc(((size_t)n + 1) * 2 * sizeof(double));
    x->busy_lo = malloc(((size_t)n + 1) * sizeof(double));
    x->busy_hi = malloc(((size_t)n + 1) * sizeof(double));
    x->busy_before = malloc(((size_t)n + 1) * sizeof(double));
    if (!iv || !x->busy_lo || !x->busy_hi || !x->busy_before) {
        free(iv);
        return -1;
    }
    for (uint64_t i = 0; i < n; i++) {
        iv[2 * i] = x->s[i];
        iv[2 * i + 1] = x->done[i];
    }
    qsort(iv, (size_t)n, 2 * sizeof(double), cmp_pair);
    double before = 0;
    for (uint64_t i = 0; i < n; i++) {
        double lo = iv[2 * i], hi = iv[2 * i + 1];
        if (hi <= lo)
            continue;
        if (x->n_busy && lo <= x->busy_hi[x->n_busy - 1]) {
            if (hi > x->busy_hi[x->n_busy - 1]) {
                before += hi - x->busy_hi[x->n_busy - 1];
                x->busy_hi[x->n_busy - 1] = hi;
            }
            continue;
        }
        x->busy_lo[x->n_busy] = lo;
        x->busy_hi[x->n_busy] = hi;
        x->busy_before[x->n_busy++] = before;
        before += hi - lo;
    }
    free(iv);
    return 0;
}

/* Busy time of x before instant t. */
static double busy_until(const struct rg_ini *x, double t)
{
    size_t lo = 0, hi = x->n_busy;
    while (lo < hi) {        /* the first interval starting after t */
        size_t mid = (lo + hi) / 2;
        if (x->busy_lo[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    size_t k = lo - 1;
    return x->busy_before[k] + (fmin(t, x->busy_hi[k]) - x->busy_lo[k]);
}

double rg_busy_in(const struct run_graph *g, int f, double a, double b)
{
    return b > a ? busy_until(&g->inis[f], b) - busy_until(&g->inis[f], a) : 0;
}

/* The INI records: each joined to its message, with its instants. */
static int join_inis(struct builder *b, const struct clock_of *ini_c)
{
    struct run_graph *g = b->g;
    for (int fi = 0; fi < g->ini->n_files; fi++) {
        const struct trace_file *f = &g->ini->files[fi];
        struct rg_ini *x = &g->inis[fi];
        size_t n1 = f->n ? (size_t)f->n : 1;
        uint64_t *s = malloc(n1 * sizeof(*s));
        x->t1 = malloc(n1 * sizeof(double));
        x->s = malloc(n1 * sizeof(double));
        x->done = malloc(n1 * sizeof(double));
        x->msg = malloc(n1 * sizeof(int));
        if (!s || !x->t1 || !x->s || !x->done || !x->msg || report_service_starts(f, s) < 0) {
            free(s);
            return ini_fail(b->err, b->errlen, "%s: out of memory", f->shown);
        }
        x->ns_per_tsc = ini_c[fi].ns_per_tsc;
        x->start = to_ns(&ini_c[fi], f->info.start_tsc);
        x->end = to_ns(&ini_c[fi], f->info.end_tsc);
        g->end = fmax(g->end, x->end);
        for (uint64_t i = 0; i < f->n; i++) {
            const struct trace_msg *r = &f->msgs[i];
            x->t1[i] = to_ns(&ini_c[fi], r->t[INI_TS_ENQUEUE]);
            x->s[i] = to_ns(&ini_c[fi], s[i]);
            x->done[i] = to_ns(&ini_c[fi], trace_msg_done(r));
            int m = map_get_put(&b->msgs, msg_key(r->src_pe, false, r->seq), -1);
            x->msg[i] = m;
            if (m < 0) {
                g->unmatched++;
                continue;
            }
            if (r->kind == INI_TRACE_IN) {
                g->msgs[m].in_file = fi;
                g->msgs[m].in_i = i;
                g->msgs[m].dst_cluster = f->info.cluster_id;
            } else {
                g->msgs[m].out_file = fi;
                g->msgs[m].out_i = i;
            }
        }
        free(s);
        if (merge_busy(x, f->n) < 0)
            return ini_fail(b->err, b->errlen, "%s: out of memory", f->shown);
    }
    return 0;
}

static int alloc_graph(struct run_graph *g)
{
    int n[6];
    count_kinds(g->cn, n);
    g->max_pe = 65536;
    g->msgs = calloc((size_t)n[INI_CN_SEND] + 1, sizeof(*g->msgs));
    g->recvs = calloc((size_t)n[INI_CN_RECV] + 1, sizeof(*g->recvs));
    g->actions = calloc((size_t)n[INI_CN_ACTION] + 1, sizeof(*g->actions));
    g->reqs = calloc((size_t)n[INI_CN_REQ] + 1, sizeof(*g->reqs));
    g->joins = calloc((size_t)n[INI_CN_JOIN] + 1, sizeof(*g->joins));
    g->inis = calloc((size_t)g->ini->n_files + 1, sizeof(*g->inis));
    g->pe_cluster = malloc((size_t)g->max_pe);
    if (!g->msgs || !g->recvs || !g->actions || !g->reqs || !g->joins || !g->inis || !g->pe_cluster)
        return -1;
    memset(g->pe_cluster, -1, (size_t)g->max_pe);
    return 0;
}

int run_graph_build(struct run_graph *g, const struct trace_run *ini, const struct cn_run *cn,
                    const struct clock_table *clocks, char *err, size_t errlen)
{
    memset(g, 0, sizeof(*g));
    g->ini = ini;
    g->cn = cn;
    if (check_joinable(g, err, errlen) < 0)
        return -1;
    int n[6];
    count_kinds(cn, n);
    struct clock_of *ini_c = calloc((size_t)ini->n_files + 1, sizeof(*ini_c));
    struct clock_of *cn_c = calloc((size_t)cn->n_files + 1, sizeof(*cn_c));
    struct builder b = { .g = g, .cn_c = cn_c, .err = err, .errlen = errlen };
    int rc = ini_c && cn_c && alloc_graph(g) == 0 && map_init(&b.msgs, (size_t)n[INI_CN_SEND]) == 0 &&
                     map_init(&b.actions, (size_t)n[INI_CN_ACTION]) == 0 && map_init(&b.reqs, (size_t)n[INI_CN_REQ]) == 0
                 ? 0 : ini_fail(err, errlen, "%s: out of memory", ini->shown);
    if (rc == 0)
        rc = clocks_of(g, clocks, ini_c, cn_c, err, errlen);
    for (int k = INI_CN_SEND; rc == 0 && k <= INI_CN_JOIN; k++)
        rc = pass_records(&b, k);
    if (rc == 0) {
        resolve(&b);
        rc = join_inis(&b, ini_c);
    }
    if (rc == 0 && link_requests(g) < 0)
        rc = ini_fail(err, errlen, "%s: out of memory", ini->shown);
    for (int i = 0; rc == 0 && i < cn->n_files; i++)
        g->end = fmax(g->end, to_ns(&cn_c[i], cn->files[i].info.end_tsc));
    map_free(&b.msgs);
    map_free(&b.actions);
    map_free(&b.reqs);
    free(ini_c);
    free(cn_c);
    if (rc < 0)
        run_graph_free(g);
    return rc;
}

void run_graph_free(struct run_graph *g)
{
    for (int i = 0; g->inis && g->ini && i < g->ini->n_files; i++) {
        struct rg_ini *x = &g->inis[i];
        INI_FREE_ALL(x->t1, x->s, x->done, x->msg, x->busy_lo, x->busy_hi, x->busy_before);
    }
    INI_FREE_ALL(g->inis, g->msgs, g->recvs, g->actions, g->reqs, g->joins, g->pe_cluster);
    memset(g, 0, sizeof(*g));
}

int run_files_load(struct run_files *rf, const char *dir, char *err, size_t errlen)
{
    memset(rf, 0, sizeof(*rf));
    if (trace_run_load(&rf->ini, dir, err, errlen) < 0)
        return -1;
    if (cn_run_load(&rf->cn, dir, err, errlen) < 0) {
        trace_run_free(&rf->ini);
        return -1;
    }
    if (clock_table_load(&rf->clocks, dir, err, errlen) < 0 ||
        run_graph_build(&rf->g, &rf->ini, &rf->cn, &rf->clocks, err, errlen) < 0) {
        cn_run_free(&rf->cn);
        trace_run_free(&rf->ini);
        return -1;
    }
    return 0;
}

void run_files_free(struct run_files *rf)
{
    run_graph_free(&rf->g);
    cn_run_free(&rf->cn);
    trace_run_free(&rf->ini);
}

struct rg_wire rg_wire_between_hosts(const struct run_graph *g)
{
    struct rg_wire w = { 0, NAN, NAN };
    double sum = 0;
    for (int m = 0; m < g->n_msgs; m++) {
        const struct rg_msg *x = &g->msgs[m];
        if (x->out_file < 0 || x->in_file < 0 ||
            !strcmp(g->ini->files[x->out_file].info.host, g->ini->files[x->in_file].info.host))
            continue;
        double t = g->inis[x->in_file].t1[x->in_i] - g->inis[x->out_file].done[x->out_i];
        w.min_ns = w.n ? fmin(w.min_ns, t) : t;
        sum += t;
        w.n++;
    }
    if (w.n)
        w.mean_ns = sum / w.n;
    return w;
}

const char *rg_action_kind_name(int kind)
{
    switch (kind) {
    case INI_CN_ACT_MSG:   return "message";
    case INI_CN_ACT_LOCAL: return "local message";
    case INI_CN_ACT_REQ:   return "request";
    default:               return "?";
    }
}
