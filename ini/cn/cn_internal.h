/*
 * cn_internal.h - the compute-node library's private state: a process's
 * (struct ini_cn) and a node's (struct ini_pe), shared by the library's
 * files (ini_cn.c, cn_vtime.c); programs see only ini_cn.h's opaque types.
 */
#ifndef INI_CN_INTERNAL_H
#define INI_CN_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>

#include "cn_sync.h"
#include "cn_vtime.h"
#include "fabric.h"
#include "ini_cn.h"
#include "loadbal.h"
#include "trace_cn.h"

struct handler_slot {
    ini_handler_fn fn;
    void *arg;
};

struct ini_pe {
    _Alignas(64) struct ini_cn *cn;
    int id, local;
    int in_handler;
    int next_in;                              /* ring to read first: fairness */
    _Atomic uint32_t kicked;                  /* ini_pe_kick: ini_wait returns */
    uint32_t seq;
    struct ini_lb_pe lb;
    struct ini_ring_prod out[INI_MAX_INIS_PER_CLUSTER];
    struct ini_ring_cons in[INI_MAX_INIS_PER_CLUSTER];
    struct ini_pe_stats stats;
    struct ini_cn_trace *trace;               /* NULL: not tracing (trace_cn.h) */
    uint32_t handling_seq;                    /* sequence of the message whose handler runs */
    struct cn_auto_trace at;                  /* the library's own records (cn_trace.c) */
    struct pe_sync sync;                      /* the barrier's and the bursts' (cn_sync.h) */
    struct cn_vt_pe vt;                       /* the virtual-time mode's node (cn_vtime.h) */
};

/* Doorbell FIFOs of the cluster's INIs, opened once per process. */
struct ini_wake {
    int fd[INI_MAX_INIS_PER_CLUSTER];
};

struct ini_cn {
    struct ini_config cfg;
    struct ini_segment *seg;
    int claim_fd;                             /* holds the segment's lock: one program per cluster */
    int cluster;
    int n_pes, n_inis;
    int spin_us;
    int yield_us;                             /* after spinning, sched_yield this long */
    int adaptive;                             /* PEs sleep when idle */
    uint64_t overhead_ns;                     /* Δo knob, per send and per receive */
    int overhead_sleep;
    struct handler_slot handlers[INI_MAX_HANDLERS];
    struct ini_pe *pes;
    struct ini_wake wake;
    /* The compute nodes' trace (trace_cn.h): one buffer per PE, written
     * to trace_path at detach.  NULL when not tracing. */
    struct ini_cn_trace *traces;
    struct ini_cn_trace_info trace_info;
    char trace_path[512];
    _Atomic int program_traces;               /* the program took the trace over (ini_pe_trace) */
    struct cn_sync sync;                      /* the barrier's and the bursts' (cn_sync.h) */
    struct cn_vt vt;                          /* the virtual-time mode (cn_vtime.h); vt.m NULL: off */
};

/* Runs the handler of record rec, taken from the ring of the cluster's
 * INI `ini` (ini_ring_next gave `end`), and releases it (ini_cn.c). */
void cn_handle_record(struct ini_pe *pe, int ini, struct ini_rec *rec, uint64_t end);

#endif
