/*
 * mgs_vtime.c - MGS on every node, in the virtual-time mode (docs/mgs.md,
 * "Virtual time"; docs/virtual-time.md).
 *
 * On Alewife MGS had no protocol processor: a fault was handled by the
 * node that faulted, and a message interrupted the node it was sent to,
 * which ran its handler.  In a virtual run this file does the same, and
 * the cluster's protocol thread is not started:
 *   - each compute node of the cluster is a host thread from mgs_start to
 *     mgs_stop (node 0 is the program's main thread; nodes 1..n-1 are
 *     started here and run par_run's worker when given one); between two
 *     pieces of the program's work a node waits for its inputs and serves
 *     them, as an idle Alewife node ran the handlers that reached it;
 *   - a request (fault, lock, barrier, ...) is handled on the node's own
 *     thread holding the node's turn (ini_pe_hold), and the node then
 *     serves its inputs until the request is done;
 *   - a message from another cluster is processed by the node it reaches,
 *     inside its handler; a message to a node of this cluster is an event
 *     posted to that node (ini_vt_post_local), as the SSMP's own network
 *     carried it; a request finished by another node than its owner wakes
 *     the owner with such an event, so the owner resumes when the news
 *     could have reached it, not when the host happened to look.
 * The machine runs one event at a time (ini/vtime/vt_machine.h), so the
 * protocol state needs no lock here either: only the node holding the
 * turn touches it.
 *
 * What a handler costs (declared, so the run is deterministic): the
 * entry of a system-level handler, 35 cycles (seed 002, 3.1: "a
 * system-level handler can be entered in approximately 35 cycles"); its
 * body, MGS_VT_BODY cycles (the thesis asks handlers to end "on the order
 * of several hundred cycles"; we take 200, an assumption, not a
 * measurement); bytes copied (a unit in or out, a twin, a diff), one cycle
 * per 2 bytes (Sparcle's word copy: a load and a store per 4 bytes).  With
 * INI_VT_COMPUTE=measured the handler's own CPU time times K is charged
 * instead, by the library.
 */
#include "mgs_internal.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#define MGS_VT_ENTRY 35u
#define MGS_VT_BODY  200u

static _Thread_local int tls_node;     /* the node this thread is (0: the main thread) */

int mgs_vt_self(void) { return tls_node; }

static struct ini_pe *self_pe(struct mgs *g) { return g->pes[tls_node]; }

void mgs_vt_charge(struct mgs *g, uint64_t bytes)
{
    g->vt.steps[tls_node]++;
    ini_work_cycles(self_pe(g), MGS_VT_ENTRY + MGS_VT_BODY + bytes / 2);
}

/* ---- requests -------------------------------------------------------- */

static void on_wake(struct ini_pe *pe, struct ini_vt_event *ev)
{
    (void)pe;
    struct mgs_request *r = (struct mgs_request *)((char *)ev - offsetof(struct mgs_request, wake));
    r->wake_pending = false;
}

/* r is done (mgs_complete): its owner learns it here, or by an event from
 * this node when another node finished it. */
void mgs_vt_complete(struct mgs *g, struct mgs_request *r)
{
    if (r->node != tls_node) {
        r->wake_pending = true;
        r->wake.fn = on_wake;
        if (ini_vt_post_local(self_pe(g), g->pes[r->node], 0, &r->wake) != 0)
            mgs_fatal("the virtual-time machine stopped (%s)", strerror(errno));
    }
    atomic_store_explicit(&r->done, 1, memory_order_release);
}

/* Serves the node's inputs, holding its turn, until `done` says so. */
static void serve_until(struct mgs *g, bool (*done)(struct mgs *g, void *arg), void *arg)
{
    while (!done(g, arg))
        if (ini_wait(self_pe(g), 0) < 0)
            mgs_fatal("the virtual-time machine stopped while node %d waited (a deadlock?)", tls_node);
}

