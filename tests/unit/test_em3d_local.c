/*
 * test_em3d_local.c - EM3D's local graph (--graph local, em3d_grid.c)
 * against its geometry: the blocks' arrangement for 16 nodes, every
 * source within the radius on the torus, the boundary a cluster reads
 * equal to the count the geometry gives (exactly, when the degree is high
 * enough that every cell in reach is read), the inter-cluster edges per
 * cluster growing as sqrt(c) for a fixed share a node, determinism by
 * seed and the parameters' checks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/apps/em3d/em3d.h"

static struct em3d_params local(int pes, int per, int nodes, int degree, int radius, uint64_t seed)
{
    struct em3d_params p = { .nodes = nodes, .degree = degree, .steps = 1, .seed = seed,
                             .graph = EM3D_GRAPH_LOCAL, .radius = radius };
    em3d_layout_even(&p, pes / per, per);
    return p;
}

static void build(struct em3d_graph *g, struct em3d_grid *gr, const struct em3d_params *p)
{
    char err[256];
    assert_int_equal(em3d_params_check(p, err, sizeof err), 0);
    assert_int_equal(em3d_grid_layout(p, gr, err, sizeof err), 0);
    assert_int_equal(em3d_graph_build(g, p), 0);
}

/* 16 nodes of 8 x 8 cells: the machine 4 x 4 blocks, a cluster's blocks
 * the nearest square that tiles it. */
static void test_layouts(void **state)
{
    (void)state;
    static const int per[5] = { 1, 2, 4, 8, 16 }, want[5][4] = {
        { 1, 1, 4, 4 }, { 2, 1, 2, 4 }, { 2, 2, 2, 2 }, { 4, 2, 1, 2 }, { 4, 4, 1, 1 } };
    for (int i = 0; i < 5; i++) {
        struct em3d_params p = local(16, per[i], 128, 4, 2, 1);
        struct em3d_grid gr;
        char err[256];
        assert_int_equal(em3d_grid_layout(&p, &gr, err, sizeof err), 0);
        assert_int_equal(gr.b, 8);
        assert_int_equal(gr.mx, 4);
        assert_int_equal(gr.my, 4);
        assert_int_equal(gr.w, 32);
        assert_int_equal(gr.h, 32);
        int got[4] = { gr.px, gr.py, gr.cx, gr.cy };
        assert_memory_equal(got, want[i], sizeof got);
        for (uint32_t v = 0; v < 16u * 64u; v++) {   /* a cell for every vertex, and back */
            int x, y;
            em3d_grid_cell(&gr, v, &x, &y);
            assert_true(x >= 0 && x < 32 && y >= 0 && y < 32);
            assert_int_equal(em3d_grid_vertex(&gr, x, y), v);
            assert_int_equal(em3d_grid_vertex(&gr, x + 32, y - 32), v);   /* the torus */
        }
    }
}

/* Distance around the torus of side n. */
static int ring(int a, int b, int n)
{
    int d = abs(a - b);
    return d < n - d ? d : n - d;
}

static void test_sources_within_radius(void **state)
{
    (void)state;
    struct em3d_params p = local(16, 4, 128, 20, 3, 5);
    struct em3d_graph g, again, other;
    struct em3d_grid gr;
    build(&g, &gr, &p);
    uint64_t count[3] = { 0 }, far = 0;
    for (int k = 0; k < 2; k++)
        for (uint32_t v = 0; v < (uint32_t)g.total; v++)
            for (int j = 0; j < p.degree; j++) {
                uint32_t s = g.src[k][(size_t)v * p.degree + j];
                int x, y, sx, sy, me = em3d_owner(&g, v), owner = em3d_owner(&g, s);
                em3d_grid_cell(&gr, v, &x, &y);
                em3d_grid_cell(&gr, s, &sx, &sy);
                if (ring(x, sx, gr.w) > 3 || ring(y, sy, gr.h) > 3)
                    far++;
                count[p.cluster_of[owner] != p.cluster_of[me] ? 0 : owner != me ? 1 : 2]++;
            }
    assert_int_equal(far, 0);
    assert_int_equal(count[0], g.edges_inter);
    assert_int_equal(count[1], g.edges_intra);
    assert_int_equal(count[2], g.edges_local);
    assert_true(g.edges_inter > 0 && g.edges_intra > 0);
    build(&again, &gr, &p);
    p.seed = 6;
    build(&other, &gr, &p);
    size_t bytes = (size_t)g.total * p.degree * sizeof *g.src[0];
    assert_memory_equal(g.src[0], again.src[0], bytes);
    assert_memory_equal(g.src[1], again.src[1], bytes);
    assert_true(memcmp(g.src[0], other.src[0], bytes) != 0);
    em3d_graph_free(&g);
    em3d_graph_free(&again);
    em3d_graph_free(&other);
}

/* Distinct sources of kind `kind` that cluster cl's vertices read from
 * another cluster (node < 0), or that PE node's read from another PE. */
