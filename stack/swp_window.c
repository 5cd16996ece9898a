/*
 * swp_window.c - the transport's window and timers (swp.h,
 * swp_internal.h): acks taken from the peer, at once or at the next turn;
 * the SEND timers of what is in flight; when our own ack goes (piggy-
 * backed, on the ACK timer, or at once at half a window); retransmission
 * on a SEND timer or a NAK; the per-turn service (ini_swp_poll).
 */
#include "swp_internal.h"

/* True when seq, in flight, has its SEND timer: all but what was sent
 * since the last turn (from timed_nxt on), unless acks passed timed_nxt
 * meanwhile (then none of what is left has one yet). */
static inline int has_send_timer(const struct ini_swp *s, const struct swp_conn *c, uint32_t seq)
{
    uint32_t timed = dist(s, c->snd_una, c->timed_nxt);
    return timed <= dist(s, c->snd_una, c->snd_nxt) && dist(s, c->snd_una, seq) < timed;
}

/* With NAKs, a connection has one SEND timer, not one per frame: it
 * runs while frames are in flight, from the turn after the first of them
 * left or from the last ack that released some, and its expiry sends a
 * probe (swp.h).  A timer per frame cost a start and a cancel per frame
 * (about 80 instructions a frame, 3,400 a 65,000-byte message in
 * segments) and only the oldest frame's ever acted. */
static inline void probe_timer_restart(struct ini_swp *s, struct swp_conn *c)
{
    timer_list_cancel_conn(&s->send_timers, (uint16_t)c->peer);
    if (c->snd_una != c->snd_nxt)
        start_timer(s, &s->send_timers, (uint16_t)c->peer, 0);
}

/* The SEND timers of what c sent since the last turn and is still
 * unacknowledged, from this turn's time (with NAKs: the connection's
 * timer, unless it runs). */
static void start_send_timers(struct ini_swp *s, struct swp_conn *c)
{
    if (s->use_nak) {
        if (c->snd_una != c->snd_nxt && !timer_list_conn_active(&s->send_timers, (uint16_t)c->peer))
            start_timer(s, &s->send_timers, (uint16_t)c->peer, 0);
        c->timed_nxt = c->snd_nxt;
        return;
    }
    uint32_t seq = c->timed_nxt;
    if (dist(s, c->snd_una, seq) > dist(s, c->snd_una, c->snd_nxt))
        seq = c->snd_una;           /* acknowledged before its timer started */
    for (; seq != c->snd_nxt; seq = (seq + 1) & s->seq_mask)
        start_timer(s, &s->send_timers, (uint16_t)c->peer, seq);
    c->timed_nxt = c->snd_nxt;
}

/* ---- congestion control (docs/transport.md, "Many senders into one") ---- */

/* A round-trip sample from an ack: the newest frame it covers, unless
 * a frame it covers went more than once (`resent`): Karn, and more than
 * Karn, since the ack is cumulative: a frame held above a lost one is
 * acknowledged only when the copy that fills the gap comes, and timed
 * from its own send that is the loss's recovery, not a round trip (with
 * 44-fragment datagrams under the fault mix, samples of seconds put the
 * sender's in-flight guard at its cap and reliability.sh mix64k-off
 * delivered 1 echo per second). */
static inline void rtt_sample(struct ini_swp *s, struct swp_conn *c, uint32_t ack, int resent)
{
    const struct swp_tx_slot *t = tx_slot(s, c, (ack - 1) & s->seq_mask);
    if (resent || !t->sent || s->now < t->last_tx)
        return;
    uint64_t r = s->now - t->last_tx;
    if (!c->srtt) {
        c->srtt = r;
        c->rttvar = r / 2;
        return;
    }
    uint64_t d = r > c->srtt ? r - c->srtt : c->srtt - r;
    c->rttvar = (3 * c->rttvar + d) / 4;
    c->srtt = (7 * c->srtt + r) / 8;
}

/* n frames acknowledged: additive increase, one frame per window of
 * frames acknowledged (about one per round trip), up to the window; the
 * recovery from the last cut ends when snd_una passes `recover`. */
