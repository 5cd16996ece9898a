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

int ini_icmp_echo_input(struct ini_netif *nf, struct rte_mbuf *m)
{
    struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
    uint8_t *ip = (uint8_t *)(eth + 1);
    uint32_t avail = m->data_len - RTE_ETHER_HDR_LEN;
    uint32_t ihl = (uint32_t)(ip[0] & 0x0f) * 4;
    if (ip[9] != 1 || (ip[0] >> 4) != 4 || ihl < 20 || avail < ihl + 8)
        return 0;
    uint32_t tot = (uint32_t)(ip[2] << 8 | ip[3]);
    uint32_t my_ip = ip4_addr_get_u32(netif_ip4_addr(&nf->netif)), dst;
    memcpy(&dst, ip + 16, 4);
    /* Only an echo request for us, whole (no fragments), with sound sums. */
    if (ip[ihl] != 8 || dst != my_ip || (ip[6] & 0x3f) || ip[7] || tot < ihl + 8 || tot > avail ||
        fold(sum16(ip, ihl, 0)) != 0 || fold(sum16(ip + ihl, tot - ihl, 0)) != 0)
        return 0;
    struct rte_ether_addr mac = eth->src_addr;
    eth->src_addr = eth->dst_addr;
    eth->dst_addr = mac;
    memcpy(ip + 16, ip + 12, 4);
    memcpy(ip + 12, &my_ip, 4);
    ip[8] = 64;                          /* TTL */
    ip[10] = ip[11] = 0;
    uint16_t c = fold(sum16(ip, ihl, 0));
    ip[10] = (uint8_t)(c >> 8), ip[11] = (uint8_t)c;
    uint8_t *icmp = ip + ihl;
    icmp[0] = 0;                         /* echo reply; code, id, sequence and data stay */
    icmp[2] = icmp[3] = 0;
    c = fold(sum16(icmp, tot - ihl, 0));
    icmp[2] = (uint8_t)(c >> 8), icmp[3] = (uint8_t)c;
    nf->arp.stats.icmp_echo_replies++;
    ini_netif_send_frame(nf, ini_netif_txq_of_port(nf, m->port), m);
    return 1;
}
