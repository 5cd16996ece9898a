/*
 * mgs_internal.h - state shared by the MGS modules (not an API).
 *
 *   mgs_core.c   attach, the two views, the SIGSEGV handler, the request
 *                stack between compute threads and the protocol thread, the
 *                protocol thread's loop, and the message channel (sequence
 *                numbers that restore per-pair order, local delivery)
 *   mgs_page.c   the page protocol: client side (faults, fetch, twins,
 *                invalidation, single-writer) and home side (directory,
 *                one transaction per unit, deferred requests), and the
 *                delayed-update queue with its flushes
 *   mgs_sync.c   locks (local hand-off, token between clusters) and barriers
 *   mgs_stats.c  counters: JSON file and summary
 *   mgs_names.c  the names of message types and request kinds
 *   mgs_trace.c  the compute nodes' trace records MGS adds (ini/trace/trace_cn.h):
 *                actions, requests, joins, message tags
 *
 * Everything in struct mgs below except the request stack, the thread
 * registration and the read-only configuration is owned by the protocol
 * thread: only it reads or writes it, so no lock protects it.
 */
#ifndef MGS_INTERNAL_H
#define MGS_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fifo.h"
#include "ini_cn.h"
#include "mgs.h"
#include "segment.h"

#define MGS_MAX_CLUSTERS 64            /* copy sets are 64-bit masks */
#define MGS_HANDLER 201                /* our INI active-message handler id */
#define MGS_LOCK_HANDOFF_BOUND 8       /* local hand-offs while another cluster waits */

/* ---- messages ---------------------------------------------------------- */

/* Header of every MGS message (12 bytes; the payload follows). */
struct mgs_hdr {
    uint32_t seq;      /* per (source cluster, destination cluster), from 0 */
    uint8_t type;      /* enum mgs_msg_type */
    uint8_t src;       /* source cluster */
    uint16_t aux;      /* type-specific: flags, a cluster, a count */
    uint32_t arg;      /* type-specific: unit, lock, epoch, offset */
};
_Static_assert(sizeof(struct mgs_hdr) == 12, "MGS header is 12 bytes");

#define MGS_DIFF_LAST 1   /* aux of DIFF: the last piece of this diff */

/* A received (or locally sent) message, copied out of the INI ring. */
struct mgs_msg {
    struct mgs_msg *next;
    uint32_t len;            /* payload bytes */
    int16_t src_pe;          /* global PE id of the compute node that sent it */
    int16_t to_local;        /* the node of this cluster it is for (local index) */
    uint32_t trace_seq;      /* its name in the traces: the sender's sequence (ini_pe_handling_seq),
                                or MGS's local sequence for a message to this cluster */
    struct ini_vt_event ev;  /* virtual time: a message inside the cluster (mgs_vtime.c) */
    struct mgs_hdr h;
    uint8_t payload[];
};

struct mgs_msg_queue {
    struct mgs_msg *head, *tail;
};

/* ---- requests from compute threads ------------------------------------- */

enum mgs_req_kind {
    MGS_REQ_FAULT,
    MGS_REQ_LOCK,
    MGS_REQ_UNLOCK,
    MGS_REQ_BARRIER,          /* all compute threads */
    MGS_REQ_CLUSTER_BARRIER,  /* one thread per cluster */
    MGS_REQ_PUBLISH,          /* cluster 0: send set-up units to their homes */
    MGS_REQ_ENTER_PROTOCOL,   /* drop set-up contents, all units invalid */
    MGS_REQ_BLOB_SEND,
    MGS_REQ_BLOB_WAIT,
    MGS_REQ_COUNTERS,
    MGS_REQ_LOCKS_INIT,
};

/* One per thread (thread-local storage, so the signal handler needs no
 * allocation); a thread has at most one request outstanding.  Once the
 * protocol thread has popped it, `next` links it into the protocol
 * thread's own waiting lists. */
