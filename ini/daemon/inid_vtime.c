/*
 * inid_vtime.c - an INI in the virtual-time mode (inid_vtime.h).
 *
 * One event per turn of the machine: the INI states when its next input
 * is due (the earliest frame waiting in its heap, the earliest record of
 * its compute nodes, its transport's next timer), waits for the turn at
 * that time, serves that one input with the real stack, and charges what
 * the input made it do (messages, bytes, frames, counted by the stack's
 * own counters) to its clock.  Then what it produced leaves stamped with
 * the end of that work: frames carry it plus the wire's latency, records
 * delivered to compute nodes plus the delivery's.  Serving one input per
 * turn, and not all that are there, is what keeps it conservative: a
 * processor whose turn comes earlier than our next input may still send
 * us something due before it.
 */
#include "inid_vtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ini_assert.h"
#include "inid_loop.h"
#include "inid_port.h"
#include "vt_shm.h"

/* ---- the virtual clock as the stack's TSC ---- */

static inline uint64_t tsc_of(const struct inid *d, uint64_t cycles)
{
    return INID_VT_TSC_BASE + (uint64_t)((unsigned __int128)cycles * d->tsc_hz / d->vt->m->hz);
}

/* The first cycle at or after TSC value t. */
static inline uint64_t cycles_of(const struct inid *d, uint64_t t)
{
    if (t == UINT64_MAX)
        return INI_VT_NEVER;
    if (t <= INID_VT_TSC_BASE)
        return 0;
    unsigned __int128 x = (unsigned __int128)(t - INID_VT_TSC_BASE) * d->vt->m->hz;
    return (uint64_t)((x + d->tsc_hz - 1) / d->tsc_hz);
}

/* ---- the trace in virtual time (trace.h, enum ini_trace_clock) ---- */

/* The ns of the machine's clock at trace stamp x (the anchors' side). */
static uint64_t trace_ns(const struct inid *d, uint64_t x)
{
    return (uint64_t)(((unsigned __int128)x * 1000000000u + d->vt->m->hz / 2) / d->vt->m->hz);
}

/* The trace counts the machine's cycles from its start, at its rate. */
static void trace_setup(struct inid *d)
{
    struct ini_trace_info *in = &d->trace.info;
    in->clock = INI_TRACE_CLOCK_VIRTUAL;
    in->tsc_hz = d->vt->m->hz;
    in->start_tsc = INI_TRACE_VT_ORIGIN;
    in->start_ns = trace_ns(d, INI_TRACE_VT_ORIGIN);
}

/* The records the event that started at T committed (index n0 on) take
 * its virtual times: the arrival the input carried (the loop gave the
 * stack that stamp as a TSC of the virtual clock), the submit the compute
 * node stamped, every module stamp at T (the cost model charges an event
 * whole, not per module: its time shows in the last module), and the
 * done stamp at the event's end.  The real loop's host stamps (it reads
 * the TSC itself) are overwritten here, so inid_loop.c stays as it is. */
static void trace_event(struct inid *d, uint32_t n0, uint64_t T)
{
    struct ini_trace *tr = &d->trace;
    const int detailed = tr->mode == INI_TRACE_DETAILED;
    for (uint32_t i = n0; i < tr->n; i++) {
        struct ini_trace_rec *r = &tr->recs[i];
        int first = ini_trace_first_stamp(r->kind), arrive = INI_TS_ENQUEUE - first;
        for (int k = 0; k < INI_TRACE_SLOTS - 1; k++) {
            if (first == INI_TS_SUBMIT && k == INI_TS_SUBMIT)
                r->slot[k] = detailed ? r->slot[k] + INI_TRACE_VT_ORIGIN : 0;   /* cycles already */
            else if (r->slot[k])
                r->slot[k] = (k == arrive ? cycles_of(d, r->slot[k]) : T) + INI_TRACE_VT_ORIGIN;
        }
        r->slot[INI_TRACE_SLOTS - 1] = d->vt->clock + INI_TRACE_VT_ORIGIN;
    }
}

/* The run's end as the launcher states it: the latest compute node's
 * clock, in cycles. */
static uint64_t nodes_end(const struct inid *d)
{
    uint64_t end = 0;
    for (uint32_t p = 0; p < d->vt->n_pes_total; p++) {
        uint64_t c = atomic_load(&d->vt->m->slots[ini_vt_pe_slot((int)p)].clock);
        end = c > end ? c : end;
    }
    return end;
}

