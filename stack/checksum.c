/*
 * checksum.c - the Internet checksum, 64-bit words and AVX2 (see checksum.h).
 */
#include "checksum.h"

#include <immintrin.h>
#include <stddef.h>
#include <string.h>

/* An unaligned 8-byte load, in memory order (little-endian x86). */
static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* a + b with the carry out of bit 63 added back in (end-around carry):
 * 2^64 = 1 modulo 2^64 - 1, and 2^16 - 1 divides 2^64 - 1, so the 16-bit
 * ones' complement sum survives.  GCC emits add + adc $0. */
static inline uint64_t add_carry(uint64_t a, uint64_t b)
{
    uint64_t s = a + b;
    return s + (s < a);
}

/* Adds the k (1, 2, 4 or 8, a constant after inlining) 8-byte words at p
 * as one add/adc chain: one adc per word, the carry flag moving from each
 * add to the next, where add_carry would cost an adc $0 after every word.
 * The carry left at the end is added back once; that cannot overflow,
 * because an add whose carry in is 1 only carries out if its sum is at
 * most 2^64 - 2.  Written out rather than as a loop, which GCC 12 does not
 * always unroll; and inside a loop it also stores every partial sum that
 * _addcarry_u64 writes through its pointer to a stack slot nobody reads
 * (harmless, and only in chksum_long's loop for 65..128 bytes or a CPU
 * without AVX2). */
static inline uint64_t add_words(uint64_t sum, const uint8_t *p, int k)
{
    unsigned long long s = sum;     /* the type _addcarry_u64 takes */
    unsigned char c = _addcarry_u64(0, s, load64(p), &s);
    if (k >= 2)
        c = _addcarry_u64(c, s, load64(p + 8), &s);
    if (k >= 4) {
        c = _addcarry_u64(c, s, load64(p + 16), &s);
        c = _addcarry_u64(c, s, load64(p + 24), &s);
    }
    if (k >= 8) {
        c = _addcarry_u64(c, s, load64(p + 32), &s);
        c = _addcarry_u64(c, s, load64(p + 40), &s);
        c = _addcarry_u64(c, s, load64(p + 48), &s);
        c = _addcarry_u64(c, s, load64(p + 56), &s);
    }
    return s + c;
}

/* Folds to 16 bits with end-around carries.  The result is a function of
 * s modulo 2^16 - 1 alone, except that it is 0 only for s == 0 (0xffff
 * for the other multiples), as with one step at a time; and s is 0 only
 * when every byte summed was 0.  So every way of summing gives the same
 * bits. */
static inline uint16_t fold64(uint64_t s)
{
    uint32_t lo = (uint32_t)s, hi = (uint32_t)(s >> 32);
    uint32_t t = lo + hi;
    t += t < lo;                    /* at most 2^32 - 2 after a carry: fits */
    /* The high half of t + (t rotated by 16) is hi16 + lo16 plus the carry
     * out of the low half (which is lo16 + hi16 too): the end-around sum,
     * at most 0xffff; what falls off bit 31 is that same carry again. */
    return (uint16_t)((t + (t << 16 | t >> 16)) >> 16);
}

/* s + the n bytes at p, 64 bytes a step: 32-bit lanes widened into 64-bit
 * accumulators, which cannot overflow for any length an int can hold.
 * The loads are lddqu, not loadu: the daemon is built with DPDK's
 * -march=corei7, whose tuning makes GCC split every unaligned 256-bit
 * loadu into two 128-bit loads and a vinserti128; lddqu is left whole
 * (and is the same load as loadu on any CPU with AVX2).  Split, 65 KB
 * took 25% longer (2220 against 1675 cycles). */
