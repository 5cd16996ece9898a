/*
 * arp.c - ARP responder and resolver of an INI (see arp.h).
 *
 * An ARP packet for IPv4 over Ethernet (RFC 826) is 28 bytes behind the
 * Ethernet header: hardware type 1, protocol 0x0800, lengths 6 and 4, the
 * operation (1 request, 2 reply), then sender MAC and address, target MAC
 * and address.  Frames we send are padded to Ethernet's 60-byte minimum,
 * which not every DPDK driver does on its own.
 */
#include "arp.h"

#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>

#include "netif_dpdk.h"

#define ARP_OP_REQUEST 1
#define ARP_OP_REPLY   2
#define ETH_MIN_FRAME  60        /* without the FCS */

struct arp_ipv4 {
    uint16_t htype, ptype;
    uint8_t  hlen, plen;
    uint16_t oper;
    uint8_t  sha[6];
    uint8_t  spa[4];             /* unaligned in the packet: copied with memcpy */
    uint8_t  tha[6];
    uint8_t  tpa[4];
} __attribute__((packed));

void ini_arp_init(struct ini_arp *arp, uint64_t tsc_hz)
{
    memset(arp, 0, sizeof *arp);
    arp->retry_cycles = tsc_hz / 1000 * INI_ARP_RETRY_MS;
    arp->reass_cycles = tsc_hz / 1000 * INI_ICMP_REASS_MS;
}

/* Builds and queues one ARP packet on queue txq; dst NULL: broadcast. */
static void send_arp(struct ini_netif *nf, int txq, uint16_t op, const uint8_t *dst_mac,
                     uint32_t target_ip)
{
    static const uint8_t broadcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    struct rte_mbuf *m = rte_pktmbuf_alloc(nf->pool);
    if (!m) {
        nf->stats.tx_no_mbuf++;
        return;
    }
    uint8_t *frame = (uint8_t *)rte_pktmbuf_append(m, ETH_MIN_FRAME);
    if (!frame) {
        rte_pktmbuf_free(m);
        nf->stats.tx_no_mbuf++;
        return;
    }
    memset(frame, 0, ETH_MIN_FRAME);
    struct rte_ether_hdr *eth = (struct rte_ether_hdr *)frame;
    memcpy(&eth->dst_addr, dst_mac ? dst_mac : broadcast, 6);
    memcpy(&eth->src_addr, nf->mac, 6);
    eth->ether_type = rte_cpu_to_be_16(INI_ETHERTYPE_ARP);
    struct arp_ipv4 *a = (struct arp_ipv4 *)(eth + 1);
    a->htype = rte_cpu_to_be_16(1);
    a->ptype = rte_cpu_to_be_16(INI_ETHERTYPE_IPV4);
    a->hlen = 6;
    a->plen = 4;
    a->oper = rte_cpu_to_be_16(op);
    memcpy(a->sha, nf->mac, 6);
    uint32_t my_ip = ip4_addr_get_u32(netif_ip4_addr(&nf->netif));
    memcpy(a->spa, &my_ip, 4);
    if (dst_mac)
        memcpy(a->tha, dst_mac, 6);
    memcpy(a->tpa, &target_ip, 4);
    ini_netif_send_frame(nf, txq, m);
}

int ini_arp_input(struct ini_netif *nf, struct rte_mbuf *m)
{
    if (m->data_len < RTE_ETHER_HDR_LEN + sizeof(struct arp_ipv4))
        return 0;
    struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
    if (eth->ether_type != rte_cpu_to_be_16(INI_ETHERTYPE_ARP))
        return 0;
    const struct arp_ipv4 *a = (const struct arp_ipv4 *)(eth + 1);
    uint32_t my_ip = ip4_addr_get_u32(netif_ip4_addr(&nf->netif)), spa, tpa;
    memcpy(&spa, a->spa, 4);
    memcpy(&tpa, a->tpa, 4);
    uint16_t op = rte_be_to_cpu_16(a->oper);
    if (a->htype != rte_cpu_to_be_16(1) || a->ptype != rte_cpu_to_be_16(INI_ETHERTYPE_IPV4) ||
        a->hlen != 6 || a->plen != 4 || tpa != my_ip || spa == 0 || (a->sha[0] & 1) ||
        (op != ARP_OP_REQUEST && op != ARP_OP_REPLY)) {
        nf->arp.stats.arp_ignored++;     /* not for us, or not IPv4 over Ethernet */
        rte_pktmbuf_free(m);
        return 1;
    }
    int txq = ini_netif_txq_of_port(nf, m->port);
    /* The sender will talk to us next: learn it (a static peer keeps its
     * configured MAC). */
    if (ini_netif_learn_peer(nf, spa, a->sha, txq) == 0)
        nf->arp.stats.arp_learned++;
    else if (!ini_netif_find_peer(nf, spa))
        nf->arp.stats.arp_not_learned++;   /* INI_PEER_LEARNED_MAX reached: answered, not kept */
    if (op == ARP_OP_REQUEST) {
        nf->arp.stats.arp_requests_in++;
        uint8_t sha[6];
        memcpy(sha, a->sha, 6);
        rte_pktmbuf_free(m);
        send_arp(nf, txq, ARP_OP_REPLY, sha, spa);
        nf->arp.stats.arp_replies_out++;
        return 1;
    }
    nf->arp.stats.arp_replies_in++;
    for (int i = 0; i < INI_ARP_PENDING; i++)
        if (nf->arp.pending[i].ip == spa)
            nf->arp.pending[i].ip = 0;
    rte_pktmbuf_free(m);
    return 1;
}

