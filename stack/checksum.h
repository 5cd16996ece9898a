/*
 * checksum.h - the Internet checksum (RFC 1071) and CRC32C, fast.
 *
 * ini_chksum() is lwIP's LWIP_CHKSUM (stack/lwip/lwipopts.h): the folded
 * ones' complement sum of len bytes at any alignment, not inverted, in
 * memory byte order - the same value as lwIP's own lwip_standard_chksum,
 * which adds one byte at a time.  This one adds 64-bit words with an
 * end-around carry (add/adc chains, the last 1..8 bytes in one load), and
 * 64 bytes per step with AVX2 where the CPU has it and the buffer is over
 * 128 bytes: any word size gives the same sum modulo 2^16-1 (RFC 1071,
 * section 2).
 */
#ifndef INI_CHECKSUM_H
#define INI_CHECKSUM_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

uint16_t ini_chksum(const void *data, int len);

/* CRC32C (Castagnoli, the SSE4.2 crc32 instruction) of len bytes,
 * continuing from crc (start with 0).  From 256 bytes on a CPU with
 * AVX-512 and VPCLMULQDQ, by carry-less multiplication (folding, in
 * checksum.c): 64 bytes in two instructions.  Otherwise long buffers run
 * three independent instruction chains over consecutive blocks and join
 * them with a precomputed "append a block of zeros" operator, which hides
 * the instruction's 3-cycle latency.  Block sizes: 1 KB, 480 bytes (three
 * of them fill a 1,480-byte IP fragment but for its last 40 bytes), 128. */
uint32_t ini_crc32c(uint32_t crc, const void *buf, size_t len);
/* The same, one chain: the reference the fast one is tested against. */
uint32_t ini_crc32c_serial(uint32_t crc, const void *buf, size_t len);

/* Both at once, one pass over the bytes: returns the CRC32C of len bytes
 * continuing from crc, as ini_crc32c, and adds the bytes' ones' complement
 * sum (the value ini_chksum gives, unfolded) to *sum, an accumulator that
 * ini_chksum_fold() folds to ini_chksum's result.  A message of several
 * frames is checked, and summed for its UDP checksum, this way: the three
 * CRC chains and the AVX2 sum share every load.  len at any alignment;
 * the sum takes buf's first byte as the low byte of a 16-bit word, as
 * ini_chksum does. */
uint32_t ini_crc32c_sum(uint32_t crc, const void *buf, size_t len, uint64_t *sum);
/* The same while copying the len bytes from src to dst (not overlapping):
 * a segment goes into its frame, checked and summed, in one pass over the
 * compute node's ring where a pass and then a copy read it twice. */
uint32_t ini_crc32c_sum_copy(uint32_t crc, void *dst, const void *src, size_t len, uint64_t *sum);
uint16_t ini_chksum_fold(uint64_t sum);

/* The paths of the functions above, fastest last.  The program starts on
 * the fastest its CPU has; ini_checksum_use() limits it (for benchmarks
 * comparing them) and returns the path now taken, never one the CPU
 * lacks.  Not for use while other threads checksum. */
enum ini_checksum_path {
    INI_CSUM_SCALAR,    /* 64-bit words; CRC by the instruction, three chains */
    INI_CSUM_AVX2,      /* the sum 64 bytes a step, in the CRC's pass */
    INI_CSUM_CLMUL,     /* and the CRC by carry-less multiplication (AVX-512) */
};
enum ini_checksum_path ini_checksum_use(enum ini_checksum_path limit);

/* ---- small buffers, inline ----
 *
 * The word sums ini_chksum is made of, and CRC32C a word at a time, for
 * a one-frame message (its headers, CRC and a few bytes): summed and
 * checked where they are read or written, with no call, the addresses of
 * the pseudo header summed once for the IP and the UDP checksum.  For 8
 * to 128 bytes the call, the length dispatch and a second pass cost more
 * than the bytes do.  Longer buffers go to the functions above.  The
 * values are theirs, bit for bit (tests/unit/test_checksum.c). */

