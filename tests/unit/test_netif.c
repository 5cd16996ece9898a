/*
 * test_netif.c - the lwIP glue over DPDK mbufs, without ports (two INIs
 * joined in one process, tests/unit/loop_harness.h): messages at and
 * around the fragmentation boundary (1,472 bytes of UDP payload fit one
 * 1,500-byte frame) and at 14,800 and 65,000 bytes arrive intact in the
 * expected number of frames; no mbuf leaks; a corrupted frame is caught by
 * the UDP checksum; the header codec round-trips at every width; frames
 * a full port refuses wait and leave in order; a transmit buffer that is
 * never sent goes back to its pool; ARP requests are answered and their
 * senders learned, ICMP echo is answered, unknown addresses are asked for;
 * fragments that arrive out of order, twice or after a hole are reassembled
 * (lwIP's reassembly with our in-order fast path, stack/lwip/patches/) into
 * the same message; the header prediction and lwIP's path deliver alike.
 * Every test's teardown checks that every mbuf and every lwIP buffer came
 * back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lwip/netif.h"
#include "lwip/stats.h"
#include "loop_harness.h"
#include "ip_frames.h"

static int corrupt_next;
static int twin_flips;          /* frames left to get the compensating flips */
/* Fates of the frames of the next datagram, by index from frag_base:
 * '.' pass, 'h' hold back (until loop_release_held), 'd' duplicate. */
static const char *frag_pattern;
static uint64_t frag_base;
static int break_ip_header;     /* flip a bit of the next frame's IP TTL */

/* Flips bit 3 of the first payload byte of the next two frames, once 0 to
 * 1 and once 1 to 0: the 16-bit ones' complement sum cannot see it. */
static enum wire_fate corrupt_script(struct loop_side *from, uint64_t n, const uint8_t *f, uint32_t len)
{
    if (twin_flips) {
        uint8_t *b = (uint8_t *)f + 14 + 20 + 100;
        int want_set = twin_flips == 2;
        if (((*b >> 3) & 1) != !want_set)
            return WIRE_PASS;              /* wait for a frame whose bit fits */
        *b ^= 0x08;
        twin_flips--;
        return WIRE_PASS;
    }
    if (corrupt_next) {
        corrupt_next = 0;
        return WIRE_CORRUPT;
    }
    if (break_ip_header) {
        break_ip_header = 0;
        ((uint8_t *)f)[14 + 8] ^= 0x01;      /* the header checksum no longer fits */
        return WIRE_PASS;
    }
    if (frag_pattern && n >= frag_base && n - frag_base < strlen(frag_pattern)) {
        char c = frag_pattern[n - frag_base];
        return c == 'h' ? WIRE_HOLD : c == 'd' ? WIRE_DUP : WIRE_PASS;
    }
    return WIRE_PASS;
}

static int setup(void **state)
{
    loop_setup(16, 16, 1);
    loop_a.script = corrupt_script;
    return 0;
}

static int teardown(void **state)
{
    assert_int_equal(loop_teardown(), 0);
    return 0;
}

/* Sends one message of am_len bytes (AM header + payload) from a to b and
 * checks its frames, contents, acknowledgement and that no mbuf is left. */
static void send_and_check(uint32_t am_len, int expect_frames)
{
    unsigned before = loop_mbufs_in_use();
    uint64_t frames = loop_a.st.nf.stats.tx_frames;
    uint32_t got = loop_b.n_got, rel = loop_a.released;

    assert_int_equal(loop_send(&loop_a, 77, am_len), 0);
    assert_int_equal((int)(loop_a.st.nf.stats.tx_frames - frames), expect_frames);
    assert_int_equal(loop_b.n_got, got + 1);
    assert_int_equal(loop_b.last_len, am_len);
    for (uint32_t i = 20; i < am_len; i++)
        if (loop_b.last[i] != (uint8_t)(i * 13 + 77))
            fail_msg("byte %u of a %u-byte message differs", i, am_len);
    loop_run(300000, 3);      /* the ACK timer fires; the ACK releases it */
    assert_int_equal(loop_a.released, rel + 1);
    assert_int_equal(loop_mbufs_in_use(), before);
}

/* UDP payload = transport header (6 bytes with 16-bit sequence numbers)
 * + CRC32C (4) + message; 1,472 bytes is the most one 1,500-byte frame
 * holds. */
