/*
 * netif_dpdk.c - lwIP netif over DPDK mbufs (see netif_dpdk.h).
 */
/* lwIP's IP headers before DPDK's: both define IP_RF and friends, and the
 * second definition is only silent in a system header. */
#include "lwip/ip.h"
#include "lwip/ip4.h"
#include "lwip/ip4_addr.h"
#include "lwip/udp.h"
#include "netif_dpdk.h"
#include "checksum.h"

#include <string.h>

#include "lwip/stats.h"
#include "lwip/timeouts.h"

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

static void write_eth(struct ini_netif *nf, const struct ini_peer_slot *peer, struct rte_ether_hdr *eth);
static void write_ip(uint8_t *ip, uint16_t tot, uint16_t id, uint16_t frag, uint32_t src, uint32_t dst);

/* The slot's header pattern (ini_peer_slot.hdr), from its MAC and address
 * and the netif's. */
static void peer_pattern(struct ini_netif *nf, struct ini_peer_slot *s)
{
    write_eth(nf, s, (struct rte_ether_hdr *)s->hdr);
    uint8_t *ip = s->hdr + RTE_ETHER_HDR_LEN;
    uint32_t src = ip4_addr_get_u32(netif_ip4_addr(&nf->netif));
    write_ip(ip, 0, 0, 0, src, s->ip);
    ip[10] = ip[11] = 0;
    s->ip_sum = ini_chksum(ip, IP_HLEN);
    s->udp_sum = (src & 0xffff) + (src >> 16) + (s->ip & 0xffff) + (s->ip >> 16) + lwip_htons(IP_PROTO_UDP);
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
            peer_pattern(nf, s);
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

static void flush_queue(struct ini_netif *nf, struct ini_txq *q)
{
    if (q->fault) {
        struct rte_mbuf *out[2 * INI_NETIF_BURST + INI_FAULT_HOLD];
        uint16_t n = ini_fault_apply(q->fault, rte_rdtsc(), q->pkts, q->n, out, RTE_DIM(out));
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
    /* Freed receive mbufs stay for the next transmissions (tx_mbuf), or
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
            flush_queue(nf, q);
        waiting += q->n_backlog;
        holding |= q->fault && ini_fault_holding(q->fault);     /* still, after the flush */
    }
    nf->tx_dirty = waiting || holding;
    return waiting;
}

static inline void enqueue(struct ini_netif *nf, struct ini_txq *q, struct rte_mbuf *m)
{
    q->pkts[q->n++] = m;
    nf->tx_dirty = 1;
    nf->stats.tx_frames++;
    nf->stats.tx_bytes += m->pkt_len;
    if (q->n == INI_NETIF_BURST)
        flush_queue(nf, q);
}

/* The custom free function of transmit pbufs: lwIP is done with it. */
static void tx_pbuf_free(struct pbuf *p)
{
    struct ini_mbuf_pbuf *mp = (struct ini_mbuf_pbuf *)p;
    if (mp->txq >= 0)
        enqueue(mp->nf, &mp->nf->txqs[mp->txq], mp->m);
    else
        rte_pktmbuf_free(mp->m);
}

/* A fresh transmit mbuf: a received one just freed, if any (the same pool,
 * and hot: a reply goes out in the mbuf its request came in, with no
 * mempool call for either), else from the pool a burst at a time. */
static inline struct rte_mbuf *tx_mbuf(struct ini_netif *nf)
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

struct pbuf *ini_netif_alloc_tx(struct ini_netif *nf, uint16_t len)
{
    struct rte_mbuf *m = tx_mbuf(nf);
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

static void write_eth(struct ini_netif *nf, const struct ini_peer_slot *peer, struct rte_ether_hdr *eth)
{
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
        write_eth(nf, peer, eth);
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
    write_eth(nf, peer, eth);
    pbuf_copy_partial(p, eth + 1, p->tot_len, 0);
    enqueue(nf, &nf->txqs[peer->txq], m);
    return ERR_OK;
}

/* The custom free function of received pbufs: the mbuf waits in rx_free
 * to carry the next transmission (tx_mbuf) or for a bulk return to its
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

/* ---- header prediction (netif_dpdk.h) ---- */

static inline uint16_t ld16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

static inline uint32_t ld32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline void st16(uint8_t *p, uint16_t v)
{
    memcpy(p, &v, 2);
}

static inline uint16_t fold32(uint32_t s)
{
    s = (s & 0xffff) + (s >> 16);
    return (uint16_t)((s & 0xffff) + (s >> 16));
}

static void write_ip(uint8_t *ip, uint16_t tot, uint16_t id, uint16_t frag, uint32_t src, uint32_t dst);

void ini_netif_fast_udp(struct ini_netif *nf, struct udp_pcb *pcb)
{
    nf->fast_pcb = pcb;
}

int ini_netif_udp_frame(struct ini_netif *nf, const struct ini_peer_slot *peer, uint16_t len,
                        struct ini_udp_frame *f)
{
    if (!peer || len + IP_HLEN + UDP_HLEN > nf->netif.mtu)
        return -1;
    struct rte_mbuf *m = tx_mbuf(nf);
    if (!m || rte_pktmbuf_tailroom(m) < INI_TX_HEADROOM + len) {
        if (m)
            rte_pktmbuf_free(m);
        nf->stats.tx_no_mbuf++;
        return -2;
    }
    f->m = m;
    f->peer = peer;
    f->len = len;
    f->payload = rte_pktmbuf_mtod(m, uint8_t *) + INI_TX_HEADROOM;
    return 0;
}

/* The fields are lwIP's for a UDP datagram of one frame: version 4, header
 * of 20 bytes, TOS 0, no flags, TTL IP_DEFAULT_TTL (a new pcb's), the
 * header checksum; UDP source and destination port, length, checksum
 * (0xffff for a sum of 0, as udp_sendto).  The id is ours: only fragments
 * are matched by id, and these datagrams have none. */
void ini_netif_udp_queue(struct ini_netif *nf, const struct ini_udp_frame *f, uint16_t port, uint16_t payload_sum)
{
    uint8_t *udp = f->payload - UDP_HLEN, *ip = udp - IP_HLEN, *eth = ip - RTE_ETHER_HDR_LEN;
    uint16_t ulen = lwip_htons((u16_t)(f->len + UDP_HLEN)), nport = lwip_htons(port);
    /* Payload, UDP header (its checksum 0) and pseudo header, as 16-bit
     * words in memory order. */
    uint32_t acc = (uint32_t)payload_sum + 2u * nport + 2u * ulen + f->peer->udp_sum;
    uint16_t usum = (uint16_t)~fold32(acc);
    st16(udp, nport);
    st16(udp + 2, nport);
    st16(udp + 4, ulen);
    st16(udp + 6, usum ? usum : 0xffff);
    /* Ethernet and IPv4 headers: the peer's pattern, then the three fields
     * that change, the checksum from the pattern's sum. */
    memcpy(eth, f->peer->hdr, sizeof(f->peer->hdr));
    uint16_t tot = lwip_htons((u16_t)(f->len + UDP_HLEN + IP_HLEN)), id = lwip_htons(nf->ip_id++);
    st16(ip + 2, tot);
    st16(ip + 4, id);
    st16(ip + 10, (uint16_t)~fold32(f->peer->ip_sum + tot + id));
    struct rte_mbuf *m = f->m;
    m->data_off = (uint16_t)(eth - (uint8_t *)m->buf_addr);
    m->data_len = (uint16_t)(RTE_ETHER_HDR_LEN + IP_HLEN + UDP_HLEN + f->len);
    m->pkt_len = m->data_len;
    enqueue(nf, &nf->txqs[f->peer->txq], m);
}

/* Writes an IPv4 header for `tot` bytes of packet, flags and offset
 * field `frag` (network order), as lwIP's ip4_output and ip4_frag do. */
static void write_ip(uint8_t *ip, uint16_t tot, uint16_t id, uint16_t frag, uint32_t src, uint32_t dst)
{
    ip[0] = 0x45;
    ip[1] = 0;
    st16(ip + 2, lwip_htons(tot));
    st16(ip + 4, lwip_htons(id));
    st16(ip + 6, frag);
    ip[8] = IP_DEFAULT_TTL;
    ip[9] = IP_PROTO_UDP;
    st16(ip + 10, 0);
    memcpy(ip + 12, &src, 4);
    memcpy(ip + 16, &dst, 4);
    st16(ip + 10, (uint16_t)~ini_chksum(ip, IP_HLEN));
}

int ini_netif_udp_send_frags(struct ini_netif *nf, const uint8_t *payload, uint32_t len, uint32_t dst_ip,
                             uint16_t port, uint16_t payload_sum)
{
    struct ini_peer_slot *peer = peer_lookup(nf, dst_ip);
    uint32_t total = len + UDP_HLEN;
    uint32_t piece = ((uint32_t)nf->netif.mtu - IP_HLEN) & ~7u;      /* lwIP's: whole 8-byte units */
    if (!peer || total > 0xffff - IP_HLEN || piece < 8)
        return -1;
    uint32_t n = (total + piece - 1) / piece;
    struct rte_mbuf *ms[64];
    if (n > RTE_DIM(ms) || rte_pktmbuf_alloc_bulk(nf->pool, ms, n) != 0) {
        nf->stats.tx_no_mbuf++;
        return -2;
    }
    uint32_t src = ip4_addr_get_u32(netif_ip4_addr(&nf->netif));
    uint16_t ulen = lwip_htons((u16_t)total), nport = lwip_htons(port), id = nf->ip_id++;
    uint32_t acc = (uint32_t)payload_sum + 2u * nport + 2u * ulen + (src & 0xffff) + (src >> 16) +
                   (dst_ip & 0xffff) + (dst_ip >> 16) + lwip_htons(IP_PROTO_UDP);
    uint16_t usum = (uint16_t)~fold32(acc);
    struct ini_txq *q = &nf->txqs[peer->txq];
    uint32_t off = 0;            /* in the datagram (UDP header included) */
    for (uint32_t k = 0; k < n; k++) {
        uint32_t flen = total - off < piece ? total - off : piece;
        struct rte_mbuf *m = ms[k];
        /* A fresh mbuf holds a frame of the MTU (the pool is sized from it). */
        struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
        m->data_len = (uint16_t)(RTE_ETHER_HDR_LEN + IP_HLEN + flen);
        m->pkt_len = m->data_len;
        uint8_t *ip = (uint8_t *)(eth + 1), *data = ip + IP_HLEN;
        write_eth(nf, peer, eth);
        uint16_t frag = (uint16_t)(off / 8) | (k + 1 < n ? IP_MF : 0);
        write_ip(ip, (uint16_t)(IP_HLEN + flen), id, lwip_htons(frag), src, dst_ip);
        if (k == 0) {
            st16(data, nport);
            st16(data + 2, nport);
            st16(data + 4, ulen);
            st16(data + 6, usum ? usum : 0xffff);
            memcpy(data + UDP_HLEN, payload, flen - UDP_HLEN);
        } else {
            memcpy(data, payload + off - UDP_HLEN, flen);
        }
        off += flen;
        enqueue(nf, q, m);
    }
    return 0;
}

/* A frame that is one plain UDP datagram for the fast pcb's port goes to
 * the pcb's callback as udp_input would hand it over: a pbuf over the
 * payload, the UDP header just in front, ip_current_*() set.  What
 * ip4_input and udp_input would check, checked here: version and header
 * length (no options), not a fragment, total length within the frame
 * (Ethernet padding cut off), header checksum, our address, UDP, UDP
 * length, port; and for a small datagram its UDP checksum, in the same
 * pass: the addresses are summed once for both.  lwIP's remaining checks
 * do not apply: the source address is the transport's to check (it must
 * be a peer INI); a longer datagram's UDP checksum is the transport's
 * (CHECKSUM_CHECK_UDP 0), as is a small one's that fails here (checked
 * again there, and counted).  1 when taken. */
static int fast_input(struct ini_netif *nf, struct rte_mbuf *m, const uint8_t *ip, uint16_t len,
                      struct ini_rx_meta *meta)
{
    struct udp_pcb *pcb = nf->fast_pcb;
    if (len < IP_HLEN + UDP_HLEN || ip[0] != 0x45 || ip[9] != IP_PROTO_UDP ||
        (ld16(ip + 6) & PP_HTONS(IP_MF | IP_OFFMASK)) != 0 ||
        ld32(ip + 16) != ip4_addr_get_u32(netif_ip4_addr(&nf->netif)))
        return 0;
    const uint8_t *udp = ip + IP_HLEN;
    uint16_t tot = lwip_ntohs(ld16(ip + 2)), ulen = lwip_ntohs(ld16(udp + 4));
    if (tot > len || tot < IP_HLEN + UDP_HLEN || ulen != tot - IP_HLEN || ld16(udp + 2) != lwip_htons(pcb->local_port))
        return 0;
    uint64_t addrs = ini_sum_small(0, ip + 12, 8);
    if (ini_sum_fold(ini_sum_small(addrs, ip, 12)) != 0xffff)
        return 0;
    nf->rx_udp_ok = ulen <= INI_SMALL_MAX &&
                    ini_sum_fold(ini_sum_small(ini_sum_add(addrs, lwip_htons(IP_PROTO_UDP) + (uint32_t)ld16(udp + 4)), udp, ulen)) == 0xffff;
    struct ini_mbuf_pbuf *rp = rte_mbuf_to_priv(m);
    uint16_t n = (uint16_t)(ulen - UDP_HLEN);
    struct pbuf *p = pbuf_alloced_custom(PBUF_RAW, n, PBUF_REF, &rp->pc, (void *)(udp + UDP_HLEN), n);
    ip_data.current_netif = &nf->netif;
    ip_data.current_input_netif = &nf->netif;
    ip_data.current_ip4_header = (const struct ip_hdr *)ip;
    ip_data.current_ip_header_tot_len = IP_HLEN;
    ip_addr_set_ip4_u32(&ip_data.current_iphdr_src, ld32(ip + 12));
    ip_addr_set_ip4_u32(&ip_data.current_iphdr_dest, ld32(ip + 16));
    nf->rx_cur = meta;
    /* The callback owns p from here on. */
    pcb->recv(pcb->recv_arg, pcb, p, ip_current_src_addr(), lwip_ntohs(ld16(udp)));
    nf->rx_cur = NULL;
    nf->rx_udp_ok = 0;
    ip_data.current_netif = NULL;
    ip_data.current_input_netif = NULL;
    ip_data.current_ip4_header = NULL;
    ip_data.current_ip_header_tot_len = 0;
    ip_addr_set_zero_ip4(&ip_data.current_iphdr_src);
    ip_addr_set_zero_ip4(&ip_data.current_iphdr_dest);
    return 1;
}

void ini_netif_input(struct ini_netif *nf, struct rte_mbuf *m, struct ini_rx_meta *meta)
{
    nf->stats.rx_frames++;
    nf->stats.rx_bytes += m->pkt_len;
    if (m->data_len < RTE_ETHER_HDR_LEN + 20) {     /* shorter than any ARP or IPv4 frame */
        nf->stats.rx_runt++;
        rte_pktmbuf_free(m);
        return;
    }
    struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
    /* ARP is looked for only in what is not IPv4: no call per data frame. */
    if (eth->ether_type != rte_cpu_to_be_16(nf->ethertype)) {
        if (ini_arp_input(nf, m))
            return;
        nf->stats.rx_not_ip++;
        rte_pktmbuf_free(m);
        return;
    }
    if (m->nb_segs != 1) {
        nf->stats.rx_not_ip++;
        rte_pktmbuf_free(m);
        return;
    }
    if (memcmp(&eth->dst_addr, nf->mac, 6) != 0) {
        nf->stats.rx_not_mine++;
        rte_pktmbuf_free(m);
        return;
    }
    /* Only the configuration's peers send to an INI: anything else is
     * dropped here, before lwIP allocates or keeps anything for it (a
     * flood of a stranger's first fragments would otherwise evict the
     * peers' datagrams from reassembly).  A host learned by ARP gets its
     * echo requests answered and nothing more: anyone on the LAN is
     * learned by sending one ARP request. */
    uint32_t src;
    memcpy(&src, (const uint8_t *)(eth + 1) + 12, 4);
    const struct ini_peer_slot *peer = peer_lookup(nf, src);
    if (peer && ((const uint8_t *)(eth + 1))[9] == IP_PROTO_ICMP && ini_icmp_echo_input(nf, m))
        return;
    if (!peer || peer->learned) {
        nf->stats.rx_not_peer++;
        rte_pktmbuf_free(m);
        return;
    }
    struct ini_mbuf_pbuf *rp = rte_mbuf_to_priv(m);
    rp->m = m;
    rp->nf = nf;
    rp->pc.custom_free_function = rx_pbuf_free;
    uint16_t len = (uint16_t)(m->data_len - RTE_ETHER_HDR_LEN);
    if (nf->fast_pcb && fast_input(nf, m, (const uint8_t *)(eth + 1), len, meta))
        return;
    struct pbuf *p = pbuf_alloced_custom(PBUF_RAW, len, PBUF_REF, &rp->pc, eth + 1, len);
    /* ip4_input owns p from here on, whatever it returns.  lwIP counts
     * every datagram its reassembly gives up (MIB2 ipReasmFails); during
     * input that is an eviction, to make room for this frame's. */
    uint32_t fails = lwip_stats.mib2.ipreasmfails;
    nf->rx_cur = meta;
    ip4_input(p, &nf->netif);
    nf->rx_cur = NULL;
    nf->stats.reass_evictions += lwip_stats.mib2.ipreasmfails - fails;
}

void ini_netif_timers(struct ini_netif *nf)
{
    /* Outside input, a datagram given up has aged out. */
    uint32_t fails = lwip_stats.mib2.ipreasmfails;
    sys_check_timeouts();
    nf->stats.reass_timeouts += lwip_stats.mib2.ipreasmfails - fails;
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

/* ---- for ARP (stack/arp.c) ---- */

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
    peer_pattern(nf, s);
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
    enqueue(nf, &nf->txqs[txq], m);
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
