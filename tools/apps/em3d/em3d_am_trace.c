/*
 * em3d_am_trace.c - the records the message versions of EM3D add to the
 * compute nodes' trace (ini/trace/trace_cn.h) in a traced run, so that
 * `ini-trace whatif` can replay them (docs/traces.md, docs/em3d.md).
 *
 * These versions have no protocol thread: each node runs its own
 * handlers, on its own thread, whenever it waits, and nothing while it
 * computes.  The trace's header says so (INI_CN_HDR_NODE_HANDLERS), and
 * the replay then gives each node a server of its own that takes no
 * action between a request's completion and the node's next request.
 * What a node does is written as MGS writes its protocol thread's work:
 *
 *   actions   every handler run (on the message: a get answered, a value,
 *             a bulk message), and the pick-up of each of the node's own
 *             requests; a send names the action it was made in
 *             (am_send's cause)
 *   requests  per half-step a FILL (get: fetching the ghosts; put, bulk:
 *             waiting for them) and for put and bulk a PUBLISH (the new
 *             values sent); each names the action that completed it and
 *             the node's previous return, so the computing in between is
 *             kept
 *   joins     FILL: every value's action and the pick-up, keyed by node
 *             and half-step, the last one completing the fill (values of
 *             put and bulk may all have come before the fill began).
 * The barrier after each half-step records itself (ini_cn_barrier,
 * ini/cn/cn_barrier.c: its BARRIER request, the joins of the cluster's
 * arrivals and of the release, the other clusters' arrivals as actions).
 *
 * Action and request ids are per cluster (one process), from 1, taken
 * from the library's atomics (ini_cn_trace_action_id, _req_id), which
 * its barrier shares; the node's previous return is the library's too
 * (ini_pe_trace_req).  Each node's thread writes only its own buffer.
 * With tracing off every function returns at once.
 */
#include "em3d_am.h"

#include "trace_cn.h"

void amt_init(struct am_run *r)
{
    r->traced = ini_pe_trace(ini_cn_pe(r->cn, 0)) != NULL;
    if (r->traced)
        ini_cn_trace_model(r->cn, INI_CN_HDR_NODE_HANDLERS);
    for (int l = 0; l < r->n_local; l++)
        r->pe[l].tr = r->traced ? ini_pe_trace(ini_cn_pe(r->cn, l)) : NULL;
}

uint32_t amt_begin(const struct am_run *r, const struct am_pe *s, int kind, int peer, uint32_t ref, struct amt_act *a)
{
    if (!s->tr)
        return 0;
    *a = (struct amt_act){ .id = ini_cn_trace_action_id(r->cn), .t0 = ini_cn_trace_tsc(),
                           .kind = (uint8_t)kind, .peer = (uint16_t)peer, .ref = ref };
    return a->id;
}

void amt_end(const struct am_pe *s, const struct amt_act *a)
{
    if (s->tr)
        ini_cn_trace_action(s->tr, a->kind, (uint16_t)s->id, a->peer, a->id, a->ref, 0, a->t0, ini_cn_trace_tsc());
}

uint32_t amt_req_begin(const struct am_run *r, const struct am_pe *s, uint64_t *submit)
{
    if (!s->tr)
        return 0;
    *submit = ini_cn_trace_tsc();
    return ini_cn_trace_req_id(r->cn);
}

void amt_req_done(const struct am_pe *s, uint32_t id, int kind, uint32_t done, uint64_t submit)
{
    if (s->tr)
        ini_pe_trace_req(s->pe, kind, id, done, submit);
}

void amt_join(const struct am_pe *s, int site, uint32_t key, uint32_t action, int last)
{
    if (s->tr)
        ini_cn_trace_join(s->tr, site, (uint16_t)s->id, key, action, last);
}

uint32_t amt_fill_key(const struct am_pe *s, int kind)
{
    return (uint32_t)s->id << 16 | ((s->fills[kind] * 2u + (uint32_t)kind) & 0xffffu);
}

void amt_cause(const struct am_pe *s, int handler, uint32_t action)
{
    if (s->tr)
        ini_cn_trace_tag(s->tr, (uint8_t)handler, action, 0);
}
