/*
 * timer_list.c - send_timers / ack_timers (see timer_list.h for the design).
 */
#include "timer_list.h"

#include <errno.h>
#include <stdlib.h>

#include "fifo.h"
#include "ini_assert.h"

static int init_common(struct timer_list *l, uint32_t n_conns, uint32_t capacity,
                       uint64_t timeout, bool one_per_conn)
{
    *l = (struct timer_list){0};
    if (n_conns == 0 || n_conns > TIMER_MAX_CONNS || capacity == 0 || timeout == 0)
        return -EINVAL;
    /* Counts are returned as int by the cancel functions. */
    if (capacity > (uint32_t)INT32_MAX)
        return -EINVAL;
    l->pool = calloc(capacity, sizeof *l->pool);
    l->conns = calloc(n_conns, sizeof *l->conns);
    if (!l->pool || !l->conns) {
        free(l->pool);
        free(l->conns);
        *l = (struct timer_list){0};
        return -ENOMEM;
    }
    /* Free list in pool order, threaded through conn_next (unused while a
     * record is free). */
    for (uint32_t i = 0; i + 1 < capacity; i++)
        l->pool[i].conn_next = &l->pool[i + 1];
    l->free_records = &l->pool[0];
    l->capacity = capacity;
    l->n_conns = n_conns;
    l->timeout = timeout;
    l->one_per_conn = one_per_conn;
    return 0;
}

int timer_list_init_send(struct timer_list *l, uint32_t n_conns,
                         uint32_t capacity, uint64_t timeout)
{
    return init_common(l, n_conns, capacity, timeout, false);
}

int timer_list_init_ack(struct timer_list *l, uint32_t n_conns, uint64_t timeout)
{
    /* One record per connection can never run out. */
    return init_common(l, n_conns, n_conns, timeout, true);
}

void timer_list_destroy(struct timer_list *l)
{
    free(l->pool);
    free(l->conns);
    *l = (struct timer_list){0};
}

int timer_list_start(struct timer_list *l, uint16_t conn, uint32_t seq, uint64_t now)
{
    /* Deadlines stay below TIMER_NO_DEADLINE so that value means "none". */
    if (conn >= l->n_conns || now >= UINT64_MAX - l->timeout)
        return -EINVAL;
    uint64_t deadline = now + l->timeout;
    /* The tail's deadline came from an earlier now (or a later removal moved
     * it back), so it is only above this one if time went backwards; the
     * new record could not go at the tail then. */
    if (l->head && deadline < l->max_time)
        return -EINVAL;
    struct timer_conn *c = &l->conns[conn];
    if (l->one_per_conn && c->head)
        return -EBUSY;
    struct timer_record *r = l->free_records;
    if (!r)
        return -ENOSPC;
    l->free_records = r->conn_next;
    l->in_use++;

    r->seq = seq;
    r->conn = conn;
    r->conn_next = NULL;
    r->next = NULL;
    if (l->head) {
        r->ticks_to_go = deadline - l->max_time;
        r->prev = l->tail;
        l->tail->next = r;
    } else {
        l->base_time = now;
        r->ticks_to_go = l->timeout;
        r->prev = NULL;
        l->head = r;
    }
    l->tail = r;
    l->max_time = deadline;

    FIFO_APPEND(c->head, c->tail, r, conn_next);
    /* Records come from the pool; the tail's deadline is the latest; the
     * ACK variant holds one record per connection. */
    INI_ASSERT(l->in_use <= l->capacity);
    INI_ASSERT(l->max_time >= l->base_time);
    INI_ASSERT(!l->one_per_conn || c->head == c->tail);
    return 0;
}

/* Removes n records of connection c, first..last, which follow one
 * another in c's list (after conn_prev, NULL at its head) and in the list
 * of all records, keeping every other record's deadline: one unlink with
 * the sum of their ticks (a head gives them to base_time, a middle run to
 * its successor, a tail takes them back from max_time) and one splice
 * onto the free list (both lists run through conn_next). */
static void remove_run(struct timer_list *l, struct timer_conn *c, struct timer_record *conn_prev,
                       struct timer_record *first, struct timer_record *last, uint64_t ticks, uint32_t n)
{
    INI_ASSERT(n >= 1 && n <= l->in_use);
    INI_ASSERT(first->conn == last->conn && (conn_prev ? conn_prev->conn_next : c->head) == first);
    if (conn_prev)
        conn_prev->conn_next = last->conn_next;
    else
        c->head = last->conn_next;
    if (c->tail == last)
        c->tail = conn_prev;
    struct timer_record *prev = first->prev, *next = last->next;
    if (prev)
        prev->next = next;
    else
        l->head = next;
    if (next)
        next->prev = prev;
    else
        l->tail = prev;
    if (!prev && !next)
        l->base_time = l->max_time = 0;     /* empty: the next start sets both afresh */
    else if (!prev)
        l->base_time += ticks;
    else if (!next)
        l->max_time -= ticks;
    else
        next->ticks_to_go += ticks;
    first->prev = NULL;
    last->next = NULL;
    last->conn_next = l->free_records;
    l->free_records = first;
    l->in_use -= n;
}

