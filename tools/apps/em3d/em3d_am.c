/*
 * em3d_am.c - the message versions of EM3D on the compute-node API
 * (em3d_am.h): the set-up, each PE's steps, the global barrier, dilation
 * and the check.
 *
 * A PE's half-step: have the ghosts of the kind it reads (get: fetch
 * them; put, bulk: wait for the owners' values), update its vertices of
 * the other kind, (put, bulk) send its new values to their readers, then
 * the global barrier.  Before the first step the put and bulk versions
 * send the initial H values, which the first half-step reads.
 *
 * The global barrier: the cluster's PEs meet (an atomic count, the last
 * one kicks the others), its first PE tells every other cluster's first
 * PE it arrived and waits until all have told it, and the PEs meet again.
 * Barrier n's arrivals are counted by n % 2: a cluster can be one barrier
 * ahead of another, never two.  Every wait serves the PE's handlers, so
 * a PE at the barrier still answers the requests of PEs that are not.
 *
 * Dilation (uniform mode, docs/experiments.md): MGS_DILATE, else the
 * configuration's `dilate` knob, as the MGS versions' compute threads; a
 * PE's update and the sends of its new values, taken together, last K
 * times the CPU time they used (the rule of mgs/mgs_dilate.c).  Waits are
 * not dilated; a handler's work is not either (it is a few loads and a
 * send, where the MGS versions' protocol thread is dilated as a whole).
 */
#include "em3d_am.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

#include "cli.h"
#include "clock.h"
#include "trace_cn.h"

static void dilate_begin(const struct am_run *r, struct am_pe *s)
{
    if (r->dilate > 1.0) {
        s->dilate_cpu0 = ini_thread_cpu_ns();
        s->dilate_wall0 = ini_mono_ns();
    }
}

static void dilate_end(const struct am_run *r, const struct am_pe *s)
{
    if (r->dilate <= 1.0)
        return;
    uint64_t cpu;
    uint64_t until = ini_dilate_until(r->dilate, r->clock_cost_ns, s->dilate_cpu0, s->dilate_wall0, &cpu);
    if (ini_mono_ns() < until)
        ini_sleep_until_ns(until);
}

/* The cluster's nodes meet.  act, n: in a traced run, this node's
 * arrival at global barrier n (its join contribution; the last arrival's
 * action is left for the cluster's first node in bar_last_action); 0: the
 * second meeting, not recorded. */
static int cluster_barrier(struct am_run *r, struct ini_pe *pe, uint32_t act, uint32_t n)
{
    struct am_pe *s = &r->pe[ini_pe_local(pe)];
    unsigned gen = atomic_load(&r->bar_gen);
    unsigned arrived = atomic_fetch_add(&r->bar_count, 1) + 1;
    if (act)
        amt_join(s, AMT_JOIN_ARRIVALS, n, act, arrived == (unsigned)r->n_local);
    if (arrived == (unsigned)r->n_local) {
        if (act)
            atomic_store(&r->bar_last_action, act);
        atomic_store(&r->bar_count, 0);
        atomic_fetch_add(&r->bar_gen, 1);
        for (int l = 0; l < r->n_local; l++)
            if (l != ini_pe_local(pe))
                ini_pe_kick(ini_cn_pe(r->cn, l));
        return 0;
    }
    uint64_t last = 0;
    double since = em3d_now();
    while (atomic_load(&r->bar_gen) == gen)
        if (am_wait(r, pe, &since, 0, &last, "at the barrier") != 0)
            return -1;
    return 0;
}

/* Global barrier n, a BARRIER request in a traced run: picked up at
 * arrival, released by the last of the cluster's arrivals and the other
 * clusters' (em3d_am_trace.c). */
static int global_barrier(struct am_run *r, struct ini_pe *pe, uint32_t n)
{
    struct am_pe *me = &r->pe[ini_pe_local(pe)];
    uint64_t submit = 0;
    uint32_t req = amt_req_begin(r, me, &submit);
    struct amt_act a;
    uint32_t act = amt_begin(r, me, INI_CN_ACT_REQ, me->id, req, &a);
    amt_end(me, &a);
    if (cluster_barrier(r, pe, act, n) != 0)
        return -1;
    int others = r->g->prm.n_clusters - 1;
    if (ini_pe_local(pe) == 0) {
        struct am_pe *s = &r->pe[0];
        uint32_t local = atomic_load(&r->bar_last_action);   /* the cluster's last arrival */
        for (int c = 0; c <= others; c++)
            if (c != r->cluster && am_send(r, pe, r->leader[c], H_ARRIVE, &n, sizeof n, local) != 0)
                return -1;
        /* The release's join: the cluster's arrivals, then the others'
         * (on_arrive); whichever comes last lets the cluster go on. */
        s->bar_local = n + 1;
        int done = s->arrived[n % 2] >= (uint64_t)others;
        amt_join(s, AMT_JOIN_RELEASE, n, local, done);
        if (done)
            s->bar_done = local;
        uint64_t last = UINT64_MAX;
        double since = 0;
        while (s->arrived[n % 2] < (uint64_t)others)
            if (am_wait(r, pe, &since, s->arrived[n % 2], &last, "waiting for the other clusters") != 0)
                return -1;
        s->arrived[n % 2] -= (uint64_t)others;
        atomic_store(&r->bar_release, s->bar_done);
    }
    if (cluster_barrier(r, pe, 0, 0) != 0)
        return -1;
    amt_req_done(me, req, AMT_BARRIER, atomic_load(&r->bar_release), submit);
    return 0;
}

