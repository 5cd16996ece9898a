/*
 * netif_dpdk.h - the link layer of an INI: lwIP's netif over DPDK ports.
 *
 * Receive: a frame stays in its mbuf.  The glue checks the Ethernet header,
 * wraps the IP packet in a custom pbuf that lives in the mbuf's private
 * area (no allocation, no copy) and gives it to ip4_input; when lwIP frees
 * the pbuf, the mbuf goes back to its pool.
 *
 * Transmit: lwIP hands the glue one IP packet (or fragment) as a pbuf chain
 * and the next-hop address.  The glue finds the peer INI from a static
 * table (filled from the configuration: no ARP), takes an mbuf, writes the
 * Ethernet header and copies the chain behind it - the single copy the
 * thesis makes per transmission - and queues the mbuf on the peer's port.
 * ini_netif_flush() sends every queue in bursts.
 *
 * Transmit without that copy: a transport whose datagram fits one frame
 * asks for a pbuf over a fresh mbuf (ini_netif_alloc_tx), with room for
 * the UDP, IP and Ethernet headers in front, and writes its message there
 * (its one copy).  lwIP prepends its headers in place; the glue only adds
 * the Ethernet header, and the mbuf joins its port's queue when lwIP
 * releases the pbuf, so lwIP never touches a buffer the driver owns.
 *
 * Header prediction (the transport's common case, both ways): a UDP
 * datagram that fits one frame, to or from a peer INI of the static table.
 * ini_netif_udp_frame() gives a transmit mbuf's payload, with no pbuf
 * around it, and ini_netif_udp_queue() writes the UDP, IP and Ethernet
 * headers in front of it from a fixed pattern (the same fields lwIP would
 * write) and queues it, instead of udp_sendto -> ip4_output ->
 * netif->output.  On receive, a frame whose IPv4 header is plain (no
 * options, no fragment, our address, UDP, right lengths and checksum) for
 * the UDP port registered with ini_netif_fast_udp() goes straight to that
 * pcb's recv callback, with lwIP's ip_current_*() set as ip4_input sets
 * them, instead of ip4_input -> udp_input.  Everything else (fragments,
 * other ports or protocols, bad headers, which lwIP then counts) takes
 * lwIP's path unchanged.
 *
 * Each ini_netif also owns the fault injector of its INI (stack/fault.h) so
 * that every frame between two INIs passes it once on transmit and once on
 * receive.
 */
#ifndef INI_NETIF_DPDK_H
#define INI_NETIF_DPDK_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "arp.h"
#include "fault.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"

#define INI_NETIF_MAX_PORTS 128
#define INI_NETIF_BURST     32
#define INI_NETIF_BACKLOG   256      /* frames a full port made wait, per queue */
#define INI_PEER_HASH       512      /* power of two, > 2 x peers */
/* Hosts that ARP may add beside the configured peers.  Learned hosts are
 * only ever answered (ARP, ping); the bound keeps a LAN of strangers, or
 * one forging sender addresses, from filling the table the configured
 * peers need (INI_MAX_INIS 128 + 64 < INI_PEER_HASH / 2). */
#define INI_PEER_LEARNED_MAX 64
#define INI_ETHERTYPE_IPV4  0x0800

struct ini_netif;

/* What lives in each mbuf's private area: the pbuf lwIP sees.  It lies
 * before the mbuf's data, which lwIP's in-place header check requires of a
 * PBUF_RAM-typed pbuf. */
struct ini_mbuf_pbuf {
    struct pbuf_custom pc;
    struct rte_mbuf *m;
    struct ini_netif *nf;     /* the owner; transmit: of the queue ... */
    int txq;                  /* ... it joins when freed; -1: not sent, free it */
};
#define INI_MBUF_PRIV_SIZE RTE_ALIGN(sizeof(struct ini_mbuf_pbuf), RTE_MBUF_PRIV_ALIGN)
/* Bytes in front of an ini_netif_alloc_tx payload: UDP, IP, Ethernet. */
#define INI_TX_HEADROOM     (8 + 20 + 14)

