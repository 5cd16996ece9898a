/*
 * test_checksum.c - ini_chksum against the plain RFC 1071 definition
 * (16-bit words in network order, end-around carry, result in memory
 * order) on random data of every length up to 2000 bytes and at every
 * alignment, on large buffers that take the AVX2 path, on the edge
 * values (all zeros, all ones, sums that are multiples of 0xffff), in
 * buffers allocated to their exact size (so that ASan sees a read past
 * the end), and with the AVX2 path turned off.  CRC32C against its
 * bit-at-a-time definition and the one-chain form, on each of its paths
 * (carry-less multiplication, three chains, scalar), alone, with the sum
 * and while copying.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "checksum.h"

/* A second copy of checksum.c, its public names renamed, for the paths
 * this CPU would not take: its have_clmul and have_avx2 are visible here,
 * and cleared by the tests that want the three-chain CRC or the scalar
 * sum (use_path()). */
#define ini_chksum scalar_chksum
#define ini_crc32c scalar_crc32c
#define ini_crc32c_serial scalar_crc32c_serial
#define ini_crc32c_sum scalar_crc32c_sum
#define ini_crc32c_sum_copy scalar_crc32c_sum_copy
#define ini_chksum_fold scalar_chksum_fold
#define ini_checksum_use scalar_checksum_use
#include "stack/checksum.c"
#undef ini_chksum
#undef ini_crc32c
#undef ini_crc32c_serial
#undef ini_crc32c_sum
#undef ini_crc32c_sum_copy
#undef ini_chksum_fold
#undef ini_checksum_use

static uint16_t reference(const uint8_t *p, int len)
{
    uint32_t acc = 0;
    for (; len > 1; p += 2, len -= 2)
        acc += (uint32_t)(p[0] << 8 | p[1]);
    if (len)
        acc += (uint32_t)p[0] << 8;
    while (acc >> 16)
        acc = (acc & 0xffff) + (acc >> 16);
    return (uint16_t)((acc & 0xff) << 8 | acc >> 8);    /* memory order */
}

static uint8_t buf[70000 + 64];

static void fill(uint32_t seed, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        buf[i] = (uint8_t)(seed >> 16);
    }
}

/* Every length across the code's boundaries (1..7 bytes; 8..64 as a
 * tail and up to three chains of words; 65..128 as one scalar 64-byte
 * block; AVX2 from 129) at every alignment. */
static void check_all_lengths(uint16_t (*sum)(const void *, int), int max)
{
    for (int off = 0; off < 16; off++)
        for (int len = 0; len <= max; len++)
            if (sum(buf + off, len) != reference(buf + off, len))
                fail_msg("offset %d length %d: %04x != %04x", off, len,
                         sum(buf + off, len), reference(buf + off, len));
}

static void test_small_lengths_all_alignments(void **state)
{
    fill(7, 2100);
    check_all_lengths(ini_chksum, 2000);
}

/* All 0xff: every sum is a nonzero multiple of 0xffff, which folds to
 * 0xffff and never to 0; and 0x00ff/0xff00 words, the same with carries
 * in between; and all zeros, the only sum that folds to 0. */
static void test_fold_edges_all_lengths(void **state)
{
    memset(buf, 0xff, 2100);
    check_all_lengths(ini_chksum, 1100);
    for (int i = 0; i < 2100; i++)
        buf[i] = (i % 4 == 1 || i % 4 == 2) ? 0xff : 0;
    check_all_lengths(ini_chksum, 1100);
    memset(buf, 0, 2100);
    check_all_lengths(ini_chksum, 1100);
}

/* Each buffer in a heap block of exactly its size, so ASan (make SAN=1)
 * reports any read past the end; the bytes before it, in the same block,
 * are junk that would change the sum if they were read. */
static void test_exact_size_buffers(void **state)
{
    fill(11, 2100);
    for (int len = 0; len <= 600; len++)
        for (int off = 0; off < 8; off++) {
            /* (1 byte for 0 + 0: malloc(0) may return NULL) */
            uint8_t *block = malloc((size_t)(off + len) + !(off + len));
            assert_non_null(block);
            memset(block, 0xa5, (size_t)off);
            memcpy(block + off, buf, (size_t)len);
            if (ini_chksum(block + off, len) != reference(block + off, len))
                fail_msg("offset %d length %d", off, len);
            free(block);
        }
}

/* The renamed copy's path, at most `level` (as this CPU has it):
 * INI_CSUM_CLMUL, INI_CSUM_AVX2 (three CRC chains), INI_CSUM_SCALAR.
 * Only the copy's flags change, not ini_*'s. */