struct mgs_request {
    struct mgs_request *next;
    enum mgs_req_kind kind;
    int thread;               /* global thread id, -1 if not a compute thread */
    uint32_t unit;            /* FAULT */
    bool write;               /* FAULT */
    uint32_t lock;            /* LOCK, UNLOCK; nlocks for LOCKS_INIT */
    double *values;           /* BARRIER */
    int count;                /* BARRIER */
    const void *data;         /* BLOB_SEND, PUBLISH (length in size) */
    size_t size;
    void *result;             /* BLOB_WAIT: the blob; COUNTERS: destination */
    int error;                /* set by the protocol thread */
    _Atomic uint32_t done;    /* 0 pending, 1 done, 2 pending and the thread sleeps */
    uint64_t t_start;         /* BARRIER: arrival time */
    /* traced runs (mgs_trace.c): the TSC when the thread handed the
     * request over and when it last came back from MGS; the request's
     * name, given when the protocol thread takes it */
    uint64_t t_submit, t_resumed;
    uint32_t trace_id;
    /* virtual time (mgs_vtime.c): the node that made it, and the event by
     * which another node that finished it tells it so */
    int node;
    bool wake_pending;
    struct ini_vt_event wake;
};

/* ---- units --------------------------------------------------------------- */

enum mgs_unit_state {
    MGS_INVALID = 0,    /* no copy, application view PROT_NONE */
    MGS_FETCHING,       /* RREQ/WREQ sent, waiting for DATA */
    MGS_RO,             /* valid copy, read-only */
    MGS_RW,             /* valid copy, twin kept, on the DUQ (or being released) */
    MGS_SW,             /* single writer: read-write, no twin, not on the DUQ */
};

enum mgs_home_busy { MGS_IDLE = 0, MGS_BUSY_RELEASE, MGS_BUSY_RECALL };

struct mgs_unit {
    /* client side: this cluster's copy */
    uint8_t state;
    bool want_write;          /* FETCHING: a waiter wants to write */
    bool in_duq;
    uint8_t *twin;
    uint8_t prot;             /* the access its state allows (PROT_*): units smaller than a page share it */
    struct mgs_request *waiters;
    /* home side (units homed here) */
    uint64_t copyset;         /* clusters holding a copy */
    int8_t sw_owner;          /* single-writer cluster, -1 if none */
    uint8_t busy;             /* enum mgs_home_busy */
    int16_t releaser_pe;      /* the node whose REL started the release */
    int16_t pending;          /* INV replies still expected */
    struct mgs_msg_queue deferred;   /* requests waiting for the transaction */
};

/* ---- flush continuations -------------------------------------------------- */

enum mgs_cont_kind { MGS_CONT_TOKEN, MGS_CONT_ARRIVE };
struct mgs_cont {
    struct mgs_cont *next;
    enum mgs_cont_kind kind;
    uint32_t arg;
    int from;                 /* the releasing node (local index): sends the RELs */
};

/* ---- locks and barriers ---------------------------------------------------- */

struct mgs_lock {
    /* this cluster's view */
    bool have_token, held, departing, requested;
    int16_t next_pe;          /* the lock home told us to pass the token to this node */
    int16_t last_local;       /* the node here that held the lock last (sends the token on) */
    uint16_t handoffs;        /* local hand-offs since the token arrived */
    struct mgs_request *wait_head, *wait_tail;
    /* lock home: the node the token was last promised to (global PE id) */
    int16_t tail_pe;
};

struct mgs_barrier_state {
    uint32_t epoch;
    int arrived, expected, count;
    bool per_cluster;
    struct mgs_request *waiters;
    uint64_t t_first;
    int last_local;           /* the node that arrived last here: sends ARRIVE */
    /* cluster 0 only: collects ARRIVEs, answers each sender with GO */
    int clusters_arrived, master_count, participants;
    int16_t go_pe[MGS_MAX_CLUSTERS];
    double *table;            /* [participants][MGS_SUM_MAX] */
};

/* ---- the cluster process ----------------------------------------------- */

/* One kind of dilated thread's counters (mgs_dilate.c). */
struct mgs_dilation {
    _Atomic uint64_t sleeps, sleep_ns;   /* the sleeps that stretched the work */
    _Atomic uint64_t cpu_ns, span_ns;    /* its CPU time, and the wall-clock span it took */
};

/* A protocol iteration's start, while dilated. */
struct mgs_dilate_turn {
    uint64_t cpu0, wall0;
};

