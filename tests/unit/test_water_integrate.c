/*
 * test_water_integrate.c - the per-molecule integrator pieces of Water (one
 * predictor step, the corrector, periodic wrapping, kinetic sums) and the
 * static work split (pair set, ownership, touched ranges), checked alone.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "water/water_kernels.h"

static void fill_slots(water_molecule *m, double (*value)(int slot, int d, int atom))
{
    memset(m, 0, sizeof *m);
    for (int slot = 0; slot < WATER_NSLOTS; slot++)
        for (int d = 0; d < 3; d++)
            for (int atom = 0; atom < 3; atom++)
                m->f[slot][d][atom] = value(slot, d, atom);
}

static double all_ones(int slot, int d, int atom)
{
    (void)d, (void)atom;
    return slot <= 6 ? 1.0 : 0.0;
}

static void test_predictor_is_a_pascal_shift(void **state)
{
    (void)state;
    water_molecule m;
    fill_slots(&m, all_ones);
    water_predict(&m);
    /* slot k becomes sum_{j>=k} binom(j,k) = binom(7, k+1) */
    const double expected[7] = { 7, 21, 35, 35, 21, 7, 1 };
    for (int k = 0; k <= 6; k++)
        for (int d = 0; d < 3; d++)
            for (int atom = 0; atom < 3; atom++)
                assert_true(m.f[k][d][atom] == expected[k]);
}

/* x(t) = sum_j a_j t^j with a_j depending on coordinate; the scaled
 * Nordsieck slot j at t = 0 is (dt^j / j!) x^(j)(0) = a_j dt^j. */
static const double DT = 0.15;
static double coefficient(int j, int d, int atom)
{
    return (j + 1) * (d + 1) * (atom == 1 ? -0.5 : 0.75);
}
static double polynomial_slots(int slot, int d, int atom)
{
    return slot <= 6 ? coefficient(slot, d, atom) * pow(DT, slot) : 0.0;
}

static void test_predictor_is_exact_for_degree_six(void **state)
{
    (void)state;
    water_molecule m;
    fill_slots(&m, polynomial_slots);
    water_predict(&m);
    /* after one step, slot k must be (dt^k/k!) x^(k)(dt) = sum_j binom(j,k) a_j dt^j */
    for (int d = 0; d < 3; d++)
        for (int atom = 0; atom < 3; atom++)
            for (int k = 0; k <= 6; k++) {
                double exact = 0.0;
                double binom = 1.0; /* binom(j, k) for j = k */
                for (int j = k; j <= 6; j++) {
                    exact += binom * coefficient(j, d, atom) * pow(DT, j);
                    binom = binom * (j + 1) / (j + 1 - k);
                }
                assert_true(fabs(m.f[k][d][atom] - exact) <= 1e-14 * fabs(exact));
            }
}

static void test_predictor_uses_old_higher_slots(void **state)
{
    (void)state;
    /* only slot 6 non-zero: slot k gains binom(6,k) * F6, with F6 unchanged */
    water_molecule m;
    memset(&m, 0, sizeof m);
    m.f[6][1][2] = 2.0;
    water_predict(&m);
    const double expected[7] = { 2, 12, 30, 40, 30, 12, 2 };
    for (int k = 0; k <= 6; k++)
        assert_true(m.f[k][1][2] == expected[k]);
    assert_true(m.f[0][0][0] == 0.0);
}

static void test_corrector(void **state)
{
    (void)state;
    water_molecule m;
    fill_slots(&m, all_ones);
    water_molecule before = m;
    for (int d = 0; d < 3; d++)
        for (int atom = 0; atom < 3; atom++)
            m.f[WATER_SLOT_FORCE][d][atom] = m.f[WATER_SLOT_ACC][d][atom];
    water_correct(&m); /* computed = predicted acceleration: nothing changes */
    for (int k = 0; k <= 6; k++)
        assert_memory_equal(m.f[k], before.f[k], sizeof m.f[k]);

    m.f[WATER_SLOT_FORCE][0][0] = 2.0; /* Y = 1 for x of H1 */
    water_correct(&m);
    const double pcc[7] = { 863.0 / 6048.0, 665.0 / 1008.0, 1.0, 25.0 / 36.0,
                            35.0 / 144.0,   1.0 / 24.0,     1.0 / 360.0 };
    for (int k = 0; k <= 6; k++) {
        assert_true(m.f[k][0][0] == 1.0 + pcc[k]);
        assert_true(m.f[k][0][1] == 1.0); /* other coordinates untouched */
    }
    assert_true(m.f[WATER_SLOT_ACC][0][0] == 2.0); /* acceleration takes the computed value */
}

