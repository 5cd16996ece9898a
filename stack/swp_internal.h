/*
 * swp_internal.h - the transport's private header: what its files share
 * (swp.h is the public interface).  One file per concern, as eRPC splits
 * its rpc_impl/:
 *
 *   swp.c         the header codec, set-up, read-only accessors
 *   swp_window.c  the sender's window and the timers: acks taken (at once
 *                 or at the next turn), SEND timers, ACK scheduling,
 *                 retransmission on a timer or a NAK, the per-turn service
 *   swp_tx.c      transmission: a message into its frame or fragments by
 *                 one path each, control frames (ACK, NAK)
 *   swp_rx.c      reception: a datagram's checks (UDP checksum, MAC,
 *                 header, connection, CRC), the receive window, in-order
 *                 delivery, NAKs
 *   swp_seg.c     segmentation: a message sent as segments as the window
 *                 opens; received segments chained into their message
 *   swp_mac.c     authentication: the tag of a frame, checked on receive
 *   swp_durable.c the durable state (docs/transport.md, "An INI that
 *                 restarts"): the region's layout, its checks, the restore
 *   swp_resync.c  SYNC: the exchange after a restart, rewinding a send side
 *                 to the peer's D and replaying the logged messages
 *
 * Sequence arithmetic is modulo 2^seq_bits: `dist(a, b)` is how far b is
 * ahead of a.  The window is at most half the sequence space (checked by
 * the configuration), so "ahead by less than the window" and "behind" never
 * overlap.
 */
#ifndef INI_SWP_INTERNAL_H
#define INI_SWP_INTERNAL_H

#include <string.h>

#include "ini_assert.h"
#include "swp.h"
#include "polyhash.h"
#include "timer_list.h"

/* ---- the durable region (swp_durable.c) ----
 *
 * header (swp.h struct ini_swp_durable_hdr) | per INI id: a swp_dur_conn
 * and its log of log_cap entries.
 * Written with plain stores; swp_fence() orders them for the compiler (a
 * killed process loses no store it executed: no CPU fence needed). */

struct swp_dur_ent {
    uint32_t first;           /* the message's first sequence number */
    uint32_t len;             /* AM header and payload */
    uint64_t off;             /* its AM header's offset from the owner's base */
    uint64_t cookie;          /* its release cookie in the process that logged it */
};

struct swp_dur_conn {
    uint32_t delivered;       /* D: next expected after the messages published */
    uint32_t next_seq;        /* after the last logged message's last frame */
    uint32_t head, tail;      /* the log, free-running: [head, tail) */
    uint32_t pad[4];
    struct swp_dur_ent log[]; /* log_cap entries */
};

static inline void swp_fence(void)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

struct swp_tx_slot {
    uint8_t *am;              /* AM header in the compute node's ring */
    uint32_t am_len;
    void *cookie;
    uint64_t last_tx;         /* TSC of the last (re)transmission */
    uint32_t crc;             /* CRC32C of the message */
    uint8_t inner[INI_SWP_TAG_LEN];   /* with a key: polyhash of CRC + message, once */
    uint16_t msg_sum;         /* ones' complement sum of CRC + message, for the UDP checksum ... */
    uint8_t msg_sum_valid;    /* ... once summed (messages of several frames only) */
    uint8_t crc_pending;      /* CRC and sum (with a key: inner sum) not yet taken: in the first copy */
    uint8_t flags;            /* INI_SWP_F_MORE, INI_SWP_F_CONT: a segment's place */
    uint8_t release;          /* the message's last frame: give it back when acknowledged */
    uint8_t sent;             /* transmitted once: the next one carries INI_SWP_F_RETX */
    uint8_t resent;           /* transmitted again: no round-trip sample from its ack (Karn) */
    int naked;                /* retransmissions on a NAK so far */
    uint32_t ip_id;           /* IP fragments: 1 << 16 | the first copy's IP id, which copies keep */
};

