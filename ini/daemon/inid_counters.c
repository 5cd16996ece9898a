/*
 * inid_counters.c - the INI's counters file, RUN_DIR/ini<ID>.counters.json
 * (docs/transport.md, "Counters"), written once when inid stops, and the
 * name/offset tables (ini/util/counters.h) that give the file and the
 * telemetry socket (inid_telemetry.c) the same names.
 *
 * Apart from the loop (inid_loop.c), which only counts: this file reads
 * struct inid's figures and the transport's through its accessors
 * (stack/swp.h) after the loop has ended, and writes them with stdio.  The
 * file's format is read by tests and tools (ini-trace, ini-cluster's
 * summary): one group per line, in this order.
 */
#include "inid_counters.h"

#include <dirent.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/if_xdp.h>

#include <rte_ethdev.h>

#define SWP_COUNTER(name) INI_COUNTER_SAME(struct ini_swp_stats, name),
const struct ini_counter inid_swp_counters[] = { INI_SWP_COUNTERS(SWP_COUNTER) };
#define FAULT_COUNTER(name) INI_COUNTER_SAME(struct ini_fault_stats, name),
static const struct ini_counter fault_counters[] = { INI_FAULT_COUNTERS(FAULT_COUNTER) };
#define ARP_COUNTER(name) INI_COUNTER_SAME(struct ini_arp_stats, name),
static const struct ini_counter arp_counters[] = { INI_ARP_COUNTERS(ARP_COUNTER) };
const struct ini_counter inid_message_counters[] = {
    INI_COUNTER(struct inid_stats, local_msgs, "local"),
    INI_COUNTER(struct inid_stats, bad_dst, "bad_destination"),
    INI_COUNTER(struct inid_stats, bad_msg, "bad_message"),
    INI_COUNTER_SAME(struct inid_stats, deferred),
    INI_COUNTER_SAME(struct inid_stats, refused),
    INI_COUNTER_SAME(struct inid_stats, stalls),
    INI_COUNTER_SAME(struct inid_stats, cn_copied),
    INI_COUNTER_SAME(struct inid_stats, ring_copied),
};
const struct ini_counter inid_link_counters[] = {
    INI_COUNTER_SAME(struct ini_netif_stats, rx_frames),
    INI_COUNTER_SAME(struct ini_netif_stats, rx_bytes),
    INI_COUNTER_SAME(struct ini_netif_stats, tx_frames),
    INI_COUNTER_SAME(struct ini_netif_stats, tx_bytes),
    INI_COUNTER_SAME(struct ini_netif_stats, tx_no_mbuf),
    INI_COUNTER_SAME(struct ini_netif_stats, tx_dropped),
    INI_COUNTER_SAME(struct ini_netif_stats, rx_not_mine),
    INI_COUNTER_SAME(struct ini_netif_stats, rx_runt),
    INI_COUNTER_SAME(struct ini_netif_stats, rx_not_ip),
    INI_COUNTER_SAME(struct ini_netif_stats, rx_not_peer),
};
const struct ini_counter inid_port_counters[] = {
    INI_COUNTER_SAME(struct inid_port_rx, rx_packets),
    INI_COUNTER_SAME(struct inid_port_rx, rx_missed),
    INI_COUNTER_SAME(struct inid_port_rx, rx_errors),
    INI_COUNTER_SAME(struct inid_port_rx, rx_nombuf),
    INI_COUNTER_SAME(struct inid_port_rx, pool_free),
    INI_COUNTER_SAME(struct inid_port_rx, xsk_ring_full),
    INI_COUNTER_SAME(struct inid_port_rx, xsk_fill_empty),
    INI_COUNTER_SAME(struct inid_port_rx, xsk_invalid),
    INI_COUNTER_SAME(struct inid_port_rx, if_rx_dropped),
    INI_COUNTER_SAME(struct inid_port_rx, wedge_resets),
};
const size_t inid_port_counters_n = INI_COUNTERS_N(inid_port_counters);
const size_t inid_swp_counters_n = INI_COUNTERS_N(inid_swp_counters);
const size_t inid_message_counters_n = INI_COUNTERS_N(inid_message_counters);
const size_t inid_link_counters_n = INI_COUNTERS_N(inid_link_counters);

