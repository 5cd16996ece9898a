/*
 * inid_port.c - the DPDK ports of an INI, by network mode:
 *   memif      one memif port per INI of every other cluster (a full mesh of
 *              point-to-point links); the lower INI id is the server, the
 *              control sockets are files in a directory only the run's
 *              owner can enter (below);
 *   af_packet  one port on the veth the launcher made for this INI (i<ID>)
 *              inside its cluster's network namespace, bridged to the LAN;
 *   pci        the device named by the INI's devargs (a real NIC).
 */
#include "inid_port.h"
#include "clock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_xdp.h>

#include <rte_dev.h>
#include <rte_ethdev.h>
#include <sodium.h>

#include "fabric.h"
#include "stack_config.h"
#include "xsk_queue.h"

#define RX_DESC 1024
#define TX_DESC 1024

static void port_name(const struct inid *d, int peer, char *buf, size_t len)
{
    if (d->cfg.net_mode == INI_NET_MEMIF)
        snprintf(buf, len, "net_memif%d", peer);
    else
        snprintf(buf, len, "net_af_packet%d", d->me->id);
}

/* memif's control sockets.  A socket in Linux's abstract namespace has
 * no permissions: any local user could connect to it, get memif's
 * greeting and, before the peer INI connects or while a killed INI
 * restarts, take the link.  So each link's socket is a file,
 * DIR/ini-LO-HI.sock, in DIR = RUN_DIR/memif, a directory of mode 0700
 * that whichever INI comes first makes: only the run's owner (and root)
 * can reach it.  A run directory too long for sun_path (108 bytes) puts
 * DIR at /tmp/ini-memif-UID-TAG instead, made and checked the same way;
 * so does one with a character devargs cannot carry (comma, space). */
#define MEMIF_SOCK_NAME_MAX sizeof("/ini-9999-9999.sock")

static void memif_dir(const struct inid *d, char *out, size_t len)
{
    size_t n = (size_t)snprintf(out, len, "%s/memif", d->run_dir);
    if (n + MEMIF_SOCK_NAME_MAX > sizeof(((struct sockaddr_un *)0)->sun_path) || strpbrk(d->run_dir, ", \t\n"))
        snprintf(out, len, "/tmp/ini-memif-%u-%s", (unsigned)geteuid(), d->tag);
}

static void memif_sock_path(const struct inid *d, int lo, int hi, char *out, size_t len)
{
    char dir[INI_PATH_LEN];
    memif_dir(d, dir, sizeof dir);
    snprintf(out, len, "%s/ini-%d-%d.sock", dir, lo, hi);
}

/* DIR made 0700, or found as a directory of ours that nobody else can
 * enter (another user may have made one in /tmp first): 0, or -1. */
static int memif_private_dir(const struct inid *d)
{
    char dir[INI_PATH_LEN];
    struct stat st;
    memif_dir(d, dir, sizeof dir);
    if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
        fprintf(stderr, "inid %d: memif socket directory %s: %s\n", d->me->id, dir, strerror(errno));
        return -1;
    }
    if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
        fprintf(stderr, "inid %d: memif socket directory %s is not a directory of uid %u with mode 0700; "
                "refusing to put the run's sockets there\n", d->me->id, dir, (unsigned)geteuid());
        return -1;
    }
    return 0;
}

/* memif's connection secret (devarg secret=, at most 24 characters): a
 * second lock beside the directory, drawn from the run's epoch, which the
 * launcher gives only to the run's daemons.  A client that does not send
 * it is refused by the server.  Empty without an epoch (inid by hand). */
static void memif_secret(char out[25])
{
    const char *e = getenv("INI_RUN_EPOCH");
    out[0] = 0;
    if (!e || !*e)
        return;
    static const char label[] = "ini memif secret v1";
    uint8_t h[12];
    crypto_generichash_state st;
    crypto_generichash_init(&st, NULL, 0, sizeof h);
    crypto_generichash_update(&st, (const uint8_t *)label, sizeof label);
    crypto_generichash_update(&st, (const uint8_t *)e, strlen(e));
    crypto_generichash_final(&st, h, sizeof h);
    sodium_bin2hex(out, 25, h, sizeof h);
}

/* A memif server's socket left by a killed predecessor (SIGKILL closes no
 * listener) makes the new bind fail with EADDRINUSE: the server removes
 * it before its EAL init creates the listener. */
