/*
 * mgs_sync.c - locks and barriers, run by the protocol thread.
 *
 * Locks are hierarchical.  Each lock has one token; the cluster holding it
 * grants the lock to its own threads by hand-off (no message).  Between
 * clusters the token travels along a distributed queue kept by the lock's
 * home node, which remembers only the last node the token was promised to
 * (`tail_pe`):
 *     node N of cluster C wants the lock   LOCK_REQ -> home node
 *     home node                            LOCK_FWD(N) -> tail; tail = N
 *     tail, when its threads are done (or at once if idle):
 *                                          flush the DUQ, then TOKEN -> N
 * Each message is sent for a compute node (mgs_send): the requesting
 * thread's node, the node that held the lock last, the home node.
 * The flush before the token leaves is the release: every unit the cluster
 * wrote is released (its other copies invalidated, diffs merged at the homes)
 * before another cluster can acquire, so the acquirer faults and fetches
 * current data.  Hand-offs inside a cluster need no flush: the threads share
 * the memory.  While another cluster waits, at most MGS_LOCK_HANDOFF_BOUND
 * local hand-offs happen before the token leaves, so no cluster starves.
 *
 * Barriers: local threads arrive; when the last one has, the cluster flushes
 * its DUQ (the release), then sends ARRIVE to cluster 0 (with the threads'
 * values for a summing barrier).  Cluster 0 sends GO when every cluster has
 * arrived.  No acquire work is needed: every stale copy was invalidated by
 * the releases before the ARRIVEs went out.  Sums are added in thread order,
 * left to right, the way par_threads.c does it, so results are bit-identical
 * whatever the cluster layout.
 */
#include "mgs_internal.h"

#include <stdlib.h>
#include <string.h>

int mgs_locks_init(unsigned nlocks)
{
    struct mgs *g = mgs_g;
    free(g->locks);
    g->locks = calloc(nlocks ? nlocks : 1, sizeof *g->locks);
    if (!g->locks)
        return -1;
    g->nlocks = nlocks;
    for (unsigned l = 0; l < nlocks; l++) {
        struct mgs_lock *L = &g->locks[l];
        int home = mgs_lock_home(g, l);
        L->have_token = home == g->cluster;
        L->tail_pe = (int16_t)mgs_lock_home_pe(g, l);
        L->next_pe = -1;
        L->last_local = (int16_t)((l / (unsigned)g->n_clusters) % (unsigned)g->local_threads[g->cluster]);
    }
    return 0;
}

/* ---- locks ------------------------------------------------------------------ */

static void grant_first_waiter(struct mgs_lock *L)
{
    struct mgs_request *r = L->wait_head;
    L->wait_head = r->next;
    if (!L->wait_head)
        L->wait_tail = NULL;
    L->held = true;
    L->last_local = (int16_t)mgs_thread_node(mgs_g, r->thread);
    mgs_complete(r);
}

static void token_depart(struct mgs *g, uint32_t l)
{
    struct mgs_lock *L = &g->locks[l];
    L->departing = true;
    struct mgs_cont *c = malloc(sizeof *c);
    if (!c)
        mgs_fatal("out of memory");
    c->kind = MGS_CONT_TOKEN;
    c->arg = l;
    c->from = L->last_local;
    mgs_flush_request(c);
}

/* The lock is free here: keep it local, or let the token go. */
static void lock_pass_on(struct mgs *g, uint32_t l)
{
    struct mgs_lock *L = &g->locks[l];
    if (!L->have_token || L->held || L->departing)
        return;
    if (L->next_pe >= 0 && (!L->wait_head || L->handoffs >= MGS_LOCK_HANDOFF_BOUND)) {
        token_depart(g, l);
        return;
    }
    if (L->wait_head) {
        L->handoffs++;
        g->stats.lock_local_handoffs++;
        grant_first_waiter(L);
    }
}

/* Asks the lock's home node for the token, for the first waiting node. */
static void request_token(struct mgs *g, uint32_t l)
{
    struct mgs_lock *L = &g->locks[l];
    if (L->have_token || L->requested)
        return;
    L->requested = true;
    mgs_send(mgs_thread_node(g, L->wait_head->thread), mgs_lock_home_pe(g, l), MGS_M_LOCK_REQ, 0, l, NULL, 0,
             NULL, 0);
}

static void lock_acquire(struct mgs *g, struct mgs_request *r)
{
    struct mgs_lock *L = &g->locks[r->lock];
    g->stats.lock_acquires++;
    if (L->have_token && !L->held && !L->departing && !L->wait_head) {
        L->held = true;
        L->last_local = (int16_t)mgs_thread_node(g, r->thread);
        mgs_complete(r);
        return;
    }
    r->next = NULL;
    FIFO_APPEND(L->wait_head, L->wait_tail, r, next);
    request_token(g, r->lock);
}

