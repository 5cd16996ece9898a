/*
 * swp_rx.c - the transport's reception (swp.h, swp_internal.h): the
 * checks a datagram passes before anything in it is believed (UDP
 * checksum, fused with the CRC for a long one; MAC; header; connection;
 * CRC), the receive window, in-order delivery, and the NAKs that ask for
 * what a gap lacks.
 */
#include "swp_internal.h"

#include "lwip/inet_chksum.h"
#include "lwip/ip.h"
#include "lwip/prot/udp.h"

#include <rte_cycles.h>

#include "checksum.h"

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
    uint32_t sum = ini_sum_fold(ini_sum_small(0, first - UDP_HLEN, UDP_HLEN + hdr));   /* inline: a few words */
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
    if (h->op == INI_SWP_SYNC && p->tot_len != s->hdr_len + s->tag_len + INI_SWP_SYNC_BODY)
        return -1;
    return 0;
}

/* The checks of a datagram under the MAC, which covers every byte the
 * UDP checksum and the CRC would (the sender leaves both out: swp_tx.c
 * swp_fill_slot): one pass, the inner hash's.  A damaged frame is then
 * counted as a stranger's (mac_fail). */
static uint64_t *check_mac(struct ini_swp *s, const struct pbuf *p, struct ini_rx_meta *rx)
{
    if (rx->stamp)
        rx->t_in_udp = rte_rdtsc();
    return swp_mac_ok(s, p) ? NULL : &s->stats.mac_fail;
}

/* What a datagram must pass before the protocol believes anything in it,
 * in this order: its UDP checksum, its MAC (a frame that fails it is a
 * stranger's, and none of its fields is looked at), its header, its
 * connection (and source address), and a DATA frame's CRC (not its
 * sequence number, not its piggy-backed ack is believed before: a
 * damaged ack could release messages the peer never received).  With a
 * MAC, the MAC alone stands for the checksum and the CRC.  Returns the
 * counter of the first check it fails, or NULL with its header in h and
 * its connection in *cp. */
static uint64_t *check_datagram(struct ini_swp *s, struct pbuf *p, uint32_t src, uint32_t dst, int sum_ok,
                                struct ini_rx_meta *rx, struct ini_swp_hdr *h, struct swp_conn **cp)
{
    uint32_t crc;
    const uint32_t *crc_done = NULL;
    if (s->tag_len) {
        uint64_t *fail = check_mac(s, p, rx);
        if (fail)
            return fail;
    } else {
        if (!checksum_ok(s, p, src, dst, sum_ok, &crc, &crc_done))
            return &s->stats.udp_checksum_errors;
        if (rx->stamp)
            rx->t_in_udp = rte_rdtsc();
    }
    if (read_header(s, p, h) < 0)
        return &s->stats.bad_header;
    struct swp_conn *c = h->conn < s->n_inis ? &s->conns[h->conn] : NULL;
    if (!c || c->peer < 0 || c->dst.ip != src)
        return &s->stats.bad_conn;
    *cp = c;
    if (h->op == INI_SWP_DATA && !s->tag_len) {
        if (!crc_ok(s, p, crc_done))
            return &c->stats.crc_errors;
        if (crc_done)       /* the one-pass check of a long frame; a short one's is inline, hot */
            c->stats.rx_checked += p->tot_len - (uint32_t)s->data_hdr_len;
    } else if (h->op == INI_SWP_DATA) {
        c->stats.rx_checked += p->tot_len - (uint32_t)s->data_hdr_len;     /* the MAC's one pass */
    }
    return NULL;
}

/* ---- the receive window ---- */

/* Delivers in order from the bottom of the receive window; rx describes
 * the frame that completed the first of them.  Segments join their
 * message's chain as they are taken (and are acknowledged then,
 * swp_seg_take); the chain goes to the deliver callback with its last
 * segment.  A refused delivery leaves that last segment in its slot,
 * unacknowledged. */