static void memif_unlink_stale(const struct inid *d, int lo, int hi)
{
    char path[INI_PATH_LEN + 32];
    memif_sock_path(d, lo, hi, path, sizeof path);
    if (unlink(path) < 0 && errno != ENOENT)
        fprintf(stderr, "inid %d: %s: %s\n", d->me->id, path, strerror(errno));
}

/* At a clean stop: the server's socket files, and the directory once the
 * last INI leaves it (rmdir fails while another's socket is still there;
 * a killed INI leaves its socket to its restart, memif_unlink_stale). */
static void memif_remove_sockets(const struct inid *d)
{
    char dir[INI_PATH_LEN];
    for (int j = 0; j < d->cfg.n_inis; j++)
        if (d->cfg.inis[j].cluster != d->me->cluster && d->me->id < j)
            memif_unlink_stale(d, d->me->id, j);
    memif_dir(d, dir, sizeof dir);
    rmdir(dir);
}

static int memif_eal_args(const struct inid *d, char args[][INID_ARG_LEN], int max)
{
    int n = 0;
    const struct ini_node_cfg *me = d->me;
    char secret[25], secret_arg[40] = "";
    if (memif_private_dir(d) < 0)
        return -1;
    memif_secret(secret);
    if (secret[0])
        snprintf(secret_arg, sizeof secret_arg, ",secret=%s", secret);
    for (int j = 0; j < d->cfg.n_inis && n < max; j++) {
        const struct ini_node_cfg *peer = &d->cfg.inis[j];
        if (peer->cluster == me->cluster)
            continue;
        int lo = me->id < j ? me->id : j, hi = me->id < j ? j : me->id;
        char path[INI_PATH_LEN + 32];
        memif_sock_path(d, lo, hi, path, sizeof path);
        if (me->id == lo)
            memif_unlink_stale(d, lo, hi);
        snprintf(args[n++], INID_ARG_LEN, "--vdev=net_memif%d,role=%s,id=0,socket=%s,socket-abstract=no%s,bsize=%u",
                 j, me->id == lo ? "server" : "client", path, secret_arg, ini_stack_memif_bsize(d->cfg.stack.mtu));
    }
    sodium_memzero(secret, sizeof secret);
    return n;
}

static int lan_port_is_packet(const struct inid *d);   /* below, with its reasons */