struct mgs {
    /* configuration (read-only after mgs_start) */
    int cluster, n_clusters;
    int total_threads;
    int local_threads[MGS_MAX_CLUSTERS];
    int thread_base[MGS_MAX_CLUSTERS];
    /* the compute nodes: global PE id of (cluster, local index), and back */
    int16_t pe_id[MGS_MAX_CLUSTERS][INI_MAX_PES_PER_CLUSTER];
    int8_t pe_cluster[INI_MAX_PES];
    int8_t pe_local[INI_MAX_PES];
    uintptr_t base;
    size_t size, unit, n_units;
    /* Units smaller than a page (MGS_UNIT_BYTES): units_per_page > 1, and
     * each page of the application view has the most restrictive of its
     * units' protections, page_prot[page] (the hardware protects pages). */
    size_t page;
    uint32_t units_per_page;
    uint8_t *page_prot;
    uint32_t max_message;
    char run_dir[512];

    /* memory */
    int memfd;
    uint8_t *app, *sys, *master;
    size_t bump;                        /* set-up allocation */
    _Atomic bool protocol_mode;         /* faults in the range are ours */

    /* INI (all NULL in a standalone single-cluster run) */
    struct ini_cn *cn;
    struct ini_pe *pes[INI_MAX_PES_PER_CLUSTER];  /* every node of this cluster */
    int n_pes;
    int spin_us;
    /* time dilation (mgs_dilate.c) */
    double dilate;                      /* compute threads run this many times slower */
    double dilate_protocol;             /* the protocol thread's busy iterations too */
    uint64_t clock_cost_ns;             /* one CPU-clock read, taken off each piece of work */
    struct mgs_dilation compute, protocol;   /* added by the threads that dilate */
    /* Standalone (no INIs, no pe): the protocol thread's futex word. */
    _Atomic uint32_t own_bell, own_bell_sleeping;

    /* virtual time (mgs_vtime.c): every node runs the protocol */
    struct {
        bool on;
        pthread_t threads[INI_MAX_PES_PER_CLUSTER];
        void (*job)(void *arg, int local);
        void *job_arg;
        int go[INI_MAX_PES_PER_CLUSTER];        /* set by an event: 1 work, 2 stop */
        int stopped;                            /* nodes that acknowledged the stop */
        uint64_t steps[INI_MAX_PES_PER_CLUSTER];  /* protocol steps each node ran (requests, messages) */
        uint64_t last_local_at;                 /* when the cluster's last local message arrives */
        uint32_t local_sent, local_handled;     /* local messages: sequence of the next sent, next handled */
        struct mgs_msg *local_held;             /* handled by nobody yet: reached before an earlier one */
        struct ini_vt_event job_ev[INI_MAX_PES_PER_CLUSTER], ack[INI_MAX_PES_PER_CLUSTER];
    } vt;

    /* requests from compute threads */
    _Atomic(struct mgs_request *) requests;
    pthread_t server;
    _Atomic bool stop;
    bool stopped;

    /* ---- owned by the protocol thread ---- */
    struct mgs_unit *units;
    uint32_t *duq;                      /* units on the delayed-update queue */
    size_t duq_len, duq_cap;
    struct {
        bool active;
        int outstanding;                /* RACK/SWGRANT still expected */
        struct mgs_cont *current, *next;
        bool next_wanted;
        int from;                       /* the releasing node of the flush in flight */
    } flush;
    uint32_t send_seq[MGS_MAX_CLUSTERS];
    uint32_t recv_seq[MGS_MAX_CLUSTERS];
    struct mgs_msg *held[MGS_MAX_CLUSTERS];   /* early arrivals, sorted by seq */
    struct mgs_msg_queue ready;         /* in order, to be processed */
    uint8_t *sendbuf;
    uint8_t *diffbuf;

    struct mgs_lock *locks;
    unsigned nlocks;
    struct mgs_barrier_state bar;

    int setup_acks_pending;
    struct mgs_request *publish_waiter;
    uint8_t *blob;
    size_t blob_len, blob_got;
    bool blob_complete;
    struct mgs_request *blob_waiter;

    struct mgs_counters stats;
    double machine[MGS_SUM_MAX];        /* totals over all clusters (mgs_stop) */

    /* the trace (mgs_trace.c), when the INIs trace: names and the action
     * in progress */
    struct {
        bool on;
        uint32_t next_action, next_req, next_local;
        uint32_t action;                /* 0: none */
    } tr;
};

