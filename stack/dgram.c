/*
 * dgram.c - the transport's UDP datagrams between the link and lwIP (see
 * dgram.h): header prediction both ways, IP fragments cut on send, lwIP's
 * UDP and IP for everything else.
 */
/* lwIP's IP headers before DPDK's: both define IP_RF and friends, and the
 * second definition is only silent in a system header. */
#include "lwip/ip.h"
#include "lwip/ip4.h"
#include "lwip/ip4_frag.h"
#include "lwip/memp.h"
#include "lwip/stats.h"
#include "lwip/timeouts.h"
#include "lwip/udp.h"
#include "dgram.h"

#include <string.h>

#include <rte_ether.h>

#include "checksum.h"

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

/* ---- destinations: the header pattern ---- */

void ini_dgram_dst_init(struct ini_dgram_dst *d, uint32_t ip)
{
    memset(d, 0, sizeof(*d));
    d->ip = ip;
}

/* The pattern's IPv4 header: the fields are lwIP's for a UDP datagram
 * (ip4_output, ip4_frag): version 4, header of 20 bytes, TOS 0, TTL
 * IP_DEFAULT_TTL (a new pcb's); total length, id, flags and offset, and
 * the checksum are the datagram's. */
static void pattern_ip(uint8_t *ip, uint32_t src, uint32_t dst)
{
    memset(ip, 0, IP_HLEN);
    ip[0] = 0x45;
    ip[8] = IP_DEFAULT_TTL;
    ip[9] = IP_PROTO_UDP;
    memcpy(ip + 12, &src, 4);
    memcpy(ip + 16, &dst, 4);
}

/* 1 when d is a static peer of the link, its pattern made (at the first
 * send that finds it there); 0: lwIP's path.  Learned neighbours are never
 * the transport's peers (it talks to the configuration's INIs), and their
 * MAC may change: they are not predicted. */
static inline int dst_ready(struct ini_dgram *dg, struct ini_dgram_dst *d)
{
    if (d->slot)
        return 1;
    const struct ini_peer_slot *slot = ini_netif_find_peer(dg->nf, d->ip);
    if (!slot || slot->learned)
        return 0;
    d->slot = slot;
    ini_netif_eth_hdr(dg->nf, slot, d->hdr);
    uint8_t *ip = d->hdr + RTE_ETHER_HDR_LEN;
    pattern_ip(ip, dg->ip, d->ip);
    d->ip_sum = ini_chksum(ip, IP_HLEN);
    d->udp_sum = (dg->ip & 0xffff) + (dg->ip >> 16) + (d->ip & 0xffff) + (d->ip >> 16) + lwip_htons(IP_PROTO_UDP);
    return 1;
}

/* Writes the Ethernet and IPv4 headers of a datagram (or fragment) to d in
 * front of `ip`: the pattern, then the fields that change, the checksum
 * from the pattern's sum (all in network order). */
static inline void write_headers(const struct ini_dgram_dst *d, uint8_t *eth, uint16_t tot, uint16_t id,
                                 uint16_t frag)
{
    uint8_t *ip = eth + RTE_ETHER_HDR_LEN;
    memcpy(eth, d->hdr, sizeof(d->hdr));
    st16(ip + 2, tot);
    st16(ip + 4, id);
    st16(ip + 6, frag);
    st16(ip + 10, (uint16_t)~fold32(d->ip_sum + tot + id + frag));
}

/* The UDP header of a datagram of `ulen` bytes (network order) to d, its
 * payload summing to payload_sum; the checksum 0xffff for a sum of 0, as
 * udp_sendto writes it. */
static inline void write_udp(const struct ini_dgram *dg, const struct ini_dgram_dst *d, uint8_t *udp, uint16_t ulen,
                             uint16_t payload_sum)
{
    uint16_t nport = lwip_htons(dg->port);
    /* Payload, UDP header (its checksum 0) and pseudo header, as 16-bit
     * words in memory order. */
    uint32_t acc = (uint32_t)payload_sum + 2u * nport + 2u * ulen + d->udp_sum;
    uint16_t usum = (uint16_t)~fold32(acc);
    st16(udp, nport);
    st16(udp + 2, nport);
    st16(udp + 4, ulen);
    st16(udp + 6, dg->no_checksum ? 0 : usum ? usum : 0xffff);
}

/* ---- send ---- */

/* Through lwIP: the netif and source address are known, no route lookup.
 * Takes p. */
static int send_lwip(struct ini_dgram *dg, const struct ini_dgram_dst *d, struct pbuf *p, uint16_t payload_sum)
{
    ip_addr_t to, from;
    ip_addr_set_ip4_u32(&to, d->ip);
    ip_addr_set_ip4_u32(&from, dg->ip);
    err_t e = udp_sendto_if_src_chksum(dg->pcb, p, &to, dg->port, &dg->nf->netif, 1, payload_sum, &from);
    ini_netif_free_tx(p);
    return e == ERR_OK ? 0 : -1;
}

