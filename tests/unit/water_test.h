/*
 * water_test.h - what the Water unit tests share (test_water_*.c): Water
 * is checked against the bit-exact values of WATER_SPEC.md, so a double
 * must equal its expected value exactly, and a failure prints both in full
 * precision.  Include after <cmocka.h>, <stdlib.h>, <unistd.h> and
 * "water/water.h".
 *
 * The data file random.in is part of the repository (tools/apps/water/data/):
 * the tests read it from there (tests/run-all.sh runs them from the
 * repository's root), or from $WATER_RANDOM, and fail, never skip, when
 * it cannot be read.
 */
#ifndef INI_WATER_TEST_H
#define INI_WATER_TEST_H

#define WATER_TEST_RANDOM "tools/apps/water/data/random.in"

/* The path of random.in; fails the test when it is not readable. */
static inline const char *water_test_random(void)
{
    const char *path = getenv("WATER_RANDOM");
    if (!path)
        path = WATER_TEST_RANDOM;
    if (access(path, R_OK) != 0) {
        print_error("Water's data file %s cannot be read (run the tests from the repository's root, "
                    "or set WATER_RANDOM)\n", path);
        fail();
    }
    return path;
}

/* The numbers of the shipped random.in for nmol molecules (1 + 9 * nmol of
 * them, water_load_random); fails the test, saying why, when they cannot be
 * loaded.  The caller frees them. */
static inline double *water_test_load_random(long nmol)
{
    double *numbers;
    char err[512];
    if (water_load_random(water_test_random(), nmol, &numbers, err, sizeof err) != 0) {
        print_error("%s\n", err);
        fail();
    }
    return numbers;
}

#define assert_same_double(actual, expected)                                                    \
    do {                                                                                        \
        double a_ = (actual), e_ = (expected);                                                  \
        if (a_ != e_) {                                                                         \
            print_error("%s = %.17e, expected %.17e\n", #actual, a_, e_);                       \
            fail();                                                                             \
        }                                                                                       \
    } while (0)

#endif
