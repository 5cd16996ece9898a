/*
 * swp_resync.c - resynchronisation after a restart (swp.h SYNC;
 * docs/transport.md, "An INI that restarts"): the SYNC exchange that
 * tells each side the other's durable next expected (D), rewinding a send
 * side to it, and the replay of the logged messages from there.
 *
 * A restarted INI sends SYNC on every connection until answered, and no
 * DATA before.  An INI that gets a SYNC from a newer incarnation of its
 * peer drops what it holds of the peer's half-received frames (its
 * receive side back at its own D), rewinds its send side to the SYNC's D,
 * and answers with its own D; the restarted one rewinds to that.  A
 * rewind releases the logged messages that end at or before D (delivered:
 * their acks died with the INI), drops the frames in flight, and sends the
 * logged messages from D on again, in order, with their first sequence
 * numbers, as the window opens.
 */
#include "swp_internal.h"

static inline uint32_t get_be32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return __builtin_bswap32(v);
}

static inline void put_be32(uint8_t *p, uint32_t v)
{
    v = __builtin_bswap32(v);
    memcpy(p, &v, 4);
}

/* SYNC (or its answer, echoing the peer's incarnation) with our D. */
static void send_sync(struct ini_swp *s, struct swp_conn *c, int reply, uint32_t echo)
{
    uint8_t body[INI_SWP_SYNC_BODY];
    put_be32(body, s->dh->incarnation);
    put_be32(body + 4, echo);
    uint8_t op = (uint8_t)(INI_SWP_SYNC | (reply ? INI_SWP_F_REPLY : 0));
    if (swp_send_frame(s, c, op, c->dc->next_seq, c->dc->delivered, body, sizeof body) == 0)
        c->stats.syncs_sent++;
    ini_netif_flush(s->dg->nf);
}

int swp_sync_tick(struct ini_swp *s, uint64_t now)
{
    if (now < s->sync_due)
        return 0;
    int work = 0;
    for (int i = 0; i < s->n_inis; i++) {
        struct swp_conn *c = &s->conns[i];
        if (c->peer >= 0 && c->unsynced) {
            send_sync(s, c, 0, 0);
            work++;
        }
    }
    s->sync_due = now + s->sync_gap;        /* 1 ms, doubling to 100 ms */
    if (s->sync_gap < s->sync_gap_max)
        s->sync_gap = s->sync_gap * 2 < s->sync_gap_max ? s->sync_gap * 2 : s->sync_gap_max;
    return work;
}

/* The receive side back at D: what it holds of the peer's frames (held
 * above a gap, a half-assembled message) is dropped; the peer sends it
 * again from D. */
static void rx_reset(struct ini_swp *s, struct swp_conn *c)
{
    for (uint32_t k = 0; k <= s->slot_mask; k++) {
        struct swp_rx_slot *r = &c->rx[k];
        if (r->p)
            pbuf_free(r->p);
        r->p = NULL;
        r->nak_tsc = 0;
    }
    if (c->asm_head)
        pbuf_free(c->asm_head);
    c->asm_head = NULL;
    c->n_held = 0;
    if (c->delivery_blocked) {
        c->delivery_blocked = 0;
        s->n_blocked--;
    }
    c->rcv_nxt = c->ack_sent = c->dc->delivered & s->seq_mask;
    c->rcv_unacked = 0;
    c->ack_forced = 0;
    timer_list_cancel_conn(&s->ack_timers, (uint16_t)c->peer);
}

/* The send side's frames in flight and its message in segments dropped
 * (each still in the log). */
static void tx_reset(struct ini_swp *s, struct swp_conn *c)
{
    if (s->use_nak) {
        timer_list_cancel_conn(&s->send_timers, (uint16_t)c->peer);
    } else {
        timer_list_cancel_range(&s->send_timers, (uint16_t)c->peer, c->snd_una, c->snd_nxt,
                                (unsigned)s->seq_bits);
    }
    for (uint32_t k = 0; k <= s->slot_mask; k++) {
        c->tx[k].am = NULL;
        c->tx[k].release = 0;
    }
    if (c->pend_left) {
        s->pend_frames -= (c->pend_left + s->seg_max - 1) / s->seg_max;
        c->pend_left = 0;
        s->n_pending--;
    }
    c->ack_deferred = 0;
}

