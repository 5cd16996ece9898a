/*
 * cn_barrier.c - the global barrier of the compute nodes (ini_cn.h,
 * ini_cn_barrier), for any program on the compute-node API.
 *
 * Barrier n, on each node's thread:
 *   1. the cluster's nodes meet: an atomic count in the process; the last
 *      to arrive resets it, moves the generation on and kicks the others
 *      (ini_pe_kick), who wait for the generation to change;
 *   2. the cluster's first node (local 0) sends n to every other
 *      cluster's first node (one message each, handler
 *      INI_CN_BARRIER_HANDLER) and waits until every other cluster's n
 *      has come (ini_cn_barrier_on_arrive counts them, on its thread);
 *   3. the cluster's nodes meet again, so none leaves before its first
 *      node knows every cluster arrived.
 * Arrivals are counted by n % 2: a cluster released from barrier n may
 * arrive at n + 1 (and send its arrival) before a slower cluster has
 * left n, never at n + 2, which needs the slower cluster's arrival at
 * n + 1.  Every wait runs the node's handlers.
 *
 * The trace (trace_cn.h), when the run is traced, follows the model in
 * which each node runs its own handlers: the barrier is the node's
 * blocking request (INI_CN_REQ_BARRIER); its pick-up is an ACTION whose
 * id is the node's contribution to the join of the cluster's arrivals;
 * the last arrival's action is the cause of the arrival messages and
 * the cluster's own contribution to the release's join, whose other
 * contributions are the actions of the other clusters' arrivals; the
 * last contribution completes every node's request.  No allocation, lock
 * or system call beyond the waits' and the sends'.
 */
#include "cn_sync.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "trace_cn.h"

#define WAIT_US 1000   /* one wait's limit: the stall limit is checked between waits */

/* A node's wait for barrier progress: 0, or -1 with errno EPIPE (the
 * INIs stopped) or ETIMEDOUT (no progress since *since for stall_us). */
static int wait_step(struct ini_pe *pe, uint64_t stall_us, uint64_t progress, uint64_t *last, uint64_t *since)
{
    if (progress != *last) {
        *last = progress;
        *since = ini_mono_ns();
    }
    if (ini_wait(pe, WAIT_US) < 0) {
        errno = EPIPE;
        return -1;
    }
    if (stall_us && ini_mono_ns() - *since > stall_us * 1000u) {
        errno = ETIMEDOUT;
        return -1;
    }
    return 0;
}

/* Virtual time: node pe is told the meeting is over. */
static void on_woken(struct ini_pe *pe, struct ini_vt_event *ev)
{
    (void)ev;
    ini_pe_sync(pe)->woken = 1;
}

/* The last arrival releases the others: a kick, or in virtual time an
 * event each (the node holds its turn: barrier_run). */
static void release_others(struct ini_pe *pe)
{
    struct ini_cn *cn = ini_pe_cn(pe);
    int vt = ini_cn_vtime_hz(cn) > 0;
    for (int l = 0; l < ini_cn_sync(cn)->n_local; l++) {
        if (l == ini_pe_local(pe))
            continue;
        struct ini_pe *other = ini_cn_pe(cn, l);
        if (!vt) {
            ini_pe_kick(other);
            continue;
        }
        ini_pe_sync(other)->wake.fn = on_woken;
        ini_vt_post_local(pe, other, 0, &ini_pe_sync(other)->wake);
    }
}

/* Step 1 or 3: the cluster's nodes meet.  act, n: traced, this node's
 * arrival at barrier n (its join contribution; the last arrival's action
 * is left in last_arrival for the first node); act 0: the second
 * meeting, not recorded. */
static int meet(struct ini_pe *pe, uint64_t stall_us, uint32_t act, uint32_t n)
{
    struct ini_cn *cn = ini_pe_cn(pe);
    struct cn_sync *s = ini_cn_sync(cn);
    unsigned gen = atomic_load(&s->gen);
    unsigned arrived = atomic_fetch_add(&s->count, 1) + 1;
    int last = arrived == (unsigned)s->n_local;
    if (act)        /* traced */
        ini_cn_trace_join_at(cn_pe_trace(pe), INI_CN_SITE_BARRIER_ARRIVALS, (uint16_t)ini_pe_id(pe), n, act, last,
                             cn_trace_now(pe));
    if (last) {
        if (act)
            atomic_store(&s->last_arrival, act);
        atomic_store(&s->count, 0);
        atomic_fetch_add(&s->gen, 1);
        release_others(pe);
        return 0;
    }
    uint64_t last_seen = 0, since = ini_mono_ns();
    if (ini_cn_vtime_hz(cn) > 0) {      /* its own wake event, not the generation: the event's storage is reused */
        while (!ini_pe_sync(pe)->woken)
            if (wait_step(pe, stall_us, 0, &last_seen, &since) != 0)
                return -1;
        ini_pe_sync(pe)->woken = 0;
        return 0;
    }
    while (atomic_load(&s->gen) == gen)
        if (wait_step(pe, stall_us, 0, &last_seen, &since) != 0)
            return -1;
    return 0;
}

/* Sends barrier n's arrival to every other cluster's first node, the
 * sends naming action `cause`; the node's trace tag is kept. */
static int send_arrivals(struct ini_pe *pe, uint32_t n, uint32_t cause)
{
    const struct cn_sync *s = ini_cn_sync(ini_pe_cn(pe));
    struct ini_cn_trace *tr = cn_pe_trace(pe);
    uint8_t tag = tr ? tr->next_tag : 0;
    uint32_t was_cause = tr ? tr->next_cause : 0, arg = tr ? tr->next_arg : 0;
    ini_cn_trace_tag(tr, (uint8_t)INI_CN_BARRIER_HANDLER, cause, 0);
    int rc = 0;
    for (int c = 0; c < s->n_clusters && rc == 0; c++)
        if (c != s->cluster && ini_send(pe, s->leader[c], INI_CN_BARRIER_HANDLER, &n, sizeof n) != 0)
            rc = -1;   /* errno: ini_send's */
    ini_cn_trace_tag(tr, tag, was_cause, arg);
    return rc;
}

