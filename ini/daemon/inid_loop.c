/*
 * inid_loop.c - the protocol loop of an INI (figure 3-1), run on its lcore.
 *
 * Each turn: retry waiting deliveries, run the transport's timers and
 * deferred acks, deliver what the knob stage holds and is due
 * (inid_knobs.h), retry stalled work, pull new records from the compute
 * nodes' rings and bursts of frames from the ports into the FIFO work
 * queue, process the queue to completion, publish the INI's load (once:
 * publish_load), flush the transmit queues, and run lwIP's timers when
 * due.  Nothing here allocates, locks or makes a system call per message;
 * the only system calls are the adaptive idle mode's, made with no work
 * at hand (yielding the core, then the epoll sleep), the wake of a
 * sleeping compute node or memif peer, and the knobs' (O asleep).
 */
#include "inid_loop.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "fabric.h"
#include "ini_assert.h"
#include "inid_clock.h"
#include "inid_fabric.h"
#include "inid_port.h"
#include "inid_state.h"
#include "inid_vtime.h"
#include "stack_config.h"

enum { DONE = 0, STALL = 1 };

/* The loop is built twice (inid_loop); the pieces of a turn are inlined
 * into each copy, as they were into the one loop, so that the copy without
 * dilation is the loop as it was. */
#define TURN_PIECE static inline __attribute__((always_inline))

static inline uint32_t queue_len(const struct inid *d) { return d->q_tail - d->q_head; }
static inline uint32_t queue_room(const struct inid *d) { return INID_QUEUE_SIZE - queue_len(d); }

/* The load the compute nodes' load-aware policy reads (loadbal.h: what
 * they submitted and the INI has not processed, plus `inbound`), stored
 * once per turn, when the turn has run its queue: an INI between turns
 * (descheduled, on shared cores, or asleep) shows what is left, not what
 * it has just done.  One formula: inbound is the work queue (empty at the
 * end of a turn; what arrived, during a dilated turn's wait), the
 * deliveries the knob stage holds (O, ΔL) and the segments of messages
 * taken in part that wait for their window.  A dilated turn's polls, made
 * while it waits out its dilation, store it the same way
 * (dilation_poll). */
static inline void publish_load(struct inid *d)
{
    struct ini_seg_ini *me = &d->seg->inis[d->local];
    atomic_store_explicit(&me->processed, d->stats.processed, memory_order_relaxed);
    atomic_store_explicit(&me->inbound,
                          queue_len(d) + inid_knobs_held(&d->knobs) + ini_swp_pending_frames(d->stack.swp),
                          memory_order_relaxed);
}

/* ---- the ports ---- */

/* Sends what the ports' queues hold and rings the memif peers asleep (in
 * place of the link interrupt their driver lacks): at the end of each
 * turn, and at the end of a message's O, so that what the message made
 * leaves right after its service, not at the end of the turn (where it
 * would also wait for the O of every message behind it in the queue).
 * Returns the frames still waiting for a full port. */
TURN_PIECE int flush_ports(struct inid *d)
{
    int n = ini_stack_flush(&d->stack);
    if (d->idle == INI_IDLE_ADAPTIVE && d->cfg.net_mode == INI_NET_MEMIF)
        inid_wake_peers(d);
    return n;
}

/* O (inid_knobs.h) for a message that arrived at `arrive` and whose
 * processing began at `begun`. */
static inline void spend_O(struct inid *d, uint64_t arrive, uint64_t begun)
{
    if (inid_knobs_spend_O(&d->knobs, arrive, begun))
        flush_ports(d);
}

/* ---- the compute-node side: releasing records, delivering messages ---- */

/* Copies AM header + payload (len bytes at offset off of p) into PE pe's
 * ring.  0, or -1 when the ring has no room now.  arm: a delivery the
 * transport is making (swp.h struct ini_swp_intent): the intent says
 * which ring, and up to where, the message is published. */
static int deliver_pbuf(struct inid *d, int pe, struct pbuf *p, uint16_t off, uint32_t len, int arm)
{
    struct ini_rec *rec = ini_fabric_reserve(&d->deliver[pe], len + d->vt_extra);
    if (!rec)
        return -1;
    pbuf_copy_partial(p, rec->data, (u16_t)len, off);
    d->stats.ring_copied += len;
    if (d->vt)
        inid_vt_delivered(d, pe, rec);
    if (arm) {
        struct ini_swp_intent *in = d->swp_intent;
        in->where = (uint32_t)pe;
        in->mark = d->deliver[pe].tail;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        in->armed = 1;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
    }
    ini_fabric_publish(&d->deliver[pe]);
    ini_fabric_wake_pe(d->seg, pe);
    return 0;
}

