/*
 * ini_cn.h - the compute-node interface: how a program's compute nodes
 * (PEs) send active messages to PEs of other clusters through the INIs.
 *
 * A cluster's compute nodes are the threads of one process.  The process
 * attaches once to its cluster (ini_cn_attach_env, from the environment the
 * launcher sets: INI_CONFIG, INI_CLUSTER, INI_SEGMENT, and INI_POLICY and
 * INI_KNOBS for ini-cluster run's --policy and --knob), registers its
 * handlers, then runs one thread per PE (ini_cn_run).  Each struct
 * ini_pe is owned by one thread at a time (its PE's, or one serving
 * several PEs): send, poll and wait are called only by that thread, so the
 * fabric needs no lock.
 *
 *   send: the PE picks one of its cluster's INIs by the compute-node policy
 *         (loadbal/), writes the message into its ring to that INI (the one
 *         copy, the "DMA" to the INI) and publishes it.  If the ring is full
 *         it keeps serving its own incoming messages while it waits, unless
 *         it is inside a handler.
 *   poll: runs the handler of every message delivered to this PE; the
 *         handler sees the payload in place in the ring, valid only during
 *         the call.  Handlers may send.
 *   wait: like poll, but sleeps (adaptive idle: spin for idle.spin_us,
 *         hand the core over for idle.yield_us, then a futex) until at
 *         least one message has been handled or the timeout passes.  One thread
 *         may also wait for several PEs at once (ini_wait_any).
 *
 * Messages between two PEs through one INI pair arrive in order; see
 * docs/architecture.md for what each scheduling policy guarantees.
 */
#ifndef INI_CN_H
#define INI_CN_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ini_cn;   /* one attached cluster process */
struct ini_pe;   /* one compute node of it */

/* Called on the receiving PE's thread.  `data` is valid during the call. */
typedef void (*ini_handler_fn)(struct ini_pe *pe, int src_pe, const void *data,
                               uint32_t len, void *arg);

/* Loads the configuration named by INI_CONFIG, only to check it: a
 * program calls it before attaching, so that a bad configuration is bad
 * input (one line "FILE:LINE: FIELD: why" in err, -1; exit status 2 by
 * docs/config.md) and not a failure to attach.  0 when it loads, or when
 * INI_CONFIG is not set (the attach reports that). */
int ini_cn_check_config_env(char *err, size_t errlen);
/* Attaches using INI_CONFIG, INI_CLUSTER and INI_SEGMENT from the
 * environment, with INI_POLICY (the compute-node policy) and INI_KNOBS
 * (Δo) when set.  NULL with a one-line message in err on failure. */
struct ini_cn *ini_cn_attach_env(char *err, size_t errlen);
/* Attaches to the segment `segment` of `cluster` described by cfg_path. */
struct ini_cn *ini_cn_attach(const char *cfg_path, int cluster, const char *segment,
                             char *err, size_t errlen);
void ini_cn_detach(struct ini_cn *cn);

/* Registers fn for handler id `id` (< INI_MAX_HANDLERS, and not
 * INI_CN_BARRIER_HANDLER, the library's own).  Before ini_cn_run. */
int ini_cn_register(struct ini_cn *cn, uint16_t id, ini_handler_fn fn, void *arg);

const struct ini_config *ini_cn_config(const struct ini_cn *cn);
int ini_cn_cluster(const struct ini_cn *cn);
int ini_cn_n_pes(const struct ini_cn *cn);          /* PEs of this cluster */
struct ini_pe *ini_cn_pe(struct ini_cn *cn, int local);
/* Overrides the compute-node policy of the config (before ini_cn_run). */
void ini_cn_set_policy(struct ini_cn *cn, enum ini_policy policy);

/* Runs fn(pe, arg) on one thread per PE of the cluster and waits for all;
 * returns the number of PEs whose fn returned non-zero. */
int ini_cn_run(struct ini_cn *cn, int (*fn)(struct ini_pe *pe, void *arg), void *arg);

int ini_pe_id(const struct ini_pe *pe);             /* global PE id */
int ini_pe_local(const struct ini_pe *pe);          /* index within cluster */
struct ini_cn *ini_pe_cn(struct ini_pe *pe);

