/*
 * netif_dpdk.c - the link: DPDK ports under lwIP's netif (see netif_dpdk.h).
 */
/* lwIP's IP headers before DPDK's: both define IP_RF and friends, and the
 * second definition is only silent in a system header. */
#include "lwip/ip.h"
#include "lwip/ip4_addr.h"
#include "netif_dpdk.h"

#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ether.h>

static inline uint32_t peer_hash(uint32_t ip)
{
    return (rte_be_to_cpu_32(ip) * 2654435761u) >> 23 & (INI_PEER_HASH - 1);
}

static struct ini_peer_slot *peer_lookup(struct ini_netif *nf, uint32_t ip)
{
    for (uint32_t h = peer_hash(ip), k = 0; k < INI_PEER_HASH; k++, h = (h + 1) & (INI_PEER_HASH - 1)) {
        struct ini_peer_slot *s = &nf->peers[h];
        if (s->ip == ip)
            return s;
        if (s->ip == 0)
            return NULL;
    }
    return NULL;
}

int ini_netif_add_peer(struct ini_netif *nf, uint32_t ip, const uint8_t mac[6], int txq)
{
    if (ip == 0 || peer_lookup(nf, ip) || txq < 0 || txq >= nf->n_txqs)
        return -1;
    for (uint32_t h = peer_hash(ip), k = 0; k < INI_PEER_HASH; k++, h = (h + 1) & (INI_PEER_HASH - 1)) {
        struct ini_peer_slot *s = &nf->peers[h];
        if (s->ip == 0) {
            s->ip = ip;
            s->txq = (uint16_t)txq;
            memcpy(s->mac, mac, 6);
            return 0;
        }
    }
    return -1;
}

int ini_netif_add_txq(struct ini_netif *nf, uint16_t port)
{
    if (nf->n_txqs >= INI_NETIF_MAX_PORTS)
        return -1;
    nf->txqs[nf->n_txqs].port = port;
    nf->txqs[nf->n_txqs].n = 0;
    return nf->n_txqs++;
}

/* Moves what the port did not take to the back of the queue's backlog;
 * only a full backlog drops. */
static void park(struct ini_netif *nf, struct ini_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
    uint16_t room = (uint16_t)(INI_NETIF_BACKLOG - q->n_backlog);
    uint16_t k = n < room ? n : room;
    memcpy(q->backlog + q->n_backlog, pkts, k * sizeof(*pkts));
    q->n_backlog = (uint16_t)(q->n_backlog + k);
    INI_ASSERT(q->n_backlog <= INI_NETIF_BACKLOG);
    if (k < n) {
        nf->stats.tx_dropped += n - k;
        rte_pktmbuf_free_bulk(pkts + k, n - k);
    }
}

/* Hands n frames to the port, a few tries; parks what it refuses. */
static inline void xmit_or_park(struct ini_netif *nf, struct ini_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
    uint16_t sent = 0;
    for (int tries = 0; sent < n && tries < 4; tries++)
        sent += nf->xmit(nf, q, pkts + sent, (uint16_t)(n - sent));
    if (sent < n)
        park(nf, q, pkts + sent, (uint16_t)(n - sent));
}

/* Sends n frames after the backlog, oldest first.  A full port (the
 * receiver's ring, on a local link) is a receiver busy for a moment:
 * what it refuses after a few tries waits for the next flush rather than
 * being dropped, which would turn a short stall into retransmissions of
 * whole windows. */
static void send_burst(struct ini_netif *nf, struct ini_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
    /* The owner wakes a sleeping peer of a queue that had frames for it,
     * sent or refused (a full ring the peer must drain). */
    if (n || q->n_backlog)
        q->flushed++;
    if (q->n_backlog) {
        uint16_t k = nf->xmit(nf, q, q->backlog, q->n_backlog);
        q->n_backlog = (uint16_t)(q->n_backlog - k);
        memmove(q->backlog, q->backlog + k, q->n_backlog * sizeof(*q->backlog));
        if (q->n_backlog) {
            park(nf, q, pkts, n);
            return;
        }
    }
    xmit_or_park(nf, q, pkts, n);
}

void ini_netif_flush_queue(struct ini_netif *nf, struct ini_txq *q)
{
    if (q->fault) {
        struct rte_mbuf *out[2 * INI_NETIF_BURST + INI_FAULT_HOLD];
        uint64_t now = nf->clock ? *nf->clock : rte_rdtsc();
        uint16_t n = ini_fault_apply(q->fault, now, q->pkts, q->n, out, RTE_DIM(out));
        send_burst(nf, q, out, n);
    } else {
        send_burst(nf, q, q->pkts, q->n);
    }
    q->n = 0;
}