int inid_ports_eal_args(const struct inid *d, char args[][INID_ARG_LEN], int max)
{
    int n = 0;
    const struct ini_node_cfg *me = d->me;
    switch (d->cfg.net_mode) {
    case INI_NET_MEMIF:
        return memif_eal_args(d, args, max);
    case INI_NET_AF_PACKET:
        if (me->devargs[0])
            snprintf(args[n++], INID_ARG_LEN, "--vdev=%s", me->devargs);
        else
            n += inid_kernel_iface_vdev(me, lan_port_is_packet(d), args[n]);
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

/* Whether the memif server of the link (lo, hi) listens: its socket
 * appears in /proc/net/unix with the accepting flag (__SO_ACCEPTCON,
 * 0x10000).  Start-up only. */
static int memif_server_listening(const struct inid *d, int lo, int hi)
{
    char want[INI_PATH_LEN + 32], line[512];
    memif_sock_path(d, lo, hi, want, sizeof want);
    FILE *f = fopen("/proc/net/unix", "r");
    if (!f)
        return 1;       /* cannot tell: let the start and its retries decide */
    int found = 0;
    while (!found && fgets(line, sizeof(line), f)) {
        unsigned long flags;
        char path[256] = "";
        if (sscanf(line, "%*s %*s %*s %lx %*s %*s %*s %255s", &flags, path) == 2 &&
            (flags & 0x10000) && strcmp(path, want) == 0)
            found = 1;
    }
    fclose(f);
    return found;
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

/* A memif server accepts connections from its EAL init on, but refuses
 * them ("ID not found") until its port is started; it writes its pid into
 * its segment entry once all its ports are started (inid.c).  So a client
 * waits for that pid (or, with no segment to read, for the listening
 * socket), and its first connection is accepted and answered. */
static void memif_wait_for_server(struct inid *d, int server, int timeout_ms)
{
    for (int waited = 0; waited < timeout_ms && !d->stop; waited += 2) {
        struct ini_seg_ini *pe = peer_entry(d, server);
        if (pe ? atomic_load(&pe->pid) != 0 : memif_server_listening(d, server, d->me->id))
            return;
        usleep(2000);
    }
    fprintf(stderr, "inid %d: memif server INI %d not started after %d ms; starting the link anyway\n",
            d->me->id, server, timeout_ms);
}

static uint64_t ms_now(void) { return ini_mono_ns() / 1000000u; }

/* A memif client must not close a connection its server has not accepted
 * yet.  DPDK 22.11's memif server, accepting a connection whose client has
 * gone, fails to send its hello (EPIPE) and frees the control channel
 * without unregistering its interrupt callback: the EAL interrupt thread
 * then panics on the closed descriptor ("Error adding fd N epoll_ctl, Bad
 * file descriptor") or runs the freed callback.  A server still in its EAL
 * init, or descheduled on a loaded machine, accepts late; so a link whose
 * last start connected is restarted only after this grace, and a start
 * that could not connect (no server listening) on the usual schedule. */
#define MEMIF_HANDSHAKE_GRACE_MS 2400

static void client_start(struct inid *d, int k)
{
    d->client_connected[k] = rte_eth_dev_start(d->ports[k]) == 0;
    d->client_started_ms[k] = ms_now();
}

static int client_may_restart(const struct inid *d, int k, uint64_t now)
{
    return !d->client_connected[k] || now - d->client_started_ms[k] >= MEMIF_HANDSHAKE_GRACE_MS;
}

static void client_restart(struct inid *d, int k)
{
    rte_eth_dev_stop(d->ports[k]);
    client_start(d, k);
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
    if ((rc = rte_eth_rx_queue_setup(port, 0, rxd, (unsigned)socket, NULL, d->stack.pool)) < 0 ||
        (rc = rte_eth_tx_queue_setup(port, 0, txd, (unsigned)socket, NULL)) < 0) {
        fprintf(stderr, "inid %d: port %u: queue setup: %s\n", d->me->id, port, rte_strerror(-rc));
        return -1;
    }
    /* A port that refuses the MTU would drop every longer frame: the
     * daemon must not report ready on it.  A driver without an MTU
     * setting (memif: its buffer size is set by devargs) is not a refusal. */
    if (d->cfg.stack.mtu != 1500 &&
        (rc = rte_eth_dev_set_mtu(port, (uint16_t)d->cfg.stack.mtu)) < 0 && rc != -ENOTSUP) {
        fprintf(stderr, "inid %d: port %u: MTU %d refused by the driver: %s\n", d->me->id, port,
                d->cfg.stack.mtu, rte_strerror(-rc));
        return -1;
    }
    /* A memif client whose server is not listening yet fails to start and
     * does not retry: wait for the server's socket first (the restarts of
     * inid_ports_wait_up() remain for a server that goes away). */
    if (d->cfg.net_mode == INI_NET_MEMIF && d->port_peer[k] < d->me->id) {
        memif_wait_for_server(d, d->port_peer[k], 3000);
        client_start(d, k);
    } else if ((rc = rte_eth_dev_start(port)) < 0) {
        fprintf(stderr, "inid %d: port %u: start: %s\n", d->me->id, port, rte_strerror(-rc));
        return -1;
    }
    rte_eth_promiscuous_enable(port);
    return 0;
}

/* The AF_XDP sockets the process still holds after its port was closed:
 * DPDK 22.11's af_xdp close deletes the socket but not its umem (it
 * frees the umem only when its count was 2: `__atomic_sub_fetch(...) - 1
 * == 0`), and the umem's descriptor is the socket's, with the fill and
 * completion rings mapped on it.  The socket thus stays bound to the
 * interface's queue and a new one cannot bind (EBUSY).  Each is released
 * here: its mappings (/proc/self/maps names them socket:[INODE]) and its
 * descriptor.  Nothing uses them any more: the port that did is closed. */
static void release_xsk_leftovers(void)
{
    DIR *dir = opendir("/proc/self/fd");
    if (!dir)
        return;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        int fd = atoi(e->d_name);
        struct xdp_statistics st;
        socklen_t len = sizeof(st);
        char link[64], self[64], line[512];
        if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd(dir) ||
            getsockopt(fd, SOL_XDP, XDP_STATISTICS, &st, &len) != 0)
            continue;
        snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(self, link, sizeof link - 1);
        FILE *maps = n > 0 ? fopen("/proc/self/maps", "r") : NULL;
        if (n > 0)
            link[n] = 0;
        while (maps && fgets(line, sizeof line, maps)) {
            unsigned long lo, hi;
            char *name = strrchr(line, ' ');
            if (name && sscanf(line, "%lx-%lx", &lo, &hi) == 2 && strncmp(name + 1, link, strlen(link)) == 0)
                munmap((void *)lo, hi - lo);
        }
        if (maps)
            fclose(maps);
        close(fd);
    }
    closedir(dir);
}

/* af_xdp's driver has no queue restart, and its dev_stop/dev_start leave
 * the socket as it is: the port is closed, its device unplugged and
 * probed again from the same vdev argument (a new socket, its fill ring
 * filled afresh), and set up as at start.  What the old socket held is
 * lost to the transport's recovery, as any lost frame.  0, or -1 after
 * one line. */
int inid_port_reopen(struct inid *d, int k, struct inid_reopen *r)
{
    char arg[1][INID_ARG_LEN], name[RTE_DEV_NAME_MAX_LEN];
    uint16_t old = d->ports[k], port;
    if (inid_ports_eal_args(d, arg, 1) != 1 || strncmp(arg[0], "--vdev=", 7) != 0) {
        fprintf(stderr, "inid %d: port %u: not a vdev: cannot reopen it\n", d->me->id, old);
        return -1;
    }
    const char *comma = strchr(arg[0] + 7, ',');
    snprintf(name, sizeof name, "%.*s", comma ? (int)(comma - arg[0] - 7) : (int)sizeof name - 1, arg[0] + 7);
    uint64_t t0 = rte_rdtsc();
    memset(r, 0, sizeof(*r));
    struct rte_eth_dev_info info;
    unsigned ifindex = rte_eth_dev_info_get(old, &info) == 0 ? info.if_index : 0;
    /* The kernel's view is trusted only if it sees the socket now. */
    int kernel_says = ifindex && ini_xsk_queue_bound(ifindex, 0) == 1;
    int rc = rte_eth_dev_stop(old);
    if (rc == 0)
        rc = rte_eth_dev_close(old);
    if (rc == 0)
        rc = rte_eal_hotplug_remove("vdev", name);
    /* The kernel unbinds the old socket's buffer pool from the queue in a
     * deferred work item after the close: a socket made before it has run
     * cannot bind (EBUSY, seen in the queue's set-up; the failed set-up
     * keeps its fill ring's 2,048 mbufs).  So the set-up waits until the
     * kernel says the queue is free (up to 20 s: under load the work item
     * waited more than 1.5 s, rows d6), or, if it cannot say, 50 ms; then
     * tries, and again after twice as long, up to 5 times. */
    if (rc == 0)
        release_xsk_leftovers();
    r->close_cycles = rte_rdtsc() - t0;
    uint64_t t1 = rte_rdtsc();
    r->asked_kernel = kernel_says;
    for (int i = 0; rc == 0 && kernel_says && i < 10000 && ini_xsk_queue_bound(ifindex, 0) == 1; i++)
        usleep(2000);
    r->unbind_cycles = rte_rdtsc() - t1;
    for (int wait_ms = kernel_says ? 0 : 50; rc == 0 && wait_ms <= 800; wait_ms = wait_ms ? 2 * wait_ms : 50) {
        usleep((useconds_t)wait_ms * 1000u);
        r->attempts++;
        if (rte_eal_hotplug_add("vdev", name, comma ? comma + 1 : "") != 0 ||
            rte_eth_dev_get_port_by_name(name, &port) != 0)
            break;
        d->ports[k] = port;
        for (int q = 0; q < d->stack.nf.n_txqs; q++)
            if (d->stack.nf.txqs[q].port == old)
                d->stack.nf.txqs[q].port = port;
        old = port;
        if (setup_port(d, k) == 0)
            return 0;
        rte_eth_dev_close(port);
        rte_eal_hotplug_remove("vdev", name);
    }
    fprintf(stderr, "inid %d: port %s: reopen failed\n", d->me->id, name);
    return -1;
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
        int q = ini_netif_add_txq(&d->stack.nf, d->ports[k]);
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
            if (ini_netif_add_peer(&d->stack.nf, peer->ip, peer->mac, q) < 0) {
                fprintf(stderr, "inid %d: peer table full\n", d->me->id);
                return -1;
            }
        }
    }
    return 0;
}

