/*
 * test_swp_restart.c - an INI that restarts (docs/transport.md, "An INI
 * that restarts") on the scripted wire of tests/unit/loop_harness.h: the
 * durable region as the transport writes it (the log, D, next_seq), its
 * checks when found again (version, size, epoch, not resumable), the
 * delivery in progress settled against the ring, and the SYNC exchange
 * after a receiver's, a sender's and both sides' restarts, whole messages
 * and segments, and under the MAC (a SYNC under another key refused).  Every exchange checks that each message is delivered
 * exactly once and in order, and released once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "loop_harness.h"

#define MS 1000000ull
#define SEG 1462u                       /* message bytes per segment: 1500 - 20 - 8 - 6 - 4 */
#define SWP_A(f) (ini_swp_totals(loop_a.st.swp).f)
#define SWP_B(f) (ini_swp_totals(loop_b.st.swp).f)

/* ---- the wire: a side muted (its frames lost), single frames dropped ---- */

static int a_muted, b_muted;
static uint64_t a_drop[8], b_drop[8];
static int n_a_drop, n_b_drop;

static enum wire_fate script(struct loop_side *from, uint64_t n, const uint8_t *f, uint32_t len)
{
    int a = from == &loop_a;
    if (a ? a_muted : b_muted)
        return WIRE_DROP;
    for (int i = 0; i < (a ? n_a_drop : n_b_drop); i++)
        if ((a ? a_drop : b_drop)[i] == n)
            return WIRE_DROP;
    return WIRE_PASS;
}

static void drop_a(uint64_t frame) { a_drop[n_a_drop++] = frame; }
static void drop_b(uint64_t frame) { b_drop[n_b_drop++] = frame; }

static int setup_with(int segmentation)
{
    a_muted = b_muted = n_a_drop = n_b_drop = 0;
    loop_segmentation = segmentation;
    loop_setup(16, 16, 1);
    loop_a.script = loop_b.script = script;
    loop_durable();
    return 0;
}

static const uint8_t the_key[INI_SWP_KEY_LEN] = "the machine's key, 32 bytes long";
static const uint8_t the_epoch[INI_SWP_EPOCH_LEN] = "this run's epoch";

static int setup(void **state) { return setup_with(0); }

/* Every datagram under a MAC (security.key_file), SYNC too. */
static int setup_keyed(void **state)
{
    a_muted = b_muted = n_a_drop = n_b_drop = 0;
    loop_segmentation = 0;
    loop_setup_keyed(16, 16, 1, the_key, the_epoch, the_epoch);
    loop_a.script = loop_b.script = script;
    loop_durable();
    return 0;
}
static int setup_seg(void **state) { return setup_with(1); }

static int teardown(void **state)
{
    assert_int_equal(loop_teardown(), 0);
    loop_segmentation = 0;
    return 0;
}


static void restart(struct loop_side *s)
{
    char err[256];
    if (loop_restart(s, err, sizeof err) < 0)
        fail_msg("restart: %s", err);
}

/* a sends messages 0..n-1 of len bytes with b muted: b's acknowledgements
 * (and anything else it sends) are lost until the test unmutes it. */
static void send_unacknowledged(uint32_t n, uint32_t len)
{
    b_muted = 1;
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(loop_send(&loop_a, i, len), 0);
}

/* Messages 0..n-1 reached b once each, in order, and a got each back once. */
static void assert_exactly_once(uint32_t n)
{
    const char *why = loop_check_delivered(n);
    if (why)
        fail_msg("%s", why);
    struct ini_swp_conn_info a = loop_conn(&loop_a), b = loop_conn(&loop_b);
    assert_false(a.unsynced || b.unsynced || a.replaying || b.replaying);
    assert_int_equal(SWP_A(sync_errors) + SWP_B(sync_errors), 0);
}

/* ---- the region as written ---- */

/* A message is logged as it goes and leaves the log when acknowledged
 * whole; D follows the deliveries; next_seq the messages' frames. */
/* Each logged message's offset is its buffer's (loop_send rotates). */
static const uint8_t *logged_at[8];
static int n_logged;

