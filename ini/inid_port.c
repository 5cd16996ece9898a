/*
 * inid_port.c - the DPDK ports of an INI, by network mode:
 *   memif      one memif port per INI of every other cluster (a full mesh of
 *              point-to-point links); the lower INI id is the server, the
 *              sockets are abstract, named after the run tag;
 *   af_packet  one port on the veth the launcher made for this INI (i<ID>)
 *              inside its cluster's network namespace, bridged to the LAN;
 *   pci        the device named by the INI's devargs (a real NIC).
 */
#include "inid.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_ethdev.h>

#include "fabric.h"
#include "stack_config.h"

#define RX_DESC 1024
#define TX_DESC 1024

static void port_name(const struct inid *d, int peer, char *buf, size_t len)
{
    if (d->cfg.net_mode == INI_NET_MEMIF)
        snprintf(buf, len, "net_memif%d", peer);
    else
        snprintf(buf, len, "net_af_packet%d", d->me->id);
}

int inid_ports_eal_args(const struct inid *d, char args[][INID_ARG_LEN], int max)
{
    int n = 0;
    const struct ini_node_cfg *me = d->me;
    switch (d->cfg.net_mode) {
    case INI_NET_MEMIF:
        for (int j = 0; j < d->cfg.n_inis && n < max; j++) {
            const struct ini_node_cfg *peer = &d->cfg.inis[j];
            if (peer->cluster == me->cluster)
                continue;
            int lo = me->id < j ? me->id : j, hi = me->id < j ? j : me->id;
            snprintf(args[n++], INID_ARG_LEN,
                     "--vdev=net_memif%d,role=%s,id=0,socket=ini-%s-%d-%d,socket-abstract=yes",
                     j, me->id == lo ? "server" : "client", d->tag, lo, hi);
        }
        break;
    case INI_NET_AF_PACKET:
        if (me->devargs[0])
            snprintf(args[n++], INID_ARG_LEN, "--vdev=%s", me->devargs);
        else
            n += inid_kernel_iface_vdev(me, args[n]);
        break;
    case INI_NET_PCI:
        if (!me->devargs[0])
            n += inid_device_eal_arg(me, args[n]);
        else if (strncmp(me->devargs, "net_", 4) == 0)
            snprintf(args[n++], INID_ARG_LEN, "--vdev=%s", me->devargs);
        else
            snprintf(args[n++], INID_ARG_LEN, "--allow=%s", me->devargs);
        break;
    }
    return n;
}

static int setup_port(struct inid *d, int k)
{
    uint16_t port = d->ports[k];
    struct rte_eth_conf conf;
    memset(&conf, 0, sizeof(conf));
    /* Receive interrupts let an idle INI sleep until a frame arrives;
     * ports without them (af_packet) are polled on a timer instead. */
    conf.intr_conf.rxq = d->idle == INI_IDLE_ADAPTIVE && d->cfg.net_mode == INI_NET_PCI;
    int rc = rte_eth_dev_configure(port, 1, 1, &conf);
    if (rc < 0 && conf.intr_conf.rxq) {
        conf.intr_conf.rxq = 0;
        rc = rte_eth_dev_configure(port, 1, 1, &conf);
    }
    d->port_intr[k] = conf.intr_conf.rxq;
    if (rc < 0) {
        fprintf(stderr, "inid %d: port %u: configure: %s\n", d->me->id, port, rte_strerror(-rc));
        return -1;
    }
    uint16_t rxd = RX_DESC, txd = TX_DESC;
    rte_eth_dev_adjust_nb_rx_tx_desc(port, &rxd, &txd);
    int socket = rte_eth_dev_socket_id(port);
    if (socket < 0)
        socket = 0;
    if ((rc = rte_eth_rx_queue_setup(port, 0, rxd, (unsigned)socket, NULL, d->pool)) < 0 ||
        (rc = rte_eth_tx_queue_setup(port, 0, txd, (unsigned)socket, NULL)) < 0) {
        fprintf(stderr, "inid %d: port %u: queue setup: %s\n", d->me->id, port, rte_strerror(-rc));
        return -1;
    }
    if (d->cfg.stack.mtu != 1500)
        rte_eth_dev_set_mtu(port, (uint16_t)d->cfg.stack.mtu);
    /* A memif client whose server is not listening yet fails to start;
     * inid_ports_wait_up() retries it until the link comes up. */
    if ((rc = rte_eth_dev_start(port)) < 0 &&
        !(d->cfg.net_mode == INI_NET_MEMIF && d->port_peer[k] < d->me->id)) {
        fprintf(stderr, "inid %d: port %u: start: %s\n", d->me->id, port, rte_strerror(-rc));
        return -1;
    }
    rte_eth_promiscuous_enable(port);
    return 0;
}

