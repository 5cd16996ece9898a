/*
 * polyhash.c - POLYVAL-style sum over GF(2^128) (polyhash.h has the
 * definition and the collision bound).
 *
 * Both paths compute dot(a, b) = a * b * x^-128 the same way: the 256-bit
 * carry-less product T1 * x^128 + T0, then T0 * x^-128 in two Montgomery
 * steps of 64 bits, then + T1.  One step, for V = v1 * x^64 + v0: adding
 * v0 * p clears the low 64 bits (p's terms besides 1 are all >= x^121),
 * so V * x^-64 = v0 * x^64 + v1 + v0 * (x^63 + x^62 + x^57): a swap of
 * the halves and one 64x64 multiply by the constant 0xc2 << 56.  Sums of
 * products are reduced once (the reduction is linear), which is what lets
 * the fast paths take 8 or 16 blocks against H^8..H^1 or H^16..H^1 and
 * reduce once.
 */
#include "polyhash.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define POLYHASH_X86 1
#endif

#define RED_C 0xc200000000000000ULL   /* x^63 + x^62 + x^57 */
#define CLMUL_AGG 8                   /* blocks per reduction, PCLMULQDQ */
#define VCLMUL_AGG 16                 /* VPCLMULQDQ: one block's chain of
                                       * multiply and reduce (~20 cycles)
                                       * spread over 16 blocks, not 8 */

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

static struct ini_gf128 load_block(const uint8_t *p)
{
    return (struct ini_gf128){ le64(p), le64(p + 8) };
}

/* ---- the portable path ---- */

/* 64 x 64 carry-less multiply; no branch or index depends on the operands
 * (one is the key). */
static struct ini_gf128 clmul64(uint64_t a, uint64_t b)
{
    struct ini_gf128 r = { a & -(b & 1), 0 };
    for (int i = 1; i < 64; i++) {
        uint64_t m = -((b >> i) & 1);
        r.lo ^= (a << i) & m;
        r.hi ^= (a >> (64 - i)) & m;
    }
    return r;
}

struct ini_gf128 ini_gf128_dot(struct ini_gf128 a, struct ini_gf128 b)
{
    struct ini_gf128 ll = clmul64(a.lo, b.lo), hh = clmul64(a.hi, b.hi);
    struct ini_gf128 m1 = clmul64(a.lo, b.hi), m2 = clmul64(a.hi, b.lo);
    struct ini_gf128 v = { ll.lo, ll.hi ^ m1.lo ^ m2.lo };
    struct ini_gf128 t1 = { hh.lo ^ m1.hi ^ m2.hi, hh.hi };
    for (int step = 0; step < 2; step++) {
        struct ini_gf128 c = clmul64(v.lo, RED_C);
        v = (struct ini_gf128){ v.hi ^ c.lo, v.lo ^ c.hi };
    }
    return (struct ini_gf128){ v.lo ^ t1.lo, v.hi ^ t1.hi };
}

static struct ini_gf128 blocks_portable(struct ini_gf128 acc, const struct ini_polyhash_key *k,
                                        const uint8_t *p, size_t n)
{
    for (; n; n--, p += INI_POLYHASH_LEN) {
        struct ini_gf128 x = load_block(p);
        x.lo ^= acc.lo;
        x.hi ^= acc.hi;
        acc = ini_gf128_dot(x, k->pow[0]);
    }
    return acc;
}

/* ---- the PCLMULQDQ path ---- */
#ifdef POLYHASH_X86
#define CLMUL_FN __attribute__((target("pclmul,sse4.1")))

/* lo, mid, hi += a * b, unreduced (mid: the x^64 terms). */
CLMUL_FN static inline void mul_acc(__m128i a, __m128i b, __m128i *lo, __m128i *mid, __m128i *hi)
{
    *lo = _mm_xor_si128(*lo, _mm_clmulepi64_si128(a, b, 0x00));
    *hi = _mm_xor_si128(*hi, _mm_clmulepi64_si128(a, b, 0x11));
    *mid = _mm_xor_si128(*mid, _mm_xor_si128(_mm_clmulepi64_si128(a, b, 0x01),
                                             _mm_clmulepi64_si128(a, b, 0x10)));
}