/* What the inline part (dgram.h) does not take: a destination not looked
 * up yet (predicted from now on if it is a static peer), or lwIP's path. */
uint8_t *ini_dgram_frame_begin_slow(struct ini_dgram *dg, struct ini_dgram_dst *dst, uint16_t len,
                                    struct ini_dgram_frame *f)
{
    if (len <= dg->frame_max && !dst->slot && dst_ready(dg, dst))
        return ini_dgram_frame_begin(dg, dst, len, f);
    f->dst = dst;
    f->len = len;
    f->p = ini_netif_alloc_tx(dg->nf, len);
    f->payload = f->p ? f->p->payload : NULL;
    return f->payload;
}

uint32_t ini_dgram_tx_room_slow(struct ini_dgram *dg, struct ini_dgram_dst *dst)
{
    return dst_ready(dg, dst) ? ini_dgram_tx_room(dg, dst) : UINT32_MAX;
}

int ini_dgram_frame_send(struct ini_dgram *dg, struct ini_dgram_frame *f, uint16_t payload_sum)
{
    if (f->p)
        return send_lwip(dg, f->dst, f->p, payload_sum);
    /* Predicted: UDP, IP and Ethernet headers in place, in front.  The IP
     * id is ours: only fragments are matched by id, and these are none. */
    uint8_t *udp = f->payload - UDP_HLEN, *eth = udp - IP_HLEN - RTE_ETHER_HDR_LEN;
    write_udp(dg, f->dst, udp, lwip_htons((u16_t)(f->len + UDP_HLEN)), payload_sum);
    write_headers(f->dst, eth, lwip_htons((u16_t)(f->len + UDP_HLEN + IP_HLEN)), lwip_htons(dg->ip_id++), 0);
    struct rte_mbuf *m = f->m;
    m->data_off = (uint16_t)(eth - (uint8_t *)m->buf_addr);
    m->data_len = (uint16_t)(RTE_ETHER_HDR_LEN + IP_HLEN + UDP_HLEN + f->len);
    m->pkt_len = m->data_len;
    ini_netif_enqueue(dg->nf, &dg->nf->txqs[f->dst->slot->txq], m);
    return 0;
}

/* Cuts the datagram (UDP header, then len bytes of payload) into the n
 * fragments of `piece` bytes in the mbufs ms, as ip4_frag would, and
 * queues them. */
static void queue_frags(struct ini_dgram *dg, const struct ini_dgram_dst *d, struct rte_mbuf **ms, uint32_t n,
                        uint32_t piece, const uint8_t *payload, uint32_t len, uint16_t payload_sum, uint16_t id)
{
    uint32_t total = len + UDP_HLEN, off = 0;       /* off: in the datagram, UDP header included */
    struct ini_txq *q = &dg->nf->txqs[d->slot->txq];
    for (uint32_t k = 0; k < n; k++) {
        uint32_t flen = total - off < piece ? total - off : piece;
        struct rte_mbuf *m = ms[k];
        /* A fresh mbuf holds a frame of the MTU (the pool is sized from it). */
        uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *), *data = eth + RTE_ETHER_HDR_LEN + IP_HLEN;
        m->data_len = (uint16_t)(RTE_ETHER_HDR_LEN + IP_HLEN + flen);
        m->pkt_len = m->data_len;
        uint16_t frag = (uint16_t)(off / 8) | (k + 1 < n ? IP_MF : 0);
        write_headers(d, eth, lwip_htons((u16_t)(IP_HLEN + flen)), id, lwip_htons(frag));
        if (k == 0) {
            write_udp(dg, d, data, lwip_htons((u16_t)total), payload_sum);
            memcpy(data + UDP_HLEN, payload, flen - UDP_HLEN);
        } else {
            memcpy(data, payload + off - UDP_HLEN, flen);
        }
        off += flen;
        ini_netif_enqueue(dg->nf, q, m);
    }
}