/* The kernel's counts of this process's AF_XDP sockets (XDP_STATISTICS),
 * which DPDK 22.11's af_xdp driver does not report (its imissed is the
 * socket's rx_dropped alone: no buffer in the fill ring): frames lost to
 * a full receive ring, fill-ring refills that found it empty, invalid
 * descriptors.  Likewise its af_packet driver reports no drop at all:
 * the frames its sockets' rings had no slot for (PACKET_STATISTICS'
 * tp_drops, cleared by each read) are returned.  The drivers do not give
 * their sockets out, so every descriptor of the process is asked (others
 * refuse the options); only when the counters are read, never on the
 * loop's path. */
static uint64_t socket_stats(struct inid_port_rx *r)
{
    uint64_t packet_drops = 0;
    DIR *dir = opendir("/proc/self/fd");
    if (!dir)
        return 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9' || atoi(e->d_name) == dirfd(dir))
            continue;
        int fd = atoi(e->d_name);
        struct xdp_statistics st;
        struct tpacket_stats ps;
        socklen_t len = sizeof(st), plen = sizeof(ps);
        if (getsockopt(fd, SOL_XDP, XDP_STATISTICS, &st, &len) == 0 && len == sizeof(st)) {
            r->xsk_ring_full += st.rx_ring_full;
            r->xsk_fill_empty += st.rx_fill_ring_empty_descs;
            r->xsk_invalid += st.rx_invalid_descs;
        } else if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &ps, &plen) == 0 && plen == sizeof(ps)) {
            packet_drops += ps.tp_drops;
        }
    }
    closedir(dir);
    return packet_drops;
}

/* The kernel interface's rx_dropped under an af_xdp port (a veth's: what
 * its XDP program could not hand to the socket, and what the peer could
 * not queue to it), which no DPDK counter shows. */
static uint64_t iface_rx_dropped(uint16_t port)
{
    struct rte_eth_dev_info info;
    char name[IF_NAMESIZE];
    struct ifaddrs *all;
    uint64_t n = 0;
    if (rte_eth_dev_info_get(port, &info) != 0 || !info.if_index || !if_indextoname(info.if_index, name) ||
        getifaddrs(&all) != 0)
        return 0;
    for (struct ifaddrs *a = all; a; a = a->ifa_next)
        if (a->ifa_addr && a->ifa_addr->sa_family == AF_PACKET && a->ifa_data && !strcmp(a->ifa_name, name))
            n = ((const struct rtnl_link_stats *)a->ifa_data)->rx_dropped;
    freeifaddrs(all);
    return n;
}

/* What the port's earlier sockets counted before each reopening, and
 * the reopenings (inid_wedge.c). */
static void port_carry(const struct inid *d, struct inid_port_rx *r)
{
    const struct inid_port_carry *c = &d->wedge.carry;
    r->rx_packets += c->rx_packets;
    r->rx_missed += c->rx_missed;
    r->rx_errors += c->rx_errors;
    r->rx_nombuf += c->rx_nombuf;
    r->xsk_ring_full += c->xsk_ring_full;
    r->xsk_fill_empty += c->xsk_fill_empty;
    r->xsk_invalid += c->xsk_invalid;
    r->wedge_resets = d->wedge.resets;
}

