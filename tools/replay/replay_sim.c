/*
 * replay_sim.c - the replay's event loop (replay_internal.h): messages
 * through modelled INIs, actions on modelled protocol threads, requests
 * on the compute threads, in time order.
 *
 * An INI is modelled as its loop runs (ini/daemon/inid_loop.c): when idle, the
 * first arrival wakes it after the wake-up lag; a turn takes everything
 * that has arrived (the compute nodes' rings in node order, then the
 * ports' frames), stamps it with the turn's start as its arrival t1, and
 * serves it in that order, each message for its own service time, the
 * next starting when the previous ends (the O knob's virtual clock does
 * the same); what arrives meanwhile waits for the next turn, which starts
 * when the batch is done.  A protocol thread serves actions in the order
 * they became ready, one at a time, and none before its first action in
 * the run (before it, the program had not started it: nothing in the
 * run says when it would have).
 */
#include "replay_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the event heap ---- */

static bool earlier(const struct event *a, const struct event *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

int sim_push(struct replay *r, double t, int type, int idx)
{
    struct event *h = replay_grow(r->heap, r->n_heap, &r->cap_heap, sizeof(*h), 4096);
    if (!h)
        return -1;
    r->heap = h;
    size_t i = r->n_heap++;
    r->heap[i] = (struct event){ t, r->seq++, type, idx };
    while (i > 0 && earlier(&r->heap[i], &r->heap[(i - 1) / 2])) {
        struct event x = r->heap[i];
        r->heap[i] = r->heap[(i - 1) / 2];
        r->heap[(i - 1) / 2] = x;
        i = (i - 1) / 2;
    }
    return 0;
}

static struct event pop(struct replay *r)
{
    struct event top = r->heap[0];
    r->heap[0] = r->heap[--r->n_heap];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < r->n_heap && earlier(&r->heap[l], &r->heap[m]))
            m = l;
        if (l + 1 < r->n_heap && earlier(&r->heap[l + 1], &r->heap[m]))
            m = l + 1;
        if (m == i)
            break;
        struct event x = r->heap[i];
        r->heap[i] = r->heap[m];
        r->heap[m] = x;
        i = m;
    }
    return top;
}

/* ---- dependencies ---- */

void sim_resolve(struct replay *r, int a, double bound)
{
    struct a_sim *x = &r->as[a];
    if (bound > x->bound)
        x->bound = bound;
    if (--x->pending == 0)
        sim_push(r, fmax(x->bound, r->now), r->g->actions[a].parent >= 0 ? EV_ACTION_START : EV_ACTION_READY, a);
}

/* ---- which INI ---- */

static int local_index(const struct cluster_sim *c, int pe)
{
    for (int l = 0; l < c->n_pes; l++)
        if (c->pes[l] == pe)
            return l;
    return 0;
}

/* The sending cluster's INI a compute node hands message m to. */
static int pick_out(struct replay *r, int m)
{
    const struct rg_msg *x = &r->g->msgs[m];
    const struct cluster_sim *c = &r->cl[x->src_cluster];
    if (r->as_run)
        return c->first_ini + r->g->ini->files[x->out_file].info.ini_index;
    return c->first_ini + ini_lb_pe_pick(&r->lb_pe[x->src_pe]);
}

/* The destination cluster's INI the sending INI picks, at its service. */
static int pick_in(struct replay *r, int from, int m)
{
    const struct rg_msg *x = &r->g->msgs[m];
    int dc = r->g->ini->files[x->in_file].info.cluster_id;
    const struct cluster_sim *c = &r->cl[dc];
    if (r->as_run)
        return c->first_ini + r->g->ini->files[x->in_file].info.ini_index;
    int ids[INI_MAX_INIS_PER_CLUSTER];
    for (int i = 0; i < c->n_inis; i++)
        ids[i] = c->first_ini + i;
    int stat = c->first_ini + local_index(c, x->dst_pe) * c->n_inis / c->n_pes;
    return ini_lb_conn_pick(&r->inis[from].lb, dc, ids, c->n_inis, stat);
}

/* ---- an INI ---- */