static inline void cwnd_acked(struct ini_swp *s, struct swp_conn *c, uint32_t n)
{
    if (c->in_recovery && dist(s, c->recover, c->snd_una) <= s->window)
        c->in_recovery = 0;
    if (c->cwnd >= s->window)
        return;
    c->cwnd_acc += n;
    if (c->cwnd_acc >= c->cwnd) {
        c->cwnd_acc -= c->cwnd;
        c->cwnd++;
        set_limit(c);
    }
}

void swp_cwnd_loss(struct ini_swp *s, struct swp_conn *c)
{
    if (c->in_recovery)
        return;                     /* one cut per round trip: this loss is of the same window */
    uint32_t floor = s->window < INI_SWP_CWND_MIN ? s->window : INI_SWP_CWND_MIN;
    c->cwnd = c->cwnd / 2 < floor ? floor : c->cwnd / 2;
    c->cwnd_acc = 0;
    set_limit(c);
    c->recover = c->snd_nxt;
    c->in_recovery = 1;
    c->stats.cwnd_cuts++;
}

/* A cumulative ack from the peer: release everything before it. */
void swp_handle_ack(struct ini_swp *s, struct swp_conn *c, uint32_t ack)
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
    if (!s->use_nak)
        timer_list_cancel_range(&s->send_timers, (uint16_t)c->peer, c->snd_una, ack, (unsigned)s->seq_bits);
    int resent = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct swp_tx_slot *t = tx_slot(s, c, c->snd_una);
        resent |= t->resent;
        if (t->release) {        /* a message's last frame: all of it has arrived */
            s->release(s->ctx, t->cookie);
            dur_log_release(c);
        }
        t->am = NULL;
        c->snd_una = (c->snd_una + 1) & s->seq_mask;
    }
    INI_ASSERT(dist(s, c->snd_una, c->snd_nxt) < s->window);   /* n > 0 frames left the window */
    rtt_sample(s, c, ack, resent);
    c->stats.acks_received++;
    cwnd_acked(s, c, n);
    if (s->use_nak)
        probe_timer_restart(s, c);
    swp_continue_message(s, c);
    if (c->replaying)
        swp_replay(s, c);
}

/* A DATA frame's ack: kept for ini_swp_poll (swp.h).  Nothing new (the
 * common case of a one-way stream: every frame repeats the ack) is
 * nothing to do; one for what was never sent is handled at once, as
 * before. */
