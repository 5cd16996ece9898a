/*
 * test_timers.c - the send_timers / ack_timers structures (timers/).
 *
 * Hand-built cases check the figure 3-2 bookkeeping (ticks_to_go,
 * base_time, max_time) through starts, expiries and cancellations at the
 * head, middle and tail; modular sequence ranges across wraparound; pool
 * exhaustion and recycling; the one-per-connection ACK variant.  A
 * randomized test then runs long random operation sequences against a
 * naive model (an array of (deadline, conn, seq) scanned linearly) for
 * several seeds, each sequence width and both variants, comparing after
 * every operation the return values, the expired timers and their order,
 * and every remaining deadline, and checking the structure's invariants.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "loop_clock.h"
#include "splitmix.h"
#include "timer_list.h"

/* ---- invariants --------------------------------------------------------- */

static int in_pool(const struct timer_list *l, const struct timer_record *r)
{
    /* Every record the list hands around comes from the pool made at init:
     * nothing is allocated afterwards. */
    return r >= l->pool && r < l->pool + l->capacity;
}

static void check_invariants(const struct timer_list *l)
{
    uint32_t count = 0;
    uint64_t sum = 0;
    const struct timer_record *prev = NULL;
    for (const struct timer_record *r = l->head; r; prev = r, r = r->next) {
        assert_true(in_pool(l, r));
        assert_ptr_equal(r->prev, prev);
        assert_true(r->conn < l->n_conns);
        sum += r->ticks_to_go;
        count++;
        assert_true(count <= l->capacity);
    }
    assert_ptr_equal(l->tail, prev);
    assert_int_equal(count, l->in_use);
    if (l->head) {
        assert_int_equal(l->base_time + sum, l->max_time);
        assert_int_equal(timer_list_next_deadline(l), l->base_time + l->head->ticks_to_go);
    } else {
        assert_int_equal(timer_list_next_deadline(l), TIMER_NO_DEADLINE);
    }

    /* Each connection's list is the global list filtered by connection,
     * in the same order, with a correct tail. */
    uint32_t conn_total = 0;
    for (uint32_t c = 0; c < l->n_conns; c++) {
        const struct timer_record *g = l->head, *last = NULL;
        uint32_t n = 0;
        for (const struct timer_record *r = l->conns[c].head; r; r = r->conn_next) {
            assert_true(in_pool(l, r));
            assert_int_equal(r->conn, c);
            while (g && g->conn != c)
                g = g->next;
            assert_ptr_equal(g, r);
            g = g->next;
            last = r;
            n++;
        }
        while (g && g->conn != c)
            g = g->next;
        assert_null(g);
        assert_ptr_equal(l->conns[c].tail, last);
        assert_int_equal(timer_list_conn_active(l, (uint16_t)c), n > 0);
        if (l->one_per_conn)
            assert_true(n <= 1);
        conn_total += n;
    }
    assert_int_equal(conn_total, count);

    uint32_t free_count = 0;
    for (const struct timer_record *r = l->free_records; r; r = r->conn_next) {
        assert_true(in_pool(l, r));
        free_count++;
        assert_true(free_count <= l->capacity);
    }
    assert_int_equal(free_count + count, l->capacity);
}

struct expected { uint64_t deadline; uint16_t conn; uint32_t seq; };

static void assert_pending(const struct timer_list *l, const struct expected *e, uint32_t n)
{
    check_invariants(l);
    assert_int_equal(timer_list_pending(l), n);
    const struct timer_record *r = l->head;
    uint64_t t = l->base_time;
    for (uint32_t i = 0; i < n; i++, r = r->next) {
        assert_non_null(r);
        t += r->ticks_to_go;
        assert_int_equal(t, e[i].deadline);
        assert_int_equal(r->conn, e[i].conn);
        assert_int_equal(r->seq, e[i].seq);
    }
    assert_null(r);
}

static void expect_pop(struct timer_list *l, uint64_t now, uint16_t conn, uint32_t seq)
{
    uint16_t c;
    uint32_t s;
    assert_true(timer_list_pop_expired(l, now, &c, &s));
    assert_int_equal(c, conn);
    assert_int_equal(s, seq);
}

static void expect_no_pop(struct timer_list *l, uint64_t now)
{
    uint16_t c;
    uint32_t s;
    assert_false(timer_list_pop_expired(l, now, &c, &s));
}

/* ---- hand-built cases --------------------------------------------------- */