static int backlog_push(struct inid *d, int pe, struct pbuf *p, uint16_t off)
{
    struct pe_backlog *b = &d->backlog[pe];
    if (b->tail - b->head >= INID_BACKLOG)
        return -1;
    b->p[b->tail % INID_BACKLOG] = p;
    b->off[b->tail % INID_BACKLOG] = off;
    b->tail++;
    INI_ASSERT(b->tail - b->head <= INID_BACKLOG);
    d->stats.deferred++;
    return 0;
}

TURN_PIECE int retry_backlogs(struct inid *d)
{
    int n = 0;
    for (int pe = 0; pe < d->n_pes; pe++) {
        struct pe_backlog *b = &d->backlog[pe];
        while (b->head != b->tail) {
            struct pbuf *p = b->p[b->head % INID_BACKLOG];
            uint16_t off = b->off[b->head % INID_BACKLOG];
            if (deliver_pbuf(d, pe, p, off, p->tot_len - off, 0) < 0)
                break;
            pbuf_free(p);
            b->head++;
            n++;
        }
    }
    return n;
}

/* A message for local PE x->pe (AM header h at offset x->off of x->p),
 * copied into the PE's ring and freed, with its trace record (x holds
 * what the record needs besides h; t_window: the sliding window was done,
 * detailed traces), or parked in the PE's backlog, in order behind what
 * waits there.  0, or -1 when the backlog is full too.  From the
 * transport (arm): never parked: a message acknowledged must be in the
 * ring (docs/transport.md, "An INI that restarts"); -1, and the transport
 * offers it again. */
static inline int deliver_in(struct inid *d, const struct inid_held *x, const struct ini_am_hdr *h,
                             uint64_t t_window, int arm)
{
    int pe = x->pe;
    if (d->backlog[pe].head == d->backlog[pe].tail &&
        deliver_pbuf(d, pe, x->p, x->off, (uint32_t)sizeof(*h) + h->len, arm) == 0) {
        struct ini_trace_rec *r = ini_trace_begin(&d->trace, INI_TRACE_IN, x->t_arrive, x->qlen);
        ini_trace_set_msg(r, h->src_pe, h->dst_pe, x->src_ini, h->len);
        ini_trace_set_seq(r, h->pe_seq);
        ini_trace_stamp(&d->trace, r, INI_TS_DEQUEUE, x->t_start);
        ini_trace_stamp(&d->trace, r, INI_TS_IN_IP, x->t_in_ip);
        ini_trace_stamp(&d->trace, r, INI_TS_IN_UDP, x->t_in_udp);
        ini_trace_stamp(&d->trace, r, INI_TS_IN_WINDOW, t_window);
        ini_trace_commit(&d->trace, r, r ? rte_rdtsc() : 0);    /* NULL (buffer full): counted as dropped */
        pbuf_free(x->p);
        return 0;
    }
    return arm ? -1 : backlog_push(d, pe, x->p, x->off);
}

/* The knob stage's receive half (inid_knobs.h), run by the loop once the
 * stack's receive has returned, after each frame and after the transport's
 * poll: the held messages that are due get their O and are delivered, in
 * order.  A message held for ΔL starts its service when it is due, and its
 * record shows it arriving when the transport handed it over, without
 * module stamps. */
static int deliver_held(struct inid *d, uint64_t now)
{
    struct inid_knobs *k = &d->knobs;
    struct inid_held *x;
    int n = 0;
    while ((x = inid_knobs_next_due(k, now))) {
        uint64_t t_window = 0;
        if (x->delayed) {
            spend_O(d, x->due, now);
            x->t_arrive = x->due - k->latency;
            x->t_start = x->t_in_ip = x->t_in_udp = 0;
            x->qlen = 0;
            x->src_ini = UINT16_MAX;
        } else {
            spend_O(d, x->t_arrive, x->t_start);
            t_window = d->trace.mode == INI_TRACE_DETAILED ? rte_rdtsc() : 0;
        }
        struct ini_am_hdr h;
        pbuf_copy_partial(x->p, &h, sizeof(h), x->off);
        if (deliver_in(d, x, &h, t_window, 0) < 0)
            break;      /* the PE is far behind: try again next turn */
        inid_knobs_release(k);
        n++;
    }
    return n;
}

/* With O or ΔL on, the knob stage takes the message: the loop delivers
 * it after the stack's receive has returned (deliver_held).  Refused when the stage's queue is
 * full or, O alone, when the PE's backlog is, as without knobs. */
static int hold_in(struct inid *d, const struct inid_held *x)
{
    struct inid_held *slot = inid_knobs_hold_slot(&d->knobs);
    const struct pe_backlog *b = &d->backlog[x->pe];
    if (!slot || (!d->knobs.latency && b->tail - b->head >= INID_BACKLOG))
        return -1;
    *slot = *x;
    inid_knobs_hold(&d->knobs, slot);
    return 0;
}

/* Transport callback: a message from INI src_ini for a PE of this cluster;
 * rx describes the frame that completed it.  It runs inside the stack's
 * receive (ini_stack_input, ini_stack_poll): it delivers the message or
 * hands it to the knob stage, nothing longer. */