static void lock_release(struct mgs *g, struct mgs_request *r)
{
    uint32_t l = r->lock;
    struct mgs_lock *L = &g->locks[l];
    if (!L->held || !L->have_token) {
        r->error = 1;
        mgs_complete(r);
        return;
    }
    L->held = false;
    mgs_complete(r);
    lock_pass_on(g, l);
}

/* The flush before the token's departure is done: send it. */
static void token_send(struct mgs *g, uint32_t l)
{
    struct mgs_lock *L = &g->locks[l];
    int to = L->next_pe;
    L->next_pe = -1;
    L->have_token = false;
    L->departing = false;
    mgs_send(L->last_local, to, MGS_M_TOKEN, 0, l, NULL, 0, NULL, 0);
    g->stats.lock_token_departures++;
    if (L->wait_head)
        request_token(g, l);   /* threads that came during the flush */
}

/* ---- barriers ------------------------------------------------------------------ */

static void barrier_arrive(struct mgs *g, struct mgs_request *r)
{
    struct mgs_barrier_state *B = &g->bar;
    bool per_cluster = r->kind == MGS_REQ_CLUSTER_BARRIER;
    int expected = per_cluster ? 1 : g->local_threads[g->cluster];
    if (!per_cluster && (r->thread < g->thread_base[g->cluster] ||
                         r->thread >= g->thread_base[g->cluster] + expected))
        mgs_fatal("barrier by thread %d, not a compute thread of this cluster", r->thread);
    r->t_start = mgs_now_us();
    if (B->arrived == 0) {
        B->per_cluster = per_cluster;
        B->expected = expected;
        B->count = r->count;
        B->t_first = r->t_start;
    } else if (B->per_cluster != per_cluster || B->count != r->count) {
        mgs_fatal("barrier: threads arrived with different kinds or sum lengths");
    }
    r->next = B->waiters;
    B->waiters = r;
    if (++B->arrived == B->expected) {
        struct mgs_cont *c = malloc(sizeof *c);
        if (!c)
            mgs_fatal("out of memory");
        c->kind = MGS_CONT_ARRIVE;
        c->arg = B->epoch;
        c->from = B->last_local = mgs_thread_node(g, r->thread);
        mgs_flush_request(c);
    }
}

/* Released: tell cluster 0, with the values in thread order. */
static void barrier_send_arrive(struct mgs *g)
{
    struct mgs_barrier_state *B = &g->bar;
    int count = B->count;
    int participants = B->expected;
    /* Packed participant-major, `count` values each, in thread order. */
    double packed[INI_MAX_PES_PER_CLUSTER * MGS_SUM_MAX];
    for (struct mgs_request *r = B->waiters; r; r = r->next) {
        int slot = B->per_cluster ? 0 : r->thread - g->thread_base[g->cluster];
        if (count)
            memcpy(packed + slot * count, r->values, (size_t)count * sizeof(double));
    }
    /* aux: sum length in the low byte; bit 15 set for a per-cluster barrier. */
    uint16_t flags = (uint16_t)(count | (B->per_cluster ? 0x8000 : 0));
    mgs_send(B->last_local, mgs_node_pe(g, 0, 0), MGS_M_ARRIVE, flags, B->epoch, packed, (uint32_t)(participants * count * sizeof(double)),
             NULL, 0);
}

static void master_arrive(struct mgs *g, struct mgs_msg *m)
{
    struct mgs_barrier_state *B = &g->bar;
    bool per_cluster = (m->h.aux & 0x8000) != 0;
    int count = m->h.aux & 0xff;
    int src = m->h.src;
    if (B->clusters_arrived == 0) {
        B->participants = per_cluster ? g->n_clusters : g->total_threads;
        B->master_count = count;
        free(B->table);
        B->table = calloc((size_t)B->participants * MGS_SUM_MAX, sizeof(double));
        if (!B->table)
            mgs_fatal("out of memory");
    }
    B->go_pe[src] = m->src_pe;   /* GO answers the node that arrived */
    int first = per_cluster ? src : g->thread_base[src];
    int n = per_cluster ? 1 : g->local_threads[src];
    if (count != B->master_count || (per_cluster ? g->n_clusters : g->total_threads) != B->participants ||
        m->len != (uint32_t)(n * count) * sizeof(double))
        mgs_fatal("barrier: cluster %d arrived with a different kind or sum length", src);
    for (int p = 0; p < n; p++)
        memcpy(B->table + (size_t)(first + p) * MGS_SUM_MAX, m->payload + (size_t)p * count * sizeof(double),
               (size_t)count * sizeof(double));
    if (++B->clusters_arrived < g->n_clusters)
        return;
    double sums[MGS_SUM_MAX];
    for (int k = 0; k < count; k++) {
        double total = B->table[k];
        for (int p = 1; p < B->participants; p++)
            total = total + B->table[(size_t)p * MGS_SUM_MAX + k];
        sums[k] = total;
    }
    B->clusters_arrived = 0;
    for (int c = 0; c < g->n_clusters; c++)
        mgs_send(m->to_local, B->go_pe[c], MGS_M_GO, (uint16_t)count, m->h.arg, sums, (uint32_t)(count * sizeof(double)), NULL, 0);
}