static void test_start_and_expire_order(void **state)
{
    struct timer_list l;
    assert_int_equal(timer_list_init_send(&l, 4, 16, 100), 0);
    assert_int_equal(timer_list_next_deadline(&l), TIMER_NO_DEADLINE);
    expect_no_pop(&l, UINT64_MAX - 1);

    assert_int_equal(timer_list_start(&l, 0, 1, 10), 0);
    /* First timer: base_time = now, ticks = timeout, max = now + timeout. */
    assert_int_equal(l.base_time, 10);
    assert_int_equal(l.max_time, 110);
    assert_int_equal(l.head->ticks_to_go, 100);
    assert_int_equal(timer_list_start(&l, 1, 2, 15), 0);
    assert_int_equal(timer_list_start(&l, 0, 3, 15), 0);   /* same deadline */
    assert_int_equal(timer_list_start(&l, 2, 4, 40), 0);
    assert_int_equal(l.base_time, 10);
    assert_int_equal(l.max_time, 140);
    /* ticks_to_go = now + timeout - max_time at each start. */
    uint64_t ticks[4], want_ticks[4] = {100, 5, 0, 25};
    uint32_t i = 0;
    for (const struct timer_record *r = l.head; r; r = r->next)
        ticks[i++] = r->ticks_to_go;
    assert_int_equal(i, 4);
    assert_memory_equal(ticks, want_ticks, sizeof ticks);
    struct expected e[] = {{110, 0, 1}, {115, 1, 2}, {115, 0, 3}, {140, 2, 4}};
    assert_pending(&l, e, 4);
    assert_int_equal(timer_list_next_deadline(&l), 110);

    expect_no_pop(&l, 109);
    expect_pop(&l, 110, 0, 1);
    assert_int_equal(l.base_time, 110);     /* the head gave its ticks to base_time */
    assert_int_equal(timer_list_next_deadline(&l), 115);
    expect_no_pop(&l, 114);
    expect_pop(&l, 120, 1, 2);
    expect_pop(&l, 120, 0, 3);              /* equal deadlines: start order */
    expect_no_pop(&l, 120);
    assert_pending(&l, &e[3], 1);
    assert_int_equal(l.max_time, 140);
    expect_pop(&l, 1000, 2, 4);
    assert_pending(&l, NULL, 0);
    assert_int_equal(timer_list_next_deadline(&l), TIMER_NO_DEADLINE);

    /* Empty again: the next start counts from its own now. */
    assert_int_equal(timer_list_start(&l, 3, 9, 2000), 0);
    assert_int_equal(l.base_time, 2000);
    assert_int_equal(l.max_time, 2100);
    timer_list_destroy(&l);
}

struct collected { uint32_t n; uint16_t conn[16]; uint32_t seq[16]; };

static void collect(uint16_t conn, uint32_t seq, void *ctx)
{
    struct collected *c = ctx;
    c->conn[c->n] = conn;
    c->seq[c->n] = seq;
    c->n++;
}

static void test_expire_callback(void **state)
{
    struct timer_list l;
    assert_int_equal(timer_list_init_send(&l, 2, 8, 50), 0);
    for (uint32_t s = 0; s < 5; s++)
        assert_int_equal(timer_list_start(&l, (uint16_t)(s & 1), s, 10 * s), 0);
    struct collected got = {0};
    /* Deadlines 50, 60, 70, 80, 90. */
    assert_int_equal(timer_list_expire(&l, 49, collect, &got), 0);
    assert_int_equal(timer_list_expire(&l, 75, collect, &got), 3);
    assert_int_equal(got.n, 3);
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(got.seq[i], i);
        assert_int_equal(got.conn[i], i & 1);
    }
    assert_int_equal(timer_list_next_deadline(&l), 80);
    check_invariants(&l);
    timer_list_destroy(&l);
}

/* A retransmission restarts the timer from inside the expiry callback: the
 * restarted timer goes to the tail, after now, so the loop ends. */
struct restart_ctx { struct timer_list *l; uint64_t now; uint32_t calls; };

static void restart(uint16_t conn, uint32_t seq, void *ctx)
{
    struct restart_ctx *rc = ctx;
    /* A broken list could expire the restarted timer again at once. */
    assert_true(++rc->calls <= 2);
    assert_int_equal(timer_list_start(rc->l, conn, seq, rc->now), 0);
}

static void test_restart_from_callback(void **state)
{
    struct timer_list l;
    assert_int_equal(timer_list_init_send(&l, 2, 4, 100), 0);
    assert_int_equal(timer_list_start(&l, 0, 7, 0), 0);
    assert_int_equal(timer_list_start(&l, 1, 8, 5), 0);
    struct restart_ctx rc = {&l, 300, 0};
    assert_int_equal(timer_list_expire(&l, rc.now, restart, &rc), 2);
    assert_int_equal(rc.calls, 2);
    struct expected e[] = {{400, 0, 7}, {400, 1, 8}};
    assert_pending(&l, e, 2);
    timer_list_destroy(&l);
}

/* Deadlines 100, 110, 120, 130, 140 for seq 0..4 on connection 0. */
static void five_timers(struct timer_list *l)
{
    assert_int_equal(timer_list_init_send(l, 2, 8, 100), 0);
    for (uint32_t s = 0; s < 5; s++)
        assert_int_equal(timer_list_start(l, 0, s, 10 * s), 0);
}