static int arrive(struct replay *r, int ini, struct item it, double lam, double now)
{
    struct ini_sim *x = &r->inis[ini];
    struct item *w = replay_grow(x->wait, (size_t)x->n_wait, &x->cap_wait, sizeof(*w), 64);
    if (!w)
        return -1;
    x->wait = w;
    x->wait[x->n_wait++] = it;
    if (x->busy)
        return 0;
    x->busy = true;
    return sim_push(r, now + lam, EV_INI_TURN, ini);
}

static int cmp_item(const void *a, const void *b)
{
    const struct item *x = a, *y = b;
    if (x->in != y->in)
        return x->in - y->in;                   /* the rings before the ports */
    if (!x->in && x->pe_local != y->pe_local)
        return x->pe_local - y->pe_local;
    return (x->avail > y->avail) - (x->avail < y->avail);
}

/* The virtual-time INI's order (inid_vtime.c): the earliest arrival, a
 * frame before a compute node's record on a tie, then the lower node. */
static int cmp_arrival(const void *a, const void *b)
{
    const struct item *x = a, *y = b;
    if (x->avail != y->avail)
        return (x->avail > y->avail) - (x->avail < y->avail);
    if (x->in != y->in)
        return y->in - x->in;
    return x->in ? 0 : x->pe_local - y->pe_local;
}

static int record(struct ini_sim *x, const struct out_rec *o)
{
    struct out_rec *n = replay_grow(x->recs, x->n_recs, &x->cap_recs, sizeof(*n), 1024);
    if (!n)
        return -1;
    x->recs = n;
    x->recs[x->n_recs++] = *o;
    return 0;
}

static uint64_t load_of(const struct ini_sim *x)
{
    uint64_t s = atomic_load(&x->submitted), p = atomic_load(&x->processed);
    return (s > p ? s - p : 0) + atomic_load(&x->inbound);
}

/* One item of a turn: served, recorded, its done scheduled.  1 when a
 * message left for the network, 0 when not (an ack taken, a message
 * served here, or one that waits for the window: replay_flow.c), -1 out
 * of memory.  retry: a message that waited for the window. */
static int serve(struct replay *r, int ini, const struct item *it, uint32_t qlen, double t1, bool retry)
{
    struct ini_sim *x = &r->inis[ini];
    if (it->msg < 0)
        return replay_flow_ack_taken(r, it->ack, t1) < 0 ? -1 : 0;
    const struct rg_msg *m = &r->g->msgs[it->msg];
    struct m_sim *ms = &r->ms[it->msg];
    bool net = !it->in && m->in_file >= 0;
    if (net) {
        if (!retry)
            ms->in_ini = pick_in(r, ini, it->msg);
        int go = replay_flow_admit(r, it->msg, retry);
        if (go <= 0)
            return go;
    }
    double s = fmax(t1, x->until), done = s + (it->in ? ms->svc_i : ms->svc_o);
    x->until = done;
    /* A virtual-time INI stamps an input's arrival as its t1, not its
     * event's start (inid_vtime.c), so that its wait shows in the report
     * as the run's does. */
    double stamp = r->one_input ? fmin(it->avail, t1) : t1;
    struct out_rec o = { .kind = it->in ? INI_TRACE_IN : INI_TRACE_OUT, .src = (uint16_t)m->src_pe,
                         .dst = (uint16_t)m->dst_pe, .len = m->len, .qlen = qlen, .seq = m->seq, .t1 = stamp,
                         .done = done };
    if (net) {
        ms->carried_load = load_of(x);
        o.peer = (uint16_t)ms->in_ini;
    } else if (it->in) {
        o.peer = (uint16_t)ms->out_ini;
    } else {
        o.kind = INI_TRACE_LOCAL;            /* a message of the cluster through its INI */
        o.peer = INI_TRACE_NO_PEER;
    }
    if (record(x, &o) < 0 || sim_push(r, done, it->in ? EV_IN_DONE : EV_OUT_DONE, it->msg) < 0)
        return -1;
    return net;
}

/* A turn: its own cost, then the messages that waited for their window
 * and may go now, then what arrived (inid_loop.c's order). */