int inid_ports_wait_up(struct inid *d, int timeout_ms)
{
    uint64_t start = ms_now(), last_restart = start, restart_every = 300;
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
            char peers[256] = "";
            size_t len = 0;
            for (int k = 0; k < d->n_ports && len < sizeof(peers) - 8; k++) {
                struct rte_eth_link link;
                rte_eth_link_get_nowait(d->ports[k], &link);
                if (link.link_status != RTE_ETH_LINK_UP)
                    len += (size_t)snprintf(peers + len, sizeof(peers) - len, " %d", d->port_peer[k]);
            }
            fprintf(stderr, "inid %d: %d of %d links still down after %d ms (peer INIs:%s)\n", d->me->id,
                    down, d->n_ports, timeout_ms, peers);
            return -1;
        }
        /* A memif client whose server was not listening yet does not retry
         * on its own: restart it.  The interval doubles (to 4.8 s): on a
         * loaded machine a handshake can take longer than 300 ms, and a
         * restart in the middle of it broke every attempt (1 of 12 links
         * down after 20 s in 8 of 190 thesis runs at load average 10-15). */
        if (d->cfg.net_mode == INI_NET_MEMIF && now - last_restart > restart_every) {
            last_restart = now;
            if (restart_every < 4800)
                restart_every *= 2;
            for (int k = 0; k < d->n_ports; k++) {
                struct rte_eth_link link;
                rte_eth_link_get_nowait(d->ports[k], &link);
                if (link.link_status != RTE_ETH_LINK_UP && d->port_peer[k] < d->me->id &&
                    client_may_restart(d, k, now))
                    client_restart(d, k);
            }
        }
        usleep(10000);
    }
}