static bool request_done(struct mgs *g, void *arg)
{
    (void)g;
    struct mgs_request *r = arg;
    return atomic_load_explicit(&r->done, memory_order_acquire) == 1 && !r->wake_pending;
}

/* A request of this thread's node: handled here, then waited for. */
void mgs_vt_submit(struct mgs *g, struct mgs_request *r)
{
    atomic_store_explicit(&r->done, 0, memory_order_relaxed);
    r->error = 0;
    r->node = tls_node;
    r->wake_pending = false;
    if (ini_pe_hold(self_pe(g)) != 0)
        mgs_fatal("the virtual-time machine stopped");
    mgs_vt_charge(g, 0);
    mgs_handle_request(g, r);
    serve_until(g, request_done, r);
    ini_pe_release(self_pe(g));
}

/* ---- messages inside the cluster ------------------------------------------ */

/* A local message is handled in the order it was sent, whichever node it
 * reached first.  Stamping it after the last one (mgs_vt_send_local) is not
 * enough: its receiver's clock may be ahead of the stamp (its last handler
 * moved it on), so it waits, while a later message to another node, whose
 * clock is behind, is handled at its own stamp and overtakes it.  That is
 * how a RECALL came before the SWGRANT it follows (docs/virtual-time.md).
 * So a message that reaches its node before an earlier one was handled is
 * held, and the node that handles the earlier one handles it next, as the
 * remote channel's hold does (on_ini_message). */
static void on_local_message(struct ini_pe *pe, struct ini_vt_event *ev)
{
    (void)pe;
    struct mgs *g = mgs_g;
    struct mgs_msg *m = (struct mgs_msg *)((char *)ev - offsetof(struct mgs_msg, ev));
    if (m->h.seq != g->vt.local_handled) {
        (void)mgs_hold_by_seq(&g->vt.local_held, m);   /* local seqs are unique (mgs_vt_send_local) */
        g->stats.local_held++;
        return;
    }
    for (;;) {
        g->vt.local_handled++;
        mgs_process_msg(g, m);
        m = g->vt.local_held;
        if (!m || m->h.seq != g->vt.local_handled)
            break;
        g->vt.local_held = m->next;
    }
}

/* m, made by mgs_send for node m->to_local of this cluster, leaves now.
 * The cluster's local messages arrive in the order they were sent, as the
 * other modes' single ready queue has them: the protocol needs the pair
 * order (an INV after the DATA it follows, docs/mgs.md "Order"), and two
 * nodes' clocks need not be in the order their steps ran (a handler moves
 * its node's clock on), so a message sent later by a node whose clock is
 * behind must not arrive first.  It arrives at least a cycle after the
 * last one (a tie between two nodes' events would go by their slots, not
 * by the order of the posts), and is handled after it (on_local_message). */
void mgs_vt_send_local(struct mgs *g, struct mgs_msg *m)
{
    uint64_t now = ini_pe_vtime(self_pe(g)), last = g->vt.last_local_at;
    uint64_t delay = last && last + 1 > now ? last + 1 - now : 0;
    m->h.seq = g->vt.local_sent++;
    m->ev.fn = on_local_message;
    if (ini_vt_post_local(self_pe(g), g->pes[m->to_local], delay, &m->ev) != 0)
        mgs_fatal("the virtual-time machine stopped (%s)", strerror(errno));
    g->vt.last_local_at = m->ev.at;
}

/* ---- the nodes' threads ---------------------------------------------------- */

static void on_job(struct ini_pe *pe, struct ini_vt_event *ev)
{
    (void)ev;
    mgs_g->vt.go[ini_pe_local(pe)] = 1;
}

static void on_stop(struct ini_pe *pe, struct ini_vt_event *ev)
{
    (void)ev;
    mgs_g->vt.go[ini_pe_local(pe)] = 2;
}

