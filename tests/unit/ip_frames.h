/*
 * ip_frames.h - IPv4 and UDP headers written by hand, for the tests and
 * the fuzzer that feed the receive path frames no stack built
 * (loop_harness.c's loop_ip_frame, test_netif.c, tests/fuzz/fuzz_rx.c).
 *
 * Addresses are in network order, as struct ini_node_cfg holds them; the
 * checksums are the Internet checksum (RFC 1071) by stack/checksum.h's
 * ini_chksum, which sums in memory byte order, so no byte swapping is
 * needed.  The caller owns every buffer.
 */
#ifndef TEST_IP_FRAMES_H
#define TEST_IP_FRAMES_H

#include <stdint.h>
#include <string.h>

#include "checksum.h"

/* Writes a 20-byte IPv4 header (no options, TTL 64) with its checksum
 * into ip: id, fragment field (host order: flags and offset in 8-byte
 * units) and protocol as given, total length 20 + payload_len. */
static inline void test_ipv4_header(uint8_t ip[20], uint32_t src, uint32_t dst, uint16_t ip_id,
                                    uint16_t frag, uint8_t proto, uint16_t payload_len)
{
    uint16_t tot = (uint16_t)(20 + payload_len);
    memset(ip, 0, 20);
    ip[0] = 0x45;
    ip[2] = (uint8_t)(tot >> 8);
    ip[3] = (uint8_t)tot;
    ip[4] = (uint8_t)(ip_id >> 8);
    ip[5] = (uint8_t)ip_id;
    ip[6] = (uint8_t)(frag >> 8);
    ip[7] = (uint8_t)frag;
    ip[8] = 64;
    ip[9] = proto;
    memcpy(ip + 12, &src, 4);
    memcpy(ip + 16, &dst, 4);
    uint16_t sum = (uint16_t)~ini_chksum(ip, 20);
    memcpy(ip + 10, &sum, 2);
}

/* Writes the checksum of the UDP datagram udp (len bytes, header
 * included) from src to dst into udp[6..7]: over the pseudo header and
 * the datagram, 0 sent as 0xffff (RFC 768). */
static inline void test_udp_checksum(uint8_t *udp, uint16_t len, uint32_t src, uint32_t dst)
{
    uint8_t pseudo[12];
    memcpy(pseudo, &src, 4);
    memcpy(pseudo + 4, &dst, 4);
    pseudo[8] = 0;
    pseudo[9] = 17;
    pseudo[10] = (uint8_t)(len >> 8);
    pseudo[11] = (uint8_t)len;
    udp[6] = udp[7] = 0;
    uint32_t sum = (uint32_t)ini_chksum(pseudo, 12) + ini_chksum(udp, len);   /* pseudo is even: words align */
    sum = (sum & 0xffff) + (sum >> 16);
    uint16_t c = (uint16_t)~sum;
    if (c == 0)
        c = 0xffff;
    memcpy(udp + 6, &c, 2);
}

#endif /* TEST_IP_FRAMES_H */