struct ini_txq {
    uint16_t port;
    uint16_t n;
    uint32_t flushed;        /* bursts sent since the owner last looked */
    struct ini_fault *fault; /* faults injected on transmit, or NULL */
    uint16_t n_backlog;
    struct rte_mbuf *pkts[INI_NETIF_BURST];
    struct rte_mbuf *backlog[INI_NETIF_BACKLOG];   /* refused by the port, oldest first */
};

struct ini_peer_slot {
    uint32_t ip;              /* network order; 0 = empty */
    uint16_t txq;             /* index into txqs */
    uint8_t  mac[6];
    uint8_t  learned;         /* by ARP (stack/arp.h); 0: static, from the configuration */
    /* Header prediction's pattern for a one-frame UDP datagram to this
     * peer: its Ethernet and IPv4 headers with total length, id and
     * checksum 0, and the ones' complement sum of that IPv4 header, so a
     * frame's headers are one copy and three fields (ini_netif_udp_queue).
     * Made when the slot is filled or its MAC changes.  udp_sum: the UDP
     * pseudo header's addresses and protocol, as 16-bit words, unfolded. */
    uint32_t ip_sum;
    uint32_t udp_sum;
    _Alignas(8) uint8_t hdr[14 + 20];   /* read as struct rte_ether_hdr: aligned */
};

/* Sends n queued mbufs of queue q; returns how many were taken.  The
 * default calls rte_eth_tx_burst; tests replace it to join two netifs. */
typedef uint16_t (*ini_xmit_fn)(struct ini_netif *nf, struct ini_txq *q,
                                struct rte_mbuf **pkts, uint16_t n);

/* What the INI knows of a received frame besides its bytes, passed by the
 * owner to ini_netif_input and from there, by the transport, to its
 * delivery callback, the way lwIP passes address and port to `recv`.  The
 * owner fills the first four fields; the transport fills the stamps when
 * `stamp` asks for them (detailed traces).  The owner's, on its stack, for
 * the duration of the call. */
struct ini_rx_meta {
    uint64_t t_arrive;        /* TSC: the frame entered the INI's work queue */
    uint64_t t_start;         /* TSC: its processing began */
    uint32_t qlen;            /* work queue length at its arrival */
    int      stamp;           /* take the stamps below */
    uint64_t t_in_ip;         /* the reassembled datagram reached UDP */
    uint64_t t_in_udp;        /* its UDP checksum was verified */
};

/* rx_runt: shorter than an Ethernet and an IPv4 header; rx_not_ip: not
 * our EtherType (or a chained mbuf, which the glue cannot wrap);
 * rx_not_mine: for another MAC address; rx_not_peer: from an IP address
 * that is no peer's (dropped before IP: no INI talks to it, and its
 * fragments must not take reassembly slots from the peers').  reass_timeouts and
 * reass_evictions: datagrams lwIP's reassembly gave up with fragments
 * missing, because they aged out (IP_REASS_MAXAGE) or to make room for
 * newer ones (MEMP_NUM_REASSDATA, IP_REASS_MAX_PBUFS). */
struct ini_netif_stats {
    uint64_t rx_frames, rx_bytes, rx_runt, rx_not_ip, rx_not_mine, rx_not_peer;
    uint64_t reass_timeouts, reass_evictions;
    uint64_t tx_frames, tx_bytes, tx_no_mbuf, tx_no_route, tx_dropped;
};