int inid_transport_deliver(void *ctx, int src_ini, struct pbuf *p, uint16_t off, struct ini_rx_meta *rx)
{
    struct inid *d = ctx;
    struct ini_am_hdr h;
    uint32_t avail = p->tot_len - off;
    if (pbuf_copy_partial(p, &h, sizeof(h), off) != sizeof(h) || h.len != avail - sizeof(h) ||
        h.dst_pe >= d->cfg.n_pes || d->cfg.pes[h.dst_pe].cluster != d->cluster ||
        h.src_pe >= d->cfg.n_pes || h.handler >= INI_MAX_HANDLERS) {
        d->stats.bad_msg++;
        pbuf_free(p);
        return 0;
    }
    d->lb.peer_load[src_ini] = h.flags;
    const struct inid_held x = {
        .p = p, .t_arrive = rx->t_arrive, .t_start = rx->t_start, .t_in_ip = rx->t_in_ip,
        .t_in_udp = rx->t_in_udp, .qlen = rx->qlen, .off = off, .src_ini = (uint16_t)src_ini,
        .pe = (uint8_t)d->cfg.pes[h.dst_pe].local,
    };
    if (d->knobs.rx_on ? hold_in(d, &x) < 0
                       : deliver_in(d, &x, &h, d->trace.mode == INI_TRACE_DETAILED ? rte_rdtsc() : 0, 1) < 0) {
        /* The PE is far behind: the transport keeps the message, does not
         * acknowledge it, and offers it again later. */
        d->stats.refused++;
        return -1;
    }
    d->stats.in_msgs++;
    d->stats.in_bytes += h.len;
    return 0;
}

/* ---- processing one work item ---- */

/* Where a compute node's message for PE dst_pe (a valid id) goes: the
 * INI of the destination cluster that the INI policy picks, or -1 - the
 * local index of a PE of this cluster. */
static inline int16_t pick_target(struct inid *d, uint16_t dst_pe)
{
    const struct ini_pe_cfg *dst = &d->cfg.pes[dst_pe];
    if (dst->cluster == d->cluster)
        return (int16_t)(-1 - dst->local);
    const struct ini_cluster_cfg *cl = &d->cfg.clusters[dst->cluster];
    return (int16_t)ini_lb_conn_pick(&d->lb, dst->cluster, cl->inis, cl->n_inis, dst->static_ini);
}

/* A message for a PE of this cluster (w->target: -1 - its local index):
 * straight into the PE's ring, its intent said first (inid.h struct
 * inid_dur): a restarted INI must know whether it was published before
 * its record was marked done.  DONE, or STALL when the ring is full. */
static int deliver_local(struct inid *d, struct work *w, struct ini_rec *rec, uint64_t now)
{
    struct ini_am_hdr *h = ini_fabric_out_am(rec);
    uint32_t am_len = rec->len - INI_HEADROOM;
    int local = -1 - w->target;
    struct ini_rec *to = ini_fabric_reserve(&d->deliver[local], am_len + d->vt_extra);
    if (!to)
        return STALL;
    memcpy(to->data, h, am_len);
    d->stats.ring_copied += am_len;
    if (d->vt)
        inid_vt_delivered(d, local, to);
    inid_state_local_arm(d->dur, (uint32_t)local, w->pe, d->deliver[local].tail,
                         d->out[w->pe].end[w->slot] - rec->bytes);
    ini_fabric_publish(&d->deliver[local]);
    ini_fabric_wake_pe(d->seg, local);
    d->stats.local_msgs++;
    d->stats.processed++;
    struct ini_trace_rec *tr = ini_trace_begin(&d->trace, INI_TRACE_LOCAL, w->t_arrive, w->qlen);
    ini_trace_set_msg(tr, h->src_pe, h->dst_pe, UINT16_MAX, h->len);
    ini_trace_set_seq(tr, h->pe_seq);
    ini_trace_stamp(&d->trace, tr, INI_TS_DEQUEUE, now);
    ini_trace_commit(&d->trace, tr, tr ? rte_rdtsc() : 0);   /* NULL (buffer full): counted as dropped */
    inid_record_done(d, w->pe, w->slot);
    inid_state_local_disarm(d->dur);
    return DONE;
}

