/*
 * em3d_am.c - the message versions of EM3D on the compute-node API
 * (em3d_am.h): the set-up, each PE's steps and the check.
 *
 * A PE's half-step: have the ghosts of the kind it reads (get: fetch
 * them; put, bulk: wait for the owners' values), update its vertices of
 * the other kind, (put, bulk) send its new values to their readers, then
 * the global barrier.  Before the first step the put and bulk versions
 * send the initial H values, which the first half-step reads.
 *
 * The global barrier is the library's (ini_cn_barrier, ini/cn/cn_barrier.c:
 * the cluster's PEs meet, its first PE exchanges one message with every
 * other cluster's, the PEs meet again; every wait serves the PE's
 * handlers, so a PE at the barrier still answers the requests of PEs
 * that are not).  It records itself in a traced run.
 *
 * Dilation (uniform mode, docs/experiments.md) is the library's compute
 * burst (ini_work_begin, ini_work_end): MGS_DILATE, else the
 * configuration's `dilate` knob, as the MGS versions' compute threads; a
 * PE's update and the sends of its new values, taken together, are one
 * burst, which lasts K times the CPU time it used.  Waits are not
 * dilated; a handler's work is not either (it is a few loads and a send,
 * where the MGS versions' protocol thread is dilated as a whole).
 */
#include "em3d_am.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The global barrier (the library's), with a failure's reason said. */
static int barrier(struct am_run *r, struct ini_pe *pe)
{
    struct am_pe *s = &r->pe[ini_pe_local(pe)];
    if (ini_cn_barrier(pe, (uint64_t)(AM_STALL_S * 1e6)) == 0)
        return 0;
    if (errno == ETIMEDOUT)
        cli_pe_error(s->id, &s->errors, "nothing came for %.0f s at the barrier", AM_STALL_S);
    else if (errno == EPIPE)
        cli_pe_error(s->id, &s->errors, "the INIs stopped while at the barrier");
    else
        cli_pe_error(s->id, &s->errors, "cannot send the barrier's message: %s", strerror(errno));
    return -1;
}

/* Seconds on the node's clock: the emulated machine's in virtual time. */
static double now(const struct am_run *r, const struct ini_pe *pe)
{
    uint64_t hz = ini_cn_vtime_hz(r->cn);
    return hz ? (double)ini_pe_vtime(pe) / (double)hz : em3d_now();
}

static int pe_main(struct ini_pe *pe, void *arg)
{
    struct am_run *r = arg;
    struct am_pe *s = &r->pe[ini_pe_local(pe)];
    const struct em3d_graph *g = r->g;
    const int push = r->variant != EM3D_GET, d = g->prm.degree;
    if ((push && am_publish(r, pe, EM3D_H) != 0) || barrier(r, pe) != 0)
        return 1;
    if (s->id == 0)
        r->t0 = now(r, pe);
    for (int step = 0; step < g->prm.steps; step++)
        for (int k = 0; k < 2; k++) {
            if (am_fill(r, pe, !k) != 0)
                return 1;
            ini_work_begin(pe);
            em3d_update(r->val[k] + (size_t)s->id * g->half, g->half, d,
                        g->weight[k] + (size_t)s->id * g->half * d, s->from[k]);
            ini_work_cycles(pe, em3d_update_work(g));   /* virtual time: the update's cycles */
            int last = step == g->prm.steps - 1 && k == EM3D_H;
            int rc = push && !last ? am_publish(r, pe, k) : 0;
            ini_work_end(pe);
            if (rc != 0 || barrier(r, pe) != 0)
                return 1;
        }
    if (s->id == 0)
        r->t1 = now(r, pe);
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

/* Everything but the threads; NULL after a message. */
static struct am_run *run_new(struct ini_cn *cn, const struct em3d_graph *g, int variant, int window)
{
    struct am_run *r = calloc(1, sizeof *r);
    if (!r)
        goto nomem;
    *r = (struct am_run){ .g = g, .cn = cn, .variant = variant, .window = window, .cluster = ini_cn_cluster(cn),
                          .n_local = ini_cn_n_pes(cn) };
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
        s->pe = ini_cn_pe(cn, l);
        s->id = ini_pe_id(s->pe);
        s->gh = r->ghosts[s->id];
        for (int k = 0; k < 2; k++)
            if (!(s->from[k] = em3d_edge_sources(g, s->id, k, &s->gh[!k], process_at, r)))
                goto nomem;
    }
    amt_init(r);
    if (am_register(r) != 0) {   /* the reason said */
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
    *res = (struct em3d_result){ r->t1 - r->t0, 0, 0, 0, ini_cn_vtime_hz(cn) != 0 };
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
