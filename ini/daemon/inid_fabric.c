/*
 * inid_fabric.c - the INI's side of its compute nodes' rings (inid_fabric.h):
 * attaching them, and giving records back in ring order once their
 * messages are done.  Per message: a few stores and, when a prefix is
 * done, one release of the ring (a store the compute node reads); no
 * allocation, lock or system call.
 */
#include "inid_fabric.h"

#include "ini_assert.h"

void inid_fabric_init(struct inid *d)
{
    d->n_pes = (int)d->seg->n_pes;
    for (int p = 0; p < d->n_pes; p++) {
        ini_ring_cons_attach(&d->out[p].cons, ini_segment_ring(d->seg, p, d->local, INI_TO_INI));
        ini_ring_prod_attach(&d->deliver[p], ini_segment_ring(d->seg, p, d->local, INI_TO_PE));
    }
}

/* A record's message has left (or been dropped): marked done in the
 * record (for a restarted INI, inid_state.c), then the prefix of the ring
 * whose records are all done given back. */
void inid_record_done(struct inid *d, int pe, uint32_t slot)
{
    struct out_ring *o = &d->out[pe];
    /* The record is one the INI holds: in flight, between head and tail. */
    INI_ASSERT(pe >= 0 && pe < d->n_pes && slot < INID_RING_INFLIGHT);
    INI_ASSERT(o->tail != o->head && o->tail - o->head <= INID_RING_INFLIGHT);
    o->rec[slot % INID_RING_INFLIGHT]->flags |= INID_REC_DONE;
    o->done[slot % INID_RING_INFLIGHT] = 1;
    uint64_t release = 0;
    while (o->head != o->tail && o->done[o->head % INID_RING_INFLIGHT]) {
        o->done[o->head % INID_RING_INFLIGHT] = 0;
        release = o->end[o->head % INID_RING_INFLIGHT];
        o->head++;
    }
    if (release)
        ini_ring_release_to(&o->cons, release);
}

void inid_transport_release(void *ctx, void *cookie)
{
    uint64_t c = (uint64_t)(uintptr_t)cookie;
    inid_record_done(ctx, inid_cookie_pe(c), inid_cookie_slot(c));
}
