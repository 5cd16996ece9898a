/*
 * cn_sync.h - the state of the compute-node library's barrier
 * (cn_barrier.c) and compute bursts (cn_work.c), kept inside struct
 * ini_cn and struct ini_pe (ini_cn.c), which hand it out through the two
 * accessors below.  Private to ini/cn/: the programs see ini_cn.h only.
 *
 * Ownership: struct cn_sync is the cluster process's, shared by its nodes'
 * threads through atomics only, apart from the fields set at attach and
 * read-only afterwards.  struct pe_sync is one node's, touched only by the
 * thread that owns the node (its handlers run there too: the barrier's
 * arrival handler runs on local node 0's thread, the only one that keeps
 * arrival counts).
 */
#ifndef INI_CN_SYNC_H
#define INI_CN_SYNC_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "ini_cn.h"

struct cn_sync {
    /* set at attach (ini_cn_sync_init), read-only afterwards */
    int cluster, n_local, n_clusters;
    int leader[INI_MAX_CLUSTERS];    /* by cluster: the global id of its first node */
    double dilate;                   /* ini_work_end's factor; <= 1: off */
    uint64_t clock_cost_ns;          /* one CPU clock read, taken off each burst */
    /* the cluster's meeting */
    atomic_uint count, gen;
    /* traced: the action of the cluster's last arrival at the current
     * barrier, and the action that released it */
    atomic_uint last_arrival, release;
    /* trace ids (ini_cn_trace_action_id, ini_cn_trace_req_id) */
    atomic_uint next_action, next_req;
};

struct pe_sync {
    uint32_t barriers;               /* barriers this node has begun: the next one's number */
    /* local node 0 only */
    uint64_t arrived[2];             /* other clusters' arrivals at barrier n, by n % 2 */
    uint32_t local_in;               /* n + 1 once barrier n's local arrivals are all in */
    uint32_t done;                   /* traced: the action that released barrier n */
    /* the current compute burst (dilated runs only) */
    uint64_t work_cpu0, work_wall0;
    uint64_t resumed;                /* traced: TSC of the node's last return from a request */
    /* virtual time: the meeting's last arrival wakes the others by an
     * event (a kick cannot end an emulated processor's wait) */
    struct ini_vt_event wake;
    int woken;
};

/* The library's own trace records for a program that writes none
 * (cn_trace.c), one node's, touched only by its thread.  Ids 0: none. */
struct cn_auto_trace {
    uint32_t program_act, program_req;   /* the open "program" action: sends between handlers */
    uint64_t program_t0;
    uint32_t handler_act;            /* the action of the handler running */
    uint32_t last_act;               /* the last handler's action in the current wait */
    int in_library;                  /* inside the barrier, which records itself */
};

struct cn_sync *ini_cn_sync(struct ini_cn *cn);
struct pe_sync *ini_pe_sync(struct ini_pe *pe);

/* At attach: the leaders, the ids' first values and the dilation factor
 * (ini_cn_sync_dilation).  0, or -1 with one line in err. */
int ini_cn_sync_init(struct cn_sync *s, const struct ini_config *cfg, int cluster, char *err, size_t errlen);
/* The dilation factor: MGS_DILATE, else `knob` (the configuration's
 * `dilate`, after INI_KNOBS); called again when the knobs change.  0, or
 * -1 with one line naming MGS_DILATE in err. */
int ini_cn_sync_dilation(struct cn_sync *s, double knob, char *err, size_t errlen);

/* The barrier's arrival message's handler (INI_CN_BARRIER_HANDLER),
 * registered at attach with the struct ini_cn as its argument. */
void ini_cn_barrier_on_arrive(struct ini_pe *pe, int src_pe, const void *data, uint32_t len, void *arg);

/* The node's trace buffer, NULL when not traced; unlike ini_pe_trace,
 * does not take the trace over from the library. */
struct ini_cn_trace *cn_pe_trace(struct ini_pe *pe);
/* The node's library records, NULL when not traced or when the program
 * took the trace over (ini_pe_trace). */
struct cn_auto_trace *cn_pe_auto(struct ini_pe *pe);

/* cn_trace.c, called traced only (pe's trace set): */
void     cn_auto_send(struct ini_pe *pe, uint16_t handler, uint64_t tsc);   /* before its SEND record */
uint32_t cn_auto_handler_begin(struct ini_pe *pe, struct cn_auto_trace *at);
void     cn_auto_handler_end(struct ini_pe *pe, struct cn_auto_trace *at, uint32_t act, uint16_t src,
                             uint32_t seq, uint64_t t0);
void     cn_auto_program_end(struct ini_pe *pe);                       /* closes the program action */
uint64_t cn_auto_wait_begin(struct ini_pe *pe);                        /* 0: not recorded */
void     cn_auto_wait_end(struct ini_pe *pe, uint64_t submit, int ran);
/* The node's time for a trace stamp: the host's TSC, or in virtual time
 * its emulated clock (trace.h, enum ini_trace_clock). */
uint64_t cn_trace_now(struct ini_pe *pe);
/* At the trace's write, in virtual time: the header's flag and its
 * anchors on the emulated clock (from cycle 0 to the latest node's). */
void     cn_trace_virtual_anchors(struct ini_cn *cn);

#endif