CLMUL_FN static inline __m128i reduce(__m128i lo, __m128i mid, __m128i hi)
{
    const __m128i c = _mm_set_epi64x((long long)RED_C, 0);
    __m128i t0 = _mm_xor_si128(lo, _mm_slli_si128(mid, 8));
    __m128i t1 = _mm_xor_si128(hi, _mm_srli_si128(mid, 8));
    for (int step = 0; step < 2; step++)
        t0 = _mm_xor_si128(_mm_shuffle_epi32(t0, 0x4e), _mm_clmulepi64_si128(t0, c, 0x10));
    return _mm_xor_si128(t0, t1);
}

/* The powers as the key holds them (lo at the lower address, so that a
 * little-endian load of the struct is the element). */
CLMUL_FN static inline __m128i pow_of(const struct ini_polyhash_key *k, int i)
{
    return _mm_loadu_si128((const __m128i *)(const void *)&k->pow[i]);
}

CLMUL_FN static struct ini_gf128 blocks_clmul(struct ini_gf128 a, const struct ini_polyhash_key *k,
                                              const uint8_t *p, size_t n)
{
    __m128i acc = _mm_set_epi64x((long long)a.hi, (long long)a.lo);
    /* Steps of 8 blocks, the last of fewer (a tail of m blocks against
     * H^m..H^1): one reduction per step, so a segment's tail of up to 15
     * blocks after the wide path costs two, not up to eight. */
    while (n) {
        int m = n < CLMUL_AGG ? (int)n : CLMUL_AGG;
        __m128i lo = _mm_setzero_si128(), mid = lo, hi = lo;
        __m128i x = _mm_xor_si128(acc, _mm_loadu_si128((const __m128i *)(const void *)p));
        mul_acc(x, pow_of(k, m - 1), &lo, &mid, &hi);
        for (int i = 1; i < m; i++) {
            x = _mm_loadu_si128((const __m128i *)(const void *)(p + i * INI_POLYHASH_LEN));
            mul_acc(x, pow_of(k, m - 1 - i), &lo, &mid, &hi);
        }
        acc = reduce(lo, mid, hi);
        n -= (size_t)m;
        p += (size_t)m * INI_POLYHASH_LEN;
    }
    return (struct ini_gf128){ (uint64_t)_mm_cvtsi128_si64(acc),
                               (uint64_t)_mm_extract_epi64(acc, 1) };
}

/* ---- the VPCLMULQDQ path: two blocks per instruction (AVX2 width) ----
 * The same step over sixteen blocks, its products taken in pairs: a
 * 256-bit register holds blocks i and i+1 against H^(16-i), H^(15-i);
 * the two lanes' sums are added before the one reduction.  Karatsuba:
 * the middle term of a * b is (a.lo + a.hi)(b.lo + b.hi) + lo + hi, and
 * since every term is summed before the reduction, lo and hi are added
 * to the middle once per step: three multiplies a block, not four. */
#define VCLMUL_FN __attribute__((target("vpclmulqdq,avx2,pclmul,sse4.1")))

/* Each 128-bit lane's two halves added, in both halves. */
VCLMUL_FN static inline __m256i halves(__m256i v)
{
    return _mm256_xor_si256(v, _mm256_shuffle_epi32(v, 0x4e));
}

VCLMUL_FN static inline void mul_acc2(__m256i a, __m256i b, __m256i bk, __m256i *lo, __m256i *mid,
                                      __m256i *hi)
{
    *lo = _mm256_xor_si256(*lo, _mm256_clmulepi64_epi128(a, b, 0x00));
    *hi = _mm256_xor_si256(*hi, _mm256_clmulepi64_epi128(a, b, 0x11));
    *mid = _mm256_xor_si256(*mid, _mm256_clmulepi64_epi128(halves(a), bk, 0x00));
}

VCLMUL_FN static inline __m128i fold_lanes(__m256i v)
{
    return _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
}

/* What the fastest path reads: n blocks at p, then one more at `last`
 * unless NULL (a padded partial block); the n blocks are also copied to
 * dst unless NULL (the sender's copy into its frame, in the same pass). */
struct run {
    const uint8_t *p;
    uint8_t *dst;
    size_t n;
    const uint8_t *last;
};

/* Block i of the run (stored to dst too, if one of the n). */
VCLMUL_FN static inline __m128i block_at(const struct run *r, size_t i)
{
    if (i >= r->n)
        return _mm_loadu_si128((const __m128i *)(const void *)r->last);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(r->p + i * INI_POLYHASH_LEN));
    if (r->dst)
        _mm_storeu_si128((__m128i *)(void *)(r->dst + i * INI_POLYHASH_LEN), b);
    return b;
}