int swp_deliver_in_order(struct ini_swp *s, struct swp_conn *c, struct ini_rx_meta *rx)
{
    int n = 0;
    struct swp_rx_slot *r;
    while ((r = rx_slot(s, c, c->rcv_nxt))->p) {
        struct pbuf *m;
        uint16_t off;
        if (swp_seg_take(s, c, r, &m, &off)) {
            n++;
            continue;
        }
        uint32_t bytes = m->tot_len - off - (uint32_t)sizeof(struct ini_am_hdr);
        uint32_t d_after = (c->rcv_nxt + 1) & s->seq_mask;
        dur_deliver_begin(s, c, d_after);
        if (s->deliver(s->ctx, c->peer, m, off, rx) < 0) {
            if (r->flags & INI_SWP_F_CONT)
                swp_seg_refused(c, r);
            if (!c->delivery_blocked) {
                c->delivery_blocked = 1;
                s->n_blocked++;
                c->stats.deliver_refused++;
            }
            break;
        }
        dur_deliver_done(s, c, d_after);
        if (r->flags & INI_SWP_F_CONT)
            swp_seg_delivered(c);
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

/* How long the receiver waits before it asks for a frame again: a
 * round trip from its NAK to the retransmission (rx_srtt, twice, for the
 * sender's pacing and the queues on the way), at least nak_gap, at most
 * 16 of them. */
static inline uint64_t nak_interval(const struct ini_swp *s, const struct swp_conn *c)
{
    uint64_t g = 2 * c->rx_srtt;
    return g < s->nak_gap ? s->nak_gap : g > 16 * s->nak_gap ? 16 * s->nak_gap : g;
}

/* Slot k is missing and may be asked for now: never asked, or asked
 * longer ago than the interval, doubled for each NAK before
 * (backed_off: a sender whose answers do not come is not asked faster). */
static inline int nak_due(const struct ini_swp *s, const struct swp_conn *c, uint32_t k, uint64_t gap)
{
    const struct swp_rx_slot *r = rx_slot((struct ini_swp *)s, (struct swp_conn *)c, k);
    if (r->p)
        return 0;
    if (!r->nak_tsc)
        return 1;
    gap = backed_off(s, gap, r->naks);
    /* nak_tsc is the turn's time or'ed with 1: it may be a tick ahead */
    return s->now >= r->nak_tsc && s->now - r->nak_tsc >= gap;
}

int swp_nak_runs(struct ini_swp *s, struct swp_conn *c, uint32_t lo, uint32_t hi, int tail)
{
    uint64_t gap = nak_interval(s, c);
    int naks = 0;
    uint32_t k = lo;
    while (k != hi) {
        if (!nak_due(s, c, k, gap)) {
            k = (k + 1) & s->seq_mask;
            continue;
        }
        uint32_t first = k, n = 0;
        for (; k != hi && nak_due(s, c, k, gap); k = (k + 1) & s->seq_mask, n++)
            ;
        /* A run that nothing received follows may be on its way. */
        if (k == hi ? !tail : !rx_slot(s, c, k)->p)
            continue;
        for (uint32_t j = 0; j < n; j++) {
            struct swp_rx_slot *r = rx_slot(s, c, (first + j) & s->seq_mask);
            r->nak_tsc = s->now | 1;
            r->naks++;
        }
        swp_send_nak(s, c, first, n);
        c->stats.naks_sent++;
        naks++;
    }
    return naks;
}

/* The peer has sent every frame before seq, and this probe left after
 * them: what of that is not here (an empty slot: neither held nor
 * delivered) is lost, and asked for; the rest is acknowledged.  A probe
 * that arrives when all is here (the usual case: the peer's SEND timer ran
 * out while this INI was slow to read its ring, or to acknowledge) costs
 * an ACK, no retransmission. */
void swp_handle_probe(struct ini_swp *s, struct swp_conn *c, uint32_t seq)
{
    c->stats.probes_received++;
    uint32_t sent = dist(s, c->rcv_nxt, seq);
    int naked = 0;
    if (s->use_nak && sent <= s->window)        /* else an old probe, or a bogus one */
        naked = swp_nak_runs(s, c, c->rcv_nxt, seq, 1);
    if (!naked) {                               /* a NAK carries our ack */
        swp_send_control(s, c, INI_SWP_ACK, 0);
        c->stats.acks_bare++;
    }
}

/* Frame seq (ahead of rcv_nxt) has arrived after a gap: asks for the
 * gap, the run of empty slots just below it, in one NAK.  Frames mostly
 * arrive in order, so that run was skipped just now; losses in
 * different places of a window of segments are asked for at once, not
 * one round trip after the other. */
static void nak_gap_below(struct ini_swp *s, struct swp_conn *c, uint32_t seq)
{
    uint32_t lo = seq;
    while (lo != c->rcv_nxt && !rx_slot(s, c, (lo - 1) & s->seq_mask)->p)
        lo = (lo - 1) & s->seq_mask;
    swp_nak_runs(s, c, lo, (seq + 1) & s->seq_mask, 0);
}

/* A duplicate: one the link made, or, when it is a retransmission
 * (INI_SWP_F_RETX), one the sender made of a frame that was not lost. */
static inline void count_duplicate(struct swp_conn *c, uint8_t flags)
{
    c->stats.duplicates++;
    if (flags & INI_SWP_F_RETX)
        c->stats.retx_spurious++;
}

/* A DATA frame outside the receive window: behind it, a duplicate of
 * something delivered (our ack may have been lost: it goes again soon);
 * else too far ahead. */
static void outside_window(struct ini_swp *s, struct swp_conn *c, uint32_t seq, uint8_t flags, struct pbuf *p)
{
    if (dist(s, seq, c->rcv_nxt) <= s->window) {
        count_duplicate(c, flags);
        c->ack_forced = 1;
        if (!timer_list_conn_active(&s->ack_timers, (uint16_t)c->peer))
            start_timer(s, &s->ack_timers, (uint16_t)c->peer, 0);
    } else {
        c->stats.out_of_window++;
    }
    pbuf_free(p);
}

/* A retransmission filled slot r: the time since its NAK is a round trip
 * of a NAK and its answer (the receiver's NAK interval), when the slot
 * was asked for once (Karn: after more NAKs the copy may answer any of
 * them; timed from the last, samples grew with the interval they set,
 * to its cap of 8 ms, and a 44-fragment datagram under the fault mix,
 * which needs some 160 tries, waited seconds: reliability.sh
 * mix64k-off). */
static inline void rx_rtt_sample(struct ini_swp *s, struct swp_conn *c, const struct swp_rx_slot *r)
{
    if (!r->nak_tsc || r->naks != 1 || s->now < r->nak_tsc)
        return;
    uint64_t x = s->now - r->nak_tsc;
    c->rx_srtt = c->rx_srtt ? (7 * c->rx_srtt + x) / 8 : x;
}

/* A DATA frame that passed every check: kept in its slot of the receive
 * window (flags: its segment flags, and RETX), delivered in order. */
static void handle_data(struct ini_swp *s, struct swp_conn *c, uint32_t seq, uint8_t flags, struct pbuf *p,
                        struct ini_rx_meta *rx)
{
    uint32_t ahead = dist(s, c->rcv_nxt, seq);
    if (ahead >= s->window) {
        outside_window(s, c, seq, flags, p);
        return;
    }
    struct swp_rx_slot *r = rx_slot(s, c, seq);
    if (r->p) {
        count_duplicate(c, flags);
        pbuf_free(p);
        return;
    }
    if (flags & INI_SWP_F_RETX) {
        c->stats.retx_after_loss++;     /* a frame this INI lacked */
        flags &= (uint8_t)~INI_SWP_F_RETX;
        rx_rtt_sample(s, c, r);
    }
    if (ahead == 0 && c->n_held == 0) {
        if (!c->asm_head && !(flags & (INI_SWP_F_MORE | INI_SWP_F_CONT))) {
            /* The common case: the next message, whole, nothing held above
             * it (so no gap, no NAK, no refused delivery): delivered
             * straight from the frame, as swp_deliver_in_order would.
             * Refused, it takes the slot like any other. */
            uint32_t bytes = p->tot_len - (uint32_t)s->data_hdr_len - (uint32_t)sizeof(struct ini_am_hdr);
            uint32_t d_after = (seq + 1) & s->seq_mask;
            dur_deliver_begin(s, c, d_after);
            if (s->deliver(s->ctx, c->peer, p, (uint16_t)s->data_hdr_len, rx) == 0) {
                dur_deliver_done(s, c, d_after);
                rcv_next(s, c, r);
                c->stats.msgs_delivered++;
                c->stats.bytes_delivered += bytes;
                swp_schedule_ack(s, c);
                return;
            }
        } else if (swp_seg_take_next(s, c, p, flags)) {
            swp_schedule_ack(s, c);     /* the next segment of a message, chained */
            return;
        }
    }
    r->p = p;
    r->off = (uint16_t)s->data_hdr_len;
    r->flags = flags;
    c->n_held++;
    if (ahead == 0) {
        if (swp_deliver_in_order(s, c, rx))
            swp_schedule_ack(s, c);
        /* Filled one gap, and frames wait above another: ask for its
         * first message again if its NAK is old (the NAK or its answer
         * may be lost, and no later frame may come to show it: the end of
         * a message of many segments). */
        if (s->use_nak && c->n_held && !rx_slot(s, c, c->rcv_nxt)->p)
            swp_nak_runs(s, c, c->rcv_nxt, (c->rcv_nxt + s->window) & s->seq_mask, 0);
    } else if (s->use_nak && !rx_slot(s, c, (seq - 1) & s->seq_mask)->p) {
        nak_gap_below(s, c, seq);   /* the end of a gap: ask for what it lacks */
    }
    /* While a gap lasts, the ACK timer asks for it again (ini_swp_poll). */
    if (rx_gap(s, c) && !timer_list_conn_active(&s->ack_timers, (uint16_t)c->peer))
        start_timer(s, &s->ack_timers, (uint16_t)c->peer, 0);
}

/* The body of an ACK (the grant) or a NAK (the run's length, the grant):
 * into n (1 without one) and c's grant (unchanged without one). */
static void control_body(struct ini_swp *s, struct swp_conn *c, const struct ini_swp_hdr *h, struct pbuf *p,
                         uint32_t *n)
{
    uint8_t b[4];
    uint16_t at = (uint16_t)(s->hdr_len + s->tag_len), len = (uint16_t)(p->tot_len - at);
    *n = 1;
    if (p->tot_len <= at || (h->op != INI_SWP_ACK && h->op != INI_SWP_NAK))
        return;
    len = len > 4 ? 4 : len;
    pbuf_copy_partial(p, b, len, at);
    uint16_t gat = h->op == INI_SWP_NAK ? 2 : 0;
    if (h->op == INI_SWP_NAK && len >= 2)
        *n = ((uint32_t)b[0] << 8 | b[1]) ? ((uint32_t)b[0] << 8 | b[1]) : 1;
    if (len >= gat + 2) {
        uint32_t g = (uint32_t)b[gat] << 8 | b[gat + 1];
        c->grant = g < 1 ? 1 : g > s->window ? s->window : g;
        set_limit(c);
    }
}

/* c's last DATA frame came within active_span (its stamp is the turn's
 * time or'ed with 1: never 0, and at most 1 tick ahead of now). */
static inline int sending_now(const struct ini_swp *s, const struct swp_conn *c)
{
    return c->last_data && (s->now < c->last_data || s->now - c->last_data < s->active_span);
}

/* Counts the connections whose DATA came within active_span (at most
 * once per quarter of it: not per frame). */
static void count_active(struct ini_swp *s)
{
    uint32_t n = 0;
    for (int i = 0; i < s->n_inis; i++)
        n += s->conns[i].peer >= 0 && sending_now(s, &s->conns[i]);
    s->n_active = n;
    s->active_due = s->now + s->active_span / 4;
}

uint32_t swp_grant_for(struct ini_swp *s, struct swp_conn *c)
{
    (void)c;
    if (s->now >= s->active_due)
        count_active(s);
    uint32_t g = s->rx_budget / (s->n_active ? s->n_active : 1);
    uint32_t lo = s->window < INI_SWP_CWND_MIN ? s->window : INI_SWP_CWND_MIN;
    return g < lo ? lo : g > s->window ? s->window : g;
}

/* A DATA frame from c: it is sending now (one more sharing the budget,
 * until the next count). */
static inline void note_data(struct ini_swp *s, struct swp_conn *c)
{
    if (!sending_now(s, c))
        s->n_active++;
    c->last_data = s->now | 1;
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
    c->quiet = 0;                   /* the peer answers: its probes' back-off ends */
    if (h.op == INI_SWP_DATA) {
        note_data(s, c);
        if (!c->unsynced)           /* else its ack is for frames this INI no longer knows */
            swp_defer_ack(s, c, h.ack);
        handle_data(s, c, h.seq, h.flags, p, rx);
        return;
    }
    if (h.op == INI_SWP_SYNC || c->unsynced) {
        if (h.op == INI_SWP_SYNC) {
            uint8_t body[INI_SWP_SYNC_BODY];
            pbuf_copy_partial(p, body, INI_SWP_SYNC_BODY, (u16_t)(s->hdr_len + s->tag_len));
            swp_handle_sync(s, c, &h, body);
        }
        pbuf_free(p);               /* an ACK, NAK or probe before the SYNC's answer: old news */
        return;
    }
    uint32_t n;
    control_body(s, c, &h, p, &n);
    take_ack(s, c);
    swp_handle_ack(s, c, h.ack);
    if (h.op == INI_SWP_NAK)
        swp_handle_nak(s, c, h.seq, n);
    else if (h.op == INI_SWP_PROBE)
        swp_handle_probe(s, c, h.seq);
    pbuf_free(p);
}
