/*
 * vt_node.h - a compute node's side of the virtual-time machine: how a
 * node's compute bursts, the handlers of the messages that reach it and
 * its own sends become events of the machine (vt_machine.h).
 *
 * A node runs the program's code off the turn (computing).  Each time it
 * enters the library (a send, a poll, a wait, the end of a compute burst)
 * it says how many cycles the code since its last event cost, and the
 * burst ends that much later in virtual time, unless messages reach it
 * first: those interrupt it, as they did on Alewife, each handler running
 * at the message's arrival (or when the previous handler ends) and pushing
 * the burst's end later by the handler's cycles.  When the burst's end
 * comes, ini_vt_node_enter returns with the turn held and the node's
 * clock at that end: the node then sends (ini_vt_node_send stamps and
 * posts) and leaves (ini_vt_node_leave) to run host code again.
 *
 * The node's inputs live where the library keeps them (the rings from its
 * INIs, or a test's queue); the node reaches them through two calls of
 * its owner, so that this file knows nothing of rings:
 *   earliest(ctx)   the stamp of its earliest unserved input, INI_VT_NEVER
 *                   when none is there;
 *   serve(ctx, at)  serves that input (runs its handler) at virtual time
 *                   `at`, and returns the handler's cycles.  A handler may
 *                   send (ini_vt_node_send: the node holds the turn).
 * Inputs with equal stamps are served in the owner's order (the rings'
 * order), which is deterministic.
 */
#ifndef INI_VT_NODE_H
#define INI_VT_NODE_H

#include <stdint.h>

#include "vt_machine.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ini_vt_inputs {
    uint64_t (*earliest)(void *ctx);
    uint64_t (*serve)(void *ctx, uint64_t at);
    void *ctx;
};

struct ini_vt_node {
    struct ini_vt_machine *m;
    uint32_t slot;
    uint64_t clock;             /* the end of what the node has done */
    uint64_t interrupts;        /* handlers run inside a burst */
    uint64_t interrupt_cycles;  /* what they added to the bursts */
};

/* Joins the machine as slot `slot`: the node starts computing at 0. */
void ini_vt_node_start(struct ini_vt_node *n, struct ini_vt_machine *m, uint32_t slot);

/* Enters the library after a burst of `cycles`: returns with the turn
 * held, the node's clock at the burst's end (later by every handler that
 * interrupted it), every input stamped before that served.  0, or -1
 * when the machine stopped (ini_vt_why says why). */
int ini_vt_node_enter(struct ini_vt_node *n, uint64_t cycles, const struct ini_vt_inputs *in);

/* Holding the turn, waits until an input arrives and serves every input
 * due by then, the clock moving to the end of their handlers.  Returns
 * with the turn held: 0, or -1 when the machine stopped (for a node that
 * waits for an input no one will send: a deadlock). */
int ini_vt_node_wait(struct ini_vt_node *n, const struct ini_vt_inputs *in);

/* Holding the turn and unable to go on before `until` (its ring to an
 * INI full: the INI takes nothing before its own clock): waits for the
 * turn at `until`.  With `serve` (not inside a handler) an input due
 * before then wakes it first and is served, as a node of the other modes
 * drains its deliveries while it waits to send; without, the node spends
 * the wait (charged to it: it is blocked, so its inputs cannot run), so
 * that a due input it cannot serve does not give it the turn again and
 * again at the same time.  0, or -1 when the machine stopped. */
int ini_vt_node_until(struct ini_vt_node *n, uint64_t until, const struct ini_vt_inputs *in, int serve);

/* Holding the turn: charges `cycles` of the node's own work (a send's
 * overhead) and posts a message to slot `to` arriving `latency` cycles
 * after the node's clock.  0, or -1 on a causality violation. */
int ini_vt_node_send(struct ini_vt_node *n, uint32_t to, uint64_t cycles, uint64_t latency);

/* Gives up the turn and returns to host code (a compute burst). */
void ini_vt_node_leave(struct ini_vt_node *n);

/* The node is done for good. */
void ini_vt_node_stop(struct ini_vt_node *n);

#ifdef __cplusplus
}
#endif

#endif