static int turn(struct replay *r, int ini, double now)
{
    struct ini_sim *x = &r->inis[ini];
    int n = x->n_wait, sent = 0, rc = 0, *out = r->turn_out;
    qsort(x->wait, (size_t)n, sizeof(*x->wait), r->one_input ? cmp_arrival : cmp_item);
    if (r->one_input && n > 1)
        n = 1;                  /* virtual time: one input per event; the others wait for the next */
    struct item *batch = malloc(((size_t)n + 1) * sizeof(*batch));
    if (!batch)
        return -1;
    memcpy(batch, x->wait, (size_t)n * sizeof(*batch));
    x->n_wait -= n;
    memmove(x->wait, x->wait + n, (size_t)x->n_wait * sizeof(*x->wait));
    /* A virtual-time INI pays its pass after its input (inid_vtime.c's
     * charge_pass); a real one at the turn's start (inid_loop.c). */
    double after = r->one_input ? x->turn_cost : 0;
    x->until = fmax(now, x->until) + x->turn_cost - after;
    for (int m; rc >= 0 && (m = replay_flow_next_stalled(r, ini)) >= 0;) {
        struct item it = { .msg = m, .ack = -1, .avail = now };
        if ((rc = serve(r, ini, &it, 0, now, true)) > 0)
            out[sent++] = m;
    }
    for (int k = 0; rc >= 0 && k < n; k++)
        if ((rc = serve(r, ini, &batch[k], (uint32_t)k, now, false)) > 0)
            out[sent++] = batch[k].msg;
    for (int k = 0; rc >= 0 && x->flush_at_end && k < sent; k++)
        rc = sim_push(r, x->until + r->wire, EV_IN_AVAIL, out[k]);
    x->until += after;
    free(batch);
    return rc < 0 ? -1 : sim_push(r, x->until, EV_BATCH_END, ini);
}

/* ---- a protocol thread ---- */

/* The thread takes its next action, if it has one and is neither busy
 * nor computing (node mode): after its wake-up if it was idle, after its
 * usual gap between actions if it was busy. */
static int try_start(struct replay *r, int c, double now, bool was_idle)
{
    struct server *s = &r->srv[c];
    if (s->busy || fifo_empty(&s->queue) || now < s->blocked_until)
        return 0;
    int a = fifo_at(&s->queue, s->queue.head++);
    const struct a_sim *x = &r->as[a];
    double lag = x->idle_class == was_idle ? x->lag : was_idle ? s->lag_idle : s->lag_busy;
    s->busy = true;
    return sim_push(r, fmax(now + lag, s->first), EV_ACTION_START, a);
}

/* ---- events ---- */

static int on_send(struct replay *r, int m, double now)
{
    const struct rg_msg *x = &r->g->msgs[m];
    struct m_sim *ms = &r->ms[m];
    if (x->local) {
        if (x->action >= 0)
            sim_resolve(r, x->action, now);
        return 0;
    }
    if (x->out_file < 0) {
        if (x->action >= 0)
            sim_resolve(r, x->action, now + ms->ready_lag);
        return 0;
    }
    ms->out_ini = pick_out(r, m);
    atomic_fetch_add(&r->inis[ms->out_ini].submitted, 1);
    return replay_flow_submit(r, m, now);
}

int sim_take(struct replay *r, int m, double now)
{
    const struct rg_msg *x = &r->g->msgs[m];
    const struct m_sim *ms = &r->ms[m];
    struct item it = { .msg = m, .ack = -1, .pe_local = local_index(&r->cl[x->src_cluster], x->src_pe), .avail = now };
    return arrive(r, ms->out_ini, it, ms->lam_o >= 0 ? ms->lam_o : r->lam_o_med, now);
}

