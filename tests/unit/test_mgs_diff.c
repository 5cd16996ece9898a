/*
 * test_mgs_diff.c - twins and byte-exact diffs (mgs/mgs_diff.c).
 *
 * The property that matters for multiple writers: applying a diff writes
 * exactly the bytes that changed.  Every test therefore applies diffs to a
 * destination whose other bytes differ from the twin (another writer's
 * changes) and checks that those survive.  Covered: no change, one byte at
 * every offset of a word and at both ends of the unit, two clusters'
 * adjacent bytes of one word merged in either order, gaps of one byte never
 * bridged, a fully changed unit, the worst case (every other byte) and its
 * bound, random changes against a byte-by-byte reference, splitting into
 * pieces at run boundaries, and malformed diffs rejected without writing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mgs_diff.h"

#define UNIT 4096

static uint8_t twin[UNIT], cur[UNIT], dst[UNIT], expect[UNIT];
static uint8_t diff[UNIT * 3];

static void fill(uint8_t *p, size_t len, uint32_t seed)
{
    for (size_t i = 0; i < len; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (uint8_t)(seed >> 16);
    }
}

/* Another writer's bytes in dst (filled from seed) and, in expect, what
 * applying the diff from twin to cur must make of them: dst with cur's
 * bytes where cur differs from twin, and no other byte.  Returns how many
 * bytes differ (the reference for mgs_diff_encode's count). */
static size_t expect_applied(size_t len, uint32_t seed)
{
    size_t differ = 0;
    fill(dst, len, seed);
    memcpy(expect, dst, len);
    for (size_t i = 0; i < len; i++)
        if (cur[i] != twin[i]) {
            expect[i] = cur[i];
            differ++;
        }
    return differ;
}

/* twin filled from seed, and cur: twin with every step-th byte flipped by
 * x. */
static void change_every(size_t step, uint8_t x, uint32_t seed)
{
    fill(twin, UNIT, seed);
    memcpy(cur, twin, UNIT);
    for (size_t i = 0; i < UNIT; i += step)
        cur[i] ^= x;
}

/* Number of runs in an encoding (walks the headers). */
static size_t count_runs(const uint8_t *d, size_t dlen)
{
    size_t runs = 0, pos = 0;
    while (pos < dlen) {
        size_t run = (size_t)d[pos + 2] | (size_t)d[pos + 3] << 8;
        pos += MGS_DIFF_RUN_HEADER + run;
        runs++;
    }
    assert_int_equal(pos, dlen);
    return runs;
}

static void test_no_change(void **state)
{
    fill(twin, UNIT, 1);
    memcpy(cur, twin, UNIT);
    size_t changed = 99;
    assert_int_equal(mgs_diff_encode(twin, cur, UNIT, diff, &changed), 0);
    assert_int_equal(changed, 0);
    assert_int_equal(expect_applied(UNIT, 2), 0);
    assert_int_equal(mgs_diff_apply(dst, UNIT, diff, 0), 0);
    assert_memory_equal(dst, expect, UNIT);
}

static void test_single_byte_everywhere(void **state)
{
    size_t offsets[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 2047, 2048, UNIT - 9, UNIT - 8, UNIT - 2,
                         UNIT - 1 };
    for (size_t k = 0; k < sizeof offsets / sizeof *offsets; k++) {
        size_t off = offsets[k];
        fill(twin, UNIT, 3);
        memcpy(cur, twin, UNIT);
        cur[off] ^= 0x5a;
        size_t changed;
        size_t dlen = mgs_diff_encode(twin, cur, UNIT, diff, &changed);
        assert_int_equal(dlen, MGS_DIFF_RUN_HEADER + 1);
        assert_int_equal(changed, 1);
        assert_int_equal(expect_applied(UNIT, 4), 1);   /* another writer's bytes elsewhere */
        assert_int_equal(mgs_diff_apply(dst, UNIT, diff, dlen), 0);
        assert_memory_equal(dst, expect, UNIT);
    }
}

/* Two clusters write adjacent bytes of one word; the home merges both
 * diffs, in either order, and gets both bytes. */
