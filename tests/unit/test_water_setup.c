/*
 * test_water_setup.c - Water's set-up pieces checked alone: the run
 * constants, the lattice positions and the velocity scaling, against the
 * bit-exact values that WATER_SPEC.md lists for N = 512, plus the physical
 * properties they must have (bond geometry, kinetic energy, zero momentum).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "water/water.h"
#include "water_test.h"

static const double HMAS = 1.007825, OMAS = 15.99945, ROH = 0.9572, ANGLE = 1.824218;

static water_input standard_input(long nmol)
{
    return (water_input){ .tstep = 1.5e-16, .nmol = nmol, .nstep = 3, .norder = 6, .nsave = -1,
                          .nrst = 3000, .nprint = 3, .nfmc = 0, .nprocs = 1, .cutoff = 6.212752 };
}

static void test_run_constants_512(void **state)
{
    (void)state;
    water_input in = standard_input(512);
    water_consts c;
    water_compute_consts(&in, &c);
    assert_same_double(c.tstep, 1.49999999999999994e-01);
    assert_same_double(c.fpot, 2.62761153106887324e+00);
    assert_same_double(c.fkin, 5.83913673570860752e+01);
    assert_same_double(c.boxl, 2.48510095285903425e+01);
    assert_same_double(c.boxh, 1.24255047642951713e+01);
    assert_same_double(c.cut2, 3.85982874135040035e+01);
    assert_same_double(c.ref1, -2.98253155026538107e-04);
    assert_same_double(c.fhm, 1.11626522461736911e-02);
    assert_same_double(c.fom, 7.03149170752744653e-04);
    assert_int_equal(c.natmo, 1536);
}

static void test_cutoff_rules(void **state)
{
    (void)state;
    water_input in = standard_input(512);
    water_consts c;
    in.cutoff = 0.0; /* 0 means half the box, then at most 11: BOXH = 12.43 here */
    water_compute_consts(&in, &c);
    assert_same_double(c.cutoff, 11.0);
    in.cutoff = 20.0; /* clamped to 11 */
    water_compute_consts(&in, &c);
    assert_same_double(c.cutoff, 11.0);
    assert_same_double(c.cut2, 121.0);
    in = standard_input(8);
    in.cutoff = 0.0; /* small box: BOXH < 11 stays */
    water_compute_consts(&in, &c);
    assert_true(c.cutoff == c.boxh && c.cutoff < 11.0);
}

static void test_lattice_positions_512(void **state)
{
    (void)state;
    water_input in = standard_input(512);
    water_consts c;
    water_lattice lat;
    water_compute_consts(&in, &c);
    water_compute_lattice(&c, &lat);
    assert_same_double(lat.ns, 7.9999899999999995);
    assert_int_equal(lat.side, 8);
    water_molecule *mol = calloc(512, sizeof *mol);
    assert_non_null(mol);
    water_place_lattice(&lat, mol, 512);

    double (*p0)[3] = mol[0].f[WATER_SLOT_POS];
    assert_same_double(p0[0][WATER_H1], 2.13907236442822679);
    assert_same_double(p0[1][WATER_H1], 2.31014032497994970);
    assert_same_double(p0[2][WATER_H1], 1.55319003702444269);
    for (int d = 0; d < 3; d++)
        assert_same_double(p0[d][WATER_O], 1.55319003702444269);
    assert_same_double(p0[0][WATER_H2], 2.13907236442822679);
    assert_same_double(p0[1][WATER_H2], 0.796239749068935576);
    assert_same_double(p0[2][WATER_H2], 1.55319003702444269);
    /* molecule 1 differs only in z; the inner loop is z */
    for (int d = 0; d < 2; d++)
        for (int a = 0; a < 3; a++)
            assert_same_double(mol[1].f[0][d][a], p0[d][a]);
    for (int a = 0; a < 3; a++)
        assert_same_double(mol[1].f[0][2][a], 4.65957011107332786);
    for (int d = 0; d < 3; d++)
        assert_same_double(mol[511].f[0][d][WATER_O], 23.2978505553666402);

    /* every molecule is an ideal one: bonds ROH, angle ANGLE, inside the box */
    for (long m = 0; m < 512; m++) {
        double u[3], w[3], uu = 0, ww = 0, uw = 0;
        for (int d = 0; d < 3; d++) {
            u[d] = mol[m].f[0][d][WATER_H1] - mol[m].f[0][d][WATER_O];
            w[d] = mol[m].f[0][d][WATER_H2] - mol[m].f[0][d][WATER_O];
            uu += u[d] * u[d];
            ww += w[d] * w[d];
            uw += u[d] * w[d];
            assert_true(mol[m].f[0][d][WATER_O] > 0.0 && mol[m].f[0][d][WATER_O] < c.boxl);
        }
        assert_true(fabs(sqrt(uu) - ROH) < 1e-12 && fabs(sqrt(ww) - ROH) < 1e-12);
        assert_true(fabs(acos(uw / sqrt(uu * ww)) - ANGLE) < 1e-12);
    }
    free(mol);
}