static int on_action_start(struct replay *r, int a, double now)
{
    const struct rg_action *x = &r->g->actions[a];
    struct a_sim *s = &r->as[a];
    s->start = now;
    s->started = true;
    int rc = 0;
    if (x->parent < 0)
        rc |= sim_push(r, now + (x->t1 - x->t0), EV_SERVER_FREE, replay_server_of(r, x));
    for (int k = r->caused.first[a]; k < r->caused.first[a + 1]; k++) {
        const struct rg_msg *m = &r->g->msgs[r->caused.idx[k]];
        if (!isnan(m->send))
            rc |= sim_push(r, now + fmax(m->send - x->t0, 0), EV_SEND, r->caused.idx[k]);
    }
    for (int k = r->completed.first[a]; k < r->completed.first[a + 1]; k++)
        rc |= sim_push(r, now + fmax(r->g->reqs[r->completed.idx[k]].complete - x->t0, 0), EV_REQ_COMPLETE,
                       r->completed.idx[k]);
    for (int k = r->children.first[a]; k < r->children.first[a + 1]; k++)
        sim_resolve(r, r->children.idx[k], now + (r->g->actions[r->children.idx[k]].t0 - x->t0));
    for (int k = r->join_out.first[a]; k < r->join_out.first[a + 1]; k++) {
        int j = r->join_out.idx[k];
        sim_resolve(r, r->join_completer[j], now + r->join_off[j]);
    }
    return rc;
}

/* A message's sending INI is done with it: on to the wire, or served
 * here (a message within the cluster) and its record given back. */
static int on_out_done(struct replay *r, int msg, double now)
{
    const struct rg_msg *m = &r->g->msgs[msg];
    atomic_fetch_add(&r->inis[r->ms[msg].out_ini].processed, 1);
    if (m->in_file >= 0)
        return r->inis[r->ms[msg].out_ini].flush_at_end ? 0 : sim_push(r, now + r->wire, EV_IN_AVAIL, msg);
    if (m->action >= 0)
        sim_resolve(r, m->action, now);
    return replay_flow_release(r, msg, now);      /* served here: its record goes back */
}

/* The receiving INI delivered a message: the load it carried seen, its
 * action resolved, the receiver's acks counted. */
static int on_in_done(struct replay *r, int msg, double now)
{
    struct m_sim *ms = &r->ms[msg];
    struct ini_sim *x = &r->inis[ms->in_ini];
    atomic_fetch_sub(&x->inbound, 1);
    atomic_fetch_add(&x->processed, 1);
    x->lb.peer_load[ms->out_ini] = (uint32_t)(ms->carried_load > UINT32_MAX ? UINT32_MAX : ms->carried_load);
    if (r->g->msgs[msg].action >= 0)
        sim_resolve(r, r->g->msgs[msg].action, now);
    return replay_flow_delivered(r, msg, now);
}

/* A request completed: the requests that follow it are made as far after
 * it as in the run. */
static int on_req_complete(struct replay *r, int q, double now)
{
    const struct run_graph *g = r->g;
    int rc = 0;
    r->req_complete[q] = now;
    for (int k = r->req_next.first[q]; k < r->req_next.first[q + 1]; k++) {
        int s = r->req_next.idx[k], pe = g->reqs[q].pe;
        double at = now + (g->reqs[s].submit - g->reqs[q].complete);
        rc |= sim_push(r, at, EV_REQ_SUBMIT, s);
        /* Node mode: the node's thread computes until then and takes
         * no action meanwhile; in virtual time handlers interrupt the
         * compute (Alewife's), whose measured length includes them. */
        if (r->node_mode && !r->interrupts && g->reqs[s].pe == pe && pe >= 0 && pe < r->n_srv &&
            at > r->srv[pe].blocked_until) {
            r->srv[pe].blocked_until = at;
            rc |= sim_push(r, at, EV_SERVER_UNBLOCK, pe);
        }
    }
    return rc;
}