/* Received mbufs are direct, of one segment and from nf->pool (the
 * ports' receive pool): rx_pbuf_free checked each; one put for all. */
static void release_rx(struct ini_netif *nf)
{
    if (nf->n_rx_free) {
        rte_mempool_put_bulk(nf->pool, (void **)nf->rx_free, nf->n_rx_free);
        nf->n_rx_free = 0;
    }
}

void ini_netif_return_mbufs(struct ini_netif *nf)
{
    release_rx(nf);
    if (nf->n_tx_cache) {
        rte_mempool_put_bulk(nf->pool, (void **)nf->tx_cache, nf->n_tx_cache);
        nf->n_tx_cache = 0;
    }
}

int ini_netif_flush(struct ini_netif *nf)
{
    /* Freed receive mbufs stay for the next transmissions (ini_netif_tx_mbuf), or
     * go back to the pool when a burst of them waits (rx_pbuf_free).
     * Nothing queued, parked or held by a fault injector since the last
     * flush (the common case of a loop turn): nothing to look at. */
    if (!nf->tx_dirty)
        return 0;
    int waiting = 0, holding = 0;
    for (int i = 0; i < nf->n_txqs; i++) {
        struct ini_txq *q = &nf->txqs[i];
        if (!q->fault && !q->n_backlog) {
            /* The common case, a request answered: what was queued goes
             * in one burst, straight to the port. */
            uint16_t n = q->n;
            if (!n)
                continue;
            q->flushed++;
            q->n = 0;
            xmit_or_park(nf, q, q->pkts, n);
            waiting += q->n_backlog;
            continue;
        }
        int held = q->fault && ini_fault_holding(q->fault);
        if (q->n || q->n_backlog || held)
            ini_netif_flush_queue(nf, q);
        waiting += q->n_backlog;
        holding |= q->fault && ini_fault_holding(q->fault);     /* still, after the flush */
    }
    nf->tx_dirty = waiting || holding;
    return waiting;
}

/* The custom free function of transmit pbufs: lwIP is done with it. */
static void tx_pbuf_free(struct pbuf *p)
{
    struct ini_mbuf_pbuf *mp = (struct ini_mbuf_pbuf *)p;
    if (mp->txq >= 0)
        ini_netif_enqueue(mp->nf, &mp->nf->txqs[mp->txq], mp->m);
    else
        rte_pktmbuf_free(mp->m);
}

struct pbuf *ini_netif_alloc_tx(struct ini_netif *nf, uint16_t len)
{
    struct rte_mbuf *m = ini_netif_tx_mbuf(nf);
    if (!m) {
        nf->stats.tx_no_mbuf++;
        return NULL;
    }
    if (rte_pktmbuf_tailroom(m) < INI_TX_HEADROOM + len) {
        rte_pktmbuf_free(m);
        nf->stats.tx_no_mbuf++;
        return NULL;
    }
    struct ini_mbuf_pbuf *mp = rte_mbuf_to_priv(m);
    mp->m = m;
    mp->nf = nf;
    mp->txq = -1;
    mp->pc.custom_free_function = tx_pbuf_free;
    uint8_t *payload = rte_pktmbuf_mtod(m, uint8_t *) + INI_TX_HEADROOM;
    return pbuf_alloced_custom(PBUF_RAW, len, PBUF_RAM, &mp->pc, payload, len);
}

/* A whole frame in one of our transmit mbufs: lwIP wrote its headers in
 * place, so only the Ethernet header is missing. */
static int is_tx_mbuf(const struct pbuf *p)
{
    return p->next == NULL && (p->flags & PBUF_FLAG_IS_CUSTOM) &&
           ((const struct pbuf_custom *)p)->custom_free_function == tx_pbuf_free;
}

void ini_netif_free_tx(struct pbuf *p)
{
    if (p->ref == 1 && is_tx_mbuf(p))
        tx_pbuf_free(p);            /* what pbuf_free would end in */
    else
        pbuf_free(p);
}

void ini_netif_eth_hdr(const struct ini_netif *nf, const struct ini_peer_slot *peer, uint8_t hdr[14])
{
    struct rte_ether_hdr *eth = (struct rte_ether_hdr *)hdr;
    memcpy(&eth->dst_addr, peer->mac, 6);
    memcpy(&eth->src_addr, nf->mac, 6);
    eth->ether_type = rte_cpu_to_be_16(nf->ethertype);
}