__attribute__((target("avx2")))
static uint64_t sum_avx2(uint64_t s, const uint8_t *p, size_t n)
{
    const __m256i zero = _mm256_setzero_si256();
    __m256i a0 = zero, a1 = zero, a2 = zero, a3 = zero;
    for (const uint8_t *end = p + n; p < end; p += 64) {
        __m256i x = _mm256_lddqu_si256((const __m256i *)p);
        __m256i y = _mm256_lddqu_si256((const __m256i *)(p + 32));
        a0 = _mm256_add_epi64(a0, _mm256_unpacklo_epi32(x, zero));
        a1 = _mm256_add_epi64(a1, _mm256_unpackhi_epi32(x, zero));
        a2 = _mm256_add_epi64(a2, _mm256_unpacklo_epi32(y, zero));
        a3 = _mm256_add_epi64(a3, _mm256_unpackhi_epi32(y, zero));
    }
    __m256i a = _mm256_add_epi64(_mm256_add_epi64(a0, a1), _mm256_add_epi64(a2, a3));
    uint64_t lane[4];
    _mm256_storeu_si256((__m256i *)lane, a);
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

/* Buffers of 1..7 bytes, as an integer whose byte i is p[i] (the order of
 * an 8-byte load on little-endian x86), with no byte counted twice and
 * none read past the end.  Every byte keeps its offset's parity, so an odd last byte is
 * the low byte of its 16-bit word, as RFC 1071 pads it. */
static inline uint64_t sum_short(const uint8_t *p, size_t n)
{
    if (n >= 4) {
        /* Bytes 0..3, and bytes n-4..n-1 of which the top n-4 (bytes
         * 4..n-1; none when n is 4) move down to places 4..n-1. */
        uint32_t lo, hi;
        memcpy(&lo, p, 4);
        memcpy(&hi, p + n - 4, 4);
        return lo | ((uint64_t)hi >> (8 * (8 - n))) << 32;
    }
    uint64_t s = 0;
    if (n & 2) {
        uint16_t v;
        memcpy(&v, p, 2);
        s = v;
    }
    if (n & 1)
        s += p[n - 1];
    return s;
}

/* sum + the n (1..64) bytes at p, the end of a buffer of at least 8
 * bytes; p is at an offset in it that is a multiple of 64. */
static inline uint64_t sum_upto64(uint64_t sum, const uint8_t *p, size_t n)
{
    /* The last 1..8 bytes (never 0, so that no shift is by 64) are the
     * tail, the ones before it whole 8-byte words.  The tail is one load
     * of the buffer's last 8 bytes, shifted right past the -n mod 8 bytes
     * of it (0..7) that belong to the words, i.e. by -8n mod 64 bits
     * (written so, GCC leaves the mod to the shift instruction).  So its
     * first byte lands in the lowest place, and sits at an even offset. */
    sum = add_carry(sum, load64(p + n - 8) >> ((0 - 8 * n) & 63));

    /* 0..56 bytes of words before the tail, in at most three straight-line
     * chains as the bits of their length say: no loop, no jump table. */
    size_t words = (n - 1) & ~(size_t)7;
    if (words & 32) {
        sum = add_words(sum, p, 4);
        p += 32;
    }
    if (words & 16) {
        sum = add_words(sum, p, 2);
        p += 16;
    }
    if (words & 8)
        sum = add_words(sum, p, 1);
    return sum;
}

/* Buffers of more than 64 bytes: whole 64-byte blocks, with AVX2 from two
 * on, but never the last byte, so that 1..64 are left for sum_upto64.
 * Out of line, so that short buffers do not pay for a stack frame. */
__attribute__((noinline))
static uint16_t chksum_long(const uint8_t *p, size_t n)
{
    size_t blocks = (n - 1) & ~(size_t)63;
    uint64_t sum = 0;
    if (blocks > 64 && have_avx2) {
        sum = sum_avx2(sum, p, blocks);
    } else {
        for (size_t i = 0; i < blocks; i += 64)
            sum = add_words(sum, p + i, 8);
    }
    return fold64(sum_upto64(sum, p + blocks, n - blocks));
}

uint16_t ini_chksum(const void *data, int len)
{
    const uint8_t *p = data;
    if (len < 8)
        return len > 0 ? fold64(sum_short(p, (size_t)len)) : 0;
    if (len > 64)
        return chksum_long(p, (size_t)len);
    return fold64(sum_upto64(0, p, (size_t)len));
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

/* Block sizes: 1 KB for long buffers, 480 bytes for the 1,480 bytes of an
 * IP fragment at MTU 1500 (3 x 480 = 1,440: the 1,458 or 1,480 message
 * bytes of a fragment but for 18 or 40), 128 bytes for single frames.
 * All multiples of 32, as the fused sum below reads 32 bytes a step. */
#define CRC_BIG   1024
#define CRC_MID   480
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

static struct crc_shift big, mid, small;

/* 12 KB of tables, built when the program loads: no first-call race. */
__attribute__((constructor))
static void crc_tables_init(void)
{
    crc_shift_init(&big, CRC_BIG);
    crc_shift_init(&mid, CRC_MID);
    crc_shift_init(&small, CRC_SMALL);
}

uint32_t ini_crc32c(uint32_t crc, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    uint32_t c = ~crc;
    if (len < 3 * CRC_SMALL)        /* a small message: one chain, no block tests */
        return ~crc_raw(c, p, len);
    if (len >= 3 * CRC_BIG)
        c = crc_three_way(c, &p, &len, CRC_BIG, &big);
    if (len >= 3 * CRC_MID)
        c = crc_three_way(c, &p, &len, CRC_MID, &mid);
    if (len >= 3 * CRC_SMALL)
        c = crc_three_way(c, &p, &len, CRC_SMALL, &small);
    return ~crc_raw(c, p, len);
}

/* ---- CRC32C and the Internet checksum in one pass ---- */

uint16_t ini_chksum_fold(uint64_t sum)
{
    return fold64(sum);
}

/* The three-chain CRC of crc_three_way, with every 32 bytes of each block
 * also loaded once as a vector and added, as 32-bit lanes widened to
 * 64 bits, to a0/a1 (as sum_avx2 does): the CRC instructions read the
 * same cache lines again from L1, the sum costs four vector operations a
 * step.  Blocks are multiples of 32 bytes from the start of the buffer, so
 * every byte keeps its offset's parity in the lanes. */
__attribute__((target("avx2,sse4.2"), always_inline))
static inline uint32_t crc_sum_three_way(uint32_t c, uint8_t **dp, const uint8_t **pp, size_t *lenp,
                                         size_t block, const struct crc_shift *shift, __m256i *a0,
                                         __m256i *a1)
{
    const __m256i zero = _mm256_setzero_si256();
    const uint8_t *p = *pp;
    uint8_t *dst = *dp;
    size_t len = *lenp;
    __m256i s0 = *a0, s1 = *a1;
    for (; len >= 3 * block; p += 3 * block, len -= 3 * block) {
        uint64_t a = c, b = 0, d = 0;
        for (size_t i = 0; i < block; i += 32) {
            __m256i x = _mm256_lddqu_si256((const __m256i *)(p + i));
            __m256i y = _mm256_lddqu_si256((const __m256i *)(p + block + i));
            __m256i z = _mm256_lddqu_si256((const __m256i *)(p + 2 * block + i));
            if (dst) {
                _mm256_storeu_si256((__m256i *)(dst + i), x);
                _mm256_storeu_si256((__m256i *)(dst + block + i), y);
                _mm256_storeu_si256((__m256i *)(dst + 2 * block + i), z);
            }
            s0 = _mm256_add_epi64(s0, _mm256_unpacklo_epi32(x, zero));
            s1 = _mm256_add_epi64(s1, _mm256_unpackhi_epi32(x, zero));
            s0 = _mm256_add_epi64(s0, _mm256_unpacklo_epi32(y, zero));
            s1 = _mm256_add_epi64(s1, _mm256_unpackhi_epi32(y, zero));
            s0 = _mm256_add_epi64(s0, _mm256_unpacklo_epi32(z, zero));
            s1 = _mm256_add_epi64(s1, _mm256_unpackhi_epi32(z, zero));
            for (size_t k = 0; k < 32; k += 8) {
                a = __builtin_ia32_crc32di(a, load64(p + i + k));
                b = __builtin_ia32_crc32di(b, load64(p + block + i + k));
                d = __builtin_ia32_crc32di(d, load64(p + 2 * block + i + k));
            }
        }
        c = crc_shift(shift, crc_shift(shift, (uint32_t)a) ^ (uint32_t)b) ^ (uint32_t)d;
        if (dst)
            dst += 3 * block;
    }
    *a0 = s0;
    *a1 = s1;
    *pp = p;
    *dp = dst;
    *lenp = len;
    return c;
}

/* The CRC and the sum of len bytes at p, and with dst (not NULL) their
 * copy there: inlined twice, so that the pass without a copy tests no
 * dst in its loop. */
__attribute__((target("avx2,sse4.2"), always_inline))
static inline uint32_t crc_sum_body(uint32_t crc, uint8_t *dst, const uint8_t *p, size_t len, uint64_t *sum)
{
    __m256i a0 = _mm256_setzero_si256(), a1 = a0;
    uint32_t c = ~crc;
    size_t left = len;
    if (left >= 3 * CRC_BIG)
        c = crc_sum_three_way(c, &dst, &p, &left, CRC_BIG, &big, &a0, &a1);
    if (left >= 3 * CRC_MID)
        c = crc_sum_three_way(c, &dst, &p, &left, CRC_MID, &mid, &a0, &a1);
    if (left >= 3 * CRC_SMALL)
        c = crc_sum_three_way(c, &dst, &p, &left, CRC_SMALL, &small, &a0, &a1);
    uint64_t lane[4];
    _mm256_storeu_si256((__m256i *)lane, _mm256_add_epi64(a0, a1));
    uint64_t s = *sum;
    for (int i = 0; i < 4; i++)
        s = add_carry(s, lane[i]);
    /* The rest (under 384 bytes) starts at an offset that is a multiple
     * of 32 (even): its folded sum adds as it is. */
    if (dst)
        memcpy(dst, p, left);
    *sum = add_carry(s, ini_chksum(p, (int)left));
    return ~crc_raw(c, p, left);
}

__attribute__((target("avx2,sse4.2")))
static uint32_t crc_sum_avx2(uint32_t crc, const uint8_t *p, size_t len, uint64_t *sum)
{
    return crc_sum_body(crc, NULL, p, len, sum);
}

__attribute__((target("avx2,sse4.2")))
static uint32_t crc_sum_copy_avx2(uint32_t crc, uint8_t *dst, const uint8_t *p, size_t len, uint64_t *sum)
{
    return crc_sum_body(crc, dst, p, len, sum);
}

uint32_t ini_crc32c_sum(uint32_t crc, const void *buf, size_t len, uint64_t *sum)
{
    if (have_avx2)
        return crc_sum_avx2(crc, buf, len, sum);
    *sum = add_carry(*sum, ini_chksum(buf, (int)len));
    return ini_crc32c(crc, buf, len);
}

uint32_t ini_crc32c_sum_copy(uint32_t crc, void *dst, const void *src, size_t len, uint64_t *sum)
{
    if (have_avx2)
        return crc_sum_copy_avx2(crc, dst, src, len, sum);
    memcpy(dst, src, len);
    return ini_crc32c_sum(crc, src, len, sum);
}