struct swp_rx_slot {
    struct pbuf *p;           /* NULL: not received */
    uint16_t off;
    uint8_t flags;            /* the frame's segment flags */
    uint64_t nak_tsc;         /* empty: when it was last NAKed (0: not yet) ... */
    uint32_t naks;            /* ... and how often (each waits twice as long, up to 32 times) */
};

/* A connection.  What an INI that restarts must find again to go on
 * without loss (its durable state): the next sequence number to send and
 * the oldest unacknowledged (snd_nxt, snd_una), the frames between them
 * (tx slots: each a message, or a segment, lent from a compute node's
 * ring: am, am_len, flags, crc), the message taken but not all sent
 * (pend_*), the next sequence number expected (rcv_nxt) and the message
 * half assembled (asm_*: its segments are acknowledged as they join it,
 * so the peer will not send them again).  The rest is derived or
 * transient: acks owed, timers, frames held out of order above rcv_nxt
 * (unacknowledged: the peer's probe finds them missing and they come
 * again), counters. */
struct swp_conn {
    int peer;                 /* global INI id; -1: no connection */
    uint32_t snd_una, snd_nxt;     /* oldest unacknowledged, next to send */
    uint32_t rcv_nxt;              /* next expected */
    uint32_t rcv_unacked;          /* delivered since our last ack went out */
    uint32_t ack_sent;             /* last ack value sent */
    int      delivery_blocked;     /* head of the receive window refused */
    int      ack_forced;           /* a duplicate came: our ack may be lost */
    uint32_t n_held;               /* receive slots holding a frame */
    /* Sending a message in segments: what the window has not taken yet
     * (pend_left bytes at pend_at, of the message at pend_start). */
    uint8_t *pend_start, *pend_at;
    uint32_t pend_left;
    void    *pend_cookie;
    /* Receiving one: the segments taken in order so far, chained (tot_len
     * set only when complete), asm_len bytes; the AM header at asm_off of
     * the first. */
    struct pbuf *asm_head, *asm_tail;
    struct pbuf *asm_prev_tail;    /* the tail before the last segment joined */
    uint32_t asm_len;
    uint16_t asm_off;
    struct swp_tx_slot *tx;        /* [slot_mask + 1] */
    struct swp_rx_slot *rx;        /* [slot_mask + 1] */
    struct ini_dgram_dst dst;      /* the peer's address, and its header pattern once known */
    /* Work taken at the next turn (see ini_swp_poll): a DATA frame's
     * piggy-backed ack (ack_in), and the SEND timers of what was sent
     * since (from timed_nxt to snd_nxt); later_listed: the connection is
     * in ini_swp.later. */
    uint32_t ack_in;
    uint32_t timed_nxt;
    uint8_t  ack_deferred, later_listed;
    /* Durable state (swp_durable.c): this connection's part of the region;
     * after a restart or a peer's, the logged messages from `replay` on
     * are sent again (replaying); unsynced: no SYNC answer yet (no DATA
     * goes); peer_inc: the peer's incarnation last resynchronised with;
     * quiet: SEND timer expiries since a frame last came from the peer
     * (the probes' back-off). */
    struct swp_dur_conn *dc;
    uint32_t replay;
    uint8_t  replaying, unsynced;
    uint32_t peer_inc;
    uint32_t quiet;
    /* Congestion control (docs/transport.md, "Many senders into one"):
     * the frames this connection may have in flight, cwnd <= window,
     * halved on a loss signal at most once per round trip (not again
     * until snd_una passes `recover`), one more per window of frames
     * acknowledged (cwnd_acc counts them).  The sender's round trip
     * (srtt, rttvar: TSC ticks, 0 until the first sample) says when a
     * frame may still be in flight; the receiver's (rx_srtt: from a NAK
     * to the retransmission it brought) how often it asks for a gap. */
    uint32_t cwnd, cwnd_acc, recover;
    uint8_t  in_recovery;
    uint64_t srtt, rttvar, rx_srtt;
    /* Receiver-driven credit: the frames the peer lets this INI have in
     * flight to it (grant, from its ACKs and NAKs), the least of that and
     * cwnd (limit: what send_room compares); as the receiver, the grant
     * last sent to the peer and when its last DATA frame came. */
    uint32_t grant, limit, grant_sent;
    uint64_t last_data;
    struct ini_swp_stats stats;
};

