/*
 * checksum.c - the Internet checksum, 64-bit words and AVX2 (see checksum.h).
 */
#include "checksum.h"

#include <immintrin.h>
#include <stddef.h>
#include <string.h>

static inline uint64_t add_carry(uint64_t a, uint64_t b)
{
    uint64_t s = a + b;
    return s + (s < a);
}

static inline uint16_t fold64(uint64_t s)
{
    s = (s & 0xffffffffu) + (s >> 32);
    s = (s & 0xffffffffu) + (s >> 32);
    s = (s & 0xffffu) + (s >> 16);
    s = (s & 0xffffu) + (s >> 16);
    return (uint16_t)s;
}

/* 64 bytes a step: 32-bit lanes widened into 64-bit accumulators, which
 * cannot overflow for any length an int can hold. */
__attribute__((target("avx2")))
static uint64_t sum_avx2(const uint8_t *p, size_t n)
{
    const __m256i zero = _mm256_setzero_si256();
    __m256i a0 = zero, a1 = zero, a2 = zero, a3 = zero;
    for (size_t i = 0; i + 64 <= n; i += 64) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(p + i));
        __m256i y = _mm256_loadu_si256((const __m256i *)(p + i + 32));
        a0 = _mm256_add_epi64(a0, _mm256_unpacklo_epi32(x, zero));
        a1 = _mm256_add_epi64(a1, _mm256_unpackhi_epi32(x, zero));
        a2 = _mm256_add_epi64(a2, _mm256_unpacklo_epi32(y, zero));
        a3 = _mm256_add_epi64(a3, _mm256_unpackhi_epi32(y, zero));
    }
    __m256i a = _mm256_add_epi64(_mm256_add_epi64(a0, a1), _mm256_add_epi64(a2, a3));
    uint64_t lane[4];
    _mm256_storeu_si256((__m256i *)lane, a);
    uint64_t s = 0;
    for (int i = 0; i < 4; i++)
        s = add_carry(s, lane[i]);
    return s;
}

/* Decided when the program loads, like the CRC tables below: no
 * first-call race between threads. */
static int have_avx2;

__attribute__((constructor))
static void detect_avx2(void)
{
    have_avx2 = __builtin_cpu_supports("avx2");
}

uint16_t ini_chksum(const void *data, int len)
{
    const uint8_t *p = data;
    size_t n = len > 0 ? (size_t)len : 0;
    uint64_t sum = 0;
    if (have_avx2 && n >= 128) {
        size_t bulk = n & ~(size_t)63;
        sum = sum_avx2(p, bulk);
        p += bulk;
        n -= bulk;
    }
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        sum = add_carry(sum, v);
    }
    if (n >= 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        sum = add_carry(sum, v);
        p += 4;
        n -= 4;
    }
    if (n >= 2) {
        uint16_t v;
        memcpy(&v, p, 2);
        sum = add_carry(sum, v);
        p += 2;
        n -= 2;
    }
    if (n)
        sum = add_carry(sum, *p);     /* the odd byte is the low byte of its word */
    return fold64(sum);
}

/* ---- CRC32C ---- */

/* Raw CRC state update over whole 8-byte words, no pre/post inversion. */
__attribute__((target("sse4.2")))
static inline uint64_t crc_words(uint64_t c, const uint8_t *p, size_t words)
{
    for (size_t i = 0; i < words; i++) {
        uint64_t v;
        memcpy(&v, p + 8 * i, 8);
        c = __builtin_ia32_crc32di(c, v);
    }
    return c;
}

__attribute__((target("sse4.2")))
static uint32_t crc_raw(uint32_t c32, const uint8_t *p, size_t len)
{
    uint64_t c = crc_words(c32, p, len / 8);
    p += len & ~(size_t)7;
    c32 = (uint32_t)c;
    for (len &= 7; len; len--, p++)
        c32 = __builtin_ia32_crc32qi(c32, *p);
    return c32;
}

uint32_t ini_crc32c_serial(uint32_t crc, const void *buf, size_t len)
{
    return ~crc_raw(~crc, buf, len);
}

/* Appending n zero bytes to a message maps the raw CRC state linearly
 * (over GF(2)): shift(c) = sum over the set bits i of c of shift(1 << i).
 * Four tables of 256 entries apply that map a byte of c at a time. */
struct crc_shift {
    uint32_t t[4][256];
};

static void crc_shift_init(struct crc_shift *s, size_t n)
{
    static const uint8_t zeros[4096];
    uint32_t col[32];
    for (int i = 0; i < 32; i++)
        col[i] = crc_raw(1u << i, zeros, n);
    for (int b = 0; b < 4; b++)
        for (int v = 0; v < 256; v++) {
            uint32_t r = 0;
            for (int k = 0; k < 8; k++)
                if (v >> k & 1)
                    r ^= col[8 * b + k];
            s->t[b][v] = r;
        }
}

static inline uint32_t crc_shift(const struct crc_shift *s, uint32_t c)
{
    return s->t[0][c & 0xff] ^ s->t[1][c >> 8 & 0xff] ^ s->t[2][c >> 16 & 0xff] ^ s->t[3][c >> 24];
}

/* Block sizes: 1 KB for long buffers, 128 bytes for single frames. */
#define CRC_BIG   1024
#define CRC_SMALL 128

__attribute__((target("sse4.2")))
static uint32_t crc_three_way(uint32_t c, const uint8_t **pp, size_t *lenp, size_t block,
                              const struct crc_shift *shift)
{
    const uint8_t *p = *pp;
    size_t len = *lenp;
    for (; len >= 3 * block; p += 3 * block, len -= 3 * block) {
        uint64_t a = c, b = 0, d = 0;
        for (size_t i = 0; i < block; i += 8) {
            uint64_t x, y, z;
            memcpy(&x, p + i, 8);
            memcpy(&y, p + block + i, 8);
            memcpy(&z, p + 2 * block + i, 8);
            a = __builtin_ia32_crc32di(a, x);
            b = __builtin_ia32_crc32di(b, y);
            d = __builtin_ia32_crc32di(d, z);
        }
        c = crc_shift(shift, crc_shift(shift, (uint32_t)a) ^ (uint32_t)b) ^ (uint32_t)d;
    }
    *pp = p;
    *lenp = len;
    return c;
}

static struct crc_shift big, small;

/* 8 KB of tables, built when the program loads: no first-call race. */
__attribute__((constructor))
static void crc_tables_init(void)
{
    crc_shift_init(&big, CRC_BIG);
    crc_shift_init(&small, CRC_SMALL);
}

uint32_t ini_crc32c(uint32_t crc, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    uint32_t c = ~crc;
    if (len >= 3 * CRC_BIG)
        c = crc_three_way(c, &p, &len, CRC_BIG, &big);
    if (len >= 3 * CRC_SMALL)
        c = crc_three_way(c, &p, &len, CRC_SMALL, &small);
    return ~crc_raw(c, p, len);
}
