/*
 * swp.c - the sliding-window protocol over lwIP's UDP (see swp.h).
 *
 * Sequence arithmetic is modulo 2^seq_bits: `dist(a, b)` is how far b is
 * ahead of a.  The window is at most half the sequence space (checked by
 * the configuration), so "ahead by less than the window" and "behind" never
 * overlap.
 */
#include "swp.h"

#include <stdlib.h>
#include <string.h>

#include "lwip/inet_chksum.h"
#include "lwip/ip.h"
#include "lwip/prot/udp.h"

#include <rte_cycles.h>
#include <sodium.h>

#include "checksum.h"

/* ---- header codec ---- */

int ini_swp_hdr_len(int seq_bits)
{
    return 2 + 2 * (seq_bits / 8);
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

static inline uint32_t get_seq(const uint8_t *p, int seq_bits)
{
    if (seq_bits == 32) {
        uint32_t v;
        memcpy(&v, p, 4);
        return __builtin_bswap32(v);
    }
    if (seq_bits == 16) {
        uint16_t x;
        memcpy(&x, p, 2);
        return __builtin_bswap16(x);
    }
    return *p;
}

static inline void hdr_write(uint8_t *dst, const struct ini_swp_hdr *h, int seq_bits)
{
    int w = seq_bits / 8;
    dst[0] = (uint8_t)(h->op | h->flags);
    dst[1] = h->conn;
    put_seq(dst + 2, h->seq, seq_bits);
    put_seq(dst + 2 + w, h->ack, seq_bits);
}

void ini_swp_hdr_write(uint8_t *dst, const struct ini_swp_hdr *h, int seq_bits)
{
    hdr_write(dst, h, seq_bits);
}

int ini_swp_hdr_read(const uint8_t *src, uint32_t len, int seq_bits, struct ini_swp_hdr *h)
{
    int w = seq_bits / 8;
    if (len < (uint32_t)ini_swp_hdr_len(seq_bits))
        return -1;
    h->op = src[0] & INI_SWP_OP_MASK;
    h->flags = src[0] & (uint8_t)~INI_SWP_OP_MASK;
    h->conn = src[1];
    h->seq = get_seq(src + 2, seq_bits);
    h->ack = get_seq(src + 2 + w, seq_bits);
    if (h->op < INI_SWP_DATA || h->op > INI_SWP_NAK || (h->flags && h->op != INI_SWP_DATA))
        return -1;
    return 0;
}

/* CRC32C of a pbuf chain from offset off on; 8-byte pieces straddling
 * pbufs are handled by the byte loop of each piece. */
static uint32_t crc_of_pbuf(const struct pbuf *p, uint16_t off)
{
    uint32_t crc = 0;
    for (const struct pbuf *q = p; q; q = q->next) {
        if (off >= q->len) {
            off = (uint16_t)(off - q->len);
            continue;
        }
        crc = ini_crc32c(crc, (const uint8_t *)q->payload + off, q->len - off);
        off = 0;
    }
    return crc;
}

/* ---- authentication ----
 *
 * Hash, then PRF: the bytes behind the tag (CRC and message, or nothing)
 * go through Poly1305 under a secret key of the run (the "inner" sum,
 * 16 bytes); the tag is SipHash-2-4-128 under a second key of the run
 * over the destination INI, the header, the length and the inner sum.
 * Poly1305 is a universal hash (fast: one pass, ~1 cycle per byte),
 * which is safe to use with one key for many messages because its result
 * is never shown, only passed through the PRF; the inner sum of a
 * message is the same for each of its transmissions, so the sender takes
 * it once, at the first send, and a retransmission (a new ack) costs one
 * SipHash of ~31 bytes.  docs/transport.md has the argument. */

/* The tag of a frame to `dst` with header hdr and inner sum `inner` of
 * `len` bytes behind the tag. */
static void tag_of(const struct ini_swp *s, int dst, const uint8_t *hdr, uint32_t len,
                   const uint8_t inner[INI_SWP_TAG_LEN], uint8_t tag[INI_SWP_TAG_LEN])
{
    uint8_t in[1 + INI_SWP_MAXHDR + 4 + INI_SWP_TAG_LEN];
    size_t n = 0;
    in[n++] = (uint8_t)dst;
    memcpy(in + n, hdr, (size_t)s->hdr_len);
    n += (size_t)s->hdr_len;
    memcpy(in + n, &len, 4);
    n += 4;
    memcpy(in + n, inner, INI_SWP_TAG_LEN);
    n += INI_SWP_TAG_LEN;
    crypto_shorthash_siphashx24(tag, in, n, s->tag_key);
}

/* The inner sum of up to two pieces. */
static void inner_of(const struct ini_swp *s, const uint8_t *a, size_t la, const uint8_t *b, size_t lb,
                     uint8_t inner[INI_SWP_TAG_LEN])
{
    crypto_onetimeauth_state st;
    crypto_onetimeauth_init(&st, s->hash_key);
    if (la)
        crypto_onetimeauth_update(&st, a, la);
    if (lb)
        crypto_onetimeauth_update(&st, b, lb);
    crypto_onetimeauth_final(&st, inner);
}

/* Checks the tag of a received datagram (a pbuf chain) addressed to us. */
static int mac_ok(const struct ini_swp *s, const struct pbuf *p)
{
    uint8_t head[INI_SWP_MAXHDR + INI_SWP_TAG_LEN], inner[INI_SWP_TAG_LEN], want[INI_SWP_TAG_LEN];
    uint16_t front = (uint16_t)(s->hdr_len + s->tag_len);
    if (p->tot_len < front || pbuf_copy_partial(p, head, front, 0) != front)
        return 0;
    crypto_onetimeauth_state st;
    crypto_onetimeauth_init(&st, s->hash_key);
    uint16_t off = front;
    for (const struct pbuf *q = p; q; q = q->next) {
        if (off >= q->len) {
            off = (uint16_t)(off - q->len);
            continue;
        }
        crypto_onetimeauth_update(&st, (const uint8_t *)q->payload + off, (size_t)(q->len - off));
        off = 0;
    }
    crypto_onetimeauth_final(&st, inner);
    tag_of(s, s->me, head, (uint32_t)(p->tot_len - front), inner, want);
    return crypto_verify_16(want, head + s->hdr_len) == 0;
}

/* ---- helpers ---- */

/* Frames of at least this many bytes of UDP payload get their UDP
 * checksum and CRC in one pass on receive; shorter ones, read once more
 * while hot, are not worth the second loop's set-up. */
#define INI_SWP_ONE_PASS_MIN 512

/* Folds a 32-bit ones' complement accumulator to 16 bits. */
static inline uint16_t fold16(uint32_t sum)
{
    sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)((sum & 0xffff) + (sum >> 16));
}

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