static void test_cancel_middle_head_tail(void **state)
{
    struct timer_list l;
    five_timers(&l);

    /* Middle: its ticks go to the next record, base/max unchanged. */
    assert_int_equal(timer_list_cancel_one(&l, 0, 2), 1);
    assert_int_equal(l.base_time, 0);
    assert_int_equal(l.max_time, 140);
    assert_int_equal(l.head->next->next->ticks_to_go, 20);
    struct expected e1[] = {{100, 0, 0}, {110, 0, 1}, {130, 0, 3}, {140, 0, 4}};
    assert_pending(&l, e1, 4);

    /* Head: base_time advances to its deadline. */
    assert_int_equal(timer_list_cancel_one(&l, 0, 0), 1);
    assert_int_equal(l.base_time, 100);
    assert_int_equal(l.max_time, 140);
    assert_int_equal(timer_list_next_deadline(&l), 110);
    assert_pending(&l, &e1[1], 3);

    /* Tail: max_time moves back to the new tail's deadline. */
    assert_int_equal(timer_list_cancel_one(&l, 0, 4), 1);
    assert_int_equal(l.base_time, 100);
    assert_int_equal(l.max_time, 130);
    assert_pending(&l, &e1[1], 2);

    /* A new start after a tail removal counts from the moved-back max_time. */
    assert_int_equal(timer_list_start(&l, 1, 50, 45), 0);
    assert_int_equal(l.tail->ticks_to_go, 145 - 130);
    struct expected e2[] = {{110, 0, 1}, {130, 0, 3}, {145, 1, 50}};
    assert_pending(&l, e2, 3);

    assert_int_equal(timer_list_cancel_one(&l, 0, 99), 0);   /* not pending */
    assert_int_equal(timer_list_cancel_one(&l, 1, 1), 0);    /* other conn's seq */
    assert_int_equal(timer_list_cancel_conn(&l, 0), 2);
    assert_pending(&l, &e2[2], 1);
    assert_int_equal(timer_list_cancel_conn(&l, 0), 0);
    /* Last record: the list is empty. */
    assert_int_equal(timer_list_cancel_one(&l, 1, 50), 1);
    assert_pending(&l, NULL, 0);
    timer_list_destroy(&l);
}

static void test_cancel_one_takes_oldest_duplicate(void **state)
{
    struct timer_list l;
    assert_int_equal(timer_list_init_send(&l, 1, 4, 10), 0);
    assert_int_equal(timer_list_start(&l, 0, 5, 0), 0);
    assert_int_equal(timer_list_start(&l, 0, 6, 1), 0);
    assert_int_equal(timer_list_start(&l, 0, 5, 2), 0);
    /* Sequence numbers are matched exactly, not modulo a width. */
    assert_int_equal(timer_list_cancel_one(&l, 0, 0x105), 0);
    assert_int_equal(timer_list_cancel_one(&l, 0, 5), 1);
    struct expected e[] = {{11, 0, 6}, {12, 0, 5}};
    assert_pending(&l, e, 2);
    timer_list_destroy(&l);
}

static void test_cancel_range_8bit_wraparound(void **state)
{
    struct timer_list l;
    assert_int_equal(timer_list_init_send(&l, 2, 64, 1000), 0);
    /* Connection 0: 250..255, 0..5 (twelve packets across the wrap);
     * connection 1 has the same numbers and must not be touched. */
    uint64_t now = 0;
    for (uint32_t i = 0; i < 12; i++, now++) {
        uint32_t s = (250 + i) & 0xff;
        assert_int_equal(timer_list_start(&l, 0, s, now), 0);
        assert_int_equal(timer_list_start(&l, 1, s, now), 0);
    }
    assert_int_equal(timer_list_cancel_range(&l, 0, 7, 7, 8), 0);      /* empty */
    assert_int_equal(timer_list_cancel_range(&l, 0, 6, 250, 8), 0);    /* none inside */
    /* An ACK up to 3 with window bottom 254: cancels 254, 255, 0, 1, 2. */
    assert_int_equal(timer_list_cancel_range(&l, 0, 254, 3, 8), 5);
    check_invariants(&l);
    uint32_t left[] = {250, 251, 252, 253, 3, 4, 5}, i = 0;
    for (const struct timer_record *r = l.conns[0].head; r; r = r->conn_next)
        assert_int_equal(r->seq, left[i++]);
    assert_int_equal(i, 7);
    /* Ranges work on the low bits only: 0x1fb is 251 in 8 bits. */
    assert_int_equal(timer_list_cancel_range(&l, 0, 0x1fb, 0x2fd, 8), 2);   /* 251, 252 */
    /* A range of 255 numbers from 4: everything except 3. */
    assert_int_equal(timer_list_cancel_range(&l, 0, 4, 3, 8), 4);           /* 250, 253, 4, 5 */
    assert_int_equal(l.conns[0].head->seq, 3);
    assert_ptr_equal(l.conns[0].head, l.conns[0].tail);
    assert_int_equal(timer_list_pending(&l), 1 + 12);
    check_invariants(&l);

    /* The same numbers read as 16-bit ones do not wrap at 256: [254, 260)
     * holds 254 and 255 only, where in 8 bits it is [254, 4), six numbers. */
    assert_int_equal(timer_list_cancel_range(&l, 1, 254, 260, 16), 2);
    assert_int_equal(timer_list_cancel_range(&l, 1, 254, 260, 16), 0);
    uint32_t left16[] = {250, 251, 252, 253, 0, 1, 2, 3, 4, 5};
    i = 0;
    for (const struct timer_record *r = l.conns[1].head; r; r = r->conn_next)
        assert_int_equal(r->seq, left16[i++]);
    assert_int_equal(i, 10);
    assert_int_equal(timer_list_cancel_range(&l, 1, 254, 260, 8), 4);   /* 0..3 */
    check_invariants(&l);
    timer_list_destroy(&l);
}

/* A cumulative ACK takes the connection's oldest records as one run when
 * they are neighbours in the list of all records: at the head, in the
 * middle and at the tail, with another connection's timers around them and
 * a restarted one of the range further on.  Deadlines of the rest keep. */
