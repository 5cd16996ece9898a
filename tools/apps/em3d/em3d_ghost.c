/*
 * em3d_ghost.c - ghost vertices (em3d.h): the other clusters' vertices a
 * PE reads, in one sorted list per kind, and where each of a PE's edges
 * reads its source.
 *
 * Sorted by global index, a PE's ghosts come grouped by owner and, within
 * an owner, in the owner's order.  So the owner knows, without being told,
 * which of its values a reader needs and in which slots they go (put,
 * bulk: the reader's list is the same on both sides, every process
 * building the graph and the lists alike), and a bulk message carries the
 * values of one owner's run of slots with no index at all.
 */
#include "em3d.h"

#include <stdlib.h>
#include <string.h>

static int by_index(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int em3d_ghosts_build(struct em3d_ghosts *gh, const struct em3d_graph *g, int pe, int kind)
{
    const int d = g->prm.degree, mine = g->prm.cluster_of[pe];
    /* Readers of `kind` are the vertices of the other kind. */
    const uint32_t *src = g->src[!kind] + (size_t)pe * g->half * d;
    size_t edges = (size_t)g->half * d;
    memset(gh, 0, sizeof *gh);
    gh->vertex = malloc((edges ? edges : 1) * sizeof *gh->vertex);
    gh->first = calloc((size_t)g->prm.n_pes + 1, sizeof *gh->first);
    if (!gh->vertex || !gh->first) {
        em3d_ghosts_free(gh);
        return -1;
    }
    size_t n = 0;
    for (size_t e = 0; e < edges; e++)
        if (em3d_cluster_of_vertex(g, src[e]) != mine)
            gh->vertex[n++] = src[e];
    qsort(gh->vertex, n, sizeof *gh->vertex, by_index);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (kept == 0 || gh->vertex[kept - 1] != gh->vertex[i])
            gh->vertex[kept++] = gh->vertex[i];
    gh->n = (int)kept;
    gh->val = calloc(kept ? kept : 1, sizeof *gh->val);
    if (!gh->val) {
        em3d_ghosts_free(gh);
        return -1;
    }
    /* first[o]: the first slot of owner o or of a later one. */
    int slot = 0;
    for (int o = 0; o <= g->prm.n_pes; o++) {
        while (slot < gh->n && em3d_owner(g, gh->vertex[slot]) < o)
            slot++;
        gh->first[o] = slot;
    }
    return 0;
}

int em3d_ghost_slot(const struct em3d_ghosts *gh, uint32_t v)
{
    const uint32_t *hit = bsearch(&v, gh->vertex, (size_t)gh->n, sizeof v, by_index);
    return hit ? (int)(hit - gh->vertex) : -1;
}

void em3d_ghosts_free(struct em3d_ghosts *gh)
{
    free(gh->vertex);
    free(gh->first);
    free(gh->val);
    memset(gh, 0, sizeof *gh);
}

const double **em3d_edge_sources(const struct em3d_graph *g, int pe, int kind, const struct em3d_ghosts *gh,
                                 const double *(*at)(void *ctx, int kind, uint32_t v), void *ctx)
{
    const int d = g->prm.degree, mine = g->prm.cluster_of[pe];
    size_t edges = (size_t)g->half * d;
    const uint32_t *src = g->src[kind] + (size_t)pe * edges;
    const double **from = malloc((edges ? edges : 1) * sizeof *from);
    if (!from)
        return NULL;
    for (size_t e = 0; e < edges; e++) {
        uint32_t v = src[e];
        if (gh && em3d_cluster_of_vertex(g, v) != mine)
            from[e] = &gh->val[em3d_ghost_slot(gh, v)];
        else
            from[e] = at(ctx, !kind, v);
    }
    return from;
}