void inid_ports_relink(struct inid *d)
{
    if (d->cfg.net_mode != INI_NET_MEMIF)
        return;
    for (int k = 0; k < d->n_ports; k++) {
        struct rte_eth_link link;
        if (d->port_peer[k] > d->me->id)
            continue;                   /* our server side: the client comes back by itself */
        /* The server's pid, which a restarted server writes as soon as it
         * listens (inid.c): a new one means it is back, and waiting out
         * the back-off would only lengthen the blackout (up to 4.8 s). */
        struct ini_seg_ini *pe = peer_entry(d, d->port_peer[k]);
        int32_t pid = pe ? atomic_load_explicit(&pe->pid, memory_order_relaxed) : 0;
        rte_eth_link_get_nowait(d->ports[k], &link);
        if (link.link_status == RTE_ETH_LINK_UP) {
            d->relink_gap[k] = 1;
            d->relink_wait[k] = 1;
            d->relink_pid[k] = pid;
        } else if (!client_may_restart(d, k, ms_now())) {
            continue;                   /* a handshake may be pending: let it finish */
        } else if (pid && pid != d->relink_pid[k]) {
            client_restart(d, k);
            d->relink_pid[k] = pid;
            d->relink_gap[k] = 1;
            d->relink_wait[k] = 1;
        } else if (pe && (pid == 0 || (kill(pid, 0) != 0 && errno == ESRCH))) {
            /* The server is dead or being restarted (the launcher clears
             * its pid first) and its successor has not written its pid:
             * it may listen already but refuses ("ID not found") until its
             * ports start, and a start that connected then waits out the
             * handshake grace (2.4 s) before it may try again: most of a
             * 3.1 s restart under load (issue 48).  The new pid restarts
             * the link at once (above). */
            continue;
        } else if (d->relink_wait[k] > 1) {
            d->relink_wait[k]--;
        } else {
            client_restart(d, k);
            d->relink_gap[k] = d->relink_gap[k] && d->relink_gap[k] < 48 ? 2 * d->relink_gap[k] : 48;
            d->relink_wait[k] = d->relink_gap[k];
        }
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
            ini_fault_init(&d->rx_fault[k], &prm, salt | 1, d->tsc_hz, d->stack.pool);
            d->rx_faults = 1;
        } else {
            ini_fault_init(&d->tx_fault[k], &prm, salt, d->tsc_hz, d->stack.pool);
            d->stack.nf.txqs[k].fault = &d->tx_fault[k];
        }
    }
}

