/*
 * loadbal.h - INI scheduling policies (thesis section 3.3).
 *
 * Two decisions are made per message:
 *   - at the source compute node, which INI of its own cluster carries it
 *     (struct ini_lb_pe): static (the PE's assigned INI), round-robin (each
 *     PE cycles over its cluster's INIs) or load-aware (the INI with the
 *     least work ahead: messages submitted and not yet processed, plus the
 *     other work it reports waiting in it, from the counters in the
 *     cluster segment; ties broken round-robin);
 *   - at the sending INI, which INI of the destination cluster receives it
 *     (struct ini_lb_conn): static (by destination PE: the INI that PE is
 *     assigned to), round-robin per destination cluster, or load-aware
 *     (the fewest queued messages as last reported by the peers).
 * Both are a few instructions and touch no lock.
 *
 * The policies sit below the daemon and its configuration: they take plain
 * values (INI ids and counts), and the configuration (ini/config/config.h) names
 * its policies with this file's enum.
 */
#ifndef INI_LOADBAL_H
#define INI_LOADBAL_H

#include <stdatomic.h>
#include <stdint.h>

#include "ini_policy.h"   /* enum ini_policy and the limits, for C and C++ */

struct ini_lb_pe {
    enum ini_policy policy;
    int n_inis;
    int static_local;                 /* local index of the assigned INI */
    uint32_t rr_next;
    /* Per INI of the cluster, in its segment: messages submitted to it by
     * all compute nodes, and messages it has processed. */
    _Atomic uint64_t *submitted[INI_LB_MAX_CHOICES];
    _Atomic uint64_t *processed[INI_LB_MAX_CHOICES];
    _Atomic uint32_t *inbound[INI_LB_MAX_CHOICES];    /* its inbound work waiting */
};

/* Work INI i has ahead of a new message: messages given and not yet
 * processed, and the inbound work it has queued. */
static inline uint64_t ini_lb_load(const struct ini_lb_pe *lb, int i)
{
    uint64_t p = atomic_load_explicit(lb->processed[i], memory_order_relaxed);
    uint64_t s = atomic_load_explicit(lb->submitted[i], memory_order_relaxed);
    return (s > p ? s - p : 0) + atomic_load_explicit(lb->inbound[i], memory_order_relaxed);
}

/* Local index (within the cluster) of the INI that carries the next message. */
static inline int ini_lb_pe_pick(struct ini_lb_pe *lb)
{
    switch (lb->policy) {
    case INI_POLICY_ROUND_ROBIN: {
        int i = (int)(lb->rr_next++ % (uint32_t)lb->n_inis);
        return i;
    }
    case INI_POLICY_LOAD_AWARE: {
        int start = (int)(lb->rr_next++ % (uint32_t)lb->n_inis);
        int best = start;
        uint64_t best_load = ini_lb_load(lb, start);
        for (int k = 1; k < lb->n_inis && best_load > 0; k++) {
            int i = (start + k) % lb->n_inis;
            uint64_t l = ini_lb_load(lb, i);
            if (l < best_load) {
                best = i;
                best_load = l;
            }
        }
        return best;
    }
    case INI_POLICY_STATIC:
    default:
        return lb->static_local;
    }
}

/* INI-side choice of the receiving INI in a destination cluster. */
struct ini_lb_conn {
    enum ini_policy policy;
    uint32_t rr_next[INI_LB_MAX_CLUSTERS];
    uint32_t peer_load[INI_LB_MAX_INIS];  /* last load each peer reported */
};

/* Global id of the INI of destination cluster `cluster` that should
 * receive the next message: the cluster's n_inis INIs are inis[] (global
 * ids), and the destination PE is assigned to static_ini (static policy). */
static inline int ini_lb_conn_pick(struct ini_lb_conn *lb, int cluster, const int *inis, int n_inis,
                                   int static_ini)
{
    switch (lb->policy) {
    case INI_POLICY_ROUND_ROBIN:
        return inis[lb->rr_next[cluster]++ % (uint32_t)n_inis];
    case INI_POLICY_LOAD_AWARE: {
        int start = (int)(lb->rr_next[cluster]++ % (uint32_t)n_inis);
        int best = inis[start];
        for (int k = 1; k < n_inis; k++) {
            int id = inis[(start + k) % n_inis];
            if (lb->peer_load[id] < lb->peer_load[best])
                best = id;
        }
        return best;
    }
    case INI_POLICY_STATIC:
    default:
        return static_ini;
    }
}

#endif