/* Removes r, found while walking its connection's list right after
 * conn_prev (NULL when r is the connection's first record). */
static void remove_record(struct timer_list *l, struct timer_record *conn_prev,
                          struct timer_record *r)
{
    remove_run(l, &l->conns[r->conn], conn_prev, r, r, r->ticks_to_go, 1);
}

/* Removes the earliest timer (timer_list_pop_expired checked that it is
 * due); false when the list is empty. */
bool timer_list_pop_head(struct timer_list *l, uint16_t *conn, uint32_t *seq)
{
    struct timer_record *r = l->head;
    if (!r)
        return false;
    *conn = r->conn;
    *seq = r->seq;
    /* The oldest record of all is the oldest of its connection: both lists
     * keep start order, so it heads its connection's list. */
    INI_ASSERT(l->conns[r->conn].head == r);
    remove_record(l, NULL, r);
    return true;
}

uint32_t timer_list_expire(struct timer_list *l, uint64_t now,
                           timer_expired_fn fn, void *ctx)
{
    uint32_t n = 0;
    uint16_t conn;
    uint32_t seq;
    while (timer_list_pop_expired(l, now, &conn, &seq)) {
        n++;
        fn(conn, seq, ctx);
    }
    return n;
}

static inline uint32_t seq_mask(unsigned seq_bits)
{
    return seq_bits == 32 ? UINT32_MAX : (UINT32_C(1) << seq_bits) - 1;
}

int timer_list_cancel_range(struct timer_list *l, uint16_t conn,
                            uint32_t from, uint32_t to, unsigned seq_bits)
{
    if (conn >= l->n_conns || seq_bits < 1 || seq_bits > 32)
        return -EINVAL;
    const uint32_t mask = seq_mask(seq_bits);
    /* Unsigned subtraction wraps mod 2^32; masking reduces it mod 2^w. */
    const uint32_t span = (to - from) & mask;
    int cancelled = 0;
    /* Records in range are taken in runs: a cumulative ACK's are the
     * connection's oldest and, with one connection sending, neighbours in
     * the list of all records too, so a window's worth goes in one unlink.
     * A run ends at a record out of range or one that is not the previous
     * one's neighbour in the list of all records (another connection's
     * timer between them; a retransmission restarted at the tail). */
    struct timer_conn *c = &l->conns[conn];
    if (c->head && c->head == c->tail) {
        /* One record (a request answered, one message in flight): no
         * walk, no run. */
        struct timer_record *only = c->head;
        if (((only->seq - from) & mask) >= span)
            return 0;
        remove_record(l, NULL, only);
        return 1;
    }
    struct timer_record *conn_prev = NULL, *first = NULL, *last = NULL, *r = c->head;
    uint64_t ticks = 0;
    uint32_t n = 0;
    while (r) {
        struct timer_record *conn_next = r->conn_next;
        int in = ((r->seq - from) & mask) < span;
        if (first && (!in || last->next != r)) {
            remove_run(l, c, conn_prev, first, last, ticks, n);
            cancelled += (int)n;
            first = NULL;
        }
        if (in) {
            if (!first) {
                first = r;
                ticks = 0;
                n = 0;
            }
            ticks += r->ticks_to_go;
            last = r;
            n++;
        } else {
            conn_prev = r;
        }
        r = conn_next;
    }
    if (first) {
        remove_run(l, c, conn_prev, first, last, ticks, n);
        cancelled += (int)n;
    }
    return cancelled;
}

int timer_list_cancel_one(struct timer_list *l, uint16_t conn, uint32_t seq)
{
    if (conn >= l->n_conns)
        return -EINVAL;
    struct timer_record *conn_prev = NULL;
    for (struct timer_record *r = l->conns[conn].head; r; conn_prev = r, r = r->conn_next) {
        if (r->seq == seq) {
            remove_record(l, conn_prev, r);
            return 1;
        }
    }
    return 0;
}

int timer_list_cancel_conn(struct timer_list *l, uint16_t conn)
{
    if (conn >= l->n_conns)
        return -EINVAL;
    int cancelled = 0;
    struct timer_record *r;
    while ((r = l->conns[conn].head) != NULL) {
        remove_record(l, NULL, r);
        cancelled++;
    }
    return cancelled;
}
