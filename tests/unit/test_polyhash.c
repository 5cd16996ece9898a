/*
 * test_polyhash.c - the MAC's inner hash (stack/polyhash.c) against a
 * plain bitwise GF(2^128) reference written from the definition (field
 * x^128 + x^127 + x^126 + x^121 + 1, dot(a, b) = a * b * x^-128):
 * the three paths (VPCLMULQDQ, PCLMULQDQ, portable) on random inputs of every length
 * 0..2,000 split at random points into any number of pieces (the
 * receiver hashes a pbuf chain piece by piece), and known answers: RFC
 * 8452's POLYVAL example and vectors derived from the reference.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stack/polyhash.h"

#define MAXLEN 2000

/* ---- the reference: one bit at a time ---- */

typedef struct ini_gf128 gf;

static gf ref_mulx(gf v)   /* v * x mod p */
{
    uint64_t carry = v.hi >> 63;
    v.hi = v.hi << 1 | v.lo >> 63;
    v.lo <<= 1;
    if (carry) {
        v.lo ^= 1;
        v.hi ^= 1ULL << 63 | 1ULL << 62 | 1ULL << 57;
    }
    return v;
}

static gf ref_divx(gf v)   /* v * x^-1 mod p: (v + p) / x when v is odd */
{
    uint64_t odd = v.lo & 1;
    v.lo = v.lo >> 1 | v.hi << 63;
    v.hi >>= 1;
    if (odd)
        v.hi ^= 1ULL << 63 | 1ULL << 62 | 1ULL << 61 | 1ULL << 56;
    return v;
}

static gf ref_dot(gf a, gf b)
{
    gf r = { 0, 0 };
    for (int i = 127; i >= 0; i--) {
        r = ref_mulx(r);
        uint64_t bit = i >= 64 ? b.hi >> (i - 64) & 1 : b.lo >> i & 1;
        if (bit) {
            r.lo ^= a.lo;
            r.hi ^= a.hi;
        }
    }
    for (int i = 0; i < 128; i++)
        r = ref_divx(r);
    return r;
}

static gf ref_load(const uint8_t *p)
{
    gf v = { 0, 0 };
    for (int i = 0; i < 8; i++) {
        v.lo |= (uint64_t)p[i] << 8 * i;
        v.hi |= (uint64_t)p[8 + i] << 8 * i;
    }
    return v;
}

static void ref_hash(const uint8_t h[16], const uint8_t *m, size_t len, uint8_t out[16])
{
    gf key = ref_load(h), acc = { 0, 0 };
    for (size_t off = 0; off < len; off += 16) {
        uint8_t blk[16] = { 0 };
        memcpy(blk, m + off, len - off < 16 ? len - off : 16);
        gf x = ref_load(blk);
        x.lo ^= acc.lo;
        x.hi ^= acc.hi;
        acc = ref_dot(x, key);
    }
    for (int i = 0; i < 8; i++) {
        out[i] = (uint8_t)(acc.lo >> 8 * i);
        out[8 + i] = (uint8_t)(acc.hi >> 8 * i);
    }
}

/* ---- helpers ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint8_t rnd8(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint8_t)(rng >> 24);
}

static size_t rnd_below(size_t n)
{
    size_t v = (size_t)rnd8() << 8 | rnd8();
    return n ? v % n : 0;
}

static void unhex(const char *s, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        assert_int_equal(sscanf(s + 2 * i, "%2x", &v), 1);
        out[i] = (uint8_t)v;
    }
}

/* The hash of m in pieces: the cuts (sorted, within 0..len) end them;
 * the last piece by ini_polyhash_last when `last`, else update + final. */
