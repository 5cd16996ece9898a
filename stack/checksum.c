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

uint16_t ini_chksum(const void *data, int len)
{
    const uint8_t *p = data;
    size_t n = len > 0 ? (size_t)len : 0;
    uint64_t sum = 0;
    static int avx2 = -1;
    if (avx2 < 0)
        avx2 = __builtin_cpu_supports("avx2");
    if (avx2 && n >= 128) {
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
