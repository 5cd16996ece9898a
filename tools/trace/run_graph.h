/*
 * run_graph.h - one traced run as a graph of what happened: every message
 * with its records joined (sent by a compute node, through the sending
 * INI, through the receiving INI, its handler, the action that processed
 * it), the protocol thread's actions and what caused each message, the
 * compute threads' blocking requests, and the joins.  `ini-trace whatif`
 * (replay.c), `timeline`, `critical` and `profile` all read a run this
 * way.
 *
 * The files are joined by the messages' names (source PE, its sequence
 * number; a program's own local messages have a sequence of their own),
 * which version-2 INI traces and the compute-node traces carry, and put on
 * one clock: nanoseconds since the run's earliest anchor, each file's TSC
 * converted with its own rate and anchor (trace.h, trace_cn.h), plus its
 * host's offset from clocks.tsv.  Building refuses a run it cannot join:
 * version-1 INI traces, no compute-node traces, a trace that dropped
 * records, or a message named twice, each with one line.
 */
#ifndef RUN_GRAPH_H
#define RUN_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "cn_file.h"
#include "trace_file.h"

struct rg_msg {
    int src_pe, dst_pe;
    int src_cluster, dst_cluster;
    uint32_t seq;
    bool local;                     /* delivered by the program itself, through no INI */
    uint8_t type;                   /* the program's tag (MGS: enum mgs_msg_type) */
    uint32_t len, arg;
    double send;                    /* ns; NAN when no compute-node record */
    int cause;                      /* the action it was sent in, -1 */
    int out_file, in_file;          /* trace_run file index of its INI records, -1 */
    uint64_t out_i, in_i;           /* record index in that file */
    int recv;                       /* rg_recv index, -1 */
    int action;                     /* the (top-level) action that first processed it, -1; a
                                       request a home deferred is served again by an action
                                       nested in the one that ended the transaction */
};

struct rg_recv {
    int msg, pe;
    double t0, t1;                  /* the handler ran */
};

struct rg_action {
    int cluster, pe, kind;          /* kind: enum ini_cn_action_kind */
    uint32_t id;
    double t0, t1;
    int parent;                     /* enclosing action, -1 */
    int msg, req;                   /* what it acted on, -1 */
};

struct rg_req {
    int cluster, pe, thread, kind;
    uint32_t id;
    double submit, complete, resumed;   /* resumed: the thread's previous return from the program, NAN */
    int pickup, done;               /* actions, -1 */
    int pred;                       /* the request whose completion this one follows: the
                                       thread's previous one, or for a thread's first the latest
                                       completion in its cluster before the thread started (the
                                       request that let the program start it); -1: none */
};

struct rg_join {
    int cluster, site, action;
    uint32_t key;
    bool last;
    double t;
};

/* Per INI file: each record's instants in ns (s: service start, as the
 * report reconstructs it) and its message. */
struct rg_ini {
    double *t1, *s, *done;
    int *msg;
    double start, end;              /* the INI's run span */
    double ns_per_tsc;              /* the rate its stamps were converted with (its host's) */
    /* the union of its services [s, done], merged, ascending, with the
     * busy time before each interval: for rg_busy_in */
    size_t n_busy;
    double *busy_lo, *busy_hi, *busy_before;
};

struct run_graph {
    const struct trace_run *ini;
    const struct cn_run *cn;
    double origin_ns;               /* CLOCK_REALTIME (corrected) of time 0 */
    double end;                     /* the latest instant of any file */
    int n_msgs, n_recvs, n_actions, n_reqs, n_joins;
    struct rg_msg *msgs;
    struct rg_recv *recvs;
    struct rg_action *actions;
    struct rg_req *reqs;
    struct rg_join *joins;
    struct rg_ini *inis;            /* [ini->n_files] */
    int max_pe;                     /* PE ids are < max_pe */
    int8_t *pe_cluster;             /* [max_pe], -1 unknown */
    int unmatched;                  /* INI records of messages no compute node sent */
};

/* 0, or -1 with one line in err. */
int  run_graph_build(struct run_graph *g, const struct trace_run *ini, const struct cn_run *cn,
                     const struct clock_table *clocks, char *err, size_t errlen);
void run_graph_free(struct run_graph *g);
/* The run's files, loaded and joined: trace_run_load, cn_run_load,
 * clock_table_load, run_graph_build.  Frees all on failure. */
struct run_files {
    struct trace_run ini;
    struct cn_run cn;
    struct clock_table clocks;
    struct run_graph g;
};
int  run_files_load(struct run_files *rf, const char *dir, char *err, size_t errlen);
void run_files_free(struct run_files *rf);

/* The messages' time on the wire between INIs on different hosts (from
 * the sending INI's done to the receiving INI's arrival), the span that
 * the hosts' clock offsets bear on: how many, the least and the mean (ns;
 * NAN when none). */
struct rg_wire { int n; double min_ns, mean_ns; };
struct rg_wire rg_wire_between_hosts(const struct run_graph *g);

/* How long INI file f was serving messages within [a, b] (ns). */
double rg_busy_in(const struct run_graph *g, int f, double a, double b);

/* "message", "local message", "request". */
const char *rg_action_kind_name(int kind);

/* Three-way comparisons for the sorts of index arrays over a graph
 * (qsort_r with the graph as context): -1, 0 or 1; NaN equals all. */
static inline int rg_cmp_int(int a, int b)
{
    return (a > b) - (a < b);
}

static inline int rg_cmp_u64(uint64_t a, uint64_t b)
{
    return (a > b) - (a < b);
}

static inline int rg_cmp_double(double a, double b)
{
    return (a > b) - (a < b);
}

#endif