#define INI_SMALL_MAX 128

/* An unaligned 8-byte load, in memory order (little-endian x86). */
static inline uint64_t ini_ld64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* a + b with the carry out of bit 63 added back in (end-around carry):
 * 2^64 = 1 modulo 2^64 - 1, and 2^16 - 1 divides 2^64 - 1, so the 16-bit
 * ones' complement sum survives.  GCC emits add + adc $0. */
static inline uint64_t ini_sum_add(uint64_t a, uint64_t b)
{
    uint64_t s = a + b;
    return s + (s < a);
}

/* Adds the k (1, 2, 4 or 8, a constant after inlining) 8-byte words at p
 * as one add/adc chain: one adc per word, the carry flag moving from each
 * add to the next, where ini_sum_add would cost an adc $0 after every word.
 * The carry left at the end is added back once; that cannot overflow,
 * because an add whose carry in is 1 only carries out if its sum is at
 * most 2^64 - 2.  Written out rather than as a loop, which GCC 12 does not
 * always unroll; and inside a loop it also stores every partial sum that
 * _addcarry_u64 writes through its pointer to a stack slot nobody reads
 * (harmless, and only in chksum_long's loop for 65..128 bytes or a CPU
 * without AVX2). */
static inline uint64_t ini_sum_words(uint64_t sum, const uint8_t *p, int k)
{
    unsigned long long s = sum;     /* the type _addcarry_u64 takes */
    unsigned char c = _addcarry_u64(0, s, ini_ld64(p), &s);
    if (k >= 2)
        c = _addcarry_u64(c, s, ini_ld64(p + 8), &s);
    if (k >= 4) {
        c = _addcarry_u64(c, s, ini_ld64(p + 16), &s);
        c = _addcarry_u64(c, s, ini_ld64(p + 24), &s);
    }
    if (k >= 8) {
        c = _addcarry_u64(c, s, ini_ld64(p + 32), &s);
        c = _addcarry_u64(c, s, ini_ld64(p + 40), &s);
        c = _addcarry_u64(c, s, ini_ld64(p + 48), &s);
        c = _addcarry_u64(c, s, ini_ld64(p + 56), &s);
    }
    return s + c;
}

/* Folds to 16 bits with end-around carries.  The result is a function of
 * s modulo 2^16 - 1 alone, except that it is 0 only for s == 0 (0xffff
 * for the other multiples), as with one step at a time; and s is 0 only
 * when every byte summed was 0.  So every way of summing gives the same
 * bits. */
static inline uint16_t ini_sum_fold(uint64_t s)
{
    uint32_t lo = (uint32_t)s, hi = (uint32_t)(s >> 32);
    uint32_t t = lo + hi;
    t += t < lo;                    /* at most 2^32 - 2 after a carry: fits */
    /* The high half of t + (t rotated by 16) is hi16 + lo16 plus the carry
     * out of the low half (which is lo16 + hi16 too): the end-around sum,
     * at most 0xffff; what falls off bit 31 is that same carry again. */
    return (uint16_t)((t + (t << 16 | t >> 16)) >> 16);
}

/* Buffers of 1..7 bytes, as an integer whose byte i is p[i] (the order of
 * an 8-byte load on little-endian x86), with no byte counted twice and
 * none read past the end.  Every byte keeps its offset's parity, so an odd last byte is
 * the low byte of its 16-bit word, as RFC 1071 pads it. */