int inid_ports_init(struct inid *d)
{
    char name[64];
    d->n_ports = 0;
    if (d->cfg.net_mode == INI_NET_MEMIF) {
        for (int j = 0; j < d->cfg.n_inis; j++) {
            if (d->cfg.inis[j].cluster == d->me->cluster)
                continue;
            port_name(d, j, name, sizeof(name));
            uint16_t port;
            if (rte_eth_dev_get_port_by_name(name, &port) != 0) {
                fprintf(stderr, "inid %d: no port %s\n", d->me->id, name);
                return -1;
            }
            d->ports[d->n_ports] = port;
            d->port_peer[d->n_ports++] = j;
        }
    } else {
        uint16_t port;
        RTE_ETH_FOREACH_DEV(port) {
            d->ports[d->n_ports] = port;
            d->port_peer[d->n_ports++] = -1;
            break;
        }
        if (d->n_ports == 0) {
            fprintf(stderr, "inid %d: no DPDK port found (%s mode)\n", d->me->id,
                    ini_net_mode_name(d->cfg.net_mode));
            return -1;
        }
    }
    for (int k = 0; k < d->n_ports; k++) {
        if (setup_port(d, k) < 0)
            return -1;
        int q = ini_netif_add_txq(&d->nf, d->ports[k]);
        if (q < 0)
            return -1;
        /* memif: the peer behind this link; otherwise every peer shares
         * the one port. */
        for (int j = 0; j < d->cfg.n_inis; j++) {
            const struct ini_node_cfg *peer = &d->cfg.inis[j];
            if (peer->cluster == d->me->cluster)
                continue;
            if (d->port_peer[k] >= 0 && d->port_peer[k] != j)
                continue;
            if (ini_netif_add_peer(&d->nf, peer->ip, peer->mac, q) < 0) {
                fprintf(stderr, "inid %d: peer table full\n", d->me->id);
                return -1;
            }
        }
    }
    return 0;
}

static uint64_t ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int inid_ports_wait_up(struct inid *d, int timeout_ms)
{
    uint64_t start = ms_now(), last_restart = start;
    for (;;) {
        int down = 0;
        for (int k = 0; k < d->n_ports; k++) {
            struct rte_eth_link link;
            memset(&link, 0, sizeof(link));
            rte_eth_link_get_nowait(d->ports[k], &link);
            down += link.link_status != RTE_ETH_LINK_UP;
        }
        if (!down)
            return 0;
        uint64_t now = ms_now();
        if (now - start > (uint64_t)timeout_ms || d->stop) {
            fprintf(stderr, "inid %d: %d of %d links still down after %d ms\n", d->me->id, down,
                    d->n_ports, timeout_ms);
            return -1;
        }
        /* A memif client whose server was not listening yet does not retry
         * on its own: restart it. */
        if (d->cfg.net_mode == INI_NET_MEMIF && now - last_restart > 300) {
            last_restart = now;
            for (int k = 0; k < d->n_ports; k++) {
                struct rte_eth_link link;
                rte_eth_link_get_nowait(d->ports[k], &link);
                if (link.link_status != RTE_ETH_LINK_UP && d->port_peer[k] < d->me->id) {
                    rte_eth_dev_stop(d->ports[k]);
                    rte_eth_dev_start(d->ports[k]);
                }
            }
        }
        usleep(10000);
    }
}

int inid_idle_init(struct inid *d)
{
    d->epfd = d->wake_fd = -1;
    for (int k = 0; k < INI_NETIF_MAX_PORTS; k++)
        d->peer_wake_fd[k] = -1;
    if (d->idle != INI_IDLE_ADAPTIVE)
        return 0;
    char dir[PATH_MAX];
    if (!realpath(d->run_dir, dir)) {
        fprintf(stderr, "inid %d: run directory %s: %s\n", d->me->id, d->run_dir, strerror(errno));
        return -1;
    }
    struct ini_seg_ini *si = &d->seg->inis[d->local];
    if ((size_t)snprintf(si->wake_path, sizeof(si->wake_path), "%s/ini%d.wake", dir, d->me->id) >=
        sizeof(si->wake_path)) {
        /* sun_path-like limit: fall back to /tmp */
        snprintf(si->wake_path, sizeof(si->wake_path), "/tmp/ini-%s-%d.wake", d->tag, d->me->id);
    }
    unlink(si->wake_path);
    /* O_RDWR keeps the FIFO open for writing too, so it never reports EOF. */
    if (mkfifo(si->wake_path, 0600) < 0 ||
        (d->wake_fd = open(si->wake_path, O_RDWR | O_NONBLOCK | O_CLOEXEC)) < 0) {
        fprintf(stderr, "inid %d: doorbell %s: %s\n", d->me->id, si->wake_path, strerror(errno));
        return -1;
    }
    d->epfd = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN, .data.u32 = UINT32_MAX };
    if (d->epfd < 0 || epoll_ctl(d->epfd, EPOLL_CTL_ADD, d->wake_fd, &ev) < 0)
        return -1;
    d->n_intr = 0;
    for (int k = 0; k < d->n_ports; k++) {
        if (!d->port_intr[k])
            continue;
        int fd = rte_eth_dev_rx_intr_ctl_q_get_fd(d->ports[k], 0);
        ev.data.u32 = (uint32_t)k;
        if (fd < 0 || epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
            d->port_intr[k] = 0;
            continue;
        }
        d->n_intr++;
    }
    return 0;
}

