/*
 * mgs_trace.c - the records MGS adds to the compute nodes' trace
 * (ini/trace/trace_cn.h) in a traced run, so that `ini-trace whatif` can replay
 * the run with other INIs: what each message was sent in reply to, when
 * the compute threads waited and for what.
 *
 * Everything here runs on the protocol thread, which owns every compute
 * node's endpoint and so every node's trace buffer (a record goes into the
 * buffer of the node it concerns).  An action is the protocol thread's
 * work on one message or one request; it gets a name (a number per
 * cluster, from 1) when it begins, every message sent while it runs is
 * tagged with it as its cause, and its record is written when it ends.  A
 * request's record is written when it completes, naming the action that
 * completed it.  Joins (mgs_internal.h's sites) mark what waited for
 * several events: the replay lets the last contribution's action go on
 * only after every contribution of its group.
 *
 * In virtual time there is no protocol thread: each node runs the actions
 * on its own messages and requests, on its own thread holding its turn,
 * and the file's header says so (INI_CN_HDR_NODE_HANDLERS, with the
 * library's INI_CN_HDR_VIRTUAL), for the replay's node mode.  Every stamp
 * is then the acting node's virtual clock (ini_pe_trace_now), the clock of
 * the library's own records and of the INIs' traces, so the tools join
 * them; a record's node is the node that acted (a local message held for
 * its order is handled by another node than it was sent to: mgs_vtime.c).
 *
 * With tracing off (g->tr.on false) every function returns at once.
 */
#include "mgs_internal.h"

#include "trace_cn.h"

void mgs_trace_init(struct mgs *g)
{
    g->tr.on = g->cn && g->n_pes > 0 && ini_pe_trace(g->pes[0]) != NULL;
    g->tr.next_action = g->tr.next_req = g->tr.next_local = 1;
    g->tr.action = 0;
    if (g->tr.on && g->vt.on)
        ini_cn_trace_model(g->cn, INI_CN_HDR_NODE_HANDLERS);
}

uint64_t mgs_trace_now(struct mgs *g)
{
    return g->vt.on ? ini_pe_trace_now(g->pes[mgs_vt_self()]) : ini_cn_trace_tsc();
}

static struct ini_cn_trace *node_trace(struct mgs *g, int node)
{
    return ini_pe_trace(g->pes[node >= 0 && node < g->n_pes ? node : 0]);
}

void mgs_trace_begin(struct mgs *g, struct mgs_trace_act *a, int kind, int node, int src_pe, uint32_t ref)
{
    if (!g->tr.on)
        return;
    if (g->vt.on)
        node = mgs_vt_self();
    *a = (struct mgs_trace_act){
        .id = g->tr.next_action++, .parent = g->tr.action, .ref = ref,
        .t0 = mgs_trace_now(g), .kind = kind, .node = node, .src_pe = src_pe,
    };
    g->tr.action = a->id;
}

void mgs_trace_end(struct mgs *g, const struct mgs_trace_act *a)
{
    if (!g->tr.on)
        return;
    g->tr.action = a->parent;
    ini_cn_trace_action(node_trace(g, a->node), a->kind, (uint16_t)mgs_node_pe(g, g->cluster, a->node),
                        (uint16_t)a->src_pe, a->id, a->ref, a->parent, a->t0, mgs_trace_now(g));
}

void mgs_trace_begin_msg(struct mgs *g, struct mgs_trace_act *a, const struct mgs_msg *m)
{
    int local = g->pe_cluster[m->src_pe] == g->cluster;
    mgs_trace_begin(g, a, local ? INI_CN_ACT_LOCAL : INI_CN_ACT_MSG, m->to_local, m->src_pe, m->trace_seq);
}

void mgs_trace_begin_req(struct mgs *g, struct mgs_trace_act *a, struct mgs_request *r)
{
    if (!g->tr.on)
        return;
    r->trace_id = g->tr.next_req++;
    mgs_trace_begin(g, a, INI_CN_ACT_REQ, mgs_thread_node(g, r->thread),
                    mgs_node_pe(g, g->cluster, mgs_thread_node(g, r->thread)), r->trace_id);
}

void mgs_trace_req_done(struct mgs *g, const struct mgs_request *r)
{
    if (!g->tr.on || r->trace_id == 0)
        return;
    int node = mgs_thread_node(g, r->thread);
    ini_cn_trace_req(node_trace(g, node), r->kind, (uint16_t)mgs_node_pe(g, g->cluster, node), r->trace_id,
                     g->tr.action, (uint32_t)r->thread, r->t_submit, mgs_trace_now(g), r->t_resumed);
}

void mgs_trace_join(struct mgs *g, int node, int site, uint32_t key, bool last)
{
    if (!g->tr.on)
        return;
    ini_cn_trace_join_at(node_trace(g, node), site, (uint16_t)mgs_node_pe(g, g->cluster, node), key,
                         g->tr.action, last, mgs_trace_now(g));
}

void mgs_trace_tag(struct mgs *g, int from, int type, uint32_t arg)
{
    if (g->tr.on)
        ini_cn_trace_tag(node_trace(g, from), (uint8_t)type, g->tr.action, arg);
}

uint32_t mgs_trace_local_send(struct mgs *g, int from, int to_pe, int type, uint32_t arg, uint32_t len)
{
    if (!g->tr.on)
        return 0;
    uint32_t seq = g->tr.next_local++;
    struct ini_cn_trace *t = node_trace(g, from);
    /* In virtual time the message leaves at the node's clock, before the
     * handler's declared cycles (ini_vt_post_local), not after them: the
     * node's clock, so that it is never stamped after its receiver's action. */
    uint64_t at = g->vt.on ? ini_pe_vtime(g->pes[mgs_vt_self()]) + INI_TRACE_VT_ORIGIN : ini_cn_trace_tsc();
    ini_cn_trace_tag(t, (uint8_t)type, g->tr.action, arg);
    ini_cn_trace_send(t, (uint16_t)mgs_node_pe(g, g->cluster, from), (uint16_t)to_pe, seq, len, INI_CN_LOCAL, at);
    return seq;
}
