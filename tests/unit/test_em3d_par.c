/*
 * test_em3d_par.c - EM3D's shared-memory versions, Simple and Ghost, over
 * plain threads (mgs/par_threads.c; the same code runs over MGS under the
 * launcher, tests/integration/em3d.sh): their values equal the sequential
 * reference's bit for bit, on layouts with inter- and intra-cluster edges
 * and on one node alone, and a wrong reference is caught.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "tools/apps/em3d/em3d.h"

static void run(int variant, int clusters, int per, double inter, double intra, int corrupt)
{
    struct em3d_params p = { .nodes = 60, .degree = 7, .inter = inter, .intra = intra, .steps = 5, .seed = 9 };
    em3d_layout_even(&p, clusters, per);
    char err[256];
    assert_int_equal(em3d_params_check(&p, err, sizeof err), 0);
    struct em3d_graph g;
    assert_int_equal(em3d_graph_build(&g, &p), 0);
    double *ref[2], seconds;
    assert_int_equal(em3d_reference(&g, p.steps, ref, &seconds), 0);
    if (corrupt)
        ref[EM3D_H][g.total - 1] += 1.0;
    struct em3d_result res;
    int rc = em3d_run_par(&g, ref, variant, &res);
    assert_int_equal(rc, corrupt ? 1 : 0);
    assert_int_equal(res.checked, 2u * (uint64_t)g.total);
    assert_int_equal(res.mismatches, corrupt ? 1 : 0);
    assert_true(res.seconds > 0);
    free(ref[0]);
    free(ref[1]);
    em3d_graph_free(&g);
}

static void test_simple(void **state)
{
    (void)state;
    run(EM3D_SIMPLE, 2, 3, 0.4, 0.2, 0);
    run(EM3D_SIMPLE, 1, 1, 0, 0, 0);
}

static void test_ghost(void **state)
{
    (void)state;
    run(EM3D_GHOST, 3, 2, 0.8, 0.1, 0);
    run(EM3D_GHOST, 2, 2, 0, 0.5, 0);
}

static void test_mismatch_is_caught(void **state)
{
    (void)state;
    run(EM3D_GHOST, 2, 2, 0.3, 0, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simple),
        cmocka_unit_test(test_ghost),
        cmocka_unit_test(test_mismatch_is_caught),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