static int note_logged(void *ctx, int peer, uint64_t off, void **cookie)
{
    logged_at[n_logged++] = loop_base() + off;
    return 1;
}

static void test_region_written(void **state)
{
    send_unacknowledged(3, 100);   /* no acks yet */
    struct ini_swp_conn_info a = loop_conn(&loop_a);
    assert_int_equal(a.logged, 3);
    assert_int_equal(a.next_seq, 3);
    assert_int_equal(loop_conn(&loop_b).delivered, 3);    /* delivered, though not acknowledged */
    n_logged = 0;
    ini_swp_durable_logged(loop_a.st.swp, note_logged, NULL);
    assert_int_equal(n_logged, 3);
    assert_int_equal(logged_at[1] - logged_at[0], logged_at[2] - logged_at[1]);   /* consecutive buffers */
    b_muted = 0;
    loop_run(MS, 3);
    assert_int_equal(loop_conn(&loop_a).logged, 0);
    assert_int_equal(loop_b.intent->armed, 0);
    assert_int_equal(ini_swp_incarnation(loop_b.st.swp), 0);
}

/* A message of segments is one log entry; its frames count in next_seq. */
static void test_region_written_segments(void **state)
{
    assert_int_equal(loop_send(&loop_a, 0, 3 * SEG), 0);
    assert_int_equal(loop_conn(&loop_a).logged, 1);
    assert_int_equal(loop_conn(&loop_a).next_seq, 3);
    loop_run(MS, 3);
    assert_int_equal(loop_conn(&loop_b).delivered, 3);
    assert_int_equal(loop_conn(&loop_a).logged, 0);
}

/* ---- the region's checks ---- */

static void expect_refused(const char *what)
{
    char err[256];
    assert_int_equal(loop_restart(&loop_b, err, sizeof err), -1);
    if (!strstr(err, what))
        fail_msg("refused for '%s', expected '%s'", err, what);
}

static void test_region_wrong_version(void **state)
{
    ((struct ini_swp_durable_hdr *)loop_b.region)->version = INI_SWP_DURABLE_VERSION + 1;
    expect_refused("version 2, expected 1");
}

static void test_region_wrong_size(void **state)
{
    loop_b.region_bytes -= 64;
    expect_refused("bytes");
    loop_b.region_bytes += 64;
}

static void test_region_not_a_region(void **state)
{
    memset(loop_b.region, 0, 8);
    expect_refused("no magic");
}

static void test_region_other_run(void **state)
{
    ((struct ini_swp_durable_hdr *)loop_b.region)->epoch[3] ^= 1;
    expect_refused("another run");
}

static void test_region_unresumable(void **state)
{
    ini_swp_durable_unresumable(loop_b.st.swp);
    expect_refused("not resumable");
}

static void test_region_other_ini(void **state)
{
    ((struct ini_swp_durable_hdr *)loop_b.region)->me = 0;
    expect_refused("INI 0 of 2, expected 1 of 2");
}

/* ---- the delivery in progress ---- */

/* The dead INI had armed its intent: published (the ring's mark reached),
 * D moves past the message; not published, it stays. */
static void settle(uint64_t mark_after_got, uint32_t want_rcv_nxt)
{
    struct ini_swp_durable_hdr *h = loop_b.region;
    h->intent = (struct ini_swp_intent){ .armed = 1, .conn = 0, .d_after = 5, .where = 0,
                                         .mark = loop_b.n_got + mark_after_got };
    restart(&loop_b);
    assert_int_equal(loop_conn(&loop_b).rcv_nxt, want_rcv_nxt);
    assert_int_equal(h->intent.armed, 0);
    assert_int_equal(h->incarnation, 1);
}

static void test_intent_published(void **state) { settle(0, 5); }
static void test_intent_not_published(void **state) { settle(1, 0); }

/* ---- restarts and SYNC ---- */

/* b delivered all but could acknowledge none before it died: after the
 * restart its SYNC says D = 8, a releases the 8 (their acks died) and
 * sends nothing again; the next messages go on from 8. */
