/*
 * em3d_ref.c - the kernel every version runs, the sequential reference and
 * the check (em3d.h).
 *
 * The kernel reads each edge's source through a pointer set up once
 * (em3d_edge_sources): where the value lives in shared memory, in the
 * process's memory or in a ghost copy.  The versions therefore differ only
 * in how the values get there, never in the arithmetic: the same sum in
 * the same order, so the check compares values bit for bit.  (The build's
 * -std=c11 keeps the compiler from contracting a*b+c into one rounding,
 * which would differ between inlined copies.)
 */
#include "em3d.h"
#include "clock.h"

#include <stdlib.h>
#include <time.h>

void em3d_update(double *val, int n, int degree, const double *weight, const double *const *from)
{
    for (int i = 0; i < n; i++) {
        double sum = 0;
        const double *w = weight + (size_t)i * degree;
        const double *const *x = from + (size_t)i * degree;
        for (int j = 0; j < degree; j++)
            sum += w[j] * *x[j];
        val[i] -= sum;
    }
}

double em3d_now(void) { return (double)ini_mono_ns() * 1e-9; }

static const double *ref_at(void *ctx, int kind, uint32_t v) { return &((double **)ctx)[kind][v]; }

int em3d_reference(const struct em3d_graph *g, int steps, double *val[2], double *seconds)
{
    const double **from[2] = { NULL, NULL };
    int rc = -1;
    val[0] = val[1] = NULL;
    for (int k = 0; k < 2; k++) {
        val[k] = malloc((size_t)g->total * sizeof *val[k]);
        if (!val[k])
            goto out;
        for (int v = 0; v < g->total; v++)
            val[k][v] = g->init[k][v];
    }
    /* One PE's sources at a time, all of them through ref_at: the whole
     * graph is one PE's here. */
    size_t per_pe = (size_t)g->half * g->prm.degree;
    for (int k = 0; k < 2; k++) {
        from[k] = malloc(((size_t)g->total * g->prm.degree + 1) * sizeof *from[k]);
        if (!from[k])
            goto out;
        for (int pe = 0; pe < g->prm.n_pes; pe++) {
            const double **part = em3d_edge_sources(g, pe, k, NULL, ref_at, val);
            if (!part)
                goto out;
            for (size_t e = 0; e < per_pe; e++)
                from[k][pe * per_pe + e] = part[e];
            free(part);
        }
    }
    double t0 = em3d_now();
    for (int s = 0; s < steps; s++) {
        em3d_update(val[EM3D_E], g->total, g->prm.degree, g->weight[EM3D_E], from[EM3D_E]);
        em3d_update(val[EM3D_H], g->total, g->prm.degree, g->weight[EM3D_H], from[EM3D_H]);
    }
    *seconds = em3d_now() - t0;
    rc = 0;
out:
    free(from[0]);
    free(from[1]);
    if (rc != 0) {
        free(val[0]);
        free(val[1]);
        val[0] = val[1] = NULL;
    }
    return rc;
}

uint64_t em3d_compare(const double *got, const double *want, int n, double *maxdiff)
{
    uint64_t differ = 0;
    for (int i = 0; i < n; i++) {
        if (got[i] == want[i])
            continue;
        double d = got[i] > want[i] ? got[i] - want[i] : want[i] - got[i];
        if (!(d <= *maxdiff))   /* NaN too */
            *maxdiff = d;
        differ++;
    }
    return differ;
}
