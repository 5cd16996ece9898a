/*
 * inid_wedge.h - the af_xdp port's wedge and its recovery (inid_wedge.c).
 *
 * DPDK 22.11's af_xdp driver (mempool-as-umem build) puts buffers on its
 * socket's fill ring only in its receive call, one for each frame that
 * call took off the receive ring.  Once the kernel has found the fill ring
 * empty with the receive ring empty too, nothing is received, so nothing
 * is refilled: the port takes no frame again (docs/results/incast,
 * rows c3).  The check below finds that state off the message path and
 * reopens the port, which makes a new socket with a full fill ring.
 */
#ifndef INI_INID_WEDGE_H
#define INI_INID_WEDGE_H

#include <stdint.h>

#include <rte_spinlock.h>

struct inid;

/* The port's counters that start again from 0 on a new socket or port,
 * carried over each reopening so that the totals stay monotone. */
struct inid_port_carry {
    uint64_t rx_packets, rx_missed, rx_errors, rx_nombuf, xsk_ring_full, xsk_fill_empty, xsk_invalid;
};

struct inid_wedge {
    int on;                        /* one af_xdp port: the check runs */
    uint64_t period, window, holdoff;   /* TSC cycles */
    uint64_t next_check;
    /* The first check that found nothing received since the one before:
     * the frames received then, the port's missed frames, its time and
     * the loop's turns (0 time: not quiet). */
    uint64_t rx_seen, quiet_missed, quiet_since, quiet_loops;
    uint64_t resets;
    struct inid_port_carry carry;
    /* An af_packet port's ring drops read so far (inid_counters.c): each
     * read of PACKET_STATISTICS clears the kernel's count.  Under the lock. */
    uint64_t packet_drops;
    /* INI_TEST_WEDGE=N: after N frames the loop stops polling the port
     * (stalled), as a wedged port gives nothing, until the reset. */
    uint64_t test_after;
    int test_fired, stalled;
    /* Held while the port is reopened and while the telemetry thread
     * reads its statistics (inid_wedge_port_lock). */
    rte_spinlock_t lock;
};

/* After the ports are set up: arms the check for a single af_xdp port and
 * reads INI_TEST_WEDGE.  0, or -1 after one line naming the variable. */
int inid_wedge_init(struct inid *d);
/* The check, at most once a period (the loop's end of turn calls it when
 * due): no system call while frames arrive. */
void inid_wedge_check(struct inid *d, uint64_t now);
/* Held while the port is reopened, and by readers of its statistics on
 * other threads (the telemetry's inid_port_rx), which must not ask a
 * port being closed and probed. */
void inid_wedge_port_lock(const struct inid *d);
void inid_wedge_port_unlock(const struct inid *d);
static inline int inid_wedge_due(const struct inid_wedge *w, uint64_t now)
{
    return w->on && now >= w->next_check;
}

#endif