static void test_single_frame_boundary(void **state)
{
    send_and_check(1472 - 10, 1);
    send_and_check(1473 - 10, 2);
}

static void test_fragmented_sizes(void **state)
{
    send_and_check(1600, 2);
    send_and_check(14800, 11);
    send_and_check(65000, 44);   /* 65,018-byte datagram in 1,480-byte pieces */
}

static void test_small(void **state)
{
    send_and_check(16, 1);
}

static void test_corrupt_frame_dropped(void **state)
{
    uint32_t chk = ini_swp_totals(loop_b.st.swp).udp_checksum_errors, got = loop_b.n_got;
    corrupt_next = 1;
    assert_int_equal(loop_send(&loop_a, 5, 100), 0);
    assert_int_equal(loop_b.n_got, got);
    assert_int_equal(ini_swp_totals(loop_b.st.swp).udp_checksum_errors, chk + 1);
    loop_run(1000000, 4);        /* the SEND timer's probe shows it missing: a NAK brings it */
    assert_int_equal(loop_b.n_got, got + 1);
    assert_int_equal(ini_swp_totals(loop_a.st.swp).retx_nak, 1);
    assert_int_equal(ini_swp_totals(loop_b.st.swp).retx_after_loss, 1);
}

/* Two compensating bit errors in two fragments of one datagram pass the
 * UDP checksum; the transport's CRC32C must catch them. */
static void test_crc_catches_what_udp_misses(void **state)
{
    uint32_t chk = ini_swp_totals(loop_b.st.swp).udp_checksum_errors, got = loop_b.n_got;
    twin_flips = 2;
    assert_int_equal(loop_send(&loop_a, 9, 12000), 0);   /* 9 fragments */
    assert_int_equal(twin_flips, 0);
    assert_int_equal(loop_b.n_got, got);
    assert_int_equal(ini_swp_totals(loop_b.st.swp).udp_checksum_errors, chk);         /* UDP saw nothing */
    assert_int_equal(ini_swp_totals(loop_b.st.swp).crc_errors, 1);
    loop_run(1000000, 4);
    assert_int_equal(loop_b.n_got, got + 1);
    for (uint32_t i = 20; i < 12000; i++)
        if (loop_b.last[i] != (uint8_t)(i * 13 + 9))
            fail_msg("byte %u differs after the retransmission", i);
}

/* Reassembly off the in-order path: a 12,000-byte message (9 fragments)
 * whose fragments are held back (and so arrive after later ones) or
 * duplicated arrives once and intact, with no retransmission, no checksum
 * or CRC error and no mbuf left behind. */
static void test_reassembly_out_of_order(void **state)
{
    static const char *const patterns[] = {
        "h........",     /* the first fragment last */
        "...h.....",     /* a hole in the middle, filled last */
        "........h",     /* the last fragment after the hole-free rest */
        "..d......",     /* a duplicate right behind the original */
        "hhhhhhhh.",     /* the last fragment first, then the rest in order */
        ".h.h.h.h.",     /* every other one late */
        "d.d.h.d.d",
    };
    for (size_t k = 0; k < sizeof(patterns) / sizeof(patterns[0]); k++) {
        unsigned before = loop_mbufs_in_use();
        uint32_t got = loop_b.n_got, rel = loop_a.released;
        frag_base = loop_a.frames_out;
        frag_pattern = patterns[k];
        assert_int_equal(loop_send(&loop_a, 40 + (uint32_t)k, 12000), 0);
        loop_release_held(&loop_a);
        loop_pump();
        frag_pattern = NULL;
        if (loop_b.n_got != got + 1)
            fail_msg("pattern %s: %u messages delivered, expected 1", patterns[k], loop_b.n_got - got);
        assert_int_equal(loop_b.last_len, 12000);
        for (uint32_t i = 20; i < 12000; i++)
            if (loop_b.last[i] != (uint8_t)(i * 13 + 40 + k))
                fail_msg("pattern %s: byte %u differs", patterns[k], i);
        loop_run(300000, 3);
        assert_int_equal(loop_a.released, rel + 1);
        assert_int_equal(loop_mbufs_in_use(), before);
    }
    struct ini_swp_stats a = ini_swp_totals(loop_a.st.swp), b = ini_swp_totals(loop_b.st.swp);
    assert_int_equal(a.retx_timer + a.retx_nak, 0);
    assert_int_equal(b.udp_checksum_errors + b.crc_errors + b.duplicates, 0);
}