void inid_port_rx(const struct inid *d, struct inid_port_rx *r)
{
    memset(r, 0, sizeof(*r));
    inid_wedge_port_lock(d);        /* not while the port is reopened */
    if (d->cfg.net_mode != INI_NET_MEMIF) {
        /* The sum of the reads is the daemon's (struct inid is never a
         * const object; the lock serialises the readers). */
        uint64_t *drops = (uint64_t *)&d->wedge.packet_drops;
        *drops += socket_stats(r);
        r->rx_missed += *drops;
    }
    if (d->stack.pool)
        r->pool_free = rte_mempool_avail_count(d->stack.pool);
    for (int k = 0; k < d->n_ports; k++) {
        struct rte_eth_stats st;
        if (rte_eth_stats_get(d->ports[k], &st) != 0)
            continue;
        r->rx_packets += st.ipackets;
        r->rx_missed += st.imissed;
        r->rx_errors += st.ierrors;
        r->rx_nombuf += st.rx_nombuf;
        if (d->cfg.net_mode != INI_NET_MEMIF)
            r->if_rx_dropped += iface_rx_dropped(d->ports[k]);
    }
    port_carry(d, r);
    inid_wedge_port_unlock(d);
}

/* The drivers' extended counters that are not zero and name a drop, a
 * miss or a full or empty ring (af_xdp's rx_dropped, rx_ring_full,
 * rx_fill_ring_empty_descs ...): where the port lost frames, in the
 * driver's words.  At most 64 per port. */
static void json_port_xstats(FILE *f, const struct inid *d)
{
    fprintf(f, "  \"port_xstats\": {");
    const char *sep = "";
    for (int k = 0; k < d->n_ports; k++) {
        struct rte_eth_xstat_name names[64];
        struct rte_eth_xstat vals[64];
        int n = rte_eth_xstats_get_names(d->ports[k], names, 64);
        int m = rte_eth_xstats_get(d->ports[k], vals, 64);
        for (int i = 0; n > 0 && m > 0 && i < n && i < m && i < 64; i++) {
            const char *nm = names[vals[i].id < (uint64_t)n ? vals[i].id : (uint64_t)i].name;
            if (vals[i].value && (strstr(nm, "drop") || strstr(nm, "miss") || strstr(nm, "full") ||
                                  strstr(nm, "empty") || strstr(nm, "err"))) {
                fprintf(f, "%s\"%d.%s\": %llu", sep, k, nm, (unsigned long long)vals[i].value);
                sep = ", ";
            }
        }
    }
    fprintf(f, "},\n");
}

/* One group of counters, "key": {...} on one line. */
static void json_group(FILE *f, const char *key, const struct ini_counter *t, size_t n, const void *stats)
{
    fprintf(f, "  \"%s\": {", key);
    ini_counters_json(f, t, n, stats, ", ");
    fprintf(f, "},\n");
}

/* The transport's totals and every connection's counters (read through
 * the transport's accessors, stack/swp.h). */
static void json_transport(FILE *f, const struct inid *d, const struct ini_swp_stats *w)
{
    fprintf(f, "  \"transport\": {");
    ini_counters_json(f, inid_swp_counters, INI_COUNTERS_N(inid_swp_counters), w, ", ");
    fprintf(f, "},\n  \"connections\": [");
    int first = 1;
    struct ini_swp_conn_info c;
    for (int i = 0; i < d->cfg.n_inis; i++) {
        if (ini_swp_conn(d->stack.swp, i, &c) < 0)
            continue;
        fprintf(f, "%s\n    {\"peer\": %d, ", first ? "" : ",", c.peer);
        ini_counters_json(f, inid_swp_counters, INI_COUNTERS_N(inid_swp_counters), c.stats, ", ");
        fprintf(f, "}");
        first = 0;
    }
    fprintf(f, "\n  ],\n");
}

/* UDP's and IP's (lwIP's counters, and the datagrams its reassembly gave
 * up with fragments missing: docs/transport.md). */