static void test_cancel_range_run(void **state)
{
    struct timer_list l;
    assert_int_equal(timer_list_init_send(&l, 2, 16, 100), 0);
    assert_int_equal(timer_list_start(&l, 1, 50, 0), 0);          /* 100 */
    for (uint32_t s = 0; s < 4; s++)
        assert_int_equal(timer_list_start(&l, 0, s, 1 + s), 0);   /* 101..104 */
    assert_int_equal(timer_list_start(&l, 1, 51, 5), 0);          /* 105 */
    assert_int_equal(timer_list_start(&l, 0, 4, 6), 0);           /* 106 */
    assert_int_equal(timer_list_start(&l, 0, 1, 7), 0);           /* 107: 1 again */
    /* [0, 3): the run 0, 1, 2 in the middle, and the restarted 1. */
    assert_int_equal(timer_list_cancel_range(&l, 0, 0, 3, 32), 4);
    struct expected e1[] = {{100, 1, 50}, {104, 0, 3}, {105, 1, 51}, {106, 0, 4}};
    assert_pending(&l, e1, 4);
    /* At the head: conn 1's 50, then its 51 apart from it. */
    assert_int_equal(timer_list_cancel_range(&l, 1, 50, 52, 32), 2);
    struct expected e2[] = {{104, 0, 3}, {106, 0, 4}};
    assert_pending(&l, e2, 2);
    /* The whole list as one run. */
    assert_int_equal(timer_list_cancel_range(&l, 0, 3, 5, 32), 2);
    assert_pending(&l, NULL, 0);
    assert_null(l.conns[0].head);
    assert_null(l.conns[0].tail);
    /* At the tail, after another connection's timer; then a start reuses
     * the records. */
    assert_int_equal(timer_list_start(&l, 1, 60, 200), 0);        /* 300 */
    for (uint32_t s = 7; s < 10; s++)
        assert_int_equal(timer_list_start(&l, 0, s, 201), 0);     /* 301 */
    assert_int_equal(timer_list_cancel_range(&l, 0, 7, 10, 32), 3);
    assert_int_equal(timer_list_start(&l, 0, 10, 202), 0);        /* 302 */
    struct expected e3[] = {{300, 1, 60}, {302, 0, 10}};
    assert_pending(&l, e3, 2);
    timer_list_destroy(&l);
}

/* A connection's only record (one message in flight, as in a request
 * answered): taken without a walk when in range, wherever it sits in the
 * list of all records; left when not.  Its neighbours' deadlines stay. */
static void test_cancel_range_single(void **state)
{
    struct timer_list l;
    assert_int_equal(timer_list_init_send(&l, 3, 16, 100), 0);
    assert_int_equal(timer_list_start(&l, 1, 7, 0), 0);           /* 100 */
    assert_int_equal(timer_list_start(&l, 0, 250, 3), 0);         /* 103 */
    assert_int_equal(timer_list_start(&l, 2, 9, 5), 0);           /* 105 */
    assert_int_equal(timer_list_cancel_range(&l, 0, 251, 4, 8), 0);   /* 250 is below */
    assert_int_equal(timer_list_cancel_range(&l, 0, 240, 250, 8), 0); /* and above */
    struct expected e1[] = {{100, 1, 7}, {103, 0, 250}, {105, 2, 9}};
    assert_pending(&l, e1, 3);
    assert_int_equal(timer_list_cancel_range(&l, 0, 250, 2, 8), 1);   /* across the wrap */
    struct expected e2[] = {{100, 1, 7}, {105, 2, 9}};
    assert_pending(&l, e2, 2);
    assert_null(l.conns[0].head);
    /* At the head and at the tail of the list of all records. */
    assert_int_equal(timer_list_cancel_range(&l, 1, 7, 8, 32), 1);
    assert_int_equal(timer_list_cancel_range(&l, 2, 0, 10, 32), 1);
    assert_pending(&l, NULL, 0);
    assert_int_equal(timer_list_start(&l, 0, 1, 6), 0);           /* records reused */
    struct expected e3[] = {{106, 0, 1}};
    assert_pending(&l, e3, 1);
    timer_list_destroy(&l);
}

/* max - 1, max, 0, 1 started at times 0..3 (max: the largest number of
 * `bits` bits); an ACK of the range [max, 1) cancels max and 0 only. */
static void cancel_across_wrap(int bits, uint32_t max)
{
    struct timer_list l;
    assert_int_equal(timer_list_init_send(&l, 1, 8, 10), 0);
    uint32_t seqs[] = {max - 1, max, 0, 1};
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(timer_list_start(&l, 0, seqs[i], i), 0);
    assert_int_equal(timer_list_cancel_range(&l, 0, max, 1, bits), 2);
    struct expected e[] = {{10, 0, max - 1}, {13, 0, 1}};
    assert_pending(&l, e, 2);
    timer_list_destroy(&l);
}

static void test_cancel_range_16_and_32bit_wraparound(void **state)
{
    cancel_across_wrap(32, UINT32_MAX);
    cancel_across_wrap(16, 0xffff);
}