int ini_dgram_send_frags(struct ini_dgram *dg, struct ini_dgram_dst *dst, const uint8_t *payload, uint32_t len,
                         uint16_t payload_sum, uint32_t *ip_id)
{
    uint32_t total = len + UDP_HLEN;
    uint32_t piece = ini_dgram_frag_piece(dg);
    if (dst_ready(dg, dst) && total <= 0xffff - IP_HLEN && piece >= 8) {
        uint32_t n = (total + piece - 1) / piece;
        struct rte_mbuf *ms[64];
        if (n > RTE_DIM(ms) || rte_pktmbuf_alloc_bulk(dg->nf->pool, ms, n) != 0) {
            dg->nf->stats.tx_no_mbuf++;
            return -1;
        }
        if (!*ip_id)
            *ip_id = 1u << 16 | dg->ip_id++;
        queue_frags(dg, dst, ms, n, piece, payload, len, payload_sum, lwip_htons((u16_t)*ip_id));
        return 0;
    }
    /* Not covered: lwIP fragments a pbuf over the payload, and the link
     * copies each fragment out. */
    struct pbuf *p = pbuf_alloc(PBUF_TRANSPORT, (u16_t)len, PBUF_REF);
    if (!p)
        return -1;
    p->payload = (void *)(uintptr_t)payload;
    return send_lwip(dg, dst, p, payload_sum);
}

int ini_dgram_send_parts(struct ini_dgram *dg, struct ini_dgram_dst *dst, const uint8_t *head, uint16_t head_len,
                         const uint8_t *body, uint32_t body_len, uint16_t payload_sum)
{
    struct pbuf *p = pbuf_alloc(PBUF_TRANSPORT, head_len, PBUF_RAM);
    struct pbuf *ref = pbuf_alloc(PBUF_RAW, (u16_t)body_len, PBUF_REF);
    if (!p || !ref) {
        if (p)
            pbuf_free(p);
        if (ref)
            pbuf_free(ref);
        return -1;
    }
    memcpy(p->payload, head, head_len);
    ref->payload = (void *)(uintptr_t)body;
    pbuf_cat(p, ref);
    return send_lwip(dg, dst, p, payload_sum);
}

/* ---- receive ---- */

/* A frame that is one plain UDP datagram for the port goes to the input
 * function as udp_input would hand it over: a pbuf over the payload, the
 * UDP header just in front.  What ip4_input and udp_input would check,
 * checked here: version and header length (no options), not a fragment,
 * total length within the frame (Ethernet padding cut off), header
 * checksum, our address, UDP, UDP length, port; and for a small datagram
 * its UDP checksum, in the same pass: the addresses are summed once for
 * both.  lwIP's remaining checks do not apply: the source address is the
 * transport's to check (it must be a peer INI); a longer datagram's UDP
 * checksum is the transport's (CHECKSUM_CHECK_UDP 0), as is a small one's
 * that fails here (checked again there, and counted).  1 when taken. */
static int predicted_input(struct ini_dgram *dg, struct rte_mbuf *m, const uint8_t *ip, uint16_t len,
                           struct ini_rx_meta *meta)
{
    if (len < IP_HLEN + UDP_HLEN || ip[0] != 0x45 || ip[9] != IP_PROTO_UDP ||
        (ld16(ip + 6) & PP_HTONS(IP_MF | IP_OFFMASK)) != 0 || ld32(ip + 16) != dg->ip)
        return 0;
    const uint8_t *udp = ip + IP_HLEN;
    uint16_t tot = lwip_ntohs(ld16(ip + 2)), ulen = lwip_ntohs(ld16(udp + 4));
    if (tot > len || tot < IP_HLEN + UDP_HLEN || ulen != tot - IP_HLEN || ld16(udp + 2) != lwip_htons(dg->port))
        return 0;
    uint64_t addrs = ini_sum_small(0, ip + 12, 8);
    if (ini_sum_fold(ini_sum_small(addrs, ip, 12)) != 0xffff)
        return 0;
    /* The pseudo header: the addresses (summed above), protocol, length. */
    uint64_t pseudo = ini_sum_add(addrs, lwip_htons(IP_PROTO_UDP) + (uint32_t)ld16(udp + 4));
    int sum_ok = ulen <= INI_SMALL_MAX && ini_sum_fold(ini_sum_small(pseudo, udp, ulen)) == 0xffff;
    uint16_t n = (uint16_t)(ulen - UDP_HLEN);
    struct pbuf *p = ini_netif_rx_pbuf(m, (void *)(uintptr_t)(udp + UDP_HLEN), n);
    dg->input(dg->ctx, p, ld32(ip + 12), dg->ip, sum_ok, meta);      /* takes p */
    return 1;
}

/* lwIP's UDP up-call (the pcb's recv, inside ip4_input): the datagram is
 * parked with its addresses for ini_dgram_input.  The destination is the
 * one lwIP keeps for the datagram being input (ip_data, read through
 * ip4_current_dest_addr()): ours, or a broadcast address. */
static void lwip_recv(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr, u16_t port)
{
    struct ini_dgram *dg = arg;
    if (dg->up_p)                   /* never: a frame completes at most one datagram */
        pbuf_free(dg->up_p);
    dg->up_p = p;
    dg->up_src = ip4_addr_get_u32(ip_2_ip4(addr));
    dg->up_dst = ip4_addr_get_u32(ip4_current_dest_addr());
}