/* Sends len bytes (<= stack.max_message) to PE dst_pe, to run handler
 * `handler` there.  Returns 0, or -1 with errno EINVAL (bad PE, handler or
 * length) or EPIPE (the INIs stopped).  The buffer is the caller's again on
 * return. */
int ini_send(struct ini_pe *pe, int dst_pe, uint16_t handler, const void *buf, uint32_t len);
/* Writes a message's len bytes at dst, its place in the ring (ini_send_inplace). */
typedef void (*ini_write_fn)(void *dst, uint32_t len, void *arg);
/* ini_send without the copy: write(dst, len, arg) writes the message
 * straight into its record in the ring to the INI, which then sends it
 * from there (a large message that would otherwise be built in a buffer
 * and copied).  write runs once, before the record is published; it must
 * fill all len bytes and call nothing of this library.  Returns as
 * ini_send does (EINVAL also for a NULL write with len > 0). */
int ini_send_inplace(struct ini_pe *pe, int dst_pe, uint16_t handler, uint32_t len, ini_write_fn write,
                     void *arg);

/* Runs handlers of delivered messages; returns how many ran. */
int ini_poll(struct ini_pe *pe);
/* Runs handlers, sleeping up to timeout_us (0: no limit) until at least
 * one ran or the PE is kicked.  Returns how many ran (0 on timeout or a
 * kick), -1 if the INIs stopped. */
int ini_wait(struct ini_pe *pe, uint64_t timeout_us);
/* Makes pe's ini_wait return: at once if it sleeps, else at its next
 * turn, or at the next call if none runs (a kick is remembered until
 * ini_wait sees it).  For a thread that waits for messages and other work
 * alike.  Any thread, and signal handlers: atomics and one futex wake. */
void ini_pe_kick(struct ini_pe *pe);
/* ini_wait for n PEs of this cluster process served by one thread (a
 * protocol thread that sends on behalf of, and receives for, several PEs):
 * runs the handlers of messages delivered to any of them, sleeping up to
 * timeout_us (0: no limit) until at least one ran or one of them is
 * kicked.  Returns how many ran (0 on timeout or a kick; every pending
 * kick of the group is used up), -1 if the INIs stopped, or -1 with errno
 * EINVAL if n is not 1..INI_MAX_PES_PER_CLUSTER or the PEs belong to
 * different processes.  While it sleeps, every PE of the group sleeps on
 * the doorbell of pes[0] (ini/cn/fabric.h); a PE may be in one waiting group
 * at a time, and no other thread may ini_wait for it meanwhile. */
int ini_wait_any(struct ini_pe **pes, int n, uint64_t timeout_us);

/* Per-PE counters. */
struct ini_pe_stats {
    uint64_t sent, sent_bytes, received, received_bytes, send_waits;
    uint64_t sent_per_ini[INI_MAX_INIS_PER_CLUSTER];
    uint64_t kept_yields;     /* idle.colocate: waits whose yield the scheduler kept, so the PE slept */
};
const struct ini_pe_stats *ini_pe_stats(const struct ini_pe *pe);

/* The node's trace buffer (ini/trace/trace_cn.h), NULL when the run is not
 * traced: a program adds its own records to it (MGS: actions, requests,
 * joins, tags of the messages it sends), from the node's thread. */
struct ini_cn_trace;
struct ini_cn_trace *ini_pe_trace(struct ini_pe *pe);
/* The stamp a record of pe's gets now (ini/trace/trace_cn.h): the TSC,
 * or in the virtual-time mode the node's clock plus the burst it has
 * computed since its last event, + INI_TRACE_VT_ORIGIN, the clock the
 * library's own records and the header's anchors use (a program's records
 * must share it, or the tools cannot join them).  From the node's thread,
 * or the thread holding its turn. */
uint64_t ini_pe_trace_now(struct ini_pe *pe);
/* Inside a handler: the sending node's sequence number of the message
 * being handled (the name the traces give it). */
uint32_t ini_pe_handling_seq(const struct ini_pe *pe);
/* Says how the program works, for the replay (trace_cn.h's
 * INI_CN_HDR_* flags, in the trace file's header); call before the
 * nodes run.  No effect when the run is not traced. */
