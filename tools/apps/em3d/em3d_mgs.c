/*
 * em3d_mgs.c - the shared-memory versions of EM3D (em3d.h), Simple and
 * Ghost, over par.h: MGS under the launcher (one process per cluster,
 * par_use_mgs), plain threads outside it.
 *
 * The values live in shared memory, each PE's block of a kind starting on
 * a page of its own, so that a PE's writes share no coherence unit with
 * another's (the units' default size is one page; with larger units the
 * blocks still never share a page, only a unit).  A half-step is: (ghost
 * only) copy the other clusters' sources into the ghost vertices, update
 * this PE's vertices of the kind, barrier.  Simple reads every source in
 * place: MGS fetches a remote page at the first read after each barrier,
 * and the hardware (the cluster's one process) serves the rest.
 *
 * The graph, the reference and the pointers are private to each process:
 * par_run's argument points to a context every process builds alike
 * (rule 1 of par.h is about data more than one thread writes; this
 * context is read-only but for thread 0's result fields).  Each thread
 * checks its own vertices; par_sum gives every thread the totals.
 */
#include "em3d.h"

#include <stdio.h>
#include <stdlib.h>

#include "par.h"

#define PAGE 4096

struct par_ctx {
    const struct em3d_graph *g;
    double *const *ref;
    int variant;
    double *shared[2];          /* per kind: n_pes blocks of `stride` doubles */
    size_t stride;
    int failed;                 /* a thread could not allocate (set before any barrier) */
    struct em3d_result res;     /* thread 0's */
};

static double *shared_at(const struct par_ctx *c, int kind, uint32_t v)
{
    return &c->shared[kind][(size_t)em3d_owner(c->g, v) * c->stride + v % (uint32_t)c->g->half];
}

static const double *locate(void *ctx, int kind, uint32_t v) { return shared_at(ctx, kind, v); }

/* A thread's private view: its ghosts (Ghost) and edge pointers. */
struct view {
    struct em3d_ghosts gh[2];
    const double **from[2];
};

static void view_free(struct view *w)
{
    for (int k = 0; k < 2; k++) {
        em3d_ghosts_free(&w->gh[k]);
        free(w->from[k]);
    }
}

static int view_build(struct par_ctx *c, int me, struct view *w)
{
    int ghost = c->variant == EM3D_GHOST;
    for (int k = 0; k < 2; k++)
        if (ghost && em3d_ghosts_build(&w->gh[k], c->g, me, k) != 0)
            return -1;
    for (int k = 0; k < 2; k++)
        if (!(w->from[k] = em3d_edge_sources(c->g, me, k, ghost ? &w->gh[!k] : NULL, locate, c)))
            return -1;
    return 0;
}

static void fill_ghosts(const struct par_ctx *c, struct em3d_ghosts *gh, int kind)
{
    for (int i = 0; i < gh->n; i++)
        gh->val[i] = *shared_at(c, kind, gh->vertex[i]);
}

/* This thread's vertices against the reference, both kinds. */
static void check_own(const struct par_ctx *c, int me, double sums[3])
{
    const struct em3d_graph *g = c->g;
    double maxdiff = 0;
    uint64_t differ = 0;
    for (int k = 0; k < 2; k++)
        differ += em3d_compare(&c->shared[k][(size_t)me * c->stride], c->ref[k] + (size_t)me * g->half, g->half,
                               &maxdiff);
    sums[0] = 2.0 * g->half;
    sums[1] = (double)differ;
    sums[2] = maxdiff;
}

/* The one thread of each process that writes the context's results. */
static int first_of_cluster(const struct em3d_graph *g, int me)
{
    return me == 0 || g->prm.cluster_of[me - 1] != g->prm.cluster_of[me];
}

/* Seconds: the emulated machine's in virtual time, else the host's. */
static double now(void)
{
    double v = par_vtime_seconds();
    return v >= 0 ? v : em3d_now();
}

static void worker(void *arg)
{
    struct par_ctx *c = arg;
    const struct em3d_graph *g = c->g;
    int me = par_self();
    struct view w = { 0 };
    double bad = view_build(c, me, &w) != 0;
    par_sum(&bad, 1);           /* all threads stop, or none */
    if (bad != 0) {
        if (first_of_cluster(g, me))
            c->failed = 1;
        view_free(&w);
        return;
    }
    double t0 = now();
    for (int s = 0; s < g->prm.steps; s++)
        for (int k = 0; k < 2; k++) {
            if (c->variant == EM3D_GHOST)
                fill_ghosts(c, &w.gh[!k], !k);
            em3d_update(&c->shared[k][(size_t)me * c->stride], g->half, g->prm.degree,
                        g->weight[k] + (size_t)me * g->half * g->prm.degree, w.from[k]);
            par_work(em3d_update_work(g));   /* virtual time: the update's cycles */
            par_barrier();
        }
    double t1 = now();
    double sums[3];
    check_own(c, me, sums);
    par_sum(sums, 3);           /* the largest difference comes as a sum: a bound, said so */
    if (first_of_cluster(g, me))   /* thread 0 in cluster 0: its time is the run's */
        c->res = (struct em3d_result){ t1 - t0, (uint64_t)sums[0], (uint64_t)sums[1], sums[2], par_vtime_seconds() >= 0 };
    view_free(&w);
}

int em3d_run_par(const struct em3d_graph *g, double *const ref[2], int variant, struct em3d_result *res)
{
    struct par_ctx c = { .g = g, .ref = ref, .variant = variant };
    c.stride = ((size_t)g->half * sizeof(double) + PAGE - 1) / PAGE * PAGE / sizeof(double);
    if (par_init(g->prm.n_pes) != 0) {
        fprintf(stderr, "em3d: cannot prepare %d threads\n", g->prm.n_pes);
        return -1;
    }
    for (int k = 0; k < 2; k++) {
        c.shared[k] = par_malloc(c.stride * sizeof(double) * (size_t)g->prm.n_pes);
        if (!c.shared[k]) {
            fprintf(stderr, "em3d: out of shared memory for %d x %zu bytes\n", g->prm.n_pes, c.stride * sizeof(double));
            par_finalize();
            return -1;
        }
        for (uint32_t v = 0; v < (uint32_t)g->total; v++)
            *shared_at(&c, k, v) = g->init[k][v];
    }
    if (par_run(worker, &c) != 0 || c.failed) {
        fprintf(stderr, "em3d: %s\n", c.failed ? "out of memory for a thread's ghosts" : "cannot start the threads");
        par_finalize();
        return -1;
    }
    par_finalize();
    *res = c.res;
    return res->mismatches != 0;
}