struct ini_swp {
    struct ini_dgram *dg;          /* the UDP port every datagram goes through (stack/dgram.h) */
    uint32_t frame_max;            /* largest UDP payload of one frame */
    int me, n_inis;
    int seq_bits, hdr_len;
    int tag_len;                   /* 0, or INI_SWP_TAG_LEN: the MAC behind the header */
    int crc_off;                   /* hdr_len + tag_len: where DATA's CRC is */
    int data_hdr_len;              /* crc_off + 4: where DATA's message starts */
    int segment;                   /* stack.segmentation: messages longer than a frame in segments */
    uint32_t seg_max;              /* bytes of message in one segment: frame_max - data_hdr_len */
    int n_pending;                 /* connections with a message taken in part */
    uint32_t pend_frames;          /* their segments not sent yet (ini_swp_pending_frames) */
    struct ini_polyhash_key hash_key; /* the run's inner-sum key (tag_len != 0) ... */
    uint8_t tag_key[16];           /* ... and its SipHash key */
    uint32_t seq_mask, window;
    uint32_t slot_mask;            /* slots per connection - 1: a power of two >= window */
    uint64_t nak_gap;              /* TSC: least time between two NAKs / NAK retransmissions */
    /* Credit (docs/transport.md, "Many senders into one"): the frames all
     * peers together may have in flight to this INI (rx_budget), shared
     * among the n_active connections whose DATA came within active_span,
     * counted again at active_due. */
    uint32_t rx_budget, n_active;
    uint64_t active_span, active_due;
    int use_nak;
    ini_deliver_fn deliver;
    ini_release_fn release;
    void *ctx;
    uint64_t now;                  /* TSC of the current loop turn */
    int n_blocked;                 /* connections with a refused delivery */
    int n_later;                   /* connections with work taken later: */
    uint8_t later[INI_SWP_MAX_INIS];             /* their ids */
    struct swp_conn conns[INI_SWP_MAX_INIS];     /* indexed by peer INI id */
    struct timer_list send_timers;
    struct timer_list ack_timers;
    /* The durable region (swp_durable.c): private until the owner attaches
     * one; message offsets from base; log_mask: log_cap - 1. */
    struct ini_swp_durable_hdr *dh;
    void *dur_private;
    size_t dur_bytes;
    const uint8_t *base;
    uint32_t log_mask;
    int n_replay;                  /* connections replaying */
    int n_unsynced;                /* connections waiting for a SYNC answer ... */
    uint64_t sync_due, sync_gap;   /* ... SYNC again at sync_due, the gap doubling ... */
    uint64_t sync_gap_max;         /* ... up to this (TSC ticks) */
    /* What belongs to no connection (a bad header or checksum, a send or
     * timer error); a connection's counters are its own, each counted
     * once, and ini_swp_totals() sums them. */
    struct ini_swp_stats stats;
};

/* ---- small helpers, inline ---- */

/* Starting a timer cannot fail by construction (the pool holds a window
 * per connection and time only moves forward); if it ever does, say so in
 * the counters rather than lose a retransmission silently. */
static inline void start_timer(struct ini_swp *s, struct timer_list *l, uint16_t conn, uint32_t seq)
{
    if (timer_list_start(l, conn, seq, s->now) < 0 && l == &s->send_timers)
        s->stats.timer_errors++;
}

static inline uint32_t dist(const struct ini_swp *s, uint32_t from, uint32_t to)
{
    return (to - from) & s->seq_mask;
}