void ini_arp_resolve(struct ini_netif *nf, uint32_t ip)
{
    struct ini_arp *arp = &nf->arp;
    uint64_t now = rte_rdtsc();
    int slot = -1;
    for (int i = 0; i < INI_ARP_PENDING; i++) {
        if (arp->pending[i].ip != ip)
            continue;
        if (now - arp->pending[i].sent < arp->retry_cycles)
            return;
        slot = i;
        break;
    }
    if (slot < 0) {
        slot = (int)(arp->next_pending++ % INI_ARP_PENDING);
        arp->pending[slot].ip = ip;
    }
    arp->pending[slot].sent = now;
    for (int q = 0; q < nf->n_txqs; q++) {
        send_arp(nf, q, ARP_OP_REQUEST, NULL, ip);
        arp->stats.arp_requests_out++;
    }
}

/* ---- ICMP echo ---- */

/* The one's-complement sum of len bytes (len even), not inverted. */
static uint32_t sum16(const uint8_t *p, uint32_t len, uint32_t sum)
{
    for (uint32_t i = 0; i + 1 < len; i += 2)
        sum += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (len & 1)
        sum += (uint32_t)(p[len - 1] << 8);
    return sum;
}

static uint16_t fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

/* Turns a received frame's headers into its answer's: MACs and addresses
 * swapped, a fresh TTL and the header checksum; id, flags and fragment
 * offset stay (a reply's fragment matches its request's). */
static void answer_headers(struct rte_ether_hdr *eth, uint8_t *ip, uint32_t ihl, uint32_t my_ip)
{
    struct rte_ether_addr mac = eth->src_addr;
    eth->src_addr = eth->dst_addr;
    eth->dst_addr = mac;
    memcpy(ip + 16, ip + 12, 4);
    memcpy(ip + 12, &my_ip, 4);
    ip[8] = 64;                          /* TTL */
    ip[10] = ip[11] = 0;
    uint16_t c = fold(sum16(ip, ihl, 0));
    ip[10] = (uint8_t)(c >> 8), ip[11] = (uint8_t)c;
}

static uint8_t *frame_ip(struct rte_mbuf *m)
{
    return rte_pktmbuf_mtod_offset(m, uint8_t *, RTE_ETHER_HDR_LEN);
}

static uint32_t ip_ihl(const uint8_t *ip) { return (uint32_t)(ip[0] & 0x0f) * 4; }
static uint32_t ip_payload(const uint8_t *ip) { return (uint32_t)(ip[2] << 8 | ip[3]) - ip_ihl(ip); }
static uint32_t ip_offset(const uint8_t *ip) { return (uint32_t)((ip[6] & 0x1f) << 8 | ip[7]) * 8; }

static void reass_free(struct ini_icmp_reass *r)
{
    for (uint32_t i = 0; i < r->n; i++)
        rte_pktmbuf_free(r->frag[i]);
    r->n = 0;
}

/* Whether [off, off + len) meets a fragment held. */
static int reass_overlaps(struct ini_icmp_reass *r, uint32_t off, uint32_t len)
{
    for (uint32_t i = 0; i < r->n; i++) {
        const uint8_t *ip = frame_ip(r->frag[i]);
        uint32_t o = ip_offset(ip), l = ip_payload(ip);
        if (off < o + l && o < off + len)
            return 1;
    }
    return 0;
}

/* The request is whole: if it is an echo request with a sound ICMP sum
 * (summed fragment by fragment: offsets are multiples of 8, so every
 * fragment starts on a 16-bit word), each fragment becomes the reply's,
 * the first with type 0 and its sum adjusted for that alone (RFC 1624):
 * the data are not touched. */