static int process_out(struct inid *d, struct work *w, uint64_t now)
{
    struct ini_rec *rec = w->rec;
    struct ini_am_hdr *h = ini_fabric_out_am(rec);
    uint32_t am_len = rec->len - INI_HEADROOM;
    if (rec->len < INI_HEADROOM + sizeof(*h) || h->len != am_len - sizeof(*h) ||
        h->dst_pe >= d->cfg.n_pes || h->len > (uint32_t)d->cfg.stack.max_message) {
        d->stats.bad_dst++;
        d->stats.processed++;
        inid_record_done(d, w->pe, w->slot);
        return DONE;
    }
    if (w->target == INT16_MIN)
        w->target = pick_target(d, h->dst_pe);
    if (w->target < 0)
        return deliver_local(d, w, rec, now);
    uintptr_t cookie = inid_cookie(w->pe, w->slot, d->out[w->pe].end[w->slot] - rec->bytes);
    if (inid_knobs_tx_wait(&d->knobs))
        return STALL;                   /* Δg / ΔG: not yet */
    uint64_t start = d->trace.mode == INI_TRACE_DETAILED ? rte_rdtsc() : now;
    uint64_t submit;    /* in the headroom, which the transport header overwrites */
    memcpy(&submit, rec->data, sizeof(submit));
    /* Under the load-aware INI policy our load rides to the peer in the AM
     * header (before the CRC is taken): what the compute nodes gave us and
     * we have not done, the frames waiting in our queue, and the segments
     * of messages we took in part that wait for their window.  Reading the
     * compute nodes' counter costs a shared cache line, so only then. */
    h->flags = 0;
    if (d->cfg.ini_policy == INI_POLICY_LOAD_AWARE) {
        uint64_t given = atomic_load_explicit(&d->seg->inis[d->local].submitted, memory_order_relaxed);
        /* A compute node counts its message just after publishing it: we
         * may have processed it already. */
        uint64_t load = (given > d->stats.processed ? given - d->stats.processed : 0) + queue_len(d) +
                        ini_swp_pending_frames(d->stack.swp);   /* segments still to go */
        h->flags = (uint16_t)(load > UINT16_MAX ? UINT16_MAX : load);
    }
    struct ini_swp_tx_stamps ts = { 0, 0 };
    if (ini_swp_send(d->stack.swp, w->target, (uint8_t *)h, am_len, (void *)cookie, now,
                     d->trace.mode == INI_TRACE_DETAILED ? &ts : NULL) < 0)
        return STALL;
    d->stats.out_msgs++;
    d->stats.out_bytes += h->len;
    spend_O(d, w->t_arrive, start);
    d->stats.processed++;          /* after its service time: load counts the message in service */
    inid_knobs_tx_sent(&d->knobs, am_len);
    /* The loop's time is read once per turn, before it looks at the rings:
     * a record published in between was submitted after it. */
    struct ini_trace_rec *tr = ini_trace_begin(&d->trace, INI_TRACE_OUT,
                                               w->t_arrive > submit ? w->t_arrive : submit, w->qlen);
    ini_trace_set_msg(tr, h->src_pe, h->dst_pe, (uint16_t)w->target, h->len);
    ini_trace_set_seq(tr, h->pe_seq);
    ini_trace_stamp(&d->trace, tr, INI_TS_SUBMIT, submit);
    ini_trace_stamp(&d->trace, tr, INI_TS_DEQUEUE, start);
    ini_trace_stamp(&d->trace, tr, INI_TS_OUT_WINDOW, ts.t_out_window);
    ini_trace_stamp(&d->trace, tr, INI_TS_OUT_UDP, ts.t_out_udp);
    ini_trace_commit(&d->trace, tr, tr ? rte_rdtsc() : 0);       /* NULL (buffer full): counted as dropped */
    return DONE;
}

static int process(struct inid *d, struct work *w, uint64_t now)
{
    if (w->kind == WORK_IN) {
        /* The inbound message this frame completes (if any) inherits its
         * arrival and dequeue stamps. */
        int detailed = d->trace.mode == INI_TRACE_DETAILED;
        struct ini_rx_meta rx = {
            .t_arrive = w->t_arrive,
            .t_start = detailed ? rte_rdtsc() : now,
            .qlen = w->qlen,
            .stamp = detailed,
        };
        ini_stack_input(&d->stack, w->m, &rx);
        if (inid_knobs_held(&d->knobs))
            deliver_held(d, now);           /* what the frame completed, after the stack's receive */
        return DONE;
    }
    return process_out(d, w, now);
}

/* Stalled work is retried in order; what still cannot proceed stays.
 * Work for a target that already stalled this turn stays too, so that
 * messages to one connection (or one local PE) keep their order. */
TURN_PIECE int retry_stalled(struct inid *d, uint64_t now)
{
    uint32_t kept = 0, done = 0;
    for (uint32_t i = 0; i < d->n_stalled; i++) {
        int blocked = 0;
        for (uint32_t j = 0; j < kept && !blocked; j++)
            blocked = d->stalled[j].target == d->stalled[i].target;
        if (blocked || process(d, &d->stalled[i], now) == STALL)
            d->stalled[kept++] = d->stalled[i];
        else
            done++;
    }
    d->n_stalled = kept;
    return (int)done;
}

/* The FIFO queue, processed to completion.  A message whose connection
 * window is full (or whose local PE's ring is full) moves to the stall list
 * and the work behind it goes on (thesis section 3.1); later messages for
 * the same target join it there, to keep their order. */
