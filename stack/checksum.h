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

#include <stddef.h>
#include <stdint.h>

uint16_t ini_chksum(const void *data, int len);

/* CRC32C (Castagnoli, the SSE4.2 crc32 instruction) of len bytes,
 * continuing from crc (start with 0).  Long buffers run three independent
 * instruction chains over consecutive blocks and join them with a
 * precomputed "append a block of zeros" operator, which hides the
 * instruction's 3-cycle latency.  Block sizes: 1 KB, 480 bytes (three of
 * them fill a 1,480-byte IP fragment but for its last 40 bytes), 128. */
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

#endif
