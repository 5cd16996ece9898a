/*
 * critical.h - `ini-trace critical`: for each step between two barriers,
 * the chain of compute and message segments that set its length, and the
 * share of that chain its messages spent queued at INIs (docs/traces.md,
 * "The critical path").
 *
 * A step ends when the last compute thread leaves the barrier.  From that
 * instant the chain is walked back, each link the one that was last to
 * enable the next (run_graph.h):
 *
 *   a request's completion     <- the action that completed it
 *   an action                  <- its trigger: the message it processed
 *                                 (through the receive wait, the receiving
 *                                 INI's service and queue, the wire, the
 *                                 sending INI's service and queue, the
 *                                 hand-over to the INI, back to the action
 *                                 that sent it), the request it took (back
 *                                 through the compute before the request
 *                                 and the thread's wake-up to its previous
 *                                 completion), or its parent action
 *
 * until it reaches the step's start.  The segments are summed by kind;
 * their sum is the step's length.  Queueing at an INI counts all the time a
 * message waited while that INI served others: an INI's loop takes new
 * work only between turns (ini/daemon/inid_loop.c), so a message that arrives
 * during a service waits in its ring or port, before the arrival stamp t1,
 * as much as one that waits in the queue after it.
 */
#ifndef CRITICAL_H
#define CRITICAL_H

#include "run_graph.h"

enum crit_seg {
    CRIT_COMPUTE,       /* a compute thread computing */
    CRIT_WAKE,          /* a thread waking after its request completed, or taking it up */
    CRIT_PROTOCOL,      /* the protocol thread's work, and its wait to start it */
    CRIT_HANDOVER,      /* a message in the sending node's ring until its INI took it */
    CRIT_QUEUE,         /* waiting at an INI while it served other messages: in its queue, and
                           before its loop took the message in (both INIs) */
    CRIT_SERVICE,       /* served by an INI (both INIs) */
    CRIT_WIRE,          /* between the INIs */
    CRIT_RECEIVE,       /* delivered, until the receiving protocol thread acted on it */
    CRIT_KINDS
};

struct crit_step {
    double start, end;              /* ns on the run's clock */
    double seg[CRIT_KINDS];         /* ns of each kind on the chain */
    int messages;                   /* messages on the chain */
    int thread;                     /* the thread that left the barrier last */
};

/* What ends the steps: barriers; without any, the program's marks
 * (ini_pe_trace_mark); without those, the run is one step. */
enum crit_ends { CRIT_BY_BARRIERS, CRIT_BY_MARKS, CRIT_WHOLE_RUN };

struct crit_result {
    enum crit_ends ends;
    int n_steps;
    struct crit_step *steps;
    struct crit_step total;         /* sums (start, end: the first step's start, the last's end) */
};

const char *crit_seg_name(int k);
/* 0, or -1 with one line in err. */
int  critical_run(const struct run_graph *g, struct crit_result *out, char *err, size_t errlen);
void critical_free(struct crit_result *r);

#endif