static void test_pool_exhaustion_and_recycling(void **state)
{
    struct timer_list l;
    assert_int_equal(timer_list_init_send(&l, 2, 4, 10), 0);
    const struct timer_record *pool = l.pool;
    uint64_t now = 0;
    for (uint32_t s = 0; s < 4; s++)
        assert_int_equal(timer_list_start(&l, (uint16_t)(s & 1), s, now++), 0);
    assert_int_equal(timer_list_start(&l, 0, 4, now), -ENOSPC);
    assert_int_equal(timer_list_pending(&l), 4);
    check_invariants(&l);
    /* A cancelled record is reused at once. */
    assert_int_equal(timer_list_cancel_one(&l, 1, 1), 1);
    assert_int_equal(timer_list_start(&l, 0, 4, now), 0);
    assert_int_equal(timer_list_start(&l, 0, 5, now), -ENOSPC);
    check_invariants(&l);

    /* Many fill / drain cycles: the same four records, the same pool. */
    for (uint32_t round = 0; round < 1000; round++) {
        now += 100;
        while (timer_list_pop_expired(&l, now, &(uint16_t){0}, &(uint32_t){0}))
            ;
        assert_int_equal(timer_list_pending(&l), 0);
        for (uint32_t s = 0; s < 4; s++)
            assert_int_equal(timer_list_start(&l, (uint16_t)(s & 1), s, now + s), 0);
        assert_int_equal(timer_list_start(&l, 1, 9, now + 4), -ENOSPC);
        if (round % 2)
            assert_int_equal(timer_list_cancel_range(&l, 0, 0, 4, 8), 2);
    }
    assert_ptr_equal(l.pool, pool);
    assert_int_equal(l.capacity, 4);
    check_invariants(&l);
    timer_list_destroy(&l);
}

static void test_ack_timers_one_per_connection(void **state)
{
    struct timer_list l;
    assert_int_equal(timer_list_init_ack(&l, 3, 20), 0);
    assert_int_equal(l.capacity, 3);
    assert_false(timer_list_conn_active(&l, 1));
    assert_int_equal(timer_list_start(&l, 1, 100, 0), 0);
    assert_true(timer_list_conn_active(&l, 1));
    assert_false(timer_list_conn_active(&l, 0));
    assert_false(timer_list_conn_active(&l, 3));     /* out of range */
    assert_int_equal(timer_list_start(&l, 1, 101, 5), -EBUSY);
    assert_int_equal(timer_list_start(&l, 0, 7, 5), 0);
    assert_int_equal(timer_list_start(&l, 2, 9, 6), 0);
    struct expected e[] = {{20, 1, 100}, {25, 0, 7}, {26, 2, 9}};
    assert_pending(&l, e, 3);

    /* Cancel by connection (outgoing data carried the ACK): O(1), the
     * connection's head is its only record. */
    assert_int_equal(timer_list_cancel_conn(&l, 0), 1);
    assert_false(timer_list_conn_active(&l, 0));
    assert_int_equal(timer_list_cancel_conn(&l, 0), 0);
    struct expected e2[] = {{20, 1, 100}, {26, 2, 9}};
    assert_pending(&l, e2, 2);
    assert_int_equal(timer_list_start(&l, 0, 8, 10), 0);
    expect_pop(&l, 20, 1, 100);
    assert_false(timer_list_conn_active(&l, 1));
    assert_int_equal(timer_list_start(&l, 1, 102, 20), 0);
    struct expected e3[] = {{26, 2, 9}, {30, 0, 8}, {40, 1, 102}};
    assert_pending(&l, e3, 3);
    timer_list_destroy(&l);
}

static void test_invalid_arguments(void **state)
{
    struct timer_list l;
    assert_int_equal(timer_list_init_send(&l, 0, 4, 10), -EINVAL);
    assert_int_equal(timer_list_init_send(&l, 1, 0, 10), -EINVAL);
    assert_int_equal(timer_list_init_send(&l, 1, 4, 0), -EINVAL);
    assert_int_equal(timer_list_init_send(&l, TIMER_MAX_CONNS + 1, 4, 10), -EINVAL);
    assert_int_equal(timer_list_init_ack(&l, 0, 10), -EINVAL);

    assert_int_equal(timer_list_init_send(&l, 2, 4, 10), 0);
    assert_int_equal(timer_list_start(&l, 2, 0, 0), -EINVAL);
    assert_int_equal(timer_list_start(&l, 0, 0, UINT64_MAX - 10), -EINVAL);
    assert_int_equal(timer_list_start(&l, 0, 0, 100), 0);
    assert_int_equal(timer_list_start(&l, 0, 1, 99), -EINVAL);   /* time went back */
    assert_int_equal(timer_list_cancel_range(&l, 0, 0, 1, 0), -EINVAL);
    assert_int_equal(timer_list_cancel_range(&l, 0, 0, 1, 33), -EINVAL);
    assert_int_equal(timer_list_cancel_range(&l, 2, 0, 1, 8), -EINVAL);
    assert_int_equal(timer_list_cancel_one(&l, 2, 0), -EINVAL);
    assert_int_equal(timer_list_cancel_conn(&l, 2), -EINVAL);
    assert_int_equal(timer_list_pending(&l), 1);
    check_invariants(&l);
    timer_list_destroy(&l);

    /* The full connection-id space is allowed. */
    assert_int_equal(timer_list_init_ack(&l, TIMER_MAX_CONNS, 10), 0);
    assert_int_equal(timer_list_start(&l, UINT16_MAX, 1, 0), 0);
    assert_true(timer_list_conn_active(&l, UINT16_MAX));
    timer_list_destroy(&l);
}