void ini_cn_trace_model(struct ini_cn *cn, unsigned flags);

/* ---- Synchronisation and compute (ini/cn/cn_barrier.c, cn_work.c) ---- */

/* The handler id the library's barrier messages use, the last one
 * (INI_MAX_HANDLERS - 1): refused by ini_cn_register. */
#define INI_CN_BARRIER_HANDLER 255

/* The global barrier: returns once every compute node of every cluster
 * has called it as many times as this one.  Every node of the machine
 * calls it, each from the thread that owns its struct ini_pe, in the
 * same sequence.  The cluster's nodes meet in the process (an atomic
 * count; the last one kicks the others), its first node (local 0) sends
 * one message to every other cluster's first node and waits for theirs,
 * then the cluster's nodes meet again.  A cluster may be one barrier
 * ahead of another, never two.  Every wait runs the node's handlers, so a
 * node at the barrier still serves the messages of nodes that are not.
 *
 * stall_us: the longest wait with no barrier progress (an arrival, local
 * or remote) before giving up; 0: no limit.  Returns 0, or -1 with errno
 * EPIPE (the INIs stopped), ETIMEDOUT (stalled) or EINVAL (the barrier's
 * message could not be sent); after -1 the barrier is broken and the
 * program should end.
 *
 * Traced, the barrier records itself (trace_cn.h) as a node's blocking
 * request of kind INI_CN_REQ_BARRIER: the pick-up ACTION, the JOIN of the
 * cluster's arrivals (site INI_CN_SITE_BARRIER_ARRIVALS) and of the
 * release (INI_CN_SITE_BARRIER_RELEASE), each keyed by the barrier's
 * number, and an ACTION for every other cluster's arrival message: what
 * `ini-trace critical` and `whatif` read, in the model where each node
 * runs its own handlers (ini_cn_trace_model(cn, INI_CN_HDR_NODE_HANDLERS)).
 * A program that writes its own ACTION and REQ records beside these takes
 * their ids from ini_cn_trace_action_id and ini_cn_trace_req_id. */
int ini_cn_barrier(struct ini_pe *pe, uint64_t stall_us);

#define INI_CN_REQ_BARRIER           3      /* REQ kind: a barrier of every compute node */
#define INI_CN_SITE_BARRIER_ARRIVALS 0xfe   /* JOIN site: a cluster's arrivals at barrier n */
#define INI_CN_SITE_BARRIER_RELEASE  0xff   /* JOIN site: what releases the cluster from it */

/* A compute burst: the node's computing between two communication
 * calls, bracketed by ini_work_begin and ini_work_end on the node's
 * thread.  Today the burst is dilated (uniform mode, docs/experiments.md):
 * with a factor K > 1 (MGS_DILATE, else the configuration's `dilate`
 * knob) ini_work_end sleeps until the burst has lasted K times the CPU
 * time the thread used in it (ini/util/clock.h, ini_dilate_until); with
 * K = 1 both calls return at once and read no clock.  The calls are
 * where a virtual-time mode will charge the burst (measured, or declared)
 * to the node's clock instead, as SMPI times the computing between two
 * MPI calls; a program that brackets its computing with them needs no
 * change for it.  Bursts do not nest.  A burst may send (EM3D's sends
 * its new values), but ini_wait and ini_cn_barrier belong outside it:
 * their waiting is not computing. */
/* Declares `cycles` of the emulated machine's computing, done by the
 * caller since its last library call: in the virtual-time mode
 * (docs/architecture.md, "Virtual time") the node's clock moves on by
 * them when it next reaches the network; in the other modes nothing.  A
 * program that declares its work runs the same to the cycle every time. */
void ini_work_cycles(struct ini_pe *pe, uint64_t cycles);
/* The node's clock in the virtual-time mode, cycles of the emulated
 * machine (its clock rate: ini_cn_vtime_hz); 0 in the other modes. */
uint64_t ini_pe_vtime(const struct ini_pe *pe);
/* The emulated machine's cycles per second; 0 when not a virtual run. */
uint64_t ini_cn_vtime_hz(const struct ini_cn *cn);