/* Through lwIP: ip4_input owns the pbuf from here on, whatever it
 * returns.  lwIP counts every datagram its reassembly gives up (MIB2
 * ipReasmFails); during input that is an eviction, to make room for this
 * frame's. */
static void lwip_input(struct ini_dgram *dg, struct rte_mbuf *m, const uint8_t *ip, uint16_t len,
                       struct ini_rx_meta *meta)
{
    struct pbuf *p = ini_netif_rx_pbuf(m, (void *)(uintptr_t)ip, len);
    uint32_t fails = lwip_stats.mib2.ipreasmfails;
    ip4_input(p, &dg->nf->netif);
    dg->stats.reass_evictions += lwip_stats.mib2.ipreasmfails - fails;
    struct pbuf *up = dg->up_p;
    if (up) {
        dg->up_p = NULL;
        dg->input(dg->ctx, up, dg->up_src, dg->up_dst, 0, meta);
    }
}

void ini_dgram_input(struct ini_dgram *dg, struct rte_mbuf *m, struct ini_rx_meta *meta)
{
    uint16_t len;
    const uint8_t *ip = ini_netif_rx(dg->nf, m, &len);
    if (!ip)
        return;
    if (dg->predict_rx && predicted_input(dg, m, ip, len, meta))
        return;
    lwip_input(dg, m, ip, len, meta);
}

void ini_dgram_timers(struct ini_dgram *dg)
{
    /* Outside input, a datagram given up has aged out. */
    uint32_t fails = lwip_stats.mib2.ipreasmfails;
    sys_check_timeouts();
    dg->stats.reass_timeouts += lwip_stats.mib2.ipreasmfails - fails;
}

struct ini_ip_stats ini_dgram_ip_stats(const struct ini_dgram *dg)
{
    return (struct ini_ip_stats){
        .ip_checksum_errors = lwip_stats.ip.chkerr,
        .ip_drops = lwip_stats.ip.drop,
        .udp_drops = lwip_stats.udp.drop,
        .frag_drops = lwip_stats.ip_frag.drop,
        .frag_errors = lwip_stats.ip_frag.err,
        .reass_timeouts = dg->stats.reass_timeouts,
        .reass_evictions = dg->stats.reass_evictions,
    };
}

/* lwIP's pools, by name (its memp_std.h list, as lwIP's memp.h builds
 * its enum from it). */
static const char *const memp_names[MEMP_MAX] = {
#define LWIP_MEMPOOL(name, num, size, desc) #name,
#include "lwip/priv/memp_std.h"
};

int ini_dgram_pool_used(int i, const char **name, unsigned *used)
{
    if (i < 0 || i >= MEMP_MAX)
        return -1;
    *name = memp_names[i];
    *used = __atomic_load_n(&lwip_stats.memp[i]->used, __ATOMIC_RELAXED);
    return MEMP_MAX;
}

/* ---- set-up ---- */

int ini_dgram_open(struct ini_dgram *dg, struct ini_netif *nf, uint16_t port, ini_dgram_input_fn input, void *ctx)
{
    memset(dg, 0, sizeof(*dg));
    dg->nf = nf;
    dg->ip = ip4_addr_get_u32(netif_ip4_addr(&nf->netif));
    dg->port = port;
    dg->frame_max = (uint16_t)(nf->netif.mtu - IP_HLEN - UDP_HLEN);
    dg->predict_rx = 1;
    dg->input = input;
    dg->ctx = ctx;
    ip_addr_t local;
    ip_addr_set_ip4_u32(&local, dg->ip);
    dg->pcb = udp_new();
    if (!dg->pcb)
        return -1;
    if (udp_bind(dg->pcb, &local, port) != ERR_OK) {
        udp_remove(dg->pcb);
        dg->pcb = NULL;
        return -1;
    }
    udp_recv(dg->pcb, lwip_recv, dg);
    return 0;
}

void ini_dgram_no_checksum(struct ini_dgram *dg)
{
    dg->no_checksum = 1;
    udp_setflags(dg->pcb, (u8_t)(udp_flags(dg->pcb) | UDP_FLAGS_NOCHKSUM));
}

void ini_dgram_close(struct ini_dgram *dg)
{
    /* Partial datagrams in lwIP's reassembly hold the link's mbufs: given
     * up now, while the link can take them back (the reassembly is the
     * process's: another stack's partial datagrams go too). */
    for (int i = 0; i <= IP_REASS_MAXAGE; i++)
        ip_reass_tmr();
    if (dg->up_p)
        pbuf_free(dg->up_p);
    dg->up_p = NULL;
    if (dg->pcb)
        udp_remove(dg->pcb);
    dg->pcb = NULL;
}