struct ini_netif {
    struct netif netif;                /* lwIP's view; first member */
    uint8_t mac[6];
    uint16_t ethertype;                /* of our IPv4 frames: 0x0800 */
    struct rte_mempool *pool;
    ini_xmit_fn xmit;
    void *xmit_ctx;
    int n_txqs;
    struct ini_txq txqs[INI_NETIF_MAX_PORTS];
    int tx_dirty;                      /* a queue may hold frames: ini_netif_flush has work */
    struct ini_peer_slot peers[INI_PEER_HASH];
    int n_learned;                     /* slots ARP added (at most INI_PEER_LEARNED_MAX) */
    /* The frame lwIP is processing inside ini_netif_input, as lwIP's own
     * ip_current_netif(): lwIP's input functions take no argument of ours,
     * so the transport's receive callback reads it here
     * (ini_netif_current_rx).  NULL outside ini_netif_input. */
    struct ini_rx_meta *rx_cur;
    struct udp_pcb *fast_pcb;          /* header prediction on receive: its port, or NULL */
    int rx_udp_ok;                     /* ini_netif_rx_udp_verified() */
    uint16_t ip_id;                    /* IP id of datagrams sent by ini_netif_udp_queue */
    struct ini_netif_stats stats;
    struct ini_arp arp;                /* neighbours beyond the configuration */
    /* Received mbufs whose pbufs were freed: the next transmit mbufs, or
     * put back in their pool in bulk when full; other transmit mbufs
     * taken from the pool in bulk: one mempool call per burst, not per
     * frame. */
    struct rte_mbuf *rx_free[INI_NETIF_BURST];
    uint16_t n_rx_free;
    struct rte_mbuf *tx_cache[INI_NETIF_BURST];
    uint16_t n_tx_cache;
};

/* Registers the netif with lwIP (lwip_init() must have run); a netif
 * set up again must give its mbufs back first (ini_netif_return_mbufs).  ip is in
 * network order; pool provides transmit mbufs and must have been created
 * with INI_MBUF_PRIV_SIZE private bytes if it also feeds ini_netif_input. */
int ini_netif_init(struct ini_netif *nf, uint32_t ip, const uint8_t mac[6], int mtu,
                   struct rte_mempool *pool);
/* Puts back in the pool every mbuf the netif holds for bulk transfers
 * (freed receive mbufs, transmit mbufs taken ahead): before counting a
 * pool's free mbufs, or tearing the netif down. */
void ini_netif_return_mbufs(struct ini_netif *nf);
/* Adds a queue for DPDK port `port`; returns its index. */
int ini_netif_add_txq(struct ini_netif *nf, uint16_t port);
/* Declares that the INI at `ip` (network order) with `mac` is reached
 * through queue txq.  -1 if the table is full or ip is present. */
int ini_netif_add_peer(struct ini_netif *nf, uint32_t ip, const uint8_t mac[6], int txq);

/* A pbuf of len bytes over a fresh transmit mbuf, for a datagram that fits
 * one frame (len + UDP + IP headers <= MTU), or NULL if the pool is empty.
 * The caller owns the pbuf, fills it and hands it to udp_sendto*; freeing
 * it queues the frame if lwIP sent it, else returns the mbuf to its pool. */
struct pbuf *ini_netif_alloc_tx(struct ini_netif *nf, uint16_t len);
/* pbuf_free(p) for the sender of p, with a shortcut for the last
 * reference to a pbuf of ini_netif_alloc_tx (queued or freed at once). */
void ini_netif_free_tx(struct pbuf *p);

/* Header prediction on transmit: a datagram of one frame to a peer of the
 * table, without a pbuf.  ini_netif_udp_frame takes a transmit mbuf for a
 * UDP payload of len bytes to `peer` (a slot of the table, from
 * ini_netif_find_peer: slots never move, so a sender keeps it) and gives
 * its place (f->payload); the caller writes the payload there, its one copy, and
 * ini_netif_udp_queue writes the UDP, IP and Ethernet headers in front
 * (payload_sum: the payload's ones' complement sum, as ini_chksum gives
 * it; from the netif's address and `port` to `port`) and queues the frame.
 * ini_netif_udp_frame returns 0; -1 when the prediction does not cover
 * the case (no such peer, too long: send through lwIP instead, with
 * ini_netif_alloc_tx); -2 when no transmit mbuf is left (counted). */