/* The trace's span ends at the run's end, or at the INI's last record if
 * later.  The counters' span ends there too, or later if a charged event
 * after the last record (run_event) ended later: a record's event is
 * charged, so only work that leaves no record can make them differ. */
static void trace_end(struct inid *d)
{
    struct ini_trace *tr = &d->trace;
    uint64_t end = nodes_end(d) + INI_TRACE_VT_ORIGIN;
    if (tr->n && tr->recs[tr->n - 1].slot[INI_TRACE_SLOTS - 1] > end)
        end = tr->recs[tr->n - 1].slot[INI_TRACE_SLOTS - 1];
    ini_trace_run_end(tr, end);
    if (end - INI_TRACE_VT_ORIGIN > d->stats.run_end)
        d->stats.run_end = end - INI_TRACE_VT_ORIGIN;
}

/* ---- frames received ahead of their time: a heap on (stamp, order) ---- */

static inline int frame_before(const struct inid_vt_frame *a, const struct inid_vt_frame *b)
{
    return a->stamp < b->stamp || (a->stamp == b->stamp && a->order < b->order);
}

static void heap_push(struct inid_vt *v, struct inid_vt_frame f)
{
    uint32_t i = v->n_pending++;
    while (i > 0 && frame_before(&f, &v->pending[(i - 1) / 2])) {
        v->pending[i] = v->pending[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    v->pending[i] = f;
}

static struct inid_vt_frame heap_pop(struct inid_vt *v)
{
    struct inid_vt_frame top = v->pending[0], last = v->pending[--v->n_pending];
    uint32_t i = 0, n = v->n_pending;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && frame_before(&v->pending[c + 1], &v->pending[c]))
            c++;
        if (!frame_before(&v->pending[c], &last))
            break;
        v->pending[i] = v->pending[c];
        i = c;
    }
    if (n)
        v->pending[i] = last;
    return top;
}

/* ---- the link: a stamp behind every frame ---- */

#define PEER_EVERY (-2)     /* a broadcast: every other INI of the LAN */

/* The INI a frame goes to: its port's peer (memif: a port per peer), or
 * on a port shared by every peer (af_packet, pci) the owner of the
 * destination MAC, PEER_EVERY for a broadcast; -1 for no INI's.  The MAC,
 * not the IP: it is what the LAN delivers by (an ARP frame has no IP). */
static int frame_peer(const struct inid *d, uint16_t port, const struct rte_mbuf *m)
{
    int peer = port < INI_NETIF_MAX_PORTS ? d->vt->peer_of_port[port] : -1;
    if (peer >= 0)
        return peer;
    const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
    if (rte_pktmbuf_data_len(m) < 14)
        return -1;
    if (f[0] & 1)
        return PEER_EVERY;
    for (int i = 0; i < d->cfg.n_inis; i++)
        if (memcmp(d->cfg.inis[i].mac, f, 6) == 0)
            return i;
    return -1;
}

/* A frame a port shared by every peer handed this INI that is addressed
 * to another: the LAN's bridge floods a unicast frame until it has learnt
 * where its MAC is.  The sender counted it at its owner only, so counting
 * it here would let a turn start before a frame it waits for has come. */
static int frame_foreign(const struct inid *d, uint16_t port, const struct rte_mbuf *m)
{
    if (port < INI_NETIF_MAX_PORTS && d->vt->peer_of_port[port] >= 0)
        return 0;
    const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
    return rte_pktmbuf_data_len(m) >= 14 && !(f[0] & 1) && memcmp(f, d->me->mac, 6) != 0;
}

/* The frames that went count at their INIs (await_frames), and each such
 * INI's turn is posted once. */
static void post_sent(struct inid *d, const int16_t *peer, uint16_t sent)
{
    struct inid_vt *v = d->vt;
    uint16_t count[INI_MAX_INIS] = { 0 };
    for (uint16_t i = 0; i < sent; i++) {
        if (peer[i] >= 0)
            count[peer[i]]++;
        else if (peer[i] == PEER_EVERY)
            for (int j = 0; j < d->cfg.n_inis; j++)
                count[j] += j != d->me->id;
    }
    for (int j = 0; j < d->cfg.n_inis; j++) {
        if (!count[j])
            continue;
        uint32_t to = ini_vt_ini_slot((int)v->n_pes_total, j);
        atomic_fetch_add_explicit(&v->m->slots[to].frames, count[j], memory_order_release);
        ini_vt_post(v->m, v->slot, to, v->tx_stamp);
    }
}

