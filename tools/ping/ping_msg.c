/*
 * ping_msg.c - ini-ping's message contents (ping_msg.h).
 */
#include "ping_msg.h"

#include <string.h>

_Static_assert(sizeof(struct ping_hdr) == PING_HDR_BYTES, "ping header is 16 bytes");

uint32_t ping_checksum(const uint8_t *p, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return (uint32_t)(h ^ (h >> 32));
}

struct ping_hdr ping_make_message(uint8_t *buf, uint32_t size, int src, int dst, uint32_t seq)
{
    struct ping_hdr h = { (uint16_t)src, (uint16_t)dst, seq, size, 0 };
    if (size > PING_HDR_BYTES) {
        uint64_t x = ((uint64_t)src << 48) ^ ((uint64_t)dst << 32) ^ seq ^ ((uint64_t)size << 20);
        uint32_t i = PING_HDR_BYTES;
        for (; i < size; i += 8) {   /* splitmix64 */
            uint64_t z = (x += 0x9e3779b97f4a7c15ull);
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            z ^= z >> 31;
            memcpy(buf + i, &z, size - i < 8 ? size - i : 8);
        }
    }
    h.sum = ping_checksum(buf + PING_HDR_BYTES, size > PING_HDR_BYTES ? size - PING_HDR_BYTES : 0);
    memcpy(buf, &h, size < PING_HDR_BYTES ? size : PING_HDR_BYTES);
    return h;
}