/* The machine totals summed at shutdown, in this order. */
enum mgs_total {
    MGS_T_MSGS, MGS_T_BYTES, MGS_T_READ_FAULTS, MGS_T_WRITE_FAULTS, MGS_T_FETCHED, MGS_T_DIFFS,
    MGS_T_DIFF_BYTES, MGS_T_INVALIDATIONS, MGS_T_SW_GRANTS, MGS_T_SW_RECALLS, MGS_T_LOCAL_HANDOFFS,
    MGS_T_REMOTE_ACQUIRES, MGS_T_BARRIER_US, MGS_T_COUNT
};
void mgs_stats_totals(const struct mgs_counters *s, double out[MGS_T_COUNT]);
void mgs_stats_print_machine(struct mgs *g);

extern struct mgs *mgs_g;

/* core */
void mgs_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
uint64_t mgs_now_us(void);
/* Sends a message from node `from` of this cluster (local index) to the
 * compute node `to_pe` (global PE id): it leaves through the INI that the
 * scheduling policy picks for `from`, and arrives at the INI the policy
 * picks for `to_pe`, as each Alewife node sent its own messages.  A message
 * to this cluster is queued locally.  The payload is p1 then p2. */
void mgs_send(int from, int to_pe, int type, uint16_t aux, uint32_t arg, const void *p1, uint32_t l1,
              const void *p2, uint32_t l2);
void mgs_complete(struct mgs_request *r);
void mgs_protect(uint32_t unit, int prot);
static inline uint8_t *mgs_sys_unit(struct mgs *g, uint32_t u) { return g->sys + (size_t)u * g->unit; }
static inline uint8_t *mgs_master_unit(struct mgs *g, uint32_t u) { return g->master + (size_t)u * g->unit; }
static inline int mgs_unit_home(const struct mgs *g, uint32_t u) { return (int)(u % (uint32_t)g->n_clusters); }
static inline int mgs_lock_home(const struct mgs *g, uint32_t l) { return (int)(l % (uint32_t)g->n_clusters); }

/* Which compute node acts for a unit or lock in a cluster.  In the home
 * cluster it is the unit's home node (its directory's owner); elsewhere it
 * is the node that answers the unit's invalidations and recalls.  Units
 * homed in one cluster are dealt round-robin over its nodes, so that every
 * node, and under `static` every INI, carries its share. */
static inline int mgs_unit_node(const struct mgs *g, uint32_t u, int cluster)
{
    return (int)((u / (uint32_t)g->n_clusters) % (uint32_t)g->local_threads[cluster]);
}
static inline int mgs_node_pe(const struct mgs *g, int cluster, int local) { return g->pe_id[cluster][local]; }
static inline int mgs_unit_pe(const struct mgs *g, uint32_t u, int cluster)
{
    return mgs_node_pe(g, cluster, mgs_unit_node(g, u, cluster));
}
static inline int mgs_unit_home_pe(const struct mgs *g, uint32_t u) { return mgs_unit_pe(g, u, mgs_unit_home(g, u)); }
static inline int mgs_lock_home_pe(const struct mgs *g, uint32_t l)
{
    int home = mgs_lock_home(g, l);
    return mgs_node_pe(g, home, (int)((l / (uint32_t)g->n_clusters) % (uint32_t)g->local_threads[home]));
}
/* The local node of a compute thread (a request's `thread`); node 0 for a
 * thread that is not a compute thread. */
static inline int mgs_thread_node(const struct mgs *g, int thread)
{
    int local = thread - g->thread_base[g->cluster];
    return thread < 0 || local < 0 || local >= g->local_threads[g->cluster] ? 0 : local;
}
void mgs_queue_push(struct mgs_msg_queue *q, struct mgs_msg *m);
void mgs_queue_push_front(struct mgs_msg_queue *q, struct mgs_msg *m);
struct mgs_msg *mgs_queue_pop(struct mgs_msg_queue *q);
bool mgs_hold_by_seq(struct mgs_msg **list, struct mgs_msg *m);

/* the protocol's steps (mgs_core.c), run by the protocol thread, or in
 * virtual time by the node that holds the turn */
void mgs_handle_request(struct mgs *g, struct mgs_request *r);
void mgs_process_msg(struct mgs *g, struct mgs_msg *m);

/* virtual time (mgs_vtime.c) */
int mgs_vt_self(void);                       /* the calling thread's node */
int mgs_vt_start(struct mgs *g, char *err, size_t errlen);
void mgs_vt_stop(struct mgs *g);
void mgs_vt_submit(struct mgs *g, struct mgs_request *r);
void mgs_vt_complete(struct mgs *g, struct mgs_request *r);
void mgs_vt_send_local(struct mgs *g, struct mgs_msg *m);
/* Declares a handler's cycles, `bytes` copied (the header comment). */
void mgs_vt_charge(struct mgs *g, uint64_t bytes);