TURN_PIECE int run_queue(struct inid *d, uint64_t now)
{
    int n = 0;
    while (d->q_head != d->q_tail) {
        struct work *w = &d->queue[d->q_head++ % INID_QUEUE_SIZE];
        int blocked = 0;
        if (w->kind == WORK_OUT && d->n_stalled) {
            const struct ini_am_hdr *h = ini_fabric_out_am(w->rec);
            if (h->dst_pe < d->cfg.n_pes) {
                w->target = pick_target(d, h->dst_pe);
                for (uint32_t i = 0; i < d->n_stalled && !blocked; i++)
                    blocked = d->stalled[i].target == w->target;
            }
        }
        if (blocked || process(d, w, now) == STALL) {
            /* The sources leave room for everything queued to stall. */
            INI_ASSERT(d->n_stalled < INID_QUEUE_SIZE);
            d->stalled[d->n_stalled++] = *w;
            d->stats.stalls++;
        }
        n++;
    }
    return n;
}

/* ---- sources ---- */

/* Takes PE pe's next record into the work queue: 1, or 0 when it has
 * none, its in-flight list is full or the queue has no room. */
TURN_PIECE int record_room(const struct inid *d, int pe)
{
    const struct out_ring *o = &d->out[pe];
    return o->tail - o->head < INID_RING_INFLIGHT && queue_room(d) > 0 &&
           d->n_stalled + queue_len(d) < INID_QUEUE_SIZE - 1;
}

TURN_PIECE int take_record(struct inid *d, int pe, uint64_t now)
{
    struct out_ring *o = &d->out[pe];
    struct ini_rec *rec;
    uint64_t end;
    if (!(record_room(d, pe) && (rec = ini_ring_next(&o->cons, &end))))
        return 0;
    uint32_t slot = o->tail++;
    o->end[slot % INID_RING_INFLIGHT] = end;
    o->done[slot % INID_RING_INFLIGHT] = 0;
    o->rec[slot % INID_RING_INFLIGHT] = rec;
    struct work *w = &d->queue[d->q_tail % INID_QUEUE_SIZE];
    w->kind = WORK_OUT;
    w->target = INT16_MIN;
    w->pe = (uint8_t)pe;
    w->slot = (uint16_t)(slot % INID_RING_INFLIGHT);
    w->qlen = queue_len(d);
    w->t_arrive = now;
    w->rec = rec;
    if (!(rec->flags & INI_REC_F_INPLACE) && rec->len > INI_HEADROOM)
        d->stats.cn_copied += rec->len - INI_HEADROOM;
    d->q_tail++;
    INI_ASSERT(queue_len(d) + d->n_stalled < INID_QUEUE_SIZE);
    return 1;
}

TURN_PIECE int poll_pes(struct inid *d, uint64_t now)
{
    int n = 0;
    for (int pe = 0; pe < d->n_pes; pe++)
        while (take_record(d, pe, now))
            n++;
    return n;
}

TURN_PIECE int poll_ports(struct inid *d, uint64_t now)
{
    int n = 0;
    d->rx_burst_full = 0;
    struct rte_mbuf *pkts[INI_NETIF_BURST];
    for (int k = 0; k < d->n_ports; k++) {
        if (queue_room(d) < INI_NETIF_BURST || d->n_stalled + queue_len(d) + INI_NETIF_BURST >= INID_QUEUE_SIZE ||
            d->wedge.stalled)
            break;
        uint16_t got = rte_eth_rx_burst(d->ports[k], 0, pkts, INI_NETIF_BURST);
        d->rx_burst_full |= got == INI_NETIF_BURST;
        if (d->cap.fd >= 0)
            inid_capture_rx(d, k, pkts, got);      /* as received, before rx faults */
        struct rte_mbuf **in = pkts;
        struct rte_mbuf *faulted[2 * INI_NETIF_BURST + INI_FAULT_HOLD];
        if (d->rx_faults) {
            got = ini_fault_apply(&d->rx_fault[k], now, pkts, got, faulted, RTE_DIM(faulted));
            in = faulted;
            /* Released held frames may exceed the queue's room: those are
             * lost, as on a real link whose receive ring overflows. */
            while (got > queue_room(d))
                rte_pktmbuf_free(in[--got]);
        }
        for (uint16_t i = 0; i < got; i++) {
            struct work *w = &d->queue[d->q_tail % INID_QUEUE_SIZE];
            w->kind = WORK_IN;
            w->qlen = queue_len(d);
            w->t_arrive = now;
            w->m = in[i];
            d->q_tail++;
        }
        INI_ASSERT(queue_len(d) <= INID_QUEUE_SIZE);
        n += got;
    }
    return n;
}

static int pes_have_work(struct inid *d)
{
    for (int pe = 0; pe < d->n_pes; pe++)
        if (ini_ring_has_unread(&d->out[pe].cons))
            return 1;
    return 0;
}

