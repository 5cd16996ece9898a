/*
 * em3d_graph.c - EM3D's synthetic graph (em3d.h): the layout of the
 * machine, the parameters' checks and the seeded generator.
 *
 * Each PE's vertices, edges and initial values come from a stream of its
 * own (splitmix64 seeded by the seed and the PE), drawn in one fixed order,
 * so a graph depends on the parameters and the seed only, and any process
 * builds it whole without a word from the others.  An edge's kind of
 * source is drawn per edge (inter, intra, local, by the shares), then its
 * owner uniformly among the PEs of that kind, then the vertex uniformly
 * among the owner's; the shares are therefore met in expectation, and
 * edges_inter / edges_intra / edges_local count what was drawn.
 *
 * Weights lie in [-0.5/degree, 0.5/degree): a vertex's weights sum to at
 * most a half in magnitude, so the values stay bounded over any number of
 * steps and the exact comparison compares values of the same scale.
 */
#include "em3d.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const em3d_variant_names[] = { "simple", "ghost", "get", "put", "bulk", "seq", NULL };
const char *const em3d_graph_names[] = { "random", "local", NULL };

void em3d_layout_even(struct em3d_params *p, int clusters, int pes_per_cluster)
{
    p->n_clusters = clusters;
    p->n_pes = clusters * pes_per_cluster;
    for (int pe = 0; pe < p->n_pes && pe < EM3D_MAX_PES; pe++)
        p->cluster_of[pe] = pe / pes_per_cluster;
}

/* The smallest number of PEs in a cluster (0 if a cluster has none). */
static int smallest_cluster(const struct em3d_params *p)
{
    int count[EM3D_MAX_PES] = { 0 };
    for (int pe = 0; pe < p->n_pes; pe++)
        count[p->cluster_of[pe]]++;
    int least = p->n_pes;
    for (int c = 0; c < p->n_clusters; c++)
        if (count[c] < least)
            least = count[c];
    return least;
}

int em3d_params_check(const struct em3d_params *p, char *err, size_t errlen)
{
    if (p->n_pes < 1 || p->n_pes > EM3D_MAX_PES || p->n_clusters < 1 || p->n_clusters > p->n_pes) {
        snprintf(err, errlen, "layout: %d compute nodes in %d clusters (1..%d nodes, 1 cluster or more each)",
                 p->n_pes, p->n_clusters, EM3D_MAX_PES);
        return -1;
    }
    for (int pe = 0; pe < p->n_pes; pe++)
        if (p->cluster_of[pe] < 0 || p->cluster_of[pe] >= p->n_clusters) {
            snprintf(err, errlen, "layout: compute node %d in cluster %d of %d", pe, p->cluster_of[pe], p->n_clusters);
            return -1;
        }
    if (p->nodes < 2 || p->nodes > EM3D_MAX_NODES || p->nodes % 2) {
        snprintf(err, errlen, "--nodes: %d vertices per compute node (an even number, 2..%d)", p->nodes, EM3D_MAX_NODES);
        return -1;
    }
    if ((uint64_t)p->nodes * (uint64_t)p->n_pes * (uint64_t)p->degree > (1u << 30)) {
        snprintf(err, errlen, "--nodes, --degree: %d x %d x %d compute nodes is more than 2^30 edges", p->nodes,
                 p->degree, p->n_pes);
        return -1;
    }
    if (p->graph == EM3D_GRAPH_LOCAL) {   /* its shares come from the geometry */
        struct em3d_grid gr;
        return em3d_grid_layout(p, &gr, err, errlen);
    }
    if (!(p->inter >= 0 && p->intra >= 0 && p->inter + p->intra <= 1.0)) {
        snprintf(err, errlen, "--inter %g, --intra %g: shares from 0 to 1 whose sum is at most 1", p->inter, p->intra);
        return -1;
    }
    if (p->inter > 0 && p->n_clusters < 2) {
        snprintf(err, errlen, "--inter %g: inter-cluster edges need 2 clusters or more (the layout has 1)", p->inter);
        return -1;
    }
    if (p->intra > 0 && smallest_cluster(p) < 2) {
        snprintf(err, errlen, "--intra %g: every cluster needs 2 compute nodes or more (one has %d)", p->intra,
                 smallest_cluster(p));
        return -1;
    }
    return 0;
}

/* splitmix64: a small generator with good streams from nearby seeds. */
static uint64_t next64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *s) { return (double)(next64(s) >> 11) * 0x1p-53; }

static int below(uint64_t *s, int n) { return (int)(uniform(s) * n); }

/* PE pe's partners: the PEs of other clusters, then the others of its own. */
struct partners {
    int n_other, n_same;
    int other[EM3D_MAX_PES], same[EM3D_MAX_PES];
};

