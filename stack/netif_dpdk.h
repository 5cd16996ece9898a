/*
 * netif_dpdk.h - the link layer of an INI: DPDK ports under lwIP's netif.
 *
 * The link owns the ports' queues, the table of peers (static entries from
 * the configuration, neighbours learned by ARP, stack/arp.h) and the mbufs.
 * It knows Ethernet, ARP and enough of IPv4 to filter what arrives; UDP and
 * IP above it are stack/dgram.h's (header prediction) and lwIP's.
 *
 * Receive: a frame stays in its mbuf.  ini_netif_rx() checks the Ethernet
 * header, answers ARP and ICMP echo, drops what is not IPv4 from a peer of
 * the table to our MAC address, and gives the caller (stack/dgram.c) the IP
 * packet, still in the mbuf, whose private area holds the custom pbuf lwIP
 * sees it through (ini_netif_rx_pbuf: no allocation, no copy).  When that
 * pbuf is freed, the mbuf goes back to its pool, or carries the next
 * transmission.
 *
 * Transmit: lwIP hands the netif one IP packet (or fragment) as a pbuf
 * chain and the next-hop address.  The link finds the peer in its table,
 * takes an mbuf, writes the Ethernet header and copies the chain behind it
 * - the single copy the thesis makes per transmission - and queues the
 * mbuf on the peer's port.  A pbuf of ini_netif_alloc_tx (a fresh transmit
 * mbuf with room for the UDP, IP and Ethernet headers in front) is not
 * copied: lwIP writes its headers in place, the link adds the Ethernet
 * header, and the mbuf joins its queue when lwIP releases the pbuf, so
 * lwIP never touches a buffer the driver owns.  A layer above that writes
 * whole frames itself takes mbufs with ini_netif_tx_mbuf() and queues them
 * with ini_netif_enqueue().  ini_netif_flush() sends every queue in bursts.
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
#include "ini_assert.h"
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
};

/* Sends n queued mbufs of queue q; returns how many were taken.  The
 * default calls rte_eth_tx_burst; tests replace it to join two netifs. */
typedef uint16_t (*ini_xmit_fn)(struct ini_netif *nf, struct ini_txq *q,
                                struct rte_mbuf **pkts, uint16_t n);

/* rx_runt: shorter than an Ethernet and an IPv4 header; rx_not_ip: not
 * our EtherType (or a chained mbuf, which the glue cannot wrap);
 * rx_not_mine: for another MAC address; rx_not_peer: from an IP address
 * that is no peer's (dropped before IP: no INI talks to it, and its
 * fragments must not take reassembly slots from the peers'). */