/* Adaptive idle: the INI sleeps in epoll on its doorbell FIFO (compute
 * nodes, and memif peers in place of the link interrupt, write to it) and
 * on the receive interrupts of the ports that have them, the consumer's
 * half of fabric.h.  Interrupts are armed only while asleep, so a busy
 * peer never pays a system call per frame. */
struct idle_sleep {
    struct inid *d;
    uint64_t backoff_us;      /* the bound when some port cannot wake us */
};

/* The last look: arms the interrupts, then looks at the ports (a frame
 * that arrived before its interrupt was armed raises none) and the PEs. */
static int idle_pending(void *arg)
{
    struct inid *d = ((struct idle_sleep *)arg)->d;
    for (int k = 0; k < d->n_ports; k++)
        if (d->port_intr[k])
            rte_eth_dev_rx_intr_enable(d->ports[k], 0);
    for (int k = 0; k < d->n_ports; k++)
        if (rte_eth_rx_queue_count(d->ports[k], 0) > 0)
            return 1;
    return pes_have_work(d);
}

/* Sleeps until woken or the next deadline: with ports that ring us
 * (memif peers, interrupts) at most 100 ms, otherwise the back-off; and
 * never past a transport timer or the knob stage's next event. */
static void idle_epoll(void *arg)
{
    struct idle_sleep *s = arg;
    struct inid *d = s->d;
    int ports_wake = d->cfg.net_mode == INI_NET_MEMIF || d->n_intr == d->n_ports;
    uint64_t ns = (ports_wake ? 100000 : s->backoff_us) * 1000;
    uint64_t deadline = ini_swp_next_deadline(d->stack.swp), now = rte_rdtsc();
    uint64_t knobs = inid_knobs_deadline(&d->knobs, d->n_stalled != 0);
    if (knobs < deadline)
        deadline = knobs;
    if (deadline != UINT64_MAX) {
        uint64_t until = deadline > now ? (deadline - now) * 1000000000ull / d->tsc_hz : 0;
        if (until < ns)
            ns = until;
    }
    struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
    struct epoll_event ev[16];
    int n = epoll_pwait2(d->epfd, ev, 16, &ts, NULL);
    for (int i = 0; i < n; i++) {
        uint64_t junk[INI_NETIF_BURST];
        ssize_t r;
        if (ev[i].data.u32 == UINT32_MAX)
            while ((r = read(d->wake_fd, junk, sizeof(junk))) > 0)
                ;
        else
            r = read(rte_eth_dev_rx_intr_ctl_q_get_fd(d->ports[ev[i].data.u32], 0), junk, 8);
        (void)r;
    }
}

/* One sleep; the back-off doubles while nothing happens, up to
 * idle.max_sleep_us. */
TURN_PIECE void idle_sleep(struct inid *d, uint64_t *backoff_us)
{
    struct idle_sleep s = { d, *backoff_us };
    _Atomic uint32_t *sleeping = &d->seg->inis[d->local].sleeping;
    if (ini_fabric_sleep(&sleeping, 1, 1, idle_pending, idle_epoll, &s))
        d->stats.idle_sleeps++;
    for (int k = 0; k < d->n_ports; k++)
        if (d->port_intr[k])
            rte_eth_dev_rx_intr_disable(d->ports[k], 0);
    *backoff_us *= 2;
    if (*backoff_us > (uint64_t)d->cfg.idle.max_sleep_us)
        *backoff_us = (uint64_t)d->cfg.idle.max_sleep_us;
}

/* ---- uniform dilation (inid_knobs.h) ---- */

/* The knob stage's hook while a dilated turn waits: what arrived joins
 * the work queue, stamped now, and counts in the load the INI publishes;
 * the next turn processes it. */
static int dilation_poll(void *ctx, uint64_t now)
{
    struct inid *d = ctx;
    int n = poll_pes(d, now) + poll_ports(d, now);
    publish_load(d);
    return n;
}

/* The records the turn committed (from index `first`) took their stamps
 * while it worked, in [t0, t1]; the dilated turn lasted until `end`, so
 * each stamp inside the turn moves as if the work had gone at the dilated
 * pace.  Stamps from before the turn (submit, arrival) stay; the order of
 * every record's stamps is kept. */
static void stretch_records(struct ini_trace *t, uint32_t first, uint64_t t0, uint64_t t1, uint64_t end)
{
    double f = (double)(end - t0) / (double)(t1 > t0 ? t1 - t0 : 1);
    for (uint32_t i = first; i < t->n; i++)
        for (int k = 0; k < INI_TRACE_SLOTS; k++)
            if (t->recs[i].slot[k] > t0)
                t->recs[i].slot[k] = t0 + (uint64_t)((double)(t->recs[i].slot[k] - t0) * f);
}