/* c may send another frame: fewer than its congestion window in flight
 * (cwnd <= window, so its slots are free).  The per-message path's one
 * comparison of congestion control. */
static inline int send_room(const struct ini_swp *s, const struct swp_conn *c)
{
    return dist(s, c->snd_una, c->snd_nxt) < c->limit;
}

/* After cwnd or grant changed. */
static inline void set_limit(struct swp_conn *c)
{
    c->limit = c->cwnd < c->grant ? c->cwnd : c->grant;
}

/* How long after a frame's last transmission it may still be in flight:
 * the sender's smoothed round trip and four deviations (RFC 6298's
 * RTO shape), at least nak_gap (as before congestion control: copies
 * of a datagram of 44 IP fragments sent faster crowd lwIP's reassembly
 * and none completes, reliability.sh mix64k-off), at most 16 of them;
 * nak_gap until a round trip is measured. */
#define INI_SWP_CWND_MIN 2   /* frames: a loss never stops a connection */
/* A connection's credit before its receiver has said anything: small, so
 * that many senders starting at once (a gather's first round) cannot
 * overrun the receiver before its first ACK shares its budget out; one
 * sender alone gets the whole window with that ACK. */
#define INI_SWP_GRANT_START 8
/* The receiver's budget, in windows: what every peer together may have in
 * flight to it.  The receiving port's ring holds 1,024 frames (inid_port.c
 * RX_DESC) and must take the frames that come while the loop is off its
 * core; a quarter of it is 4 windows of 64 (docs/transport.md). */
#define INI_SWP_RX_BUDGET_WINDOWS 4

/* The receiver's grant to c: its budget shared among the peers sending
 * now, between INI_SWP_CWND_MIN and the window (swp_rx.c). */
uint32_t swp_grant_for(struct ini_swp *s, struct swp_conn *c);

static inline uint64_t in_flight_for(const struct ini_swp *s, const struct swp_conn *c)
{
    if (!c->srtt)
        return s->nak_gap;
    uint64_t g = c->srtt + 4 * c->rttvar, lo = s->nak_gap, hi = 16 * s->nak_gap;
    return g < lo ? lo : g > hi ? hi : g;
}

/* A wait after the n-th try (n >= 1): doubled for each try after the
 * first, up to 4 times nak_gap (2 ms by default), or wait itself if
 * longer: a peer that does not read its port gets fewer frames, never
 * none for long.  Not more: at 8 ms each, a datagram of 44 IP fragments
 * under 10% frame loss, which needed some 100 tries while each copy had
 * to arrive whole, left its sender without an answer for 10 s
 * (reliability.sh mix64k-off; copies now keep their IP id and complete
 * each other in reassembly, ini_dgram_send_frags, some 3 tries). */
static inline uint64_t backed_off(const struct ini_swp *s, uint64_t wait, uint32_t n)
{
    uint64_t hi = 4 * s->nak_gap > wait ? 4 * s->nak_gap : wait;
    for (uint32_t i = 1; i < n && wait < hi; i++)
        wait <<= 1;
    return wait < hi ? wait : hi;
}

/* c has work for the next turn (ini_swp_poll, swp.h). */
static inline void list_later(struct ini_swp *s, struct swp_conn *c)
{
    if (!c->later_listed) {
        INI_ASSERT(s->n_later < INI_SWP_MAX_INIS);   /* each connection listed once */
        c->later_listed = 1;
        s->later[s->n_later++] = (uint8_t)(c - s->conns);
    }
}

/* A connection has a power of two of slots, at least a window of them:
 * the slot of a sequence number is its low bits, which stay distinct
 * for the `window` consecutive numbers in flight even across a wrap of
 * the sequence space (that is a multiple of the slot count; `seq %
 * window` is not, for a window of 10 and 8-bit numbers, say). */