void inid_wake_peers(struct inid *d)
{
    for (int k = 0; k < d->n_ports; k++) {
        struct ini_txq *q = &d->stack.nf.txqs[k];
        if (!q->flushed)
            continue;
        q->flushed = 0;
        int peer = d->port_peer[k];
        if (peer < 0)
            continue;
        struct ini_seg_ini *pe = peer_entry(d, peer);
        /* The producer's half of fabric.h: the frames are in the peer's
         * ring; the fence in consumer_sleeps orders them before the look
         * at its announcement, which its last look pairs with. */
        if (!pe || !ini_fabric_consumer_sleeps(&pe->sleeping))
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
    if (d->cfg.net_mode == INI_NET_MEMIF)
        memif_remove_sockets(d);
    /* The ports themselves are left to the process's exit (inid.c). */
    d->n_ports = 0;
}

/* ---- capture (--capture): the frames of every port, as on the wire ---- */

/* The copy is the only work per frame: no allocation, no system call. */
uint16_t inid_capture_batch(struct inid *d, int k, uint32_t dir, struct rte_mbuf **pkts, uint16_t n,
                            size_t *off)
{
    struct ini_capture *c = &d->cap;
    size_t need = 0;
    for (uint16_t i = 0; i < n; i++)
        need += ini_capture_frame_size(c, pkts[i]->pkt_len, dir);
    if (ini_capture_reserve(c, need, n) < 0)
        return 0;
    uint64_t now = d->cap_clock ? *d->cap_clock : rte_rdtsc();
    for (uint16_t i = 0; i < n; i++) {
        struct rte_mbuf *m = pkts[i];
        if (off)
            off[i] = c->len;
        uint8_t *p = ini_capture_frame(c, (uint32_t)k, dir, now, m->pkt_len);
        if (!p)
            return i;
        /* The first caplen bytes (the snap length), across segments. */
        uint32_t left = ini_capture_caplen(c, m->pkt_len);
        for (const struct rte_mbuf *s = m; s && left; s = s->next) {
            uint32_t take = s->data_len < left ? s->data_len : left;
            memcpy(p, rte_pktmbuf_mtod(s, const uint8_t *), take);
            p += take;
            left -= take;
        }
    }
    return n;
}

/* The netif's transmit with the capture in front: frames are recorded
 * before the driver takes them (after that they are the driver's), and
 * those it refuses are taken back out: the netif offers them again later,
 * when they are recorded once more. */
static uint16_t capture_xmit(struct ini_netif *nf, struct ini_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
    struct inid *d = nf->xmit_ctx;
    int k = (int)(q - nf->txqs);
    size_t off[2 * INI_NETIF_BURST + INI_FAULT_HOLD + INI_NETIF_BACKLOG];
    uint16_t rec = n < RTE_DIM(off) ? n : (uint16_t)RTE_DIM(off);
    uint16_t recorded = inid_capture_batch(d, k, INI_CAPTURE_OUT, pkts, rec, off);
    uint16_t sent = rte_eth_tx_burst(q->port, 0, pkts, n);
    if (sent < recorded)
        ini_capture_truncate(&d->cap, off[sent]);
    return sent;
}

/* A frame the transmit side's fault injector dropped: recorded as sent,
 * with a comment that says it was not (capture.h), so that its resend
 * shows as a retransmission of it. */
static void capture_dropped(void *ctx, const struct ini_fault *f, struct rte_mbuf *m)
{
    struct inid *d = ctx;
    inid_capture_batch(d, (int)(f - d->tx_fault), INI_CAPTURE_OUT | INI_CAPTURE_DROPPED, &m, 1, NULL);
}

void inid_capture_rx(struct inid *d, int k, struct rte_mbuf **pkts, uint16_t n)
{
    if (n)
        inid_capture_batch(d, k, INI_CAPTURE_IN, pkts, n, NULL);
}

int inid_capture_init(struct inid *d)
{
    d->cap.fd = -1;
    if (!d->capture)
        return 0;
    char path[INI_PATH_LEN + 32], err[INI_PATH_LEN + 128];
    /* One file, or a ring of them: RUN_DIR/ini<ID>-<k>.pcapng. */
    snprintf(path, sizeof path, "%.*s/ini%d%s", INI_PATH_LEN - 1, d->run_dir, d->me->id,
             d->cap_opts.ring ? "" : ".pcapng");
    if (ini_capture_open(&d->cap, path, &d->cap_opts, rte_rdtsc(), d->tsc_hz, err, sizeof err) < 0) {
        fprintf(stderr, "inid %d: %s\n", d->me->id, err);
        return -1;
    }
    for (int k = 0; k < d->n_ports; k++) {
        char name[64];
        if (d->port_peer[k] >= 0)
            snprintf(name, sizeof name, "ini%d-to-ini%d (net_memif%d)", d->me->id, d->port_peer[k],
                     d->port_peer[k]);
        else
            port_name(d, -1, name, sizeof name);
        ini_capture_add_iface(&d->cap, name);
    }
    d->stack.nf.xmit = capture_xmit;
    d->stack.nf.xmit_ctx = d;
    for (int k = 0; k < d->n_ports; k++) {
        d->tx_fault[k].on_drop = capture_dropped;
        d->tx_fault[k].drop_ctx = d;
    }
    return 0;
}

void inid_capture_close(struct inid *d)
{
    if (d->cap.fd < 0)
        return;
    const struct ini_capture *c = &d->cap;
    printf("inid %d: captured %llu frames (%llu bytes", d->me->id, (unsigned long long)c->frames,
           (unsigned long long)c->bytes);
    if (c->opts.ring)
        printf(", %llu files of a ring of %u, the last ini%d-%u.pcapng", (unsigned long long)c->files,
               c->opts.ring, d->me->id, c->file_no);
    printf(")");
    if (c->full)
        printf("; --capture-limit reached: %llu frames after it not recorded", (unsigned long long)c->not_recorded);
    printf("\n");
    ini_capture_close(&d->cap);
}

/* Whether kernel interface `name` is a virtual one (a veth, a bridge: the
 * kernel files it under /sys/devices/virtual/net), not a NIC.  Start-up
 * only; an interface sysfs does not show counts as a NIC. */
static int iface_is_virtual(const char *name)
{
    char link[96], real[PATH_MAX];
    snprintf(link, sizeof link, "/sys/class/net/%.63s", name);
    return realpath(link, real) && strstr(real, "/devices/virtual/") != NULL;
}

/* The driver of a kernel interface in af_packet mode (network.port).
 * auto: DPDK's af_packet driver, with a ring of INID_PACKET_FRAMES slots,
 * for the launcher's veth i<ID> (no device named) or a named virtual
 * device (a lab host's veth d0: rows h1, h2 of the README, af_xdp 0 of 3
 * runs complete there, af_packet 3 of 3) in segment mode (the mode's MTU
 * is at most 1,500: its 2 KB slots hold a frame).  DPDK 22.11's af_xdp
 * driver keeps 2,048 buffers on its socket's fill ring and puts one back
 * only for each frame its receive call takes off, so under many senders
 * the kernel finds that ring empty and drops (tens of thousands of frames
 * a run, docs/results/incast/README.md, rows d7 and e); af_packet hands
 * each ring slot back as the frame is copied out.  Otherwise af_xdp: the
 * af_packet driver joins a PACKET_FANOUT group with the DEFRAG flag, and
 * the kernel then reassembles IPv4 fragments (fragment mode's, a Linux
 * host's large ping) into frames larger than its 2 KB slots, which are
 * lost (docs/deploy.md has the measurements); a NIC keeps the driver its
 * deployment was measured with. */
static int lan_port_is_packet(const struct inid *d)
{
    if (d->cfg.port != INI_PORT_AUTO)
        return d->cfg.port == INI_PORT_AF_PACKET;
    return d->cfg.stack.segmentation && (!d->me->device[0] || iface_is_virtual(d->me->device));
}

int inid_kernel_iface_vdev(const struct ini_node_cfg *me, int packet, char arg[INID_ARG_LEN])
{
    char iface[sizeof me->device + 16];
    if (me->device[0])
        snprintf(iface, sizeof iface, "%s", me->device);
    else
        snprintf(iface, sizeof iface, "i%d", me->id);
    if (packet)
        snprintf(arg, INID_ARG_LEN, "--vdev=net_af_packet%d,iface=%s,framecnt=%d", me->id, iface,
                 INID_PACKET_FRAMES);
    else
        snprintf(arg, INID_ARG_LEN, "--vdev=net_af_xdp%d,iface=%s", me->id, iface);
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
    return inid_kernel_iface_vdev(me, 0, arg);
}
