/*
 * swp_tx.c - the transport's transmission (swp.h, swp_internal.h): a
 * message's slot filled once (its CRC and its sum for the UDP checksum;
 * with a MAC neither, its inner sum instead), then each (re)transmission
 * by one of three paths:
 *
 *   tx_frame      a message that fits one frame: copied straight into a
 *                 transmit mbuf behind the header, checked and summed (or
 *                 hashed) in the same pass the first time (stack/dgram.h,
 *                 predicted)
 *   tx_fragments  a longer one (segmentation off): header and CRC in the
 *                 ring's headroom, the datagram cut into IP fragments
 *   tx_parts      a longer one with a MAC: the header, MAC and CRC do not
 *                 fit the headroom and go apart, through lwIP
 *
 * and the control frames (ACK, NAK).
 */
#include "swp_internal.h"

#include <rte_cycles.h>

#include "checksum.h"

int swp_send_frame(struct ini_swp *s, struct swp_conn *c, uint8_t op, uint32_t seq, uint32_t ack,
                   const uint8_t *body, uint16_t blen)
{
    struct ini_dgram_frame fr;
    uint16_t front = (uint16_t)(s->hdr_len + s->tag_len), len = (uint16_t)(front + blen);
    uint8_t *wire = ini_dgram_frame_begin(s->dg, &c->dst, len, &fr);
    if (!wire) {
        s->stats.send_errors++;
        return -1;
    }
    struct ini_swp_hdr h = { (uint8_t)(op & INI_SWP_OP_MASK), (uint8_t)s->me, seq, ack,
                             (uint8_t)(op & ~INI_SWP_OP_MASK) };
    hdr_write(wire, &h, s->seq_bits);
    if (blen)
        memcpy(wire + front, body, blen);
    if (s->tag_len) {
        uint8_t inner[INI_SWP_TAG_LEN];
        swp_inner_of(s, body, blen, NULL, 0, inner);
        swp_tag_of(s, c->peer, wire, blen, inner, wire + s->hdr_len);
    }
    if (ini_dgram_frame_send(s->dg, &fr, s->tag_len ? 0 : ini_chksum(wire, len)) < 0) {
        s->stats.send_errors++;
        return -1;
    }
    return 0;
}

/* Sends a control frame (ACK, NAK or PROBE, and a NAK's body) with our
 * ack. */
static void send_control(struct ini_swp *s, struct swp_conn *c, uint8_t op, uint32_t seq, const uint8_t *body,
                         uint16_t blen)
{
    if (swp_send_frame(s, c, op, seq, c->rcv_nxt, body, blen) < 0)
        return;                     /* counted; the ACK timer tries again */
    c->ack_sent = c->rcv_nxt;
    c->rcv_unacked = 0;
    c->ack_forced = 0;
    timer_list_cancel_conn(&s->ack_timers, (uint16_t)c->peer);
    ini_netif_flush(s->dg->nf);
}

/* An ACK carries the receiver's grant (2 bytes, big-endian); a probe
 * nothing. */
void swp_send_control(struct ini_swp *s, struct swp_conn *c, uint8_t op, uint32_t seq)
{
    if (op != INI_SWP_ACK) {
        send_control(s, c, op, seq, NULL, 0);
        return;
    }
    uint32_t g = swp_grant_for(s, c);
    uint8_t body[2] = { (uint8_t)(g >> 8), (uint8_t)g };
    c->grant_sent = g;
    send_control(s, c, op, seq, body, 2);
}

/* A NAK: the length of the run it asks for, then the grant, each 2
 * bytes, big-endian (both at most a window). */
void swp_send_nak(struct ini_swp *s, struct swp_conn *c, uint32_t seq, uint32_t n)
{
    uint32_t g = swp_grant_for(s, c);
    uint8_t body[4] = { (uint8_t)(n >> 8), (uint8_t)n, (uint8_t)(g >> 8), (uint8_t)g };
    c->grant_sent = g;
    send_control(s, c, INI_SWP_NAK, seq, body, 4);
}

/* The UDP payload's sum from the message's (its CRC's and message's,
 * kept: fill_slot) and the front's (the header: crc_off bytes at wire;
 * without a MAC, the only case summed).  Both start at even offsets. */
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

/* The first transmission of a message with a MAC: copied and hashed in
 * one pass (the inner sum kept for a retransmission), the CRC field 0,
 * the tag written; no UDP sum (ini_dgram_no_checksum). */
