/*
 * critical_path.c - the chain that set each step's length (critical.h).
 *
 * A step ends at a barrier (REQ_BARRIER: MGS's, the library's); a run
 * with none ends its steps at the program's marks (ini_pe_trace_mark,
 * INI_CN_REQ_MARK); a run with neither is one step, ended by its last
 * request's completion, so that any traced program has a path to follow.
 */
#include "critical.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "file_util.h"
#include "ini_cn.h"     /* INI_CN_REQ_MARK */

#define REQ_BARRIER 3       /* MGS's request kind of a barrier of every compute thread (mgs_internal.h) */

const char *crit_seg_name(int k)
{
    static const char *const names[CRIT_KINDS] = { "compute", "wake", "protocol", "handover", "INI queue",
                                                   "INI service", "wire", "receive" };
    return k >= 0 && k < CRIT_KINDS ? names[k] : "?";
}

/* The walk's state: the step, and the instant the chain has been
 * followed back to.  Each segment runs from its own start to that
 * instant (never past it: stamps of different threads and of the INIs
 * and nodes can be a few ns out of order, and a node may act on a message
 * before its INI stamped it delivered), so the segments tile the step. */
struct walk {
    struct crit_step *s;
    double at;
};

/* The chain back to instant a, as kind k; false once it reached the
 * step's start. */
static bool back(struct walk *w, int k, double a)
{
    double lo = fmax(fmin(a, w->at), w->s->start);
    w->s->seg[k] += w->at - lo;
    w->at = lo;
    return lo > w->s->start;
}

/* The same for a wait for INI file f: the part while that INI served
 * other messages is queueing (before its loop took the message in, as
 * much as after), the rest kind k (the hand-over, the wire). */
static bool back_waiting(struct walk *w, const struct run_graph *g, int k, int f, double a)
{
    double lo = fmax(fmin(a, w->at), w->s->start);
    double q = rg_busy_in(g, f, lo, w->at);
    w->s->seg[CRIT_QUEUE] += q;
    w->s->seg[k] += w->at - lo - q;
    w->at = lo;
    return lo > w->s->start;
}

/* A message's way back from the instant its receiver took it up. */
static bool message_back(struct walk *w, const struct run_graph *g, const struct rg_msg *m)
{
    if (m->local)
        return back(w, CRIT_PROTOCOL, m->send);
    if (m->in_file >= 0) {
        const struct rg_ini *in = &g->inis[m->in_file];
        if (!back(w, CRIT_RECEIVE, in->done[m->in_i]) || !back(w, CRIT_SERVICE, in->s[m->in_i]) ||
            !back(w, CRIT_QUEUE, in->t1[m->in_i]))
            return false;
    }
    if (m->out_file >= 0) {
        const struct rg_ini *o = &g->inis[m->out_file];
        if ((m->in_file >= 0 ? !back_waiting(w, g, CRIT_WIRE, m->in_file, o->done[m->out_i])
                             : !back(w, CRIT_WIRE, o->done[m->out_i])) ||
            !back(w, CRIT_SERVICE, o->s[m->out_i]) || !back(w, CRIT_QUEUE, o->t1[m->out_i]))
            return false;
        return back_waiting(w, g, CRIT_HANDOVER, m->out_file, m->send);
    }
    return back(w, CRIT_HANDOVER, m->send);
}

/* A request taken up by action x: back through the wait to take it up,
 * the compute before it and the thread's wake-up to what it followed;
 * the action that completed that, or -1 at the chain's end. */
static int request_back(struct walk *w, const struct run_graph *g, const struct rg_action *x)
{
    const struct rg_req *r = &g->reqs[x->req];
    if (!back(w, CRIT_WAKE, r->submit))
        return -1;
    if (isnan(r->resumed) || r->pred < 0) {       /* nothing known before: the thread's */
        back(w, CRIT_COMPUTE, w->s->start);
        return -1;
    }
    if (!back(w, CRIT_COMPUTE, r->resumed) || !back(w, CRIT_WAKE, g->reqs[r->pred].complete))
        return -1;
    int a = g->reqs[r->pred].done;
    if (a < 0)
        back(w, CRIT_COMPUTE, w->s->start);
    return a;
}

/* Walks back from request q's completion to the step's start; false when
 * the chain came round to where it had been (a damaged trace: in a real
 * run each hop goes to an earlier action, so a chain visits at most every
 * action once, and stamps that are equal would never end it). */
static bool walk(const struct run_graph *g, struct crit_step *s, int q)
{
    struct walk w = { s, g->reqs[q].complete };
    int a = g->reqs[q].done;
    if (a < 0)
        back(&w, CRIT_COMPUTE, s->start);
    for (int hops = 0; a >= 0; hops++) {
        if (hops > g->n_actions)
            return false;
        const struct rg_action *x = &g->actions[a];
        if (!back(&w, CRIT_PROTOCOL, x->t0))
            return true;
        if (x->parent >= 0) {
            a = x->parent;
        } else if (x->kind == INI_CN_ACT_REQ && x->req >= 0) {
            a = request_back(&w, g, x);
        } else if (x->msg < 0 || isnan(g->msgs[x->msg].send)) {
            back(&w, CRIT_PROTOCOL, s->start);     /* nothing known before it */
            return true;
        } else {
            s->messages++;
            if (!message_back(&w, g, &g->msgs[x->msg]))
                return true;
            a = g->msgs[x->msg].cause;
            if (a < 0)
                back(&w, CRIT_PROTOCOL, s->start);
        }
    }
    return true;
}