/* Header prediction (netif_dpdk.h) and lwIP's path deliver alike: with
 * B's prediction off a message arrives through ip4_input and udp_input;
 * a frame whose IP header checksum is wrong is not predicted but left to
 * lwIP, which drops and counts it, and the SEND timer recovers it. */
static void test_header_prediction_and_lwip_path(void **state)
{
    assert_true(loop_b.st.dg.predict_rx);
    loop_b.st.dg.predict_rx = 0;
    /* lwIP checks what A's prediction wrote from its header pattern:
     * lengths, addresses and the IP header checksum. */
    unsigned chk0 = lwip_stats.ip.chkerr, drop0 = lwip_stats.ip.drop;
    send_and_check(100, 1);
    assert_int_equal(lwip_stats.ip.chkerr, chk0);
    assert_int_equal(lwip_stats.ip.drop, drop0);
    loop_b.st.dg.predict_rx = 1;
    send_and_check(100, 1);
    uint32_t got = loop_b.n_got;
    unsigned chk = lwip_stats.ip.chkerr;
    break_ip_header = 1;
    assert_int_equal(loop_send(&loop_a, 6, 100), 0);
    assert_int_equal(loop_b.n_got, got);
    assert_int_equal(lwip_stats.ip.chkerr, chk + 1);
    loop_run(1000000, 4);
    assert_int_equal(loop_b.n_got, got + 1);
}

/* ---- a port that refuses frames (the peer's ring is full) ---- */

static int refusing;
static ini_xmit_fn wire_of_a;     /* the harness's wire */

static uint16_t refuse_while_set(struct ini_netif *nf, struct ini_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
    return refusing ? 0 : wire_of_a(nf, q, pkts, n);
}

static void refuse_on_a(int on)
{
    if (loop_a.st.nf.xmit != refuse_while_set) {
        wire_of_a = loop_a.st.nf.xmit;
        loop_a.st.nf.xmit = refuse_while_set;
    }
    refusing = on;
}

static void assert_tags_in_order(uint32_t n)
{
    assert_int_equal(loop_b.n_got, n);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(loop_b.got_tag[i], i);
}

/* Frames wait in the queue's backlog, in order, and leave at the first
 * flush the port takes them: nothing dropped, nothing retransmitted. */
static void test_full_port_keeps_frames(void **state)
{
    refuse_on_a(1);
    for (uint32_t i = 0; i < 16; i++)
        assert_int_equal(loop_send(&loop_a, i, 100), 0);
    assert_int_equal(loop_b.n_got, 0);
    assert_int_equal(loop_flush(&loop_a), 16);     /* waiting */
    refuse_on_a(0);
    assert_int_equal(loop_flush(&loop_a), 0);
    assert_tags_in_order(16);
    loop_run(300000, 3);
    assert_int_equal(loop_a.released, 16);
    assert_int_equal(loop_a.st.nf.stats.tx_dropped, 0);
    assert_int_equal(ini_swp_totals(loop_a.st.swp).retx_timer + ini_swp_totals(loop_a.st.swp).retx_nak, 0);
}

/* More frames than the backlog holds (16 messages of 44 fragments
 * against 256 frames): a full port holds frames for the next turn and
 * never drops them.  The transport is refused the messages whose frames
 * would not fit (the INI keeps them in its stall list, as for a full
 * window) and takes them once the port has taken the rest: nothing is
 * dropped, nothing is retransmitted.  (Before, the frames beyond the
 * backlog were dropped and the SEND timers brought them again.) */
static void test_full_backlog_holds_messages(void **state)
{
    refuse_on_a(1);
    uint32_t taken = 0;
    while (taken < 16 && loop_send(&loop_a, taken, 65000) == 0)
        taken++;
    assert_true(taken > 0 && taken < 16);
    assert_true(loop_flush(&loop_a) <= INI_NETIF_BACKLOG);
    assert_int_equal(loop_a.st.nf.stats.tx_dropped, 0);
    refuse_on_a(0);
    for (int r = 0; r < 100 && taken < 16; r++) {
        loop_run(10000, 1);
        while (taken < 16 && loop_send(&loop_a, taken, 65000) == 0)
            taken++;
    }
    loop_run(100000, 5);
    assert_tags_in_order(16);
    assert_int_equal(loop_a.released, 16);
    assert_int_equal(loop_a.st.nf.stats.tx_dropped, 0);
    assert_int_equal(ini_swp_totals(loop_a.st.swp).retx_timer + ini_swp_totals(loop_a.st.swp).retx_nak, 0);
}