/* One step over the run's m = n (+ 1 with `last`) blocks, 1 <= m <= 16,
 * against H^m..H^1, acc added to the first: a segment's tail (and its
 * padded last block) in one reduction, where one step per block, or per
 * 8, cost a reduction's latency each. */
VCLMUL_FN static __m128i tail_vclmul(__m128i acc, const struct ini_polyhash_key *k, const struct run *r)
{
    size_t m = r->n + (r->last != NULL);
    __m256i lo = _mm256_setzero_si256(), mid = lo, hi = lo;
    for (size_t i = 0; i < m; i += 2) {
        int pair = i + 1 < m;
        __m128i b0 = block_at(r, i), b1 = pair ? block_at(r, i + 1) : _mm_setzero_si128();
        if (i == 0)
            b0 = _mm_xor_si128(b0, acc);
        __m256i w = _mm256_set_m128i(pair ? pow_of(k, (int)(m - 2 - i)) : _mm_setzero_si128(),
                                     pow_of(k, (int)(m - 1 - i)));
        mul_acc2(_mm256_set_m128i(b1, b0), w, halves(w), &lo, &mid, &hi);
    }
    __m128i l = fold_lanes(lo), h = fold_lanes(hi);
    return reduce(l, _mm_xor_si128(fold_lanes(mid), _mm_xor_si128(l, h)), h);
}

/* Sixteen blocks at p (and to dst) against H^16..H^1, acc added to the
 * first. */
VCLMUL_FN static inline __m128i step_vclmul(__m128i acc, const __m256i *pw, const __m256i *pk, const uint8_t *p,
                                            uint8_t *dst)
{
    __m256i lo = _mm256_setzero_si256(), mid = lo, hi = lo;
    for (int j = 0; j < VCLMUL_AGG / 2; j++) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(p + 2 * j * INI_POLYHASH_LEN));
        if (dst)
            _mm256_storeu_si256((__m256i *)(void *)(dst + 2 * j * INI_POLYHASH_LEN), x);
        if (j == 0)
            x = _mm256_xor_si256(x, _mm256_zextsi128_si256(acc));
        mul_acc2(x, pw[j], pk[j], &lo, &mid, &hi);
    }
    __m128i l = fold_lanes(lo), h = fold_lanes(hi);
    return reduce(l, _mm_xor_si128(fold_lanes(mid), _mm_xor_si128(l, h)), h);
}

VCLMUL_FN static struct ini_gf128 blocks_vclmul(struct ini_gf128 a, const struct ini_polyhash_key *k, struct run r)
{
    __m128i acc = _mm_set_epi64x((long long)a.hi, (long long)a.lo);
    if (r.n >= VCLMUL_AGG) {
        __m256i pw[VCLMUL_AGG / 2], pk[VCLMUL_AGG / 2];
        for (int j = 0; j < VCLMUL_AGG / 2; j++) {   /* H^(16-2j) low lane, H^(15-2j) high */
            pw[j] = _mm256_set_m128i(pow_of(k, VCLMUL_AGG - 2 - 2 * j), pow_of(k, VCLMUL_AGG - 1 - 2 * j));
            pk[j] = halves(pw[j]);
        }
        for (; r.n >= VCLMUL_AGG; r.n -= VCLMUL_AGG) {
            acc = step_vclmul(acc, pw, pk, r.p, r.dst);
            r.p += VCLMUL_AGG * INI_POLYHASH_LEN;
            if (r.dst)
                r.dst += VCLMUL_AGG * INI_POLYHASH_LEN;
        }
    }
    if (r.n || r.last)
        acc = tail_vclmul(acc, k, &r);
    return (struct ini_gf128){ (uint64_t)_mm_cvtsi128_si64(acc), (uint64_t)_mm_extract_epi64(acc, 1) };
}

static enum ini_polyhash_path fastest(void)
{
    if (!__builtin_cpu_supports("pclmul") || !__builtin_cpu_supports("sse4.1"))
        return INI_POLYHASH_PORTABLE;
    if (__builtin_cpu_supports("vpclmulqdq") && __builtin_cpu_supports("avx2"))
        return INI_POLYHASH_VCLMUL;
    return INI_POLYHASH_CLMUL;
}
#endif

/* ---- the hash ---- */