/* page protocol (mgs_page.c) */
int mgs_page_init(struct mgs *g);
void mgs_page_fault(struct mgs_request *r);
bool mgs_page_message(struct mgs_msg *m);      /* true: m was kept (deferred) */
void mgs_flush_request(struct mgs_cont *c);
void mgs_publish(struct mgs_request *r);
void mgs_enter_protocol_mode(void);

/* sync (mgs_sync.c) */
int mgs_locks_init(unsigned nlocks);
void mgs_sync_request(struct mgs_request *r);
void mgs_sync_message(struct mgs_msg *m);
void mgs_cont_run(struct mgs_cont *c);

/* trace (mgs_trace.c): all no-ops unless g->tr.on */
enum mgs_join_site {
    MGS_JOIN_BARRIER = 1,     /* key: epoch; a compute thread arrived (last: the cluster's last) */
    MGS_JOIN_MASTER,          /* key: epoch; cluster 0 got a cluster's ARRIVE (last: the last one) */
    MGS_JOIN_FLUSH,           /* key: flush number; a RACK or SWGRANT (last: the flush is done) */
    MGS_JOIN_RELEASE,         /* key: unit; an INV's reply at the home (last: the release is done) */
    MGS_JOIN_LOCK,            /* key: lock; token in, unlocked, forwarded (last: the token leaves) */
};
struct mgs_trace_act {
    uint32_t id, parent, ref;
    uint64_t t0;
    int kind, node, src_pe;
};
void mgs_trace_init(struct mgs *g);
/* The stamp now: the TSC, or in virtual time the calling node's clock. */
uint64_t mgs_trace_now(struct mgs *g);
/* An action (ini/trace/trace_cn.h) on a message or request, run by `node`. */
void mgs_trace_begin(struct mgs *g, struct mgs_trace_act *a, int kind, int node, int src_pe, uint32_t ref);
void mgs_trace_end(struct mgs *g, const struct mgs_trace_act *a);
void mgs_trace_begin_msg(struct mgs *g, struct mgs_trace_act *a, const struct mgs_msg *m);
void mgs_trace_begin_req(struct mgs *g, struct mgs_trace_act *a, struct mgs_request *r);
/* A request is completed (before mgs_complete hands it back). */
void mgs_trace_req_done(struct mgs *g, const struct mgs_request *r);
void mgs_trace_join(struct mgs *g, int node, int site, uint32_t key, bool last);
/* Before node `from` sends a message of this type and argument. */
void mgs_trace_tag(struct mgs *g, int from, int type, uint32_t arg);
/* A message from node `from` to this cluster's PE to_pe, delivered by MGS
 * itself: its SEND record; returns its local sequence. */
uint32_t mgs_trace_local_send(struct mgs *g, int from, int to_pe, int type, uint32_t arg, uint32_t len);

/* names (mgs_names.c): a request kind's, as the traces show it */
const char *mgs_req_name(int kind);

/* stats (mgs_stats.c) */
void mgs_stats_write(struct mgs *g);

/* dilation (mgs_dilate.c): MGS_DILATE, MGS_DILATE_PROTOCOL, else the
 * configuration's `dilate` knob; 0, or -1 with a message in err. */
int mgs_dilate_read_env(struct mgs *g, char *err, size_t errlen);
/* A compute thread: settles the work since its mark, at each call into
 * MGS (signal handler included); marks when the call returns. */
void mgs_dilate_compute(struct mgs *g);
void mgs_dilate_mark(const struct mgs *g, int thread);
/* A compute thread's setting and first mark (mgs_thread_enter). */
void mgs_dilate_compute_thread(const struct mgs *g, int thread);
/* The protocol thread: its setting, and each busy iteration's ends. */
void mgs_dilate_protocol_thread(const struct mgs *g);
void mgs_dilate_protocol_begin(const struct mgs *g, struct mgs_dilate_turn *t);
void mgs_dilate_protocol_end(struct mgs *g, const struct mgs_dilate_turn *t);
/* Copies the dilation counters (atomics) into out. */
void mgs_dilate_counters(struct mgs *g, struct mgs_counters *out);

#endif