static inline struct swp_tx_slot *tx_slot(struct ini_swp *s, struct swp_conn *c, uint32_t seq)
{
    return &c->tx[seq & s->slot_mask];
}

static inline struct swp_rx_slot *rx_slot(struct ini_swp *s, struct swp_conn *c, uint32_t seq)
{
    return &c->rx[seq & s->slot_mask];
}

/* Multi-byte fields are big-endian; one load or store and a byte swap
 * per field, not a loop over its bytes. */
static inline void put_seq(uint8_t *p, uint32_t v, int seq_bits)
{
    if (seq_bits == 32) {
        v = __builtin_bswap32(v);
        memcpy(p, &v, 4);
    } else if (seq_bits == 16) {
        uint16_t x = __builtin_bswap16((uint16_t)v);
        memcpy(p, &x, 2);
    } else {
        *p = (uint8_t)v;
    }
}

static inline void hdr_write(uint8_t *dst, const struct ini_swp_hdr *h, int seq_bits)
{
    int w = seq_bits / 8;
    dst[0] = (uint8_t)(h->op | h->flags);
    dst[1] = h->conn;
    put_seq(dst + 2, h->seq, seq_bits);
    put_seq(dst + 2 + w, h->ack, seq_bits);
}

/* ---- the durable state's write points (docs/transport.md) ---- */

/* Frames a message of len bytes takes (ini_swp_window_cost). */
static inline uint32_t msg_frames(const struct ini_swp *s, uint32_t len)
{
    if (!s->segment || len + (uint32_t)s->data_hdr_len <= s->frame_max)
        return 1;
    return (len + s->seg_max - 1) / s->seg_max;
}

/* A message taken to be sent, logged before its first frame goes. */
static inline void dur_log_push(struct ini_swp *s, struct swp_conn *c, const uint8_t *am, uint32_t len,
                                void *cookie)
{
    struct swp_dur_conn *dc = c->dc;
    struct swp_dur_ent *e = &dc->log[dc->tail & s->log_mask];
    e->first = c->snd_nxt;
    e->len = len;
    e->off = (uint64_t)((uintptr_t)am - (uintptr_t)s->base);
    e->cookie = (uint64_t)(uintptr_t)cookie;
    swp_fence();
    dc->tail++;
    dc->next_seq = (c->snd_nxt + msg_frames(s, len)) & s->seq_mask;
}

/* ... not sent after all: out of the log again. */
static inline void dur_log_pop(struct ini_swp *s, struct swp_conn *c)
{
    c->dc->next_seq = c->snd_nxt;
    swp_fence();
    c->dc->tail--;
}

/* The oldest logged message was acknowledged whole (after its release
 * callback, which marks its record done). */
static inline void dur_log_release(struct swp_conn *c)
{
    swp_fence();
    c->dc->head++;
}

/* A delivery about to be offered: its connection, and D once published. */
static inline void dur_deliver_begin(struct ini_swp *s, struct swp_conn *c, uint32_t d_after)
{
    struct ini_swp_intent *in = &s->dh->intent;
    in->conn = (uint32_t)c->peer;
    in->d_after = d_after;
    swp_fence();
}

/* ... taken (published, the callback armed the intent): D moves. */
static inline void dur_deliver_done(struct ini_swp *s, struct swp_conn *c, uint32_t d_after)
{
    swp_fence();
    c->dc->delivered = d_after;
    swp_fence();
    s->dh->intent.armed = 0;
}

/* ---- the sender's window and the timers (swp_window.c) ---- */