/* netif->output: one IP packet or fragment to `ipaddr`. */
static err_t netif_output(struct netif *netif, struct pbuf *p, const ip4_addr_t *ipaddr)
{
    struct ini_netif *nf = (struct ini_netif *)netif;
    struct ini_peer_slot *peer = peer_lookup(nf, ip4_addr_get_u32(ipaddr));
    if (!peer) {
        nf->stats.tx_no_route++;
        ini_arp_resolve(nf, ip4_addr_get_u32(ipaddr));
        return ERR_RTE;
    }
    if (is_tx_mbuf(p)) {
        struct ini_mbuf_pbuf *mp = (struct ini_mbuf_pbuf *)p;
        struct rte_mbuf *m = mp->m;
        struct rte_ether_hdr *eth = (struct rte_ether_hdr *)((uint8_t *)p->payload - RTE_ETHER_HDR_LEN);
        m->data_off = (uint16_t)((uint8_t *)eth - (uint8_t *)m->buf_addr);
        m->data_len = (uint16_t)(RTE_ETHER_HDR_LEN + p->len);
        m->pkt_len = m->data_len;
        ini_netif_eth_hdr(nf, peer, (uint8_t *)eth);
        mp->txq = peer->txq;          /* queued by tx_pbuf_free */
        return ERR_OK;
    }
    struct rte_mbuf *m = rte_pktmbuf_alloc(nf->pool);
    if (!m) {
        nf->stats.tx_no_mbuf++;
        return ERR_MEM;
    }
    uint16_t frame_len = (uint16_t)(RTE_ETHER_HDR_LEN + p->tot_len);
    struct rte_ether_hdr *eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, frame_len);
    if (!eth) {
        rte_pktmbuf_free(m);
        nf->stats.tx_no_mbuf++;
        return ERR_MEM;
    }
    ini_netif_eth_hdr(nf, peer, (uint8_t *)eth);
    pbuf_copy_partial(p, eth + 1, p->tot_len, 0);
    ini_netif_enqueue(nf, &nf->txqs[peer->txq], m);
    return ERR_OK;
}

/* The custom free function of received pbufs: the mbuf waits in rx_free
 * to carry the next transmission (ini_netif_tx_mbuf) or for a bulk return to its
 * pool when a burst of them waits (release_rx). */
static void rx_pbuf_free(struct pbuf *p)
{
    struct ini_mbuf_pbuf *rp = (struct ini_mbuf_pbuf *)p;
    struct ini_netif *nf = rp->nf;
    struct rte_mbuf *m = rte_pktmbuf_prefree_seg(rp->m);
    if (!m)
        return;                     /* still referenced elsewhere */
    if (m->pool != nf->pool || RTE_MBUF_HAS_EXTBUF(m)) {
        rte_mbuf_raw_free(m);       /* not one the bulk put may take */
        return;
    }
    nf->rx_free[nf->n_rx_free++] = m;
    if (nf->n_rx_free == INI_NETIF_BURST)
        release_rx(nf);
}

/* A frame that is not one the link passes up: counted and freed. */
static const uint8_t *drop_rx(struct rte_mbuf *m, uint64_t *counter)
{
    (*counter)++;
    rte_pktmbuf_free(m);
    return NULL;
}

const uint8_t *ini_netif_rx(struct ini_netif *nf, struct rte_mbuf *m, uint16_t *len)
{
    nf->stats.rx_frames++;
    nf->stats.rx_bytes += m->pkt_len;
    if (m->data_len < RTE_ETHER_HDR_LEN + 20)       /* shorter than any ARP or IPv4 frame */
        return drop_rx(m, &nf->stats.rx_runt);
    struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
    /* ARP is looked for only in what is not IPv4: no call per data frame. */
    if (eth->ether_type != rte_cpu_to_be_16(nf->ethertype))
        return ini_arp_input(nf, m) ? NULL : drop_rx(m, &nf->stats.rx_not_ip);
    if (m->nb_segs != 1)
        return drop_rx(m, &nf->stats.rx_not_ip);
    if (memcmp(&eth->dst_addr, nf->mac, 6) != 0)
        return drop_rx(m, &nf->stats.rx_not_mine);
    /* Only the configuration's peers send to an INI: anything else is
     * dropped here, before lwIP allocates or keeps anything for it (a
     * flood of a stranger's first fragments would otherwise evict the
     * peers' datagrams from reassembly).  A host learned by ARP gets its
     * echo requests answered and nothing more: anyone on the LAN is
     * learned by sending one ARP request. */
    const uint8_t *ip = (const uint8_t *)(eth + 1);
    uint32_t src;
    memcpy(&src, ip + 12, 4);
    const struct ini_peer_slot *peer = peer_lookup(nf, src);
    if (peer && ip[9] == IP_PROTO_ICMP && ini_icmp_echo_input(nf, m))
        return NULL;
    if (!peer || peer->learned)
        return drop_rx(m, &nf->stats.rx_not_peer);
    struct ini_mbuf_pbuf *rp = rte_mbuf_to_priv(m);
    rp->m = m;
    rp->nf = nf;
    rp->pc.custom_free_function = rx_pbuf_free;
    *len = (uint16_t)(m->data_len - RTE_ETHER_HDR_LEN);
    return ip;
}

