/*
 * arp.h - neighbours of an INI on an Ethernet LAN: a small ARP responder
 * and resolver, and an ICMP echo responder, beside the netif glue
 * (stack/netif_dpdk.c).
 *
 * The INIs of the machine know each other from the configuration: their
 * MACs are static entries of the netif's peer table, which ARP never
 * changes.  ARP is for everything else on the LAN, so that ordinary IPv4
 * hosts can talk to an INI (`ping INI_ADDRESS`, answered here, fragmented
 * requests too: lwIP is built without ICMP, so that it answers no
 * stranger):
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
/* Fragments of one fragmented echo request (65,535 bytes in fragments of
 * 1,024 bytes or more) and how long they are kept waiting for the rest. */
#define INI_ICMP_FRAGS     64
#define INI_ICMP_REASS_MS  3000

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

/* The fragments of one echo request gathered so far (ini_icmp_echo_input):
 * received mbufs, held until the request is whole, then turned into the
 * reply's fragments, or freed when another datagram's fragment comes. */
struct ini_icmp_reass {
    uint32_t src;                          /* network order */
    uint16_t id;                           /* the IPv4 id, host order */
    uint16_t n;                            /* fragments held: 0, none */
    uint32_t have, total;                  /* payload bytes held; the whole's (0: last not seen) */
    uint64_t started;                      /* TSC of the first */
    struct rte_mbuf *frag[INI_ICMP_FRAGS];
};

struct ini_arp {
    uint64_t retry_cycles;                 /* INI_ARP_RETRY_MS in TSC cycles */
    uint64_t reass_cycles;                 /* INI_ICMP_REASS_MS in TSC cycles */
    struct ini_icmp_reass reass;
    struct { uint32_t ip; uint64_t sent; } pending[INI_ARP_PENDING];
    uint32_t next_pending;                 /* round-robin replacement */
    struct ini_arp_stats stats;
};

/* A received IPv4 frame from a known peer or learned host: if it is an
 * unfragmented ICMP echo request for the INI, the function turns it into
 * the echo reply in place, sends it back on its port and returns 1.  A
 * fragment of an ICMP datagram for the INI is taken too (returns 1): held
 * until its datagram is whole, and if that is an echo request, every
 * fragment becomes the reply's fragment of the same offset and length (so
 * each fits the link as the request's did), up to IPv4's largest
 * datagram, as a Linux host answers `ping -s 65507`.  One request is
 * gathered at a time: a fragment of another, or one after
 * INI_ICMP_REASS_MS, frees what was held (held mbufs wait for the next
 * ICMP fragment, not for a timer).  Otherwise 0 and the frame stays the
 * caller's. */
int ini_icmp_echo_input(struct ini_netif *nf, struct rte_mbuf *m);
/* Frees the fragments of an echo request held so far (the netif closes:
 * ini_netif_close). */
void ini_icmp_reass_drop(struct ini_netif *nf);

/* Called by the netif at init. */
void ini_arp_init(struct ini_arp *arp, uint64_t tsc_hz);

/* A received frame: if it is ARP, the function takes it (answers, learns,
 * frees it) and returns 1; otherwise 0 and the frame stays the caller's. */
int ini_arp_input(struct ini_netif *nf, struct rte_mbuf *m);

/* No entry for `ip` (network order): broadcast a request for it unless
 * one went out less than INI_ARP_RETRY_MS ago. */
void ini_arp_resolve(struct ini_netif *nf, uint32_t ip);

#endif