/* A transmit buffer the transport gives up on returns its mbuf. */
static void test_unsent_tx_buffer_freed(void **state)
{
    unsigned before = loop_mbufs_in_use();
    struct pbuf *p = ini_netif_alloc_tx(&loop_a.st.nf, 1000);
    assert_non_null(p);
    assert_int_equal(p->len, 1000);
    assert_int_equal(loop_mbufs_in_use(), before + 1);
    pbuf_free(p);
    assert_int_equal(loop_mbufs_in_use(), before);
    assert_null(ini_netif_alloc_tx(&loop_a.st.nf, 4000));      /* larger than an mbuf */
    assert_int_equal(loop_mbufs_in_use(), before);
}

static void test_crc32c_known_value(void **state)
{
    /* The standard check value of CRC-32C: "123456789" -> 0xE3069283. */
    assert_int_equal(ini_crc32c(0, "123456789", 9), 0xE3069283u);
    /* Pieces chain. */
    assert_int_equal(ini_crc32c(ini_crc32c(0, "1234", 4), "56789", 5), 0xE3069283u);
}

static void test_header_codec(void **state)
{
    uint8_t raw[INI_SWP_MAXHDR];
    struct ini_swp_hdr h = { INI_SWP_DATA, 7, 0xfe, 0x12, 0 }, r;
    int widths[] = { 8, 16, 32 }, lens[] = { 4, 6, 10 };
    for (int i = 0; i < 3; i++) {
        assert_int_equal(ini_swp_hdr_len(widths[i]), lens[i]);
        ini_swp_hdr_write(raw, &h, widths[i]);
        assert_int_equal(ini_swp_hdr_read(raw, (uint32_t)lens[i], widths[i], &r), 0);
        assert_int_equal(r.op, h.op);
        assert_int_equal(r.conn, h.conn);
        assert_int_equal(r.seq, h.seq);
        assert_int_equal(r.ack, h.ack);
        assert_int_equal(ini_swp_hdr_read(raw, (uint32_t)lens[i] - 1, widths[i], &r), -1);
    }
    raw[0] = 9;   /* no such opcode */
    assert_int_equal(ini_swp_hdr_read(raw, 10, 32, &r), -1);
}

/* ---- ARP and ICMP: an INI among ordinary IPv4 hosts (stack/arp.h) ---- */

static struct rte_mbuf *captured[8];
static int n_captured;

static uint16_t capture_xmit(struct ini_netif *nf, struct ini_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
    for (uint16_t i = 0; i < n; i++) {
        if (n_captured < 8)
            captured[n_captured++] = pkts[i];
        else
            rte_pktmbuf_free(pkts[i]);
    }
    return n;
}

static void free_captured(void)
{
    for (int i = 0; i < n_captured; i++)
        rte_pktmbuf_free(captured[i]);
    n_captured = 0;
}

static const uint8_t host_mac[6] = { 0x02, 0xaa, 0, 0, 0, 0x07 };
static const uint8_t host_ip[4] = { 198, 18, 0, 200 };

/* A frame from the Linux host to side a: Ethernet header + body. */
static void input_from_host(const uint8_t dst_mac[6], uint16_t ethertype, const uint8_t *body, uint16_t len)
{
    struct rte_mbuf *m = rte_pktmbuf_alloc(loop_a.st.nf.pool);
    assert_non_null(m);
    uint8_t *f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(14 + len));
    memcpy(f, dst_mac, 6);
    memcpy(f + 6, host_mac, 6);
    f[12] = (uint8_t)(ethertype >> 8);
    f[13] = (uint8_t)ethertype;
    memcpy(f + 14, body, len);
    struct ini_rx_meta meta = { 0 };
    ini_stack_input(&loop_a.st, m, &meta);
}

static uint16_t sum16(const uint8_t *p, int len)
{
    uint32_t s = 0;
    for (int i = 0; i + 1 < len; i += 2)
        s += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (len & 1)
        s += (uint32_t)(p[len - 1] << 8);
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (uint16_t)~s;
}

