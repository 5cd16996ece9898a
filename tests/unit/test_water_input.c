/*
 * test_water_input.c - Water's input checking: every malformed input of the
 * task list is rejected with a one-line message that says what is wrong,
 * and the velocity data file is found, counted and named in errors.
 *
 * The test of the shipped random.in reads the repository's copy
 * (water_test.h).
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

static const char STANDARD[] = "  1.5e-16   512  3   6\n -1      3000     3  0\n1 6.212752\n";

/* Parses text, expecting failure with a message containing `needle`. */
static void expect_rejected(const char *text, const char *needle)
{
    water_input in;
    char err[512] = "";
    if (water_parse_input(text, &in, err, sizeof err) == 0) {
        print_error("accepted: \"%s\"\n", text);
        fail();
    }
    if (!strstr(err, needle) || strchr(err, '\n')) {
        print_error("message \"%s\" lacks \"%s\" or is not one line\n", err, needle);
        fail();
    }
}

static void expect_accepted(const char *text)
{
    water_input in;
    char err[512] = "";
    if (water_parse_input(text, &in, err, sizeof err) != 0) {
        print_error("rejected: \"%s\": %s\n", text, err);
        fail();
    }
}

/* Builds the standard input with NMOL, NORDER, NPRINT and P replaced. */
static const char *variant(long nmol, long norder, long nprint, long nprocs)
{
    static char text[256];
    snprintf(text, sizeof text, "1.5e-16 %ld 3 %ld -1 3000 %ld 0 %ld 6.212752", nmol, norder,
             nprint, nprocs);
    return text;
}

static void test_standard_input_parses(void **state)
{
    (void)state;
    water_input in;
    char err[512];
    assert_int_equal(water_parse_input(STANDARD, &in, err, sizeof err), 0);
    assert_true(in.tstep == 1.5e-16);
    assert_int_equal(in.nmol, 512);
    assert_int_equal(in.nstep, 3);
    assert_int_equal(in.norder, 6);
    assert_int_equal(in.nsave, -1);
    assert_int_equal(in.nrst, 3000);
    assert_int_equal(in.nprint, 3);
    assert_int_equal(in.nfmc, 0);
    assert_int_equal(in.nprocs, 1);
    assert_true(in.cutoff == 6.212752);
}

static void test_wrong_field_count(void **state)
{
    (void)state;
    expect_rejected("", "10 fields");
    expect_rejected("1.5e-16 512 3 6 -1 3000 3 0 1", "found 9");
    expect_rejected("1.5e-16 512 3 6 -1 3000 3 0 1 6.212752 7", "found 11");
}

static void test_non_numeric_fields(void **state)
{
    (void)state;
    expect_rejected("1.5e-16 abc 3 6 -1 3000 3 0 1 6.212752", "NMOL");
    expect_rejected("1.5e-16 512 3 6 -1 3000 3.5 0 1 6.212752", "NPRINT");
    expect_rejected("x 512 3 6 -1 3000 3 0 1 6.212752", "TSTEP");
    expect_rejected("1.5e-16 512 3 6 -1 3000 3 0 1 6.2x", "CUTOFF");
}

static void test_molecule_count_must_be_a_cube(void **state)
{
    (void)state;
    expect_rejected(variant(100, 6, 3, 1), "not a perfect cube");
    expect_rejected(variant(511, 6, 3, 1), "not a perfect cube");
    expect_rejected(variant(0, 6, 3, 1), "NMOL");
    expect_rejected(variant(-8, 6, 3, 1), "NMOL");
    expect_accepted(variant(27, 6, 3, 1));
    expect_accepted(variant(1, 6, 3, 1));
}

static void test_lattice_side(void **state)
{
    (void)state;
    assert_int_equal(water_lattice_side(1), 1);
    assert_int_equal(water_lattice_side(8), 2);
    assert_int_equal(water_lattice_side(343), 7);
    assert_int_equal(water_lattice_side(512), 8);
    assert_int_equal(water_lattice_side(100), 5); /* 125 != 100: rejected as a non-cube */
}

static void test_thread_count_range(void **state)
{
    (void)state;
    expect_rejected(variant(512, 6, 3, 0), "NumProcs");
    expect_rejected(variant(512, 6, 3, -2), "NumProcs");
    expect_rejected(variant(512, 6, 3, 257), "NumProcs"); /* above PAR_MAX_THREADS */
    expect_rejected(variant(8, 6, 3, 9), "NumProcs");     /* more threads than molecules */
    expect_accepted(variant(8, 6, 3, 8));
    expect_accepted(variant(512, 6, 3, 256));
}

static void test_order_and_print_frequency(void **state)
{
    (void)state;
    expect_rejected(variant(512, 5, 3, 1), "NORDER must be 6");
    expect_rejected(variant(512, 7, 3, 1), "NORDER must be 6");
    expect_rejected(variant(512, 6, 0, 1), "NPRINT must be >= 1");
    expect_rejected(variant(512, 6, -3, 1), "NPRINT must be >= 1");
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void expect_random_rejected(const char *path, long nmol, const char *needle)
{
    double *numbers = (double *)1;
    char err[512] = "";
    assert_int_equal(water_load_random(path, nmol, &numbers, err, sizeof err), -1);
    assert_null(numbers);
    if (!strstr(err, path) || !strstr(err, needle) || strchr(err, '\n')) {
        print_error("message \"%s\" lacks \"%s\" / \"%s\" or is not one line\n", err, path, needle);
        fail();
    }
}

static void test_missing_random_file(void **state)
{
    (void)state;
    expect_random_rejected("/nonexistent/dir/random.in", 8, "cannot open");
}

static void test_short_random_file(void **state)
{
    (void)state;
    char path[] = "/tmp/test_water_randomXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    /* 1 + 9*8 = 73 numbers are needed for 8 molecules; give 50 */
    char text[2048] = "";
    for (int i = 0; i < 50; i++)
        strcat(text, "0.5e+00\n");
    write_file(path, text);
    expect_random_rejected(path, 8, "too short");
    write_file(path, "");
    expect_random_rejected(path, 8, "too short");
    write_file(path, "0.1 0.2 zzz 0.3");
    expect_random_rejected(path, 8, "not a number");
    remove(path);
}

static void test_shipped_random_file(void **state)
{
    (void)state;
    double *numbers = water_test_load_random(512);
    assert_true(numbers[0] == 0.141882295971771490e+00);  /* the discarded one */
    assert_true(numbers[1] == 0.280382784491876420e+00);  /* molecule 0, H1, x */
    assert_true(numbers[4] == 0.370482265368664750e+01);  /* molecule 0, O, x */
    free(numbers);
    free(water_test_load_random(588));
    /* 729 molecules need 6562 numbers; the shipped file has 5299 */
    expect_random_rejected(water_test_random(), 729, "supports at most 588 molecules");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_standard_input_parses),
        cmocka_unit_test(test_wrong_field_count),
        cmocka_unit_test(test_non_numeric_fields),
        cmocka_unit_test(test_molecule_count_must_be_a_cube),
        cmocka_unit_test(test_lattice_side),
        cmocka_unit_test(test_thread_count_range),
        cmocka_unit_test(test_order_and_print_frequency),
        cmocka_unit_test(test_missing_random_file),
        cmocka_unit_test(test_short_random_file),
        cmocka_unit_test(test_shipped_random_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