static inline uint16_t copy_first_keyed(struct ini_swp *s, struct swp_conn *c, struct swp_tx_slot *t, uint8_t *wire,
                                        uint32_t len)
{
    t->crc = 0;
    t->crc_pending = 0;
    t->msg_sum_valid = 0;
    memcpy(wire + s->crc_off, &t->crc, 4);
    swp_inner_copy(s, wire + s->data_hdr_len, t->am, t->am_len, t->inner);
    swp_tag_of(s, c->peer, wire, len - (uint32_t)s->crc_off, t->inner, wire + s->hdr_len);
    return 0;
}

/* A later transmission: message and CRC copied, the MAC written, the
 * frame summed from the message's sum if there is one, else hot, here;
 * with a MAC not at all (no UDP checksum: ini_dgram_no_checksum). */
static inline uint16_t copy_again(struct ini_swp *s, struct swp_conn *c, struct swp_tx_slot *t, uint8_t *wire,
                                  uint32_t len)
{
    memcpy(wire + s->data_hdr_len, t->am, t->am_len);
    memcpy(wire + s->crc_off, &t->crc, 4);
    if (s->tag_len) {
        swp_tag_of(s, c->peer, wire, len - (uint32_t)s->crc_off, t->inner, wire + s->hdr_len);
        return 0;
    }
    return t->msg_sum_valid ? frame_sum(s, t, wire) : ini_chksum(wire, (int)len);
}

/* One frame: header, CRC and message go straight into the frame (the one
 * copy of a transmission) and are summed there, hot. */
static int tx_frame(struct ini_swp *s, struct swp_conn *c, struct swp_tx_slot *t, const struct ini_swp_hdr *h,
                    struct ini_swp_tx_stamps *ts)
{
    uint32_t len = t->am_len + (uint32_t)s->data_hdr_len;
    struct ini_dgram_frame fr;
    uint8_t *wire = ini_dgram_frame_begin(s->dg, &c->dst, (uint16_t)len, &fr);
    if (!wire)
        return -1;
    hdr_write(wire, h, s->seq_bits);
    uint16_t sum = !t->crc_pending ? copy_again(s, c, t, wire, len)
                   : s->tag_len    ? copy_first_keyed(s, c, t, wire, len)
                                   : copy_first(s, t, wire);
    if (ts)
        ts->t_out_udp = rte_rdtsc();
    return ini_dgram_frame_send(s->dg, &fr, sum);
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
    return ini_dgram_send_frags(s->dg, &c->dst, wire, t->am_len + (uint32_t)s->data_hdr_len, sum, &t->ip_id);
}

/* Several frames with a MAC: header, MAC and CRC do not fit the ring's
 * headroom; they go apart, in front of the message by reference. */
static int tx_parts(struct ini_swp *s, struct swp_conn *c, struct swp_tx_slot *t, const struct ini_swp_hdr *h,
                    struct ini_swp_tx_stamps *ts)
{
    uint8_t wire[INI_SWP_MAXHDR + INI_SWP_TAG_LEN];
    hdr_write(wire, h, s->seq_bits);
    memcpy(wire + s->crc_off, &t->crc, 4);
    swp_tag_of(s, c->peer, wire, 4 + t->am_len, t->inner, wire + s->hdr_len);
    if (ts)
        ts->t_out_udp = rte_rdtsc();
    return ini_dgram_send_parts(s->dg, &c->dst, wire, (uint16_t)s->data_hdr_len, t->am, t->am_len, 0);
}

/* (Re)transmits message `seq` of connection c from its slot, by the path
 * its length and the MAC choose; stamps the UDP boundary into ts unless
 * NULL.  The frame carries our ack: the ACK timer, if it runs, is left to
 * expire (it then finds nothing to acknowledge, or what arrived since): in
 * a request-reply exchange, cancelling it here and starting it again at
 * the next delivery cost more per message than one idle expiry per ACK
 * timeout. */
int swp_transmit(struct ini_swp *s, struct swp_conn *c, uint32_t seq, struct ini_swp_tx_stamps *ts)
{
    struct swp_tx_slot *t = tx_slot(s, c, seq);
    if (ini_dgram_tx_room(s->dg, &c->dst) < ini_dgram_frames(s->dg, t->am_len + (uint32_t)s->data_hdr_len)) {
        c->stats.tx_held++;         /* the port is full: not now, not dropped */
        return -1;
    }
    uint8_t flags = (uint8_t)(t->flags | (t->sent ? INI_SWP_F_RETX : 0));
    struct ini_swp_hdr h = { INI_SWP_DATA, (uint8_t)s->me, seq, c->rcv_nxt, flags };
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
    t->sent = 1;
    c->stats.tx_copied += t->am_len;    /* every path copies the message once into its frames */
    if (c->ack_sent != c->rcv_nxt || c->rcv_unacked)
        c->stats.acks_piggy++;
    c->ack_sent = c->rcv_nxt;
    c->rcv_unacked = 0;
    c->ack_forced = 0;
    return 0;
}

