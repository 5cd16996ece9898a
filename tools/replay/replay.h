/*
 * replay.h - `ini-trace whatif`: a traced run replayed, closed-loop,
 * through modelled INIs with another INI count, policy or service time
 * (docs/traces.md, "Asking a run what if").
 *
 * The run's graph (run_graph.h) says, for every message, the action it
 * was sent in, and for every action and request what it waited for.  The
 * replay keeps what the INIs do not decide and re-computes the rest:
 *
 *   kept from the run     each compute interval (a thread's time between
 *                         returning from a request and making the next),
 *                         each action's length and the offset of every
 *                         send, completion and join inside it, the
 *                         latencies of waking a sleeping INI or protocol
 *                         thread, the wire's least latency, and each
 *                         message's own service time at each INI it
 *                         passed (scaled as asked)
 *   re-computed           which INI a message takes (the policy, as
 *                         loadbal.h decides it), when it arrives there,
 *                         how long it queues (each INI is modelled as its
 *                         loop runs: a turn takes everything that arrived,
 *                         then serves it in order, first the compute
 *                         nodes' records, then the frames), when the
 *                         protocol thread gets to it, and so when every
 *                         later send, reply and request happens
 *
 * A request's reply that comes sooner lets its thread compute sooner, so
 * the run shortens (or lengthens) as it would for real: closed-loop.
 * Joins make a barrier wait for its last arrival, whichever that is in the
 * replay.  The output is a run of synthetic INI traces (summary records on
 * the replay's clock) that report.c turns into the same tables as
 * `ini-trace report`, plus the replayed span of the program.
 */
#ifndef REPLAY_H
#define REPLAY_H

#include "report.h"
#include "run_graph.h"

struct replay_params {
    int inis_per_cluster;           /* 0: as the run */
    int policy;                     /* enum ini_policy for both choices, -1: as the run */
    double service_scale;           /* every INI service multiplied by this (1) */
    double O_us;                    /* the O knob's mean instead of the run's; NAN: as the run */
};

struct replay_result {
    struct trace_run run;           /* synthetic INI traces (summary mode) */
    double span_ns, replay_span_ns; /* first request to last completion: measured, replayed */
    double service_factor;          /* the factor applied to each service time */
    double O_run_us;                /* the run's O knob (mean over its INIs) */
    double wire_ns;                 /* the wire's least latency taken */
    int window;                     /* the transport's window modelled, 0: none (no counters) */
    double turn_cost_ns;            /* a turn's own cost taken (mean over INIs), NAN: none */
    uint64_t msgs, passes;          /* messages replayed, INI passes */
    uint64_t anchored;              /* events kept at their measured time (nothing caused them) */
    int inis_per_cluster, policy;
};

/* 0, or -1 with one line in err. */
int  replay_run(const struct run_graph *g, const struct replay_params *p, struct replay_result *out,
                char *err, size_t errlen);
void replay_free(struct replay_result *r);

#endif
