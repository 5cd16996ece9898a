/*
 * inid_counters.h - the INI's counters file and the tables of its names
 * (inid_counters.c), shared with the telemetry socket (inid_telemetry.c).
 */
#ifndef INI_INID_COUNTERS_H
#define INI_INID_COUNTERS_H

#include <stddef.h>

#include "counters.h"
#include "inid.h"

/* The counters' names, one table per group, for the counters file and the
 * telemetry alike. */
extern const struct ini_counter inid_swp_counters[], inid_message_counters[], inid_link_counters[];
extern const size_t inid_swp_counters_n, inid_message_counters_n, inid_link_counters_n;

/* The receive side of the INI's ports, from DPDK's port statistics
 * (rte_eth_stats_get, summed over its ports): frames taken, frames the
 * port missed (the socket's or the ring's: af_xdp's drops when its
 * ring is full or has no buffer, af_packet's when its ring has no free
 * slot, a NIC's imissed), frames in error and
 * frames dropped for want of an mbuf.  Any thread (the telemetry's too):
 * DPDK's own /ethdev/stats reads them the same way. */
struct inid_port_rx {
    uint64_t rx_packets, rx_missed, rx_errors, rx_nombuf;
    uint64_t pool_free;     /* the INI's mbufs free now: af_xdp takes none in while it cannot refill its ring */
    /* af_xdp ports only, from the kernel: frames its sockets lost to a
     * full receive ring, fill-ring reads that found no buffer, invalid
     * fill descriptors (XDP_STATISTICS); the interface's rx_dropped. */
    uint64_t xsk_ring_full, xsk_fill_empty, xsk_invalid, if_rx_dropped;
    /* the times the port was found wedged and reopened (inid_wedge.c);
     * the counters above include what its earlier sockets counted */
    uint64_t wedge_resets;
};
void inid_port_rx(const struct inid *d, struct inid_port_rx *r);
extern const struct ini_counter inid_port_counters[];
extern const size_t inid_port_counters_n;

/* Writes RUN_DIR/ini<ID>.counters.json from d's figures (after the loop);
 * a file that cannot be opened is said on stderr, and the daemon goes on
 * stopping. */
void inid_write_counters(struct inid *d);

#endif