static int on_event(struct replay *r, const struct event *e)
{
    const struct run_graph *g = r->g;
    double now = e->t;
    switch (e->type) {
    case EV_SEND:
        return on_send(r, e->idx, now);
    case EV_INI_TURN:
        return turn(r, e->idx, now);
    case EV_BATCH_END:
        if (r->inis[e->idx].n_wait || replay_flow_stalled_ready(r, e->idx))
            return turn(r, e->idx, now);
        r->inis[e->idx].busy = false;
        return 0;
    case EV_OUT_DONE:
        return on_out_done(r, e->idx, now);
    case EV_IN_AVAIL: {
        struct m_sim *ms = &r->ms[e->idx];
        atomic_fetch_add(&r->inis[ms->in_ini].inbound, 1);
        struct item it = { .msg = e->idx, .ack = -1, .in = true, .avail = now };
        return arrive(r, ms->in_ini, it, ms->lam_i >= 0 ? ms->lam_i : r->lam_i_med, now);
    }
    case EV_IN_DONE:
        return on_in_done(r, e->idx, now);
    case EV_ACK_AVAIL: {
        struct item it = { .msg = -1, .ack = e->idx, .in = true, .avail = now };
        return arrive(r, r->acks[e->idx].conn / r->n_inis, it, r->lam_i_med, now);
    }
    case EV_ACK_TIMER:
        return replay_flow_ack_timer(r, e->idx, now);
    case EV_ACTION_READY: {
        int c = replay_server_of(r, &g->actions[e->idx]);
        if (fifo_push(&r->srv[c].queue, e->idx) < 0)
            return -1;
        return try_start(r, c, now, true);
    }
    case EV_ACTION_START:
        return on_action_start(r, e->idx, now);
    case EV_SERVER_FREE:
        r->srv[e->idx].busy = false;
        return try_start(r, e->idx, now, false);
    case EV_SERVER_UNBLOCK:     /* back from computing: it was running, not asleep */
        return try_start(r, e->idx, now, false);
    case EV_REQ_SUBMIT:
        r->req_submit[e->idx] = now;
        if (g->reqs[e->idx].pickup >= 0)
            sim_resolve(r, g->reqs[e->idx].pickup, now);
        return 0;
    case EV_REQ_COMPLETE:
        return on_req_complete(r, e->idx, now);
    }
    return 0;
}

/* ---- start and end ---- */

/* Whether an action's trigger comes from an event of the replay (else it
 * is kept at its time in the run). */
static bool trigger_replayed(const struct run_graph *g, const struct rg_action *a)
{
    if (a->kind == INI_CN_ACT_REQ)
        return a->req >= 0;
    return a->msg >= 0 && !isnan(g->msgs[a->msg].send);
}

static int seed(struct replay *r)
{
    const struct run_graph *g = r->g;
    int rc = 0;
    /* A top-level action waits for its trigger, a nested one for its
     * parent (its message arrived before: it was deferred). */
    for (int a = 0; a < g->n_actions; a++) {
        r->as[a].pending += 1;
        r->as[a].bound = -INFINITY;
    }
    for (int a = 0; a < g->n_actions; a++)
        if (g->actions[a].parent < 0 && !trigger_replayed(g, &g->actions[a])) {
            r->res->anchored++;
            sim_resolve(r, a, replay_run_ready(g, &g->actions[a]));
        }
    for (int m = 0; m < g->n_msgs; m++)
        if (g->msgs[m].cause < 0 && !isnan(g->msgs[m].send)) {
            r->res->anchored++;
            rc |= sim_push(r, g->msgs[m].send, EV_SEND, m);
        }
    for (int q = 0; q < g->n_reqs; q++) {
        if (r->req_pred[q] < 0) {
            r->res->anchored++;
            rc |= sim_push(r, g->reqs[q].submit, EV_REQ_SUBMIT, q);
        }
        if (g->reqs[q].done < 0 && g->reqs[q].pickup < 0)
            rc |= sim_push(r, g->reqs[q].complete, EV_REQ_COMPLETE, q);
    }
    return rc;
}

int sim_run(struct replay *r, char *err, size_t errlen)
{
    if (seed(r) < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    while (r->n_heap) {
        struct event e = pop(r);
        r->now = e.t;
        if (on_event(r, &e) < 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    int stuck = 0, first = -1;
    for (int a = 0; a < r->g->n_actions; a++)
        if (!r->as[a].started && stuck++ == 0)
            first = a;
    if (stuck) {
        const struct rg_action *a = &r->g->actions[first];
        snprintf(err, errlen, "replay: %d action(s) never became ready, the first action %u of cluster %d "
                 "(%s, %d dependencies left): the run's records are incomplete", stuck, a->id, a->cluster,
                 rg_action_kind_name(a->kind), r->as[first].pending);
        return -1;
    }
    return 0;
}
