/*
 * mgs_page.c - the page protocol of MGS, run by the protocol thread only.
 *
 * Client side (this cluster's copy of a unit; states in mgs_internal.h)
 *   read fault, INVALID       -> RREQ to the home, FETCHING; DATA -> RO
 *   write fault, INVALID      -> WREQ to the home, FETCHING; DATA -> twin, RW, DUQ
 *   write fault, RO           -> twin, RW, DUQ (no message: the home already
 *                                counts us as a holder, and the release will
 *                                send it what changed)
 *   INV                       -> PROT_NONE first (no thread writes any more),
 *                                then DIFF against the twin (or ACK if clean)
 *   SWGRANT                   -> drop the twin, keep writing: SW
 *   RECALL (SW)               -> read-only, whole unit back: RO
 *   Faults of several threads on one unit share one fetch (the waiters).
 *
 * Home side (the directory of a unit homed here)
 *   copyset, single-writer owner, one transaction at a time (RELEASE: INVs
 *   out, replies counted; RECALL: waiting for the single writer's unit);
 *   requests arriving during a transaction wait on the unit's deferred
 *   queue and are served in order when it ends.
 *   RREQ/WREQ -> DATA (after recalling a single writer); copyset += src
 *   REL       -> if src no longer holds a copy: RACK (its changes arrived
 *                with an earlier INV's DIFF); if src is the only holder:
 *                SWGRANT; else INV to every holder (src included), merge
 *                their DIFFs into the master copy, then RACK.
 *   The home cluster is a client of its own homes like any other: its
 *   copy lives in the application view, the master copy in separate memory,
 *   and messages to itself are queued locally.  Its own writes therefore
 *   fault, are twinned and released like everyone else's.
 *
 * Delayed-update queue (one per cluster): the units this cluster wrote since
 * they were last released.  A flush (before a lock token leaves the cluster,
 * at a barrier) sends REL for each and completes when every RACK/SWGRANT is
 * back; units written meanwhile go on the queue for the next flush.
 *
 * Order: the channel delivers each (source, destination) pair in order, which
 * the protocol relies on: the home sends DATA before any INV to the same
 * cluster, a SWGRANT before the RECALL, and a holder's DIFF/ACK before its
 * next request.
 */
#include "mgs_internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mgs_diff.h"

static inline uint64_t bit(int cluster) { return 1ull << cluster; }

int mgs_page_init(struct mgs *g)
{
    for (size_t u = 0; u < g->n_units; u++)
        g->units[u].sw_owner = -1;
    g->duq_cap = 256;
    g->duq = malloc(g->duq_cap * sizeof *g->duq);
    return g->duq ? 0 : -1;
}

/* ---- delayed-update queue and flushes ------------------------------------- */

static void duq_add(struct mgs *g, uint32_t u)
{
    if (g->units[u].in_duq)
        return;
    if (g->duq_len == g->duq_cap) {
        uint32_t *bigger = realloc(g->duq, 2 * g->duq_cap * sizeof *bigger);
        if (!bigger)
            mgs_fatal("out of memory");
        g->duq = bigger;
        g->duq_cap *= 2;
    }
    g->duq[g->duq_len++] = u;
    g->units[u].in_duq = true;
}

static void duq_remove(struct mgs *g, uint32_t u)
{
    if (!g->units[u].in_duq)
        return;
    g->units[u].in_duq = false;
    for (size_t i = 0; i < g->duq_len; i++)
        if (g->duq[i] == u) {
            g->duq[i] = g->duq[--g->duq_len];
            return;
        }
}

/* Sends REL for every unit on the DUQ, for the releasing node `from`. */
static void start_flush(struct mgs *g, int from)
{
    g->flush.active = true;
    g->flush.from = from;
    g->flush.outstanding = 0;
    g->stats.flushes++;
    for (size_t i = 0; i < g->duq_len; i++) {
        uint32_t u = g->duq[i];
        g->units[u].in_duq = false;
        mgs_send(from, mgs_unit_home_pe(g, u), MGS_M_REL, 0, u, NULL, 0, NULL, 0);
        g->stats.releases++;
        g->flush.outstanding++;
    }
    g->duq_len = 0;
}