/* Barrier requests by thread, then submit: the k-th of each thread is
 * barrier k.  arg: the graph. */
static int cmp_barrier(const void *a, const void *b, void *arg)
{
    const struct run_graph *g = arg;
    const struct rg_req *x = &g->reqs[*(const int *)a], *y = &g->reqs[*(const int *)b];
    int c = rg_cmp_int(x->thread, y->thread);
    return c ? c : rg_cmp_double(x->submit, y->submit);
}

/* Each step's end and the request that ended it: the requests of kind
 * `kind`, the k-th of each thread ending step k. */
static int steps_of(const struct run_graph *g, int kind, struct crit_result *out, int *last_req)
{
    int n = 0, *idx = malloc(((size_t)g->n_reqs + 1) * sizeof(int));
    if (!idx)
        return -1;
    for (int q = 0; q < g->n_reqs; q++)
        if (g->reqs[q].kind == kind && g->reqs[q].thread >= 0)
            idx[n++] = q;
    qsort_r(idx, (size_t)n, sizeof(int), cmp_barrier, (void *)g);
    /* the steps: as many as the thread with the fewest barriers made */
    int steps = n;
    for (int k = 0; k < n;) {
        int e = k;
        while (e < n && g->reqs[idx[e]].thread == g->reqs[idx[k]].thread)
            e++;
        steps = e - k < steps ? e - k : steps;
        k = e;
    }
    out->steps = calloc((size_t)steps + 1, sizeof(*out->steps));
    if (!out->steps) {
        free(idx);
        return -1;
    }
    for (int j = 0; j < steps; j++)
        out->steps[j].end = -INFINITY;
    for (int k = 0; k < n;) {
        int e = k;
        while (e < n && g->reqs[idx[e]].thread == g->reqs[idx[k]].thread)
            e++;
        for (int j = 0; j < steps; j++) {
            const struct rg_req *r = &g->reqs[idx[k + j]];
            if (r->complete > out->steps[j].end) {
                out->steps[j].end = r->complete;
                out->steps[j].thread = r->thread;
                last_req[j] = idx[k + j];
            }
        }
        k = e;
    }
    out->n_steps = steps;
    free(idx);
    return 0;
}

/* A run with neither barriers nor marks: one step, ended by the latest
 * completion of any request. */
static int one_step(const struct run_graph *g, struct crit_result *out, int *last_req)
{
    int q_last = -1;
    for (int q = 0; q < g->n_reqs; q++)
        if (g->reqs[q].thread >= 0 && (q_last < 0 || g->reqs[q].complete > g->reqs[q_last].complete))
            q_last = q;
    if (q_last < 0)
        return 0;
    out->steps = calloc(1, sizeof(*out->steps));
    if (!out->steps)
        return -1;
    out->steps[0].end = g->reqs[q_last].complete;
    out->steps[0].thread = g->reqs[q_last].thread;
    last_req[0] = q_last;
    out->n_steps = 1;
    return 0;
}

/* The steps: between barriers, else marks, else the whole run. */
static int find_steps(const struct run_graph *g, struct crit_result *out, int *last_req)
{
    static const struct { int kind; enum crit_ends ends; } by[] = {
        { REQ_BARRIER, CRIT_BY_BARRIERS },
        { INI_CN_REQ_MARK, CRIT_BY_MARKS },
    };
    for (size_t i = 0; i < sizeof by / sizeof by[0]; i++) {
        if (steps_of(g, by[i].kind, out, last_req) < 0)
            return -1;
        out->ends = by[i].ends;
        if (out->n_steps)
            return 0;
        critical_free(out);
    }
    out->ends = CRIT_WHOLE_RUN;
    return one_step(g, out, last_req);
}

int critical_run(const struct run_graph *g, struct crit_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    int *last = malloc(((size_t)g->n_reqs + 1) * sizeof(int));
    if (!last || find_steps(g, out, last) < 0) {
        free(last);
        return ini_fail(err, errlen, "out of memory");
    }
    if (out->n_steps == 0) {
        free(last);
        critical_free(out);
        return ini_fail(err, errlen, "%s: no request in the compute nodes' traces: no path to follow",
                        g->ini->shown);
    }
    double first = INFINITY;
    for (int q = 0; q < g->n_reqs; q++)
        first = fmin(first, g->reqs[q].submit);
    out->total.start = first;
    for (int j = 0; j < out->n_steps; j++) {
        struct crit_step *s = &out->steps[j];
        s->start = j ? out->steps[j - 1].end : first;
        if (!walk(g, s, last[j])) {
            free(last);
            critical_free(out);
            return ini_fail(err, errlen, "%s: step %d: its chain of causes comes back to itself (damaged traces)",
                            g->ini->shown, j + 1);
        }
        for (int k = 0; k < CRIT_KINDS; k++)
            out->total.seg[k] += s->seg[k];
        out->total.messages += s->messages;
        out->total.end = s->end;
    }
    free(last);
    return 0;
}

void critical_free(struct crit_result *r)
{
    free(r->steps);
    r->steps = NULL;
    r->n_steps = 0;
}
