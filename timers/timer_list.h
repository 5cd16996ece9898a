/*
 * timer_list.h - the software timers of the sliding-window transport: the
 * send_timers and ack_timers structures of the thesis (section 3.2.2,
 * figure 3-2).
 *
 * An INI keeps many logical timers (one SEND timer per unacknowledged
 * packet, one ACK timer per connection) but the protocol loop must only
 * compare the current time with ONE value per structure, the "hardware
 * timer" (timer_list_next_deadline).  That is cheap because every timer of
 * a list has the same fixed timeout: a timer started later always expires
 * later (or at the same time), so the list is sorted by deadline simply by
 * appending at the tail, and nothing is ever scanned to find the next
 * deadline.
 *
 * Design
 *   - One doubly linked list of records in start order = deadline order.
 *     A record stores its deadline relative to the previous record
 *     (ticks_to_go); the list stores base_time (the time the head's
 *     ticks_to_go counts from) and max_time (the tail's deadline), so
 *       deadline(r) = base_time + sum of ticks_to_go from the head to r
 *       max_time    = base_time + sum of all ticks_to_go
 *     Starting: ticks_to_go = now + timeout - max_time, append: O(1).
 *     Head deadline: base_time + head->ticks_to_go: O(1).
 *     Removing a record keeps the encoding right: a head gives its ticks
 *     to base_time, a middle record to its successor, a tail takes them
 *     back from max_time: O(1) once the record is found.
 *   - Each connection has its own singly linked list of its records
 *     (conn_next), also in start order, so that an ACK walks only that
 *     connection's records (at most one window of them) and never the
 *     whole list.  The global head is always the head of its connection's
 *     list, so expiry unlinks it in O(1) too.
 *   - ACK variant (timer_list_init_ack): at most one record per connection;
 *     the per-connection head is then "the" ACK timer of the connection, so
 *     "is it running" and "cancel it" are O(1) and start refuses a second
 *     one (-EBUSY).  Same code, one flag, as the thesis says the structure
 *     is the same minus the per-connection links.
 *   - Ticks are whatever the caller uses (TSC cycles in inid); the module
 *     only needs `now` to never go backwards between starts.
 *
 * Buffer ownership
 *   timer_list_init_* allocates, once, a pool of `capacity` records (the
 *   aggregate window of all connections: n_conns * window for SEND timers,
 *   n_conns for ACK timers) and the per-connection heads/tails.  Records
 *   are recycled through a free list and never allocated afterwards:
 *   timer_list_start returns -ENOSPC when the pool is exhausted.  The
 *   caller owns the struct timer_list itself (usually embedded in its
 *   connection table); timer_list_destroy frees what init allocated.
 *   Records are internal: callers get (conn, seq) values, never pointers.
 *
 * Concurrency: none.  A list belongs to the one protocol thread of an INI.
 */
#ifndef INI_TIMER_LIST_H
#define INI_TIMER_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TIMER_NO_DEADLINE UINT64_MAX   /* next deadline of an empty list */
#define TIMER_MAX_CONNS   65536u       /* connection ids are uint16_t */

struct timer_record {
    uint64_t ticks_to_go;             /* after the previous record's deadline */
    uint32_t seq;                     /* sequence number it times */
    uint16_t conn;                    /* connection id */
    struct timer_record *conn_next;   /* next record of the same connection;
                                         also links the free list */
    struct timer_record *prev, *next; /* the list of all records */
};

/* One connection's own records, oldest first. */
struct timer_conn {
    struct timer_record *head, *tail;
};

/* base_time and max_time mean nothing while the list is empty (they read
 * 0); the first start sets them. */
struct timer_list {
    uint64_t base_time;   /* the head's ticks_to_go count from here */
    uint64_t max_time;    /* deadline of the tail */
    uint64_t timeout;     /* of every timer of this list, in ticks */
    struct timer_record *head, *tail;
    struct timer_record *free_records;
    struct timer_record *pool;        /* owned: capacity records */
    struct timer_conn *conns;         /* owned: n_conns entries */
    uint32_t capacity;
    uint32_t in_use;
    uint32_t n_conns;
    bool one_per_conn;                /* ACK timers */
};