/* ---- randomized comparison with a naive model --------------------------- */

struct model_timer { uint64_t deadline; uint64_t serial; uint16_t conn; uint32_t seq; };

struct model {
    struct model_timer *t;   /* unordered; scanned linearly */
    uint32_t n, capacity;
    uint64_t timeout, serial;
    int one_per_conn;
};

static int model_start(struct model *m, uint16_t conn, uint32_t seq, uint64_t now)
{
    if (m->one_per_conn)
        for (uint32_t i = 0; i < m->n; i++)
            if (m->t[i].conn == conn)
                return -EBUSY;
    if (m->n == m->capacity)
        return -ENOSPC;
    m->t[m->n++] = (struct model_timer){now + m->timeout, m->serial++, conn, seq};
    return 0;
}

static void model_remove(struct model *m, uint32_t i)
{
    m->t[i] = m->t[--m->n];
}

/* Index of the earliest timer (ties: started first), or -1. */
static int model_earliest(const struct model *m)
{
    int best = -1;
    for (uint32_t i = 0; i < m->n; i++)
        if (best < 0 || m->t[i].deadline < m->t[best].deadline ||
            (m->t[i].deadline == m->t[best].deadline && m->t[i].serial < m->t[best].serial))
            best = (int)i;
    return best;
}

static int model_cancel_range(struct model *m, uint16_t conn, uint32_t from,
                              uint32_t to, unsigned bits)
{
    /* Written differently from the module: 64-bit modular arithmetic. */
    const uint64_t mod = UINT64_C(1) << bits;
    const uint64_t span = (to % mod + mod - from % mod) % mod;
    int n = 0;
    for (uint32_t i = 0; i < m->n;) {
        uint64_t off = (m->t[i].seq % mod + mod - from % mod) % mod;
        if (m->t[i].conn == conn && off < span) {
            model_remove(m, i);
            n++;
        } else {
            i++;
        }
    }
    return n;
}

static int model_cancel_one(struct model *m, uint16_t conn, uint32_t seq)
{
    int best = -1;
    for (uint32_t i = 0; i < m->n; i++)
        if (m->t[i].conn == conn && m->t[i].seq == seq &&
            (best < 0 || m->t[i].serial < m->t[best].serial))
            best = (int)i;
    if (best < 0)
        return 0;
    model_remove(m, (uint32_t)best);
    return 1;
}

static int model_cancel_conn(struct model *m, uint16_t conn)
{
    int n = 0;
    for (uint32_t i = 0; i < m->n;) {
        if (m->t[i].conn == conn) {
            model_remove(m, i);
            n++;
        } else {
            i++;
        }
    }
    return n;
}

static int cmp_model_timer(const void *a, const void *b)
{
    const struct model_timer *x = a, *y = b;
    if (x->deadline != y->deadline)
        return x->deadline < y->deadline ? -1 : 1;
    return x->serial < y->serial ? -1 : x->serial > y->serial;
}

/* Every pending timer, deadline and order, must agree with the model. */
static void compare(const struct timer_list *l, const struct model *m)
{
    struct model_timer sorted[m->n + 1];
    memcpy(sorted, m->t, m->n * sizeof *sorted);
    qsort(sorted, m->n, sizeof *sorted, cmp_model_timer);
    struct expected e[m->n + 1];
    for (uint32_t i = 0; i < m->n; i++)
        e[i] = (struct expected){ sorted[i].deadline, sorted[i].conn, sorted[i].seq };
    assert_pending(l, e, m->n);
    assert_int_equal(timer_list_next_deadline(l),
                     m->n ? sorted[0].deadline : TIMER_NO_DEADLINE);
}

static uint64_t rng_next(uint64_t *s) { return ini_splitmix64(s); }

static uint32_t rng_below(uint64_t *s, uint32_t n) { return (uint32_t)(rng_next(s) % n); }

#define RANDOM_CONNS 5
#define RANDOM_OPS   6000

/* One random run against the model: the list, the model, the random
 * stream and what the run has done so far. */
struct random_run {
    struct timer_list l;
    struct model m;
    uint64_t rng, now;
    unsigned bits;
    uint32_t window, mask;
    uint32_t next_seq[RANDOM_CONNS];
    uint32_t expired_total, cancelled_total, enospc, most_pending;
};

#define RANDOM_TIMEOUT 1000

static void random_run_init(struct random_run *r, uint64_t seed, unsigned bits, int ack)
{
    memset(r, 0, sizeof *r);
    r->bits = bits;
    r->window = bits == 8 ? 24 : 40;
    r->mask = bits == 32 ? UINT32_MAX : (UINT32_C(1) << bits) - 1;
    if (ack)
        assert_int_equal(timer_list_init_ack(&r->l, RANDOM_CONNS, RANDOM_TIMEOUT), 0);
    else
        /* Fewer records than the connections' windows add up to, since
         * the random starts ignore windows: the pool runs out now and then. */
        assert_int_equal(timer_list_init_send(&r->l, RANDOM_CONNS, 24, RANDOM_TIMEOUT), 0);
    r->m.capacity = r->l.capacity;
    r->m.timeout = RANDOM_TIMEOUT;
    r->m.one_per_conn = ack;
    r->m.t = calloc(r->m.capacity, sizeof *r->m.t);
    assert_non_null(r->m.t);

    r->rng = seed * 1000003u + bits + (uint64_t)ack * 7;
    /* Start near the top of the width so sequence numbers wrap early; the
     * 32-bit case starts just below 2^32. */
    for (uint32_t c = 0; c < RANDOM_CONNS; c++)
        r->next_seq[c] = (r->mask - rng_below(&r->rng, 64)) & r->mask;
    r->now = rng_next(&r->rng) >> 8;    /* anywhere, far from overflow */
}

