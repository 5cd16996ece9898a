/*
 * test_checksum.c - ini_chksum against the plain RFC 1071 definition
 * (16-bit words in network order, end-around carry, result in memory
 * order) on random data of every length up to 300 bytes and at every
 * alignment, on large buffers that take the AVX2 path, and on the edge
 * values (all zeros, all ones).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "checksum.h"

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

static void test_small_lengths_all_alignments(void **state)
{
    fill(7, 400);
    for (int off = 0; off < 16; off++)
        for (int len = 0; len <= 300; len++)
            if (ini_chksum(buf + off, len) != reference(buf + off, len))
                fail_msg("offset %d length %d: %04x != %04x", off, len,
                         ini_chksum(buf + off, len), reference(buf + off, len));
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
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_lengths_all_alignments),
        cmocka_unit_test(test_large_buffers),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_crc32c_fast_equals_serial),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