static void json_ip(FILE *f, const struct ini_ip_stats *ip, const struct ini_swp_stats *w)
{
    fprintf(f, "  \"udp\": {\"checksum_errors\": %llu, \"drops\": %u},\n",
            (unsigned long long)w->udp_checksum_errors, (unsigned)ip->udp_drops);
    fprintf(f, "  \"ip\": {\"checksum_errors\": %u, \"drops\": %u, \"reassembly_drops\": %llu, "
               "\"reassembly_timeouts\": %llu, \"reassembly_evictions\": %llu, \"fragment_drops\": %u, "
               "\"fragment_errors\": %u},\n",
            (unsigned)ip->ip_checksum_errors, (unsigned)ip->ip_drops,
            (unsigned long long)(ip->reass_timeouts + ip->reass_evictions), (unsigned long long)ip->reass_timeouts,
            (unsigned long long)ip->reass_evictions, (unsigned)ip->frag_drops, (unsigned)ip->frag_errors);
}

/* The queue's time-average and the loop's busy share over the run.  In
 * virtual time the span, the area and the busy cycles are the INI's
 * clock's, in emulated cycles (inid_vtime.c); else the TSC's. */
static void json_time(FILE *f, const struct inid *d, const struct ini_swp_stats *w)
{
    const struct inid_stats *s = &d->stats;
    uint64_t run = s->run_end > s->run_start ? s->run_end - s->run_start : 0;
    uint64_t handled = w->msgs_sent + w->msgs_delivered + s->local_msgs;
    fprintf(f, "  \"queue\": {\"time_avg\": %.4f, \"run_seconds\": %.*f, \"clock\": \"%s\"},\n",
            run ? (double)s->queue_area / (double)run : 0.0, d->vt_hz ? 6 : 3,
            (double)run / (double)(d->vt_hz ? d->vt_hz : d->tsc_hz), d->vt_hz ? "virtual" : "host");
    /* The loop's busy share, not the report's utilization (docs/traces.md,
     * "Utilization and queue length: one definition"). */
    fprintf(f, "  \"busy\": {\"cycles\": %llu, \"share\": %.4f, \"cycles_per_message\": %.1f",
            (unsigned long long)s->busy_cycles, run ? (double)s->busy_cycles / (double)run : 0.0,
            handled ? (double)s->busy_cycles / (double)handled : 0.0);
    /* virtual time: the passes' own share of those cycles, which the
     * replay charges per turn (tools/replay/replay_flow.c) */
    if (d->vt_hz)
        fprintf(f, ", \"pass_cycles\": %llu", (unsigned long long)s->pass_cycles);
    fprintf(f, "},\n");
}