/* Units smaller than a page: a unit is made writable when a sibling on its
 * page is written (the page has one protection), so units on the DUQ may
 * never have changed.  Before a flush each such unit goes back to
 * read-only with no REL: the home already counts this cluster as a holder
 * of a copy that is still current.  It is protected before the second
 * comparison, so that no thread can change it behind the comparison; a
 * unit that did change keeps its access and is released. */
static void duq_drop_unchanged(struct mgs *g)
{
    if (g->units_per_page <= 1)
        return;
    for (size_t i = 0; i < g->duq_len;) {
        uint32_t u = g->duq[i];
        struct mgs_unit *U = &g->units[u];
        if (memcmp(U->twin, mgs_sys_unit(g, u), g->unit) != 0) {
            i++;
            continue;
        }
        mgs_protect(u, PROT_READ);
        if (memcmp(U->twin, mgs_sys_unit(g, u), g->unit) != 0) {
            mgs_protect(u, PROT_READ | PROT_WRITE);
            i++;
            continue;
        }
        free(U->twin);
        U->twin = NULL;
        U->state = MGS_RO;
        U->in_duq = false;
        g->duq[i] = g->duq[--g->duq_len];
        g->stats.unchanged_releases++;
    }
}

static void run_conts(struct mgs_cont *list)
{
    /* The list is newest first; run in request order. */
    LIST_REVERSE(list, next);
    while (list) {
        struct mgs_cont *next = list->next;
        mgs_cont_run(list);   /* frees it */
        list = next;
    }
}

static void flush_done(struct mgs *g)
{
    struct mgs_cont *done = g->flush.current, *waiting = g->flush.next;
    g->flush.current = g->flush.next = NULL;
    g->flush.active = false;
    if (waiting)
        duq_drop_unchanged(g);
    if (waiting) {
        if (g->duq_len == 0) {
            /* Nothing was written since: the finished flush covers them. */
            struct mgs_cont *tail = waiting;
            while (tail->next)
                tail = tail->next;
            tail->next = done;
            done = waiting;
        } else {
            g->flush.current = waiting;
            start_flush(g, waiting->from);
        }
    }
    run_conts(done);
}

static void flush_reply(struct mgs *g)
{
    if (!g->flush.active || g->flush.outstanding <= 0)
        mgs_fatal("release acknowledgement without a release in flight");
    mgs_trace_join(g, g->flush.from, MGS_JOIN_FLUSH, (uint32_t)g->stats.flushes, g->flush.outstanding == 1);
    if (--g->flush.outstanding == 0)
        flush_done(g);
}

/* Runs c once every unit written before this call is released. */
void mgs_flush_request(struct mgs_cont *c)
{
    struct mgs *g = mgs_g;
    duq_drop_unchanged(g);
    if (!g->flush.active) {
        if (g->duq_len == 0) {
            c->next = NULL;
            mgs_cont_run(c);
            return;
        }
        c->next = NULL;
        g->flush.current = c;
        start_flush(g, c->from);
    } else if (g->duq_len == 0) {
        /* Everything written before now is in the flush in flight. */
        c->next = g->flush.current;
        g->flush.current = c;
    } else {
        c->next = g->flush.next;
        g->flush.next = c;
    }
}

/* ---- client side ------------------------------------------------------------ */

static void make_twin(struct mgs *g, uint32_t u)
{
    struct mgs_unit *U = &g->units[u];
    U->twin = malloc(g->unit);
    if (!U->twin)
        mgs_fatal("out of memory for a twin");
    memcpy(U->twin, mgs_sys_unit(g, u), g->unit);
}

