/*
 * mgs.h - MGS, a multigrain shared memory over the INI message system.
 *
 * The machine is the one `ini-cluster run` starts: one process per cluster,
 * one compute thread per compute node (PE) of the cluster.  MGS gives them a
 * shared address range at the same virtual address in every cluster process.
 * Inside a cluster, threads share it through the hardware (one process, one
 * page table).  Between clusters, coherence is kept in software at the grain
 * of a coherence unit (one or more 4 KiB pages) with eager release
 * consistency, multiple writers, twins and byte-exact diffs, a single-writer
 * optimisation, one delayed-update queue per cluster, hierarchical locks and
 * barriers.  docs/mgs.md describes the protocol; this header is the API that
 * par_mgs.c (par.h over MGS) and tools/litmus/mgs-litmus.c use.
 *
 * Structure of a cluster process
 *   - the application view: the shared range at MGS's fixed address, whose
 *     protection follows the cluster's state of each unit (none, read-only,
 *     read-write).  Accesses the state does not allow raise SIGSEGV.
 *   - the system view: the same memory (a memfd mapped twice), always
 *     read-write, touched only by the protocol thread, so a unit can be
 *     filled or diffed while application threads keep running.
 *   - the protocol thread: the only thread that sends or receives INI
 *     messages (through every PE's ini_pe, each message for the compute node
 *     it belongs to) and the only one that changes protocol state.  It
 *     serves incoming requests while every compute thread computes.
 *   - compute threads hand work to it (faults, lock, unlock, barrier) through
 *     a lock-free request stack and sleep on a futex until it is done.  The
 *     SIGSEGV handler does only that: record the fault, push, ring, wait
 *     (atomics and futex system calls, all async-signal-safe).
 *
 * Life cycle (SPMD: every cluster process runs the same program):
 *   mgs_start()            attach to the INIs, map the range (read-write,
 *                          "set-up mode"), start the protocol thread
 *   mgs_alloc()...         deterministic bump allocation, the same in every
 *                          process; set-up writes in cluster 0 are the real
 *                          ones, other clusters' are a dry run
 *   mgs_begin_parallel()   cluster 0 publishes its set-up data to the homes,
 *                          every cluster drops its set-up contents and enters
 *                          the protocol (all units invalid), global barrier
 *   mgs_thread_enter(id)   per compute thread; then mgs_lock/unlock/barrier
 *   mgs_stop()             global barrier, counters written, threads stopped
 */
#ifndef MGS_H
#define MGS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Attaches to the cluster named by the launcher's environment (INI_CONFIG,
 * INI_CLUSTER, INI_SEGMENT; INI_RUN_DIR, else MGS_RUN_DIR, for the counters
 * file), maps the shared range and starts the protocol thread.  Idempotent.
 * Environment knobs: MGS_SHARED_MB (range size in MiB, 1..65536, default
 * 64), MGS_UNIT_PAGES (pages per coherence unit, default 1) or
 * MGS_UNIT_BYTES (bytes per unit, a power of two from 256, smaller than a
 * page too: sub-page units, docs/mgs.md), MGS_BASE
 * (address of the range, default 0x3f0000000000), MGS_DILATE (time
 * dilation of the compute threads, 1..1000) and MGS_DILATE_PROTOCOL (of
 * the protocol thread), both by default the configuration's `dilate` knob,
 * else 1 (off).  Returns 0, or -1
 * with a one-line message in err. */
int mgs_start(char *err, size_t errlen);
/* Outside the launcher: one cluster of nthreads threads in this process, no
 * INIs (every home is local; the protocol still runs: faults, twins, diffs,
 * releases): tests and runs without the launcher.  A one-cluster machine
 * under the launcher uses mgs_start like any other. */
int mgs_start_standalone(int nthreads, char *err, size_t errlen);
int mgs_started(void);

/* The machine. */
int mgs_cluster(void);                 /* this process's cluster */
int mgs_n_clusters(void);
int mgs_total_threads(void);           /* compute nodes of the configuration */
int mgs_local_threads(int cluster);    /* compute nodes of a cluster */
int mgs_thread_base(int cluster);      /* global id of its first thread */
int mgs_cluster_of_thread(int thread);

/* The shared range. */
void *mgs_base(void);
size_t mgs_size(void);
size_t mgs_unit_size(void);
int mgs_home_of(const void *addr);     /* home cluster of the unit holding addr */

/* Set-up (before mgs_begin_parallel): bump allocation, zero-filled memory,
 * `align` a power of two.  NULL when the range is exhausted. */
void *mgs_alloc(size_t size, size_t align);
size_t mgs_allocated(void);            /* bytes of the range in use */

/* Cluster 0 sends len bytes to every other cluster (used to share the
 * program's input: the launcher gives programs /dev/null as stdin).  Other
 * clusters receive them with mgs_receive_blob (malloc'ed, NUL-terminated,
 * length in *len).  Before mgs_begin_parallel. */
int mgs_broadcast_blob(const void *data, size_t len);
void *mgs_receive_blob(size_t *len);

/* Ends set-up: publishes cluster 0's set-up data, checks that every cluster
 * allocated the same range and nlocks locks, enters the protocol, and waits
 * for all clusters.  Returns 0, or -1 with a message in err. */
int mgs_begin_parallel(unsigned nlocks, char *err, size_t errlen);

/* Marks the calling thread as compute thread `global_id` (for the order of
 * mgs_barrier_sum and for diagnostics). */
void mgs_thread_enter(int global_id);

/* Hierarchical locks 0..nlocks-1 (acquire / release points). */
void mgs_lock(unsigned id);
void mgs_unlock(unsigned id);

