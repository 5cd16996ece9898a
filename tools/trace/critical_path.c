/*
 * critical_path.c - the chain that set each barrier step's length
 * (critical.h).
 */
#include "critical.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define REQ_BARRIER 3       /* MGS's request kind of a barrier of every compute thread (mgs_internal.h) */

const char *crit_seg_name(int k)
{
    static const char *const names[CRIT_KINDS] = { "compute", "wake", "protocol", "handover", "INI queue",
                                                   "INI service", "wire", "receive" };
    return k >= 0 && k < CRIT_KINDS ? names[k] : "?";
}

/* A segment [a, b] of kind k, clipped to the step's start; false once the
 * chain has reached it. */
static bool seg(struct crit_step *s, int k, double a, double b)
{
    if (b <= s->start)
        return false;
    if (b > a)
        s->seg[k] += b - fmax(a, s->start);
    return a > s->start;
}

/* A wait [a, b] for INI file f: the part while the INI served other
 * messages is queueing (before its loop took the message in, as much as
 * after), the rest is kind k (the hand-over, the wire). */
static bool wait_for(const struct run_graph *g, struct crit_step *s, int k, int f, double a, double b)
{
    if (b <= s->start)
        return false;
    double lo = fmax(a, s->start);
    if (b > lo) {
        double q = rg_busy_in(g, f, lo, b);
        s->seg[CRIT_QUEUE] += q;
        s->seg[k] += b - lo - q;
    }
    return a > s->start;
}

/* The INI part of a message's way back from the instant its receiver was
 * ready for it: returns false when the chain reached the step's start. */
static bool message_back(const struct run_graph *g, struct crit_step *s, const struct rg_msg *m, double ready)
{
    double at = ready;
    if (m->local)
        return seg(s, CRIT_PROTOCOL, m->send, at);
    if (m->in_file >= 0) {
        const struct rg_ini *in = &g->inis[m->in_file];
        if (!seg(s, CRIT_RECEIVE, in->done[m->in_i], at) || !seg(s, CRIT_SERVICE, in->s[m->in_i], in->done[m->in_i]) ||
            !seg(s, CRIT_QUEUE, in->t1[m->in_i], in->s[m->in_i]))
            return false;
        at = in->t1[m->in_i];
    }
    if (m->out_file >= 0) {
        const struct rg_ini *o = &g->inis[m->out_file];
        if ((m->in_file >= 0 ? !wait_for(g, s, CRIT_WIRE, m->in_file, o->done[m->out_i], at)
                             : !seg(s, CRIT_WIRE, o->done[m->out_i], at)) ||
            !seg(s, CRIT_SERVICE, o->s[m->out_i], o->done[m->out_i]) ||
            !seg(s, CRIT_QUEUE, o->t1[m->out_i], o->s[m->out_i]))
            return false;
        at = o->t1[m->out_i];
    }
    return m->out_file >= 0 ? wait_for(g, s, CRIT_HANDOVER, m->out_file, m->send, at)
                            : seg(s, CRIT_HANDOVER, m->send, at);
}

/* Walks back from request q's completion to the step's start. */
static void walk(const struct run_graph *g, struct crit_step *s, int q)
{
    double at = g->reqs[q].complete;
    int a = g->reqs[q].done;
    for (int guard = 0; guard < 10000000; guard++) {
        if (a < 0) {          /* nothing known before: the rest is the thread's */
            seg(s, CRIT_COMPUTE, s->start, at);
            return;
        }
        const struct rg_action *x = &g->actions[a];
        if (!seg(s, CRIT_PROTOCOL, x->t0, at))
            return;
        if (x->parent >= 0) {
            at = x->t0;
            a = x->parent;
            continue;
        }
        if (x->kind == INI_CN_ACT_REQ && x->req >= 0) {
            const struct rg_req *r = &g->reqs[x->req];
            if (!seg(s, CRIT_WAKE, r->submit, x->t0))
                return;
            if (!seg(s, CRIT_COMPUTE, isnan(r->resumed) ? s->start : r->resumed, r->submit) || isnan(r->resumed))
                return;                  /* nothing known before the thread's first request */
            if (r->pred < 0) {
                seg(s, CRIT_COMPUTE, s->start, r->resumed);
                return;
            }
            const struct rg_req *p = &g->reqs[r->pred];
            if (!seg(s, CRIT_WAKE, p->complete, r->resumed))
                return;
            at = p->complete;
            a = p->done;
            continue;
        }
        if (x->msg < 0 || isnan(g->msgs[x->msg].send)) {
            seg(s, CRIT_PROTOCOL, s->start, x->t0);
            return;
        }
        const struct rg_msg *m = &g->msgs[x->msg];
        s->messages++;
        if (!message_back(g, s, m, x->t0))
            return;
        at = m->send;
        a = m->cause;
    }
}

/* Barrier requests by thread, then submit: the k-th of each thread is
 * barrier k. */
static const struct run_graph *sort_g;

static int cmp_barrier(const void *a, const void *b)
{
    const struct rg_req *x = &sort_g->reqs[*(const int *)a], *y = &sort_g->reqs[*(const int *)b];
    if (x->thread != y->thread)
        return x->thread - y->thread;
    return (x->submit > y->submit) - (x->submit < y->submit);
}

/* Each step's end and the request that ended it. */
static int steps_of(const struct run_graph *g, struct crit_result *out, int *last_req)
{
    int n = 0, *idx = malloc(((size_t)g->n_reqs + 1) * sizeof(int));
    if (!idx)
        return -1;
    for (int q = 0; q < g->n_reqs; q++)
        if (g->reqs[q].kind == REQ_BARRIER && g->reqs[q].thread >= 0)
            idx[n++] = q;
    sort_g = g;
    qsort(idx, (size_t)n, sizeof(int), cmp_barrier);
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

int critical_run(const struct run_graph *g, struct crit_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    int *last = malloc(((size_t)g->n_reqs + 1) * sizeof(int));
    if (!last || steps_of(g, out, last) < 0) {
        free(last);
        return trace_fail(err, errlen, "out of memory");
    }
    if (out->n_steps == 0) {
        free(last);
        critical_free(out);
        return trace_fail(err, errlen, "%s: no barrier in the run: no step to follow", g->ini->shown);
    }
    double first = INFINITY;
    for (int q = 0; q < g->n_reqs; q++)
        first = fmin(first, g->reqs[q].submit);
    out->total.start = first;
    for (int j = 0; j < out->n_steps; j++) {
        struct crit_step *s = &out->steps[j];
        s->start = j ? out->steps[j - 1].end : first;
        walk(g, s, last[j]);
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