void inid_faults_init(struct inid *d)
{
    const struct ini_fault_cfg *f = &d->me->faults;
    if (!f->enabled)
        return;
    struct ini_fault_params prm;
    ini_fault_params_from_config(&prm, f);
    for (int k = 0; k < d->n_ports; k++) {
        /* Each injector draws from its own stream: INI, port, direction. */
        uint64_t salt = (uint64_t)d->me->id << 16 | (uint64_t)k << 1;
        if (f->on_rx) {
            ini_fault_init(&d->rx_fault[k], &prm, salt | 1, d->tsc_hz, d->pool);
            d->rx_faults = 1;
        } else {
            ini_fault_init(&d->tx_fault[k], &prm, salt, d->tsc_hz, d->pool);
            d->nf.txqs[k].fault = &d->tx_fault[k];
        }
    }
}

/* The peer INI's entry in its cluster's segment, mapping the segment on
 * first use (it may not exist: a peer on another host). */
static struct ini_seg_ini *peer_entry(struct inid *d, int peer)
{
    const struct ini_node_cfg *p = &d->cfg.inis[peer];
    if (!d->peer_seg[p->cluster]) {
        char name[128], err[256];
        ini_segment_name(name, sizeof(name), d->tag, p->cluster);
        d->peer_seg[p->cluster] = ini_segment_attach(name, p->cluster, err, sizeof(err));
        if (!d->peer_seg[p->cluster])
            return NULL;
    }
    return &d->peer_seg[p->cluster]->inis[p->index];
}

void inid_wake_peers(struct inid *d)
{
    for (int k = 0; k < d->n_ports; k++) {
        struct ini_txq *q = &d->nf.txqs[k];
        if (!q->flushed)
            continue;
        q->flushed = 0;
        int peer = d->port_peer[k];
        if (peer < 0)
            continue;
        struct ini_seg_ini *pe = peer_entry(d, peer);
        if (!pe || !atomic_load_explicit(&pe->sleeping, memory_order_relaxed))
            continue;
        if (ini_fabric_ring_fifo(&d->peer_wake_fd[k], pe->wake_path) < 0) {
            close(d->peer_wake_fd[k]);      /* the peer restarted: reopen next time */
            d->peer_wake_fd[k] = -1;
        }
    }
}

void inid_ports_close(struct inid *d)
{
    if (d->wake_fd >= 0) {
        close(d->wake_fd);
        unlink(d->seg->inis[d->local].wake_path);
    }
    if (d->epfd >= 0)
        close(d->epfd);
    for (int k = 0; k < d->n_ports; k++)
        if (d->peer_wake_fd[k] >= 0)
            close(d->peer_wake_fd[k]);
    for (int c = 0; c < INI_MAX_CLUSTERS; c++)
        ini_segment_detach(d->peer_seg[c]);
    /* The ports themselves are left to the process's exit (inid.c). */
    d->n_ports = 0;
}

/* A kernel interface as an INI's port (af_packet mode, or pci mode with an
 * interface name as the device): DPDK's af_xdp driver.  Not af_packet:
 * DPDK 22.11's af_packet driver joins a PACKET_FANOUT group with the
 * DEFRAG flag, and the kernel then reassembles IPv4 fragments into frames
 * larger than its ring slots, which are lost (docs/deploy.md has the
 * measurements).  The default interface is the launcher's veth i<ID>. */
int inid_kernel_iface_vdev(const struct ini_node_cfg *me, char arg[INID_ARG_LEN])
{
    if (me->device[0])
        snprintf(arg, INID_ARG_LEN, "--vdev=net_af_xdp%d,iface=%s", me->id, me->device);
    else
        snprintf(arg, INID_ARG_LEN, "--vdev=net_af_xdp%d,iface=i%d", me->id, me->id);
    return 1;
}

/* pci mode without devargs: the INI's device, a PCI address (allow-listed:
 * the only device EAL probes) or a kernel interface (af_xdp). */
int inid_device_eal_arg(const struct ini_node_cfg *me, char arg[INID_ARG_LEN])
{
    if (ini_device_is_pci(me->device)) {
        snprintf(arg, INID_ARG_LEN, "--allow=%s", me->device);
        return 1;
    }
    return inid_kernel_iface_vdev(me, arg);
}