static uint64_t reach(const struct em3d_graph *g, int cl, int node, int kind)
{
    char *seen = calloc((size_t)g->total, 1);
    assert_non_null(seen);
    uint64_t n = 0;
    const int d = g->prm.degree;
    for (uint32_t v = 0; v < (uint32_t)g->total; v++) {
        int me = em3d_owner(g, v);
        if (node >= 0 ? me != node : g->prm.cluster_of[me] != cl)
            continue;
        for (int j = 0; j < d; j++) {
            uint32_t s = g->src[!kind][(size_t)v * d + j];
            int out = node >= 0 ? em3d_owner(g, s) != node : em3d_cluster_of_vertex(g, s) != cl;
            if (out && !seen[s]++)
                n++;
        }
    }
    free(seen);
    return n;
}

/* Degree 400 in a 5 x 5 window: a cell in reach of even one vertex goes
 * unread with odds (24/25)^400 = 8e-8, so the graph reads the whole halo.
 * A cluster of 8 spans the machine's width and faces itself across it. */
static void test_halo_exact(void **state)
{
    (void)state;
    static const int per[5] = { 1, 2, 4, 8, 16 };
    static const uint64_t halo[5] = { 80, 112, 144, 128, 0 };   /* (w + 4)(h + 4) - w h, clipped to the torus */
    for (int i = 0; i < 5; i++) {
        struct em3d_params p = local(16, per[i], 128, 400, 2, 11);
        struct em3d_graph g;
        struct em3d_grid gr;
        build(&g, &gr, &p);
        assert_int_equal(em3d_grid_halo(&gr, 2), halo[i]);
        for (int cl = 0; cl < p.n_clusters; cl++)
            for (int k = 0; k < 2; k++)
                assert_int_equal(reach(&g, cl, -1, k), halo[i]);
        for (int pe = 0; pe < 16; pe++)   /* a node's boundary: (8 + 4)^2 - 64, whatever its cluster */
            assert_int_equal(reach(&g, -1, pe, EM3D_E), 80);
        em3d_graph_free(&g);
    }
}

/* The share of a cluster's edges that leave it, in expectation: a draw
 * of dx from -R..R leaves a block w wide with odds R(R+1)/((2R+1)w). */
static double leave(int w, int h, int r)
{
    double q = r * (r + 1.0) / (2 * r + 1.0);
    return 1 - (1 - q / w) * (1 - q / h);
}

/* 64 nodes of 16 x 16 cells, clusters of 1, 4, 16 (none spans the 8 x 8
 * machine): the inter-cluster edges per cluster within 3% of the
 * geometry's expectation, and in the ratios sqrt(c) gives (2 and 4)
 * within 5%: 2.04 and 4.12 expected, the corners' part. */
static void test_inter_edges_sqrt(void **state)
{
    (void)state;
    static const int per[3] = { 1, 4, 16 }, side[3] = { 16, 32, 64 };
    double per_cluster[3];
    for (int i = 0; i < 3; i++) {
        struct em3d_params p = local(64, per[i], 512, 20, 2, 21);
        struct em3d_graph g;
        struct em3d_grid gr;
        build(&g, &gr, &p);
        double want = 64.0 * 512 * 20 * leave(side[i], side[i], 2);
        assert_true(fabs(g.edges_inter / want - 1) < 0.03);
        per_cluster[i] = (double)g.edges_inter / p.n_clusters;
        em3d_graph_free(&g);
    }
    assert_true(fabs(per_cluster[1] / per_cluster[0] / 2 - 1) < 0.05);
    assert_true(fabs(per_cluster[2] / per_cluster[0] / 4 - 1) < 0.05);
}

static void bad(struct em3d_params p, const char *field)
{
    char err[256] = "";
    assert_int_equal(em3d_params_check(&p, err, sizeof err), -1);
    assert_non_null(strstr(err, field));
}

static void test_bad_params(void **state)
{
    (void)state;
    bad(local(16, 4, 100, 20, 2, 1), "--nodes");     /* 50 cells: not a square */
    bad(local(16, 4, 128, 20, 0, 1), "--radius");
    bad(local(16, 4, 128, 20, 9, 1), "--radius");    /* more than the block's side 8 */
    bad(local(48, 16, 128, 20, 2, 1), "layout");     /* 4 x 4 clusters do not tile 8 x 6 */
    struct em3d_params p = local(16, 4, 128, 20, 2, 1);
    p.cluster_of[0] = 1;                              /* clusters of 3 and 5 */
    bad(p, "layout");
    bad(local(2, 1, 2, 20, 1, 1), "--radius");       /* 1 x 1 cells a node: a window of 3 on a 2 x 1 grid */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_sources_within_radius),
        cmocka_unit_test(test_halo_exact),
        cmocka_unit_test(test_inter_edges_sqrt),
        cmocka_unit_test(test_bad_params),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