static void test_adjacent_bytes_two_writers(void **state)
{
    for (int order = 0; order < 2; order++) {
        for (size_t byte = 0; byte < 7; byte++) {
            uint8_t a[UNIT], b[UNIT], da[64], db[64], master[UNIT];
            fill(twin, UNIT, 5);
            memcpy(a, twin, UNIT);
            memcpy(b, twin, UNIT);
            memcpy(master, twin, UNIT);
            size_t word = 8 * 100;
            a[word + byte] = (uint8_t)~twin[word + byte];
            b[word + byte + 1] = (uint8_t)~twin[word + byte + 1];
            size_t la = mgs_diff_encode(twin, a, UNIT, da, NULL);
            size_t lb = mgs_diff_encode(twin, b, UNIT, db, NULL);
            assert_int_equal(la, MGS_DIFF_RUN_HEADER + 1);
            assert_int_equal(lb, MGS_DIFF_RUN_HEADER + 1);
            if (order == 0) {
                assert_int_equal(mgs_diff_apply(master, UNIT, da, la), 0);
                assert_int_equal(mgs_diff_apply(master, UNIT, db, lb), 0);
            } else {
                assert_int_equal(mgs_diff_apply(master, UNIT, db, lb), 0);
                assert_int_equal(mgs_diff_apply(master, UNIT, da, la), 0);
            }
            memcpy(expect, twin, UNIT);
            expect[word + byte] = a[word + byte];
            expect[word + byte + 1] = b[word + byte + 1];
            assert_memory_equal(master, expect, UNIT);
        }
    }
}

/* Changed bytes separated by one unchanged byte give two runs: the gap is
 * never carried, even though one run would be shorter. */
static void test_gaps_not_bridged(void **state)
{
    fill(twin, UNIT, 6);
    memcpy(cur, twin, UNIT);
    cur[100] ^= 1;
    cur[102] ^= 1;               /* gap of one byte at 101 */
    for (size_t i = 200; i < 216; i++)
        cur[i] ^= 0xff;          /* a long run crossing word boundaries */
    cur[216 + 1] ^= 0x80;        /* gap of one byte at 216 */
    size_t changed;
    size_t dlen = mgs_diff_encode(twin, cur, UNIT, diff, &changed);
    assert_int_equal(changed, 19);
    assert_int_equal(count_runs(diff, dlen), 4);
    fill(dst, UNIT, 7);
    memcpy(expect, dst, UNIT);
    expect[100] = cur[100];
    expect[102] = cur[102];
    memcpy(expect + 200, cur + 200, 16);
    expect[217] = cur[217];
    assert_int_equal(mgs_diff_apply(dst, UNIT, diff, dlen), 0);
    assert_memory_equal(dst, expect, UNIT);
}

static void test_full_change(void **state)
{
    fill(twin, UNIT, 8);
    for (size_t i = 0; i < UNIT; i++)
        cur[i] = (uint8_t)~twin[i];
    size_t changed;
    size_t dlen = mgs_diff_encode(twin, cur, UNIT, diff, &changed);
    assert_int_equal(dlen, MGS_DIFF_RUN_HEADER + UNIT);
    assert_int_equal(changed, UNIT);
    memset(dst, 0, UNIT);
    assert_int_equal(mgs_diff_apply(dst, UNIT, diff, dlen), 0);
    assert_memory_equal(dst, cur, UNIT);
}

static void test_worst_case_bound(void **state)
{
    change_every(2, 0x11, 9);
    size_t dlen = mgs_diff_encode(twin, cur, UNIT, diff, NULL);
    assert_int_equal(dlen, mgs_diff_max_size(UNIT));
    assert_int_equal(count_runs(diff, dlen), UNIT / 2);
    assert_int_equal(expect_applied(UNIT, 10), UNIT / 2);
    assert_int_equal(mgs_diff_apply(dst, UNIT, diff, dlen), 0);
    assert_memory_equal(dst, expect, UNIT);
}

/* Random sparse and dense changes against a byte-by-byte reference, also
 * with odd unit lengths (tails shorter than a word). */