/* Barrier over every compute thread of every cluster (release, then
 * acquire).  With count > 0 it is also a sum: values[0..count-1] of thread
 * 0..P-1 are added in thread order (v0 + v1 + ... left to right) and every
 * thread gets the identical result.  count <= MGS_SUM_MAX. */
#define MGS_SUM_MAX 16
void mgs_barrier(double *values, int count);

/* A barrier with one participant per cluster (the calling thread), for
 * start-up and shutdown; values as above, summed in cluster order. */
void mgs_cluster_barrier(double *values, int count);

/* Final global barrier, then counters to RUN_DIR/mgs-cluster<C>.json, a
 * summary line on stderr, protocol thread stopped, INIs detached. */
void mgs_stop(void);

/* The virtual-time mode (`ini-cluster run --time virtual`; docs/mgs.md,
 * "Virtual time"): MGS runs on every node, as on Alewife, and no protocol
 * thread is started.  Each compute node of the cluster is a thread from
 * mgs_start to mgs_stop (node 0 the caller's); between two pieces of work
 * a node serves the messages that reach it.  mgs_virtual: 1 in this mode.
 * mgs_start_nodes runs fn(arg, local) once on each node 1..n-1 of this
 * cluster and returns at once (the caller, node 0, does its own part);
 * only in this mode.  mgs_work_cycles declares the calling node's
 * computing, in cycles of the emulated machine (ini_work_cycles); a no-op
 * in the other modes. */
int mgs_virtual(void);
void mgs_start_nodes(void (*fn)(void *arg, int local), void *arg);
void mgs_work_cycles(uint64_t cycles);
/* The calling node's clock in emulated seconds (virtual time), -1 in the
 * other modes: what a program's own timings read on the emulated machine. */
double mgs_vtime_seconds(void);

/* Counters, per cluster (see docs/mgs.md). */
enum mgs_msg_type {
    MGS_M_RREQ = 1,     /* read fetch request, client -> home */
    MGS_M_WREQ,         /* write fetch request, client -> home */
    MGS_M_DATA,         /* unit contents, home -> client */
    MGS_M_REL,          /* release of a written unit, client -> home */
    MGS_M_INV,          /* invalidate your copy, home -> holder */
    MGS_M_ACK,          /* invalidated, copy was clean, holder -> home */
    MGS_M_DIFF,         /* invalidated, here are my changes, holder -> home */
    MGS_M_RACK,         /* release done, home -> releaser */
    MGS_M_SWGRANT,      /* release done, keep writing alone, home -> releaser */
    MGS_M_RECALL,       /* give back your single-writer unit, home -> writer */
    MGS_M_RECALL_DATA,  /* the recalled unit, writer -> home */
    MGS_M_LOCK_REQ,     /* cluster wants a lock token, -> lock home */
    MGS_M_LOCK_FWD,     /* pass the token to X when done, lock home -> holder */
    MGS_M_TOKEN,        /* the lock token, holder -> next cluster */
    MGS_M_ARRIVE,       /* cluster arrived at a barrier, -> cluster 0 */
    MGS_M_GO,           /* barrier complete, cluster 0 -> all */
    MGS_M_SETUP,        /* set-up contents of a unit, cluster 0 -> home */
    MGS_M_SETUP_ACK,    /* stored, home -> cluster 0 */
    MGS_M_BLOB,         /* a piece of the broadcast blob */
    MGS_M_TYPES
};
const char *mgs_msg_name(int type);

struct mgs_msg_counters {
    uint64_t sent, sent_bytes, received, received_bytes;   /* between clusters */
    uint64_t local;                                        /* to itself (home here) */
};

struct mgs_counters {
    struct mgs_msg_counters msg[MGS_M_TYPES];
    uint64_t read_faults, write_faults, spurious_faults;
    uint64_t pages_fetched, upgrades;           /* fetched units; read-only -> write */
    /* Units smaller than a page: faults served for another unit of the
     * faulting page than the one accessed, and units dropped from a flush
     * unchanged (made writable only because a sibling was written). */
    uint64_t sibling_faults, unchanged_releases;
    uint64_t diffs_sent, diff_bytes, diff_changed_bytes, diff_max_bytes, clean_acks;
    uint64_t invalidations;                     /* INV received (copies dropped) */
    uint64_t inv_sent;                          /* as home */
    uint64_t sw_grants, sw_recalls;             /* received as writer */
    uint64_t sw_grants_given, sw_recalls_sent;  /* as home */
    uint64_t releases, flushes;                 /* REL sent; DUQ flushes */
    uint64_t lock_acquires, lock_local_handoffs, lock_remote_acquires, lock_token_departures;
    uint64_t barriers, barrier_wait_us, barrier_max_us;
    uint64_t reorder_held;                      /* messages that arrived out of order */
    uint64_t local_held;                        /* virtual time: a local message that reached its
                                                   node before an earlier one was handled */
    uint64_t dilate_sleeps, dilate_sleep_us;    /* MGS_DILATE: compute threads' sleeps */
    /* Dilation: the dilated work's CPU time and wall-clock span (span/CPU =
     * the factor), compute threads and protocol thread. */
    uint64_t dilate_cpu_us, dilate_span_us;
    uint64_t protocol_dilate_sleeps, protocol_dilate_sleep_us, protocol_dilate_cpu_us, protocol_dilate_span_us;
};

/* A copy of this cluster's counters (consistent: taken by the protocol
 * thread). */
void mgs_get_counters(struct mgs_counters *out);

/* Selects the MGS implementation of par.h (par_mgs.c); call before par_init.
 * Without it par.h is the pthreads implementation. */
void par_use_mgs(void);
int par_using_mgs(void);

#ifdef __cplusplus
}
#endif

#endif
