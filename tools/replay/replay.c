/*
 * replay.c - `ini-trace whatif`'s set-up and output (replay.h): what is
 * kept from the run (lags, services, compute intervals), the dependencies
 * of every action and request, the modelled INIs and protocol threads,
 * and, after replay_sim.c's event loop, the synthetic INI traces.
 *
 * Lags are classified as the run saw them.  A message found its INI idle
 * when that INI finished nothing between the message's availability and
 * its arrival stamp t1: then t1 - availability is the INI's wake-up, kept
 * for the replay whenever the message finds its INI idle there too (the
 * run's median when it did not in the run).  Likewise an action found its
 * protocol thread idle when the thread's previous action ended before the
 * action was ready.
 */
#include "replay_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_util.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (sorts v); 0 for none. */
static double median(double *v, int n)
{
    if (n == 0)
        return 0;
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- clusters, INIs, policies ---- */

/* A message an INI took from a compute node names that node; the policies'
 * state is per PE id (r->lb_pe, INI_MAX_PES of them), so an id beyond the
 * configuration's limit is a damaged trace, refused here. */
static int check_senders(const struct run_graph *g, char *err, size_t errlen)
{
    for (int k = 0; k < g->n_msgs; k++) {
        const struct rg_msg *m = &g->msgs[k];
        if (m->out_file >= 0 && (m->src_pe < 0 || m->src_pe >= INI_MAX_PES))
            return ini_fail(err, errlen, "trace: message %d comes from PE %d (PE ids are below %d)", k, m->src_pe,
                            INI_MAX_PES);
    }
    return 0;
}

static int setup_clusters(struct replay *r, char *err, size_t errlen)
{
    const struct run_graph *g = r->g;
    for (int i = 0; i < g->ini->n_files; i++)
        if (g->ini->files[i].info.cluster_id + 1 > r->n_clusters)
            r->n_clusters = g->ini->files[i].info.cluster_id + 1;
    r->cl = calloc((size_t)r->n_clusters, sizeof(*r->cl));
    if (!r->cl)
        return ini_fail(err, errlen, "out of memory");
    for (int c = 0; c < r->n_clusters; c++)
        r->cl[c].start_ns = INFINITY;
    for (int i = 0; i < g->ini->n_files; i++) {
        const struct ini_trace_info *in = &g->ini->files[i].info;
        struct cluster_sim *c = &r->cl[in->cluster_id];
        c->n_inis_run = in->cluster_inis;
        c->pe_policy = in->pe_policy;
        c->ini_policy = in->ini_policy;
        c->start_ns = fmin(c->start_ns, g->inis[i].start);
        c->end_ns = fmax(c->end_ns, g->inis[i].end);
    }
    for (int pe = 0; pe < g->max_pe && pe < INI_MAX_PES; pe++) {
        int c = g->pe_cluster[pe];
        if (c < 0 || c >= r->n_clusters)
            continue;
        if (r->cl[c].n_pes == INI_MAX_PES_PER_CLUSTER)
            return ini_fail(err, errlen, "cluster %d: more than %d compute nodes", c, INI_MAX_PES_PER_CLUSTER);
        r->cl[c].pes[r->cl[c].n_pes++] = pe;
    }
    for (int f = 0; f < g->cn->n_files; f++) {
        if (g->cn->files[f].info.flags & INI_CN_HDR_NODE_HANDLERS)
            r->node_mode = true;
        if (g->cn->files[f].info.flags & INI_CN_HDR_VIRTUAL)
            r->interrupts = true;
    }
    r->n_srv = r->node_mode ? g->max_pe : r->n_clusters;
    r->as_run = true;
    for (int c = 0; c < r->n_clusters; c++) {
        struct cluster_sim *k = &r->cl[c];
        if (k->n_inis_run == 0 || k->n_pes == 0)
            return ini_fail(err, errlen, "cluster %d: no INI trace or no compute node seen", c);
        k->n_inis = r->p.inis_per_cluster ? r->p.inis_per_cluster : k->n_inis_run;
        if (k->n_inis > INI_MAX_INIS_PER_CLUSTER)
            return ini_fail(err, errlen, "--inis-per-cluster %d: at most %d", k->n_inis, INI_MAX_INIS_PER_CLUSTER);
        k->first_ini = r->n_inis;
        r->n_inis += k->n_inis;
        if (k->n_inis != k->n_inis_run ||
            (r->p.policy >= 0 && (r->p.policy != k->pe_policy || r->p.policy != k->ini_policy)))
            r->as_run = false;
        if (k->pe_policy < 0 || k->ini_policy < 0)
            k->pe_policy = k->ini_policy = INI_POLICY_STATIC;   /* not recorded: the default */
    }
    if (r->n_inis > INI_LB_MAX_INIS)
        return ini_fail(err, errlen, "%d INIs in all: the policies know at most %d", r->n_inis, INI_LB_MAX_INIS);
    return 0;
}

static int setup_inis(struct replay *r, char *err, size_t errlen)
{
    r->inis = calloc((size_t)r->n_inis, sizeof(*r->inis));
    r->lb_pe = calloc(INI_MAX_PES, sizeof(*r->lb_pe));
    r->srv = calloc((size_t)r->n_srv + 1, sizeof(*r->srv));
    if (!r->inis || !r->lb_pe || !r->srv)
        return ini_fail(err, errlen, "out of memory");
    for (int i = 0; i < r->n_srv; i++)
        r->srv[i].blocked_until = -INFINITY;
    for (int c = 0; c < r->n_clusters; c++) {
        const struct cluster_sim *k = &r->cl[c];
        int pol_ini = r->p.policy >= 0 ? r->p.policy : k->ini_policy;
        int pol_pe = r->p.policy >= 0 ? r->p.policy : k->pe_policy;
        for (int i = 0; i < k->n_inis; i++) {
            struct ini_sim *x = &r->inis[k->first_ini + i];
            x->cluster = c;
            x->index = i;
            x->until = -INFINITY;
            x->lb.policy = (enum ini_policy)pol_ini;
        }
        for (int l = 0; l < k->n_pes; l++) {
            struct ini_lb_pe *lb = &r->lb_pe[k->pes[l]];
            lb->policy = (enum ini_policy)pol_pe;
            lb->n_inis = k->n_inis;
            lb->static_local = l * k->n_inis / k->n_pes;   /* the configuration's default */
            lb->rr_next = (uint32_t)l;
            for (int i = 0; i < k->n_inis; i++) {
                struct ini_sim *x = &r->inis[k->first_ini + i];
                lb->submitted[i] = &x->submitted;
                lb->processed[i] = &x->processed;
                lb->inbound[i] = &x->inbound;
            }
        }
    }
    return 0;
}

/* ---- what is kept from the run: services and lags ---- */

/* The run's INI file fi finished nothing in (a, b): it was idle. */
static bool idle_between(double *sorted_done, uint64_t n, double a, double b)
{
    size_t lo = 0, hi = (size_t)n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (sorted_done[mid] <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == n || sorted_done[lo] >= b;
}

static double mean_service(const struct run_graph *g, double *O_run_us)
{
    double sum = 0, o = 0;
    uint64_t n = 0;
    for (int f = 0; f < g->ini->n_files; f++) {
        for (uint64_t i = 0; i < g->ini->files[f].n; i++, n++)
            sum += g->inis[f].done[i] - g->inis[f].s[i];
        o += g->ini->files[f].info.O_ns / 1e3;
    }
    *O_run_us = g->ini->n_files ? o / g->ini->n_files : 0;
    return n ? sum / (double)n : 0;
}

/* Each service time in the replay: O's mean replaced, then scaled. */
static double service(const struct replay *r, double svc, double smean)
{
    double O_run = r->res->O_run_us * 1e3;
    if (!isnan(r->p.O_us)) {
        double O_new = r->p.O_us * 1e3;
        if (O_run > 0 && smean > 0)
            svc *= fmax(smean - O_run + O_new, 0) / smean;   /* the distribution's shape kept */
        else
            svc += O_new;
    }
    return svc * r->p.service_scale;
}

static int sorted_dones(const struct run_graph *g, double ***out)
{
    double **d = calloc((size_t)g->ini->n_files + 1, sizeof(*d));
    if (!d)
        return -1;
    for (int f = 0; f < g->ini->n_files; f++) {
        uint64_t n = g->ini->files[f].n;
        d[f] = malloc((n ? n : 1) * sizeof(double));
        if (!d[f])
            return -1;
        memcpy(d[f], g->inis[f].done, n * sizeof(double));
        qsort(d[f], n, sizeof(double), cmp_double);
    }
    *out = d;
    return 0;
}

static void free_dones(const struct run_graph *g, double **d)
{
    for (int f = 0; d && f < g->ini->n_files; f++)
        free(d[f]);
    free(d);
}

/* The trigger's ready instant in the run, for an action. */
double replay_run_ready(const struct run_graph *g, const struct rg_action *a)
{
    if (a->kind == INI_CN_ACT_REQ)
        return a->req >= 0 ? g->reqs[a->req].submit : a->t0;
    if (a->msg < 0)
        return a->t0;
    const struct rg_msg *m = &g->msgs[a->msg];
    if (m->local)
        return m->send;
    if (m->in_file >= 0)
        return g->inis[m->in_file].done[m->in_i];
    return m->recv >= 0 ? g->recvs[m->recv].t0 : a->t0;
}

/* Each record's turn end in the run: its turn is the records with its t1
 * (a turn stamps everything it takes with its start), and a turn without
 * O sends what it made when it ends. */
/* Indices by their t1; arg: the t1 array. */
static int cmp_t1(const void *a, const void *b, void *arg)
{
    const double *t1 = arg;
    return rg_cmp_double(t1[*(const int *)a], t1[*(const int *)b]);
}

static double *turn_ends(const struct run_graph *g, int f)
{
    uint64_t n = g->ini->files[f].n;
    double *end = malloc((n ? n : 1) * sizeof(double));
    int *idx = malloc((n ? n : 1) * sizeof(int));
    if (!end || !idx) {
        free(idx);
        free(end);
        return NULL;
    }
    for (uint64_t i = 0; i < n; i++)
        idx[i] = (int)i;
    qsort_r(idx, (size_t)n, sizeof(int), cmp_t1, g->inis[f].t1);
    for (uint64_t k = 0; k < n;) {
        uint64_t e = k;
        double last = 0;
        while (e < n && g->inis[f].t1[idx[e]] == g->inis[f].t1[idx[k]])
            last = fmax(last, g->inis[f].done[idx[e++]]);
        for (; k < e; k++)
            end[idx[k]] = last;
    }
    free(idx);
    return end;
}

/* When message m's frames left the sending INI in the run. */
static double left_at(const struct run_graph *g, double **ends, const struct rg_msg *m)
{
    if (g->ini->files[m->out_file].info.O_ns == 0 && ends[m->out_file])
        return ends[m->out_file][m->out_i];
    return g->inis[m->out_file].done[m->out_i];
}

static int setup_messages(struct replay *r, char *err, size_t errlen)
{
    const struct run_graph *g = r->g;
    double smean = mean_service(g, &r->res->O_run_us), **done = NULL;
    r->ms = calloc((size_t)g->n_msgs + 1, sizeof(*r->ms));
    double *lo = malloc(((size_t)g->n_msgs + 1) * sizeof(double)), *li = malloc(((size_t)g->n_msgs + 1) * sizeof(double));
    if (!r->ms || !lo || !li || sorted_dones(g, &done) < 0) {
        free(lo);
        free(li);
        free_dones(g, done);
        return ini_fail(err, errlen, "out of memory");
    }
    double **ends = calloc((size_t)g->ini->n_files + 1, sizeof(*ends));
    for (int f = 0; ends && f < g->ini->n_files; f++)
        ends[f] = turn_ends(g, f);
    int no = 0, ni = 0;
    r->wire = INFINITY;
    for (int k = 0; k < g->n_msgs; k++) {
        const struct rg_msg *m = &g->msgs[k];
        struct m_sim *x = &r->ms[k];
        *x = (struct m_sim){ .lam_o = -1, .lam_i = -1, .out_ini = -1, .in_ini = -1 };
        if (m->out_file >= 0) {
            const struct rg_ini *o = &g->inis[m->out_file];
            x->svc_o = service(r, o->done[m->out_i] - o->s[m->out_i], smean);
            if (!isnan(m->send) && idle_between(done[m->out_file], g->ini->files[m->out_file].n, m->send, o->t1[m->out_i]))
                x->lam_o = lo[no++] = fmax(o->t1[m->out_i] - m->send, 0);
            if (m->in_file >= 0 && ends)
                r->wire = fmin(r->wire, fmax(g->inis[m->in_file].t1[m->in_i] - left_at(g, ends, m), 0));
        }
        if (m->in_file >= 0) {
            const struct rg_ini *in = &g->inis[m->in_file];
            x->svc_i = service(r, in->done[m->in_i] - in->s[m->in_i], smean);
        }
        if (m->out_file < 0 && !m->local && m->action >= 0 && !isnan(m->send))
            x->ready_lag = fmax(replay_run_ready(g, &g->actions[m->action]) - m->send, 0);
    }
    if (!isfinite(r->wire))
        r->wire = 0;
    for (int k = 0; ends && k < g->n_msgs; k++) {
        const struct rg_msg *m = &g->msgs[k];
        if (m->out_file < 0 || m->in_file < 0)
            continue;
        double avail = left_at(g, ends, m) + r->wire, t1 = g->inis[m->in_file].t1[m->in_i];
        if (idle_between(done[m->in_file], g->ini->files[m->in_file].n, avail, t1))
            r->ms[k].lam_i = li[ni++] = fmax(t1 - avail, 0);
    }
    r->lam_o_med = median(lo, no);
    r->lam_i_med = median(li, ni);
    r->res->service_factor = isnan(r->p.O_us) ? r->p.service_scale : NAN;
    r->res->wire_ns = r->wire;
    free(lo);
    free(li);
    free_dones(g, done);
    for (int f = 0; ends && f < g->ini->n_files; f++)
        free(ends[f]);
    free(ends);
    return 0;
}

/* The protocol threads' lags: each top-level action against the end of
 * the one before it on its thread.  Actions by server, then start; arg:
 * the replay. */
static int cmp_action_t0(const void *a, const void *b, void *arg)
{
    const struct replay *r = arg;
    const struct rg_action *x = &r->g->actions[*(const int *)a], *y = &r->g->actions[*(const int *)b];
    int c = rg_cmp_int(replay_server_of(r, x), replay_server_of(r, y));
    return c ? c : rg_cmp_double(x->t0, y->t0);
}

static int cmp_interval(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Node mode: each node's computing in the run, from each request's
 * completion to the submission of the next request of the same node's
 * thread; by node, by start. */
static int setup_blocks(struct replay *r)
{
    const struct run_graph *g = r->g;
    int n = r->n_srv, *fill = calloc((size_t)n + 1, sizeof(int));
    r->blk_first = calloc((size_t)n + 2, sizeof(int));
    r->blk = malloc(((size_t)g->n_reqs + 1) * sizeof(*r->blk));
    if (!fill || !r->blk_first || !r->blk) {
        free(fill);
        return -1;
    }
    for (int q = 0; q < g->n_reqs; q++) {
        const struct rg_req *x = &g->reqs[q];
        if (x->pred >= 0 && g->reqs[x->pred].pe == x->pe && x->pe >= 0 && x->pe < n)
            r->blk_first[x->pe + 1]++;
    }
    for (int i = 0; i < n; i++)
        r->blk_first[i + 1] += r->blk_first[i];
    for (int q = 0; q < g->n_reqs; q++) {
        const struct rg_req *x = &g->reqs[q];
        if (x->pred >= 0 && g->reqs[x->pred].pe == x->pe && x->pe >= 0 && x->pe < n) {
            double *b = r->blk[r->blk_first[x->pe] + fill[x->pe]++];
            b[0] = g->reqs[x->pred].complete;
            b[1] = x->submit;
        }
    }
    for (int i = 0; i < n; i++)
        qsort(r->blk[r->blk_first[i]], (size_t)(r->blk_first[i + 1] - r->blk_first[i]), sizeof(*r->blk),
              cmp_interval);
    free(fill);
    return 0;
}

/* Node mode: the end of the computing of node pe that instant t falls
 * in, or t when the node's thread was not computing then. */
static double free_after(const struct replay *r, int pe, double t)
{
    if (!r->node_mode || pe < 0 || pe >= r->n_srv)
        return t;
    int lo = r->blk_first[pe], hi = r->blk_first[pe + 1];
    while (lo < hi) {      /* the first interval starting after t */
        int mid = (lo + hi) / 2;
        if (r->blk[mid][0] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > r->blk_first[pe] && t < r->blk[lo - 1][1] ? r->blk[lo - 1][1] : t;
}

static int setup_actions(struct replay *r, char *err, size_t errlen)
{
    const struct run_graph *g = r->g;
    int n = g->n_actions, *order = malloc(((size_t)n + 1) * sizeof(int));
    double *idle = malloc(((size_t)n + 1) * sizeof(double)), *busy = malloc(((size_t)n + 1) * sizeof(double));
    r->as = calloc((size_t)n + 1, sizeof(*r->as));
    if (!order || !idle || !busy || !r->as) {
        free(order);
        free(idle);
        free(busy);
        return ini_fail(err, errlen, "out of memory");
    }
    int m = 0;
    for (int i = 0; i < n; i++)
        if (g->actions[i].parent < 0)
            order[m++] = i;
    if (r->node_mode && setup_blocks(r) < 0) {
        free(order);
        free(idle);
        free(busy);
        return ini_fail(err, errlen, "out of memory");
    }
    qsort_r(order, (size_t)m, sizeof(int), cmp_action_t0, r);
    for (int k = 0; k < m;) {
        int c = replay_server_of(r, &g->actions[order[k]]), ni = 0, nb = 0;
        double prev_end = -INFINITY;
        for (; k < m && replay_server_of(r, &g->actions[order[k]]) == c; k++) {
            const struct rg_action *a = &g->actions[order[k]];
            struct a_sim *x = &r->as[order[k]];
            /* A node that was computing when the trigger came took it
             * when it stopped (node mode): the replay computes that wait
             * itself, so the lag starts there, as a busy thread's. */
            double ready = replay_run_ready(g, a), from = free_after(r, a->pe, ready);
            x->idle_class = prev_end < ready && from == ready;
            x->lag = fmax(a->t0 - (x->idle_class ? ready : fmax(prev_end, from)), 0);
            if (x->idle_class)
                idle[ni++] = x->lag;
            else
                busy[nb++] = x->lag;
            prev_end = fmax(prev_end, a->t1);
        }
        if (c >= 0 && c < r->n_srv) {
            r->srv[c].first = g->actions[order[k - ni - nb]].t0;
            r->srv[c].lag_idle = median(idle, ni);
            r->srv[c].lag_busy = median(busy, nb);
        }
    }
    free(order);
    free(idle);
    free(busy);
    return 0;
}

/* ---- dependencies ---- */

/* idx lists of n owners from owner[i] for i < m (owner < 0: none). */
int replay_csr(struct csr *c, int n, int m, const int *owner)
{
    c->first = calloc((size_t)n + 2, sizeof(int));
    c->idx = malloc(((size_t)m + 1) * sizeof(int));
    if (!c->first || !c->idx)
        return -1;
    for (int i = 0; i < m; i++)
        if (owner[i] >= 0)
            c->first[owner[i] + 1]++;
    for (int i = 0; i < n; i++)
        c->first[i + 1] += c->first[i];
    int *fill = calloc((size_t)n + 1, sizeof(int));
    if (!fill)
        return -1;
    for (int i = 0; i < m; i++)
        if (owner[i] >= 0)
            c->idx[c->first[owner[i]] + fill[owner[i]]++] = i;
    free(fill);
    return 0;
}

static void csr_free(struct csr *c)
{
    free(c->first);
    free(c->idx);
}

static int setup_deps(struct replay *r, char *err, size_t errlen)
{
    const struct run_graph *g = r->g;
    int nm = g->n_msgs, na = g->n_actions, nq = g->n_reqs;
    int *own = malloc(((size_t)(nm > na ? (nm > nq ? nm : nq) : (na > nq ? na : nq)) + 1) * sizeof(int));
    if (!own)
        return ini_fail(err, errlen, "out of memory");
    int rc = 0;
    for (int i = 0; i < nm; i++)
        own[i] = g->msgs[i].cause;
    rc |= replay_csr(&r->caused, na, nm, own);
    for (int i = 0; i < nq; i++)
        own[i] = g->reqs[i].done >= 0 ? g->reqs[i].done : g->reqs[i].pickup;
    rc |= replay_csr(&r->completed, na, nq, own);
    for (int i = 0; i < na; i++)
        own[i] = g->actions[i].parent;
    rc |= replay_csr(&r->children, na, na, own);
    free(own);
    if (rc < 0 || replay_requests(r) < 0 || replay_joins(r) < 0)
        return ini_fail(err, errlen, "out of memory");
    return 0;
}

/* ---- output: the synthetic traces ---- */

static uint64_t to_tsc(double ns, double hz)
{
    double t = 1e6 + ns * hz / 1e9;          /* positive: the reader's stamps are never 0 */
    if (!(t < 0x1p63))                       /* past any clock the loader takes (trace_file.h), or NaN */
        return (uint64_t)1 << 63;
    return t < 1e6 ? 1000000u : (uint64_t)t;
}

static int output_file(struct replay *r, int i, struct trace_file *f, double hz, double shift)
{
    const struct ini_sim *x = &r->inis[i];
    const struct cluster_sim *c = &r->cl[x->cluster];
    memset(f, 0, sizeof(*f));
    snprintf(f->name, sizeof(f->name), "ini%d.replay", i);
    snprintf(f->shown, sizeof(f->shown), "%s", f->name);
    snprintf(f->path, sizeof(f->path), "%s", f->name);
    f->version = INI_TRACE_VERSION;
    f->mode = INI_TRACE_SUMMARY;
    f->n = x->n_recs;
    f->msgs = calloc(x->n_recs + 1, sizeof(*f->msgs));
    if (!f->msgs)
        return -1;
    double first = c->start_ns, last = c->end_ns + shift;
    for (size_t k = 0; k < x->n_recs; k++) {
        const struct out_rec *o = &x->recs[k];
        struct trace_msg *m = &f->msgs[k];
        *m = (struct trace_msg){ .kind = o->kind, .src_pe = o->src, .dst_pe = o->dst, .peer_ini = o->peer,
                                 .len = o->len, .qlen = o->qlen, .seq = o->seq };
        m->t[INI_TS_ENQUEUE] = to_tsc(o->t1, hz);
        m->t[trace_done_index(o->kind)] = to_tsc(o->done, hz);
        first = fmin(first, o->t1);
        last = fmax(last, o->done);
    }
    f->info = (struct ini_trace_info){
        .tsc_hz = (uint64_t)hz, .ini_id = i, .cluster_id = x->cluster, .ini_index = x->index,
        .cluster_inis = c->n_inis, .cluster_pes = c->n_pes,
        .pe_policy = (int8_t)r->lb_pe[c->pes[0]].policy, .ini_policy = (int8_t)x->lb.policy,
        .start_tsc = to_tsc(first, hz), .end_tsc = to_tsc(last, hz) + 1,
        .clock = r->g->ini->files[0].info.clock,     /* a virtual run's replay is in emulated time too */
    };
    return 0;
}

static int output(struct replay *r, char *err, size_t errlen)
{
    struct replay_result *res = r->res;
    const struct run_graph *g = r->g;
    double lo = INFINITY, hi = -INFINITY, lo2 = INFINITY, hi2 = -INFINITY;
    for (int q = 0; q < g->n_reqs; q++) {
        lo = fmin(lo, g->reqs[q].submit);
        hi = fmax(hi, g->reqs[q].complete);
        lo2 = fmin(lo2, r->req_submit[q]);
        hi2 = fmax(hi2, r->req_complete[q]);
    }
    res->span_ns = g->n_reqs ? hi - lo : 0;
    res->replay_span_ns = g->n_reqs ? hi2 - lo2 : 0;
    double hz = (double)g->ini->files[0].info.tsc_hz;
    res->run.n_files = r->n_inis;
    res->run.files = calloc((size_t)r->n_inis, sizeof(*res->run.files));
    if (!res->run.files)
        return ini_fail(err, errlen, "out of memory");
    snprintf(res->run.dir, sizeof(res->run.dir), "%s (replayed)", g->ini->dir);
    snprintf(res->run.shown, sizeof(res->run.shown), "%s (replayed)", g->ini->shown);
    for (int i = 0; i < r->n_inis; i++) {
        if (output_file(r, i, &res->run.files[i], hz, res->replay_span_ns - res->span_ns) < 0)
            return ini_fail(err, errlen, "out of memory");
        res->passes += r->inis[i].n_recs;
    }
    res->inis_per_cluster = r->p.inis_per_cluster;
    res->policy = r->p.policy;
    return 0;
}

static void replay_state_free(struct replay *r)
{
    for (int i = 0; r->inis && i < r->n_inis; i++) {
        free(r->inis[i].wait);
        free(r->inis[i].recs);
    }
    free(r->inis);
    free(r->cl);
    free(r->lb_pe);
    for (int c = 0; r->srv && c < r->n_srv; c++)
        free(r->srv[c].queue.v);
    free(r->srv);
    free(r->blk_first);
    free(r->blk);
    free(r->ms);
    free(r->as);
    free(r->req_submit);
    free(r->req_complete);
    free(r->req_pred);
    free(r->join_completer);
    free(r->join_off);
    csr_free(&r->caused);
    csr_free(&r->completed);
    csr_free(&r->children);
    csr_free(&r->req_next);
    csr_free(&r->join_out);
    free(r->heap);
    replay_flow_free(r);
}

int replay_run(const struct run_graph *g, const struct replay_params *p, struct replay_result *out, char *err,
               size_t errlen)
{
    memset(out, 0, sizeof(*out));
    struct replay r = { .g = g, .p = *p, .res = out };
    if (!(p->service_scale > 0 && p->service_scale < 1e6))
        return ini_fail(err, errlen, "--service-scale %g: expected a factor above 0", p->service_scale);
    int rc = check_senders(g, err, errlen);
    if (rc == 0)
        rc = setup_clusters(&r, err, errlen);
    if (rc == 0)
        rc = setup_inis(&r, err, errlen);
    if (rc == 0)
        rc = setup_messages(&r, err, errlen);
    /* O asked, else the run's O; in virtual time an INI serves one input
     * per event and its frames leave at that event's end, never a batch's. */
    bool virt = g->ini->n_files && g->ini->files[0].info.clock == INI_TRACE_CLOCK_VIRTUAL;
    r.one_input = virt;
    for (int i = 0; rc == 0 && i < r.n_inis; i++)
        r.inis[i].flush_at_end = !virt && (isnan(p->O_us) ? out->O_run_us == 0 : p->O_us == 0);
    if (rc == 0)
        rc = replay_flow_setup(&r, err, errlen);
    if (rc == 0)
        rc = setup_actions(&r, err, errlen);
    if (rc == 0)
        rc = setup_deps(&r, err, errlen);
    if (rc == 0)
        rc = sim_run(&r, err, errlen);
    if (rc == 0)
        rc = output(&r, err, errlen);
    out->msgs = (uint64_t)g->n_msgs;
    replay_state_free(&r);
    if (rc < 0)
        replay_free(out);
    return rc;
}

void replay_free(struct replay_result *r)
{
    trace_run_free(&r->run);
}
