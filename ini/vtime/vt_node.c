/*
 * vt_node.c - a compute node's events (vt_node.h).
 *
 * The one loop, enter(): state the burst's end and the earliest input,
 * take the turn at the earlier of the two, serve what is due by then
 * (each handler moving the clock and the burst's end on), and again,
 * until the turn comes at the burst's end with nothing due before it.
 * Each wait hands the turn over, so that every event before the node's
 * next one has run, and every input stamped by then is there.
 */
#include "vt_node.h"

#include "ini_assert.h"

void ini_vt_node_start(struct ini_vt_node *n, struct ini_vt_machine *m, uint32_t slot)
{
    *n = (struct ini_vt_node){ .m = m, .slot = slot };
    ini_vt_arrive_computing(m, slot);
}

/* Holding the turn at n->clock: serves every input stamped by then, the
 * earliest first, each handler at the node's clock (the message waited
 * while the node was busy), charged to it with whatever the handler's own
 * sends charged.  A handler moves the clock on; before the next one the
 * node takes the turn again at its new clock, so that every other event
 * before it has run first: a handler may post to another node of its
 * cluster (MGS's DATA to the faulting node) and then to itself (an INV),
 * and the nodes share memory, so the other node's event must not run
 * after this one's later one.  Between two handlers of a node that is
 * still the earliest there is no hand-over (ini_vt_wait_turn).  Returns
 * how many it served, or -1 if the machine stopped; *spent, the cycles. */
static int serve_due(struct ini_vt_node *n, const struct ini_vt_inputs *in, uint64_t *spent)
{
    int served = 0;
    uint64_t start = n->clock, t;
    while (in->earliest(in->ctx) <= n->clock) {
        if (served) {
            if (ini_vt_wait_turn(n->m, n->slot, n->clock, &t) != INI_VT_GRANTED)
                return -1;
            n->clock = t;
        }
        uint64_t h = in->serve(in->ctx, n->clock);
        n->clock = ini_vt_charge(n->m, n->slot, h);
        served++;
    }
    *spent = n->clock - start;
    return served;
}

/* Waits for the turn at the earlier of `next` and the earliest input;
 * the node's clock is the grant's time.  0, or -1 if the machine stopped. */
static int take_turn(struct ini_vt_node *n, uint64_t next, const struct ini_vt_inputs *in)
{
    uint64_t e = in->earliest(in->ctx), t;
    if (ini_vt_wait_turn(n->m, n->slot, e < next ? e : next, &t) != INI_VT_GRANTED)
        return -1;
    INI_ASSERT(t >= n->clock);
    n->clock = t;
    return 0;
}

int ini_vt_node_enter(struct ini_vt_node *n, uint64_t cycles, const struct ini_vt_inputs *in)
{
    uint64_t end = n->clock + cycles, spent;
    for (;;) {
        if (take_turn(n, end, in) < 0)
            return -1;
        uint64_t at = n->clock;
        int served = serve_due(n, in, &spent);
        if (served < 0)
            return -1;
        if (served && at < end) {   /* handlers inside the burst */
            n->interrupts++;
            n->interrupt_cycles += spent;
        }
        end += spent;
        if (n->clock >= end && in->earliest(in->ctx) > n->clock)
            return 0;
    }
}

int ini_vt_node_wait(struct ini_vt_node *n, const struct ini_vt_inputs *in)
{
    uint64_t spent;
    int served;
    do {
        if (take_turn(n, INI_VT_NEVER, in) < 0)
            return -1;
    } while ((served = serve_due(n, in, &spent)) == 0);
    return served < 0 ? -1 : 0;
}

int ini_vt_node_until(struct ini_vt_node *n, uint64_t until, const struct ini_vt_inputs *in, int serve)
{
    uint64_t spent, t;
    if (serve) {
        if (take_turn(n, until, in) < 0)
            return -1;
        return serve_due(n, in, &spent) < 0 ? -1 : 0;
    }
    if (until > n->clock)
        n->clock = ini_vt_charge(n->m, n->slot, until - n->clock);
    if (ini_vt_wait_turn(n->m, n->slot, n->clock, &t) != INI_VT_GRANTED)
        return -1;
    n->clock = t;
    return 0;
}

int ini_vt_node_send(struct ini_vt_node *n, uint32_t to, uint64_t cycles, uint64_t latency)
{
    n->clock = ini_vt_charge(n->m, n->slot, cycles);
    return ini_vt_post(n->m, n->slot, to, n->clock + latency);
}

void ini_vt_node_leave(struct ini_vt_node *n)
{
    /* The node's work (handlers, what it charged holding the turn) took
     * its clock past the time the machine is at: before its host code
     * runs from that clock, every event before it must have run, or one
     * of them (another node of its cluster) could change memory the code
     * reads, earlier in virtual time but later on the host.  So it takes
     * the turn again at its clock; nothing is served, and the clock does
     * not move. */
    uint64_t t;
    if (ini_vt_wait_turn(n->m, n->slot, n->clock, &t) != INI_VT_GRANTED)
        return;                 /* the machine stopped: the node's next call says so */
    n->clock = t;
    ini_vt_compute(n->m, n->slot);
}

void ini_vt_node_stop(struct ini_vt_node *n)
{
    ini_vt_done(n->m, n->slot);
}