static void complete_waiters(struct mgs_unit *U)
{
    struct mgs_request *r = U->waiters;
    U->waiters = NULL;
    while (r) {
        struct mgs_request *next = r->next;   /* r is the thread's again once completed */
        mgs_complete(r);
        r = next;
    }
}

/* Whether a unit's state allows the access. */
static bool unit_allows(const struct mgs_unit *U, bool write)
{
    return write ? U->state == MGS_RW || U->state == MGS_SW : U->state >= MGS_RO;
}

/* The unit a fault at unit u is served for.  With units smaller than a
 * page, u may allow the access and still fault, because its page has the
 * most restrictive protection of its units: the first sibling that does
 * not allow it is served instead, and the thread faults again until every
 * unit of the page allows the access (one unit served a fault).  If all
 * do, another thread's fault opened the page meanwhile: u, spurious. */
static uint32_t fault_unit(struct mgs *g, uint32_t u, bool write)
{
    if (g->units_per_page <= 1 || !unit_allows(&g->units[u], write))
        return u;
    uint32_t first = u - u % g->units_per_page;
    for (uint32_t k = first; k < first + g->units_per_page; k++)
        if (!unit_allows(&g->units[k], write)) {
            g->stats.sibling_faults++;
            return k;
        }
    return u;
}

void mgs_page_fault(struct mgs_request *r)
{
    struct mgs *g = mgs_g;
    if (r->unit >= g->n_units)
        mgs_fatal("fault outside the range (unit %u)", r->unit);
    uint32_t u = fault_unit(g, r->unit, r->write);
    struct mgs_unit *U = &g->units[u];
    switch (U->state) {
    case MGS_INVALID:
        if (r->write)
            g->stats.write_faults++;
        else
            g->stats.read_faults++;
        U->state = MGS_FETCHING;
        U->want_write = r->write;
        r->next = U->waiters;
        U->waiters = r;
        mgs_send(mgs_thread_node(g, r->thread), mgs_unit_home_pe(g, u), r->write ? MGS_M_WREQ : MGS_M_RREQ, 0, u,
                 NULL, 0, NULL, 0);
        break;
    case MGS_FETCHING:
        if (r->write)
            g->stats.write_faults++;
        else
            g->stats.read_faults++;
        U->want_write |= r->write;
        r->next = U->waiters;
        U->waiters = r;
        break;
    case MGS_RO:
        if (r->write) {
            g->stats.write_faults++;
            g->stats.upgrades++;
            make_twin(g, u);
            mgs_protect(u, PROT_READ | PROT_WRITE);
            U->state = MGS_RW;
            duq_add(g, u);
        } else {
            g->stats.spurious_faults++;
        }
        mgs_complete(r);
        break;
    default:   /* RW, SW: another thread's fault made it accessible meanwhile */
        g->stats.spurious_faults++;
        mgs_complete(r);
        break;
    }
}

static void client_data(struct mgs *g, struct mgs_msg *m, uint32_t u, struct mgs_unit *U)
{
    if (U->state != MGS_FETCHING || m->len != g->unit)
        mgs_fatal("DATA for unit %u in state %d (%u bytes)", u, U->state, m->len);
    /* The application view is PROT_NONE: nobody sees the unit half written. */
    memcpy(mgs_sys_unit(g, u), m->payload, g->unit);
    if (U->want_write) {
        make_twin(g, u);
        mgs_protect(u, PROT_READ | PROT_WRITE);
        U->state = MGS_RW;
        duq_add(g, u);
    } else {
        mgs_protect(u, PROT_READ);
        U->state = MGS_RO;
    }
    g->stats.pages_fetched++;
    complete_waiters(U);
}

