/*
 * cn_trace.c - the compute-node library's own trace records (ini_cn.h,
 * "Any program traced"): what `ini-trace whatif`, `timeline` and
 * `critical` need, for a program that records nothing itself.
 *
 * The tools read a run as actions (a node's work on one trigger: a
 * message, or one of its own requests), the messages each action sent,
 * and requests (a node's blocking calls: what it waited for, and its
 * computing in between).  MGS and EM3D write these themselves; for any
 * other program the library writes them, in the model in which each node
 * runs its own handlers (INI_CN_HDR_NODE_HANDLERS, EM3D's):
 *
 *   handler   an ACTION on the message (INI_CN_ACT_MSG: its source PE and
 *             sequence); every send inside names it as its cause
 *   program   the sends a node makes between handlers, in one action of
 *             their own picked up by a request of kind INI_CN_REQ_SEND:
 *             opened at the first such send, closed by the node's next
 *             poll, wait, barrier, mark or the detach
 *   wait      each ini_poll or ini_wait that ran handlers: a request of
 *             kind INI_CN_REQ_WAIT submitted when it was called and
 *             completed by the last handler it ran; a poll that ran none
 *             is no record (a polling loop's idle turns count as compute)
 *   mark      ini_pe_trace_mark: a request of kind INI_CN_REQ_MARK, which
 *             `critical` takes as a step's end when the run has no barrier
 *
 * Who records: the library, unless the program took the trace over by
 * asking for its buffer (ini_pe_trace), as MGS and EM3D do before their
 * nodes run; then only the SEND and RECV records and the barrier's, as
 * before, so nothing is recorded twice.  One decision per process, so
 * that one file never mixes two models.  The barrier's records stay the
 * barrier's (in_library: its waits and sends are not the program's).
 *
 * Cost: called only when the run is traced (inside ini_cn.c's existing
 * `if (pe->trace)` branches: untraced, ini_send has no extra branch and
 * ini_poll and ini_wait one each); a few stores and two atomic
 * id increments per handler or burst of sends, no allocation, lock or
 * system call.  Each node's state is its thread's (cn_sync.h).
 */
#include "cn_sync.h"

#include "clock.h"
#include "cn_internal.h"
#include "trace_cn.h"

/* In virtual time a node's "now" is its clock plus the burst it has
 * computed since its last event (what it declared, or its CPU time times
 * K): the time the machine will charge it at, without charging it. */
uint64_t cn_trace_now(struct ini_pe *pe)
{
    const struct cn_vt *v = &pe->cn->vt;
    if (!v->m)
        return ini_cn_trace_tsc();
    uint64_t c = pe->vt.node.clock + pe->vt.declared, cpu;
    /* Measured: the calling thread's CPU since the node's mark (the
     * detach reads every node from one thread: never below the mark). */
    if (v->compute == CN_VT_MEASURED && pe->vt.state == 1 && (cpu = ini_thread_cpu_ns()) > pe->vt.cpu_mark)
        c += (uint64_t)((double)(cpu - pe->vt.cpu_mark) * v->cycles_per_cpu_ns + 0.5);
    return c + INI_TRACE_VT_ORIGIN;
}

uint64_t ini_pe_trace_now(struct ini_pe *pe) { return cn_trace_now(pe); }

static uint64_t vt_ns(const struct cn_vt *v, uint64_t x)
{
    return (uint64_t)(((unsigned __int128)x * 1000000000u + v->m->hz / 2) / v->m->hz);
}

void cn_trace_virtual_anchors(struct ini_cn *cn)
{
    const struct cn_vt *v = &cn->vt;
    if (!v->m)
        return;
    uint64_t end = INI_TRACE_VT_ORIGIN + 1;    /* a span, even for nodes that did nothing */
    for (int p = 0; p < cn->n_pes; p++) {
        uint64_t t = cn_trace_now(&cn->pes[p]) + (uint64_t)v->costs.handover;   /* a send's stamp at the latest */
        end = t > end ? t : end;
    }
    struct ini_cn_trace_info *in = &cn->trace_info;
    in->flags |= INI_CN_HDR_VIRTUAL;
    in->start_tsc = INI_TRACE_VT_ORIGIN;
    in->start_ns = vt_ns(v, INI_TRACE_VT_ORIGIN);
    in->end_tsc = end;
    in->end_ns = vt_ns(v, end);
}