/* Time mostly creeps (often not at all: equal deadlines) so that dozens of
 * timers are pending and the pool fills up; now and then it jumps by up to
 * twice the timeout. */
static void random_advance(struct random_run *r)
{
    uint32_t step = rng_below(&r->rng, 100);
    if (step < 2)
        r->now += rng_below(&r->rng, 2 * RANDOM_TIMEOUT);
    else if (step < 40)
        r->now += rng_below(&r->rng, 30);
}

static void random_start(struct random_run *r, uint16_t conn)
{
    uint32_t seq = r->next_seq[conn];
    r->next_seq[conn] = (r->next_seq[conn] + 1) & r->mask;
    int want = model_start(&r->m, conn, seq, r->now);
    assert_int_equal(timer_list_start(&r->l, conn, seq, r->now), want);
    r->enospc += want == -ENOSPC;
}

/* Expire at now, or at a time a little ahead (the loop may look ahead; the
 * model does not care). */
static void random_expire(struct random_run *r)
{
    uint64_t at = r->now + (rng_below(&r->rng, 4) == 0 ? rng_below(&r->rng, 2 * RANDOM_TIMEOUT) : 0);
    uint16_t c;
    uint32_t s;
    for (;;) {
        int i = model_earliest(&r->m);
        int due = i >= 0 && r->m.t[i].deadline <= at;
        assert_int_equal(timer_list_pop_expired(&r->l, at, &c, &s), due);
        if (!due)
            break;
        assert_int_equal(c, r->m.t[i].conn);
        assert_int_equal(s, r->m.t[i].seq);
        model_remove(&r->m, (uint32_t)i);
        r->expired_total++;
    }
    r->now = at;
}

/* An ACK: usually [a pending seq or the window bottom, something up to a
 * window past it), sometimes any two numbers. */
static void random_ack(struct random_run *r, uint16_t conn)
{
    uint32_t from, to;
    if (rng_below(&r->rng, 8) == 0) {
        from = (uint32_t)rng_next(&r->rng);
        to = (uint32_t)rng_next(&r->rng);
    } else {
        from = r->next_seq[conn] - rng_below(&r->rng, 2 * r->window);
        to = from + rng_below(&r->rng, r->window + 1);
        /* Bits above the width must not matter. */
        if (rng_below(&r->rng, 2)) {
            from |= ~r->mask;
            to |= ~r->mask & (uint32_t)rng_next(&r->rng);
        }
    }
    int want = model_cancel_range(&r->m, conn, from, to, r->bits);
    assert_int_equal(timer_list_cancel_range(&r->l, conn, from, to, r->bits), want);
    r->cancelled_total += (uint32_t)want;
}

/* A NAK: cancel one pending (or not) seq, and usually restart. */
static void random_nak(struct random_run *r, uint16_t conn)
{
    uint32_t seq = (r->next_seq[conn] - 1 - rng_below(&r->rng, 2 * r->window)) & r->mask;
    int want = model_cancel_one(&r->m, conn, seq);
    assert_int_equal(timer_list_cancel_one(&r->l, conn, seq), want);
    if (want && rng_below(&r->rng, 4)) {
        int w = model_start(&r->m, conn, seq, r->now);
        assert_int_equal(timer_list_start(&r->l, conn, seq, r->now), w);
    }
}

static void random_cancel_conn(struct random_run *r, uint16_t conn)
{
    int want = model_cancel_conn(&r->m, conn);
    assert_int_equal(timer_list_cancel_conn(&r->l, conn), want);
    r->cancelled_total += (uint32_t)want;
}

/* RANDOM_OPS random operations on a list and the model, compared after
 * each.  Returns how many starts found the pool exhausted. */
static uint32_t run_random(uint64_t seed, unsigned bits, int ack)
{
    struct random_run r;
    random_run_init(&r, seed, bits, ack);
    for (uint32_t op = 0; op < RANDOM_OPS; op++) {
        random_advance(&r);
        uint16_t conn = (uint16_t)rng_below(&r.rng, RANDOM_CONNS);
        uint32_t kind = rng_below(&r.rng, 100);
        if (kind < 45)
            random_start(&r, conn);
        else if (kind < 65)
            random_expire(&r);
        else if (kind < 85)
            random_ack(&r, conn);
        else if (kind < 95)
            random_nak(&r, conn);
        else
            random_cancel_conn(&r, conn);
        compare(&r.l, &r.m);
        if (r.m.n > r.most_pending)
            r.most_pending = r.m.n;
    }
    /* The run must have exercised every path, not just idled. */
    assert_true(r.expired_total > 100);
    assert_true(r.cancelled_total > 100);
    assert_int_equal(r.most_pending, r.m.capacity);
    free(r.m.t);
    timer_list_destroy(&r.l);
    return r.enospc;
}