static int pe_main(struct ini_pe *pe, void *arg)
{
    struct am_run *r = arg;
    struct am_pe *s = &r->pe[ini_pe_local(pe)];
    const struct em3d_graph *g = r->g;
    const int push = r->variant != EM3D_GET, d = g->prm.degree;
    uint32_t n = 0;
    if (r->dilate > 1.0)
        prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);   /* sleeps end when asked */
    if ((push && am_publish(r, pe, EM3D_H) != 0) || global_barrier(r, pe, n++) != 0)
        return 1;
    if (s->id == 0)
        r->t0 = em3d_now();
    for (int step = 0; step < g->prm.steps; step++)
        for (int k = 0; k < 2; k++) {
            if (am_fill(r, pe, !k) != 0)
                return 1;
            dilate_begin(r, s);
            em3d_update(r->val[k] + (size_t)s->id * g->half, g->half, d,
                        g->weight[k] + (size_t)s->id * g->half * d, s->from[k]);
            int last = step == g->prm.steps - 1 && k == EM3D_H;
            int rc = push && !last ? am_publish(r, pe, k) : 0;
            dilate_end(r, s);
            if (rc != 0 || global_barrier(r, pe, n++) != 0)
                return 1;
        }
    if (s->id == 0)
        r->t1 = em3d_now();
    return s->errors != 0;
}

static const double *process_at(void *ctx, int kind, uint32_t v) { return &((struct am_run *)ctx)->val[kind][v]; }

static void run_free(struct am_run *r)
{
    for (int l = 0; r->pe && l < r->n_local; l++)
        for (int k = 0; k < 2; k++)
            free(r->pe[l].from[k]);
    for (int p = 0; r->ghosts && p < r->g->prm.n_pes; p++)
        for (int k = 0; k < 2; k++)
            em3d_ghosts_free(&r->ghosts[p][k]);
    free(r->ghosts);
    free(r->pe);
    free(r->val[0]);
    free(r->val[1]);
    free(r);
}

/* The dilation factor: MGS_DILATE, else the knob; -1 after a message. */
static int read_dilation(struct am_run *r, const struct ini_config *cfg)
{
    const char *v = getenv("MGS_DILATE");
    char *end = NULL;
    r->dilate = v && *v ? strtod(v, &end) : cfg->knobs.dilate;
    if (end && (*end || !(r->dilate >= 1.0 && r->dilate <= 1000.0))) {
        cli_error("MGS_DILATE=%s: expected a factor from 1 to 1000", v);
        return -1;
    }
    if (r->dilate > 1.0)
        r->clock_cost_ns = ini_thread_clock_cost_ns();
    return 0;
}

/* Everything but the threads; NULL after a message. */
static struct am_run *run_new(struct ini_cn *cn, const struct em3d_graph *g, int variant, int window)
{
    const struct ini_config *cfg = ini_cn_config(cn);
    struct am_run *r = calloc(1, sizeof *r);
    if (!r)
        goto nomem;
    *r = (struct am_run){ .g = g, .cn = cn, .variant = variant, .window = window, .cluster = ini_cn_cluster(cn),
                          .n_local = ini_cn_n_pes(cn) };
    for (int c = 0; c < cfg->n_clusters; c++)
        r->leader[c] = cfg->clusters[c].pes[0];
    r->ghosts = calloc((size_t)g->prm.n_pes, sizeof *r->ghosts);
    r->pe = calloc((size_t)r->n_local, sizeof *r->pe);
    for (int k = 0; k < 2; k++)
        if ((r->val[k] = malloc((size_t)g->total * sizeof(double))))
            for (int v = 0; v < g->total; v++)
                r->val[k][v] = g->init[k][v];
    if (!r->ghosts || !r->pe || !r->val[0] || !r->val[1])
        goto nomem;
    /* Readers' ghosts: this cluster's, and for put and bulk every PE's. */
    for (int p = 0; p < g->prm.n_pes; p++)
        for (int k = 0; k < 2; k++)
            if ((variant != EM3D_GET || g->prm.cluster_of[p] == r->cluster) &&
                em3d_ghosts_build(&r->ghosts[p][k], g, p, k) != 0)
                goto nomem;
    for (int l = 0; l < r->n_local; l++) {
        struct am_pe *s = &r->pe[l];
        s->id = ini_pe_id(ini_cn_pe(cn, l));
        s->gh = r->ghosts[s->id];
        for (int k = 0; k < 2; k++)
            if (!(s->from[k] = em3d_edge_sources(g, s->id, k, &s->gh[!k], process_at, r)))
                goto nomem;
    }
    amt_init(r);
    if (read_dilation(r, cfg) != 0 || am_register(r) != 0) {   /* the reason said */
        run_free(r);
        return NULL;
    }
    return r;
nomem:
    cli_error("out of memory for the graph's values and ghosts");
    if (r)
        run_free(r);
    return NULL;
}

int em3d_run_am(struct ini_cn *cn, const struct em3d_graph *g, double *const ref[2], int variant, int window,
                struct em3d_result *res)
{
    struct am_run *r = run_new(cn, g, variant, window);
    if (!r)
        return -1;
    int failed = ini_cn_run(cn, pe_main, r);
    *res = (struct em3d_result){ r->t1 - r->t0, 0, 0, 0 };
    for (int l = 0; l < r->n_local; l++)
        for (int k = 0; k < 2; k++) {
            size_t at = (size_t)r->pe[l].id * g->half;
            res->mismatches += em3d_compare(r->val[k] + at, ref[k] + at, g->half, &res->maxdiff);
            res->checked += (uint64_t)g->half;
        }
    run_free(r);
    if (failed) {
        cli_error("%d compute node(s) of cluster %d failed", failed, ini_cn_cluster(cn));
        return -1;
    }
    return res->mismatches != 0;
}
