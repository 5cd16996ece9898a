/*
 * checksum.c - the Internet checksum, 64-bit words and AVX2, and CRC32C:
 * by the SSE4.2 instruction, three chains at once, or on CPUs with
 * AVX-512 and VPCLMULQDQ by carry-less multiplication (see checksum.h).
 */
#include "checksum.h"

#include <immintrin.h>
#include <stddef.h>
#include <string.h>


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
        s = ini_sum_add(s, lane[i]);
    return s;
}

/* Decided when the program loads, beside the CRC tables below
 * (ini_checksum_use): no first-call race between threads. */
static int have_avx2, have_clmul;


/* Buffers of more than 64 bytes: whole 64-byte blocks, with AVX2 from two
 * on, but never the last byte, so that 1..64 are left for ini_sum_upto64.
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
            sum = ini_sum_words(sum, p + i, 8);
    }
    return ini_sum_fold(ini_sum_upto64(sum, p + blocks, n - blocks));
}

uint16_t ini_chksum(const void *data, int len)
{
    const uint8_t *p = data;
    if (len < 8)
        return len > 0 ? ini_sum_fold(ini_sum_short(p, (size_t)len)) : 0;
    if (len > 64)
        return chksum_long(p, (size_t)len);
    return ini_sum_fold(ini_sum_upto64(0, p, (size_t)len));
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

/* ---- CRC32C by carry-less multiplication ----
 *
 * The CRC instruction takes 8 bytes a cycle at best, however many chains
 * run; VPCLMULQDQ on 512-bit registers multiplies four 128-bit lanes at
 * once: folding 64 bytes costs two of them.  Measured on
 * 65,000 bytes with the sum (`ini-bench --checksum`): in one call 6,240-
 * 6,500 cycles the three-chain way, 3,560-3,640 this way; in 1,480-byte
 * calls, as over a datagram's fragments, 7,020-7,570 and 4,650-5,360.
 *
 * Folding (Gopal et al., Intel, "Fast CRC computation for generic
 * polynomials using PCLMULQDQ", 2009): the raw CRC of a message is the
 * remainder of the message's polynomial times x^32 modulo P.  A 16-byte
 * piece A followed by d bytes B has the remainder of
 * A * x^(8d) + B, and A * x^(8d) mod P is the carry-less product of A's
 * two halves with two constants: 16 bytes again, added (XOR) into B's
 * first 16.  So the message folds forward, 256 bytes a step in four
 * registers, down to 16 bytes whose CRC (by the instruction, from 0) is
 * the message's.  The CRC already begun is XORed into the first 4 bytes
 * (the register CRC is linear).  In the reflected bit order of CRC32C the
 * constants are x^(8d+32) and x^(8d-32) modulo P, bit-reflected and
 * shifted left by one: computed when the program loads, below, from P
 * alone. */

/* The multipliers that move a 16-byte lane d bytes forward, in the order
 * VPCLMULQDQ wants them: the low 8 bytes' (0x00) then the high 8's (0x11). */
struct fold_k {
    uint64_t lo, hi;
};

static struct fold_k fold_256[4], fold_64[4], fold_lanes[4], fold_16;

/* x^e modulo P in the reflected CRC register's order (bit 31 is x^0):
 * multiplying by x shifts right and reduces by P's low terms. */
static uint32_t xpow_mod(unsigned e)
{
    uint32_t r = 0x80000000u;
    while (e--)
        r = (r >> 1) ^ ((r & 1) ? 0x82F63B78u : 0);
    return r;
}

static struct fold_k fold_by(unsigned d)
{
    return (struct fold_k){(uint64_t)xpow_mod(8 * d + 32) << 1, (uint64_t)xpow_mod(8 * d - 32) << 1};
}

/* AVX-512 F, BW and VL, and VPCLMULQDQ */
static int cpu_has_clmul(void)
{
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("vpclmulqdq");
}

enum ini_checksum_path ini_checksum_use(enum ini_checksum_path limit)
{
    have_avx2 = limit >= INI_CSUM_AVX2 && __builtin_cpu_supports("avx2");
    have_clmul = limit >= INI_CSUM_CLMUL && have_avx2 && cpu_has_clmul();
    return have_clmul ? INI_CSUM_CLMUL : have_avx2 ? INI_CSUM_AVX2 : INI_CSUM_SCALAR;
}

/* 12 KB of tables and the folding constants, built when the program
 * loads: no first-call race. */
