/*
 * cn_vtime.h - the compute-node library in the virtual-time mode: each
 * node an emulated processor of the run's machine (ini/vtime/vt_node.h),
 * its compute bursts charged by what the program declares (ini_work_cycles)
 * or by its thread's CPU time times K, its messages stamped with their
 * virtual arrival at the INI, and the messages delivered to it handled in
 * the order of their stamps, each when it arrives: during a burst, as the
 * interrupt it was on Alewife.
 *
 * The environment (set by `ini-cluster run --time virtual`, vt_shm.h):
 *   INI_VTIME, INI_VT_COSTS   the machine and its cost set
 *   INI_VT_COMPUTE            "declared" (default: only ini_work_cycles
 *                             advances a node's clock; deterministic) or
 *                             "measured" (its thread's CPU time between two
 *                             library calls, times INI_VT_K, default 1)
 *
 * How the library's calls become events: every call that reaches the
 * network (ini_send outside a handler, ini_poll, ini_wait) first ends the
 * node's burst (cn_vt_enter: the turn is held from there, inputs due by
 * the burst's end served), then does its work holding the turn, then
 * gives it up (cn_vt_leave) and the program computes again.  A handler
 * runs holding the turn, so its sends need no enter of their own.
 */
#ifndef INI_CN_VTIME_H
#define INI_CN_VTIME_H

#include <stdatomic.h>
#include <stdint.h>

#include "vt_cost.h"
#include "vt_machine.h"
#include "vt_node.h"

struct ini_pe;
struct ini_vt_event;

enum cn_vt_compute { CN_VT_DECLARED = 0, CN_VT_MEASURED };

/* The process's: the machine, or m == NULL when not a virtual run. */
struct cn_vt {
    struct ini_vt_machine *m;
    struct ini_vt_costs costs;
    enum cn_vt_compute compute;
    double cycles_per_cpu_ns;     /* measured: K * hz / 1e9 */
    int n_pes_total;              /* the run's compute nodes: INI i is slot n_pes_total + i */
    uint64_t plant_early;         /* tests: INI_VT_PLANT_EARLY (cn_vt_send_stamp) */
    uint64_t local_order;         /* ini_vt_post_local's posts, for ties (turn holders only) */
};

/* A node's. */
struct cn_vt_pe {
    struct ini_vt_node node;
    int state;                    /* 0 not started, 1 running, 2 stopped */
    uint64_t declared;            /* cycles ini_work_cycles added since the last event */
    uint64_t cpu_mark;            /* measured: the thread's CPU time at the last event */
    uint64_t served;              /* handlers run by the current call */
    uint64_t sends;               /* records handed to INIs */
    int held;                     /* ini_pe_hold: the program's thread holds the turn */
    /* Events from nodes of this process (ini_vt_post_local), sorted by
     * (at, order): written and read by turn holders only; local_next, the
     * head's time plus one (0: none), is read without the turn too
     * (take_turn's hint; the post to the machine is what counts). */
    struct ini_vt_event *local;
    _Atomic uint64_t local_next;
};

/* Maps the machine the environment names; v->m stays NULL when none.
 * 0, or -1 with a one-line reason in err. */
int cn_vt_attach(struct cn_vt *v, int n_pes_total, char *err, size_t errlen);
void cn_vt_detach(struct cn_vt *v);
/* The cluster's compute nodes (global ids) share its memory: one group
 * of the machine (ini_vt_slot_group). */
void cn_vt_group(struct cn_vt *v, const int *pes, int n, int cluster);

/* The node joins (computing from 0) / leaves for good. */
void cn_vt_pe_start(struct ini_pe *pe);
void cn_vt_pe_stop(struct ini_pe *pe);

/* Ends the node's burst: returns holding the turn, every input due by
 * then handled.  The handlers run (>= 0), or -1 when the machine stopped. */
int cn_vt_enter(struct ini_pe *pe);
/* Holding the turn: waits for an input and handles it.  Handlers run
 * (>= 1), or -1 when the machine stopped (a deadlock: ini_vt_why). */
int cn_vt_wait(struct ini_pe *pe);
/* Gives up the turn: the program computes again. */
void cn_vt_leave(struct ini_pe *pe);
/* Holding the turn, the node's ring to its INI number `ini` is full: lets
 * the machine run until that INI's clock (serving the node's due inputs
 * meanwhile, unless inside a handler), 0, or -1 if stopped. */
int cn_vt_yield(struct ini_pe *pe, int ini);

/* Holding the turn: the arrival stamp of a record the node hands to an
 * INI now, and its post once the record is published (local index ini). */
uint64_t cn_vt_send_stamp(struct ini_pe *pe);
int cn_vt_post_send(struct ini_pe *pe, int ini, uint64_t stamp);

#endif
