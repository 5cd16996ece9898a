/*
 * fuzz_rx.c - libFuzzer harness of the receive path: frames into the stack
 * (ini_stack_input: the link, then lwIP's boundary) of INI b of two INIs
 * joined in one process (tests/unit/loop_harness.h), through header
 * prediction or lwIP's IP (reassembly included) and UDP into the
 * transport, with the real checksum, CRC and MAC code.
 *
 * Input: a flags byte, then records, each a 16-bit big-endian length and
 * that many bytes.
 *
 *   flags bit 0  fix up: each record is a transport datagram (UDP payload):
 *                the harness writes its CRC (DATA), the UDP header and
 *                checksum and the IP headers, and cuts it into fragments
 *                (first record byte: fragment size in 8-byte units, 0 = no
 *                fragmenting; bit 7 of the second: last fragment first),
 *                so the fuzzer reaches past the checks; without the flag a
 *                record is an IP packet fed as it is (raw)
 *         bit 1  the pair authenticates every datagram (a MAC under a
 *                fixed key: the fuzzer cannot forge it, so this covers the
 *                MAC check on any frame)
 *         bit 2  advance time by a second after the input (timers:
 *                retransmissions, ACKs, reassembly ageing)
 *         bit 3  raw records are whole Ethernet frames (no header added)
 *         bit 4  the pair sends messages longer than a frame in segments
 *                (stack.segmentation; b's receive path takes segments
 *                either way: the op byte's high bits, which fix-up
 *                records set as they like, chain them into messages)
 *
 * The pair is set up once; between inputs only its transports are started
 * again (keyed or not, as the input asks) and the reassembly and the wire
 * emptied (loop_reset_transport), so that an input means the same thing
 * whatever ran before it (a finding reproduces from its input alone), and
 * the harness then checks that every mbuf is back in the pool: a leak of
 * DPDK buffers, which ASan cannot see, aborts.  What frames leave behind
 * for later frames is covered inside one input (up to 64 records).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "loop_harness.h"
#include "ip_frames.h"

#include <rte_mbuf.h>

#include "lwip/inet_chksum.h"
#include "lwip/ip4_frag.h"

static uint16_t ip_id;
static unsigned mbufs_idle;             /* in use with nothing on the wire */
static int keyed;                       /* this input's pair authenticates (flags bit 1) */
static const uint8_t key[INI_SWP_KEY_LEN] = { 7 };
static const uint8_t epoch[INI_SWP_EPOCH_LEN] = { 9 };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (loop_global_init("fuzz_rx") < 0)
        return 1;
    loop_setup(16, 16, 1);
    mbufs_idle = loop_mbufs_in_use();
    return 0;
}

static void feed(const uint8_t *frame, uint16_t len)
{
    struct ini_rx_meta rx = { .stamp = 1 };
    struct rte_mbuf *m = loop_frame(frame, len);
    if (!m)
        return;
    ini_stack_input(&loop_b.st, m, &rx);
    loop_flush(&loop_b);                /* as inid after a receive burst */
}

/* An IPv4 packet (raw) behind an Ethernet header for b. */
static void feed_ip(const uint8_t *ip, uint16_t len)
{
    static uint8_t f[14 + 65536];
    memcpy(f, loop_cfg.inis[1].mac, 6);
    memcpy(f + 6, loop_cfg.inis[0].mac, 6);
    f[12] = 0x08;
    f[13] = 0x00;
    memcpy(f + 14, ip, len);
    feed(f, (uint16_t)(14 + len > 2048 ? 2048 : 14 + len));
}

/* A datagram from a (or a stranger) to b, checksums and CRC made right,
 * cut into fragments of unit*8 bytes (0: whole, if it fits). */
static void feed_fixed(const uint8_t *rec, uint16_t n)
{
    static uint8_t udp[65536], pkt[2048];
    if (n < 2)
        return;
    unsigned unit = rec[0];
    int reverse = rec[1] >> 7, stranger = (rec[1] >> 6) & 1;
    rec += 2;
    n = (uint16_t)(n - 2);
    if (n > 65507 - 8)
        n = 65507 - 8;
    uint8_t *pl = udp + 8;
    memcpy(pl, rec, n);
    /* DATA's layout (swp.h): the header, the MAC if keyed, the CRC. */
    int crc_off = ini_swp_hdr_len(loop_cfg.stack.seq_bits) + (keyed ? INI_SWP_TAG_LEN : 0);
    int data_hdr = crc_off + 4;
    if (n >= data_hdr && (pl[0] & INI_SWP_OP_MASK) == INI_SWP_DATA) {   /* segments too */
        uint32_t crc = ini_crc32c(0, pl + data_hdr, (size_t)(n - data_hdr));
        memcpy(pl + crc_off, &crc, 4);
    }
    uint32_t src = stranger ? PP_HTONL(0x0a000001) : loop_cfg.inis[0].ip, dst = loop_cfg.inis[1].ip;
    uint16_t ulen = (uint16_t)(8 + n);
    udp[0] = INI_UDP_PORT >> 8;
    udp[1] = INI_UDP_PORT & 0xff;
    udp[2] = INI_UDP_PORT >> 8;
    udp[3] = INI_UDP_PORT & 0xff;
    udp[4] = (uint8_t)(ulen >> 8);
    udp[5] = (uint8_t)ulen;
    test_udp_checksum(udp, ulen, src, dst);

    uint32_t piece = unit ? unit * 8u : 1480u;
    if (piece > 1480)
        piece = 1480;
    uint32_t nfrag = (ulen + piece - 1) / piece;
    ip_id++;
    for (uint32_t k = 0; k < nfrag; k++) {
        uint32_t i = reverse ? nfrag - 1 - k : k;
        uint32_t off = i * piece, len = ulen - off < piece ? ulen - off : piece;
        uint16_t frag = (uint16_t)((off / 8) | (i + 1 < nfrag ? 0x2000 : 0));
        test_ipv4_header(pkt, src, dst, ip_id, frag, 17, (uint16_t)len);
        memcpy(pkt + 20, udp + off, len);
        feed_ip(pkt, (uint16_t)(20 + len));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t flags = data[0];
    int seg = (flags >> 4) & 1;
    if (seg != loop_cfg.stack.segmentation) {
        loop_cfg.stack.segmentation = seg;
        loop_reset_transport(NULL, NULL, NULL);
    }
    keyed = (flags & 2) != 0;
    if (keyed)
        loop_reset_transport(key, epoch, epoch);
    ip_id = 0;
    size_t i = 1;
    for (int records = 0; i + 2 <= size && records < 64; records++) {
        uint16_t n = (uint16_t)(data[i] << 8 | data[i + 1]);
        i += 2;
        if (n > size - i)
            n = (uint16_t)(size - i);
        const uint8_t *rec = data + i;
        i += n;
        if (flags & 1)
            feed_fixed(rec, n);
        else if (flags & 8)
            feed(rec, n > 2048 ? 2048 : n);
        else
            feed_ip(rec, n);
    }
    if (flags & 4)
        loop_run(1000000000ull, 1);
    loop_reset_transport(NULL, NULL, NULL);
    if (loop_mbufs_in_use() != mbufs_idle) {
        fprintf(stderr, "fuzz_rx: %u mbufs in use after the input, %u before\n", loop_mbufs_in_use(), mbufs_idle);
        abort();                        /* an mbuf was not given back */
    }
    return 0;
}
