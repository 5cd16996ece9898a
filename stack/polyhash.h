/*
 * polyhash.h - the transport MAC's inner universal hash (stack/swp_mac.c):
 * a polynomial hash over GF(2^128), POLYVAL's field and convention (RFC
 * 8452, section 3), by carry-less multiplication.
 *
 * The field is GF(2)[x] / (x^128 + x^127 + x^126 + x^121 + 1); a 16-byte
 * block is an element with byte 0's bit 0 the coefficient of x^0 (little
 * endian throughout).  dot(a, b) = a * b * x^-128.  Under key H, the sum
 * of a message X_1 .. X_n (16-byte blocks, the last one zero-padded) is
 * S_n, S_0 = 0, S_i = dot(S_{i-1} + X_i, H): RFC 8452's POLYVAL.
 *
 * Why it is safe here (docs/security.md, "Strangers refused"): with
 * H' = H * x^-128 (uniform when H is), S_n = sum_i X_i * H'^(n-i+1), a
 * polynomial in H' of degree at most n with no constant term.  Two
 * different messages of the same length pad to different block sequences
 * of the same n, so their sums are equal only at a root of their nonzero
 * difference: probability at most n / 2^128 over the key (a 64 KB
 * message, 4,063 blocks: below 2^-116).  The zero padding makes "ab" and
 * "ab\0" collide, and messages of different lengths are not covered by
 * that bound - which is why the sum is never used alone: the tag is a PRF
 * (SipHash-2-4-128) of the length, the header and the sum, and two inputs
 * of different lengths differ in the PRF's input.  The sum is never sent,
 * so one H serves the whole run (hash-then-PRF).
 *
 * Speed (checked at run time, fastest first): with VPCLMULQDQ on 256
 * bits (AVX2), sixteen blocks against precomputed H^16..H^1, two blocks a
 * multiply, one reduction per sixteen; with PCLMULQDQ (every x86-64
 * since 2010), eight blocks per reduction; otherwise a portable
 * constant-time multiply giving the same bits (the hosts of one run may
 * differ in CPU): 59 TSC cycles a byte against 0.17 (VPCLMULQDQ) and
 * 0.40 (PCLMULQDQ) on the machine of docs/results/mac-fast/.
 */
#ifndef INI_POLYHASH_H
#define INI_POLYHASH_H

#include <stddef.h>
#include <stdint.h>

#define INI_POLYHASH_LEN 16
#define INI_POLYHASH_POWERS 16 /* H^1..H^16: blocks per reduction on the fastest path */

/* A field element: lo holds x^0..x^63, hi x^64..x^127 (bytes 0-7, 8-15). */
struct ini_gf128 {
    uint64_t lo, hi;
};

/* The paths, fastest last; ini_polyhash_key() takes the fastest the CPU
 * has up to the limit it is given (tests compare them). */
enum ini_polyhash_path {
    INI_POLYHASH_PORTABLE,
    INI_POLYHASH_CLMUL,      /* PCLMULQDQ, one block per multiply */
    INI_POLYHASH_VCLMUL,     /* VPCLMULQDQ on 256 bits (AVX2): two */
};

struct ini_polyhash_key {
    struct ini_gf128 pow[INI_POLYHASH_POWERS];   /* dot-powers: pow[k] = H^(k+1) */
    enum ini_polyhash_path path;
};

/* The hash's state: any split of a message into updates gives the sum of
 * the whole (a pbuf chain is hashed piece by piece). */
struct ini_polyhash {
    const struct ini_polyhash_key *key;
    struct ini_gf128 acc;
    uint8_t buf[INI_POLYHASH_LEN];            /* a block begun, not complete */
    unsigned nbuf;
};

/* The key's powers from H (16 bytes), on the fastest path up to limit. */
void ini_polyhash_key(struct ini_polyhash_key *k, const uint8_t h[INI_POLYHASH_LEN],
                      enum ini_polyhash_path limit);
void ini_polyhash_init(struct ini_polyhash *st, const struct ini_polyhash_key *k);
void ini_polyhash_update(struct ini_polyhash *st, const void *data, size_t len);
void ini_polyhash_final(struct ini_polyhash *st, uint8_t out[INI_POLYHASH_LEN]);
/* ini_polyhash_update(st, data, len) then ini_polyhash_final(st, out), the
 * same bits, with the last blocks and the padded partial one in a single
 * step on the fastest path (a 1,466-byte segment: one reduction instead
 * of three). */
void ini_polyhash_last(struct ini_polyhash *st, const void *data, size_t len, uint8_t out[INI_POLYHASH_LEN]);
/* ini_polyhash_last over src, copying its len bytes to dst (not
 * overlapping) in the same pass on the fastest path: the hash's loads
 * feed the copy's stores (the sender's one copy into its frame). */
void ini_polyhash_copy_last(struct ini_polyhash *st, void *dst, const void *src, size_t len,
                            uint8_t out[INI_POLYHASH_LEN]);

/* dot(a, b) on the portable path: the tests' bridge to their reference. */
struct ini_gf128 ini_gf128_dot(struct ini_gf128 a, struct ini_gf128 b);

#endif