static const uint64_t seeds[] = {1, 2, 3, 42, 2024, 0xdeadbeef};

static void random_for_width(unsigned bits, int ack)
{
    uint32_t enospc = 0;
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++)
        enospc += run_random(seeds[i], bits, ack);
    /* SEND lists ran out of records (and said so) many times; an ACK list,
     * with one record per connection, never can. */
    if (ack)
        assert_int_equal(enospc, 0);
    else
        assert_true(enospc > 50);
}

static void test_random_send_8bit(void **state)  { random_for_width(8, 0); }
static void test_random_send_16bit(void **state) { random_for_width(16, 0); }
static void test_random_send_32bit(void **state) { random_for_width(32, 0); }
static void test_random_ack_8bit(void **state)   { random_for_width(8, 1); }
static void test_random_ack_16bit(void **state)  { random_for_width(16, 1); }
static void test_random_ack_32bit(void **state)  { random_for_width(32, 1); }

/* A small pool under heavy start pressure: exhaustion must be reported
 * exactly when the model is full, never by growing. */
static void test_random_small_pool(void **state)
{
    for (uint64_t seed = 1; seed <= 4; seed++) {
        struct timer_list l;
        assert_int_equal(timer_list_init_send(&l, 3, 7, 50), 0);
        const struct timer_record *pool = l.pool;
        struct model m = {calloc(7, sizeof(struct model_timer)), 0, 7, 50, 0, 0};
        uint64_t rng = seed, now = 0;
        uint32_t seq = 0, full = 0;
        for (uint32_t op = 0; op < 4000; op++) {
            now += rng_below(&rng, 8);
            uint16_t conn = (uint16_t)rng_below(&rng, 3);
            if (rng_below(&rng, 3)) {
                int want = model_start(&m, conn, seq, now);
                assert_int_equal(timer_list_start(&l, conn, seq++, now), want);
                full += want == -ENOSPC;
            } else {
                uint16_t c;
                uint32_t s;
                int i;
                while ((i = model_earliest(&m)) >= 0 && m.t[i].deadline <= now) {
                    assert_true(timer_list_pop_expired(&l, now, &c, &s));
                    assert_int_equal(s, m.t[i].seq);
                    model_remove(&m, (uint32_t)i);
                }
                assert_false(timer_list_pop_expired(&l, now, &c, &s));
            }
            compare(&l, &m);
        }
        assert_true(full > 100);
        assert_ptr_equal(l.pool, pool);
        free(m.t);
        timer_list_destroy(&l);
    }
}


/* The loop clock reads after a busy turn and every `every` idle turns,
 * never goes backwards, and with every = 1 reads each turn. */
static void test_loop_clock_policy(void **state)
{
    (void)state;
    struct loop_clock c;
    loop_clock_init(&c, 4);
    /* Idle: turns 0, 4, 8 read. */
    int reads[10];
    for (int t = 0; t < 10; t++)
        reads[t] = loop_clock_due(&c);
    for (int t = 0; t < 10; t++)
        assert_int_equal(reads[t], t % 4 == 0);
    /* Mid-count, a busy turn: the next turn reads, then three do not. */
    assert_int_equal(loop_clock_due(&c), 0);
    loop_clock_expire(&c);
    assert_int_equal(loop_clock_due(&c), 1);
    for (int t = 0; t < 3; t++)
        assert_int_equal(loop_clock_due(&c), 0);
    assert_int_equal(loop_clock_due(&c), 1);
    /* A reading covers its own turn and the next three. */
    loop_clock_expire(&c);
    uint64_t r = loop_clock_turn(&c);
    for (int t = 0; t < 3; t++)
        assert_true(loop_clock_turn(&c) == r);
    /* Time never goes backwards, read or not. */
    uint64_t last = r;
    for (int t = 0; t < 1000; t++) {
        uint64_t now = loop_clock_turn(&c);
        assert_true(now >= last);
        last = now;
        if (t % 7 == 0)
            loop_clock_expire(&c);
    }
    /* every = 1 (and 0, taken as 1): each turn reads. */
    for (uint32_t e = 0; e <= 1; e++) {
        loop_clock_init(&c, e);
        for (int t = 0; t < 5; t++)
            assert_int_equal(loop_clock_due(&c), 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start_and_expire_order),
        cmocka_unit_test(test_expire_callback),
        cmocka_unit_test(test_restart_from_callback),
        cmocka_unit_test(test_cancel_middle_head_tail),
        cmocka_unit_test(test_cancel_one_takes_oldest_duplicate),
        cmocka_unit_test(test_cancel_range_8bit_wraparound),
        cmocka_unit_test(test_cancel_range_16_and_32bit_wraparound),
        cmocka_unit_test(test_cancel_range_run),
        cmocka_unit_test(test_cancel_range_single),
        cmocka_unit_test(test_loop_clock_policy),
        cmocka_unit_test(test_pool_exhaustion_and_recycling),
        cmocka_unit_test(test_ack_timers_one_per_connection),
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_random_send_8bit),
        cmocka_unit_test(test_random_send_16bit),
        cmocka_unit_test(test_random_send_32bit),
        cmocka_unit_test(test_random_ack_8bit),
        cmocka_unit_test(test_random_ack_16bit),
        cmocka_unit_test(test_random_ack_32bit),
        cmocka_unit_test(test_random_small_pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