/* The netif's transmit (ini_xmit_fn): each frame leaves with the INI's
 * current send stamp behind it; frames the port refused lose it again
 * (they are stamped anew when they go). */
static uint16_t vt_xmit(struct ini_netif *nf, struct ini_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
    struct inid *d = nf->xmit_ctx;
    struct inid_vt *v = d->vt;
    /* A queue that fills while an event works (a message of more than a
     * burst of frames) is flushed at once: its frames wait in the queue's
     * backlog for the event's end, where they leave stamped with it (they
     * once left stamped with the event's start, before the work that made
     * them was charged).  A backlog too full to hold them lets them go. */
    if (!v->leaving) {
        if (q->n_backlog + n <= INI_NETIF_BACKLOG)
            return 0;
        v->frames_early += n;
    }
    int16_t peer[INI_NETIF_BURST];
    uint16_t stamped = 0;
    /* The capture records them as the stack made them (without the stamp),
     * at the time they leave; those the port refuses are taken out again,
     * as capture_xmit does in the other modes. */
    size_t off[INI_NETIF_BURST];
    uint16_t recorded = d->cap.fd < 0 ? 0
                        : inid_capture_batch(d, (int)(q - nf->txqs), INI_CAPTURE_OUT, pkts,
                                             n < INI_NETIF_BURST ? n : INI_NETIF_BURST, off);
    for (; stamped < n && stamped < INI_NETIF_BURST; stamped++) {
        peer[stamped] = (int16_t)frame_peer(d, q->port, pkts[stamped]);
        char *t = rte_pktmbuf_append(pkts[stamped], INID_VT_STAMP_LEN);
        if (!t)
            break;                  /* no tailroom: it waits (never with our pool's room) */
        memcpy(t, &v->tx_stamp, INID_VT_STAMP_LEN);
    }
    uint16_t sent = rte_eth_tx_burst(q->port, 0, pkts, stamped);
    for (uint16_t i = sent; i < stamped; i++)
        rte_pktmbuf_trim(pkts[i], INID_VT_STAMP_LEN);
    if (sent < recorded)
        ini_capture_truncate(&d->cap, off[sent]);
    post_sent(d, peer, sent);
    v->frames_out += sent;
    return sent;
}

/* Every frame the ports hold, stamp read and cut off, into the heap. */
static void drain_ports(struct inid *d)
{
    struct inid_vt *v = d->vt;
    struct rte_mbuf *pkts[INI_NETIF_BURST];
    for (int k = 0; k < d->n_ports; k++) {
        uint16_t got;
        while (v->n_pending + INI_NETIF_BURST <= INID_VT_PENDING &&
               (got = rte_eth_rx_burst(d->ports[k], 0, pkts, INI_NETIF_BURST)) > 0) {
            for (uint16_t i = 0; i < got; i++) {
                struct rte_mbuf *m = pkts[i];
                uint64_t stamp;
                const void *s = m->pkt_len >= INID_VT_STAMP_LEN
                                ? rte_pktmbuf_read(m, m->pkt_len - INID_VT_STAMP_LEN, INID_VT_STAMP_LEN, &stamp)
                                : NULL;
                if (!s || rte_pktmbuf_trim(m, INID_VT_STAMP_LEN) < 0) {
                    rte_pktmbuf_free(m);            /* not a frame of this mode */
                    continue;
                }
                if (frame_foreign(d, d->ports[k], m)) {
                    rte_pktmbuf_free(m);
                    v->frames_foreign++;
                    continue;
                }
                memcpy(&stamp, s, sizeof stamp);
                heap_push(v, (struct inid_vt_frame){ stamp, v->order++, m, (uint16_t)k });
                v->frames_in++;
            }
        }
    }
}

/* Every frame sent to this INI before its turn is in the heap before the
 * turn's event: memif puts a frame in the peer's ring as it is sent, but
 * a kernel link (af_packet, af_xdp) delivers it a little later, and a
 * turn that looked before it came would serve a later input first.  A
 * frame that never comes (the kernel dropped it) is waited for 2 s of the
 * host's time, then counted late: the transport resends it. */