static void use_path(int level)
{
    scalar_checksum_use((enum ini_checksum_path)level);
}

static int restore_cpu(void **state)
{
    use_path(INI_CSUM_CLMUL);
    return 0;
}

/* The scalar path of a CPU without AVX2, more than one 64-byte block. */
static void test_scalar_path(void **state)
{
    use_path(0);
    fill(5, 2100);
    check_all_lengths(scalar_chksum, 1100);
    for (uint32_t seed = 1; seed < 10; seed++) {
        fill(seed, sizeof buf);
        int len = 60000 + (int)(seed * 1013);
        assert_int_equal(scalar_chksum(buf + seed % 8, len), reference(buf + seed % 8, len));
    }
}

static void test_large_buffers(void **state)
{
    for (uint32_t seed = 1; seed < 40; seed++) {
        fill(seed, sizeof buf);
        int len = 1000 + (int)(seed * 1733) % 69000;
        int off = (int)seed % 7;
        assert_int_equal(ini_chksum(buf + off, len), reference(buf + off, len));
    }
}

static void test_edges(void **state)
{
    memset(buf, 0, 65536);
    assert_int_equal(ini_chksum(buf, 65536), 0);
    memset(buf, 0xff, 65536);
    assert_int_equal(ini_chksum(buf, 65536), reference(buf, 65536));
    assert_int_equal(ini_chksum(buf, 65535), reference(buf, 65535));
    assert_int_equal(ini_chksum(buf, 0), 0);
}

/* The three-chain CRC32C equals the one-chain one at every length around
 * its block boundaries and at odd alignments, and chains across calls. */
static void test_crc32c_fast_equals_serial(void **state)
{
    fill(3, sizeof buf);
    assert_int_equal(ini_crc32c(0, "123456789", 9), 0xE3069283u);   /* the check value */
    for (size_t len = 0; len < 8000; len += (len < 800 ? 1 : 37))
        for (int off = 0; off < 3; off++)
            if (ini_crc32c(0, buf + off, len) != ini_crc32c_serial(0, buf + off, len))
                fail_msg("length %zu offset %d", len, off);
    assert_int_equal(ini_crc32c(0, buf, 65016), ini_crc32c_serial(0, buf, 65016));
    uint32_t part = ini_crc32c(0, buf, 5000);
    assert_int_equal(ini_crc32c(part, buf + 5000, 6000), ini_crc32c_serial(0, buf, 11000));
    /* the three chains where ini_crc32c multiplies */
    use_path(1);
    for (size_t len = 0; len < 8000; len += (len < 800 ? 1 : 37))
        if (scalar_crc32c(0x5a5a5a5au, buf + 1, len) != ini_crc32c_serial(0x5a5a5a5au, buf + 1, len))
            fail_msg("three chains: length %zu", len);
}

/* Carry-less multiplication (on a CPU that has it; otherwise these are the
 * other paths again): every length from its 256-byte minimum across its
 * 256-, 64- and 16-byte steps, every alignment mod 64, a CRC and a sum
 * already begun; and over 2 MB, where the work is cut into 1 MB calls. */