/* A flood of ARP requests from ever new sender addresses: every one is
 * answered, the first INI_PEER_LEARNED_MAX senders are learned and no
 * more, and the configured peer and the transport still work. */
static void test_arp_learn_bound(void **state)
{
    ini_xmit_fn wire = loop_a.st.nf.xmit;
    loop_a.st.nf.xmit = capture_xmit;
    uint32_t a_ip = ip4_addr_get_u32(netif_ip4_addr(&loop_a.st.nf.netif));
    static const uint8_t broadcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    const int senders = 4 * INI_PEER_LEARNED_MAX;
    for (int i = 0; i < senders; i++) {
        uint8_t arp[28] = { 0, 1, 8, 0, 6, 4, 0, 1 };
        uint8_t mac[6] = { 0x02, 0xbb, 0, 0, (uint8_t)(i >> 8), (uint8_t)i };
        uint8_t ip[4] = { 10, 9, (uint8_t)(i >> 8), (uint8_t)(i + 1) };
        memcpy(arp + 8, mac, 6);
        memcpy(arp + 14, ip, 4);
        memcpy(arp + 24, &a_ip, 4);
        input_from_host(broadcast, 0x0806, arp, sizeof arp);
        ini_netif_flush(&loop_a.st.nf);
        assert_int_equal(n_captured, 1);                        /* answered */
        free_captured();
    }
    assert_int_equal(loop_a.st.nf.arp.stats.arp_requests_in, senders);
    assert_int_equal(loop_a.st.nf.arp.stats.arp_learned, INI_PEER_LEARNED_MAX);
    assert_int_equal(loop_a.st.nf.arp.stats.arp_not_learned, senders - INI_PEER_LEARNED_MAX);
    assert_int_equal(loop_a.st.nf.n_learned, INI_PEER_LEARNED_MAX);
    uint8_t first[4] = { 10, 9, 0, 1 }, last[4] = { 10, 9, (uint8_t)((senders - 1) >> 8), (uint8_t)senders };
    uint32_t f_ip, l_ip;
    memcpy(&f_ip, first, 4);
    memcpy(&l_ip, last, 4);
    assert_non_null(ini_netif_find_peer(&loop_a.st.nf, f_ip));    /* the first ones stay */
    assert_null(ini_netif_find_peer(&loop_a.st.nf, l_ip));        /* a late one is not kept */
    uint32_t b_ip = ip4_addr_get_u32(netif_ip4_addr(&loop_b.st.nf.netif));
    assert_memory_equal(ini_netif_find_peer(&loop_a.st.nf, b_ip)->mac, loop_b.st.nf.mac, 6);
    loop_a.st.nf.xmit = wire;
    assert_int_equal(loop_send(&loop_a, 0, 3000), 0);         /* the peer still gets messages */
    loop_run(1000000, 3);
    assert_int_equal(loop_b.n_got, 1);
}

/* The INI answers an ARP request for its address, learns the asker, and
 * then answers its ICMP echo request with an echo reply to its MAC. */
