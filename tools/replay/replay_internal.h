/*
 * replay_internal.h - the state of a replay, shared by replay.c (set-up:
 * what is kept from the run, the dependencies; output: synthetic traces)
 * and replay_sim.c (the event loop).  Not an interface.
 */
#ifndef REPLAY_INTERNAL_H
#define REPLAY_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "config.h"
#include "loadbal.h"
#include "replay.h"

enum ev_type {
    EV_SEND,            /* a message is handed over (msg) */
    EV_INI_TURN,        /* an INI's loop starts a turn (ini) */
    EV_BATCH_END,       /* an INI served its turn's work (ini) */
    EV_OUT_DONE,        /* the sending INI is done with a message (msg) */
    EV_IN_AVAIL,        /* its last frame reached the receiving INI's port (msg) */
    EV_IN_DONE,         /* the receiving INI delivered it (msg) */
    EV_ACTION_READY,    /* an action can be served by its protocol thread (action) */
    EV_ACTION_START,    /* an action starts (action) */
    EV_SERVER_FREE,     /* a protocol thread ended an action (server) */
    EV_SERVER_UNBLOCK,  /* a node's thread ends its computing (server: node mode) */
    EV_REQ_SUBMIT,      /* a thread makes a request (req) */
    EV_REQ_COMPLETE,    /* a request is completed (req) */
    EV_ACK_AVAIL,       /* an ack frame reached the sending INI's port (ack) */
    EV_ACK_TIMER,       /* a receiving INI's ACK timer expires (conn) */
};

struct event {
    double t;
    uint64_t seq;       /* ties in insertion order */
    int type, idx;
};

/* A message's part in the replay: what is kept, what is re-computed. */
struct m_sim {
    double svc_o, svc_i;        /* service at the sending and receiving INI (scaled) */
    double lam_o, lam_i;        /* wake-up lag when the INI was idle; < 0: the run's median */
    double ready_lag;           /* a message without INI records: send to its action's ready */
    int out_ini, in_ini;        /* sim INIs (global), -1 */
    uint64_t carried_load;      /* the sending INI's load, for load-aware */
    int slots;                  /* of the window: 1, or its segments */
    int piggy;                  /* an ack that rides on it (replay_flow.c), -1 */
    bool released;              /* its ring record given back (acknowledged, or served here) */
};

/* An item waiting at an INI. */
struct item {
    int msg;                    /* -1: an ack frame */
    int ack;                    /* that ack's record */
    bool in;                    /* a frame from the network; else a compute node's record */
    int pe_local;               /* order of the compute nodes' rings */
    double avail;
};

/* One output record of a synthetic INI trace. */
struct out_rec {
    uint8_t kind;
    uint16_t src, dst, peer;
    uint32_t len, qlen, seq;
    double t1, done;
};

struct ini_sim {
    int cluster, index;
    bool flush_at_end;          /* no O: what a turn made leaves when the turn ends (inid_loop.c) */
    struct item *wait;
    int n_wait;
    size_t cap_wait;
    bool busy;                  /* a turn is coming or running */
    double until;               /* the end of the last service */
    double turn_cost;           /* a turn's own cost (replay_flow.c), ns */
    struct out_rec *recs;
    size_t n_recs, cap_recs;
    _Atomic uint64_t submitted, processed;
    _Atomic uint32_t inbound;
    struct ini_lb_conn lb;
};

/* The array v (*cap elements of size bytes) with room for element n:
 * v itself, or v grown to twice its size (first elements at first) with
 * *cap updated; NULL out of memory, v and *cap left as they were.  The
 * replay's growing arrays (its events, waits, acks, output records). */
static inline void *replay_grow(void *v, size_t n, size_t *cap, size_t size, size_t first)
{
    if (n < *cap)
        return v;
    size_t c = *cap ? 2 * *cap : first;
    void *g = realloc(v, c * size);
    if (g)
        *cap = c;
    return g;
}

/* A queue of ints that grows; head and tail count from the start and
 * keep their values when it grows (ring_sim.taken is such an index). */
struct fifo {
    int *v;
    int head, tail, cap;
};

static inline bool fifo_empty(const struct fifo *f)
{
    return f->head == f->tail;
}

static inline int fifo_at(const struct fifo *f, int i)
{
    return f->v[i % f->cap];
}

/* 0, or -1 out of memory. */
static inline int fifo_push(struct fifo *f, int x)
{
    if (f->tail - f->head == f->cap) {
        int cap = f->cap ? 2 * f->cap : 64;
        int *v = malloc((size_t)cap * sizeof(int));
        if (!v)
            return -1;
        for (int i = f->head; i < f->tail; i++)
            v[i % cap] = fifo_at(f, i);
        free(f->v);
        f->v = v;
        f->cap = cap;
    }
    f->v[f->tail++ % f->cap] = x;
    return 0;
}

/* What runs the actions: a cluster's protocol thread (MGS), or in node
 * mode (a program whose nodes run their own handlers between their
 * computing: the trace header's INI_CN_HDR_NODE_HANDLERS) each node's own
 * thread, which takes no action while it computes (blocked_until). */
struct server {
    bool busy;
    double blocked_until;
    struct fifo queue;          /* actions ready, in order */
    double lag_idle, lag_busy;  /* the run's medians */
    double first;               /* its first action in the run: the program had not started it before */
};