void cn_auto_send(struct ini_pe *pe, uint16_t handler, uint64_t tsc)
{
    struct cn_auto_trace *at = cn_pe_auto(pe);
    if (!at || at->in_library)
        return;
    if (!at->handler_act && !at->program_act) {
        struct ini_cn *cn = ini_pe_cn(pe);
        /* In virtual time tsc is the send's arrival at the INI, the
         * node's clock plus the hand-over: the action starts on the node,
         * at its clock (else a burst of sends with nothing computed after
         * it ends before it starts). */
        uint64_t now = cn_trace_now(pe);
        at->program_t0 = tsc < now ? tsc : now;
        at->program_req = ini_cn_trace_req_id(cn);
        at->program_act = ini_cn_trace_action_id(cn);
    }
    uint32_t cause = at->handler_act ? at->handler_act : at->program_act;
    ini_cn_trace_tag(cn_pe_trace(pe), (uint8_t)handler, cause, 0);
}

void cn_auto_program_end(struct ini_pe *pe)
{
    struct cn_auto_trace *at = cn_pe_auto(pe);
    if (!at || !at->program_act)
        return;
    uint16_t id = (uint16_t)ini_pe_id(pe);
    ini_cn_trace_action(cn_pe_trace(pe), INI_CN_ACT_REQ, id, id, at->program_act, at->program_req, 0,
                        at->program_t0, cn_trace_now(pe));
    ini_pe_trace_req(pe, INI_CN_REQ_SEND, at->program_req, at->program_act, at->program_t0);
    at->program_act = 0;
}

uint32_t cn_auto_handler_begin(struct ini_pe *pe, struct cn_auto_trace *at)
{
    at->handler_act = ini_cn_trace_action_id(ini_pe_cn(pe));
    return at->handler_act;
}

void cn_auto_handler_end(struct ini_pe *pe, struct cn_auto_trace *at, uint32_t act, uint16_t src, uint32_t seq,
                         uint64_t t0)
{
    ini_cn_trace_action(cn_pe_trace(pe), INI_CN_ACT_MSG, (uint16_t)ini_pe_id(pe), src, act, seq, 0, t0,
                        cn_trace_now(pe));
    at->handler_act = 0;
    at->last_act = act;
}

uint64_t cn_auto_wait_begin(struct ini_pe *pe)
{
    struct cn_auto_trace *at = cn_pe_auto(pe);
    if (!at || at->in_library || at->handler_act)
        return 0;
    cn_auto_program_end(pe);
    at->last_act = 0;
    return cn_trace_now(pe);
}

void cn_auto_wait_end(struct ini_pe *pe, uint64_t submit, int ran)
{
    struct cn_auto_trace *at = cn_pe_auto(pe);
    if (!submit || ran <= 0 || !at || !at->last_act)
        return;   /* not recorded, or only the barrier's handler ran */
    ini_pe_trace_req(pe, INI_CN_REQ_WAIT, ini_cn_trace_req_id(ini_pe_cn(pe)), at->last_act, submit);
}

void ini_pe_trace_mark(struct ini_pe *pe, uint32_t mark)
{
    struct ini_cn_trace *tr = cn_pe_trace(pe);
    if (!tr)
        return;
    cn_auto_program_end(pe);
    struct ini_cn *cn = ini_pe_cn(pe);
    uint16_t id = (uint16_t)ini_pe_id(pe);
    uint32_t req = ini_cn_trace_req_id(cn), act = ini_cn_trace_action_id(cn);
    uint64_t t = cn_trace_now(pe);
    ini_cn_trace_action(tr, INI_CN_ACT_REQ, id, id, act, req, 0, t, t);
    ini_pe_trace_req(pe, INI_CN_REQ_MARK, req, act, t);
    if (tr->n && tr->recs[tr->n - 1].kind == INI_CN_REQ && tr->recs[tr->n - 1].a == req)
        tr->recs[tr->n - 1].d = mark;   /* the program's number for the mark */
}