/* A cumulative ack from the peer: releases everything before it. */
void swp_handle_ack(struct ini_swp *s, struct swp_conn *c, uint32_t ack);
/* A DATA frame's ack: kept for the next turn (swp.h, ini_swp_poll). */
void swp_defer_ack(struct ini_swp *s, struct swp_conn *c, uint32_t ack);
/* Takes c's deferred ack now. */
static inline void take_ack(struct ini_swp *s, struct swp_conn *c)
{
    if (c->ack_deferred) {
        c->ack_deferred = 0;
        swp_handle_ack(s, c, c->ack_in);
    }
}
/* A NAK for the n frames from seq: retransmits them (swp_window.c). */
void swp_handle_nak(struct ini_swp *s, struct swp_conn *c, uint32_t seq, uint32_t n);
/* A loss signal (a NAK, or a SEND timer's retransmission): the
 * congestion window halves, at most once per round trip (not again until
 * the acks pass what was sent at the cut). */
void swp_cwnd_loss(struct ini_swp *s, struct swp_conn *c);
/* After in-order progress: an ACK now, or the ACK timer. */
void swp_schedule_ack(struct ini_swp *s, struct swp_conn *c);

/* ---- transmission (swp_tx.c) ---- */

/* Fills slot t for a message or segment (its CRC and sums, once). */
void swp_fill_slot(struct ini_swp *s, struct swp_tx_slot *t, uint8_t *am, uint32_t len, void *cookie,
                   uint8_t flags, int release);
/* (Re)transmits frame seq of c: 0, or -1, counted: no transmit buffer
 * (send_errors), or no room in the link's queue for its frames (tx_held:
 * the port is full; the frame waits for a later turn, never dropped). */
int  swp_transmit(struct ini_swp *s, struct swp_conn *c, uint32_t seq, struct ini_swp_tx_stamps *ts);
/* An ACK or NAK frame; our ack rides on it. */
void swp_send_control(struct ini_swp *s, struct swp_conn *c, uint8_t op, uint32_t seq);
/* A NAK for the n missing frames from seq (a body of two bytes when n > 1). */
void swp_send_nak(struct ini_swp *s, struct swp_conn *c, uint32_t seq, uint32_t n);
/* A header-only frame with the given op byte (opcode and flags), seq, ack
 * and a body of blen bytes (a SYNC's); 0, or -1 (counted). */
int  swp_send_frame(struct ini_swp *s, struct swp_conn *c, uint8_t op, uint32_t seq, uint32_t ack,
                    const uint8_t *body, uint16_t blen);

/* ---- reception (swp_rx.c) ---- */

/* The bottom of the receive window moves past slot r, to be acknowledged. */
static inline void rcv_next(struct ini_swp *s, struct swp_conn *c, struct swp_rx_slot *r)
{
    r->nak_tsc = 0;
    r->naks = 0;
    c->rcv_nxt = (c->rcv_nxt + 1) & s->seq_mask;
    c->rcv_unacked++;
}

/* The same for a frame held in r, taken from it. */
static inline void rcv_advance(struct ini_swp *s, struct swp_conn *c, struct swp_rx_slot *r)
{
    r->p = NULL;
    c->n_held--;
    rcv_next(s, c, r);
}

/* 1 when frames wait in the receive window above a missing one: it is
 * lost (the link keeps the order of frames), and asked for again while
 * the gap lasts.  A half-assembled message with nothing above it is no
 * gap: its next segment is usually on its way, or not sent yet (the
 * sender's probe finds a lost one, swp.h). */
static inline int rx_gap(struct ini_swp *s, struct swp_conn *c)
{
    return s->use_nak && c->n_held && !rx_slot(s, c, c->rcv_nxt)->p;
}

/* Delivers in order from the bottom of the receive window; returns the
 * frames taken. */
int  swp_deliver_in_order(struct ini_swp *s, struct swp_conn *c, struct ini_rx_meta *rx);
/* Asks for the missing frames in [lo, hi): one NAK per run of empty
 * slots that a held frame follows (or hi, with tail set: the sender's
 * probe says it sent them), for the slots of it not asked for within the
 * receiver's NAK interval (a round trip, at least nak_gap); returns the
 * NAKs sent. */
