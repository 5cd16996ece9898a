/*
 * swp_seg.c - the transport's segmentation (swp.h "Segments",
 * docs/transport.md): a message longer than a frame goes as segments of
 * one frame each, each with its own sequence number, as the window takes
 * them; the receiver chains the segments it takes in order into their
 * message (their frames' pbufs, no copy) and delivers the chain whole.
 */
#include "swp_internal.h"

#include <rte_cycles.h>

/* ---- sending ---- */

/* Sends the segments of c's message in progress that the window takes:
 * each gets the next sequence number, its CRC (with a MAC, its inner sum
 * instead) once, its SEND timer.  ts, unless NULL, gets the first one's UDP stamp.  A
 * transmission that fails (no transmit buffer) leaves the rest for
 * ini_swp_poll().  Returns the segments sent. */
static int push_segments(struct ini_swp *s, struct swp_conn *c, struct ini_swp_tx_stamps *ts)
{
    int sent = 0;
    while (c->pend_left && send_room(s, c)) {
        uint32_t seq = c->snd_nxt;
        uint32_t n = c->pend_left < s->seg_max ? c->pend_left : s->seg_max;
        int first = c->pend_at == c->pend_start;
        uint8_t flags = (uint8_t)((first ? 0 : INI_SWP_F_CONT) | (n < c->pend_left ? INI_SWP_F_MORE : 0));
        swp_fill_slot(s, tx_slot(s, c, seq), c->pend_at, n, c->pend_cookie, flags, n == c->pend_left);
        if (swp_transmit(s, c, seq, first ? ts : NULL) < 0)
            break;
        c->snd_nxt = (seq + 1) & s->seq_mask;
        list_later(s, c);           /* its SEND timer */
        c->stats.segs_sent++;
        INI_ASSERT(s->pend_frames > 0);     /* this segment was counted when its message was taken */
        s->pend_frames--;
        c->pend_at += n;
        c->pend_left -= n;
        sent++;
    }
    return sent;
}

/* Takes a message longer than a frame in segments: taken when the first
 * one goes; the rest follow as the window opens. */
int swp_send_segments(struct ini_swp *s, struct swp_conn *c, uint8_t *am, uint32_t am_len, void *cookie,
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

/* Sends what the window now takes of a message in progress. */
void swp_continue_message(struct ini_swp *s, struct swp_conn *c)
{
    if (!c->pend_left)
        return;
    push_segments(s, c, NULL);
    if (!c->pend_left)
        s->n_pending--;
}

/* ---- receiving ---- */

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

/* The first segment of a message, frame p with its AM header at off: the
 * chain starts with it. */
static void chain_start(struct swp_conn *c, struct pbuf *p, uint16_t off)
{
    c->asm_head = p;
    c->asm_len = p->tot_len;
    c->asm_tail = p;
    while (c->asm_tail->next)
        c->asm_tail = c->asm_tail->next;
    c->asm_off = off;
}

/* A continuing segment p (its transport header of off bytes cut off
 * here) joins c's message: 0, or -1 when it is out of place (no message
 * begun, or past 65,535 bytes). */
static int chain_join(struct swp_conn *c, struct pbuf *p, uint16_t off)
{
    if (!c->asm_head || c->asm_len + p->tot_len - off > 0xffff || pbuf_remove_header(p, off) != 0)
        return -1;
    c->asm_prev_tail = c->asm_tail;
    chain_append(c, p);
    return 0;
}

int swp_seg_take_next(struct ini_swp *s, struct swp_conn *c, struct pbuf *p, uint8_t flags)
{
    if (!(flags & INI_SWP_F_MORE))
        return 0;                   /* a whole message or a last segment: a delivery */
    uint16_t off = (uint16_t)s->data_hdr_len;
    if (!(flags & INI_SWP_F_CONT)) {
        if (c->asm_head)
            return 0;               /* out of place: the general way counts it */
        chain_start(c, p, off);
    } else if (chain_join(c, p, off) < 0) {
        return 0;
    }
    rcv_next(s, c, rx_slot(s, c, c->rcv_nxt));
    c->stats.segs_received++;
    return 1;
}

int swp_seg_take(struct ini_swp *s, struct swp_conn *c, struct swp_rx_slot *r, struct pbuf **m, uint16_t *off)
{
    *m = r->p;
    *off = r->off;
    if (!(r->flags & INI_SWP_F_CONT)) {
        if (c->asm_head)
            seg_error(c);           /* a message starts before the last one ended */
        if (!(r->flags & INI_SWP_F_MORE))
            return 0;               /* a whole message */
        chain_start(c, r->p, r->off);
        rcv_advance(s, c, r);
        c->stats.segs_received++;
        return 1;
    }
    /* The rest of a message: its header goes, it joins the chain. */
    if (chain_join(c, r->p, r->off) < 0) {
        seg_error(c);
        pbuf_free(r->p);
        rcv_advance(s, c, r);
        return 1;
    }
    r->off = 0;
    if (r->flags & INI_SWP_F_MORE) {
        rcv_advance(s, c, r);
        c->stats.segs_received++;
        return 1;
    }
    chain_seal(c);
    *m = c->asm_head;
    *off = c->asm_off;
    return 0;
}

void swp_seg_refused(struct swp_conn *c, struct swp_rx_slot *r)
{
    /* The last segment goes back to its slot: the chain ends where it did
     * (its tot_len fields are set again when the message is complete). */
    c->asm_prev_tail->next = NULL;
    c->asm_tail = c->asm_prev_tail;
    c->asm_len -= r->p->tot_len;
}

void swp_seg_delivered(struct swp_conn *c)
{
    c->asm_head = NULL;
    c->stats.segs_received++;
}
