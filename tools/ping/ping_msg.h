/*
 * ping_msg.h - the messages of ini-ping (its echo test and its incast
 * mode, tools/ping/incast.c): a 16-byte header and a pseudo-random fill
 * from (source, destination, sequence, size), so that the receiver can
 * check every byte of a message from its header alone.
 *
 *   0  u16 src   originating PE            8  u32 size  payload bytes
 *   2  u16 dst   PE the message is for    12  u32 sum   checksum of bytes 16..
 *   4  u32 seq   per (src, dst) pair      16  the fill
 */
#ifndef INI_PING_MSG_H
#define INI_PING_MSG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PING_HDR_BYTES 16

struct ping_hdr {
    uint16_t src, dst;
    uint32_t seq, size, sum;
};

/* A 32-bit hash of n bytes at p that every byte changes. */
uint32_t ping_checksum(const uint8_t *p, size_t n);

/* Fills buf[0..size) with the message (src, dst, seq); returns its header
 * (the bytes of it that fit are at the front of buf). */
struct ping_hdr ping_make_message(uint8_t *buf, uint32_t size, int src, int dst, uint32_t seq);

#ifdef __cplusplus
}
#endif

#endif