static void test_clmul_path(void **state)
{
    if (scalar_checksum_use(INI_CSUM_CLMUL) < INI_CSUM_CLMUL)
        print_message("(this CPU has no AVX-512 VPCLMULQDQ: the other paths are tested)\n");
    fill(13, sizeof buf);
    for (size_t len = 250; len < 1700; len++)
        for (int off = 0; off < 64; off += (len < 600 ? 1 : 13)) {
            uint64_t acc = 3;
            uint32_t crc = ini_crc32c_sum(0x0badcafeu, buf + off, len, &acc);
            if (crc != ini_crc32c_serial(0x0badcafeu, buf + off, len) ||
                ini_crc32c(0x0badcafeu, buf + off, len) != crc)
                fail_msg("CRC: length %zu offset %d", len, off);
            if (ini_chksum_fold(acc) != ini_chksum_fold(3 + (uint64_t)reference(buf + off, (int)len)))
                fail_msg("sum: length %zu offset %d", len, off);
        }
    /* Just over 1 MB: the last piece must not fall under the 256 bytes
     * the multiply path needs. */
    static const size_t over[] = {((size_t)1 << 20) + 10, ((size_t)1 << 20) + 255, ((size_t)1 << 20) + 300};
    for (size_t i = 0; i < sizeof over / sizeof *over; i++) {
        uint8_t *q = malloc(over[i]);
        assert_non_null(q);
        for (size_t k = 0; k < over[i]; k++)
            q[k] = (uint8_t)(k * 40503u >> 7);
        uint64_t a = 0;
        uint32_t want = ini_crc32c_serial(7, q, over[i]);
        assert_int_equal(ini_crc32c(7, q, over[i]), want);
        assert_int_equal(ini_crc32c_sum(7, q, over[i], &a), want);
        free(q);
    }
    size_t big = ((size_t)5 << 19) + 37;      /* 2.5 MB and a tail */
    uint8_t *p = malloc(big), *dst = malloc(big);
    assert_non_null(p);
    assert_non_null(dst);
    for (size_t i = 0; i < big; i++)
        p[i] = (uint8_t)(i * 2654435761u >> 13);
    uint64_t acc = 0, acc2 = 0;
    uint32_t want = ini_crc32c_serial(0, p, big);
    assert_int_equal(ini_crc32c(0, p, big), want);
    assert_int_equal(ini_crc32c_sum(0, p, big, &acc), want);
    assert_int_equal(ini_crc32c_sum_copy(0, dst, p, big, &acc2), want);
    assert_memory_equal(dst, p, big);
    uint64_t want_sum = 0;      /* the reference in even pieces: its 32 bits hold 128 KB */
    for (size_t off = 0; off < big; off += 65536)
        want_sum += reference(p + off, (int)(big - off < 65536 ? big - off : 65536));
    assert_int_equal(ini_chksum_fold(acc), ini_chksum_fold(want_sum));
    assert_int_equal(ini_chksum_fold(acc2), ini_chksum_fold(acc));
    /* all 0xff: every word's top bit set, the sum's largest words */
    memset(p, 0xff, big);
    acc = 0;
    ini_crc32c_sum(0, p, 70000, &acc);
    assert_int_equal(ini_chksum_fold(acc), reference(p, 70000));
    free(p);
    free(dst);
}

/* CRC and sum in one pass give what the two functions give apart, at
 * every length around the block boundaries (3 x 128, 3 x 480, 3 x 1024)
 * and alignment, chained over pieces as over the pbufs of a datagram, on
 * each path: this CPU's, three chains with AVX2, scalar. */
static void test_crc_and_sum_in_one_pass(void **state)
{
    fill(7, sizeof buf);
    for (int pass = 0; pass < 3; pass++) {
        uint32_t (*fused)(uint32_t, const void *, size_t, uint64_t *) = pass ? scalar_crc32c_sum : ini_crc32c_sum;
        use_path(2 - pass);
        for (size_t len = 0; len < 7000; len += (len < 1500 ? 1 : 29))
            for (int off = 0; off < 3; off++) {
                uint64_t acc = 0;
                uint32_t crc = fused(0, buf + off, len, &acc);
                if (crc != ini_crc32c_serial(0, buf + off, len))
                    fail_msg("CRC: length %zu offset %d", len, off);
                if (ini_chksum_fold(acc) != reference(buf + off, (int)len))
                    fail_msg("sum: length %zu offset %d", len, off);
            }
        uint64_t acc = 5;     /* continues an accumulator and a CRC */
        uint32_t crc = fused(ini_crc32c(0, buf, 1000), buf + 1000, 64016, &acc);
        assert_int_equal(crc, ini_crc32c_serial(0, buf, 65016));
        assert_int_equal(ini_chksum_fold(acc), ini_chksum_fold(5 + (uint64_t)reference(buf + 1000, 64016)));
    }
}

/* The pass that also copies: the destination gets exactly the bytes (in
 * a buffer of exactly that size, for ASan, and nothing after it is
 * written), the CRC and sum are those of the pass without the copy; on
 * both paths. */
static void test_crc_and_sum_while_copying(void **state)
{
    fill(11, sizeof buf);
    for (int pass = 0; pass < 3; pass++) {
        uint32_t (*fused)(uint32_t, void *, const void *, size_t, uint64_t *) =
            pass ? scalar_crc32c_sum_copy : ini_crc32c_sum_copy;
        use_path(2 - pass);
        for (size_t len = 0; len < 4000; len += (len < 1600 ? 1 : 37))
            for (int off = 0; off < 3; off++) {
                uint8_t *dst = malloc(len + 1);
                assert_non_null(dst);
                dst[len] = 0xa5;
                uint64_t acc = 0, want_acc = 0;
                uint32_t crc = fused(0, dst, buf + off, len, &acc);
                uint32_t want = ini_crc32c_sum(0, buf + off, len, &want_acc);
                if (crc != want || ini_chksum_fold(acc) != ini_chksum_fold(want_acc))
                    fail_msg("CRC or sum: length %zu offset %d", len, off);
                if (memcmp(dst, buf + off, len) != 0 || dst[len] != 0xa5)
                    fail_msg("copy: length %zu offset %d", len, off);
                free(dst);
            }
        static uint8_t big_dst[65016];
        uint64_t acc = 0;
        uint32_t crc = fused(0, big_dst, buf, sizeof big_dst, &acc);
        assert_int_equal(crc, ini_crc32c_serial(0, buf, sizeof big_dst));
        assert_int_equal(ini_chksum_fold(acc), reference(buf, (int)sizeof big_dst));
        assert_memory_equal(big_dst, buf, sizeof big_dst);
    }
}