void inid_write_counters(struct inid *d)
{
    char path[INI_PATH_LEN + 64];
    snprintf(path, sizeof(path), "%s/ini%d.counters.json", d->run_dir, d->me->id);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "inid %d: cannot write %s\n", d->me->id, path);
        return;
    }
    const struct inid_stats *s = &d->stats;
    const struct ini_swp_stats total = ini_swp_totals(d->stack.swp), *w = &total;
    const struct ini_ip_stats ip = ini_dgram_ip_stats(&d->stack.dg);
    struct inid_port_rx port;
    inid_port_rx(d, &port);
    struct ini_fault_stats fs = { 0 };
    for (int k = 0; k < d->n_ports; k++) {
        ini_fault_stats_add(&fs, &d->tx_fault[k].stats);
        ini_fault_stats_add(&fs, &d->rx_fault[k].stats);
    }
    double avg_q = s->queue_samples ? (double)s->queue_sum / (double)s->queue_samples : 0.0;
    unsigned chk = (unsigned)(w->udp_checksum_errors + w->crc_errors + ip.ip_checksum_errors);
    /* restarts: this INI's incarnation (docs/transport.md, "An INI that
     * restarts"); the counters are this incarnation's alone. */
    fprintf(f, "{\n  \"ini\": %d, \"cluster\": %d, \"idle_mode\": \"%s\", \"restarts\": %u,\n", d->me->id,
            d->cluster, ini_idle_mode_name(d->idle), ini_swp_incarnation(d->stack.swp));
    /* Retransmissions as sent (by cause) and as received (needed after a
     * loss, or spurious: of a frame already here). */
    fprintf(f, "  \"summary\": \"INI %d (cluster %d): sent %llu msgs / %llu B, delivered %llu msgs / %llu B, "
               "local %llu; retransmitted %llu (timer) + %llu (NAK), received %llu after a loss + %llu spurious, "
               "NAKs %llu sent, checksum drops %u, duplicates %llu, reassembly drops %u, "
               "receive drops %llu (port) + %llu (stack), port resets %llu; restarts %u, resyncs %llu\",\n",
            d->me->id, d->cluster, (unsigned long long)w->msgs_sent, (unsigned long long)w->bytes_sent,
            (unsigned long long)w->msgs_delivered, (unsigned long long)w->bytes_delivered,
            (unsigned long long)s->local_msgs, (unsigned long long)w->retx_timer,
            (unsigned long long)w->retx_nak, (unsigned long long)w->retx_after_loss,
            (unsigned long long)w->retx_spurious, (unsigned long long)w->naks_sent, chk,
            (unsigned long long)w->duplicates, (unsigned)(ip.reass_timeouts + ip.reass_evictions),
            (unsigned long long)(port.rx_missed + port.xsk_ring_full + port.rx_errors + port.rx_nombuf),
            (unsigned long long)(w->out_of_window + w->bad_header + w->bad_conn + w->crc_errors +
                                 w->udp_checksum_errors + w->mac_fail + ip.ip_drops + ip.udp_drops),
            (unsigned long long)port.wedge_resets, ini_swp_incarnation(d->stack.swp), (unsigned long long)w->resyncs);
    json_transport(f, d, w);
    json_group(f, "messages", inid_message_counters, INI_COUNTERS_N(inid_message_counters), s);
    json_ip(f, &ip, w);
    json_group(f, "link", inid_link_counters, INI_COUNTERS_N(inid_link_counters), &d->stack.nf.stats);
    json_group(f, "port", inid_port_counters, INI_COUNTERS_N(inid_port_counters), &port);
    json_port_xstats(f, d);
    json_group(f, "faults", fault_counters, INI_COUNTERS_N(fault_counters), &fs);
    json_group(f, "arp", arp_counters, INI_COUNTERS_N(arp_counters), &d->stack.nf.arp.stats);
    json_time(f, d, w);
    const struct inid_dilation *dil = &d->knobs.dil;
    if (dil->factor > 0)
        fprintf(f, "  \"dilation\": {\"factor\": %.4f, \"turns\": %llu, \"cpu_ns\": %llu, \"wait_cycles\": %llu, "
                   "\"polls\": %llu, \"clock_cost_ns\": %llu},\n",
                dil->factor, (unsigned long long)dil->turns, (unsigned long long)dil->cpu_ns,
                (unsigned long long)dil->extra_cycles, (unsigned long long)dil->polls,
                (unsigned long long)dil->clock_cost_ns);
    /* The transport's flow control as configured, and the turns that did
     * work: `ini-trace whatif` models the window and a turn's own cost
     * (busy time outside any message's service) from these. */
    fprintf(f, "  \"stack\": {\"window\": %u, \"ack_timeout_us\": %d, \"segment_bytes\": %u, \"mac\": %d},\n",
            ini_swp_window(d->stack.swp), d->cfg.stack.ack_timeout_us, ini_swp_segment_bytes(d->stack.swp),
            ini_swp_authenticated(d->stack.swp));
    fprintf(f, "  \"loop\": {\"iterations\": %llu, \"work_turns\": %llu, \"idle_sleeps\": %llu, "
               "\"kept_yields\": %llu, \"avg_queue\": %.3f, \"max_queue\": %llu}\n}\n",
            (unsigned long long)s->loops, (unsigned long long)s->work_turns, (unsigned long long)s->idle_sleeps,
            (unsigned long long)s->kept_yields, avg_q, (unsigned long long)s->queue_max);
    fclose(f);
}