/* Holding a node's turn (virtual time), for a runtime that runs its own
 * protocol on the node's thread (MGS on every node, as on Alewife): between
 * ini_pe_hold and ini_pe_release the thread is the node's event: ini_send
 * sends at the node's clock, ini_wait serves the node's next input (its
 * handler runs inside the call), ini_work_cycles charges the node.
 * ini_pe_hold ends the node's compute burst first, serving the inputs due
 * by its end.  Outside the virtual-time mode both are no-ops.  Holds do
 * not nest; a handler already holds.  0, or -1 (errno EPIPE) when the
 * machine stopped. */
int ini_pe_hold(struct ini_pe *pe);
void ini_pe_release(struct ini_pe *pe);
/* The node leaves the virtual-time machine for good (its thread ends,
 * holding the turn or not): from then on it holds back nothing.  A no-op
 * outside virtual time. */
void ini_pe_done(struct ini_pe *pe);

/* An event one node posts to a node of its own cluster in virtual time,
 * without the INIs: a message inside the cluster, carried by its hardware
 * (as Alewife's mesh carried MGS's messages within an SSMP).  The caller
 * owns the storage until fn runs; fn runs on `to`'s thread, holding its
 * turn, at the event's time, in (time, post) order among its inputs. */
struct ini_vt_event {
    struct ini_vt_event *next;
    uint64_t at;                 /* set by ini_vt_post_local */
    uint64_t order;              /* ties: the order of the posts */
    void (*fn)(struct ini_pe *pe, struct ini_vt_event *ev);
};
/* Posted by `from`, which holds its turn, to arrive `delay` cycles after
 * from's clock (at least the cost set's hand-over: nothing is quicker).
 * 0, or -1 with errno EINVAL (not a virtual run, not held, another
 * cluster) or EPIPE (the machine stopped). */
int ini_vt_post_local(struct ini_pe *from, struct ini_pe *to, uint64_t delay, struct ini_vt_event *ev);
void ini_work_begin(struct ini_pe *pe);
void ini_work_end(struct ini_pe *pe);
/* The dilation factor ini_work_end applies (1: none). */
double ini_cn_dilation(const struct ini_cn *cn);

/* Trace ids, per cluster process, from 1 (atomics: any thread): the
 * library's barrier and the program's own records share them. */
uint32_t ini_cn_trace_action_id(struct ini_cn *cn);
uint32_t ini_cn_trace_req_id(struct ini_cn *cn);
/* Records pe's blocking request `id` of kind `kind`, submitted at TSC
 * `submit`, completed now by action `done`, with the node's previous
 * return from a request (so the computing in between is kept); now
 * becomes that return.  No effect when the run is not traced. */
void ini_pe_trace_req(struct ini_pe *pe, int kind, uint32_t id, uint32_t done, uint64_t submit);

/* ---- Any program traced (ini/cn/cn_trace.c) ----
 *
 * In a traced run the library records, for a program that writes no
 * records of its own (one that never calls ini_pe_trace), what the tools
 * need (docs/api.md, "Tracing your program"): an ACTION for each handler
 * run, whose sends name it as their cause; a "program" action for the
 * sends made between handlers, ended by the node's next poll, wait,
 * barrier or mark (a request of kind INI_CN_REQ_SEND); each ini_poll or
 * ini_wait that ran handlers as a request (INI_CN_REQ_WAIT) completed by
 * the last of them.  A program that calls ini_pe_trace writes its own
 * (MGS, EM3D): the library then records only its SEND and RECV records
 * and the barrier, as before. */
#define INI_CN_REQ_WAIT 0xf0   /* REQ kind: an ini_poll or ini_wait that ran handlers */
#define INI_CN_REQ_SEND 0xf1   /* REQ kind: the sends made between two handlers or waits */
#define INI_CN_REQ_MARK 0xf2   /* REQ kind: ini_pe_trace_mark */

/* The program's own mark: ends one step of pe's run and starts the next,
 * for `ini-trace critical` (a run without barriers), with the program's
 * number for it.  One ACTION and one REQ record; nothing when the run is
 * not traced.  From the node's thread, outside a handler. */
void ini_pe_trace_mark(struct ini_pe *pe, uint32_t mark);

#ifdef __cplusplus
}
#endif

#endif