static void barrier_go(struct mgs *g, struct mgs_msg *m)
{
    struct mgs_barrier_state *B = &g->bar;
    if (m->h.arg != B->epoch || B->arrived != B->expected || (int)m->h.aux != B->count)
        mgs_fatal("GO for barrier %u unexpected (at %u, %d of %d arrived)", m->h.arg, B->epoch, B->arrived,
                  B->expected);
    uint64_t now = mgs_now_us();
    uint64_t span = now - B->t_first;
    g->stats.barriers++;
    g->stats.barrier_wait_us += span;
    if (span > g->stats.barrier_max_us)
        g->stats.barrier_max_us = span;
    struct mgs_request *r = B->waiters;
    B->waiters = NULL;
    B->arrived = 0;
    B->epoch++;
    while (r) {
        struct mgs_request *next = r->next;
        if (B->count)
            memcpy(r->values, m->payload, (size_t)B->count * sizeof(double));
        mgs_complete(r);
        r = next;
    }
}

/* ---- dispatch -------------------------------------------------------------------- */

void mgs_sync_request(struct mgs_request *r)
{
    struct mgs *g = mgs_g;
    switch (r->kind) {
    case MGS_REQ_LOCK:
        lock_acquire(g, r);
        break;
    case MGS_REQ_UNLOCK:
        lock_release(g, r);
        break;
    default:
        barrier_arrive(g, r);
        break;
    }
}

void mgs_sync_message(struct mgs_msg *m)
{
    struct mgs *g = mgs_g;
    uint32_t l = m->h.arg;
    if ((m->h.type == MGS_M_LOCK_REQ || m->h.type == MGS_M_LOCK_FWD || m->h.type == MGS_M_TOKEN) &&
        l >= g->nlocks)
        mgs_fatal("%s for lock %u (%u locks)", mgs_msg_name(m->h.type), l, g->nlocks);
    switch (m->h.type) {
    case MGS_M_LOCK_REQ: {
        struct mgs_lock *L = &g->locks[l];
        if (mgs_lock_home(g, l) != g->cluster || g->pe_cluster[L->tail_pe] == m->h.src)
            mgs_fatal("LOCK_REQ for lock %u from %d unexpected", l, m->h.src);
        mgs_send(m->to_local, L->tail_pe, MGS_M_LOCK_FWD, (uint16_t)m->src_pe, l, NULL, 0, NULL, 0);
        L->tail_pe = m->src_pe;
        break;
    }
    case MGS_M_LOCK_FWD: {
        struct mgs_lock *L = &g->locks[l];
        if (L->next_pe >= 0)
            mgs_fatal("LOCK_FWD for lock %u: already promised to PE %d", l, L->next_pe);
        if (m->h.aux >= INI_MAX_PES || g->pe_cluster[m->h.aux] == g->cluster)
            mgs_fatal("LOCK_FWD for lock %u names PE %u", l, m->h.aux);
        L->next_pe = (int16_t)m->h.aux;
        lock_pass_on(g, l);
        break;
    }
    case MGS_M_TOKEN: {
        struct mgs_lock *L = &g->locks[l];
        if (L->have_token)
            mgs_fatal("TOKEN for lock %u, which is here", l);
        L->have_token = true;
        L->requested = false;
        L->handoffs = 0;
        if (L->wait_head) {
            g->stats.lock_remote_acquires++;
            grant_first_waiter(L);
        } else {
            lock_pass_on(g, l);
        }
        break;
    }
    case MGS_M_ARRIVE:
        if (g->cluster != 0)
            mgs_fatal("ARRIVE at cluster %d", g->cluster);
        master_arrive(g, m);
        break;
    case MGS_M_GO:
        barrier_go(g, m);
        break;
    }
}

void mgs_cont_run(struct mgs_cont *c)
{
    struct mgs *g = mgs_g;
    switch (c->kind) {
    case MGS_CONT_TOKEN:
        token_send(g, c->arg);
        break;
    case MGS_CONT_ARRIVE:
        barrier_send_arrive(g);
        break;
    }
    free(c);
}