static void test_arp_and_ping(void **state)
{
    ini_xmit_fn wire = loop_a.st.nf.xmit;
    loop_a.st.nf.xmit = capture_xmit;
    uint32_t a_ip = ip4_addr_get_u32(netif_ip4_addr(&loop_a.st.nf.netif));
    static const uint8_t broadcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

    uint8_t arp[28] = { 0, 1, 8, 0, 6, 4, 0, 1 };
    memcpy(arp + 8, host_mac, 6);
    memcpy(arp + 14, host_ip, 4);
    memcpy(arp + 24, &a_ip, 4);
    input_from_host(broadcast, 0x0806, arp, sizeof arp);
    ini_netif_flush(&loop_a.st.nf);
    assert_int_equal(n_captured, 1);
    const uint8_t *r = rte_pktmbuf_mtod(captured[0], const uint8_t *);
    assert_memory_equal(r, host_mac, 6);                        /* to the asker */
    assert_memory_equal(r + 6, loop_a.st.nf.mac, 6);
    assert_int_equal(r[12] << 8 | r[13], 0x0806);
    assert_int_equal(r[14 + 7], 2);                             /* a reply */
    assert_memory_equal(r + 14 + 8, loop_a.st.nf.mac, 6);          /* sender: the INI */
    assert_memory_equal(r + 14 + 14, &a_ip, 4);
    assert_memory_equal(r + 14 + 24, host_ip, 4);               /* target: the asker */
    assert_true(captured[0]->pkt_len >= 60);
    free_captured();
    uint32_t h_ip;
    memcpy(&h_ip, host_ip, 4);
    struct ini_peer_slot *peer = ini_netif_find_peer(&loop_a.st.nf, h_ip);
    assert_non_null(peer);
    assert_true(peer->learned);
    assert_memory_equal(peer->mac, host_mac, 6);
    assert_int_equal(loop_a.st.nf.arp.stats.arp_requests_in, 1);

    /* a static peer (side b) is not taken over by ARP */
    uint32_t b_ip = ip4_addr_get_u32(netif_ip4_addr(&loop_b.st.nf.netif));
    memcpy(arp + 14, &b_ip, 4);
    input_from_host(broadcast, 0x0806, arp, sizeof arp);
    ini_netif_flush(&loop_a.st.nf);
    free_captured();
    assert_memory_equal(ini_netif_find_peer(&loop_a.st.nf, b_ip)->mac, loop_b.st.nf.mac, 6);

    /* ICMP echo request, 40 bytes of data */
    uint8_t ip[20 + 8 + 40] = { 0x45, 0, 0, sizeof ip, 0x12, 0x34, 0, 0, 64, 1 };
    memcpy(ip + 12, host_ip, 4);
    memcpy(ip + 16, &a_ip, 4);
    uint16_t c = sum16(ip, 20);
    ip[10] = (uint8_t)(c >> 8), ip[11] = (uint8_t)c;
    uint8_t *icmp = ip + 20;
    icmp[0] = 8;
    icmp[4] = 0x00, icmp[5] = 0x42, icmp[7] = 1;
    for (int i = 8; i < 48; i++)
        icmp[i] = (uint8_t)i;
    c = sum16(icmp, 48);
    icmp[2] = (uint8_t)(c >> 8), icmp[3] = (uint8_t)c;
    input_from_host(loop_a.st.nf.mac, 0x0800, ip, sizeof ip);
    ini_netif_flush(&loop_a.st.nf);
    assert_int_equal(n_captured, 1);
    r = rte_pktmbuf_mtod(captured[0], const uint8_t *);
    assert_memory_equal(r, host_mac, 6);
    assert_int_equal(r[12] << 8 | r[13], 0x0800);
    assert_memory_equal(r + 14 + 16, host_ip, 4);               /* IP destination: the host */
    assert_int_equal(r[14 + 20], 0);                            /* echo reply */
    assert_memory_equal(r + 14 + 28, icmp + 8, 40);             /* its data, echoed */
    free_captured();

    /* ... and nothing else: one ARP request does not let a host's
     * fragments or datagrams past the glue (found by fuzz_rx) */
    uint64_t not_peer = loop_a.st.nf.stats.rx_not_peer, evicted = loop_a.st.dg.stats.reass_evictions;
    ip[9] = 17;                                                 /* UDP, a first fragment */
    ip[6] = 0x20;
    ip[10] = ip[11] = 0;
    c = sum16(ip, 20);
    ip[10] = (uint8_t)(c >> 8), ip[11] = (uint8_t)c;
    input_from_host(loop_a.st.nf.mac, 0x0800, ip, sizeof ip);
    ip[6] = 0;                                                  /* a whole datagram */
    ip[10] = ip[11] = 0;
    c = sum16(ip, 20);
    ip[10] = (uint8_t)(c >> 8), ip[11] = (uint8_t)c;
    input_from_host(loop_a.st.nf.mac, 0x0800, ip, sizeof ip);
    ini_netif_flush(&loop_a.st.nf);
    assert_int_equal(n_captured, 0);
    assert_int_equal(loop_a.st.nf.stats.rx_not_peer, not_peer + 2);
    assert_int_equal(loop_a.st.dg.stats.reass_evictions, evicted);

    /* no entry: an ARP request goes out, the packet is dropped */
    uint32_t unknown = h_ip + (1u << 24);
    ini_arp_resolve(&loop_a.st.nf, unknown);
    ini_arp_resolve(&loop_a.st.nf, unknown);                       /* within 100 ms: once */
    ini_netif_flush(&loop_a.st.nf);
    assert_int_equal(n_captured, 1);
    r = rte_pktmbuf_mtod(captured[0], const uint8_t *);
    assert_memory_equal(r, broadcast, 6);
    assert_int_equal(r[14 + 7], 1);
    assert_memory_equal(r + 14 + 24, &unknown, 4);
    free_captured();
    loop_a.st.nf.xmit = wire;
}

