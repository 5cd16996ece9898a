/*
 * em3d.h - EM3D, the second application on the system (seed 004, section
 * 8; docs/em3d.md): the leapfrog update of electric (E) and magnetic (H)
 * field values on a bipartite graph, with the share of edges that cross
 * clusters as the knob.
 *
 * The workload
 *   Every compute node (PE) owns `nodes` vertices, half E and half H.
 *   Every vertex has `degree` in-edges from vertices of the other kind,
 *   each with a weight.  An edge's source is, with probability `inter`, a
 *   vertex of a PE of another cluster, with probability `intra` one of
 *   another PE of the same cluster (memory the hardware shares), else one
 *   of the PE's own (--graph random, the default).  With --graph local
 *   the vertices are cells of a 2-D grid and a source is a cell within
 *   distance R: which edges cross clusters follows from the blocks'
 *   geometry (em3d_grid.c).  A step updates every E value from its H sources,
 *   then every H value from its E sources:
 *       v  <-  v - (w_1 x_1 + w_2 x_2 + ... + w_d x_d)
 *   summed left to right in edge order by one kernel, em3d_update, which
 *   every version calls: so each version's values are bit-identical to the
 *   sequential reference's, and the check is exact.
 *
 * The graph is generated from a seed, each PE's part from its own stream,
 * so every process builds the same graph by itself and nothing of it is
 * sent.  Vertex v of kind k (global index v = pe * half + i) is owned by
 * PE v / half.
 *
 * The versions (em3d_mgs.c over par.h, em3d_am*.c over ini_cn.h)
 *   simple  MGS: every source read where it lives in shared memory
 *   ghost   MGS: the other clusters' sources copied once per half-step
 *           into private ghost vertices, then read from there
 *   get     active messages: one request per ghost vertex, a window of
 *           them in flight; the owner answers with the value
 *   put     active messages: the owner pushes each new value it owns to
 *           every PE of another cluster that reads it
 *   bulk    active messages: the owner pushes one message per destination
 *           PE per half-step holding all the values that PE reads
 *   seq     the sequential reference alone, timed
 * In the message versions a cluster's PEs read each other's values in the
 * process's memory (the hardware shares them) and only other clusters'
 * values travel; so does the ghost version's copy.
 */
#ifndef MGS_EM3D_H
#define MGS_EM3D_H

#include <stddef.h>
#include <stdint.h>

#define EM3D_MAX_PES 256
#define EM3D_MAX_NODES 1000000    /* vertices per PE */
#define EM3D_MAX_DEGREE 1000

enum em3d_kind { EM3D_E = 0, EM3D_H = 1 };
enum em3d_variant { EM3D_SIMPLE, EM3D_GHOST, EM3D_GET, EM3D_PUT, EM3D_BULK, EM3D_SEQ };
extern const char *const em3d_variant_names[];   /* by enum em3d_variant, NULL-terminated */
/* random: sources drawn by the inter and intra shares, anywhere; local:
 * on a 2-D grid within a radius (em3d_grid.c), the shares an outcome. */
enum em3d_graph_kind { EM3D_GRAPH_RANDOM, EM3D_GRAPH_LOCAL };
extern const char *const em3d_graph_names[];     /* by enum em3d_graph_kind, NULL-terminated */

struct em3d_params {
    int n_pes;                      /* compute nodes of the machine */
    int n_clusters;
    int cluster_of[EM3D_MAX_PES];   /* PE -> its cluster */
    int nodes;                      /* vertices per PE, even: nodes/2 of each kind */
    int degree;                     /* in-edges of every vertex */
    double inter, intra;            /* shares of edges from another cluster, another PE of this one */
    int graph;                      /* enum em3d_graph_kind */
    int radius;                     /* local: grid distance of an edge's source, at most R */
    int steps;
    uint64_t seed;
    double work_scale;              /* --work-scale: emulated cycles per declared instruction */
};

struct em3d_graph {
    struct em3d_params prm;
    int half;                       /* vertices of one kind per PE */
    int total;                      /* vertices of one kind: half * n_pes */
    /* By destination kind k: the j-th in-edge of vertex v comes from vertex
     * src[k][v * degree + j] of kind !k, with weight weight[k][...]. */
    uint32_t *src[2];
    double *weight[2];
    double *init[2];                /* the values before the first step */
    uint64_t edges_inter, edges_intra, edges_local;
};

/* ---- em3d_graph.c: the machine's layout, the generator ---- */

/* clusters x pes_per_cluster, PEs numbered cluster by cluster. */
void em3d_layout_even(struct em3d_params *p, int clusters, int pes_per_cluster);
/* 0, or -1 with a one-line reason naming the parameter in err. */
int em3d_params_check(const struct em3d_params *p, char *err, size_t errlen);
/* Builds the graph of checked parameters: 0, or -1 (out of memory). */
int em3d_graph_build(struct em3d_graph *g, const struct em3d_params *p);
void em3d_graph_free(struct em3d_graph *g);

static inline int em3d_owner(const struct em3d_graph *g, uint32_t v) { return (int)(v / (uint32_t)g->half); }
static inline int em3d_cluster_of_vertex(const struct em3d_graph *g, uint32_t v)
{
    return g->prm.cluster_of[em3d_owner(g, v)];
}