__attribute__((constructor))
static void crc_tables_init(void)
{
    crc_shift_init(&big, CRC_BIG);
    crc_shift_init(&mid, CRC_MID);
    crc_shift_init(&small, CRC_SMALL);
    for (int i = 0; i < 4; i++) {
        fold_256[i] = fold_by(256);
        fold_64[i] = fold_by(64);
    }
    /* The four lanes of one register onto its last: by 48, 32, 16 bytes;
     * the last lane's multipliers are unused (0). */
    fold_lanes[0] = fold_by(48);
    fold_lanes[1] = fold_by(32);
    fold_lanes[2] = fold_by(16);
    fold_16 = fold_by(16);
    __builtin_cpu_init();
    ini_checksum_use(INI_CSUM_CLMUL);
}

#define CLMUL_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,vpclmulqdq,pclmul,sse4.2")))

/* x folded forward onto y: (x.lo * k.lo) ^ (x.hi * k.hi) ^ y, per lane. */
CLMUL_TARGET static inline __m512i fold512(__m512i x, __m512i k, __m512i y)
{
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00), _mm512_clmulepi64_epi128(x, k, 0x11),
                                     y, 0x96);
}

CLMUL_TARGET static inline __m128i fold128(__m128i x, __m128i k, __m128i y)
{
    return _mm_ternarylogic_epi64(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11), y, 0x96);
}

/* The CRC32C of len (at least 256, under 2 MB) bytes at p continuing from
 * crc; with `summed`, their ones' complement sum added to *sum, and with
 * dst, their copy there.  The sum: each 16-bit word, its top bit flipped,
 * is a signed word 32,768 below its value, and VPMADDWD adds pairs of
 * those into 32-bit lanes (each lane moves by at most 2^16 per 64 bytes:
 * no overflow under 2 MB); the 32,768s are added back at the end.  Every
 * load is at an offset from p that is a multiple of 16 (even), so each
 * byte keeps its parity. */
CLMUL_TARGET __attribute__((always_inline))
static inline uint32_t crc_clmul_body(uint32_t crc, uint8_t *dst, const uint8_t *p, size_t len, uint64_t *sum,
                                      int summed)
{
    const __m512i flip = _mm512_set1_epi16((short)0x8000), ones = _mm512_set1_epi16(1);
    __m512i s = _mm512_setzero_si512();
#define CLMUL_SUM(v)                                                                   \
    do {                                                                               \
        if (summed)                                                                    \
            s = _mm512_add_epi32(s, _mm512_madd_epi16(_mm512_xor_si512(v, flip), ones)); \
    } while (0)
#define CLMUL_COPY(off, v)                                                             \
    do {                                                                               \
        if (dst)                                                                       \
            _mm512_storeu_si512(dst + (off), v);                                       \
    } while (0)
    __m512i x[4];
    for (int i = 0; i < 4; i++) {
        x[i] = _mm512_loadu_si512(p + 64 * i);
        CLMUL_COPY(64 * i, x[i]);
        CLMUL_SUM(x[i]);
    }
    x[0] = _mm512_xor_si512(x[0], _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)~crc)));
    const __m512i k256 = _mm512_loadu_si512(fold_256), k64 = _mm512_loadu_si512(fold_64);
    size_t done = 256;
    for (; len - done >= 256; done += 256)
        for (int i = 0; i < 4; i++) {
            __m512i y = _mm512_loadu_si512(p + done + 64 * i);
            CLMUL_COPY(done + 64 * i, y);
            CLMUL_SUM(y);
            x[i] = fold512(x[i], k256, y);
        }
    __m512i v4 = fold512(fold512(fold512(x[0], k64, x[1]), k64, x[2]), k64, x[3]);
    for (; len - done >= 64; done += 64) {
        __m512i y = _mm512_loadu_si512(p + done);
        CLMUL_COPY(done, y);
        CLMUL_SUM(y);
        v4 = fold512(v4, k64, y);
    }
    /* The four lanes onto the last one, then 16 bytes a step. */
    const __m512i kl = _mm512_loadu_si512(fold_lanes);
    __m512i t = _mm512_xor_si512(_mm512_clmulepi64_epi128(v4, kl, 0x00), _mm512_clmulepi64_epi128(v4, kl, 0x11));
    __m128i v = _mm_ternarylogic_epi64(_mm512_castsi512_si128(t), _mm512_extracti32x4_epi32(t, 1),
                                       _mm512_extracti32x4_epi32(t, 2), 0x96);
    v = _mm_xor_si128(v, _mm512_extracti32x4_epi32(v4, 3));
    const __m128i k16 = _mm_loadu_si128((const __m128i *)&fold_16);
    for (; len - done >= 16; done += 16) {
        __m128i y = _mm_loadu_si128((const __m128i *)(p + done));
        if (dst)
            _mm_storeu_si128((__m128i *)(dst + done), y);
        if (summed)
            s = _mm512_add_epi32(s, _mm512_zextsi128_si512(_mm_madd_epi16(_mm_xor_si128(y, _mm512_castsi512_si128(flip)),
                                                                              _mm512_castsi512_si128(ones))));
        v = fold128(v, k16, y);
    }