static void test_boundary_wraps_whole_molecule_by_oxygen(void **state)
{
    (void)state;
    water_consts c = { .boxl = 10.0, .boxh = 5.0 };
    water_molecule m;
    memset(&m, 0, sizeof m);
    double (*pos)[3] = m.f[WATER_SLOT_POS];
    pos[0][WATER_H1] = 10.4, pos[0][WATER_O] = 10.25, pos[0][WATER_H2] = 9.75; /* O beyond BOXL */
    pos[1][WATER_H1] = 0.5, pos[1][WATER_O] = -0.25, pos[1][WATER_H2] = -1.0;  /* O below 0 */
    pos[2][WATER_H1] = 10.5, pos[2][WATER_O] = 9.75, pos[2][WATER_H2] = 9.0;   /* O inside */
    water_apply_boundary(&m, &c);
    assert_true(pos[0][WATER_H1] == 10.4 - 10.0 && pos[0][WATER_O] == 0.25 && pos[0][WATER_H2] == -0.25);
    assert_true(pos[1][WATER_H1] == 10.5 && pos[1][WATER_O] == 9.75 && pos[1][WATER_H2] == 9.0);
    assert_true(pos[2][WATER_H1] == 10.5 && pos[2][WATER_O] == 9.75 && pos[2][WATER_H2] == 9.0);
}

static void test_kinetic_sums(void **state)
{
    (void)state;
    water_molecule m;
    memset(&m, 0, sizeof m);
    m.f[1][0][WATER_H1] = 1.0, m.f[1][0][WATER_O] = 2.0, m.f[1][0][WATER_H2] = 3.0;
    double s[3] = { 0.5, 0.0, 0.0 };
    water_kinetic_accumulate(&m, s);
    assert_true(s[0] == 0.5 + ((1.0 + 9.0) * 1.007825 + 4.0 * 15.99945));
    assert_true(s[1] == 0.0 && s[2] == 0.0);
}

/* Every unordered pair of molecules is computed by exactly one molecule. */
static void test_pairs_each_counted_once(void **state)
{
    (void)state;
    const long sizes[] = { 1, 2, 8, 27, 64, 125, 512 };
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        long n = sizes[s];
        unsigned char *seen = calloc((size_t)(n * n), 1);
        assert_non_null(seen);
        for (long a = 0; a < n; a++)
            for (long t = 1; t <= water_partner_count(n, a); t++) {
                long b = (a + t) % n;
                long lo = a < b ? a : b, hi = a < b ? b : a;
                assert_true(a != b);
                seen[lo * n + hi]++;
            }
        for (long i = 0; i < n; i++)
            for (long j = i + 1; j < n; j++)
                assert_int_equal(seen[i * n + j], 1);
        free(seen);
    }
}

static void test_own_ranges(void **state)
{
    (void)state;
    long first, end;
    water_own_range(512, 3, 0, &first, &end);
    assert_true(first == 0 && end == 170);
    water_own_range(512, 3, 2, &first, &end);
    assert_true(first == 340 && end == 512); /* the last thread takes the remainder */
    water_own_range(512, 1, 0, &first, &end);
    assert_true(first == 0 && end == 512);
}

/* The touched intervals of a thread contain every molecule its pairs write. */
static void test_touched_intervals_cover_pairs(void **state)
{
    (void)state;
    const long sizes[] = { 8, 27, 64, 512 };
    const int threads[] = { 1, 2, 3, 4, 7, 8, 16, 64 };
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
            long n = sizes[s];
            int p_count = threads[t];
            if (p_count > n)
                continue;
            for (int p = 0; p < p_count; p++) {
                long lo[2], hi[2], first, end;
                int k = water_touched_intervals(n, p_count, p, lo, hi);
                water_own_range(n, p_count, p, &first, &end);
                for (long a = first; a < end; a++)
                    for (long d = 0; d <= water_partner_count(n, a); d++) {
                        long m = (a + d) % n;
                        int inside = 0;
                        for (int i = 0; i < k; i++)
                            inside += m >= lo[i] && m < hi[i];
                        assert_int_equal(inside, 1); /* covered, and only once */
                    }
            }
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_predictor_is_a_pascal_shift),
        cmocka_unit_test(test_predictor_is_exact_for_degree_six),
        cmocka_unit_test(test_predictor_uses_old_higher_slots),
        cmocka_unit_test(test_corrector),
        cmocka_unit_test(test_boundary_wraps_whole_molecule_by_oxygen),
        cmocka_unit_test(test_kinetic_sums),
        cmocka_unit_test(test_pairs_each_counted_once),
        cmocka_unit_test(test_own_ranges),
        cmocka_unit_test(test_touched_intervals_cover_pairs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
