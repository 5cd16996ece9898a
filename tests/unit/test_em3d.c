/*
 * test_em3d.c - EM3D's generator, ghosts and reference (tools/apps/em3d/em3d.h):
 * every vertex's degree and sources of the other kind, the shares of
 * inter- and intra-cluster edges within a tolerance (and the counts the
 * generator reports equal to what the edges say), determinism by seed,
 * the parameters' checks, the ghost lists, and the reference against a
 * computation written here straight from the definition.
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

static struct em3d_params params(int clusters, int per, double inter, double intra, uint64_t seed)
{
    struct em3d_params p = { .nodes = 500, .degree = 20, .inter = inter, .intra = intra, .steps = 3, .seed = seed };
    em3d_layout_even(&p, clusters, per);
    return p;
}

static void build(struct em3d_graph *g, const struct em3d_params *p)
{
    char err[256];
    assert_int_equal(em3d_params_check(p, err, sizeof err), 0);
    assert_int_equal(em3d_graph_build(g, p), 0);
}

/* Counts the edges by where their sources live: [0] inter, [1] intra, [2] local. */
static void classify(const struct em3d_graph *g, uint64_t count[3])
{
    const int d = g->prm.degree;
    count[0] = count[1] = count[2] = 0;
    for (int k = 0; k < 2; k++)
        for (int v = 0; v < g->total; v++)
            for (int j = 0; j < d; j++) {
                uint32_t s = g->src[k][(size_t)v * d + j];
                int me = v / g->half, owner = em3d_owner(g, s);
                assert_true(s < (uint32_t)g->total);
                if (g->prm.cluster_of[owner] != g->prm.cluster_of[me])
                    count[0]++;
                else
                    count[owner == me ? 2 : 1]++;
            }
}

static void test_degree_and_weights(void **state)
{
    (void)state;
    struct em3d_params p = params(2, 4, 0.3, 0.2, 7);
    struct em3d_graph g;
    build(&g, &p);
    assert_int_equal(g.half, 250);
    assert_int_equal(g.total, 250 * 8);
    /* Every vertex has `degree` edges: the counts add up to that. */
    assert_int_equal(g.edges_inter + g.edges_intra + g.edges_local, 2ull * g.total * p.degree);
    for (int k = 0; k < 2; k++)
        for (size_t e = 0; e < (size_t)g.total * p.degree; e++)
            assert_true(fabs(g.weight[k][e]) <= 0.5 / p.degree);
    em3d_graph_free(&g);
}

static void test_shares_within_tolerance(void **state)
{
    (void)state;
    static const double shares[][2] = { { 0, 0 }, { 0.2, 0 }, { 0.3, 0.2 }, { 0.8, 0.1 }, { 0, 0.5 } };
    for (size_t i = 0; i < sizeof shares / sizeof shares[0]; i++) {
        struct em3d_params p = params(4, 4, shares[i][0], shares[i][1], 11);
        struct em3d_graph g;
        build(&g, &p);
        uint64_t count[3];
        classify(&g, count);
        assert_int_equal(count[0], g.edges_inter);
        assert_int_equal(count[1], g.edges_intra);
        assert_int_equal(count[2], g.edges_local);
        double n = (double)(count[0] + count[1] + count[2]);
        /* 160,000 edges: the binomial's deviation is at most 0.0013 */
        assert_true(fabs(count[0] / n - shares[i][0]) < 0.01);
        assert_true(fabs(count[1] / n - shares[i][1]) < 0.01);
        if (shares[i][0] == 0)
            assert_int_equal(count[0], 0);
        if (shares[i][1] == 0)
            assert_int_equal(count[1], 0);
        em3d_graph_free(&g);
    }
}

static int same_graph(const struct em3d_graph *a, const struct em3d_graph *b)
{
    size_t edges = (size_t)a->total * a->prm.degree;
    int same = 1;
    for (int k = 0; k < 2; k++)
        same &= !memcmp(a->src[k], b->src[k], edges * sizeof *a->src[k]) &&
                !memcmp(a->weight[k], b->weight[k], edges * sizeof *a->weight[k]) &&
                !memcmp(a->init[k], b->init[k], (size_t)a->total * sizeof *a->init[k]);
    return same;
}

static void test_determinism_by_seed(void **state)
{
    (void)state;
    struct em3d_params p = params(2, 3, 0.4, 0.1, 42), q = params(2, 3, 0.4, 0.1, 43);
    struct em3d_graph a, b, c;
    build(&a, &p);
    build(&b, &p);
    build(&c, &q);
    assert_true(same_graph(&a, &b));
    assert_false(same_graph(&a, &c));
    em3d_graph_free(&a);
    em3d_graph_free(&b);
    em3d_graph_free(&c);
}