struct a_sim {
    int pending;                /* unresolved dependencies */
    double bound;               /* the latest bound so far */
    double start;
    bool started;
    bool idle_class;            /* in the run it found its thread idle */
    double lag;                 /* its own lag in the run */
};

struct cluster_sim {
    int n_pes;
    int pes[INI_MAX_PES_PER_CLUSTER];   /* global ids, ascending; local index = position */
    int n_inis_run, pe_policy, ini_policy;
    int first_ini, n_inis;      /* sim INIs */
    double start_ns, end_ns;    /* its INIs' run span in the run */
};

/* A compute node's ring at an INI: its messages in order, [head, taken)
 * taken by the INI and not yet given back in order, [taken, tail) not
 * yet taken (inid takes at most INID_RING_INFLIGHT, 64, ahead of the
 * oldest it has not given back: inid_loop.c poll_pes). */
struct ring_sim {
    struct fifo q;
    int taken;
};

/* A connection (sending INI x receiving INI, sim ids): the sender's slots
 * in flight and its messages waiting for the window; the receiver's slots
 * not yet acknowledged and its ACK timer. */
struct conn_sim {
    int in_flight;
    struct fifo stall, sent;    /* waiting for the window; sent, not all acknowledged */
    int sent_acked;             /* slots of sent's first message acknowledged */
    int unacked;
    bool ack_timer;
};

struct ack_sim {
    int conn, slots;
};

/* Compressed lists: for item i, idx[first[i] .. first[i+1]). */
struct csr {
    int *first, *idx;
};

struct replay {
    const struct run_graph *g;
    struct replay_params p;
    struct replay_result *res;
    int n_clusters;
    struct cluster_sim *cl;
    int n_inis;
    struct ini_sim *inis;
    struct ini_lb_pe *lb_pe;    /* per global PE */
    bool node_mode;             /* servers per node, blocked while their thread computes */
    bool interrupts;            /* node mode of a virtual-time run: actions run at arrival, during compute */
    bool one_input;             /* a virtual-time run: an INI serves one input per event, earliest first */
    int n_srv;
    struct server *srv;         /* per cluster, or per node (node_mode) */
    int *blk_first;             /* node mode, per node: its computing intervals in the run,
                                   blk[blk_first[pe] .. blk_first[pe + 1]), by start */
    double (*blk)[2];
    struct m_sim *ms;
    struct a_sim *as;
    double *req_submit, *req_complete;   /* replayed */
    int *req_pred;              /* the request whose completion a request follows, -1 */
    struct csr caused, completed, children, req_next, join_out;
    int *join_completer;        /* per join record: the completer action, -1 */
    double *join_off;           /* per join record: its bound's offset */
    double lam_o_med, lam_i_med, wire;
    int window;                 /* the run's, 0: not known, not modelled */
    double ack_timeout;         /* ns */
    struct conn_sim *conns;     /* [out * n_inis + in] */
    struct ring_sim *rings;     /* [out * max_pe + src_pe] */
    struct ack_sim *acks;
    int n_acks;
    size_t cap_acks;
    int *turn_out;              /* a turn's messages that left for the network (each message once) */
    bool as_run;                /* INI count and policy as the run's: the run's INIs */
    struct event *heap;
    size_t n_heap, cap_heap;
    uint64_t seq;
    double now;                 /* the event being handled */
};

/* The server that runs action a. */
static inline int replay_server_of(const struct replay *r, const struct rg_action *a)
{
    return r->node_mode ? a->pe : a->cluster;
}

/* replay.c: the instant an action's trigger was ready in the run */
double replay_run_ready(const struct run_graph *g, const struct rg_action *a);
/* replay.c: idx lists of n owners from owner[i], i < m (owner < 0: none) */
int  replay_csr(struct csr *c, int n, int m, const int *owner);
/* replay_deps.c */
int  replay_requests(struct replay *r);
int  replay_joins(struct replay *r);
/* replay_flow.c: the window, acks and a turn's own cost.  admit: 1 the
 * message may go (its slots taken), 0 it waits for the window, -1 out of
 * memory; next_stalled: a waiting message of INI ini that may go now
 * (taken off its list), -1 none. */
int  replay_flow_setup(struct replay *r, char *err, size_t errlen);
void replay_flow_free(struct replay *r);
int  replay_flow_submit(struct replay *r, int msg, double now);
int  replay_flow_admit(struct replay *r, int msg, bool retry);
int  replay_flow_release(struct replay *r, int msg, double now);
int  replay_flow_next_stalled(struct replay *r, int ini);
bool replay_flow_stalled_ready(const struct replay *r, int ini);
int  replay_flow_delivered(struct replay *r, int msg, double now);
int  replay_flow_ack_timer(struct replay *r, int conn, double now);
int  replay_flow_ack_taken(struct replay *r, int ack, double now);
/* replay_sim.c */
int  sim_push(struct replay *r, double t, int type, int idx);
int  sim_take(struct replay *r, int msg, double now);     /* its INI takes a compute node's message */
int  sim_run(struct replay *r, char *err, size_t errlen);
void sim_resolve(struct replay *r, int action, double bound);

#endif