static void await_frames(struct inid *d)
{
    struct inid_vt *v = d->vt;
    uint64_t want = atomic_load_explicit(&v->m->slots[v->slot].frames, memory_order_acquire);
    if (v->frames_in + v->frames_lost >= want)
        return;
    uint64_t t0 = ini_mono_ns();
    while (v->frames_in + v->frames_lost < want) {
        drain_ports(d);
        if (v->n_pending + INI_NETIF_BURST > INID_VT_PENDING)
            return;                 /* the heap is full: what it holds comes first anyway */
        if (ini_mono_ns() - t0 > 2000000000ull) {
            v->frames_lost = want - v->frames_in;
            printf("inid %d: virtual time: %llu frame(s) sent to it never came (counted lost)\n", d->me->id,
                   (unsigned long long)(want - v->frames_in));
            return;
        }
    }
}

/* ---- receive faults and the capture of what is received ----
 *
 * A received frame meets its port's receive fault injector as the heap
 * gives it up to the event that serves it, not as it enters the heap.
 * On entry the heap would undo the injector's work (it orders frames by
 * stamp, so a frame held for a reorder or a delay would come out in its
 * old place unless its stamp were rewritten, and a frame held for
 * `depth` later ones waits on frames that may not have come yet), and
 * entry happens whenever the host's polls find a frame (drain_ports): a
 * host time.  On leaving, a port's frames meet its injector one an event,
 * in the heap's order (stamp, then the port's ring order), so its draws
 * and what it holds are the same in every run; the frame is judged at
 * its arrival (its stamp), and what the injector passes on is served by
 * the event at T >= that arrival, never earlier.  What it holds leaves by
 * the virtual clock: next_due wakes the INI at the earliest release
 * (held_due), and release_held passes on what is due by then. */

/* Frames an injector passed on into the work queue, arrived at cycle at;
 * those beyond its room are lost, as in the real loop (a receive ring
 * that overflows). */
static void take_frames(struct inid *d, struct rte_mbuf **m, uint16_t n, uint64_t at)
{
    for (uint16_t i = 0; i < n; i++) {
        if (inid_frame_room(d))
            inid_take_frame(d, m[i], tsc_of(d, at));
        else
            rte_pktmbuf_free(m[i]);
    }
}

/* The frame the heap gave up: captured as received, before the faults,
 * at the event's time (cap_now: the real loop's capture too stamps a
 * frame when the loop takes it, and so the file is in time order: an
 * event starts no earlier than the last one's frames left); then through
 * its port's injector at its arrival. */
static void receive_frame(struct inid *d, struct inid_vt_frame f)
{
    if (d->cap.fd >= 0)
        inid_capture_rx(d, f.port, &f.m, 1);
    if (!d->rx_faults) {
        take_frames(d, &f.m, 1, f.stamp);
        return;
    }
    struct rte_mbuf *out[2 + INI_FAULT_HOLD];
    uint16_t n = ini_fault_apply(&d->rx_fault[f.port], tsc_of(d, f.stamp), &f.m, 1, out, RTE_DIM(out));
    take_frames(d, out, n, f.stamp);
}

/* The frames the receive injectors held (reorders, delays) whose time
 * has come by T, arrived at T. */
static void release_held(struct inid *d, uint64_t T)
{
    struct rte_mbuf *out[INI_FAULT_HOLD];
    for (int k = 0; d->rx_faults && k < d->n_ports; k++)
        if (ini_fault_holding(&d->rx_fault[k]))
            take_frames(d, out, ini_fault_apply(&d->rx_fault[k], tsc_of(d, T), NULL, 0, out, RTE_DIM(out)), T);
}

static uint64_t earliest_release(const struct ini_fault *f, uint64_t t)
{
    for (uint32_t i = 0; i < f->n_held; i++)
        if (f->held[i].release_tsc < t)
            t = f->held[i].release_tsc;
    return t;
}

/* The first cycle at which an injector releases a frame it holds by its
 * time (one held for `depth` later frames leaves with them, which are
 * inputs of their own), INI_VT_NEVER when none.  A receive injector's
 * frame is then an input; a send injector's leaves at the flush of the
 * event at that cycle, stamped with it (before 2026-12-03 it waited for
 * whatever event came next, so a delay lasted longer than its setting). */
static uint64_t held_due(const struct inid *d)
{
    uint64_t t = UINT64_MAX;
    for (int k = 0; k < d->n_ports; k++) {
        if (d->rx_faults)
            t = earliest_release(&d->rx_fault[k], t);
        t = earliest_release(&d->tx_fault[k], t);
    }
    return cycles_of(d, t);
}

