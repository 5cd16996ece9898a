/*
 * water_test.h - what the Water unit tests share (test_water_*.c): Water
 * is checked against the bit-exact values of WATER_SPEC.md, so a double
 * must equal its expected value exactly, and a failure prints both in full
 * precision.  Include after <cmocka.h>.
 */
#ifndef INI_WATER_TEST_H
#define INI_WATER_TEST_H

#define assert_same_double(actual, expected)                                                    \
    do {                                                                                        \
        double a_ = (actual), e_ = (expected);                                                  \
        if (a_ != e_) {                                                                         \
            print_error("%s = %.17e, expected %.17e\n", #actual, a_, e_);                       \
            fail();                                                                             \
        }                                                                                       \
    } while (0)

#endif