static void test_random_against_reference(void **state)
{
    uint32_t seed = 12345;
    size_t lengths[] = { UNIT, 4095, 17, 8, 7, 1 };
    for (int iter = 0; iter < 400; iter++) {
        size_t len = lengths[iter % 6];
        fill(twin, len, (uint32_t)iter);
        memcpy(cur, twin, len);
        int density = iter % 4 == 0 ? 2 : iter % 4 == 1 ? 50 : iter % 4 == 2 ? 500 : 4000;
        for (size_t i = 0; i < len; i++) {
            seed = seed * 1664525u + 1013904223u;
            if ((seed >> 8) % 4096 < (uint32_t)density)
                cur[i] = (uint8_t)(cur[i] + 1 + (seed >> 28));
        }
        size_t changed;
        size_t dlen = mgs_diff_encode(twin, cur, len, diff, &changed);
        assert_true(dlen <= mgs_diff_max_size(len));
        assert_int_equal(changed, expect_applied(len, (uint32_t)iter + 1000));
        assert_int_equal(mgs_diff_apply(dst, len, diff, dlen), 0);
        assert_memory_equal(dst, expect, len);
    }
}

static void test_pieces(void **state)
{
    change_every(3, 0x42, 11);
    size_t dlen = mgs_diff_encode(twin, cur, UNIT, diff, NULL);
    expect_applied(UNIT, 12);
    size_t pos = 0, pieces = 0;
    while (pos < dlen) {
        size_t piece = mgs_diff_next_piece(diff, dlen, pos, 1000);
        assert_true(piece > 0 && piece <= 1000);
        assert_int_equal(mgs_diff_apply(dst, UNIT, diff + pos, piece), 0);
        pos += piece;
        pieces++;
    }
    assert_int_equal(mgs_diff_next_piece(diff, dlen, dlen, 1000), 0);
    assert_true(pieces >= dlen / 1000);
    assert_memory_equal(dst, expect, UNIT);
    /* A run longer than the piece limit still goes out whole. */
    for (size_t i = 0; i < UNIT; i++)
        cur[i] = (uint8_t)~twin[i];
    dlen = mgs_diff_encode(twin, cur, UNIT, diff, NULL);
    assert_int_equal(mgs_diff_next_piece(diff, dlen, 0, 100), dlen);
}

static void test_malformed_rejected(void **state)
{
    uint8_t bad[16];
    fill(dst, UNIT, 13);
    memcpy(expect, dst, UNIT);
    /* truncated header */
    bad[0] = 0;
    assert_int_equal(mgs_diff_apply(dst, UNIT, bad, 3), -1);
    /* zero length */
    memcpy(bad, (uint8_t[]){ 0, 0, 0, 0 }, 4);
    assert_int_equal(mgs_diff_apply(dst, UNIT, bad, 4), -1);
    /* run past the end of the unit */
    memcpy(bad, (uint8_t[]){ 0xff, 0x0f, 2, 0, 1, 2 }, 6);
    assert_int_equal(mgs_diff_apply(dst, UNIT, bad, 6), -1);
    /* data shorter than the run */
    memcpy(bad, (uint8_t[]){ 0, 0, 4, 0, 1, 2 }, 6);
    assert_int_equal(mgs_diff_apply(dst, UNIT, bad, 6), -1);
    /* a valid first run followed by an overlapping one: nothing written */
    memcpy(bad, (uint8_t[]){ 10, 0, 2, 0, 0xaa, 0xbb, 11, 0, 1, 0, 0xcc }, 11);
    assert_int_equal(mgs_diff_apply(dst, UNIT, bad, 11), -1);
    assert_memory_equal(dst, expect, UNIT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_change),
        cmocka_unit_test(test_single_byte_everywhere),
        cmocka_unit_test(test_adjacent_bytes_two_writers),
        cmocka_unit_test(test_gaps_not_bridged),
        cmocka_unit_test(test_full_change),
        cmocka_unit_test(test_worst_case_bound),
        cmocka_unit_test(test_random_against_reference),
        cmocka_unit_test(test_pieces),
        cmocka_unit_test(test_malformed_rejected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