struct ini_netif_stats {
    uint64_t rx_frames, rx_bytes, rx_runt, rx_not_ip, rx_not_mine, rx_not_peer;
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
    /* The time the queues' fault injectors read, in TSC cycles: the TSC
     * when NULL; else the owner's clock (inid's virtual-time loop points
     * it at the stamp of the event it serves, so a frame held back for a
     * reorder or a delay leaves at the same virtual time on any host). */
    const uint64_t *clock;
    struct ini_peer_slot peers[INI_PEER_HASH];
    int n_learned;                     /* slots ARP added (at most INI_PEER_LEARNED_MAX) */
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
 * set up again must be closed first (ini_netif_close).  ip is in network
 * order; pool provides transmit mbufs and must have been created with
 * INI_MBUF_PRIV_SIZE private bytes if it also feeds ini_netif_rx. */
int ini_netif_init(struct ini_netif *nf, uint32_t ip, const uint8_t mac[6], int mtu,
                   struct rte_mempool *pool);
/* Frees what the queues hold (queued, parked: never sent), puts back every
 * mbuf held for bulk transfers and removes the netif from lwIP.  Frames a
 * queue's fault injector holds are the injector's. */
void ini_netif_close(struct ini_netif *nf);
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

/* Receive, the link's part: takes ownership of a received frame.  Returns
 * its IPv4 packet (*len bytes, the frame's Ethernet padding included) when
 * it is one for us from a static peer, the mbuf then still the caller's
 * (ini_netif_rx_pbuf wraps it); NULL when the link has dealt with the frame
 * (freed and counted, or answered: ARP, ICMP echo). */
const uint8_t *ini_netif_rx(struct ini_netif *nf, struct rte_mbuf *m, uint16_t *len);
/* The custom pbuf over len bytes at payload of a frame ini_netif_rx
 * returned: the pbuf lives in the mbuf's private area, and freeing it
 * gives the mbuf back. */
static inline struct pbuf *ini_netif_rx_pbuf(struct rte_mbuf *m, void *payload, uint16_t len)
{
    struct ini_mbuf_pbuf *rp = (struct ini_mbuf_pbuf *)rte_mbuf_to_priv(m);
    return pbuf_alloced_custom(PBUF_RAW, len, PBUF_REF, &rp->pc, payload, len);
}

/* Sends everything queued (through the queue's fault injector, if any).
 * Frames a port refuses wait, in order, for the next flush, up to
 * INI_NETIF_BACKLOG per queue; beyond that they are dropped and counted
 * (tx_dropped): a sender of data asks for room first
 * (ini_netif_txq_room), so that only a flood of control frames or the
 * fault injector's duplicates can get there.  Returns how many frames
 * wait: the caller should not go idle while any do. */
int ini_netif_flush(struct ini_netif *nf);

/* Frames queue q can still take without dropping one: what its backlog
 * holds beyond what waits there and in the queue. */
static inline uint32_t ini_netif_txq_room(const struct ini_txq *q)
{
    return (uint32_t)INI_NETIF_BACKLOG - q->n_backlog - q->n;
}

/* ---- whole frames, for the layers above (stack/dgram.c, stack/arp.c) ---- */

/* Sends queue q at once (it is full). */
void ini_netif_flush_queue(struct ini_netif *nf, struct ini_txq *q);

/* A frame m (data_off and lengths set) joins queue q: sent at the next
 * flush, or now if that fills the queue.  The netif owns m from here. */
static inline void ini_netif_enqueue(struct ini_netif *nf, struct ini_txq *q, struct rte_mbuf *m)
{
    INI_ASSERT(q->n < INI_NETIF_BURST);     /* a full queue was sent at once */
    q->pkts[q->n++] = m;
    nf->tx_dirty = 1;
    nf->stats.tx_frames++;
    nf->stats.tx_bytes += m->pkt_len;
    if (q->n == INI_NETIF_BURST)
        ini_netif_flush_queue(nf, q);
}

/* A fresh transmit mbuf: a received one just freed, if any (the same pool,
 * and hot: a reply goes out in the mbuf its request came in, with no
 * mempool call for either), else from the pool a burst at a time; NULL
 * when the pool is empty.  Its data starts at the headroom, empty. */
static inline struct rte_mbuf *ini_netif_tx_mbuf(struct ini_netif *nf)
{
    struct rte_mbuf *m;
    if (nf->n_rx_free) {
        m = nf->rx_free[--nf->n_rx_free];
    } else {
        if (!nf->n_tx_cache) {
            if (rte_mempool_get_bulk(nf->pool, (void **)nf->tx_cache, INI_NETIF_BURST) != 0)
                return rte_pktmbuf_alloc(nf->pool);     /* nearly empty: one at a time */
            nf->n_tx_cache = INI_NETIF_BURST;
        }
        m = nf->tx_cache[--nf->n_tx_cache];
    }
    /* Raw, as a driver's receive path takes them from the pool: next and
     * nb_segs were reset when it was freed; the fields a transmit frame
     * is read by are set here (rte_pktmbuf_reset sets a dozen more). */
    m->data_off = (uint16_t)RTE_MIN((uint16_t)RTE_PKTMBUF_HEADROOM, m->buf_len);
    m->data_len = 0;
    m->pkt_len = 0;
    m->ol_flags &= RTE_MBUF_F_EXTERNAL;
    return m;
}

/* Writes the Ethernet header of a frame to `peer`. */
void ini_netif_eth_hdr(const struct ini_netif *nf, const struct ini_peer_slot *peer, uint8_t hdr[14]);

/* The peer entry of ip (network order) or NULL; learns (or updates) a
 * neighbour that is not a static peer (-1 if ip is static, the table is
 * full, or INI_PEER_LEARNED_MAX hosts are learned already: the first ones
 * stay, a new sender is not remembered); the queue of DPDK port `port` (0
 * if none); queues a complete frame on queue txq (the netif owns m from
 * here). */
struct ini_peer_slot *ini_netif_find_peer(struct ini_netif *nf, uint32_t ip);
int ini_netif_learn_peer(struct ini_netif *nf, uint32_t ip, const uint8_t mac[6], int txq);
int ini_netif_txq_of_port(const struct ini_netif *nf, uint16_t port);
void ini_netif_send_frame(struct ini_netif *nf, int txq, struct rte_mbuf *m);

/* The route hook of lwipopts.h: the netif that owns `src`, else the
 * default netif. */
struct ip4_addr;
struct netif *ini_lwip_route_src(const struct ip4_addr *src, const struct ip4_addr *dest);

#endif