void swp_defer_ack(struct ini_swp *s, struct swp_conn *c, uint32_t ack)
{
    uint32_t n = dist(s, c->snd_una, ack);
    if (n == 0)
        return;                     /* nothing new: a one-way stream's every frame */
    if (n > dist(s, c->snd_una, c->snd_nxt)) {
        swp_handle_ack(s, c, ack);
        return;
    }
    if (!c->ack_deferred || n > dist(s, c->snd_una, c->ack_in))
        c->ack_in = ack;            /* acks are cumulative: the furthest one */
    c->ack_deferred = 1;
    list_later(s, c);
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

/* Frame seq, asked for: 1 when it went again.  The first NAK for a
 * frame retransmits it at once (a later frame arrived: it is lost, the
 * link keeps the order of frames) and is a loss signal; a repeated or
 * duplicated NAK only once the last copy can no longer be in flight (a
 * round trip since it left, in_flight_for, doubled for each copy sent
 * before, backed_off: a receiver that does not read its port loses
 * the copies too, and must not be buried in more), so NAKs cannot cause
 * a storm of copies.  A copy lost again is no new signal: the window
 * was cut for its loss, within the round trip (a copy of a datagram of
 * 44 fragments under 10% frame loss is lost again 99 times in 100, and
 * cutting for each kept the window at its floor of 2 frames). */
static int nak_one(struct ini_swp *s, struct swp_conn *c, uint32_t seq)
{
    struct swp_tx_slot *t = tx_slot(s, c, seq);
    if (t->naked && s->now - t->last_tx < backed_off(s, in_flight_for(s, c), (uint32_t)t->naked)) {
        c->stats.retx_held++;
        return 0;
    }
    swp_cwnd_loss(s, c);
    t->naked++;
    if (swp_transmit(s, c, seq, NULL) < 0)
        return 0;
    t->resent = 1;
    if (!s->use_nak && has_send_timer(s, c, seq)) {     /* else it starts at the next turn */
        timer_list_cancel_one(&s->send_timers, (uint16_t)c->peer, seq);
        start_timer(s, &s->send_timers, (uint16_t)c->peer, seq);
    }
    c->stats.retx_nak++;
    return 1;
}

/* A NAK for the n frames from seq: each retransmitted (nak_one), at most
 * a congestion window of them now (paced: the rest are asked for again,
 * a round trip later, if still missing). */
void swp_handle_nak(struct ini_swp *s, struct swp_conn *c, uint32_t seq, uint32_t n)
{
    c->stats.naks_received++;
    uint32_t in_flight = dist(s, c->snd_una, c->snd_nxt), sent = 0;
    if (n > s->window)
        n = s->window;              /* bogus: no gap is wider than the window */
    for (uint32_t k = 0; k < n && sent < c->limit; k++) {
        uint32_t q = (seq + k) & s->seq_mask;
        if (dist(s, c->snd_una, q) >= in_flight)
            continue;               /* acknowledged meanwhile, or bogus */
        sent += (uint32_t)nak_one(s, c, q);
    }
}

/* After in-order progress: acknowledge at once when half a window waits,
 * else make sure the ACK timer runs. */
void swp_schedule_ack(struct ini_swp *s, struct swp_conn *c)
{
    /* Half of what the peer may have in flight: half its grant (a new
     * grant goes at once: the peer's speed waits for it). */
    uint32_t g = swp_grant_for(s, c), half = (g < s->window ? g + 1 : s->window + 1) / 2;
    if (c->rcv_unacked >= half || g != c->grant_sent) {
        swp_send_control(s, c, INI_SWP_ACK, 0);
        c->stats.acks_bare++;
    } else if (c->ack_sent != c->rcv_nxt && !timer_list_conn_active(&s->ack_timers, (uint16_t)c->peer)) {
        start_timer(s, &s->ack_timers, (uint16_t)c->peer, 0);
    }
}

/* ---- the turn's service: timers and retries ---- */

/* An expired SEND timer.  With NAKs, the connection's sends a probe:
 * the frames may sit unread in the peer's ring (a peer that did not
 * run), or their acks in ours, and only the receiver knows what is lost
 * (swp.h); its NAKs bring the retransmissions.  Without NAKs, the frame
 * goes again; a segment above the oldest unacknowledged frame does not
 * (the ack is cumulative, so behind one loss every segment of the window
 * would time out together, received or not). */
static inline void send_timer_expired(struct ini_swp *s, uint16_t conn, uint32_t seq)
{
    struct swp_conn *c = &s->conns[conn];
    if (s->use_nak) {
        if (c->snd_una != c->snd_nxt) {
            /* Back-off while nothing comes from the peer (it may be
             * restarting: docs/transport.md): a probe at the 1st, 2nd,
             * 4th ... 256th expiry, then every 256th; any frame from
             * the peer starts it over (ini_swp_input). */
            uint32_t q = ++c->quiet;
            if (((q & (q - 1)) == 0 && q <= 256) || (q & 255) == 0) {
                swp_send_control(s, c, INI_SWP_PROBE, c->snd_nxt);
                c->stats.probes_sent++;
            }
            start_timer(s, &s->send_timers, conn, 0);
        }
        return;
    }
    if (dist(s, c->snd_una, seq) >= dist(s, c->snd_una, c->snd_nxt))
        return;                     /* acknowledged: a stale record */
    if ((!tx_slot(s, c, seq)->flags || seq == c->snd_una) && swp_transmit(s, c, seq, NULL) == 0) {
        tx_slot(s, c, seq)->resent = 1;
        swp_cwnd_loss(s, c);     /* a timeout: a loss signal too */
        c->stats.retx_timer++;
    }
    start_timer(s, &s->send_timers, conn, seq);
}

/* An expired ACK timer: our ack, and the NAK of a gap that lasts. */
static inline void ack_timer_expired(struct ini_swp *s, uint16_t conn, uint32_t seq)
{
    struct swp_conn *c = &s->conns[conn];
    if (rx_gap(s, c)) {
        /* Frames wait above a lost one whose NAK or answer may be lost
         * too: ask again (once per nak_gap; the NAK carries the ack), and
         * look again at the next expiry. */
        swp_nak_runs(s, c, c->rcv_nxt, (c->rcv_nxt + s->window) & s->seq_mask, 0);
        start_timer(s, &s->ack_timers, conn, 0);
    }
    if (c->ack_sent != c->rcv_nxt || c->rcv_unacked || c->ack_forced) {
        swp_send_control(s, c, INI_SWP_ACK, 0);
        c->stats.acks_bare++;
    }
}

/* Pops list l's expired timers one at a time, calling fn for each (which
 * may start timers again).  Inline with fn: no call through a pointer per
 * timer, as timer_list_expire's callback would cost. */
static inline __attribute__((always_inline)) int expire(struct ini_swp *s, struct timer_list *l, uint64_t now,
                                                        void (*fn)(struct ini_swp *, uint16_t, uint32_t))
{
    int work = 0;
    uint16_t conn;
    uint32_t seq;
    while (timer_list_pop_expired(l, now, &conn, &seq)) {
        fn(s, conn, seq);
        work++;
    }
    return work;
}

/* Messages in segments whose last transmission found no buffer (acks
 * send the rest as the window opens), and deliveries refused before,
 * offered again as if they arrived now, in an empty queue. */
static int retry(struct ini_swp *s, uint64_t now)
{
    int work = 0;
    for (int i = 0; i < s->n_inis && (s->n_pending || s->n_replay); i++) {
        struct swp_conn *c = &s->conns[i];
        if (c->peer >= 0 && c->pend_left && send_room(s, c)) {
            swp_continue_message(s, c);
            work++;
        }
        if (c->peer >= 0 && c->replaying && !c->unsynced && !c->pend_left && send_room(s, c)) {
            swp_replay(s, c);
            work++;
        }
    }
    if (s->n_blocked) {
        struct ini_rx_meta rx = { .t_arrive = now, .t_start = now };
        for (int i = 0; i < s->n_inis; i++) {
            struct swp_conn *c = &s->conns[i];
            if (c->peer >= 0 && c->delivery_blocked && swp_deliver_in_order(s, c, &rx)) {
                swp_schedule_ack(s, c);
                work++;
            }
        }
    }
    return work;
}

int ini_swp_service(struct ini_swp *s, uint64_t now)
{
    s->now = now;
    /* The listed work first, so that no timer fires or starts for what is
     * acknowledged already. */
    int work = take_later(s);
    work += expire(s, &s->send_timers, now, send_timer_expired);
    work += expire(s, &s->ack_timers, now, ack_timer_expired);
    if (s->n_pending || s->n_blocked || s->n_replay)
        work += retry(s, now);
    if (s->n_unsynced)
        work += swp_sync_tick(s, now);
    return work;
}

int ini_swp_poll(struct ini_swp *s, uint64_t now)
{
    s->now = now;
    if (now < ini_swp_next_deadline(s) && !s->n_blocked && !s->n_pending && !s->n_later && !s->n_replay)
        return 0;
    return ini_swp_service(s, now);
}

uint64_t ini_swp_next_deadline(const struct ini_swp *s)
{
    uint64_t a = timer_list_next_deadline(&s->send_timers), b = timer_list_next_deadline(&s->ack_timers);
    uint64_t m = a < b ? a : b;
    return s->n_unsynced && s->sync_due < m ? s->sync_due : m;
}

uint32_t ini_swp_pending_frames(const struct ini_swp *s)
{
    return s->pend_frames;
}

int ini_swp_window_full(const struct ini_swp *s, int peer)
{
    const struct swp_conn *c = &s->conns[peer];
    return c->pend_left || c->replaying || c->unsynced || !send_room(s, c);
}