/* A turn that began at `now` did work: it lasts K*beta times its CPU
 * time.  `arrive`: when its earliest work arrived (the virtual clock's
 * start). */
static void dilate_turn(struct inid *d, uint64_t arrive, uint64_t now, uint32_t first_rec)
{
    uint64_t work_end, end = inid_knobs_dilate(&d->knobs, arrive, now, &work_end);
    if (end > work_end)
        stretch_records(&d->trace, first_rec, now, work_end, end);
}

/* ---- the loop ---- */

/* The compute nodes of this cluster that run on this INI's core
 * (idle.colocate: those whose static INI it is, when it has a core), as a
 * mask of local indices; 0 when the daemon does not share its core. */
static uint64_t colocated_pes(const struct inid *d)
{
    uint64_t mask = 0;
    if (d->idle != INI_IDLE_ADAPTIVE || !d->cfg.idle.colocate || d->me->core < 0)
        return 0;
    const struct ini_cluster_cfg *cl = &d->cfg.clusters[d->cluster];
    for (int p = 0; p < cl->n_pes && p < 64; p++)
        if (d->cfg.pes[cl->pes[p]].static_ini == d->me->id)
            mask |= 1ull << p;
    return mask;
}

/* The loop's own clocks: idle back-off, lwIP's timers, the queue's area. */
struct loop_clock {
    uint64_t spin, yield, timer_period;
    uint64_t last_work, next_timers, backoff_us;
    uint64_t last_turn, last_occupancy;
    /* Sharing the core with compute nodes that wait for messages
     * (fabric.h, "Sharing a core"): keep it while they wait, hand it over
     * as soon as one has a message (handed: deliveries counted so far). */
    uint64_t colocated, handed;
};

TURN_PIECE void loop_clock_init(const struct inid *d, struct loop_clock *c)
{
    const uint64_t hz = d->tsc_hz;
    /* Colocated with its compute nodes (idle.colocate), the daemon hands
     * its core over at once instead of spinning on it. */
    c->spin = d->cfg.idle.colocate ? 0 : hz / 1000000 * (uint64_t)d->cfg.idle.spin_us;
    c->yield = hz / 1000000 * (uint64_t)d->cfg.idle.yield_us;
    c->timer_period = hz / 10;         /* lwIP timers: 100 ms */
    c->last_work = rte_rdtsc();
    c->next_timers = c->last_work + c->timer_period;
    c->backoff_us = 8;
    c->last_turn = c->last_occupancy = 0;
    c->colocated = colocated_pes(d);
    c->handed = 0;
}

/* After the sources were polled: the queue's time-average and samples. */
TURN_PIECE void account_queue(struct inid *d, struct loop_clock *c, uint64_t now)
{
    uint32_t ql = queue_len(d);
    /* This turn's occupancy holds until the next turn starts. */
    if (c->last_turn)
        d->stats.queue_area += c->last_occupancy * (now - c->last_turn);
    c->last_turn = now;
    c->last_occupancy = ql + d->n_stalled;
    if (ql) {
        d->stats.queue_sum += ql;
        d->stats.queue_samples++;
        if (ql > d->stats.queue_max)
            d->stats.queue_max = ql;
    }
}

/* Colocated: yield the core to the compute node we share it with, and
 * sleep when the scheduler kept us, since only then does it run
 * (fabric.h, "Sharing a core"). */
static void hand_over_core(struct inid *d, struct loop_clock *c)
{
    if (!ini_fabric_yield()) {
        d->stats.kept_yields++;
        idle_sleep(d, &c->backoff_us);
    }
}

/* The leak planted by INI_TEST_LEAK_MBUFS (inid.c), once a second from
 * the 100 ms timer tick: never on the message path. */
static void test_leak(struct inid *d, uint64_t now)
{
    if (now < d->test_leak_next)
        return;
    d->test_leak_next = now + d->tsc_hz;
    for (uint64_t i = 0; i < d->test_leak_per_s; i++)
        (void)rte_pktmbuf_alloc(d->stack.pool);
}

/* The end of a turn: lwIP's timers when due, the busy cycles of a turn
 * that did work (n), the core handed to a colocated compute node that has
 * a message, or the idle path. */