/* Rewinds c's send side to the peer's D: 0, or -1 when D is no message
 * boundary of the log (counted; nothing changes). */
static int rewind_to(struct ini_swp *s, struct swp_conn *c, uint32_t d)
{
    struct swp_dur_conn *dc = c->dc;
    uint32_t k = dc->head;
    for (; k != dc->tail; k++) {            /* those that end at or before D were delivered */
        const struct swp_dur_ent *e = &dc->log[k & s->log_mask];
        uint32_t n = msg_frames(s, e->len), ahead = dist(s, e->first, d);
        if (ahead < n || ahead > s->seq_mask / 2)
            break;
    }
    uint32_t at = k != dc->tail ? dc->log[k & s->log_mask].first : dc->next_seq;
    if (at != (d & s->seq_mask)) {
        c->stats.sync_errors++;
        return -1;
    }
    tx_reset(s, c);
    for (; dc->head != k;) {
        s->release(s->ctx, (void *)(uintptr_t)dc->log[dc->head & s->log_mask].cookie);
        dur_log_release(c);
    }
    c->snd_una = c->snd_nxt = c->timed_nxt = at;
    c->replay = dc->head;
    s->n_replay -= c->replaying;
    c->replaying = dc->head != dc->tail;
    s->n_replay += c->replaying;
    swp_replay(s, c);
    return 0;
}

void swp_replay(struct ini_swp *s, struct swp_conn *c)
{
    struct swp_dur_conn *dc = c->dc;
    if (c->unsynced)
        return;                         /* not before the peer has said where to resume */
    while (c->replay != dc->tail && !c->pend_left && send_room(s, c)) {
        const struct swp_dur_ent *e = &dc->log[c->replay & s->log_mask];
        if (e->first != c->snd_nxt) {
            c->stats.sync_errors++;     /* cannot be: the log is in sequence order */
            c->replay = dc->tail;
            break;
        }
        if (swp_send_message(s, c, (uint8_t *)((uintptr_t)s->base + e->off), e->len,
                             (void *)(uintptr_t)e->cookie, NULL) < 0)
            break;                      /* no room on the link: the next turn's retry */
        c->stats.replayed++;
        c->replay++;
    }
    if (c->replay == dc->tail && c->replaying) {
        c->replaying = 0;
        s->n_replay--;
    }
}

/* c's send side resumes at the peer's D: synchronised (DATA may go),
 * rewound, replaying.  0, or -1 (counted) when D is no message boundary:
 * c stays unsynchronised if it was. */
static int resume_at(struct ini_swp *s, struct swp_conn *c, uint32_t d)
{
    int was = c->unsynced;
    c->unsynced = 0;
    if (rewind_to(s, c, d) < 0) {
        c->unsynced = (uint8_t)was;
        return -1;
    }
    s->n_unsynced -= was;
    c->stats.resyncs++;
    return 0;
}

/* The peer's SYNC (not an answer): h->ack its D, incarnation inc.  When
 * both restarted, it carries what our own SYNC waits for. */
static void sync_from_peer(struct ini_swp *s, struct swp_conn *c, const struct ini_swp_hdr *h, uint32_t inc)
{
    if (inc < c->peer_inc)
        return;                         /* an old one, overtaken */
    if (inc > c->peer_inc || c->unsynced) {
        rx_reset(s, c);                 /* our D is what we answer with */
        if (resume_at(s, c, h->ack) < 0)
            return;
        c->peer_inc = inc;
    }
    send_sync(s, c, 1, inc);            /* again if our answer was lost */
}

void swp_handle_sync(struct ini_swp *s, struct swp_conn *c, const struct ini_swp_hdr *h, const uint8_t *body)
{
    uint32_t inc = get_be32(body), echo = get_be32(body + 4);
    if (!(h->flags & INI_SWP_F_REPLY)) {
        sync_from_peer(s, c, h, inc);
        return;
    }
    /* The answer to our SYNC: its D is where our send side resumes. */
    if (c->unsynced && echo == s->dh->incarnation && resume_at(s, c, h->ack) == 0 && inc > c->peer_inc)
        c->peer_inc = inc;
}
