/*
 * inid_vtime.h - an INI in the virtual-time mode (docs/architecture.md,
 * "Virtual time"): the loop that serves its inputs in the order of their
 * virtual arrival, one event per turn of the machine (vt_machine.h), and
 * charges each event to the INI's clock by the cost model (vt_cost.h),
 * never by the host's clock.
 *
 * The real stack still carries every byte; what the mode adds is a stamp
 * on everything that moves between processors:
 *   compute node -> INI   the record's headroom (where the submit time
 *                         goes in the other modes) holds its arrival
 *   INI -> INI            eight bytes behind each frame, added when the
 *                         frame is handed to the port and taken off when
 *                         it is received (no layer above the link sees
 *                         them); the receiver's turn is posted with it
 *   INI -> compute node   eight bytes at the end of the delivered record
 *                         (rec->len covers them; the AM header's len says
 *                         where the message ends), written once the event
 *                         that delivered it has been charged, before its
 *                         turn is posted
 * Frames received before their time wait in a heap ordered by (stamp,
 * arrival order); records of compute nodes wait in their rings until their
 * stamp is due.  The transport's timers and lwIP see a TSC that runs with
 * the virtual clock (INID_VT_TSC_BASE + cycles scaled to the TSC's rate),
 * so a SEND timer of 2 ms is 2 ms of the emulated machine.  Fault
 * injection (--fault, either side) and --capture act by the same clock:
 * the receive side's injector as a frame leaves the heap
 * (inid_vtime.c, receive_frame), the capture stamped in emulated time.
 *
 * Compiled apart from inid_loop.c's loop (as dilation is): the real-time
 * loop pays one predictable branch per delivery (d->vt == NULL).
 */
#ifndef INI_INID_VTIME_H
#define INI_INID_VTIME_H

#include <stdint.h>

#include "inid.h"
#include "vt_cost.h"
#include "vt_machine.h"

#define INID_VT_PENDING   8192     /* frames received ahead of their time */
#define INID_VT_FIX       (2 * INID_QUEUE_SIZE)
#define INID_VT_TSC_BASE  (1ull << 32)
#define INID_VT_STAMP_LEN INI_VT_FRAME_STAMP   /* the stamp behind a frame or a delivery */

struct inid_vt_frame {
    uint64_t stamp, order;
    struct rte_mbuf *m;
    uint16_t port;
};

struct inid_vt {
    struct ini_vt_machine *m;
    uint32_t slot, n_pes_total;
    struct ini_vt_costs costs;
    uint64_t clock;                 /* the INI's virtual time, cycles */
    uint64_t tx_stamp;              /* what a frame handed to a port now carries */
    uint64_t now_tsc;               /* the event's time as the stack's TSC: the faults' clock */
    int leaving;                    /* 0 while an event works: frames wait for its end (vt_xmit) */
    uint64_t cap_now;               /* the capture's clock (d->cap_clock): cycles */
    uint64_t order;                 /* frames received so far (the heap's tie-break) */
    uint32_t n_pending;
    struct inid_vt_frame pending[INID_VT_PENDING];
    /* deliveries of the current event: their stamp words and their PEs */
    uint32_t n_fix;
    _Atomic uint64_t *fix_at[INID_VT_FIX];
    uint16_t fix_pe[INID_VT_FIX];
    int16_t peer_of_port[INI_NETIF_MAX_PORTS];   /* DPDK port id -> peer INI id */
    /* counted */
    uint64_t events, frames_in, frames_out, late_frames, charged;
    uint64_t frames_early;        /* left before their event's end: its queue's backlog was full */
    uint64_t frames_lost;         /* sent to it, never came (await_frames) */
    uint64_t frames_foreign;      /* another INI's, flooded by the LAN's bridge: not counted in */
};

/* The daemon's TSC rate in a virtual run: fixed, not the host's.  The
 * transport's timers, the fault injector's holds and every conversion
 * between the machine's cycles and TSC ticks (tsc_of, cycles_of) count in
 * it, so they round the same on every host: with the host's rate the
 * fault mix of vtime_ping took 41,155,978 cycles on a host whose TSC ran
 * at 2.45 GHz and 42,527,088 on one at 2.60.  A multiple of the default
 * 20 MHz machine and of 1 MHz (timers are set in microseconds). */
#define INID_VT_TSC_HZ 2000000000ull

/* 1 when the environment names a virtual run's machine (INI_VTIME): the
 * daemon then runs its TSC at INID_VT_TSC_HZ (inid.c). */
int inid_vt_requested(void);

/* Maps the run's machine when the environment names one (INI_VTIME):
 * d->vt set, deliveries leave room for their stamp.  0 (also when not a
 * virtual run), or -1 with a one-line reason in err. */
int inid_vt_setup(struct inid *d, char *err, size_t errlen);

/* The virtual-time loop, until d->stop.  0. */
int inid_vt_loop(struct inid *d);

/* A delivery of the current event to local PE pe, in record rec (reserved
 * with d->vt_extra bytes beyond the message): its stamp is written when
 * the event's cost is known.  Called by inid_loop.c's deliveries. */
void inid_vt_delivered(struct inid *d, int pe, struct ini_rec *rec);

/* The INI leaves the machine (its daemon stops). */
void inid_vt_close(struct inid *d);

#endif