static void test_receiver_restart_acks_lost(void **state)
{
    send_unacknowledged(8, 64);
    assert_int_equal(loop_b.n_got, 8);
    assert_int_equal(loop_a.released, 0);
    restart(&loop_b);
    b_muted = 0;
    assert_int_equal(loop_send(&loop_b, 0, 64), -1);     /* b sends nothing before the answer */
    loop_run(MS, 5);
    assert_int_equal(loop_a.released, 8);
    assert_int_equal(SWP_A(replayed), 0);
    for (uint32_t i = 8; i < 12; i++)
        assert_int_equal(loop_send(&loop_a, i, 64), 0);
    loop_run(MS, 5);
    assert_exactly_once(12);
    assert_int_equal(SWP_A(resyncs), 1);
    assert_int_equal(SWP_B(resyncs), 1);
    assert_true(SWP_B(syncs_sent) >= 1);
    assert_int_equal(SWP_B(duplicates), 0);
}

/* Message 2 lost, 3..7 held by b above the gap, b's NAK lost: b dies.
 * Its D is 2; a releases 0 and 1, replays 2..7. */
/* a sends messages 0..7, 2 lost, b's NAK and acks lost (b holds 3..7
 * above the gap); then side `dies` restarts. */
static void gap_then_restart(struct loop_side *dies)
{
    b_muted = 1;
    drop_a(2);
    for (uint32_t i = 0; i < 8; i++)
        assert_int_equal(loop_send(&loop_a, i, 64), 0);
    assert_int_equal(loop_b.n_got, 2);
    restart(dies);
    b_muted = 0;
}

static void test_receiver_restart_held_frames(void **state)
{
    gap_then_restart(&loop_b);
    loop_run(MS, 10);
    assert_exactly_once(8);
    assert_int_equal(SWP_A(replayed), 6);
    assert_int_equal(SWP_B(duplicates), 0);
}

/* a dies with 8 messages in flight, 2 lost and b's NAK lost: its log
 * replays them from b's D (2) with their sequence numbers; b drops what
 * it held above the gap; 0 and 1 are released, not sent again. */
static void test_sender_restart(void **state)
{
    gap_then_restart(&loop_a);
    assert_int_equal(loop_send(&loop_a, 8, 64), -1);     /* new messages wait for the resync */
    loop_run(MS, 10);
    assert_int_equal(SWP_A(replayed), 6);
    assert_int_equal(loop_send(&loop_a, 8, 64), 0);
    loop_run(MS, 5);
    assert_exactly_once(9);
    assert_int_equal(ini_swp_incarnation(loop_a.st.swp), 1);
}

/* Both die, each with messages in flight to the other, acks lost: each
 * side's SYNC carries what the other needs. */
static void test_both_restart(void **state)
{
    a_muted = b_muted = 1;
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(loop_send(&loop_a, i, 64), 0);
        assert_int_equal(loop_send(&loop_b, 100 + i, 64), 0);
    }
    restart(&loop_a);
    restart(&loop_b);
    a_muted = b_muted = 0;
    loop_run(MS, 10);
    assert_exactly_once(4);
    assert_int_equal(loop_a.n_got, 4);
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(loop_a.got_tag[i], 100 + i);
    assert_int_equal(loop_b.released, 4);
}

/* The SYNC's answer is lost: the SYNC goes again (1 ms later), the peer
 * answers again without rewinding twice. */
static void test_sync_answer_lost(void **state)
{
    send_unacknowledged(4, 64);
    restart(&loop_b);
    b_muted = 0;
    a_muted = 1;                        /* a's answer lost */
    loop_run(MS / 10, 2);
    a_muted = 0;
    loop_run(MS, 10);
    assert_exactly_once(4);
    assert_true(SWP_B(syncs_sent) >= 2);
    assert_int_equal(SWP_A(resyncs), 1);
}

/* b dies with a message of 5 segments half assembled: segments 0..2
 * chained and acknowledged (a's window moved past them), 3 lost, 4 held.
 * Its D is 0 (nothing delivered): a rewinds behind its oldest
 * unacknowledged frame and sends the message again from its first
 * segment, with the same sequence numbers. */