static void on_stopped(struct ini_pe *pe, struct ini_vt_event *ev)
{
    (void)pe;
    (void)ev;
    mgs_g->vt.stopped++;
}

static bool told(struct mgs *g, void *arg)
{
    (void)arg;
    return g->vt.go[tls_node] != 0;
}

/* Node `local` (1..n-1): serves its inputs until given work or the stop. */
static void *node_thread(void *arg)
{
    struct mgs *g = mgs_g;
    tls_node = (int)(intptr_t)arg;
    struct ini_pe *pe = self_pe(g);
    for (;;) {
        if (ini_pe_hold(pe) != 0)
            mgs_fatal("the virtual-time machine stopped");
        serve_until(g, told, NULL);
        int what = g->vt.go[tls_node];
        g->vt.go[tls_node] = 0;
        if (what == 2) {
            g->vt.ack[tls_node].fn = on_stopped;
            if (ini_vt_post_local(pe, g->pes[0], 0, &g->vt.ack[tls_node]) != 0)
                mgs_fatal("the virtual-time machine stopped");
            ini_pe_done(pe);      /* never computes again: holds nothing back */
            return NULL;
        }
        ini_pe_release(pe);
        g->vt.job(g->vt.job_arg, tls_node);
    }
}

int mgs_vt_start(struct mgs *g, char *err, size_t errlen)
{
    tls_node = 0;
    for (int k = 1; k < g->n_pes; k++)
        if (pthread_create(&g->vt.threads[k], NULL, node_thread, (void *)(intptr_t)k) != 0) {
            snprintf(err, errlen, "cannot start the thread of node %d", k);
            return -1;      /* the machine cannot run without it: the run ends */
        }
    return 0;
}

/* Node 0, holding its turn, posts fn to nodes 1..n-1. */
static void tell_nodes(struct mgs *g, void (*fn)(struct ini_pe *pe, struct ini_vt_event *ev))
{
    for (int k = 1; k < g->n_pes; k++) {
        g->vt.job_ev[k].fn = fn;
        if (ini_vt_post_local(self_pe(g), g->pes[k], 0, &g->vt.job_ev[k]) != 0)
            mgs_fatal("the virtual-time machine stopped");
    }
}

void mgs_start_nodes(void (*fn)(void *arg, int local), void *arg)
{
    struct mgs *g = mgs_g;
    g->vt.job = fn;
    g->vt.job_arg = arg;
    if (ini_pe_hold(self_pe(g)) != 0)
        mgs_fatal("the virtual-time machine stopped");
    tell_nodes(g, on_job);
    ini_pe_release(self_pe(g));
}

static bool all_stopped(struct mgs *g, void *arg)
{
    (void)arg;
    return g->vt.stopped == g->n_pes - 1;
}

void mgs_vt_stop(struct mgs *g)
{
    if (ini_pe_hold(self_pe(g)) != 0)
        mgs_fatal("the virtual-time machine stopped");
    tell_nodes(g, on_stop);
    serve_until(g, all_stopped, NULL);
    ini_pe_release(self_pe(g));
    for (int k = 1; k < g->n_pes; k++)
        pthread_join(g->vt.threads[k], NULL);
    if (g->vt.local_held)   /* every local message is handled before the nodes stop */
        mgs_fatal("local message %u was never handled (next expected %u)", g->vt.local_held->h.seq,
                  g->vt.local_handled);
}

int mgs_virtual(void) { return mgs_g && mgs_g->vt.on; }

void mgs_work_cycles(uint64_t cycles)
{
    struct mgs *g = mgs_g;
    if (g && g->vt.on)
        ini_work_cycles(self_pe(g), cycles);
}

double mgs_vtime_seconds(void)
{
    struct mgs *g = mgs_g;
    uint64_t hz = g && g->vt.on ? ini_cn_vtime_hz(g->cn) : 0;
    return hz ? (double)ini_pe_vtime(self_pe(g)) / (double)hz : -1;
}