static void client_inv(struct mgs *g, struct mgs_msg *m, uint32_t u, struct mgs_unit *U)
{
    int me = m->to_local, home = m->src_pe;   /* answer from the node it was for, to its sender */
    g->stats.invalidations++;
    if (U->state == MGS_RO) {
        mgs_protect(u, PROT_NONE);
        U->state = MGS_INVALID;
        mgs_send(me, home, MGS_M_ACK, 0, u, NULL, 0, NULL, 0);
        g->stats.clean_acks++;
        return;
    }
    if (U->state != MGS_RW)
        mgs_fatal("INV for unit %u in state %d", u, U->state);
    /* Stop the writers first: after mprotect returns no thread of this
     * process can change the unit, so the diff is exact. */
    mgs_protect(u, PROT_NONE);
    size_t changed = 0;
    size_t dlen = mgs_diff_encode(U->twin, mgs_sys_unit(g, u), g->unit, g->diffbuf, &changed);
    free(U->twin);
    U->twin = NULL;
    duq_remove(g, u);
    U->state = MGS_INVALID;
    if (dlen == 0) {
        mgs_send(me, home, MGS_M_ACK, 0, u, NULL, 0, NULL, 0);
        g->stats.clean_acks++;
        return;
    }
    size_t max_piece = g->max_message - sizeof(struct mgs_hdr), pos = 0;
    while (pos < dlen) {
        size_t piece = mgs_diff_next_piece(g->diffbuf, dlen, pos, max_piece);
        uint16_t last = pos + piece == dlen ? MGS_DIFF_LAST : 0;
        mgs_send(me, home, MGS_M_DIFF, last, u, g->diffbuf + pos, (uint32_t)piece, NULL, 0);
        pos += piece;
    }
    g->stats.diffs_sent++;
    g->stats.diff_bytes += dlen;
    g->stats.diff_changed_bytes += changed;
    if (dlen > g->stats.diff_max_bytes)
        g->stats.diff_max_bytes = dlen;
}

static void client_swgrant(struct mgs *g, uint32_t u, struct mgs_unit *U)
{
    if (U->state != MGS_RW || !U->twin)
        mgs_fatal("SWGRANT for unit %u in state %d", u, U->state);
    /* We are the only holder: our copy is the unit; no twin, no releases
     * until the home recalls it. */
    free(U->twin);
    U->twin = NULL;
    U->state = MGS_SW;
    g->stats.sw_grants++;
    flush_reply(g);
}

static void client_recall(struct mgs *g, struct mgs_msg *m, uint32_t u, struct mgs_unit *U)
{
    if (U->state != MGS_SW)
        mgs_fatal("RECALL for unit %u in state %d", u, U->state);
    mgs_protect(u, PROT_READ);   /* writes after this fault and twin */
    U->state = MGS_RO;
    mgs_send(m->to_local, m->src_pe, MGS_M_RECALL_DATA, 0, u, mgs_sys_unit(g, u), (uint32_t)g->unit, NULL, 0);
    g->stats.sw_recalls++;
}

/* ---- home side ------------------------------------------------------------ */

static bool home_message(struct mgs *g, struct mgs_msg *m);

static void run_deferred(struct mgs *g, uint32_t u)
{
    struct mgs_unit *U = &g->units[u];
    struct mgs_msg *m;
    while (!U->busy && (m = mgs_queue_pop(&U->deferred))) {
        struct mgs_trace_act act;       /* inside the action that ended the transaction */
        mgs_trace_begin_msg(g, &act, m);
        bool kept = home_message(g, m);
        mgs_trace_end(g, &act);
        if (!kept)
            free(m);
    }
}