int  swp_nak_runs(struct ini_swp *s, struct swp_conn *c, uint32_t lo, uint32_t hi, int tail);
/* The peer's probe: it has sent every frame before seq. */
void swp_handle_probe(struct ini_swp *s, struct swp_conn *c, uint32_t seq);

/* ---- segmentation (swp_seg.c) ---- */

/* A message longer than a frame, in segments: 0 when the first went. */
int  swp_send_segments(struct ini_swp *s, struct swp_conn *c, uint8_t *am, uint32_t am_len, void *cookie,
                       struct ini_swp_tx_stamps *stamps);
/* Sends what the window now takes of c's message in progress. */
void swp_continue_message(struct ini_swp *s, struct swp_conn *c);
/* The frame in r, taken in order: a segment is chained into its message.
 * Returns 1 when r was taken and nothing is to be delivered yet; 0 with
 * *m, *off the message to deliver (r's frame, or the complete chain). */
int  swp_seg_take(struct ini_swp *s, struct swp_conn *c, struct swp_rx_slot *r, struct pbuf **m, uint16_t *off);
/* The frame in order when nothing is held above it (the common case of
 * a stream of segments): a first or middle segment is chained at once,
 * without going through its slot.  1 when taken; 0: the caller goes the
 * general way (a whole message or a last segment, whose delivery may be
 * refused; a segment out of place, counted there). */
int  swp_seg_take_next(struct ini_swp *s, struct swp_conn *c, struct pbuf *p, uint8_t flags);
/* After the delivery of a message r completed: refused (r's segment
 * leaves the chain, back to its slot), or taken (the chain is gone). */
void swp_seg_refused(struct swp_conn *c, struct swp_rx_slot *r);
void swp_seg_delivered(struct swp_conn *c);

/* ---- durable state and resynchronisation (swp_durable.c, swp_resync.c) ---- */

/* The private region, formatted, at open: 0 or -1 (no memory). */
int  swp_durable_open(struct ini_swp *s, const struct ini_swp_params *prm);
void swp_durable_close(struct ini_swp *s);
/* Formats the region at h (bytes) for s, and points the connections at it. */
void swp_durable_format(struct ini_swp *s, struct ini_swp_durable_hdr *h, size_t bytes, const uint8_t *epoch);
/* Sends a message (or its first segments) from the window's next
 * sequence number, as a first send does; 0 when it went. */
int  swp_send_message(struct ini_swp *s, struct swp_conn *c, uint8_t *am, uint32_t am_len, void *cookie,
                      struct ini_swp_tx_stamps *stamps);
/* A SYNC or its answer from the peer (its header h, its body). */
void swp_handle_sync(struct ini_swp *s, struct swp_conn *c, const struct ini_swp_hdr *h, const uint8_t *body);
/* SYNC on every unsynchronised connection, when due; returns the work. */
int  swp_sync_tick(struct ini_swp *s, uint64_t now);
/* Sends what the window takes of c's replay. */
void swp_replay(struct ini_swp *s, struct swp_conn *c);

/* ---- authentication (swp_mac.c) ---- */

/* The run's keys from the machine's key and the run's epoch: 0, or -1. */
int  swp_mac_keys(struct ini_swp *s, const struct ini_swp_params *prm);
void swp_mac_forget(struct ini_swp *s);
void swp_tag_of(const struct ini_swp *s, int dst, const uint8_t *hdr, uint32_t len,
                const uint8_t inner[INI_SWP_TAG_LEN], uint8_t tag[INI_SWP_TAG_LEN]);
void swp_inner_of(const struct ini_swp *s, const uint8_t *a, size_t la, const uint8_t *b, size_t lb,
                  uint8_t inner[INI_SWP_TAG_LEN]);
void swp_inner_copy(const struct ini_swp *s, uint8_t *dst, const uint8_t *msg, size_t len,
                    uint8_t inner[INI_SWP_TAG_LEN]);
int  swp_mac_ok(const struct ini_swp *s, const struct pbuf *p);

#endif
