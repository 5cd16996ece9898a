/*
 * inid_port.h - the INI's DPDK ports (inid_port.c): their EAL arguments,
 * set-up and links, fault injection on them, the adaptive idle mode's
 * doorbell and interrupts, the memif peers' wake-ups, and --capture.
 */
#ifndef INI_INID_PORT_H
#define INI_INID_PORT_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "inid.h"

/* Creates and starts the DPDK ports of this INI and tells the netif which
 * peer each reaches.  0 or -1 after printing why. */
int inid_ports_init(struct inid *d);
/* Waits until every port's link is up (restarting memif clients whose
 * server was not there yet); 0, or -1 on timeout. */
int inid_ports_wait_up(struct inid *d, int timeout_ms);
void inid_ports_close(struct inid *d);
/* Closes port k and opens it again from its vdev argument, set up as at
 * start (inid_wedge.c: af_xdp's wedged socket).  0, or -1 after one line. */
struct inid_reopen {
    uint64_t close_cycles;      /* stop, close, unplug: TSC cycles */
    uint64_t unbind_cycles;     /* the wait for the kernel to free the queue */
    unsigned attempts;          /* probes and set-ups tried */
    int asked_kernel;           /* the kernel said when the queue was free */
};
int inid_port_reopen(struct inid *d, int k, struct inid_reopen *r);
/* memif: restarts the ports of this INI's client side whose server went
 * away (a restarted INI's: docs/transport.md, "An INI that restarts"),
 * which do not reconnect by themselves; called every lwIP timer period. */
void inid_ports_relink(struct inid *d);
/* Sets up fault injection on the ports from the INI's configuration. */
void inid_faults_init(struct inid *d);
/* Sets up the adaptive idle mode: doorbell FIFO and receive interrupts. */
int inid_idle_init(struct inid *d);
/* Rings the doorbells of sleeping memif peers that were sent frames. */
void inid_wake_peers(struct inid *d);
/* --capture: opens RUN_DIR/ini<ID>.pcapng, one interface per port, and
 * records what the ports send (a wrapper around the netif's xmit);
 * inid_capture_rx records received bursts.  0, or -1 after saying why. */
int  inid_capture_init(struct inid *d);
void inid_capture_rx(struct inid *d, int k, struct rte_mbuf **pkts, uint16_t n);
/* Records n frames of port k (dir: INI_CAPTURE_IN or _OUT, capture.h)
 * into the capture buffer, every one or none (room for the whole batch is
 * made first, so no write happens between them); returns how many.
 * off[i], unless NULL, receives where frame i's block starts (for
 * ini_capture_truncate).  Stamped by d->cap_clock, or the TSC. */
uint16_t inid_capture_batch(struct inid *d, int k, uint32_t dir, struct rte_mbuf **pkts, uint16_t n,
                            size_t *off);
void inid_capture_close(struct inid *d);
/* The EAL argument that opens kernel interface me->device (default i<ID>)
 * as this INI's port, with DPDK's af_packet driver if packet, else its
 * af_xdp driver (inid_port.c says which network.port picks); returns 1
 * (the number of arguments written). */
int inid_kernel_iface_vdev(const struct ini_node_cfg *me, int packet, char arg[INID_ARG_LEN]);
/* The af_packet port's ring slots (2 KB each, receive and transmit): the
 * incast runs lost 7% of the data with DPDK's default of 512, none with
 * 4,096 (docs/results/incast/README.md). */
#define INID_PACKET_FRAMES 4096
/* pci mode without devargs: the EAL argument for me->device; returns 1. */
int inid_device_eal_arg(const struct ini_node_cfg *me, char arg[INID_ARG_LEN]);
/* Builds the vdev argument of each port of this INI into args (EAL form). */
int inid_ports_eal_args(const struct inid *d, char args[][INID_ARG_LEN], int max);

#endif