/* ---- what is due ---- */

/* The stamp of PE pe's next record (its headroom), INI_VT_NEVER when it
 * has none the loop could take now. */
static uint64_t record_stamp(struct inid *d, int pe)
{
    struct out_ring *o = &d->out[pe];
    if (!inid_record_room(d, pe))
        return INI_VT_NEVER;     /* not due until the transport makes room: a record it cannot take would hold the turn */
    struct ini_rec *rec = ini_ring_peek(&o->cons);
    if (!rec)
        return INI_VT_NEVER;
    uint64_t stamp;
    memcpy(&stamp, rec->data, sizeof stamp);
    return stamp;
}

/* The earliest input: *pe is the PE whose record it is, or -1 (a frame,
 * which goes first on a tie: it was sent earlier in the machine's order). */
static uint64_t earliest_input(struct inid *d, int *pe)
{
    struct inid_vt *v = d->vt;
    uint64_t best = v->n_pending ? v->pending[0].stamp : INI_VT_NEVER;
    *pe = -1;
    for (int p = 0; p < d->n_pes; p++) {
        uint64_t s = record_stamp(d, p);
        if (s < best) {
            best = s;
            *pe = p;
        }
    }
    return best;
}

/* ---- the cost of an event ---- */

struct work_count {
    uint64_t out_msgs, out_bytes, local_msgs, in_msgs, in_bytes;
    uint64_t segs_sent, msgs_sent, segs_received, msgs_delivered;
};

static struct work_count count_work(const struct inid *d)
{
    struct ini_swp_stats t = ini_swp_totals(d->stack.swp);
    return (struct work_count){
        d->stats.out_msgs, d->stats.out_bytes, d->stats.local_msgs, d->stats.in_msgs, d->stats.in_bytes,
        t.segs_sent, t.msgs_sent, t.segs_received, t.msgs_delivered,
    };
}