/* SEND timers: up to `capacity` pending timers in all, any number per
 * connection.  n_conns is 1..TIMER_MAX_CONNS, capacity >= 1, timeout >= 1
 * (a zero timeout would let a timer restarted from its own expiry expire
 * again at once, forever).  Returns 0, -EINVAL or -ENOMEM. */
int timer_list_init_send(struct timer_list *l, uint32_t n_conns,
                         uint32_t capacity, uint64_t timeout);
/* ACK timers: at most one pending timer per connection (capacity n_conns). */
int timer_list_init_ack(struct timer_list *l, uint32_t n_conns, uint64_t timeout);
/* Frees the pool; the list must be re-initialised before any further use. */
void timer_list_destroy(struct timer_list *l);

/* Starts a timer for (conn, seq) that expires at now + timeout.  `now` must
 * not be earlier than the `now` of any earlier start on this list.
 * Returns 0, -ENOSPC (pool exhausted), -EBUSY (ACK list: conn's timer is
 * already running) or -EINVAL (conn out of range, time went backwards, or
 * now + timeout would reach TIMER_NO_DEADLINE). */
int timer_list_start(struct timer_list *l, uint16_t conn, uint32_t seq, uint64_t now);

/* The hardware timer: earliest deadline, or TIMER_NO_DEADLINE when empty. */
static inline uint64_t timer_list_next_deadline(const struct timer_list *l)
{
    return l->head ? l->base_time + l->head->ticks_to_go : TIMER_NO_DEADLINE;
}

/* Expiry, one record at a time: if the earliest timer's deadline is <= now,
 * removes it, stores its connection and sequence number and returns true;
 * otherwise returns false.  Call it in a loop; the caller may start and
 * cancel timers between calls (a retransmission restarts its timer). */
bool timer_list_pop_head(struct timer_list *l, uint16_t *conn, uint32_t *seq);
static inline bool timer_list_pop_expired(struct timer_list *l, uint64_t now,
                                          uint16_t *conn, uint32_t *seq)
{
    /* The deadline inline: most calls find nothing due. */
    return now >= timer_list_next_deadline(l) && timer_list_pop_head(l, conn, seq);
}

/* Expiry with a callback: pops every timer whose deadline is <= now, in
 * deadline order (start order for equal deadlines), calling fn for each
 * after it has been removed, so fn may start or cancel timers of this list.
 * Returns how many expired. */
typedef void (*timer_expired_fn)(uint16_t conn, uint32_t seq, void *ctx);
uint32_t timer_list_expire(struct timer_list *l, uint64_t now,
                           timer_expired_fn fn, void *ctx);

/* Cancels the timers of `conn` whose sequence number is in the half-open
 * modular range [from, to) of seq_bits-bit numbers (1..32; the INI uses 8,
 * 16 or 32): (seq - from) mod 2^w < (to - from) mod 2^w.  An ACK that
 * covers everything below `to` cancels [window bottom, to).  from == to is
 * the empty range.  Walks only conn's records.  Returns how many were
 * cancelled, or -EINVAL. */
int timer_list_cancel_range(struct timer_list *l, uint16_t conn,
                            uint32_t from, uint32_t to, unsigned seq_bits);
/* Cancels the oldest timer of (conn, seq), e.g. before a NAK-triggered
 * retransmission restarts it.  Returns 1 if one was cancelled, 0 if none
 * was pending, or -EINVAL. */
int timer_list_cancel_one(struct timer_list *l, uint16_t conn, uint32_t seq);
/* Cancels every timer of `conn`; on an ACK list that is its one ACK timer,
 * in O(1).  Returns how many were cancelled, or -EINVAL. */
int timer_list_cancel_conn(struct timer_list *l, uint16_t conn);

/* True when conn has a pending timer (its ACK timer runs, on an ACK list).
 * O(1); false for a conn out of range. */
static inline bool timer_list_conn_active(const struct timer_list *l, uint16_t conn)
{
    return conn < l->n_conns && l->conns[conn].head != NULL;
}

/* Pending timers in all. */
static inline uint32_t timer_list_pending(const struct timer_list *l)
{
    return l->in_use;
}

#endif
