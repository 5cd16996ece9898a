/*
 * em3d_grid.c - EM3D's spatially local graph (em3d.h, --graph local): the
 * vertices on a 2-D torus of cells, each compute node a b x b block of
 * them, each cluster a block of its nodes' blocks, and the in-edges of a
 * cell drawn from the cells within grid distance R.
 *
 * Why a torus: with the machine fixed at 16 nodes the clusters of 4 and 8
 * reach the machine's edge, and on a bounded grid a cluster there would
 * have fewer neighbours than one inside, so the boundary would follow
 * the machine's edge, not the cluster's size.  On the torus every cluster
 * of a side shorter than the machine's has its whole perimeter facing
 * other clusters; one that spans a side (8 of 16 nodes as 4 x 2) faces
 * only itself across it, and the boundary says so.
 *
 * Why Chebyshev distance (a (2R+1) x (2R+1) window, the cell itself
 * included): the cells a cluster reads from outside are then its block
 * grown by R on every side, a count that is exact and easy to state
 * ((w + 2R)(h + 2R) - w h), and R <= b keeps a node's reads within its
 * eight neighbouring nodes.
 */
#include "em3d.h"

#include <math.h>
#include <stdio.h>

/* n = x * y with x >= y and x as small as it can be: the nearest square. */
static void near_square(int n, int *x, int *y)
{
    int s = (int)ceil(sqrt((double)n) - 1e-9);
    while (n % s)
        s++;
    *x = s;
    *y = n / s;
}

/* Every cluster the same size, its nodes numbered one after the other. */
static int equal_clusters(const struct em3d_params *p)
{
    if (p->n_pes % p->n_clusters)
        return 0;
    int per = p->n_pes / p->n_clusters;
    for (int pe = 0; pe < p->n_pes; pe++)
        if (p->cluster_of[pe] != pe / per)
            return 0;
    return 1;
}

int em3d_grid_layout(const struct em3d_params *p, struct em3d_grid *gr, char *err, size_t errlen)
{
    int half = p->nodes / 2, b = (int)lround(sqrt((double)half));
    if (b * b != half) {
        snprintf(err, errlen, "--nodes: %d vertices a node is not 2 x a square (--graph local: a b x b block of cells)",
                 p->nodes);
        return -1;
    }
    if (!equal_clusters(p)) {
        snprintf(err, errlen, "layout: --graph local needs clusters of equal size, numbered one after the other");
        return -1;
    }
    gr->b = b;
    gr->per = p->n_pes / p->n_clusters;
    near_square(p->n_pes, &gr->mx, &gr->my);
    near_square(gr->per, &gr->px, &gr->py);
    if (gr->mx % gr->px || gr->my % gr->py) {   /* the cluster's rectangle turned to fit the machine */
        int t = gr->px;
        gr->px = gr->py;
        gr->py = t;
    }
    if (gr->mx % gr->px || gr->my % gr->py) {
        snprintf(err, errlen, "layout: clusters of %d nodes (%d x %d) do not tile %d nodes as %d x %d", gr->per,
                 gr->px, gr->py, p->n_pes, gr->mx, gr->my);
        return -1;
    }
    gr->cx = gr->mx / gr->px;
    gr->cy = gr->my / gr->py;
    gr->w = gr->mx * b;
    gr->h = gr->my * b;
    if (p->radius < 1 || p->radius > b) {
        snprintf(err, errlen, "--radius: %d is not from 1 to the block's side %d", p->radius, b);
        return -1;
    }
    if (2 * p->radius + 1 > gr->w || 2 * p->radius + 1 > gr->h) {   /* the window would wrap onto itself */
        snprintf(err, errlen, "--radius: a window of %d cells across is wider than the %d x %d grid",
                 2 * p->radius + 1, gr->w, gr->h);
        return -1;
    }
    return 0;
}

void em3d_grid_cell(const struct em3d_grid *gr, uint32_t v, int *x, int *y)
{
    int half = gr->b * gr->b, pe = (int)(v / (uint32_t)half), i = (int)(v % (uint32_t)half);
    int cl = pe / gr->per, l = pe % gr->per;
    int nx = (cl % gr->cx) * gr->px + l % gr->px, ny = (cl / gr->cx) * gr->py + l / gr->px;
    *x = nx * gr->b + i % gr->b;
    *y = ny * gr->b + i / gr->b;
}

uint32_t em3d_grid_vertex(const struct em3d_grid *gr, int x, int y)
{
    x = ((x % gr->w) + gr->w) % gr->w;   /* the torus */
    y = ((y % gr->h) + gr->h) % gr->h;
    int nx = x / gr->b, ny = y / gr->b;
    int cl = (ny / gr->py) * gr->cx + nx / gr->px, l = (ny % gr->py) * gr->px + nx % gr->px;
    int pe = cl * gr->per + l;
    return (uint32_t)pe * (uint32_t)(gr->b * gr->b) + (uint32_t)((y % gr->b) * gr->b + x % gr->b);
}

uint64_t em3d_grid_halo(const struct em3d_grid *gr, int radius)
{
    /* The block grown by the radius, no wider than the torus: a cluster
     * whose side is the machine's wraps onto itself across it. */
    int64_t w = (int64_t)gr->px * gr->b, h = (int64_t)gr->py * gr->b;
    int64_t gw = w + 2 * radius < gr->w ? w + 2 * radius : gr->w;
    int64_t gh = h + 2 * radius < gr->h ? h + 2 * radius : gr->h;
    return (uint64_t)(gw * gh - w * h);
}