/* ---- bad frames counted (issue 17 item 12) and floods bounded ---- */

static void input_b(const void *frame, uint16_t len)
{
    struct ini_rx_meta rx = { 0 };
    struct rte_mbuf *m = loop_frame(frame, len);
    assert_non_null(m);
    ini_stack_input(&loop_b.st, m, &rx);
    loop_pump();
}

static void test_runt_and_not_ip_counted(void **state)
{
    unsigned before = loop_mbufs_in_use();
    uint8_t f[64] = { 0 };
    memcpy(f, loop_cfg.inis[1].mac, 6);
    f[12] = 0x08;
    input_b(f, 14);                      /* Ethernet header only */
    input_b(f, 33);                      /* one byte short of an IPv4 header */
    assert_int_equal(loop_b.st.nf.stats.rx_runt, 2);
    f[12] = 0x86;                        /* IPv6's EtherType */
    f[13] = 0xdd;
    input_b(f, 64);
    assert_int_equal(loop_b.st.nf.stats.rx_not_ip, 1);
    assert_int_equal(loop_b.st.nf.stats.rx_frames, 3);
    assert_int_equal(loop_mbufs_in_use(), before);
}

static uint64_t drop_frame = UINT64_MAX;
static enum wire_fate drop_script(struct loop_side *from, uint64_t n, const uint8_t *f, uint32_t len)
{
    return n == drop_frame ? WIRE_DROP : WIRE_PASS;
}

/* A datagram missing a fragment ages out of reassembly: one timeout,
 * counted as docs/transport.md defines it; the retransmission (a new IP
 * datagram) gets through; every mbuf comes back. */
static void test_reassembly_timeout_counted(void **state)
{
    unsigned before = loop_mbufs_in_use();
    loop_a.script = drop_script;
    drop_frame = loop_a.frames_out + 1;  /* the second of three fragments */
    assert_int_equal(loop_send(&loop_a, 3, 3000), 0);
    assert_int_equal(loop_b.n_got, 0);
    for (int i = 0; i < 12; i++)
        loop_run(500000000, 1);          /* 6 s: past IP_REASS_MAXAGE */
    drop_frame = UINT64_MAX;
    assert_int_equal(loop_b.n_got, 1);
    assert_int_equal(loop_a.st.dg.stats.reass_timeouts + loop_b.st.dg.stats.reass_timeouts, 1);
    assert_int_equal(loop_b.st.dg.stats.reass_evictions, 0);
    assert_int_equal(loop_mbufs_in_use(), before);
}

/* A flood of fragments of datagrams that never complete, from A (or, with
 * stranger set, from 198.18.0.99, no peer's address) to B: count frames
 * of payload_len bytes with IP ids from first_id and the fragment field
 * frag; after each, B holds at most max_held mbufs more than before. */
struct fragment_flood {
    uint16_t first_id, frag, payload_len;
    int count;
    int stranger;
    unsigned max_held;
};

static void flood_fragments(const struct fragment_flood *flood, unsigned before)
{
    uint8_t payload[1000], f[1100];
    assert_true(flood->payload_len <= sizeof payload);
    memset(payload, 0x5a, sizeof(payload));
    for (int i = 0; i < flood->count; i++) {
        uint16_t len = loop_ip_frame(f, &loop_a, (uint16_t)(flood->first_id + i), flood->frag, 17, payload,
                                     flood->payload_len);
        if (flood->stranger)
            f[14 + 15] = 99;                  /* source 198.18.0.99 (IP checksum left stale: never read) */
        input_b(f, len);
        assert_true(loop_mbufs_in_use() - before <= flood->max_held);
    }
}

/* A flood of first fragments (each its own datagram, never completed)
 * costs at most MEMP_NUM_REASSDATA held frames: older ones are evicted
 * and counted, the mbuf pool is not drained, and a real 65,000-byte
 * message still gets through at once. */