/* Deterministic pseudo-random numbers in (-1, 1) for synthetic data files. */
static double next_number(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / (double)(1ULL << 52) - 1.0;
}

static void test_velocity_scaling_properties(void **state)
{
    (void)state;
    const long n = 27;
    water_input in = standard_input(n);
    water_consts c;
    water_compute_consts(&in, &c);
    double random[1 + 9 * 27];
    uint64_t seed = 42;
    for (size_t i = 0; i < sizeof random / sizeof *random; i++)
        random[i] = 3.0 * next_number(&seed) + 0.25; /* non-zero mean on purpose */
    water_molecule mol[27];
    memset(mol, 0xff, sizeof mol); /* slots 2..6 must be cleared */
    water_velocity_stats stats;
    water_init_velocities(&c, random, mol, n, &stats);

    const double mass[3] = { HMAS, OMAS, HMAS };
    for (int d = 0; d < 3; d++) {
        double energy = 0.0, momentum = 0.0, momentum_scale = 0.0;
        for (long m = 0; m < n; m++)
            for (int a = 0; a < 3; a++) {
                double v = mol[m].f[1][d][a];
                energy += mass[a] * v * v;
                momentum += mass[a] * v;
                momentum_scale += fabs(mass[a] * v);
                for (int slot = 2; slot <= 6; slot++)
                    assert_true(mol[m].f[slot][d][a] == 0.0);
            }
        /* sum m v^2 = FAC in every direction: kT/2 per atom and direction */
        assert_true(fabs(energy - stats.fac) <= 1e-13 * stats.fac);
        assert_true(fabs(momentum) <= 1e-14 * momentum_scale);
    }
    /* velocity = (raw - mean) * scale / mass, raw H1 x of molecule 0 is random[1] */
    assert_same_double(mol[0].f[1][0][WATER_H1], (random[1] - stats.mean[0]) * stats.scale[0] / HMAS);
    assert_same_double(mol[0].f[1][0][WATER_O], (random[4] - stats.mean[0]) * stats.scale[0] / OMAS);
}

static void test_velocities_from_shipped_file(void **state)
{
    (void)state;
    double *random = water_test_load_random(512);
    water_input in = standard_input(512);
    water_consts c;
    water_compute_consts(&in, &c);
    water_molecule *mol = calloc(512, sizeof *mol);
    assert_non_null(mol);
    water_velocity_stats stats;
    water_init_velocities(&c, random, mol, 512, &stats);
    assert_same_double(stats.mean[0], -9.11094437237720961e-02);
    assert_same_double(stats.scale[0], 2.93957612528507892e-03);
    assert_same_double(stats.fac, 8.56290959830250525e-03);
    const double expected[3][3] = {
        /* x, y, z of H1, O, H2 */
        { 1.08355089900694719e-03, -2.43141881972161597e-03, 2.54064677708662435e-03 },
        { 6.97425934438432879e-04, 2.80292255223386010e-04, -1.12736716232965270e-04 },
        { -2.63060276652456919e-03, 1.41325259705387925e-03, -2.47793996122887923e-03 },
    };
    for (int a = 0; a < 3; a++)
        for (int d = 0; d < 3; d++)
            assert_same_double(mol[0].f[1][d][a], expected[a][d]);
    free(mol);
    free(random);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_constants_512),
        cmocka_unit_test(test_cutoff_rules),
        cmocka_unit_test(test_lattice_positions_512),
        cmocka_unit_test(test_velocity_scaling_properties),
        cmocka_unit_test(test_velocities_from_shipped_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