static bool home_fetch(struct mgs *g, struct mgs_msg *m)
{
    uint32_t u = m->h.arg;
    struct mgs_unit *U = &g->units[u];
    int src = m->h.src;
    if (U->sw_owner >= 0) {
        if (U->sw_owner == src)
            mgs_fatal("fetch of unit %u by its single writer %d", u, src);
        /* The single writer holds the only current copy: recall it, then
         * serve this request first. */
        U->busy = MGS_BUSY_RECALL;
        mgs_send(m->to_local, mgs_unit_pe(g, u, U->sw_owner), MGS_M_RECALL, 0, u, NULL, 0, NULL, 0);
        g->stats.sw_recalls_sent++;
        mgs_queue_push_front(&U->deferred, m);
        return true;
    }
    if (U->copyset & bit(src))
        mgs_fatal("fetch of unit %u by cluster %d, which holds it", u, src);
    mgs_send(m->to_local, m->src_pe, MGS_M_DATA, 0, u, mgs_master_unit(g, u), (uint32_t)g->unit, NULL, 0);
    U->copyset |= bit(src);
    return false;
}

static void home_release(struct mgs *g, struct mgs_msg *m)
{
    uint32_t u = m->h.arg;
    struct mgs_unit *U = &g->units[u];
    int src = m->h.src;
    if (!(U->copyset & bit(src))) {
        /* An INV of another release took src's copy, and its changes,
         * before this REL was served. */
        mgs_send(m->to_local, m->src_pe, MGS_M_RACK, 0, u, NULL, 0, NULL, 0);
        return;
    }
    if (U->sw_owner >= 0)
        mgs_fatal("REL of unit %u by %d while %d is its single writer", u, src, U->sw_owner);
    if (U->copyset == bit(src)) {
        U->sw_owner = (int8_t)src;
        mgs_send(m->to_local, m->src_pe, MGS_M_SWGRANT, 0, u, NULL, 0, NULL, 0);
        g->stats.sw_grants_given++;
        return;
    }
    U->busy = MGS_BUSY_RELEASE;
    U->releaser_pe = m->src_pe;
    U->pending = 0;
    for (int c = 0; c < g->n_clusters; c++)
        if (U->copyset & bit(c)) {
            mgs_send(m->to_local, mgs_unit_pe(g, u, c), MGS_M_INV, 0, u, NULL, 0, NULL, 0);
            g->stats.inv_sent++;
            U->pending++;
        }
}

static void home_collect(struct mgs *g, uint32_t u, int src)
{
    struct mgs_unit *U = &g->units[u];
    if (U->busy != MGS_BUSY_RELEASE || !(U->copyset & bit(src)))
        mgs_fatal("invalidation reply for unit %u from %d unexpected", u, src);
    U->copyset &= ~bit(src);
    mgs_trace_join(g, mgs_unit_node(g, u, g->cluster), MGS_JOIN_RELEASE, u, U->pending == 1);
    if (--U->pending == 0) {
        mgs_send(mgs_unit_node(g, u, g->cluster), U->releaser_pe, MGS_M_RACK, 0, u, NULL, 0, NULL, 0);
        U->busy = MGS_IDLE;
        run_deferred(g, u);
    }
}

/* Returns true if m was kept on a deferred queue. */
static bool home_message(struct mgs *g, struct mgs_msg *m)
{
    uint32_t u = m->h.arg;
    struct mgs_unit *U = &g->units[u];
    switch (m->h.type) {
    case MGS_M_RREQ:
    case MGS_M_WREQ:
    case MGS_M_REL:
        if (U->busy) {
            mgs_queue_push(&U->deferred, m);
            return true;
        }
        if (m->h.type == MGS_M_REL) {
            home_release(g, m);
            return false;
        }
        return home_fetch(g, m);
    case MGS_M_ACK:
        home_collect(g, u, m->h.src);
        return false;
    case MGS_M_DIFF:
        if (U->busy != MGS_BUSY_RELEASE)
            mgs_fatal("DIFF for unit %u outside a release", u);
        if (mgs_diff_apply(mgs_master_unit(g, u), g->unit, m->payload, m->len) != 0)
            mgs_fatal("malformed DIFF for unit %u from %d", u, m->h.src);
        if (m->h.aux & MGS_DIFF_LAST)
            home_collect(g, u, m->h.src);
        return false;
    case MGS_M_RECALL_DATA:
        if (U->busy != MGS_BUSY_RECALL || U->sw_owner != m->h.src || m->len != g->unit)
            mgs_fatal("RECALL_DATA for unit %u from %d unexpected", u, m->h.src);
        memcpy(mgs_master_unit(g, u), m->payload, g->unit);
        U->sw_owner = -1;   /* the writer keeps a read-only copy: still in copyset */
        U->busy = MGS_IDLE;
        run_deferred(g, u);
        return false;
    case MGS_M_SETUP:
        if (m->len != g->unit)
            mgs_fatal("SETUP of %u bytes", m->len);
        memcpy(mgs_master_unit(g, u), m->payload, g->unit);
        mgs_send(m->to_local, m->src_pe, MGS_M_SETUP_ACK, 0, u, NULL, 0, NULL, 0);
        return false;
    }
    mgs_fatal("home: unexpected message type %d", m->h.type);
}