/* Step 2, on the cluster's first node: tell the other clusters, wait for
 * theirs, and leave the releasing action in release. */
static int leader_round(struct ini_pe *pe, uint64_t stall_us, uint32_t n)
{
    struct cn_sync *s = ini_cn_sync(ini_pe_cn(pe));
    struct pe_sync *p = ini_pe_sync(pe);
    const uint64_t others = (uint64_t)(s->n_clusters - 1);
    uint32_t local = atomic_load(&s->last_arrival);   /* the cluster's last arrival (traced) */
    if (send_arrivals(pe, n, local) != 0)
        return -1;
    /* The release's join: the cluster's arrivals, then the others'
     * (on_arrive); whichever comes last lets the cluster go on. */
    p->local_in = n + 1;
    int done = p->arrived[n % 2] >= others;
    if (cn_pe_trace(pe))
        ini_cn_trace_join_at(cn_pe_trace(pe), INI_CN_SITE_BARRIER_RELEASE, (uint16_t)ini_pe_id(pe), n, local, done,
                             cn_trace_now(pe));
    if (done)
        p->done = local;
    uint64_t last = UINT64_MAX, since = 0;
    while (p->arrived[n % 2] < others)
        if (wait_step(pe, stall_us, p->arrived[n % 2], &last, &since) != 0)
            return -1;
    p->arrived[n % 2] -= others;
    atomic_store(&s->release, p->done);
    return 0;
}

void ini_cn_barrier_on_arrive(struct ini_pe *pe, int src_pe, const void *data, uint32_t len, void *arg)
{
    struct ini_cn *cn = arg;
    const struct cn_sync *s = ini_cn_sync(cn);
    struct pe_sync *p = ini_pe_sync(pe);
    uint32_t n;
    if (len != sizeof n || ini_pe_local(pe) != 0) {
        fprintf(stderr, "ini: PE %d: bad barrier message from PE %d (%u bytes) dropped\n", ini_pe_id(pe), src_pe,
                len);
        return;
    }
    memcpy(&n, data, sizeof n);
    struct ini_cn_trace *tr = cn_pe_trace(pe);
    uint32_t act = tr ? ini_cn_trace_action_id(cn) : 0;
    uint64_t t0 = tr ? cn_trace_now(pe) : 0;
    p->arrived[n % 2]++;
    /* The last contribution lets the cluster go on, once its own
     * arrivals are in (leader_round). */
    int last = p->local_in == n + 1 && p->arrived[n % 2] == (uint64_t)(s->n_clusters - 1);
    if (tr)
        ini_cn_trace_join_at(tr, INI_CN_SITE_BARRIER_RELEASE, (uint16_t)ini_pe_id(pe), n, act, last, cn_trace_now(pe));
    if (last)
        p->done = act;
    if (tr)
        ini_cn_trace_action(tr, INI_CN_ACT_MSG, (uint16_t)ini_pe_id(pe), (uint16_t)src_pe, act,
                            ini_pe_handling_seq(pe), 0, t0, cn_trace_now(pe));
}

static int barrier_run(struct ini_pe *pe, uint64_t stall_us)
{
    struct ini_cn *cn = ini_pe_cn(pe);
    struct pe_sync *p = ini_pe_sync(pe);
    struct ini_cn_trace *tr = cn_pe_trace(pe);
    uint32_t n = p->barriers++;
    /* traced: the request and its pick-up, the node's arrival */
    uint32_t req = 0, act = 0;
    uint64_t submit = 0;
    if (tr) {
        submit = cn_trace_now(pe);
        req = ini_cn_trace_req_id(cn);
        act = ini_cn_trace_action_id(cn);
        uint64_t t0 = cn_trace_now(pe);   /* read first: arguments have no order of evaluation */
        ini_cn_trace_action(tr, INI_CN_ACT_REQ, (uint16_t)ini_pe_id(pe), (uint16_t)ini_pe_id(pe), act, req, 0, t0,
                            cn_trace_now(pe));
    }
    if (meet(pe, stall_us, act, n) != 0)
        return -1;
    if (ini_pe_local(pe) == 0 && leader_round(pe, stall_us, n) != 0)
        return -1;
    if (meet(pe, stall_us, 0, 0) != 0)
        return -1;
    if (tr)
        ini_pe_trace_req(pe, INI_CN_REQ_BARRIER, req, atomic_load(&ini_cn_sync(cn)->release), submit);
    return 0;
}

/* Traced for a program the library records (cn_trace.c): the sends before
 * it end, and its waits and sends are the barrier's, not the program's. */
int ini_cn_barrier(struct ini_pe *pe, uint64_t stall_us)
{
    /* Virtual time: the barrier is the node's event, its turn held
     * throughout, so that the cluster's arrivals come in virtual-time
     * order and each wait serves the node's inputs. */
    int vt = ini_cn_vtime_hz(ini_pe_cn(pe)) > 0;
    if (vt && ini_pe_hold(pe) != 0)
        return -1;
    struct cn_auto_trace *at = cn_pe_auto(pe);
    if (at) {
        cn_auto_program_end(pe);
        at->in_library = 1;
    }
    int rc = barrier_run(pe, stall_us);
    if (at)
        at->in_library = 0;
    if (vt)
        ini_pe_release(pe);
    return rc;
}