void ini_polyhash_key(struct ini_polyhash_key *k, const uint8_t h[INI_POLYHASH_LEN],
                      enum ini_polyhash_path limit)
{
    k->pow[0] = load_block(h);
    for (int i = 1; i < INI_POLYHASH_POWERS; i++)
        k->pow[i] = ini_gf128_dot(k->pow[i - 1], k->pow[0]);
    k->path = INI_POLYHASH_PORTABLE;
#ifdef POLYHASH_X86
    enum ini_polyhash_path best = fastest();
    k->path = limit < best ? limit : best;
#else
    (void)limit;
#endif
}

void ini_polyhash_init(struct ini_polyhash *st, const struct ini_polyhash_key *k)
{
    st->key = k;
    st->acc = (struct ini_gf128){ 0, 0 };
    st->nbuf = 0;
}

static void absorb(struct ini_polyhash *st, const uint8_t *p, size_t n)
{
#ifdef POLYHASH_X86
    /* One block: a plain multiply; more, one wide step per 16 and one for
     * the rest. */
    if (st->key->path == INI_POLYHASH_VCLMUL && n > 1) {
        st->acc = blocks_vclmul(st->acc, st->key, (struct run){ p, NULL, n, NULL });
        return;
    }
    if (st->key->path >= INI_POLYHASH_CLMUL) {
        st->acc = blocks_clmul(st->acc, st->key, p, n);
        return;
    }
#endif
    st->acc = blocks_portable(st->acc, st->key, p, n);
}

void ini_polyhash_update(struct ini_polyhash *st, const void *data, size_t len)
{
    const uint8_t *p = data;
    if (len == 0)
        return;
    if (st->nbuf) {
        size_t take = INI_POLYHASH_LEN - st->nbuf;
        if (take > len)
            take = len;
        memcpy(st->buf + st->nbuf, p, take);
        st->nbuf += (unsigned)take;
        p += take;
        len -= take;
        if (st->nbuf < INI_POLYHASH_LEN)
            return;
        absorb(st, st->buf, 1);
        st->nbuf = 0;
    }
    if (len >= INI_POLYHASH_LEN)
        absorb(st, p, len / INI_POLYHASH_LEN);
    p += len - len % INI_POLYHASH_LEN;
    len %= INI_POLYHASH_LEN;
    memcpy(st->buf, p, len);
    st->nbuf = (unsigned)len;
}

void ini_polyhash_last(struct ini_polyhash *st, const void *data, size_t len, uint8_t out[INI_POLYHASH_LEN])
{
    ini_polyhash_copy_last(st, NULL, data, len, out);
}

void ini_polyhash_copy_last(struct ini_polyhash *st, void *dst, const void *src, size_t len,
                            uint8_t out[INI_POLYHASH_LEN])
{
    const uint8_t *p = src;
    uint8_t *d = dst;
    if (st->nbuf) {                     /* a block begun: completed first, the usual way */
        size_t take = INI_POLYHASH_LEN - st->nbuf;
        take = take < len ? take : len;
        if (d)
            memcpy(d, p, take);
        ini_polyhash_update(st, p, take);
        p += take;
        d = d ? d + take : NULL;
        len -= take;
    }
#ifdef POLYHASH_X86
    if (!st->nbuf && st->key->path == INI_POLYHASH_VCLMUL && len > INI_POLYHASH_LEN) {
        size_t full = len / INI_POLYHASH_LEN, rem = len % INI_POLYHASH_LEN;
        uint8_t pad[INI_POLYHASH_LEN] = { 0 };
        memcpy(pad, p + full * INI_POLYHASH_LEN, rem);
        st->acc = blocks_vclmul(st->acc, st->key, (struct run){ p, d, full, rem ? pad : NULL });
        if (d)
            memcpy(d + full * INI_POLYHASH_LEN, pad, rem);
        len = 0;
    }
#endif
    if (d && len)
        memcpy(d, p, len);
    ini_polyhash_update(st, p, len);
    ini_polyhash_final(st, out);
}

void ini_polyhash_final(struct ini_polyhash *st, uint8_t out[INI_POLYHASH_LEN])
{
    if (st->nbuf) {
        memset(st->buf + st->nbuf, 0, INI_POLYHASH_LEN - st->nbuf);
        absorb(st, st->buf, 1);
    }
    put_le64(out, st->acc.lo);
    put_le64(out + 8, st->acc.hi);
    memset(st, 0, sizeof(*st));
}
