/*
 * test_water_step.c - the whole Water pipeline in-process for N = 512 with
 * the shipped random.in, checked against the intermediate values of
 * WATER_SPEC.md section 15: the initial accelerations (NSTEP = 0), one full
 * step (slots 0..7 of molecule 0, the raw shared sums, the printed block),
 * and bit-identical repeated runs in deterministic mode with P = 4.
 *
 * The data file is the repository's (water_test.h); without it every test
 * fails.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "water/water.h"
#include "water_test.h"

static double *random_numbers; /* 1 + 9*512 numbers, loaded once */

static int load_random(void **state)
{
    (void)state;
    const char *path = getenv("WATER_RANDOM") ? getenv("WATER_RANDOM") : WATER_TEST_RANDOM;
    char err[512];
    if (water_load_random(path, 512, &random_numbers, err, sizeof err) != 0) {
        print_error("%s\n", err);
        return -1;              /* every test of the group fails */
    }
    return 0;
}

static int free_random(void **state)
{
    (void)state;
    free(random_numbers);
    return 0;
}

/* Runs N = 512 with the given steps, threads and mode; output goes to out.
 * The caller inspects the system and then calls par_finalize(). */
static water_system *run(long nstep, long nprint, int nthreads, bool deterministic, FILE *out)
{
    water_input in = { .tstep = 1.5e-16, .nmol = 512, .nstep = nstep, .norder = 6, .nsave = -1,
                       .nrst = 3000, .nprint = nprint, .nfmc = 0, .nprocs = nthreads,
                       .cutoff = 6.212752 };
    water_options opt = { .deterministic = deterministic, .full = false, .out = out };
    assert_int_equal(par_init(nthreads), 0);
    water_system *sys = water_system_create(&in, random_numbers, &opt);
    assert_non_null(sys);
    assert_int_equal(par_run(water_worker, sys), 0);
    return sys;
}

static void test_initial_accelerations(void **state)
{
    (void)state;
    FILE *out = tmpfile();
    assert_non_null(out);
    water_system *sys = run(0, 3, 1, false, out);
    double (*acc)[3] = sys->mol[0].f[WATER_SLOT_ACC];
    assert_same_double(acc[0][WATER_H1], 2.39646229923560669e-05);
    assert_same_double(acc[0][WATER_O], -3.01901334372525463e-06);
    assert_same_double(acc[0][WATER_H2], 2.39640944565169417e-05);
    assert_same_double(acc[1][WATER_H1], -2.45834406362264155e-04);
    assert_same_double(acc[1][WATER_H2], 2.45849677655256206e-04);
    par_finalize();
    fclose(out);
}

static void check_first_step(bool deterministic)
{
    FILE *out = tmpfile();
    assert_non_null(out);
    water_system *sys = run(1, 1, 1, deterministic, out);
    const double expected_slots[8] = {
        2.14018084931156904e+00, 1.13596189673914735e-03, 3.07580151148642274e-05,
        4.71763341840844462e-06, 1.65117169644295566e-06, 2.83058005104506671e-07,
        1.88705336736337794e-08, 3.07580151148642274e-05,
    };
    for (int slot = 0; slot < 8; slot++)
        assert_same_double(sys->mol[0].f[slot][0][WATER_H1], expected_slots[slot]);
    assert_same_double(sys->sums->sum[0], 8.55212780447298614e-03);
    assert_same_double(sys->sums->sum[1], 8.73331199192768463e-03);
    assert_same_double(sys->sums->sum[2], 8.56425311448236193e-03);
    assert_same_double(sys->sums->vir, 1.45913567664131634e+01);
    assert_same_double(sys->sums->pot[0], 2.15670229519822039e-03);
    assert_same_double(sys->sums->pot[1], 4.04768866146849149e+00);
    assert_same_double(sys->sums->pot[2], -8.08532973286631096e-01);
    assert_same_double(*sys->final_xtt, 1.00263087278411689e+01);
    par_finalize();

    /* the printed block of step 1 (spec 15, NPRINT = 1) */
    char text[512] = "";
    rewind(out);
    size_t got = fread(text, 1, sizeof text - 1, out);
    text[got] = '\0';
    assert_string_equal(text,
                        "         1        1.50940      0.00567     10.63575                      -2.12451\n"
                        "           10.026        299.86725        -19.17021\n");
    fclose(out);
}

static void test_first_step_matches_reference(void **state)
{
    (void)state;
    check_first_step(false);
}

/* With one thread the deterministic mode performs the same additions. */
static void test_first_step_deterministic_one_thread(void **state)
{
    (void)state;
    check_first_step(true);
}

static void test_deterministic_runs_are_identical(void **state)
{
    (void)state;
    FILE *out = tmpfile();
    assert_non_null(out);
    water_molecule *first = malloc(512 * sizeof *first);
    assert_non_null(first);
    water_sums first_sums;
    for (int r = 0; r < 5; r++) {
        water_system *sys = run(2, 1, 4, true, out);
        if (r == 0) {
            memcpy(first, sys->mol, 512 * sizeof *first);
            first_sums = *sys->sums;
        } else {
            assert_memory_equal(sys->mol, first, 512 * sizeof *first);
            assert_memory_equal(sys->sums, &first_sums, sizeof first_sums);
        }
        par_finalize();
    }
    free(first);
    fclose(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_initial_accelerations),
        cmocka_unit_test(test_first_step_matches_reference),
        cmocka_unit_test(test_first_step_deterministic_one_thread),
        cmocka_unit_test(test_deterministic_runs_are_identical),
    };
    return cmocka_run_group_tests(tests, load_random, free_random);
}