static void test_params_refused(void **state)
{
    (void)state;
    char err[256];
    struct em3d_params p = params(2, 2, 0.2, 0, 1);
    p.nodes = 7;
    assert_int_equal(em3d_params_check(&p, err, sizeof err), -1);
    assert_non_null(strstr(err, "--nodes"));
    p = params(1, 4, 0.2, 0, 1);                /* inter-cluster edges, one cluster */
    assert_int_equal(em3d_params_check(&p, err, sizeof err), -1);
    assert_non_null(strstr(err, "--inter"));
    p = params(4, 1, 0, 0.1, 1);                /* intra-cluster edges, clusters of one */
    assert_int_equal(em3d_params_check(&p, err, sizeof err), -1);
    assert_non_null(strstr(err, "--intra"));
    p = params(2, 2, 0.7, 0.4, 1);              /* shares above 1 */
    assert_int_equal(em3d_params_check(&p, err, sizeof err), -1);
    p = params(1, 1, 0, 0, 1);                  /* one node alone is a machine */
    assert_int_equal(em3d_params_check(&p, err, sizeof err), 0);
}

static void test_ghosts(void **state)
{
    (void)state;
    struct em3d_params p = params(3, 2, 0.5, 0.2, 5);
    struct em3d_graph g;
    build(&g, &p);
    for (int pe = 0; pe < p.n_pes; pe++)
        for (int k = 0; k < 2; k++) {
            struct em3d_ghosts gh;
            assert_int_equal(em3d_ghosts_build(&gh, &g, pe, k), 0);
            for (int i = 0; i < gh.n; i++) {
                assert_int_not_equal(em3d_cluster_of_vertex(&g, gh.vertex[i]), p.cluster_of[pe]);
                if (i > 0)
                    assert_true(gh.vertex[i - 1] < gh.vertex[i]);   /* sorted, each once */
                int o = em3d_owner(&g, gh.vertex[i]);
                assert_true(gh.first[o] <= i && i < gh.first[o + 1]);
                assert_int_equal(em3d_ghost_slot(&gh, gh.vertex[i]), i);
            }
            assert_int_equal(gh.first[p.n_pes], gh.n);
            /* every other-cluster source of pe's readers has a slot */
            const uint32_t *src = g.src[!k] + (size_t)pe * g.half * p.degree;
            for (size_t e = 0; e < (size_t)g.half * p.degree; e++)
                assert_true((em3d_cluster_of_vertex(&g, src[e]) == p.cluster_of[pe]) ==
                            (em3d_ghost_slot(&gh, src[e]) < 0));
            em3d_ghosts_free(&gh);
        }
    em3d_graph_free(&g);
}

static void test_reference_from_the_definition(void **state)
{
    (void)state;
    struct em3d_params p = params(2, 2, 0.3, 0.3, 3);
    struct em3d_graph g;
    build(&g, &p);
    double *ref[2], seconds;
    assert_int_equal(em3d_reference(&g, 4, ref, &seconds), 0);
    double *val[2] = { malloc(g.total * sizeof(double)), malloc(g.total * sizeof(double)) };
    memcpy(val[0], g.init[0], g.total * sizeof(double));
    memcpy(val[1], g.init[1], g.total * sizeof(double));
    for (int s = 0; s < 4; s++)
        for (int k = 0; k < 2; k++)
            for (int v = 0; v < g.total; v++) {
                double sum = 0;
                for (int j = 0; j < p.degree; j++)
                    sum += g.weight[k][v * p.degree + j] * val[!k][g.src[k][v * p.degree + j]];
                val[k][v] -= sum;
            }
    double maxdiff = 0;
    for (int k = 0; k < 2; k++) {
        assert_int_equal(em3d_compare(ref[k], val[k], g.total, &maxdiff), 0);
        for (int v = 0; v < g.total; v++)
            assert_true(fabs(ref[k][v]) < 10);   /* bounded: small weights of both signs */
    }
    val[1][17] += 1e-9;
    assert_int_equal(em3d_compare(ref[1], val[1], g.total, &maxdiff), 1);
    assert_true(maxdiff > 0.5e-9 && maxdiff < 2e-9);
    for (int k = 0; k < 2; k++) {
        free(val[k]);
        free(ref[k]);
    }
    em3d_graph_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_degree_and_weights),
        cmocka_unit_test(test_shares_within_tolerance),
        cmocka_unit_test(test_determinism_by_seed),
        cmocka_unit_test(test_params_refused),
        cmocka_unit_test(test_ghosts),
        cmocka_unit_test(test_reference_from_the_definition),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