static void find_partners(const struct em3d_params *p, int pe, struct partners *pt)
{
    pt->n_other = pt->n_same = 0;
    for (int q = 0; q < p->n_pes; q++) {
        if (p->cluster_of[q] != p->cluster_of[pe])
            pt->other[pt->n_other++] = q;
        else if (q != pe)
            pt->same[pt->n_same++] = q;
    }
}

/* The in-edges of PE pe's vertices of kind k, and their initial values. */
static void generate_part(struct em3d_graph *g, int pe, int k, uint64_t *s, const struct partners *pt)
{
    const struct em3d_params *p = &g->prm;
    for (int i = 0; i < g->half; i++) {
        size_t v = (size_t)pe * g->half + i;
        g->init[k][v] = uniform(s);
        for (int j = 0; j < p->degree; j++) {
            double r = uniform(s);
            int owner = pe;
            if (r < p->inter) {
                owner = pt->other[below(s, pt->n_other)];
                g->edges_inter++;
            } else if (r < p->inter + p->intra) {
                owner = pt->same[below(s, pt->n_same)];
                g->edges_intra++;
            } else {
                g->edges_local++;
            }
            g->src[k][v * p->degree + j] = (uint32_t)owner * (uint32_t)g->half + (uint32_t)below(s, g->half);
            g->weight[k][v * p->degree + j] = (uniform(s) - 0.5) / p->degree;
        }
    }
}

/* The local graph's part of PE pe of kind k: each in-edge's source a cell
 * of the (2R+1) x (2R+1) window around the vertex's cell, uniformly (so a
 * source may come twice, as in the random graph), drawn in the same
 * order of draws as generate_part's. */
static void generate_local(struct em3d_graph *g, const struct em3d_grid *gr, int pe, int k, uint64_t *s)
{
    const struct em3d_params *p = &g->prm;
    const int r = p->radius, side = 2 * r + 1, cl = p->cluster_of[pe];
    for (int i = 0; i < g->half; i++) {
        size_t v = (size_t)pe * g->half + i;
        int x, y;
        em3d_grid_cell(gr, (uint32_t)v, &x, &y);
        g->init[k][v] = uniform(s);
        for (int j = 0; j < p->degree; j++) {
            int dx = below(s, side) - r, dy = below(s, side) - r;
            uint32_t src = em3d_grid_vertex(gr, x + dx, y + dy);
            int owner = em3d_owner(g, src);
            if (p->cluster_of[owner] != cl)
                g->edges_inter++;
            else if (owner != pe)
                g->edges_intra++;
            else
                g->edges_local++;
            g->src[k][v * p->degree + j] = src;
            g->weight[k][v * p->degree + j] = (uniform(s) - 0.5) / p->degree;
        }
    }
}

int em3d_graph_build(struct em3d_graph *g, const struct em3d_params *p)
{
    memset(g, 0, sizeof *g);
    g->prm = *p;
    g->half = p->nodes / 2;
    g->total = g->half * p->n_pes;
    size_t edges = (size_t)g->total * p->degree;
    for (int k = 0; k < 2; k++) {
        g->src[k] = malloc(edges * sizeof *g->src[k]);
        g->weight[k] = malloc(edges * sizeof *g->weight[k]);
        g->init[k] = malloc((size_t)g->total * sizeof *g->init[k]);
        if (!g->src[k] || !g->weight[k] || !g->init[k]) {
            em3d_graph_free(g);
            return -1;
        }
    }
    struct partners *pt = malloc(sizeof *pt);
    if (!pt) {
        em3d_graph_free(g);
        return -1;
    }
    struct em3d_grid gr;
    char err[256];
    if (p->graph == EM3D_GRAPH_LOCAL && em3d_grid_layout(p, &gr, err, sizeof err) != 0) {
        free(pt);   /* unchecked parameters: the caller checks them first */
        em3d_graph_free(g);
        return -1;
    }
    for (int pe = 0; pe < p->n_pes; pe++) {
        uint64_t s = p->seed * 0x2545f4914f6cdd1du ^ ((uint64_t)pe + 1) * 0x9e3779b97f4a7c15u;
        if (p->graph != EM3D_GRAPH_LOCAL)
            find_partners(p, pe, pt);
        for (int k = EM3D_E; k <= EM3D_H; k++) {
            if (p->graph == EM3D_GRAPH_LOCAL)
                generate_local(g, &gr, pe, k, &s);
            else
                generate_part(g, pe, k, &s, pt);
        }
    }
    free(pt);
    return 0;
}

void em3d_graph_free(struct em3d_graph *g)
{
    for (int k = 0; k < 2; k++) {
        free(g->src[k]);
        free(g->weight[k]);
        free(g->init[k]);
        g->src[k] = NULL;
        g->weight[k] = NULL;
        g->init[k] = NULL;
    }
}