static inline uint64_t ini_sum_short(const uint8_t *p, size_t n)
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
static inline uint64_t ini_sum_upto64(uint64_t sum, const uint8_t *p, size_t n)
{
    /* The last 1..8 bytes (never 0, so that no shift is by 64) are the
     * tail, the ones before it whole 8-byte words.  The tail is one load
     * of the buffer's last 8 bytes, shifted right past the -n mod 8 bytes
     * of it (0..7) that belong to the words, i.e. by -8n mod 64 bits
     * (written so, GCC leaves the mod to the shift instruction).  So its
     * first byte lands in the lowest place, and sits at an even offset. */
    sum = ini_sum_add(sum, ini_ld64(p + n - 8) >> ((0 - 8 * n) & 63));

    /* 0..56 bytes of words before the tail, in at most three straight-line
     * chains as the bits of their length say: no loop, no jump table. */
    size_t words = (n - 1) & ~(size_t)7;
    if (words & 32) {
        sum = ini_sum_words(sum, p, 4);
        p += 32;
    }
    if (words & 16) {
        sum = ini_sum_words(sum, p, 2);
        p += 16;
    }
    if (words & 8)
        sum = ini_sum_words(sum, p, 1);
    return sum;
}

/* acc + the n (0..INI_SMALL_MAX) bytes at p; p at an even offset of what
 * is summed.  The n bytes are the end of a buffer of at least 8 bytes
 * when n >= 8 (the last word is read as one load). */
static inline uint64_t ini_sum_small(uint64_t acc, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    if (n < 8)
        return n ? ini_sum_add(acc, ini_sum_short(p, n)) : acc;
    if (n > 64) {
        acc = ini_sum_words(acc, p, 8);
        p += 64;
        n -= 64;
    }
    return ini_sum_upto64(acc, p, n);
}

/* ini_crc32c of a small buffer.  Inline where the compiler may use SSE4.2
 * (DPDK's -march=corei7 and later), else the call. */
static inline uint32_t ini_crc32c_small(uint32_t crc, const void *buf, size_t n)
{
#ifdef __SSE4_2__
    const uint8_t *p = buf;
    uint64_t c = (uint32_t)~crc;
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = __builtin_ia32_crc32di(c, v);
    }
    uint32_t c32 = (uint32_t)c;
    if (n & 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        c32 = __builtin_ia32_crc32si(c32, v);
        p += 4;
    }
    if (n & 2) {
        uint16_t v;
        memcpy(&v, p, 2);
        c32 = __builtin_ia32_crc32hi(c32, v);
        p += 2;
    }
    if (n & 1)
        c32 = __builtin_ia32_crc32qi(c32, p[0]);
    return ~c32;
#else
    return ini_crc32c(crc, buf, n);
#endif
}

/* ini_crc32c_sum_copy of a small buffer: copied 8 bytes at a time, each
 * word checked and summed as it passes; the last 1..7 bytes in pieces of
 * 4, 2 and 1. */
static inline uint32_t ini_crc32c_sum_copy_small(uint32_t crc, void *dst, const void *src, size_t n,
                                                 uint64_t *acc)
{
#ifdef __SSE4_2__
    const uint8_t *p = src;
    uint8_t *d = dst;
    uint64_t c = (uint32_t)~crc, a = *acc;
    for (; n >= 8; p += 8, d += 8, n -= 8) {
        uint64_t v = ini_ld64(p);
        memcpy(d, &v, 8);
        c = __builtin_ia32_crc32di(c, v);
        a = ini_sum_add(a, v);
    }
    uint32_t c32 = (uint32_t)c;
    uint64_t t = 0;
    if (n & 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        memcpy(d, &v, 4);
        c32 = __builtin_ia32_crc32si(c32, v);
        t = v;
    }
    if (n & 2) {
        uint16_t v;
        memcpy(&v, p + (n & 4), 2);
        memcpy(d + (n & 4), &v, 2);
        c32 = __builtin_ia32_crc32hi(c32, v);
        t |= (uint64_t)v << (8 * (n & 4));
    }
    if (n & 1) {
        uint8_t v = p[n & 6];
        d[n & 6] = v;
        c32 = __builtin_ia32_crc32qi(c32, v);
        t |= (uint64_t)v << (8 * (n & 6));
    }
    *acc = ini_sum_add(a, t);
    return ~c32;
#else
    return ini_crc32c_sum_copy(crc, dst, src, n, acc);
#endif
}

#endif