static void test_first_fragment_flood_bounded(void **state)
{
    unsigned before = loop_mbufs_in_use();
    const struct fragment_flood first = { .first_id = 0x8000, .frag = 0x2000 /* MF */, .payload_len = 1000,
                                          .count = 3000, .max_held = 256 };
    flood_fragments(&first, before);
    assert_int_equal(loop_b.st.dg.stats.reass_evictions, 3000 - 256);
    assert_int_equal(loop_send(&loop_a, 1, 65000), 0);
    assert_int_equal(loop_b.n_got, 1);
    assert_int_equal(loop_b.last_len, 65000);
    /* Middle fragments (offset > 0) of never-started datagrams: the same bound. */
    const struct fragment_flood middle = { .first_id = 0x1000, .frag = 0x2000 | 125, .payload_len = 1000,
                                           .count = 3000, .max_held = 256 + 1 };
    flood_fragments(&middle, before);
    assert_int_equal(loop_send(&loop_a, 2, 65000), 0);
    assert_int_equal(loop_b.n_got, 2);
    /* All of them age out. */
    for (int i = 0; i < 12; i++)
        loop_run(500000000, 1);
    assert_int_equal(loop_mbufs_in_use(), before);
}

/* First fragments from an address that is no peer's: dropped by the glue
 * before IP, counted, nothing kept (not even for a moment), no peer
 * datagram evicted. */
static void test_stranger_fragments_dropped_early(void **state)
{
    unsigned before = loop_mbufs_in_use();
    const struct fragment_flood strangers = { .first_id = 0, .frag = 0x2000, .payload_len = 200,
                                              .count = 1000, .stranger = 1, .max_held = 0 };
    flood_fragments(&strangers, before);
    assert_int_equal(loop_b.st.nf.stats.rx_not_peer, 1000);
    assert_int_equal(loop_b.st.dg.stats.reass_evictions, 0);
    assert_int_equal(loop_mbufs_in_use(), before);
}

/* UDP datagrams for a port nobody listens on or from an INI with no
 * connection: dropped without an answer (no ICMP) and without a buffer
 * kept. */
static void test_strangers_cost_nothing(void **state)
{
    unsigned before = loop_mbufs_in_use();
    uint64_t tx = loop_b.st.nf.stats.tx_frames;
    uint8_t udp[8 + 20] = { 0x1c, 0xe8, 0x12, 0x34, 0, 28, 0, 0 };   /* to port 4660, no checksum */
    uint8_t f[128];
    input_b(f, loop_ip_frame(f, &loop_a, 1, 0, 17, udp, sizeof(udp)));
    udp[2] = INI_UDP_PORT >> 8;
    udp[3] = INI_UDP_PORT & 0xff;
    udp[8] = INI_SWP_ACK;
    udp[9] = 77;                              /* no INI 77 */
    test_udp_checksum(udp, sizeof(udp), loop_cfg.inis[0].ip, loop_cfg.inis[1].ip);
    input_b(f, loop_ip_frame(f, &loop_a, 2, 0, 17, udp, sizeof(udp)));
    assert_int_equal(ini_swp_totals(loop_b.st.swp).bad_conn, 1);
    input_b(f, loop_ip_frame(f, &loop_a, 3, 0, 6, udp, sizeof(udp)));   /* TCP */
    assert_int_equal(loop_b.st.nf.stats.tx_frames, tx);
    assert_int_equal(ini_swp_totals(loop_b.st.swp).udp_checksum_errors, 0);
    assert_int_equal(loop_mbufs_in_use(), before);
}

int main(void)
{
    if (loop_global_init("test_netif") < 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_codec),
        cmocka_unit_test_setup_teardown(test_small, setup, teardown),
        cmocka_unit_test_setup_teardown(test_single_frame_boundary, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fragmented_sizes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_frame_dropped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_crc_catches_what_udp_misses, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reassembly_out_of_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_header_prediction_and_lwip_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_full_port_keeps_frames, setup, teardown),
        cmocka_unit_test_setup_teardown(test_full_backlog_holds_messages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unsent_tx_buffer_freed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_arp_and_ping, setup, teardown),
        cmocka_unit_test_setup_teardown(test_arp_learn_bound, setup, teardown),
        cmocka_unit_test(test_crc32c_known_value),
        cmocka_unit_test_setup_teardown(test_runt_and_not_ip_counted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reassembly_timeout_counted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_first_fragment_flood_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_strangers_cost_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stranger_fragments_dropped_early, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