/* ---- em3d_grid.c: the local graph's geometry ----
 * A torus of w x h cells, one E and one H vertex a cell.  PE pe owns a
 * b x b block (b * b = nodes / 2, its i-th vertex of a kind at row i / b,
 * column i % b of the block); the machine's n_pes blocks are mx x my, a
 * cluster's per = px x py of them and the clusters cx x cy: each the
 * factor pair nearest a square, long side along x (16 nodes: 4 x 4;
 * clusters of 2: 2 x 1, 8: 4 x 2), turned if the machine needs it. */
struct em3d_grid {
    int b, per, mx, my, px, py, cx, cy, w, h;
};
/* 0, or -1 with a one-line reason naming the parameter in err. */
int em3d_grid_layout(const struct em3d_params *p, struct em3d_grid *gr, char *err, size_t errlen);
void em3d_grid_cell(const struct em3d_grid *gr, uint32_t v, int *x, int *y);
/* The vertex (of either kind: the index is the same) at cell (x, y), taken around the torus. */
uint32_t em3d_grid_vertex(const struct em3d_grid *gr, int x, int y);
/* Cells outside a cluster within distance radius of it: the boundary
 * values a cluster can read of one kind, from the geometry alone. */
uint64_t em3d_grid_halo(const struct em3d_grid *gr, int radius);

/* ---- em3d_ghost.c: ghost vertices ---- */

/* The vertices of kind `kind` that PE pe's vertices of the other kind
 * read and that live in another cluster, sorted, each once: so they come
 * grouped by owner, first[o] .. first[o + 1] - 1 being owner o's. */
struct em3d_ghosts {
    int n;
    uint32_t *vertex;
    int *first;                     /* n_pes + 1 entries */
    double *val;                    /* the copies */
};
int em3d_ghosts_build(struct em3d_ghosts *gh, const struct em3d_graph *g, int pe, int kind);
/* The slot of vertex v, or -1. */
int em3d_ghost_slot(const struct em3d_ghosts *gh, uint32_t v);
void em3d_ghosts_free(struct em3d_ghosts *gh);
/* from[i * degree + j], for PE pe's vertices of kind k: where each edge's
 * source value is read, at(ctx, v) for sources in pe's cluster and the
 * ghost copy for the others (gh NULL: at() for all).  malloc'ed; NULL
 * when out of memory. */
const double **em3d_edge_sources(const struct em3d_graph *g, int pe, int kind, const struct em3d_ghosts *gh,
                                 const double *(*at)(void *ctx, int kind, uint32_t v), void *ctx);

/* ---- em3d_ref.c: the kernel, the reference, the check ---- */

/* val[i] -= sum over j of weight[i * degree + j] * *from[i * degree + j],
 * for i < n, summed left to right. */
void em3d_update(double *val, int n, int degree, const double *weight, const double *const *from);

/* The computing EM3D declares to an emulated machine (virtual time): one
 * PE's em3d_update of its half vertices, in x86-64 instructions as
 * callgrind counts them (gcc -O2): 13 per vertex and 7 per edge, fitted
 * exactly on `em3d --variant seq --nodes 500 --steps 2` at degree 10
 * (332,064 instructions in em3d_update over 4,000 vertex updates) and 20
 * (612,064); the 16 of a call are left out.  Times work_scale they are
 * the emulated machine's cycles.  The ghost copies and the messages'
 * handlers are not in it: the library and MGS charge those. */
#define EM3D_WORK_PER_VERTEX 13
#define EM3D_WORK_PER_EDGE    7
static inline uint64_t em3d_update_work(const struct em3d_graph *g)
{
    double instr = (double)g->half * (EM3D_WORK_PER_VERTEX + EM3D_WORK_PER_EDGE * (double)g->prm.degree);
    return (uint64_t)(instr * g->prm.work_scale + 0.5);
}
/* The sequential computation of `steps` steps: val[k] (malloc'ed, total
 * entries each) and the seconds the steps took.  0, or -1 (out of memory). */
int em3d_reference(const struct em3d_graph *g, int steps, double *val[2], double *seconds);
/* How many of got[0..n-1] differ from want[] (exact comparison); the
 * largest absolute difference into *maxdiff. */
uint64_t em3d_compare(const double *got, const double *want, int n, double *maxdiff);
/* Wall-clock seconds (monotonic). */
double em3d_now(void);

/* ---- the versions: each checks its values against ref and prints its
 * result (em3d_report); 0 if they match, 1 if not, -1 if it could not run
 * (after a message) ---- */

struct em3d_result {
    double seconds;                 /* the steps, between two global barriers */
    uint64_t checked, mismatches;   /* values compared (both kinds, every PE) */
    double maxdiff;
    int virtual_clock;              /* seconds are the emulated machine's (virtual time) */
};
/* par.h: over MGS when par_use_mgs() was called, else pthreads. */
int em3d_run_par(const struct em3d_graph *g, double *const ref[2], int variant, struct em3d_result *res);
/* Under the launcher, on the compute-node API (cn attached, handlers not
 * yet registered); res is this cluster's (seconds: cluster 0's). */
struct ini_cn;
int em3d_run_am(struct ini_cn *cn, const struct em3d_graph *g, double *const ref[2], int variant, int window,
                struct em3d_result *res);

/* em3d_main.c's output: the RESULT line and the check's line. */
void em3d_report(const struct em3d_graph *g, int variant, const char *mode, const struct em3d_result *res);

#endif