/* c has work for the next turn (ini_swp_poll, swp.h). */
static inline void list_later(struct ini_swp *s, struct swp_conn *c)
{
    if (!c->later_listed) {
        c->later_listed = 1;
        s->later[s->n_later++] = (uint8_t)(c - s->conns);
    }
}

/* True when seq, in flight, has its SEND timer: all but what was sent
 * since the last turn (from timed_nxt on), unless acks passed timed_nxt
 * meanwhile (then none of what is left has one yet). */
static inline int has_send_timer(const struct ini_swp *s, const struct swp_conn *c, uint32_t seq)
{
    uint32_t timed = dist(s, c->snd_una, c->timed_nxt);
    return timed <= dist(s, c->snd_una, c->snd_nxt) && dist(s, c->snd_una, seq) < timed;
}

/* The SEND timers of what c sent since the last turn and is still
 * unacknowledged, from this turn's time. */
static void start_send_timers(struct ini_swp *s, struct swp_conn *c)
{
    uint32_t seq = c->timed_nxt;
    if (dist(s, c->snd_una, seq) > dist(s, c->snd_una, c->snd_nxt))
        seq = c->snd_una;           /* acknowledged before its timer started */
    for (; seq != c->snd_nxt; seq = (seq + 1) & s->seq_mask)
        start_timer(s, &s->send_timers, (uint16_t)c->peer, seq);
    c->timed_nxt = c->snd_nxt;
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

/* Sends a header-only frame (ACK or NAK). */
static void send_control(struct ini_swp *s, struct swp_conn *c, uint8_t op, uint32_t seq)
{
    struct ini_dgram_frame fr;
    uint16_t len = (uint16_t)(s->hdr_len + s->tag_len);
    uint8_t *wire = ini_dgram_frame_begin(&s->dg, &c->dst, len, &fr);
    if (!wire) {
        s->stats.send_errors++;
        return;
    }
    struct ini_swp_hdr h = { op, (uint8_t)s->me, seq, c->rcv_nxt, 0 };
    hdr_write(wire, &h, s->seq_bits);
    if (s->tag_len) {
        uint8_t inner[INI_SWP_TAG_LEN];
        inner_of(s, NULL, 0, NULL, 0, inner);
        tag_of(s, c->peer, wire, 0, inner, wire + s->hdr_len);
    }
    if (ini_dgram_frame_send(&s->dg, &fr, ini_chksum(wire, len)) < 0)
        s->stats.send_errors++;
    c->ack_sent = c->rcv_nxt;
    c->rcv_unacked = 0;
    c->ack_forced = 0;
    timer_list_cancel_conn(&s->ack_timers, (uint16_t)c->peer);
    ini_netif_flush(s->dg.nf);
}

/* The UDP payload's sum from the message's (its CRC's and message's,
 * kept: fill_slot) and the front's (the header, and the MAC if any:
 * crc_off bytes at wire).  Both start at even offsets. */
static inline uint16_t frame_sum(const struct ini_swp *s, const struct swp_tx_slot *t, const uint8_t *wire)
{
    return ini_sum_fold(ini_sum_small(t->msg_sum, wire, (size_t)s->crc_off));
}

/* The first transmission of a message without a MAC: copied, checked and
 * summed in one pass over the ring (inline for a small message), the
 * header and CRC added to the sum in one more step (both start at even
 * offsets: hdr_len + 4 is even at every width).  A retransmission sums its
 * frame afresh (msg_sum_valid 0): rare, and the first send stays one pass. */
static inline uint16_t copy_first(struct ini_swp *s, struct swp_tx_slot *t, uint8_t *wire)
{
    uint64_t acc = 0;
    uint8_t *dst = wire + s->data_hdr_len;
    t->crc = t->am_len <= INI_SMALL_MAX ? ini_crc32c_sum_copy_small(0, dst, t->am, t->am_len, &acc)
                                        : ini_crc32c_sum_copy(0, dst, t->am, t->am_len, &acc);
    t->crc_pending = 0;
    t->msg_sum_valid = 0;
    memcpy(wire + s->crc_off, &t->crc, 4);
    return ini_sum_fold(ini_sum_small(acc, wire, (size_t)s->data_hdr_len));
}

/* A later transmission (or the first with a MAC, whose CRC was taken
 * before): message and CRC copied, the MAC written, the frame summed from
 * the message's sum if there is one, else hot, here. */
static inline uint16_t copy_again(struct ini_swp *s, struct swp_conn *c, struct swp_tx_slot *t, uint8_t *wire,
                                  uint32_t len)
{
    memcpy(wire + s->data_hdr_len, t->am, t->am_len);
    memcpy(wire + s->crc_off, &t->crc, 4);
    if (s->tag_len)
        tag_of(s, c->peer, wire, len - (uint32_t)s->crc_off, t->inner, wire + s->hdr_len);
    return t->msg_sum_valid ? frame_sum(s, t, wire) : ini_chksum(wire, (int)len);
}

/* One frame: header, CRC and message go straight into the frame (the one
 * copy of a transmission) and are summed there, hot. */
static int tx_frame(struct ini_swp *s, struct swp_conn *c, struct swp_tx_slot *t, const struct ini_swp_hdr *h,
                    struct ini_swp_tx_stamps *ts)
{
    uint32_t len = t->am_len + (uint32_t)s->data_hdr_len;
    struct ini_dgram_frame fr;
    uint8_t *wire = ini_dgram_frame_begin(&s->dg, &c->dst, (uint16_t)len, &fr);
    if (!wire)
        return -1;
    hdr_write(wire, h, s->seq_bits);
    uint16_t sum = t->crc_pending ? copy_first(s, t, wire) : copy_again(s, c, t, wire, len);
    if (ts)
        ts->t_out_udp = rte_rdtsc();
    return ini_dgram_frame_send(&s->dg, &fr, sum);
}

/* Several frames: header and CRC go into the ring's headroom in front of
 * the message, and the datagram is cut into IP fragments, each copied
 * from the ring straight into its frame (the one copy). */
static int tx_fragments(struct ini_swp *s, struct swp_conn *c, struct swp_tx_slot *t, const struct ini_swp_hdr *h,
                        struct ini_swp_tx_stamps *ts)
{
    uint8_t *wire = t->am - s->data_hdr_len;
    hdr_write(wire, h, s->seq_bits);
    memcpy(wire + s->crc_off, &t->crc, 4);
    uint16_t sum = frame_sum(s, t, wire);
    if (ts)
        ts->t_out_udp = rte_rdtsc();        /* the fragments are cut below: IP starts here */
    return ini_dgram_send_frags(&s->dg, &c->dst, wire, t->am_len + (uint32_t)s->data_hdr_len, sum);
}

/* Several frames with a MAC: header, MAC and CRC do not fit the ring's
 * headroom; they go apart, in front of the message by reference. */
static int tx_parts(struct ini_swp *s, struct swp_conn *c, struct swp_tx_slot *t, const struct ini_swp_hdr *h,
                    struct ini_swp_tx_stamps *ts)
{
    uint8_t wire[INI_SWP_MAXHDR + INI_SWP_TAG_LEN];
    hdr_write(wire, h, s->seq_bits);
    memcpy(wire + s->crc_off, &t->crc, 4);
    tag_of(s, c->peer, wire, 4 + t->am_len, t->inner, wire + s->hdr_len);
    uint16_t sum = frame_sum(s, t, wire);
    if (ts)
        ts->t_out_udp = rte_rdtsc();
    return ini_dgram_send_parts(&s->dg, &c->dst, wire, (uint16_t)s->data_hdr_len, t->am, t->am_len, sum);
}

/* (Re)transmits message `seq` of connection c from its slot, by the path
 * its length and the MAC choose; stamps the UDP boundary into ts unless
 * NULL.  The frame carries our ack: the ACK timer, if it runs, is left to
 * expire (it then finds nothing to acknowledge, or what arrived since): in
 * a request-reply exchange, cancelling it here and starting it again at
 * the next delivery cost more per message than one idle expiry per ACK
 * timeout. */
static int transmit(struct ini_swp *s, struct swp_conn *c, uint32_t seq, struct ini_swp_tx_stamps *ts)
{
    struct swp_tx_slot *t = tx_slot(s, c, seq);
    struct ini_swp_hdr h = { INI_SWP_DATA, (uint8_t)s->me, seq, c->rcv_nxt, t->flags };
    int r;
    if (t->am_len + (uint32_t)s->data_hdr_len <= s->frame_max)
        r = tx_frame(s, c, t, &h, ts);
    else if (s->tag_len)
        r = tx_parts(s, c, t, &h, ts);
    else
        r = tx_fragments(s, c, t, &h, ts);
    if (r < 0) {
        s->stats.send_errors++;
        return -1;
    }
    t->last_tx = s->now;
    if (c->ack_sent != c->rcv_nxt || c->rcv_unacked)
        c->stats.acks_piggy++;
    c->ack_sent = c->rcv_nxt;
    c->rcv_unacked = 0;
    c->ack_forced = 0;
    return 0;
}

/* ---- sending ---- */

/* Fills slot t for a message (or segment) of len bytes at am, its CRC and
 * its sum for the UDP checksum: taken as the first transmission copies it
 * into its frame (crc_pending) when it fits one frame and has no MAC;
 * else here, in one pass, once (a MAC covers the CRC, and a message of
 * several frames is not copied in one piece).  With a MAC, its inner sum
 * too, once per message. */
static void fill_slot(struct ini_swp *s, struct swp_tx_slot *t, uint8_t *am, uint32_t len, void *cookie,
                      uint8_t flags, int release)
{
    t->am = am;
    t->am_len = len;
    t->cookie = cookie;
    t->naked = 0;
    t->flags = flags;
    t->release = (uint8_t)release;
    t->crc_pending = !s->tag_len && len + (uint32_t)s->data_hdr_len <= s->frame_max;
    if (t->crc_pending)
        return;
    uint64_t acc = 0;
    t->crc = ini_crc32c_sum(0, am, len, &acc);
    t->msg_sum = ini_sum_fold(ini_sum_small(acc, &t->crc, 4));
    t->msg_sum_valid = 1;
    if (s->tag_len)
        inner_of(s, (const uint8_t *)&t->crc, 4, am, len, t->inner);
}

/* Sends the segments of c's message in progress that the window takes:
 * each gets the next sequence number, its CRC (and MAC sum) once, its
 * SEND timer.  ts, unless NULL, gets the first one's UDP stamp.  A
 * transmission that fails (no transmit buffer) leaves the rest for
 * ini_swp_poll().  Returns the segments sent. */
static int push_segments(struct ini_swp *s, struct swp_conn *c, struct ini_swp_tx_stamps *ts)
{
    int sent = 0;
    while (c->pend_left && dist(s, c->snd_una, c->snd_nxt) < s->window) {
        uint32_t seq = c->snd_nxt;
        uint32_t n = c->pend_left < s->seg_max ? c->pend_left : s->seg_max;
        int first = c->pend_at == c->pend_start;
        uint8_t flags = (uint8_t)((first ? 0 : INI_SWP_F_CONT) | (n < c->pend_left ? INI_SWP_F_MORE : 0));
        fill_slot(s, tx_slot(s, c, seq), c->pend_at, n, c->pend_cookie, flags, n == c->pend_left);
        if (transmit(s, c, seq, first ? ts : NULL) < 0)
            break;
        c->snd_nxt = (seq + 1) & s->seq_mask;
        list_later(s, c);           /* its SEND timer */
        c->stats.segs_sent++;
        s->pend_frames--;
        c->pend_at += n;
        c->pend_left -= n;
        sent++;
    }
    return sent;
}

/* Sends what the window now takes of a message in progress. */
static void continue_message(struct ini_swp *s, struct swp_conn *c)
{
    if (!c->pend_left)
        return;
    push_segments(s, c, NULL);
    if (!c->pend_left)
        s->n_pending--;
}

/* Takes a message longer than a frame in segments: taken when the first
 * one goes; the rest follow as the window opens. */
static int send_segments(struct ini_swp *s, struct swp_conn *c, uint8_t *am, uint32_t am_len, void *cookie,
                         struct ini_swp_tx_stamps *stamps)
{
    c->pend_at = am;
    c->pend_start = am;
    c->pend_left = am_len;
    c->pend_cookie = cookie;
    uint32_t segs = (am_len + s->seg_max - 1) / s->seg_max;
    s->pend_frames += segs;
    if (stamps)
        stamps->t_out_window = rte_rdtsc();
    if (push_segments(s, c, stamps) == 0) {
        c->pend_left = 0;
        s->pend_frames -= segs;
        return -1;
    }
    if (c->pend_left)
        s->n_pending++;
    return 0;
}

static inline void take_ack(struct ini_swp *s, struct swp_conn *c);

int ini_swp_send(struct ini_swp *s, int peer, uint8_t *am, uint32_t am_len, void *cookie, uint64_t now,
                 struct ini_swp_tx_stamps *stamps)
{
    struct swp_conn *c = &s->conns[peer];
    s->now = now;
    if (c->ack_deferred && dist(s, c->snd_una, c->snd_nxt) >= s->window)
        take_ack(s, c);             /* room the peer has made already */
    if (c->pend_left || dist(s, c->snd_una, c->snd_nxt) >= s->window) {
        c->stats.window_full++;
        return -1;
    }
    if (s->segment && am_len + (uint32_t)s->data_hdr_len > s->frame_max) {
        if (send_segments(s, c, am, am_len, cookie, stamps) < 0)
            return -1;
    } else {
        uint32_t seq = c->snd_nxt;
        fill_slot(s, tx_slot(s, c, seq), am, am_len, cookie, 0, 1);
        if (stamps)
            stamps->t_out_window = rte_rdtsc();
        if (transmit(s, c, seq, stamps) < 0)
            return -1;
        c->snd_nxt = (seq + 1) & s->seq_mask;
        list_later(s, c);           /* its SEND timer, once the frame is out */
    }
    c->stats.msgs_sent++;
    c->stats.bytes_sent += am_len - (uint32_t)sizeof(struct ini_am_hdr);
    return 0;
}

/* A cumulative ack from the peer: release everything before it. */
static void handle_ack(struct ini_swp *s, struct swp_conn *c, uint32_t ack)
{
    uint32_t n = dist(s, c->snd_una, ack);
    if (n > dist(s, c->snd_una, c->snd_nxt)) {
        /* An old ack overtaken by a newer one is harmless; one for what
         * was never sent is a bad header. */
        if (dist(s, ack, c->snd_una) > s->window) {
            c->stats.bad_ack++;
        }
        return;
    }
    if (n == 0)
        return;
    timer_list_cancel_range(&s->send_timers, (uint16_t)c->peer, c->snd_una, ack, (unsigned)s->seq_bits);
    for (uint32_t i = 0; i < n; i++) {
        struct swp_tx_slot *t = tx_slot(s, c, c->snd_una);
        if (t->release)          /* a message's last frame: all of it has arrived */
            s->release(s->ctx, t->cookie);
        t->am = NULL;
        c->snd_una = (c->snd_una + 1) & s->seq_mask;
    }
    c->stats.acks_received++;
    continue_message(s, c);
}

/* A DATA frame's ack: kept for ini_swp_poll (swp.h).  One for what was
 * never sent, or nothing new, is handled at once, as before. */
static inline void defer_ack(struct ini_swp *s, struct swp_conn *c, uint32_t ack)
{
    uint32_t n = dist(s, c->snd_una, ack);
    if (n == 0 || n > dist(s, c->snd_una, c->snd_nxt)) {
        handle_ack(s, c, ack);
        return;
    }
    if (!c->ack_deferred || n > dist(s, c->snd_una, c->ack_in))
        c->ack_in = ack;            /* acks are cumulative: the furthest one */
    c->ack_deferred = 1;
    list_later(s, c);
}

/* Takes c's deferred ack now. */
static inline void take_ack(struct ini_swp *s, struct swp_conn *c)
{
    if (c->ack_deferred) {
        c->ack_deferred = 0;
        handle_ack(s, c, c->ack_in);
    }
}

/* The work listed for this turn: every deferred ack, then the SEND
 * timers of what is still unacknowledged.  Returns the acks taken.
 *
 * A connection stays listed until both are done: the ack may send more
 * of a message in segments (continue_message), whose timers start here
 * too.  A release callback that sends on a connection already done lists
 * it again, behind the ones taken now: kept for the next turn. */
static int take_later(struct ini_swp *s)
{
    int n = s->n_later, acks = 0;
    for (int i = 0; i < n; i++) {
        struct swp_conn *c = &s->conns[s->later[i]];
        acks += c->ack_deferred;
        take_ack(s, c);
        if (c->timed_nxt != c->snd_nxt)
            start_send_timers(s, c);
        c->later_listed = 0;
    }
    s->n_later -= n;
    if (s->n_later)                 /* rare: listed again by a release callback */
        memmove(s->later, s->later + n, (size_t)s->n_later);
    return acks;
}

static void handle_nak(struct ini_swp *s, struct swp_conn *c, uint32_t seq)
{
    c->stats.naks_received++;
    if (dist(s, c->snd_una, seq) >= dist(s, c->snd_una, c->snd_nxt))
        return;                     /* acknowledged meanwhile, or bogus */
    struct swp_tx_slot *t = tx_slot(s, c, seq);
    /* The first NAK for a message retransmits it at once; repeated or
     * duplicated NAKs only after a pause, so they cannot cause a storm. */
    if (t->naked && s->now - t->last_tx < s->nak_gap)
        return;
    t->naked = 1;
    if (transmit(s, c, seq, NULL) == 0) {
        if (has_send_timer(s, c, seq)) {     /* else it starts at the next turn */
            timer_list_cancel_one(&s->send_timers, (uint16_t)c->peer, seq);
            start_timer(s, &s->send_timers, (uint16_t)c->peer, seq);
        }
        c->stats.retx_nak++;
    }
}

/* ---- receiving ---- */

/* The bottom of the receive window moves past slot r, to be acknowledged. */
static inline void rcv_next(struct ini_swp *s, struct swp_conn *c, struct swp_rx_slot *r)
{
    r->nak_tsc = 0;
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

/* A segment out of place (a continuation with no start, a start inside an
 * unfinished message, a message past 65,535 bytes): only a broken or
 * forged sender makes one.  The message being assembled is dropped. */
static void seg_error(struct swp_conn *c)
{
    c->stats.seg_errors++;
    if (c->asm_head) {
        pbuf_free(c->asm_head);
        c->asm_head = NULL;
    }
}

/* Appends segment p (its header cut off) to c's message.  The chain's
 * tot_len fields are set once, when the message is complete
 * (chain_seal): pbuf_cat would walk the whole chain for every segment. */
static void chain_append(struct swp_conn *c, struct pbuf *p)
{
    c->asm_tail->next = p;
    c->asm_len += p->tot_len;
    while (p->next)                 /* one pbuf, unless a peer sent a segment in IP fragments */
        p = p->next;
    c->asm_tail = p;
}

/* The complete message: every pbuf's tot_len counts what follows it. */
static void chain_seal(struct swp_conn *c)
{
    uint32_t left = c->asm_len;
    for (struct pbuf *q = c->asm_head; q; q = q->next) {
        q->tot_len = (u16_t)left;
        left -= q->len;
    }
}

/* Delivers in order from the bottom of the receive window; rx describes
 * the frame that completed the first of them.  Segments join their
 * message's chain as they are taken (and are acknowledged then); the
 * chain goes to the deliver callback with its last segment.  A refused
 * delivery leaves that last segment in its slot, unacknowledged. */
static int deliver_in_order(struct ini_swp *s, struct swp_conn *c, struct ini_rx_meta *rx)
{
    int n = 0;
    for (;;) {
        struct swp_rx_slot *r = rx_slot(s, c, c->rcv_nxt);
        if (!r->p)
            break;
        uint8_t f = r->flags;
        struct pbuf *m = r->p;
        uint16_t off = r->off;
        struct pbuf *prev_tail = c->asm_tail;
        if (f & INI_SWP_F_CONT) {
            /* The rest of a message: its header goes, it joins the chain. */
            if (!c->asm_head || c->asm_len + r->p->tot_len - r->off > 0xffff ||
                pbuf_remove_header(r->p, r->off) != 0) {
                seg_error(c);
                pbuf_free(r->p);
                rcv_advance(s, c, r);
                n++;
                continue;
            }
            r->off = 0;
            chain_append(c, r->p);
            if (f & INI_SWP_F_MORE) {
                rcv_advance(s, c, r);
                c->stats.segs_received++;
                n++;
                continue;
            }
            chain_seal(c);
            m = c->asm_head;
            off = c->asm_off;
        } else {
            if (c->asm_head)
                seg_error(c);       /* a message starts before the last one ended */
            if (f & INI_SWP_F_MORE) {
                c->asm_head = r->p;
                c->asm_len = r->p->tot_len;
                c->asm_tail = r->p;
                while (c->asm_tail->next)
                    c->asm_tail = c->asm_tail->next;
                c->asm_off = r->off;
                rcv_advance(s, c, r);
                c->stats.segs_received++;
                n++;
                continue;
            }
        }
        uint32_t bytes = m->tot_len - off - (uint32_t)sizeof(struct ini_am_hdr);
        if (s->deliver(s->ctx, c->peer, m, off, rx) < 0) {
            if (f & INI_SWP_F_CONT) {
                /* The last segment goes back to its slot: the chain ends
                 * where it did (its tot_len fields are set again when the
                 * message is complete). */
                prev_tail->next = NULL;
                c->asm_tail = prev_tail;
                c->asm_len -= r->p->tot_len;
            }
            if (!c->delivery_blocked) {
                c->delivery_blocked = 1;
                s->n_blocked++;
                c->stats.deliver_refused++;
            }
            break;
        }
        if (f & INI_SWP_F_CONT) {
            c->asm_head = NULL;
            c->stats.segs_received++;
        }
        rcv_advance(s, c, r);
        c->stats.msgs_delivered++;
        c->stats.bytes_delivered += bytes;
        n++;
    }
    if (c->delivery_blocked && !rx_slot(s, c, c->rcv_nxt)->p) {
        c->delivery_blocked = 0;
        s->n_blocked--;
    }
    return n;
}

/* 1 when frames wait in the receive window above a missing one, or a
 * message is half assembled: its next segment may be lost with nothing
 * behind it to show the gap (the last one, or the window's last). */
static inline int rx_gap(struct ini_swp *s, struct swp_conn *c)
{
    return s->use_nak && (c->n_held || c->asm_head) && !rx_slot(s, c, c->rcv_nxt)->p;
}

/* Asks for the missing message seq, at most once per nak_gap. */
static void nak_one(struct ini_swp *s, struct swp_conn *c, uint32_t seq)
{
    struct swp_rx_slot *r = rx_slot(s, c, seq);
    if (r->nak_tsc && s->now - r->nak_tsc < s->nak_gap)
        return;
    r->nak_tsc = s->now | 1;
    send_control(s, c, INI_SWP_NAK, seq);
    c->stats.naks_sent++;
}

/* Frame seq (ahead of rcv_nxt) has arrived after a gap: asks for each
 * message of the gap, the run of empty slots just below it.  Frames
 * mostly arrive in order, so that run was skipped just now; one loss is
 * one NAK, and losses in different places of a window of segments are
 * asked for at once, not one round trip after the other. */
static void nak_gap_below(struct ini_swp *s, struct swp_conn *c, uint32_t seq)
{
    uint32_t lo = seq;
    while (lo != c->rcv_nxt && !rx_slot(s, c, (lo - 1) & s->seq_mask)->p)
        lo = (lo - 1) & s->seq_mask;
    for (uint32_t k = lo; k != seq; k = (k + 1) & s->seq_mask)
        nak_one(s, c, k);
}

/* After in-order progress: acknowledge at once when half a window waits,
 * else make sure the ACK timer runs. */
static void schedule_ack(struct ini_swp *s, struct swp_conn *c)
{
    if (c->rcv_unacked >= (s->window + 1) / 2) {
        send_control(s, c, INI_SWP_ACK, 0);
        c->stats.acks_bare++;
    } else if (c->ack_sent != c->rcv_nxt && !timer_list_conn_active(&s->ack_timers, (uint16_t)c->peer)) {
        start_timer(s, &s->ack_timers, (uint16_t)c->peer, 0);
    }
}

/* A DATA frame that passed every check: kept in its slot of the receive
 * window (flags: its segment flags), delivered in order. */
static void handle_data(struct ini_swp *s, struct swp_conn *c, uint32_t seq, uint8_t flags, struct pbuf *p,
                        struct ini_rx_meta *rx)
{
    uint32_t ahead = dist(s, c->rcv_nxt, seq);
    if (ahead >= s->window) {
        if (dist(s, seq, c->rcv_nxt) <= s->window) {
            /* Behind the window: a duplicate of something delivered.  Our
             * ack may have been lost: send it again soon. */
            c->stats.duplicates++;
            c->ack_forced = 1;
            if (!timer_list_conn_active(&s->ack_timers, (uint16_t)c->peer))
                start_timer(s, &s->ack_timers, (uint16_t)c->peer, 0);
        } else {
            c->stats.out_of_window++;
        }
        pbuf_free(p);
        return;
    }
    struct swp_rx_slot *r = rx_slot(s, c, seq);
    if (r->p) {
        c->stats.duplicates++;
        pbuf_free(p);
        return;
    }
    if (ahead == 0 && c->n_held == 0 && !c->asm_head && !(flags & (INI_SWP_F_MORE | INI_SWP_F_CONT))) {
        /* The common case: the next message, whole, nothing held above it
         * (so no gap, no NAK, no refused delivery): delivered straight from
         * the frame, as deliver_in_order would.  Refused, it takes the
         * slot like any other. */
        uint32_t bytes = p->tot_len - (uint32_t)s->data_hdr_len - (uint32_t)sizeof(struct ini_am_hdr);
        if (s->deliver(s->ctx, c->peer, p, (uint16_t)s->data_hdr_len, rx) == 0) {
            rcv_next(s, c, r);
            c->stats.msgs_delivered++;
            c->stats.bytes_delivered += bytes;
            schedule_ack(s, c);
            return;
        }
    }
    r->p = p;
    r->off = (uint16_t)s->data_hdr_len;
    r->flags = flags;
    c->n_held++;
    if (ahead == 0) {
        if (deliver_in_order(s, c, rx))
            schedule_ack(s, c);
        /* Filled one gap, and frames wait above another: ask for its
         * first message again if its NAK is old (the NAK or its answer
         * may be lost, and no later frame may come to show it: the end of
         * a message of many segments). */
        if (s->use_nak && c->n_held && !rx_slot(s, c, c->rcv_nxt)->p)
            nak_one(s, c, c->rcv_nxt);
    } else if (s->use_nak && !rx_slot(s, c, (seq - 1) & s->seq_mask)->p) {
        nak_gap_below(s, c, seq);   /* the end of a gap: ask for what it lacks */
    }
    /* While a gap lasts, the ACK timer asks for it again (ini_swp_poll). */
    if (rx_gap(s, c) && !timer_list_conn_active(&s->ack_timers, (uint16_t)c->peer))
        start_timer(s, &s->ack_timers, (uint16_t)c->peer, 0);
}

/* The CRC32C a DATA frame carries against its message's. */
static int crc_ok(const struct ini_swp *s, const struct pbuf *p, const uint32_t *crc_done)
{
    uint32_t crc;
    if (p->len >= s->data_hdr_len) {
        memcpy(&crc, (const uint8_t *)p->payload + s->crc_off, 4);
        if (!crc_done && !p->next) {    /* one frame: its message in one piece */
            const uint8_t *msg = (const uint8_t *)p->payload + s->data_hdr_len;
            size_t n = p->len - (size_t)s->data_hdr_len;
            return crc == (n <= INI_SMALL_MAX ? ini_crc32c_small(0, msg, n) : ini_crc32c(0, msg, n));
        }
    } else {
        pbuf_copy_partial(p, &crc, 4, (u16_t)s->crc_off);
    }
    return crc == (crc_done ? *crc_done : crc_of_pbuf(p, (uint16_t)s->data_hdr_len));
}

/* The pseudo header's words: the sum is byte-order independent. */
static inline uint64_t pseudo_sum(uint32_t src, uint32_t dst, uint32_t udp_len)
{
    return (uint64_t)(src & 0xffff) + (src >> 16) + (dst & 0xffff) + (dst >> 16) + lwip_htons(IP_PROTO_UDP) +
           lwip_htons((u16_t)udp_len);
}

/* A DATA datagram of several pbufs (a reassembled one): its UDP checksum
 * and the CRC of its message in one pass over each pbuf
 * (ini_crc32c_sum), where lwIP's pseudo-header sum and then the CRC read
 * the whole datagram once each.  *crc gets the message's CRC; returns 1
 * when the UDP checksum is right.  The UDP header lies just in front of
 * the payload (removed by lwIP); the transport header and CRC in the
 * first pbuf (checked by the caller).  A pbuf that starts at an odd
 * offset of the datagram adds its sum byte-swapped. */
static int udp_check_and_crc(const struct ini_swp *s, const struct pbuf *p, uint32_t src, uint32_t dst,
                             uint32_t *crc)
{
    const uint8_t *first = p->payload;
    uint32_t hdr = (uint32_t)s->data_hdr_len;
    uint32_t sum = (uint32_t)ini_chksum(first - UDP_HLEN, (int)(UDP_HLEN + hdr));
    uint32_t c = 0, off = UDP_HLEN + hdr;
    for (const struct pbuf *q = p; q; q = q->next) {
        const uint8_t *b = (const uint8_t *)q->payload;
        uint32_t n = q->len;
        if (q == p) {
            b += hdr;
            n -= hdr;
        }
        uint64_t acc = 0;
        c = ini_crc32c_sum(c, b, n, &acc);
        uint16_t part = ini_chksum_fold(acc);
        sum += (off & 1) ? (uint16_t)(part << 8 | part >> 8) : part;
        off += n;
    }
    *crc = c;
    /* At most 46 pbufs of 16-bit sums and six pseudo-header words: no
     * overflow of 32 bits before the fold. */
    return fold16((uint32_t)(sum + pseudo_sum(src, dst, (uint32_t)p->tot_len + UDP_HLEN))) == 0xffff;
}

/* Verifies the UDP checksum of the datagram p (UDP header just removed,
 * still in front of the payload). */
static int udp_checksum_ok(struct pbuf *p, uint32_t src, uint32_t dst)
{
    if (p->next == NULL) {
        /* One frame: the segment is contiguous; the pseudo header is added
         * as words of its fields (the sum is byte-order independent). */
        const uint8_t *udp = (const uint8_t *)p->payload - UDP_HLEN;
        uint32_t len = (uint32_t)p->len + UDP_HLEN;
        uint64_t sum = (uint64_t)ini_chksum(udp, (int)len) + pseudo_sum(src, dst, len);
        return fold16((uint32_t)sum) == 0xffff;
    }
    if (pbuf_header_force(p, UDP_HLEN) != 0)
        return 0;
    ip_addr_t from, to;
    ip_addr_set_ip4_u32(&from, src);
    ip_addr_set_ip4_u32(&to, dst);
    u16_t sum = ip_chksum_pseudo(p, IP_PROTO_UDP, p->tot_len, &from, &to);
    pbuf_remove_header(p, UDP_HLEN);
    return sum == 0;
}

/* The datagram's UDP checksum: 1 when right.  A reassembled datagram or a
 * large frame (a segment: DATA, unless damaged) has its CRC taken in the
 * same pass, into *crc (crc_done then set); a small one was checked by
 * the link as it checked the IP header (sum_ok), unless that failed. */
static int checksum_ok(const struct ini_swp *s, struct pbuf *p, uint32_t src, uint32_t dst, int sum_ok,
                       uint32_t *crc, const uint32_t **crc_done)
{
    *crc_done = NULL;
    if ((p->next || p->len >= INI_SWP_ONE_PASS_MIN) && p->len >= s->data_hdr_len) {
        *crc_done = crc;
        return udp_check_and_crc(s, p, src, dst, crc);
    }
    return sum_ok || udp_checksum_ok(p, src, dst);
}

/* Reads the header of datagram p into h: 0, or -1 if it is too short or
 * malformed.  DATA holds at least an AM header, a continuing segment one
 * byte. */
static int read_header(const struct ini_swp *s, const struct pbuf *p, struct ini_swp_hdr *h)
{
    uint8_t raw[INI_SWP_MAXHDR];
    const uint8_t *hdr = p->payload;
    uint16_t n = p->len;
    if (n < s->hdr_len) {
        n = pbuf_copy_partial(p, raw, (u16_t)s->hdr_len, 0);
        hdr = raw;
    }
    if (ini_swp_hdr_read(hdr, n, s->seq_bits, h) < 0)
        return -1;
    if (h->op == INI_SWP_DATA &&
        p->tot_len < s->data_hdr_len + ((h->flags & INI_SWP_F_CONT) ? 1 : sizeof(struct ini_am_hdr)))
        return -1;
    return 0;
}

/* What a datagram must pass before the protocol believes anything in it,
 * in this order: its UDP checksum, its MAC (a frame that fails it is a
 * stranger's, and none of its fields is looked at), its header, its
 * connection (and source address), and a DATA frame's CRC (not its
 * sequence number, not its piggy-backed ack is believed before: a
 * damaged ack could release messages the peer never received).  Returns
 * the counter of the first check it fails, or NULL with its header in h
 * and its connection in *cp. */
static uint64_t *check_datagram(struct ini_swp *s, struct pbuf *p, uint32_t src, uint32_t dst, int sum_ok,
                                struct ini_rx_meta *rx, struct ini_swp_hdr *h, struct swp_conn **cp)
{
    uint32_t crc;
    const uint32_t *crc_done;
    if (!checksum_ok(s, p, src, dst, sum_ok, &crc, &crc_done))
        return &s->stats.udp_checksum_errors;
    if (rx->stamp)
        rx->t_in_udp = rte_rdtsc();
    if (s->tag_len && !mac_ok(s, p))
        return &s->stats.mac_fail;
    if (read_header(s, p, h) < 0)
        return &s->stats.bad_header;
    struct swp_conn *c = h->conn < s->n_inis ? &s->conns[h->conn] : NULL;
    if (!c || c->peer < 0 || c->dst.ip != src)
        return &s->stats.bad_conn;
    *cp = c;
    if (h->op == INI_SWP_DATA && !crc_ok(s, p, crc_done))
        return &c->stats.crc_errors;
    return NULL;
}

void ini_swp_input(void *ctx, struct pbuf *p, uint32_t src, uint32_t dst, int sum_ok, struct ini_rx_meta *rx)
{
    struct ini_swp *s = ctx;
    struct ini_swp_hdr h;
    struct swp_conn *c;
    if (rx->stamp)
        rx->t_in_ip = rte_rdtsc();
    uint64_t *bad = check_datagram(s, p, src, dst, sum_ok, rx, &h, &c);
    if (bad) {
        (*bad)++;
        pbuf_free(p);
        return;
    }
    if (h.op == INI_SWP_DATA) {
        defer_ack(s, c, h.ack);
        handle_data(s, c, h.seq, h.flags, p, rx);
        return;
    }
    take_ack(s, c);
    handle_ack(s, c, h.ack);
    if (h.op == INI_SWP_NAK)
        handle_nak(s, c, h.seq);
    pbuf_free(p);
}

/* ---- counters ---- */

struct ini_swp_stats ini_swp_totals(const struct ini_swp *s)
{
    struct ini_swp_stats sum = s->stats;
    for (int i = 0; i < s->n_inis; i++)
        if (s->conns[i].peer >= 0)
            ini_swp_stats_add(&sum, &s->conns[i].stats);
    return sum;
}

/* ---- timers and retries ---- */

int ini_swp_service(struct ini_swp *s, uint64_t now)
{
    int work = 0;
    uint16_t conn;
    uint32_t seq;
    s->now = now;
    /* First, so that no timer fires or starts for what is acknowledged
     * already. */
    work += take_later(s);
    while (timer_list_pop_expired(&s->send_timers, now, &conn, &seq)) {
        struct swp_conn *c = &s->conns[conn];
        work++;
        if (dist(s, c->snd_una, seq) >= dist(s, c->snd_una, c->snd_nxt))
            continue;               /* acknowledged: a stale record */
        if (tx_slot(s, c, seq)->flags && seq != c->snd_una) {
            /* A segment above the oldest unacknowledged frame.  The ack is
             * cumulative: behind one loss, every segment of the window
             * times out together, received or not.  The receiver NAKs a
             * lost segment when the next one arrives (segments come in
             * runs), and again when it reaches the bottom of its window;
             * the timer retransmits only the oldest. */
            start_timer(s, &s->send_timers, conn, seq);
            continue;
        }
        if (transmit(s, c, seq, NULL) == 0) {
            c->stats.retx_timer++;
        }
        start_timer(s, &s->send_timers, conn, seq);
    }
    while (timer_list_pop_expired(&s->ack_timers, now, &conn, &seq)) {
        struct swp_conn *c = &s->conns[conn];
        work++;
        if (rx_gap(s, c)) {
            /* Frames wait above a gap whose NAK or answer may be lost:
             * ask again (once per nak_gap; the NAK carries the ack), and
             * look again at the next expiry. */
            nak_one(s, c, c->rcv_nxt);
            start_timer(s, &s->ack_timers, conn, 0);
        }
        if (c->ack_sent != c->rcv_nxt || c->rcv_unacked || c->ack_forced) {
            send_control(s, c, INI_SWP_ACK, 0);
            c->stats.acks_bare++;
        }
    }
    if (s->n_pending) {
        /* Messages in segments whose last transmission found no buffer
         * (acks send the rest as the window opens). */
        for (int i = 0; i < s->n_inis && s->n_pending; i++) {
            struct swp_conn *c = &s->conns[i];
            if (c->peer >= 0 && c->pend_left && dist(s, c->snd_una, c->snd_nxt) < s->window) {
                continue_message(s, c);
                work++;
            }
        }
    }
    if (s->n_blocked) {
        /* Offered again: as if it arrived now, in an empty queue. */
        struct ini_rx_meta rx = { .t_arrive = now, .t_start = now };
        for (int i = 0; i < s->n_inis; i++) {
            struct swp_conn *c = &s->conns[i];
            if (c->peer >= 0 && c->delivery_blocked && deliver_in_order(s, c, &rx)) {
                schedule_ack(s, c);
                work++;
            }
        }
    }
    return work;
}

/* ---- set-up ---- */

int ini_swp_init(struct ini_swp *s, const struct ini_swp_params *prm, struct ini_netif *nf,
                 ini_deliver_fn deliver, ini_release_fn release, void *ctx)
{
    memset(s, 0, sizeof(*s));
    if (prm->n_inis < 1 || prm->n_inis > INI_SWP_MAX_INIS || prm->me < 0 || prm->me >= prm->n_inis ||
        (prm->seq_bits != 8 && prm->seq_bits != 16 && prm->seq_bits != 32) || prm->window < 1 ||
        (uint64_t)prm->window > (1ull << (prm->seq_bits - 1)) ||
        prm->mtu < IP_HLEN + UDP_HLEN + INI_SWP_MAXHDR + INI_SWP_TAG_LEN + (int)sizeof(struct ini_am_hdr))
        return -1;
    s->me = prm->me;
    s->n_inis = prm->n_inis;
    s->frame_max = (uint32_t)(prm->mtu - IP_HLEN - UDP_HLEN);
    s->seq_bits = prm->seq_bits;
    s->hdr_len = ini_swp_hdr_len(s->seq_bits);
    s->tag_len = prm->auth ? INI_SWP_TAG_LEN : 0;
    s->crc_off = s->hdr_len + s->tag_len;
    s->data_hdr_len = s->crc_off + 4;
    s->segment = prm->segment;
    s->seg_max = s->frame_max - (uint32_t)s->data_hdr_len;
    if (prm->auth) {
        /* The run's keys: the machine's key bound to this run's epoch, so
         * that frames recorded in another run (same key, another epoch)
         * fail the MAC. */
        static const uint8_t label[] = "ini swp run keys v1";
        uint8_t keys[sizeof(s->hash_key) + sizeof(s->tag_key)];
        crypto_generichash_state st;
        if (sodium_init() < 0)
            return -1;
        crypto_generichash_init(&st, prm->key, INI_SWP_KEY_LEN, sizeof(keys));
        crypto_generichash_update(&st, label, sizeof(label));
        crypto_generichash_update(&st, prm->epoch, INI_SWP_EPOCH_LEN);
        crypto_generichash_final(&st, keys, sizeof(keys));
        memcpy(s->hash_key, keys, sizeof(s->hash_key));
        memcpy(s->tag_key, keys + sizeof(s->hash_key), sizeof(s->tag_key));
        sodium_memzero(keys, sizeof(keys));
    }
    s->seq_mask = s->seq_bits == 32 ? UINT32_MAX : (1u << s->seq_bits) - 1;
    s->window = (uint32_t)prm->window;
    uint32_t slots = 1;
    while (slots < s->window)
        slots <<= 1;
    s->slot_mask = slots - 1;
    s->use_nak = prm->nak;
    s->deliver = deliver;
    s->release = release;
    s->ctx = ctx;
    uint64_t send_ticks = prm->tsc_hz / 1000000 * (uint64_t)prm->send_timeout_us;
    uint64_t ack_ticks = prm->tsc_hz / 1000000 * (uint64_t)prm->ack_timeout_us;
    s->nak_gap = send_ticks / 4;

    int n_conns = 0;
    for (int i = 0; i < prm->n_inis; i++) {
        struct swp_conn *c = &s->conns[i];
        c->peer = -1;
        if (!prm->connect[i] || i == prm->me)
            continue;
        c->peer = i;
        ini_dgram_dst_init(&c->dst, prm->ip[i]);
        c->tx = calloc(slots, sizeof(*c->tx));
        c->rx = calloc(slots, sizeof(*c->rx));
        if (!c->tx || !c->rx)
            return -1;
        n_conns++;
    }
    /* A machine of one cluster has no connection; the lists still need a
     * record to exist. */
    uint32_t send_capacity = n_conns ? (uint32_t)n_conns * s->window : 1;
    if (timer_list_init_send(&s->send_timers, (uint32_t)prm->n_inis, send_capacity, send_ticks) < 0 ||
        timer_list_init_ack(&s->ack_timers, (uint32_t)prm->n_inis, ack_ticks) < 0)
        return -1;

    /* Every datagram goes through the INI's UDP port (stack/dgram.h:
     * header prediction, lwIP for the rest); ini_swp_input takes them. */
    return ini_dgram_open(&s->dg, nf, INI_UDP_PORT, ini_swp_input, s);
}

void ini_swp_close(struct ini_swp *s)
{
    ini_dgram_close(&s->dg);
    for (int i = 0; i < s->n_inis; i++) {
        struct swp_conn *c = &s->conns[i];
        if (c->rx)
            for (uint32_t k = 0; k <= s->slot_mask; k++)
                if (c->rx[k].p)
                    pbuf_free(c->rx[k].p);
        if (c->asm_head)
            pbuf_free(c->asm_head);
        c->asm_head = NULL;
        free(c->tx);
        free(c->rx);
        c->tx = NULL;
        c->rx = NULL;
    }
    timer_list_destroy(&s->send_timers);
    timer_list_destroy(&s->ack_timers);
    sodium_memzero(s->hash_key, sizeof(s->hash_key));
    sodium_memzero(s->tag_key, sizeof(s->tag_key));
}