#undef CLMUL_SUM
#undef CLMUL_COPY
    size_t left = len - done;
    if (dst)
        memcpy(dst + done, p + done, left);
    if (summed) {
        /* 16 signed lanes, each at most 2^31 in size: widened and added,
         * the 32,768 of each of the done / 2 words added back; the rest
         * (under 16 bytes, at an even offset) as it is. */
        int64_t total = _mm512_reduce_add_epi64(_mm512_add_epi64(_mm512_cvtepi32_epi64(_mm512_castsi512_si256(s)),
                                                                 _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(s, 1))));
        uint64_t acc = ini_sum_add(*sum, (uint64_t)(total + (int64_t)(done / 2) * 32768));
        *sum = ini_sum_add(acc, ini_chksum(p + done, (int)left));
    }
    uint64_t c = __builtin_ia32_crc32di(0, (uint64_t)_mm_cvtsi128_si64(v));
    c = __builtin_ia32_crc32di(c, (uint64_t)_mm_extract_epi64(v, 1));
    return ~crc_raw((uint32_t)c, p + done, left);
}

#define CLMUL_MIN 256
#define CLMUL_MAX ((size_t)1 << 20)    /* a piece of the body: its sum cannot overflow */

/* len (at least CLMUL_MIN) in pieces of CLMUL_MAX (even: every byte keeps
 * its parity), the last between CLMUL_MIN and CLMUL_MAX + CLMUL_MIN
 * bytes: never under the body's minimum, never near its 2 MB bound. */
CLMUL_TARGET __attribute__((always_inline))
static inline uint32_t crc_clmul_pieces(uint32_t crc, uint8_t *dst, const uint8_t *p, size_t len, uint64_t *sum,
                                        int summed)
{
    for (;;) {
        size_t n = len > CLMUL_MAX + CLMUL_MIN ? CLMUL_MAX : len;
        crc = crc_clmul_body(crc, dst, p, n, sum, summed);
        if (n == len)
            return crc;
        p += n;
        if (dst)
            dst += n;
        len -= n;
    }
}

CLMUL_TARGET static uint32_t crc_clmul(uint32_t crc, const uint8_t *p, size_t len)
{
    return crc_clmul_pieces(crc, NULL, p, len, NULL, 0);
}

CLMUL_TARGET static uint32_t crc_sum_clmul(uint32_t crc, const uint8_t *p, size_t len, uint64_t *sum)
{
    return crc_clmul_pieces(crc, NULL, p, len, sum, 1);
}

CLMUL_TARGET static uint32_t crc_sum_copy_clmul(uint32_t crc, uint8_t *dst, const uint8_t *p, size_t len,
                                                uint64_t *sum)
{
    return crc_clmul_pieces(crc, dst, p, len, sum, 1);
}

uint32_t ini_crc32c(uint32_t crc, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    if (have_clmul && len >= CLMUL_MIN)
        return crc_clmul(crc, p, len);
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
    return ini_sum_fold(sum);
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
                a = __builtin_ia32_crc32di(a, ini_ld64(p + i + k));
                b = __builtin_ia32_crc32di(b, ini_ld64(p + block + i + k));
                d = __builtin_ia32_crc32di(d, ini_ld64(p + 2 * block + i + k));
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
        s = ini_sum_add(s, lane[i]);
    /* The rest (under 384 bytes) starts at an offset that is a multiple
     * of 32 (even): its folded sum adds as it is. */
    if (dst)
        memcpy(dst, p, left);
    *sum = ini_sum_add(s, ini_chksum(p, (int)left));
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
    if (have_clmul && len >= CLMUL_MIN)
        return crc_sum_clmul(crc, buf, len, sum);
    if (have_avx2)
        return crc_sum_avx2(crc, buf, len, sum);
    *sum = ini_sum_add(*sum, ini_chksum(buf, (int)len));
    return ini_crc32c(crc, buf, len);
}

uint32_t ini_crc32c_sum_copy(uint32_t crc, void *dst, const void *src, size_t len, uint64_t *sum)
{
    if (have_clmul && len >= CLMUL_MIN)
        return crc_sum_copy_clmul(crc, dst, src, len, sum);
    if (have_avx2)
        return crc_sum_copy_avx2(crc, dst, src, len, sum);
    memcpy(dst, src, len);
    return ini_crc32c_sum(crc, src, len, sum);
}