static uint16_t eth_xmit(struct ini_netif *nf, struct ini_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
    return rte_eth_tx_burst(q->port, 0, pkts, n);
}

static err_t netif_init_cb(struct netif *netif)
{
    netif->name[0] = 'i';
    netif->name[1] = 'n';
    netif->output = netif_output;
    netif->flags = NETIF_FLAG_UP | NETIF_FLAG_LINK_UP;
    return ERR_OK;
}

int ini_netif_init(struct ini_netif *nf, uint32_t ip, const uint8_t mac[6], int mtu,
                   struct rte_mempool *pool)
{
    memset(nf, 0, sizeof(*nf));
    memcpy(nf->mac, mac, 6);
    nf->ethertype = INI_ETHERTYPE_IPV4;
    nf->pool = pool;
    nf->xmit = eth_xmit;
    ini_arp_init(&nf->arp, rte_get_tsc_hz());
    ip4_addr_t addr, mask, gw;
    ip4_addr_set_u32(&addr, ip);
    ip4_addr_set_u32(&mask, PP_HTONL(0xffffffffUL));
    ip4_addr_set_zero(&gw);
    if (!netif_add(&nf->netif, &addr, &mask, &gw, nf, netif_init_cb, ip4_input))
        return -1;
    nf->netif.mtu = (u16_t)mtu;
    nf->netif.hwaddr_len = 6;
    memcpy(nf->netif.hwaddr, mac, 6);
    netif_set_up(&nf->netif);
    netif_set_link_up(&nf->netif);
    if (!netif_default)
        netif_set_default(&nf->netif);
    return 0;
}

void ini_netif_close(struct ini_netif *nf)
{
    for (int i = 0; i < nf->n_txqs; i++) {
        struct ini_txq *q = &nf->txqs[i];
        rte_pktmbuf_free_bulk(q->pkts, q->n);
        rte_pktmbuf_free_bulk(q->backlog, q->n_backlog);
        q->n = q->n_backlog = 0;
    }
    /* an ICMP echo request's fragments held (found by fuzz_rx: a close
     * with one held lost its mbuf) */
    ini_icmp_reass_drop(nf);
    ini_netif_return_mbufs(nf);
    netif_remove(&nf->netif);
}

/* ---- for the layers above (stack/arp.c, stack/dgram.c) ---- */

struct ini_peer_slot *ini_netif_find_peer(struct ini_netif *nf, uint32_t ip)
{
    return peer_lookup(nf, ip);
}

int ini_netif_learn_peer(struct ini_netif *nf, uint32_t ip, const uint8_t mac[6], int txq)
{
    struct ini_peer_slot *s = peer_lookup(nf, ip);
    if (s && !s->learned)
        return -1;                   /* the configuration's word stands */
    if (!s) {
        if (nf->n_learned >= INI_PEER_LEARNED_MAX || ini_netif_add_peer(nf, ip, mac, txq) < 0)
            return -1;
        s = peer_lookup(nf, ip);
        s->learned = 1;
        nf->n_learned++;
    }
    memcpy(s->mac, mac, 6);
    s->txq = (uint16_t)txq;
    return 0;
}

int ini_netif_txq_of_port(const struct ini_netif *nf, uint16_t port)
{
    for (int i = 0; i < nf->n_txqs; i++)
        if (nf->txqs[i].port == port)
            return i;
    return 0;
}

void ini_netif_send_frame(struct ini_netif *nf, int txq, struct rte_mbuf *m)
{
    ini_netif_enqueue(nf, &nf->txqs[txq], m);
}

struct netif *ini_lwip_route_src(const struct ip4_addr *src, const struct ip4_addr *dest)
{
    if (src && !ip4_addr_isany(src)) {
        struct netif *n;
        NETIF_FOREACH(n) {
            if (ip4_addr_cmp(netif_ip4_addr(n), src))
                return n;
        }
    }
    return netif_default;
}