static inline uint64_t more(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

/* What the work between two counts costs (vt_cost.h): each side's
 * messages, bytes and frames after a message's first.  The pass's own
 * cost is charged apart (charge_pass). */
static uint64_t cost_of(const struct ini_vt_costs *c, const struct work_count *a, const struct work_count *b)
{
    uint64_t sent = (b->out_msgs - a->out_msgs) + (b->local_msgs - a->local_msgs);
    uint64_t got = b->in_msgs - a->in_msgs;
    uint64_t sframes = more(b->segs_sent - a->segs_sent, b->msgs_sent - a->msgs_sent);
    uint64_t rframes = more(b->segs_received - a->segs_received, b->msgs_delivered - a->msgs_delivered);
    double x = 0;
    if (sent || sframes)
        x += c->send.per_message * (double)sent + c->send.per_byte * (double)(b->out_bytes - a->out_bytes) +
             c->send.per_frame * (double)sframes;
    if (got || rframes)
        x += c->recv.per_message * (double)got + c->recv.per_byte * (double)(b->in_bytes - a->in_bytes) +
             c->recv.per_frame * (double)rframes;
    return (uint64_t)(x + 0.5);
}

/* ---- one event ---- */

void inid_vt_delivered(struct inid *d, int pe, struct ini_rec *rec)
{
    struct inid_vt *v = d->vt;
    _Atomic uint64_t *at = ini_vt_delivery_stamp(rec->data, rec->len);
    atomic_store_explicit(at, INI_VT_NEVER, memory_order_relaxed);   /* not due until stamped */
    INI_ASSERT(v->n_fix < INID_VT_FIX);
    v->fix_at[v->n_fix] = at;
    v->fix_pe[v->n_fix++] = (uint16_t)pe;
}

/* The event's deliveries get their arrival; each PE's turn is posted. */
static void stamp_deliveries(struct inid *d)
{
    struct inid_vt *v = d->vt;
    uint64_t at = v->clock + (uint64_t)v->costs.deliver;
    uint64_t posted = 0;          /* PEs posted (local indices < 64) */
    for (uint32_t i = 0; i < v->n_fix; i++) {
        atomic_store_explicit(v->fix_at[i], at, memory_order_release);
        uint16_t pe = v->fix_pe[i];
        if (pe < 64 && (posted >> pe & 1))
            continue;
        posted |= pe < 64 ? 1ull << pe : 0;
        int global = d->cfg.clusters[d->cluster].pes[pe];
        ini_vt_post(v->m, v->slot, ini_vt_pe_slot(global), at);
    }
    v->n_fix = 0;
}

/* The pass's own cost, after what the event sent and delivered has left
 * stamped with the end of its messages' work: the rest of a turn (its
 * polls, flushes, ACKs and timers) keeps the INI busy, so it delays the
 * next input, but it is not on the path of the messages it served.  The
 * per-pass figure is measured so: a work turn's busy time outside every
 * message's service, per turn (tools/inimeasure/stack_costs.py), a turn
 * that took only an ACK included.  An event is one pass; it pays once,
 * the larger side's figure (the sets give both sides the same). */
static void charge_pass(struct inid *d, int worked)
{
    struct inid_vt *v = d->vt;
    const struct ini_vt_costs *c = &v->costs;
    if (!worked)
        return;
    d->stats.work_turns++;
    uint64_t pass = (uint64_t)((c->send.per_pass > c->recv.per_pass ? c->send.per_pass : c->recv.per_pass) + 0.5);
    if (!pass)
        return;
    v->charged += pass;
    v->clock = ini_vt_charge(v->m, v->slot, pass);
    d->stats.busy_cycles += pass;
    d->stats.pass_cycles += pass;
    d->stats.run_end = v->clock;
}

static int holding_tx(const struct inid *d)
{
    for (int k = 0; k < d->n_ports; k++)
        if (ini_fault_holding(&d->tx_fault[k]))
            return 1;
    return 0;
}

/* Serves the input due at the turn's time T, if any, with the
 * transport's timers; charges it; sends what it made. */
static void run_event(struct inid *d, uint64_t T)
{
    struct inid_vt *v = d->vt;
    uint64_t now = tsc_of(d, T);
    v->now_tsc = now;
    v->clock = T;
    v->tx_stamp = T + (uint64_t)v->costs.wire;
    v->cap_now = T;
    /* What a send injector held whose time has come leaves first, at T: a
     * delay is the link's, not the INI's work (it leaves at the start of
     * the first event at or after its release: next_due makes one). */
    if (holding_tx(d)) {
        v->leaving = 1;
        inid_flush(d);
    }
    v->leaving = 0;
    struct work_count a = count_work(d);
    uint32_t n0 = d->trace.n;
    await_frames(d);
    ini_stack_poll(&d->stack, now);
    inid_turn_retry(d, now);
    int pe;
    uint64_t at = earliest_input(d, &pe);
    const int took = at <= T;
    if (took) {
        /* Its arrival, as the time it entered the queue (the trace
         * reads a work item's arrival; the counters' area uses at). */
        if (pe < 0)
            receive_frame(d, heap_pop(v));
        else
            inid_take_record(d, pe, tsc_of(d, at));
    }
    release_held(d, T);
    inid_run_queue(d, now);
    /* What the input listed for the transport's next turn (its ack, a
     * delivery the window let through) belongs to this event. */
    ini_stack_poll(&d->stack, now);
    inid_turn_retry(d, now);
    struct work_count b = count_work(d);
    uint64_t cost = cost_of(&v->costs, &a, &b);
    v->charged += cost;
    v->clock = ini_vt_charge(v->m, v->slot, cost);
    /* The counters' averages on the INI's clock (Little's law: the
     * input was in the INI from its arrival to the event's end). */
    if (took)
        d->stats.queue_area += v->clock - at;
    if (cost) {
        d->stats.busy_cycles += cost;
        d->stats.run_end = v->clock;
    }
    if (d->trace.n != n0)
        trace_event(d, n0, T);
    stamp_deliveries(d);
    /* The event's frames leave now, at its end: stamped with it, judged
     * by the send faults at it (a delay counts from there), captured at it. */
    v->tx_stamp = v->clock + (uint64_t)v->costs.wire;
    v->now_tsc = tsc_of(d, v->clock);
    v->cap_now = v->clock;
    v->leaving = 1;
    inid_flush(d);
    charge_pass(d, took || memcmp(&a, &b, sizeof a) != 0);    /* a cost implies counts that moved */
    __atomic_store_n(&d->vt_clock, v->clock, __ATOMIC_RELAXED);
    __atomic_store_n(&d->vt_busy, v->charged, __ATOMIC_RELAXED);
    inid_publish_load(d);
    v->events++;
}

/* When the INI's next event is due: its earliest input or its
 * transport's next timer, never before the end of the event it just had
 * (an input that arrived meanwhile is served then). */
static uint64_t next_due(struct inid *d)
{
    int pe;
    uint64_t e = earliest_input(d, &pe), h = held_due(d);
    uint64_t t = cycles_of(d, ini_swp_next_deadline(d->stack.swp));
    uint64_t now = d->vt->clock;
    e = h < e ? h : e;          /* a held frame is due at its release */
    if (e <= now)
        return now;             /* an input waited while the last one was served */
    /* A timer the last event's poll left due would come back at once:
     * one cycle later, so that time moves. */
    if (t <= now)
        t = now + 1;
    return e < t ? e : t;
}

int inid_vt_loop(struct inid *d)
{
    struct inid_vt *v = d->vt;
    while (!d->stop) {
        uint64_t T;
        drain_ports(d);
        enum ini_vt_grant g = ini_vt_wait_turn(v->m, v->slot, next_due(d), &T);
        if (g != INI_VT_GRANTED) {
            printf("inid %d: virtual time stopped at cycle %llu: %s\n", d->me->id,
                   (unsigned long long)v->clock, ini_vt_why(v->m));
            fflush(stdout);
            break;
        }
        run_event(d, T);
    }
    /* The machine stopped (its compute nodes ended, or it was stuck):
     * the daemon waits for its stop as in the other modes. */
    while (!d->stop) {
        struct timespec ts = { 0, 20 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    return 0;
}

int inid_vt_requested(void)
{
    const char *name = getenv(INI_VT_ENV);
    return name && *name;
}

int inid_vt_setup(struct inid *d, char *err, size_t errlen)
{
    if (!inid_vt_requested())
        return 0;
    const char *name = getenv(INI_VT_ENV);
    struct inid_vt *v = calloc(1, sizeof *v);
    if (!v) {
        snprintf(err, errlen, "virtual time: out of memory");
        return -1;
    }
    if (ini_vt_costs_from_env(&v->costs, err, errlen) < 0 || !(v->m = ini_vt_shm_attach(name, err, errlen))) {
        free(v);
        return -1;
    }
    v->n_pes_total = (uint32_t)d->cfg.n_pes;
    v->leaving = 1;                 /* outside an event frames go at once */
    v->slot = ini_vt_ini_slot(d->cfg.n_pes, d->me->id);
    if (v->slot >= v->m->n_slots) {
        snprintf(err, errlen, "virtual time: %s has %u slots, INI %d needs slot %u", name, v->m->n_slots,
                 d->me->id, v->slot);
        ini_vt_shm_detach(v->m);
        free(v);
        return -1;
    }
    for (int k = 0; k < INI_NETIF_MAX_PORTS; k++)
        v->peer_of_port[k] = -1;
    for (int k = 0; k < d->n_ports; k++)
        if (d->ports[k] < INI_NETIF_MAX_PORTS)
            v->peer_of_port[d->ports[k]] = (int16_t)d->port_peer[k];
    d->stack.nf.xmit = vt_xmit;
    d->stack.nf.xmit_ctx = d;
    d->stack.nf.clock = &v->now_tsc;
    if (d->cap.fd >= 0) {
        ini_capture_set_clock(&d->cap, v->m->hz);
        d->cap_clock = &v->cap_now;
    }
    d->vt = v;
    d->vt_extra = INI_VT_DELIVERY_ROOM;
    d->vt_hz = v->m->hz;
    d->stats.run_start = d->stats.run_end = 0;     /* the counters' span: cycle 0 on (trace_end) */
    trace_setup(d);
    return 0;
}

void inid_vt_close(struct inid *d)
{
    if (!d->vt)
        return;
    struct inid_vt *v = d->vt;
    printf("inid %d: virtual time: %llu frames out (%llu before their event's end), %llu in, %llu never came, "
           "%llu another INI's (flooded)\n",
           d->me->id, (unsigned long long)v->frames_out, (unsigned long long)v->frames_early,
           (unsigned long long)v->frames_in, (unsigned long long)v->frames_lost,
           (unsigned long long)v->frames_foreign);
    trace_end(d);
    ini_vt_done(d->vt->m, d->vt->slot);
    ini_vt_shm_detach(d->vt->m);
    free(d->vt);
    d->vt = NULL;
}