/* Fills slot t for a message (or segment) of len bytes at am, its CRC and
 * its sum for the UDP checksum: taken as the first transmission copies it
 * into its frame (crc_pending) when it fits one frame; else here, once (a
 * message of several frames is not copied in one piece): a small
 * message's CRC inline, its frame summed hot at each transmission
 * (cheaper than a pass that sums too); a longer one's CRC and sum in one
 * pass, the sum kept.  With a MAC, neither: its inner sum instead, once
 * per message (in the first copy too when it fits one frame), the CRC
 * field 0 and the UDP checksum none.  The MAC catches every change the
 * CRC and the checksum would, so they would be two more passes over the
 * message for nothing (issue 49: they were half of what the MAC cost). */
void swp_fill_slot(struct ini_swp *s, struct swp_tx_slot *t, uint8_t *am, uint32_t len, void *cookie,
                   uint8_t flags, int release)
{
    t->am = am;
    t->am_len = len;
    t->cookie = cookie;
    t->naked = 0;
    t->sent = 0;
    t->resent = 0;
    t->ip_id = 0;
    t->flags = flags;
    t->release = (uint8_t)release;
    t->crc_pending = len + (uint32_t)s->data_hdr_len <= s->frame_max;
    if (t->crc_pending)
        return;
    if (s->tag_len) {
        t->crc = 0;
        t->msg_sum_valid = 0;
        swp_inner_of(s, (const uint8_t *)&t->crc, 4, am, len, t->inner);
        return;
    }
    if (len <= INI_SMALL_MAX) {
        t->crc = ini_crc32c_small(0, am, len);
        t->msg_sum_valid = 0;
    } else {
        uint64_t acc = 0;
        t->crc = ini_crc32c_sum(0, am, len, &acc);
        t->msg_sum = ini_sum_fold(ini_sum_small(acc, &t->crc, 4));
        t->msg_sum_valid = 1;
    }
}

int swp_send_message(struct ini_swp *s, struct swp_conn *c, uint8_t *am, uint32_t am_len, void *cookie,
                     struct ini_swp_tx_stamps *stamps)
{
    if (s->segment && am_len + (uint32_t)s->data_hdr_len > s->frame_max)
        return swp_send_segments(s, c, am, am_len, cookie, stamps);
    /* Both callers (ini_swp_send, swp_replay) checked the window: its
     * slot is free, not a frame still unacknowledged. */
    INI_ASSERT(dist(s, c->snd_una, c->snd_nxt) < s->window);
    uint32_t seq = c->snd_nxt;
    swp_fill_slot(s, tx_slot(s, c, seq), am, am_len, cookie, 0, 1);
    if (stamps)
        stamps->t_out_window = rte_rdtsc();
    if (swp_transmit(s, c, seq, stamps) < 0)
        return -1;
    c->snd_nxt = (seq + 1) & s->seq_mask;
    list_later(s, c);               /* its SEND timer, once the frame is out */
    return 0;
}

int ini_swp_send(struct ini_swp *s, int peer, uint8_t *am, uint32_t am_len, void *cookie, uint64_t now,
                 struct ini_swp_tx_stamps *stamps)
{
    struct swp_conn *c = &s->conns[peer];
    s->now = now;
    if (c->ack_deferred && !send_room(s, c))
        take_ack(s, c);             /* room the peer has made already */
    /* A connection still replaying, or waiting for its SYNC's answer,
     * counts as full: new messages wait behind (swp_resync.c). */
    if (c->pend_left || c->replaying || c->unsynced || !send_room(s, c)) {
        c->stats.window_full++;
        return -1;
    }
    dur_log_push(s, c, am, am_len, cookie);
    if (swp_send_message(s, c, am, am_len, cookie, stamps) < 0) {
        dur_log_pop(s, c);
        return -1;
    }
    c->stats.msgs_sent++;
    c->stats.bytes_sent += am_len - (uint32_t)sizeof(struct ini_am_hdr);
    return 0;
}
