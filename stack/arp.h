/*
 * arp.h - neighbours of an INI on an Ethernet LAN: a small ARP responder
 * and resolver, and an ICMP echo responder, beside the netif glue
 * (stack/netif_dpdk.c).
 *
 * The INIs of the machine know each other from the configuration: their
 * MACs are static entries of the netif's peer table, which ARP never
 * changes.  ARP is for everything else on the LAN, so that ordinary IPv4
 * hosts can talk to an INI (`ping INI_ADDRESS`, answered here: lwIP is
 * built without ICMP, so that it answers no stranger):
 *
 *  - a request for the INI's address is answered from the port it came
 *    in on, and its sender (address, MAC, port) is learned;
 *  - a reply addressed to the INI is learned too;
 *  - a datagram to an address with no entry is dropped (the transport
 *    resends; ICMP's peer resends) and a request for that address is
 *    broadcast on every port, at most once per INI_ARP_RETRY_MS per
 *    address.
 *
 * Learned entries live in the same table as the static ones and never
 * expire; the table (INI_PEER_HASH slots) bounds how many hosts an INI
 * learns.  Nothing here allocates but transmit mbufs from the netif's
 * pool; it runs in the daemon's loop (no locks, no system calls).
 */
#ifndef INI_ARP_H
#define INI_ARP_H

#include <stdint.h>

#include <rte_mbuf.h>

#define INI_ETHERTYPE_ARP  0x0806
#define INI_ARP_PENDING    8      /* addresses being resolved at once */
#define INI_ARP_RETRY_MS   100    /* least time between two requests for one address */

struct ini_netif;

/* ARP's counters, one list (X(name) per counter): fields and the
 * counters file come from it. */
#define INI_ARP_COUNTERS(X) X(arp_requests_in) X(arp_replies_in) X(arp_replies_out) \
    X(arp_requests_out) X(arp_learned) X(arp_not_learned) X(arp_ignored) X(icmp_echo_replies)

struct ini_arp_stats {
#define INI_ARP_FIELD(name) uint64_t name;
    INI_ARP_COUNTERS(INI_ARP_FIELD)
#undef INI_ARP_FIELD
};

struct ini_arp {
    uint64_t retry_cycles;                 /* INI_ARP_RETRY_MS in TSC cycles */
    struct { uint32_t ip; uint64_t sent; } pending[INI_ARP_PENDING];
    uint32_t next_pending;                 /* round-robin replacement */
    struct ini_arp_stats stats;
};

/* A received IPv4 frame from a known peer or learned host: if it is an
 * unfragmented ICMP echo request for the INI, the function turns it into
 * the echo reply in place, sends it back on its port and returns 1;
 * otherwise 0 and the frame stays the caller's. */
int ini_icmp_echo_input(struct ini_netif *nf, struct rte_mbuf *m);

/* Called by the netif at init. */
void ini_arp_init(struct ini_arp *arp, uint64_t tsc_hz);

/* A received frame: if it is ARP, the function takes it (answers, learns,
 * frees it) and returns 1; otherwise 0 and the frame stays the caller's. */
int ini_arp_input(struct ini_netif *nf, struct rte_mbuf *m);

/* No entry for `ip` (network order): broadcast a request for it unless
 * one went out less than INI_ARP_RETRY_MS ago. */
void ini_arp_resolve(struct ini_netif *nf, uint32_t ip);

#endif