static void hash_pieces(const struct ini_polyhash_key *k, const uint8_t *m, size_t len,
                        const size_t *cuts, int ncuts, uint8_t out[16], int last)
{
    struct ini_polyhash st;
    size_t at = 0;
    ini_polyhash_init(&st, k);
    for (int i = 0; i < ncuts; i++) {
        ini_polyhash_update(&st, m + at, cuts[i] - at);
        at = cuts[i];
    }
    if (last) {
        ini_polyhash_last(&st, m + at, len - at, out);
        return;
    }
    ini_polyhash_update(&st, m + at, len - at);
    ini_polyhash_final(&st, out);
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

#define NPATHS 3

/* The key on each path up to the fastest the CPU has (a path the CPU
 * lacks falls back to a slower one, which is then checked twice). */
static void keys_of(const uint8_t h[16], struct ini_polyhash_key keys[NPATHS])
{
    for (int p = 0; p < NPATHS; p++) {
        ini_polyhash_key(&keys[p], h, (enum ini_polyhash_path)p);
        assert_true((int)keys[p].path <= p);
    }
}

/* ---- the tests ---- */

static void test_path_taken(void **state)
{
    (void)state;
    uint8_t h[16] = { 1 };
    struct ini_polyhash_key keys[NPATHS];
    keys_of(h, keys);
    int clmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
    int vclmul = clmul && __builtin_cpu_supports("vpclmulqdq") && __builtin_cpu_supports("avx2");
    assert_int_equal(keys[INI_POLYHASH_CLMUL].path, clmul ? INI_POLYHASH_CLMUL : INI_POLYHASH_PORTABLE);
    assert_int_equal(keys[INI_POLYHASH_VCLMUL].path,
                     vclmul ? INI_POLYHASH_VCLMUL : keys[INI_POLYHASH_CLMUL].path);
    if (!vclmul)
        print_message("no %s here: that path is not tested\n", clmul ? "VPCLMULQDQ" : "PCLMULQDQ");
}

static void test_dot_matches_reference(void **state)
{
    (void)state;
    for (int i = 0; i < 2000; i++) {
        uint8_t a[16], b[16];
        for (int j = 0; j < 16; j++) {
            a[j] = rnd8();
            b[j] = rnd8();
        }
        gf want = ref_dot(ref_load(a), ref_load(b)), got = ini_gf128_dot(ref_load(a), ref_load(b));
        assert_true(want.lo == got.lo && want.hi == got.hi);
    }
}

/* RFC 8452, appendix A: POLYVAL of two blocks. */
static void test_rfc8452_example(void **state)
{
    (void)state;
    uint8_t h[16], m[32], want[16], got[16];
    unhex("25629347589242761d31f826ba4b757b", h, 16);
    unhex("4f4f95668c83dfb6401762bb2d01a262d1a24ddd2721d006bbe45f20d3c9f362", m, 32);
    unhex("f7a3b47b846119fae5b7866cf5e5b77e", want, 16);
    ref_hash(h, m, 32, got);
    assert_memory_equal(got, want, 16);
    struct ini_polyhash_key keys[NPATHS];
    keys_of(h, keys);
    for (int k = 0; k < NPATHS; k++) {
        hash_pieces(&keys[k], m, 32, NULL, 0, got, 0);
        assert_memory_equal(got, want, 16);
    }
}

/* A random key (on every path) and message of len bytes, and the
 * reference's hash of it. */
struct random_case {
    uint8_t m[MAXLEN], want[16];
    struct ini_polyhash_key keys[NPATHS];
};

static void random_case(size_t len, struct random_case *c)
{
    uint8_t h[16];
    for (int j = 0; j < 16; j++)
        h[j] = rnd8();
    for (size_t j = 0; j < len; j++)
        c->m[j] = rnd8();
    keys_of(h, c->keys);
    ref_hash(h, c->m, len, c->want);
}

/* One length: a random key and message, the whole, two pieces (the
 * sender's CRC + message) and up to eight pieces (a pbuf chain), on every
 * path and both ways of ending, against the reference. */
static void check_length(size_t len)
{
    struct random_case c;
    random_case(len, &c);
    const uint8_t *m = c.m, *want = c.want;
    const struct ini_polyhash_key *keys = c.keys;
    uint8_t got[16];
    for (int k = 0; k < NPATHS * 2; k++) {      /* each path, ending with update + final, then last */
        size_t cuts[8];
        hash_pieces(&keys[k / 2], m, len, NULL, 0, got, k & 1);
        assert_memory_equal(got, want, 16);
        cuts[0] = rnd_below(len + 1);
        hash_pieces(&keys[k / 2], m, len, cuts, 1, got, k & 1);
        assert_memory_equal(got, want, 16);
        int n = 1 + (int)rnd_below(8);
        for (int i = 0; i < n; i++)
            cuts[i] = rnd_below(len + 1);
        qsort(cuts, (size_t)n, sizeof(cuts[0]), cmp_size);
        hash_pieces(&keys[k / 2], m, len, cuts, n, got, k & 1);
        assert_memory_equal(got, want, 16);
    }
}

/* ini_polyhash_copy_last: the hash of the whole and a copy of what it
 * read, after a first piece of `cut` bytes (a block begun, or not). */
static void check_copy(size_t len)
{
    struct random_case c;
    random_case(len, &c);
    const uint8_t *m = c.m, *want = c.want;
    const struct ini_polyhash_key *keys = c.keys;
    uint8_t copy[MAXLEN + 1], got[16];
    for (int k = 0; k < NPATHS; k++) {
        size_t cut = k ? rnd_below(len < 20 ? len + 1 : 20) : 0;
        struct ini_polyhash st;
        memset(copy, 0xa5, sizeof(copy));
        ini_polyhash_init(&st, &keys[k]);
        ini_polyhash_update(&st, m, cut);
        ini_polyhash_copy_last(&st, copy, m + cut, len - cut, got);
        assert_memory_equal(got, want, 16);
        if (len > cut)
            assert_memory_equal(copy, m + cut, len - cut);
        assert_int_equal(copy[len - cut], 0xa5);        /* not a byte more */
    }
}

static void test_every_length(void **state)
{
    (void)state;
    for (size_t len = 0; len <= MAXLEN; len++) {
        check_length(len);
        check_copy(len);
    }
}

/* Every split point of one 300-byte message (18 full blocks and a part:
 * the eight-block steps, the single blocks and the padding). */
static void test_every_split(void **state)
{
    (void)state;
    uint8_t h[16], m[300], want[16], got[16];
    for (int j = 0; j < 16; j++)
        h[j] = rnd8();
    for (size_t j = 0; j < sizeof(m); j++)
        m[j] = rnd8();
    struct ini_polyhash_key keys[NPATHS];
    keys_of(h, keys);
    ref_hash(h, m, sizeof(m), want);
    for (int k = 0; k < NPATHS; k++)
        for (size_t cut = 0; cut <= sizeof(m); cut++) {
            hash_pieces(&keys[k], m, sizeof(m), &cut, 1, got, 0);
            assert_memory_equal(got, want, 16);
        }
}

/* Known answers, derived from the reference above: key 01 02 .. 10,
 * message byte i = 7i + 3 (mod 256).  A change of the field, the byte
 * order or the padding changes them. */
static const struct {
    size_t len;
    const char *sum;
} kat[] = {
    { 0, "00000000000000000000000000000000" },
    { 1, "8ece1e579fdf3f64acec3c75bdfd7150" },
    { 15, "01c30166c28ce34ec6d9054ca7713ab8" },
    { 16, "d977b1bbab8982417d0ed6f2ad1720ff" },
    { 17, "6c200e958e8bb0251f15a6efd602f64c" },
    { 128, "4d0e373584d96f2e0b8343306981a3d9" },
    { 129, "b998fc2227e73f44d2a5dc7ffdec71fd" },
    { 1442, "f0b5b8fe9870b5deeebf3b734cc297ba" },
    { 2000, "d22ad32b482bcb6d1f8e80c0915006c5" },
};

static void test_known_answers(void **state)
{
    (void)state;
    uint8_t h[16], m[MAXLEN], want[16], got[16];
    for (int i = 0; i < 16; i++)
        h[i] = (uint8_t)(i + 1);
    for (int i = 0; i < MAXLEN; i++)
        m[i] = (uint8_t)(i * 7 + 3);
    struct ini_polyhash_key keys[NPATHS];
    keys_of(h, keys);
    for (size_t i = 0; i < sizeof(kat) / sizeof(kat[0]); i++) {
        unhex(kat[i].sum, want, 16);
        ref_hash(h, m, kat[i].len, got);
        assert_memory_equal(got, want, 16);
        for (int k = 0; k < NPATHS; k++) {
            hash_pieces(&keys[k], m, kat[i].len, NULL, 0, got, 0);
            assert_memory_equal(got, want, 16);
        }
    }
    /* The empty message sums to zero (its length is in the PRF's input). */
    assert_string_equal(kat[0].sum, "00000000000000000000000000000000");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_taken),
        cmocka_unit_test(test_dot_matches_reference),
        cmocka_unit_test(test_rfc8452_example),
        cmocka_unit_test(test_every_length),
        cmocka_unit_test(test_every_split),
        cmocka_unit_test(test_known_answers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