bool mgs_page_message(struct mgs_msg *m)
{
    struct mgs *g = mgs_g;
    if (m->h.arg >= g->n_units)
        mgs_fatal("message %s for unit %u outside the range", mgs_msg_name(m->h.type), m->h.arg);
    /* The unit a client message is about, decoded here for every handler. */
    uint32_t u = m->h.arg;
    struct mgs_unit *U = &g->units[u];
    switch (m->h.type) {
    case MGS_M_DATA:
        client_data(g, m, u, U);
        return false;
    case MGS_M_INV:
        client_inv(g, m, u, U);
        return false;
    case MGS_M_RACK:
        flush_reply(g);
        return false;
    case MGS_M_SWGRANT:
        client_swgrant(g, u, U);
        return false;
    case MGS_M_RECALL:
        client_recall(g, m, u, U);
        return false;
    case MGS_M_SETUP_ACK:
        if (g->setup_acks_pending <= 0)
            mgs_fatal("unexpected SETUP_ACK");
        if (--g->setup_acks_pending == 0 && g->publish_waiter) {
            mgs_complete(g->publish_waiter);
            g->publish_waiter = NULL;
        }
        return false;
    default:
        if (mgs_unit_home(g, m->h.arg) != g->cluster)
            mgs_fatal("%s for unit %u, which is not homed here", mgs_msg_name(m->h.type), m->h.arg);
        return home_message(g, m);
    }
}

/* ---- set-up -------------------------------------------------------------------- */

static bool unit_is_zero(const uint8_t *p, size_t len)
{
    const uint64_t *w = (const uint64_t *)p;
    for (size_t i = 0; i < len / 8; i++)
        if (w[i])
            return false;
    return true;
}

/* Cluster 0: every non-zero unit of the set-up data goes to its home's
 * master copy (masters start zero-filled). */
void mgs_publish(struct mgs_request *r)
{
    struct mgs *g = mgs_g;
    size_t used_units = (g->bump + g->unit - 1) / g->unit;
    int sent = 0;
    for (uint32_t u = 0; u < used_units; u++) {
        const uint8_t *data = mgs_sys_unit(g, u);
        if (unit_is_zero(data, g->unit))
            continue;
        mgs_send(mgs_thread_node(g, r->thread), mgs_unit_home_pe(g, u), MGS_M_SETUP, 0, u, data,
                 (uint32_t)g->unit, NULL, 0);
        sent++;
    }
    if (sent == 0) {
        mgs_complete(r);
        return;
    }
    g->setup_acks_pending = sent;
    g->publish_waiter = r;
}

/* Every unit becomes invalid: the application view loses all access and the
 * set-up contents (a dry run outside cluster 0, already published in
 * cluster 0) are dropped. */
void mgs_enter_protocol_mode(void)
{
    struct mgs *g = mgs_g;
    if (mprotect(g->app, g->size, PROT_NONE) != 0)
        mgs_fatal("mprotect of the range: %m");
    fallocate(g->memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)g->size);
    atomic_store_explicit(&g->protocol_mode, true, memory_order_release);
}