TURN_PIECE void end_turn(struct inid *d, struct loop_clock *c, uint64_t now, int n)
{
    if (now >= c->next_timers) {
        ini_stack_timers(&d->stack);     /* lwIP's timers, reassembly timeouts counted */
        inid_ports_relink(d);
        c->next_timers = now + c->timer_period;
        ini_capture_tick(&d->cap, now);
        if (d->test_leak_per_s)
            test_leak(d, now);
    }
    if (inid_wedge_due(&d->wedge, now))
        inid_wedge_check(d, now);       /* at most once a millisecond: inid_wedge.c */
    if (n) {
        /* Two TSC reads per turn, not per message. */
        d->stats.busy_cycles += rte_rdtsc() - now;
        d->stats.work_turns++;
        c->last_work = now;
        c->backoff_us = 8;
        /* A whole burst came in: more frames wait, taken before the
         * hand-over below (a hand-over per turn of a large message's
         * segments held its rate back: docs/results/c2c-handover).  A
         * round trip's lone frame never fills a burst. */
        if (d->rx_burst_full)
            return;
    }
    /* A waiting compute node on this core has a message: hand it the
     * core, by sleeping when the scheduler keeps us (fabric.h, "Sharing
     * a core"). */
    uint64_t given = d->stats.in_msgs + d->stats.local_msgs;
    if (given != c->handed) {
        c->handed = given;
        if (c->colocated && ini_fabric_pes_wait(d->seg, c->colocated)) {
            hand_over_core(d, c);
            return;
        }
    }
    if (n)
        return;
    if (c->colocated && now - c->last_work <= c->yield && ini_fabric_pes_wait(d->seg, c->colocated)) {
        /* Its compute nodes wait on this core: what arrives is theirs,
         * taken at once rather than after a switch to them and back. */
    } else if (d->idle == INI_IDLE_ADAPTIVE && now - c->last_work > c->spin) {
        /* Shared cores: first hand the core to whoever is runnable on
         * it (the compute node this daemon serves, colocated) and come
         * back at once if nobody is, for up to yield_us; only then
         * sleep in the kernel.  No message is waiting: the system
         * call is the idle path's, as the sleep is. */
        if (now - c->last_work > c->spin + c->yield)
            idle_sleep(d, &c->backoff_us);
        else if (c->colocated)
            hand_over_core(d, c);
        else
            sched_yield();
    }
}

/* The loop, built twice (inid_loop): with uniform dilation's calls and
 * without them, so that dilation off costs nothing per turn. */
TURN_PIECE void loop(struct inid *d, const int dilated)
{
    struct loop_clock c;
    loop_clock_init(d, &c);
    while (!d->stop) {
        /* The clock at every turn's start, not only when a turn may need
         * it (timers/loop_clock.h): the busy cycles, the queue's area and
         * the arrival stamps below count from it. */
        uint64_t now = rte_rdtsc();
        uint32_t first_rec = d->trace.n;
        if (dilated)
            inid_knobs_turn_begin(&d->knobs);
        int n = retry_backlogs(d) + ini_stack_poll(&d->stack, now);
        if (inid_knobs_held(&d->knobs))
            n += deliver_held(d, now);      /* due after ΔL, or offered again by the poll */
        n += retry_stalled(d, now) + poll_pes(d, now) + poll_ports(d, now);
        account_queue(d, &c, now);
        /* what the dilated turn serves arrived from then on (queued while
         * the previous turn waited, or now) */
        uint64_t arrive = dilated && queue_len(d) ? d->queue[d->q_head % INID_QUEUE_SIZE].t_arrive : now;
        n += run_queue(d, now);
        if (d->clk_on)
            n += inid_clock_turn(d);        /* across hosts: at the start and the end only */
        publish_load(d);
        if (dilated && n)
            dilate_turn(d, arrive, now, first_rec);   /* what it made leaves at its end */
        /* Frames a full peer ring refused keep the daemon awake. */
        n += flush_ports(d);
        d->stats.loops++;
        end_turn(d, &c, now, n);
    }
}

int inid_loop(void *arg)
{
    struct inid *d = arg;
    if (d->knobs.dil.factor > 0) {
        d->knobs.dil.poll = dilation_poll;
        d->knobs.dil.poll_ctx = d;
        loop(d, 1);
    } else {
        loop(d, 0);
    }
    return 0;
}

/* ---- the pieces the virtual-time loop runs (inid_vtime.c) ---- */

int inid_turn_retry(struct inid *d, uint64_t now) { return retry_backlogs(d) + retry_stalled(d, now); }
int inid_take_record(struct inid *d, int pe, uint64_t now) { return take_record(d, pe, now); }
int inid_record_room(const struct inid *d, int pe) { return record_room(d, pe); }
int inid_run_queue(struct inid *d, uint64_t now) { return run_queue(d, now); }
int inid_flush(struct inid *d) { return flush_ports(d); }
void inid_publish_load(struct inid *d) { publish_load(d); }

int inid_frame_room(const struct inid *d)
{
    return queue_room(d) > 0 && d->n_stalled + queue_len(d) < INID_QUEUE_SIZE - 1;
}

/* A frame received, into the work queue (the caller checked its room). */
void inid_take_frame(struct inid *d, struct rte_mbuf *m, uint64_t now)
{
    struct work *w = &d->queue[d->q_tail % INID_QUEUE_SIZE];
    w->kind = WORK_IN;
    w->qlen = queue_len(d);
    w->t_arrive = now;
    w->m = m;
    d->q_tail++;
    INI_ASSERT(queue_len(d) <= INID_QUEUE_SIZE);
}