static void reass_answer(struct ini_netif *nf, struct ini_icmp_reass *r, uint32_t my_ip)
{
    uint32_t sum = 0;
    uint8_t *icmp = NULL;
    for (uint32_t i = 0; i < r->n; i++) {
        uint8_t *ip = frame_ip(r->frag[i]);
        sum += sum16(ip + ip_ihl(ip), ip_payload(ip), 0);
        sum = (sum & 0xffff) + (sum >> 16);
        if (ip_offset(ip) == 0 && ip_payload(ip) >= 8)
            icmp = ip + ip_ihl(ip);
    }
    if (!icmp || icmp[0] != 8 || fold(sum) != 0) {
        reass_free(r);
        return;
    }
    icmp[0] = 0;                         /* echo reply: the sum's word 0x0800 is now 0 */
    uint32_t c = (uint32_t)(icmp[2] << 8 | icmp[3]) + 0x0800u;
    c = (c & 0xffff) + (c >> 16);
    icmp[2] = (uint8_t)(c >> 8), icmp[3] = (uint8_t)c;
    for (uint32_t i = 0; i < r->n; i++) {
        struct rte_mbuf *m = r->frag[i];
        uint8_t *ip = frame_ip(m);
        answer_headers(rte_pktmbuf_mtod(m, struct rte_ether_hdr *), ip, ip_ihl(ip), my_ip);
        ini_netif_send_frame(nf, ini_netif_txq_of_port(nf, m->port), m);
    }
    r->n = 0;
    nf->arp.stats.icmp_echo_replies++;
}

/* A fragment (checked: IPv4, for us, a sound header): held with those of
 * its datagram, answered when they are all there; a bad or odd one drops
 * the datagram.  The frame is taken. */
static void echo_fragment(struct ini_netif *nf, struct rte_mbuf *m, uint8_t *ip, uint32_t my_ip)
{
    struct ini_icmp_reass *r = &nf->arp.reass;
    uint32_t src, off = ip_offset(ip), len = ip_payload(ip);
    memcpy(&src, ip + 12, 4);
    uint16_t id = (uint16_t)(ip[4] << 8 | ip[5]);
    int more = ip[6] & 0x20;
    uint64_t now = rte_rdtsc();
    if (r->n && (r->src != src || r->id != id || now - r->started > nf->arp.reass_cycles))
        reass_free(r);
    if (!len || (more && (len & 7)) || off + len > 65535 - 20 || r->n == INI_ICMP_FRAGS ||
        (!more && r->total) || (r->total && off + len > r->total) || reass_overlaps(r, off, len)) {
        reass_free(r);
        rte_pktmbuf_free(m);
        return;
    }
    if (!r->n)
        *r = (struct ini_icmp_reass){ .src = src, .id = id, .started = now };
    r->frag[r->n++] = m;
    r->have += len;
    if (!more)
        r->total = off + len;
    if (r->total && r->have == r->total)
        reass_answer(nf, r, my_ip);
}

void ini_icmp_reass_drop(struct ini_netif *nf)
{
    reass_free(&nf->arp.reass);
}

int ini_icmp_echo_input(struct ini_netif *nf, struct rte_mbuf *m)
{
    struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
    uint8_t *ip = (uint8_t *)(eth + 1);
    uint32_t avail = m->data_len - RTE_ETHER_HDR_LEN;
    uint32_t ihl = ip_ihl(ip);
    if (ip[9] != 1 || (ip[0] >> 4) != 4 || ihl < 20 || avail < ihl)
        return 0;
    uint32_t tot = (uint32_t)(ip[2] << 8 | ip[3]);
    uint32_t my_ip = ip4_addr_get_u32(netif_ip4_addr(&nf->netif)), dst;
    memcpy(&dst, ip + 16, 4);
    if (dst != my_ip || tot < ihl || tot > avail || fold(sum16(ip, ihl, 0)) != 0)
        return 0;
    if ((ip[6] & 0x3f) || ip[7]) {       /* MF or an offset: a fragment */
        echo_fragment(nf, m, ip, my_ip);
        return 1;
    }
    /* A whole echo request, with a sound sum. */
    if (tot < ihl + 8 || ip[ihl] != 8 || fold(sum16(ip + ihl, tot - ihl, 0)) != 0)
        return 0;
    answer_headers(eth, ip, ihl, my_ip);
    uint8_t *icmp = ip + ihl;
    icmp[0] = 0;                         /* echo reply; code, id, sequence and data stay */
    icmp[2] = icmp[3] = 0;
    uint16_t c = fold(sum16(icmp, tot - ihl, 0));
    icmp[2] = (uint8_t)(c >> 8), icmp[3] = (uint8_t)c;
    nf->arp.stats.icmp_echo_replies++;
    ini_netif_send_frame(nf, ini_netif_txq_of_port(nf, m->port), m);
    return 1;
}
