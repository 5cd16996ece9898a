/*
 * test_netif.c - the lwIP glue over DPDK mbufs, without ports (two INIs
 * joined in one process, tests/unit/loop_harness.h): messages at and
 * around the fragmentation boundary (1,472 bytes of UDP payload fit one
 * 1,500-byte frame) and at 14,800 and 65,000 bytes arrive intact in the
 * expected number of frames; no mbuf leaks; a corrupted frame is caught by
 * the UDP checksum; the header codec round-trips at every width; frames
 * a full port refuses wait and leave in order; a transmit buffer that is
 * never sent goes back to its pool; fragments that arrive out of order,
 * twice or after a hole are reassembled (lwIP's reassembly with our
 * in-order fast path, stack/lwip/patches/) into the same message; the
 * header prediction and lwIP's path deliver alike.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lwip/stats.h"
#include "loop_harness.h"

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
    loop_teardown();
    return 0;
}

/* Sends one message of am_len bytes (AM header + payload) from a to b and
 * checks its frames, contents, acknowledgement and that no mbuf is left. */
static void send_and_check(uint32_t am_len, int expect_frames)
{
    unsigned before = loop_mbufs_in_use();
    uint64_t frames = loop_a.nf.stats.tx_frames;
    uint32_t got = loop_b.n_got, rel = loop_a.released;

    assert_int_equal(loop_send(&loop_a, 77, am_len), 0);
    assert_int_equal((int)(loop_a.nf.stats.tx_frames - frames), expect_frames);
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
    uint32_t chk = ini_swp_totals(&loop_b.swp).udp_checksum_errors, got = loop_b.n_got;
    corrupt_next = 1;
    assert_int_equal(loop_send(&loop_a, 5, 100), 0);
    assert_int_equal(loop_b.n_got, got);
    assert_int_equal(ini_swp_totals(&loop_b.swp).udp_checksum_errors, chk + 1);
    loop_run(1000000, 4);        /* the SEND timer retransmits it */
    assert_int_equal(loop_b.n_got, got + 1);
    assert_int_equal(ini_swp_totals(&loop_a.swp).retx_timer, 1);
}

/* Two compensating bit errors in two fragments of one datagram pass the
 * UDP checksum; the transport's CRC32C must catch them. */
static void test_crc_catches_what_udp_misses(void **state)
{
    uint32_t chk = ini_swp_totals(&loop_b.swp).udp_checksum_errors, got = loop_b.n_got;
    twin_flips = 2;
    assert_int_equal(loop_send(&loop_a, 9, 12000), 0);   /* 9 fragments */
    assert_int_equal(twin_flips, 0);
    assert_int_equal(loop_b.n_got, got);
    assert_int_equal(ini_swp_totals(&loop_b.swp).udp_checksum_errors, chk);         /* UDP saw nothing */
    assert_int_equal(ini_swp_totals(&loop_b.swp).crc_errors, 1);
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
    struct ini_swp_stats a = ini_swp_totals(&loop_a.swp), b = ini_swp_totals(&loop_b.swp);
    assert_int_equal(a.retx_timer + a.retx_nak, 0);
    assert_int_equal(b.udp_checksum_errors + b.crc_errors + b.duplicates, 0);
}

/* Header prediction (netif_dpdk.h) and lwIP's path deliver alike: with
 * B's prediction off a message arrives through ip4_input and udp_input;
 * a frame whose IP header checksum is wrong is not predicted but left to
 * lwIP, which drops and counts it, and the SEND timer recovers it. */
static void test_header_prediction_and_lwip_path(void **state)
{
    struct udp_pcb *fast = loop_b.nf.fast_pcb;
    assert_non_null(fast);
    ini_netif_fast_udp(&loop_b.nf, NULL);
    send_and_check(100, 1);
    ini_netif_fast_udp(&loop_b.nf, fast);
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
    if (loop_a.nf.xmit != refuse_while_set) {
        wire_of_a = loop_a.nf.xmit;
        loop_a.nf.xmit = refuse_while_set;
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
    assert_int_equal(loop_a.nf.stats.tx_dropped, 0);
    assert_int_equal(ini_swp_totals(&loop_a.swp).retx_timer + ini_swp_totals(&loop_a.swp).retx_nak, 0);
}

/* Beyond the backlog (256 frames) frames are dropped and counted; the
 * transport recovers the messages they carried. */
static void test_backlog_overflow_drops_and_recovers(void **state)
{
    refuse_on_a(1);
    for (uint32_t i = 0; i < 16; i++)
        assert_int_equal(loop_send(&loop_a, i, 65000), 0);    /* 44 frames each */
    assert_int_equal(loop_flush(&loop_a), INI_NETIF_BACKLOG);
    assert_int_equal(loop_a.nf.stats.tx_dropped, 16 * 44 - INI_NETIF_BACKLOG);
    refuse_on_a(0);
    for (int r = 0; r < 100 && loop_a.released < 16; r++)
        loop_run(1000000, 1);
    assert_tags_in_order(16);
    assert_int_equal(loop_a.released, 16);
    assert_true(ini_swp_totals(&loop_a.swp).retx_timer > 0);
}

/* A transmit buffer the transport gives up on returns its mbuf. */
static void test_unsent_tx_buffer_freed(void **state)
{
    unsigned before = loop_mbufs_in_use();
    struct pbuf *p = ini_netif_alloc_tx(&loop_a.nf, 1000);
    assert_non_null(p);
    assert_int_equal(p->len, 1000);
    assert_int_equal(loop_mbufs_in_use(), before + 1);
    pbuf_free(p);
    assert_int_equal(loop_mbufs_in_use(), before);
    assert_null(ini_netif_alloc_tx(&loop_a.nf, 4000));      /* larger than an mbuf */
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
    struct ini_swp_hdr h = { INI_SWP_DATA, 7, 0xfe, 0x12 }, r;
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
        cmocka_unit_test_setup_teardown(test_backlog_overflow_drops_and_recovers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unsent_tx_buffer_freed, setup, teardown),
        cmocka_unit_test(test_crc32c_known_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