struct ini_udp_frame {
    struct rte_mbuf *m;
    const struct ini_peer_slot *peer;
    uint8_t *payload;
    uint16_t len;
};
int ini_netif_udp_frame(struct ini_netif *nf, const struct ini_peer_slot *peer, uint16_t len,
                        struct ini_udp_frame *f);
void ini_netif_udp_queue(struct ini_netif *nf, const struct ini_udp_frame *f, uint16_t port, uint16_t payload_sum);
/* The same for a datagram of several frames: len bytes of UDP payload at
 * payload (summing to payload_sum), cut into IP fragments of the MTU as
 * lwIP's ip4_frag cuts them (fragment offsets in 8-byte units, MF on all
 * but the last, one id per datagram), each written straight into its own
 * mbuf behind the headers - the one copy of a transmission - and queued.
 * The caller keeps payload.  0: queued; -1: not covered (no such peer):
 * send it through lwIP; -2: no mbufs (nothing queued). */
int ini_netif_udp_send_frags(struct ini_netif *nf, const uint8_t *payload, uint32_t len, uint32_t dst_ip,
                             uint16_t port, uint16_t payload_sum);
/* Received single-frame datagrams for pcb's port skip ip4_input and
 * udp_input (pcb bound to the netif's address; NULL turns it off).  A
 * datagram of at most INI_SMALL_MAX bytes also has its UDP checksum
 * checked there, in the pass that checks the IP header's (a longer one's
 * is left to the pcb's owner, who can check it in a pass it makes
 * anyway): ini_netif_rx_udp_verified() says so during the callback. */
struct udp_pcb;
void ini_netif_fast_udp(struct ini_netif *nf, struct udp_pcb *pcb);

/* Takes ownership of a received frame: it is freed, or owned by lwIP.
 * meta (not NULL) describes the frame; the transport that lwIP hands the
 * datagram to reads it through ini_netif_current_rx() during the call. */
void ini_netif_input(struct ini_netif *nf, struct rte_mbuf *m, struct ini_rx_meta *meta);
/* The metadata of the frame being input; valid only inside ini_netif_input. */
static inline struct ini_rx_meta *ini_netif_current_rx(const struct ini_netif *nf)
{
    return nf->rx_cur;
}
/* 1 when the datagram being input had its UDP checksum checked, and right
 * (ini_netif_fast_udp); 0: not checked, the receiver checks it. */
static inline int ini_netif_rx_udp_verified(const struct ini_netif *nf)
{
    return nf->rx_udp_ok;
}
/* Runs lwIP's timers (sys_check_timeouts) and counts the datagrams the
 * reassembly ages out.  The owner calls it instead of sys_check_timeouts;
 * one lwIP instance, one caller. */
void ini_netif_timers(struct ini_netif *nf);
/* Sends everything queued (through the queue's fault injector, if any).
 * Frames a port refuses wait, in order, for the next flush, up to
 * INI_NETIF_BACKLOG per queue; beyond that they are dropped and counted.
 * Returns how many frames wait: the caller should not go idle while any
 * do. */
int ini_netif_flush(struct ini_netif *nf);

/* For stack/arp.c: the peer entry of ip (network order) or NULL; learns
 * (or updates) a neighbour that is not a static peer (-1 if ip is static,
 * the table is full, or INI_PEER_LEARNED_MAX hosts are learned already:
 * the first ones stay, a new sender is not remembered); the queue of DPDK port `port` (0 if none);
 * queues a complete frame on queue txq (the netif owns m from here). */
struct ini_peer_slot *ini_netif_find_peer(struct ini_netif *nf, uint32_t ip);
int ini_netif_learn_peer(struct ini_netif *nf, uint32_t ip, const uint8_t mac[6], int txq);
int ini_netif_txq_of_port(const struct ini_netif *nf, uint16_t port);
void ini_netif_send_frame(struct ini_netif *nf, int txq, struct rte_mbuf *m);

/* The route hook of lwipopts.h: the netif that owns `src`, else the
 * default netif. */
struct ip4_addr;
struct netif *ini_lwip_route_src(const struct ip4_addr *src, const struct ip4_addr *dest);

#endif