/* CRC-32C one bit at a time (reflected polynomial 0x82F63B78): the
 * definition, for the word and tail paths of every short length. */
static uint32_t crc32c_bitwise(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
    }
    return ~c;
}

static void test_crc32c_against_definition(void **state)
{
    fill(3, sizeof buf);
    for (size_t len = 0; len <= 1600; len += (len < 80 ? 1 : 97))
        for (int off = 0; off < 8; off++)
            if (ini_crc32c(0, buf + off, len) != crc32c_bitwise(buf + off, len) ||
                ini_crc32c_serial(0, buf + off, len) != crc32c_bitwise(buf + off, len))
                fail_msg("length %zu offset %d", len, off);
}

/* The inline forms for small buffers (checksum.h) give the functions'
 * values, continuing from a CRC and a sum already begun, at every length
 * up to INI_SMALL_MAX and every alignment; the copy writes exactly
 * its bytes.  Built with SSE4.2 (tests/module.mk), as the daemon is. */
static void test_small_inline_forms(void **state)
{
#ifndef __SSE4_2__
    fail_msg("test_checksum.c must be built with SSE4.2 to test the inline forms");
#endif
    fill(17, sizeof buf);
    for (size_t len = 0; len <= INI_SMALL_MAX; len++)
        for (int off = 0; off < 8; off++) {
            const uint8_t *p = buf + 100 + off;
            if (ini_sum_fold(ini_sum_small(0, p, len)) != reference(p, (int)len))
                fail_msg("sum: length %zu offset %d", len, off);
            uint64_t begun = ini_sum_small(0, buf, 6);
            if (ini_sum_fold(ini_sum_small(begun, p, len)) !=
                ini_chksum_fold((uint64_t)reference(buf, 6) + reference(p, (int)len)))
                fail_msg("sum continued: length %zu offset %d", len, off);
            if (ini_crc32c_small(0, p, len) != crc32c_bitwise(p, len) ||
                ini_crc32c_small(0x1234567u, p, len) != ini_crc32c(0x1234567u, p, len))
                fail_msg("CRC: length %zu offset %d", len, off);
            uint8_t *dst = malloc(len + 1);
            assert_non_null(dst);
            dst[len] = 0x5a;
            uint64_t acc = 77, want_acc = 77;
            uint32_t crc = ini_crc32c_sum_copy_small(0x89abcdefu, dst, p, len, &acc);
            uint32_t want = ini_crc32c_sum(0x89abcdefu, p, len, &want_acc);
            if (crc != want || ini_sum_fold(acc) != ini_chksum_fold(want_acc))
                fail_msg("CRC and sum while copying: length %zu offset %d", len, off);
            if (memcmp(dst, p, len) != 0 || dst[len] != 0x5a)
                fail_msg("copy: length %zu offset %d", len, off);
            free(dst);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_small_lengths_all_alignments, restore_cpu),
        cmocka_unit_test_teardown(test_fold_edges_all_lengths, restore_cpu),
        cmocka_unit_test_teardown(test_exact_size_buffers, restore_cpu),
        cmocka_unit_test_teardown(test_scalar_path, restore_cpu),
        cmocka_unit_test_teardown(test_large_buffers, restore_cpu),
        cmocka_unit_test_teardown(test_edges, restore_cpu),
        cmocka_unit_test_teardown(test_crc32c_fast_equals_serial, restore_cpu),
        cmocka_unit_test_teardown(test_clmul_path, restore_cpu),
        cmocka_unit_test_teardown(test_crc32c_against_definition, restore_cpu),
        cmocka_unit_test_teardown(test_crc_and_sum_in_one_pass, restore_cpu),
        cmocka_unit_test_teardown(test_crc_and_sum_while_copying, restore_cpu),
        cmocka_unit_test_teardown(test_small_inline_forms, restore_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