static void test_receiver_restart_mid_message(void **state)
{
    drop_a(3);
    drop_b(0);                          /* b's NAK for segment 3 */
    assert_int_equal(loop_send(&loop_a, 0, 5 * SEG), 0);
    loop_run(MS / 4, 1);                /* b's ACK timer: ack 3 */
    assert_int_equal(loop_conn(&loop_a).snd_una, 3);
    assert_int_equal(loop_b.n_got, 0);
    b_muted = 1;
    restart(&loop_b);
    b_muted = 0;
    loop_run(MS, 10);
    assert_exactly_once(1);
    assert_int_equal(loop_b.got_len[0], 5 * SEG);
    assert_int_equal(SWP_A(replayed), 1);
}

/* The sender dies in the middle of sending a message of segments (the
 * window of 16 took 16 of its 20): its log replays the whole message. */
static void test_sender_restart_mid_message(void **state)
{
    b_muted = 1;
    assert_int_equal(loop_send(&loop_a, 0, 20 * SEG), 0);
    assert_int_equal(loop_send(&loop_a, 1, 100), -1);    /* behind the message */
    restart(&loop_a);
    b_muted = 0;
    loop_run(MS, 20);
    assert_int_equal(loop_send(&loop_a, 1, 100), 0);
    loop_run(MS, 5);
    assert_exactly_once(2);
    assert_int_equal(loop_b.got_len[0], 20 * SEG);
}

/* ---- SYNC under the MAC ---- */

/* With a key, the restart and its SYNC work as without, and nothing
 * fails the MAC. */
static void test_keyed_restart(void **state)
{
    send_unacknowledged(8, 64);
    restart(&loop_b);
    b_muted = 0;
    loop_run(MS, 5);
    for (uint32_t i = 8; i < 12; i++)
        assert_int_equal(loop_send(&loop_a, i, 64), 0);
    loop_run(MS, 5);
    assert_exactly_once(12);
    assert_int_equal(SWP_A(resyncs), 1);
    assert_int_equal(SWP_A(mac_fail) + SWP_B(mac_fail), 0);
}

/* A SYNC is believed only under the run's key: b "restarts" with its
 * region but another key (a stranger who took its address), and its
 * SYNCs fail a's MAC check, counted; a neither rewinds nor releases
 * anything it holds for b, and b, never answered, sends no DATA. */
static void test_sync_under_another_key_refused(void **state)
{
    send_unacknowledged(4, 64);
    memcpy(loop_b.key, "not the key of this machine, 32!", INI_SWP_KEY_LEN);
    restart(&loop_b);
    b_muted = 0;
    loop_run(MS, 20);
    assert_true(SWP_B(syncs_sent) >= 2);                 /* it kept trying */
    assert_true(SWP_A(mac_fail) >= SWP_B(syncs_sent) - 1);
    assert_int_equal(SWP_A(resyncs), 0);
    assert_int_equal(loop_a.released, 0);                /* nothing taken as delivered */
    assert_int_equal(loop_conn(&loop_a).in_flight, 4);
    assert_true(loop_conn(&loop_b).unsynced);
    assert_int_equal(loop_send(&loop_b, 0, 64), -1);
}

int main(void)
{
    if (loop_global_init("test_swp_restart") < 0)
        return 1;
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
#define S(f) cmocka_unit_test_setup_teardown(f, setup_seg, teardown)
    const struct CMUnitTest tests[] = {
        T(test_region_written),         S(test_region_written_segments),
        T(test_region_wrong_version),   T(test_region_wrong_size),     T(test_region_not_a_region),
        T(test_region_other_run),       T(test_region_unresumable),    T(test_region_other_ini),
        T(test_intent_published),       T(test_intent_not_published),
        T(test_receiver_restart_acks_lost), T(test_receiver_restart_held_frames),
        T(test_sender_restart),         T(test_both_restart),          T(test_sync_answer_lost),
        S(test_receiver_restart_mid_message), S(test_sender_restart_mid_message),
        cmocka_unit_test_setup_teardown(test_keyed_restart, setup_keyed, teardown),
        cmocka_unit_test_setup_teardown(test_sync_under_another_key_refused, setup_keyed, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
