/*
 * bench_inproc.c - the INI's stack path in one process, to count what a
 * message costs the INI: instructions under callgrind, cycles natively.
 *
 *   ini-bench --inproc [--layer raw|udp-ip|reliable|all] [--count N]
 *                      [--window W] [--size B] [--mac]   (B: 8..65000)
 *   ini-bench --inproc --pingpong [--count N] [--size B] [--mac]
 *       the reliable layer's round trip: A sends, B answers each message
 *       (ip_rel_send, ip_rel_recv, ip_rel_reply, ip_rel_ack)
 *   --mac (either form): every datagram authenticated, as with
 *       security.key_file (docs/transport.md)
 *   --flood K [--flood-stranger] (stream form): behind every frame of A,
 *       K first fragments that never complete reach B, from A's address
 *       (spoofed) or a stranger's: real traffic's cost and progress under
 *       a fragment flood
 *
 * Two INIs, A (sending) and B (receiving), each a stack (stack/stack.h:
 * the link, UDP/IP, the transport at its defaults but for the window and
 * segmentation given here) in one lwIP instance; each link's transmit hook
 * hands the mbufs over to the other side, as tests/unit/loop_harness.c
 * does: the DPDK driver (memif) is left out, so what is counted is the
 * INI's own work per message.  A sends N messages of B bytes (default 8)
 * with the seed's flood pattern at depth W (default 16; the window holds
 * W messages: W frames, or in segments W times a message's segments): W,
 * then W/2 each time W/2 are acknowledged.  Each piece of work is one function, so that callgrind
 * attributes it (callgrind_annotate --inclusive=yes, or --toggle-collect):
 *
 *   ip_rel_send  ini_swp_send of a batch + flushing it, and A's next
 *                loop turn, which starts the SEND timers (A)
 *   ip_rel_recv  B: every frame through ini_stack_input (IP, UDP, the
 *                transport, delivery: a copy of the message out, as inid
 *                copies it into the compute node's ring), timers, flushing
 *                B's ACKs
 *   ip_rel_ack   A: B's ACKs through the same input path, timers, releases
 *   ip_udp_send / ip_udp_recv  the same over lwIP's UDP alone
 *   ip_raw_send / ip_raw_recv  mbuf, Ethernet header, copy (1500-byte
 *                frames for larger messages); check, copy out, free
 *
 * Send work per message = (send + ack) / N, receive work = recv / N.
 * tools/bench/callgrind-stack.sh runs it under callgrind.
 */
#include "lwip/ip4.h"
#include "lwip/udp.h"
#include "lwip/inet_chksum.h"
#include "stack.h"
#include "msg.h"
#include "bench.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#define WIRE 8192

static struct ip_side {
    int id;
    struct ini_stack st;
    struct udp_pcb *upcb;
    struct rte_mbuf *wire[WIRE];      /* frames this side sent, not yet taken */
    int nwire;
    uint32_t taken;                   /* messages the transport took: the next one's slot */
    uint64_t delivered, released;
} A, B;

static struct rte_mempool *ip_pool;
static uint8_t sink[BENCH_MAX_MSG + 64];
static uint8_t *slots;
static uint32_t slot_stride, n_slots;
static uint32_t msg_size = BENCH_HDR;
static int frame_mtu = BENCH_MTU;        /* --mtu */
static const uint8_t ip_mac[2][6] = { { 2, 0, 0xc6, 0x12, 0, 1 }, { 2, 0, 0xc6, 0x12, 0, 2 } };
static const uint32_t ip_ip[2] = { PP_HTONL(0xc6120001), PP_HTONL(0xc6120002) };

static uint16_t wire_xmit(struct ini_netif *nf, struct ini_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
    struct ip_side *s = nf->xmit_ctx;
    uint16_t k = 0;
    while (k < n && s->nwire < WIRE)
        s->wire[s->nwire++] = pkts[k++];
    return k;
}

static int deliver(void *ctx, int src_ini, struct pbuf *p, uint16_t off, struct ini_rx_meta *rx)
{
    struct ip_side *s = ctx;
    pbuf_copy_partial(p, sink, (u16_t)(p->tot_len - off), off);
    pbuf_free(p);
    s->delivered++;
    return 0;
}

static void release(void *ctx, void *cookie)
{
    ((struct ip_side *)ctx)->released++;
}

static void udp_recv_cb(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr, u16_t port)
{
    struct ip_side *s = arg;
    pbuf_copy_partial(p, sink, p->tot_len, 0);
    pbuf_free(p);
    s->delivered++;
}

/* Side id's stack (the stack's defaults, but for the window, the
 * segmentation and the MAC given), and a plain lwIP UDP endpoint beside
 * the transport for the udp-ip layer.  The transport's window holds
 * `depth` messages of the run's size: in segments, each takes as many
 * frames (ini_swp_window_cost), as ini-bench's reliable layer sets it. */
static int setup_side(struct ip_side *s, int id, int depth, int segment, int mac)
{
    struct ini_stack_params prm;
    char err[256];
    ini_stack_params_default(&prm);
    prm.swp.me = id;
    prm.swp.n_inis = 2;
    prm.swp.mtu = frame_mtu;              /* the frames every layer moves */
    prm.swp.segment = segment;
    prm.swp.auth = mac;
    prm.swp.window = depth * (int)ini_swp_window_cost(&prm.swp, (uint32_t)sizeof(struct ini_am_hdr) + msg_size);
    prm.swp.tsc_hz = bench_tsc_hz();
    for (int i = 0; i < 2; i++) {
        prm.swp.ip[i] = ip_ip[i];
        prm.swp.connect[i] = 1;           /* two clusters of one INI each */
    }
    if (mac) {
        /* Every datagram authenticated (security.key_file): a fixed key
         * and epoch, the cost does not depend on them. */
        prm.swp.auth = 1;
        memset(prm.swp.key, 0x5a, sizeof(prm.swp.key));
        memset(prm.swp.epoch, 0xa5, sizeof(prm.swp.epoch));
    }
    memcpy(prm.mac, ip_mac[id], 6);
    prm.pool = ip_pool;
    prm.deliver = deliver;
    prm.release = release;
    prm.ctx = s;
    s->id = id;
    if (ini_stack_open(&s->st, &prm, err, sizeof(err)) < 0) {
        cli_error("--inproc: %s", err);
        return -1;
    }
    s->st.nf.xmit = wire_xmit;
    s->st.nf.xmit_ctx = s;
    int q = ini_netif_add_txq(&s->st.nf, 0);
    ini_netif_add_peer(&s->st.nf, ip_ip[1 - id], ip_mac[1 - id], q);
    s->upcb = udp_new();
    ip_addr_t local;
    ip_addr_set_ip4_u32(&local, ip_ip[id]);
    udp_bind(s->upcb, &local, 7401);
    udp_recv(s->upcb, udp_recv_cb, s);
    return 0;
}

/* --flood K: behind every frame A sends, B also receives K first
 * fragments of datagrams that never complete, from A's address (a
 * spoofed peer: the worst case, which the glue's peer check cannot stop)
 * or from a stranger's, each its own datagram. */
static int flood_k, flood_stranger;
static uint64_t flood_frames;
static uint16_t flood_id;

static void flood_b(void)
{
    static uint8_t tmpl[RTE_ETHER_HDR_LEN + 20 + 1000];
    if (!tmpl[0]) {
        memcpy(tmpl, ip_mac[1], 6);
        memcpy(tmpl + 6, ip_mac[0], 6);
        tmpl[12] = 0x08;
        uint8_t *ip = tmpl + RTE_ETHER_HDR_LEN;
        ip[0] = 0x45;
        ip[2] = (20 + 1000) >> 8;
        ip[3] = (20 + 1000) & 0xff;
        ip[6] = 0x20;                   /* more fragments, offset 0 */
        ip[8] = 64;
        ip[9] = 17;
        uint32_t src = flood_stranger ? PP_HTONL(0xc6120063) : ip_ip[0];
        memcpy(ip + 12, &src, 4);
        memcpy(ip + 16, &ip_ip[1], 4);
    }
    struct ini_rx_meta rx = { 0 };
    for (int k = 0; k < flood_k; k++) {
        struct rte_mbuf *m = rte_pktmbuf_alloc(ip_pool);
        if (!m)
            return;
        uint8_t *f = (uint8_t *)rte_pktmbuf_append(m, sizeof(tmpl));
        memcpy(f, tmpl, sizeof(tmpl));
        uint8_t *ip = f + RTE_ETHER_HDR_LEN;
        flood_id++;
        ip[4] = (uint8_t)(flood_id >> 8);
        ip[5] = (uint8_t)flood_id;
        uint16_t c = inet_chksum(ip, 20);
        memcpy(ip + 10, &c, 2);
        ini_stack_input(&B.st, m, &rx);
        flood_frames++;
    }
}

/* Frames `from` sent go through `to`'s receive path. */
static void take_frames(struct ip_side *from, struct ip_side *to)
{
    struct ini_rx_meta rx = { 0 };      /* no traces here */
    for (int i = 0; i < from->nwire; i++) {
        ini_stack_input(&to->st, from->wire[i], &rx);
        if (to == &B && flood_k)
            flood_b();
    }
    from->nwire = 0;
}

/* ---- reliable ---- */

/* Returns the messages taken: fewer than k when the window is full, or
 * (segments) while a message's segments are still going out. */
__attribute__((noinline)) int ip_rel_send(int k)
{
    uint64_t now = bench_rdtsc();
    int i;
    for (i = 0; i < k; i++) {
        /* A slot is free again once its message is acknowledged: at most
         * a window (n_slots) of messages is in flight. */
        uint8_t *am = slots + (A.taken % n_slots) * slot_stride + INI_SWP_MAXHDR;
        ((struct ini_am_hdr *)am)->pe_seq = (uint32_t)i;
        if (ini_swp_send(A.st.swp, 1, am, (uint32_t)sizeof(struct ini_am_hdr) + msg_size, NULL, now, NULL) < 0)
            break;
        A.taken++;
    }
    ini_stack_flush(&A.st);
    /* A's next loop turn, before anything comes back, as in inid's loop:
     * it starts the SEND timers of what it sent (swp.h, ini_swp_poll). */
    ini_stack_poll(&A.st, bench_rdtsc());
    return i;
}

__attribute__((noinline)) void ip_rel_recv(void)
{
    take_frames(&A, &B);
    ini_stack_poll(&B.st, bench_rdtsc());
    ini_stack_flush(&B.st);
}

__attribute__((noinline)) void ip_rel_ack(void)
{
    take_frames(&B, &A);
    ini_stack_poll(&A.st, bench_rdtsc());
    ini_stack_flush(&A.st);
}

struct cost { uint64_t send, recv, ack; };

/* Side s's retransmissions, on its timers and on NAKs (every connection's,
 * through the transport's totals). */
static uint64_t retransmissions(const struct ip_side *s)
{
    struct ini_swp_stats t = ini_swp_totals(s->st.swp);
    return t.retx_timer + t.retx_nak;
}

/* B answers each message with one of its own, which carries the ACK. */
__attribute__((noinline)) void ip_rel_reply(int k)
{
    uint64_t now = bench_rdtsc();
    for (int i = 0; i < k; i++) {
        uint8_t *am = slots + (n_slots + B.taken % n_slots) * slot_stride + INI_SWP_MAXHDR;
        if (ini_swp_send(B.st.swp, 0, am, (uint32_t)sizeof(struct ini_am_hdr) + msg_size, NULL, now, NULL) < 0)
            break;
        B.taken++;
    }
    ini_stack_flush(&B.st);
    ini_stack_poll(&B.st, bench_rdtsc());     /* B's next turn: its SEND timers */
}

/* Ping-pong, as the seed's round-trip test: A sends one message, B takes
 * it and answers, A takes the answer (and the ACK riding on it). */
static void run_pingpong(int n, struct cost *c, uint64_t *reply)
{
    memset(c, 0, sizeof(*c));
    *reply = 0;
    for (int i = 0; i < n; i++) {
        uint64_t t0 = bench_rdtsc();
        ip_rel_send(1);
        uint64_t t1 = bench_rdtsc();
        ip_rel_recv();
        uint64_t t2 = bench_rdtsc();
        ip_rel_reply(1);
        uint64_t t3 = bench_rdtsc();
        ip_rel_ack();
        uint64_t t4 = bench_rdtsc();
        c->send += t1 - t0;
        c->recv += t2 - t1;
        *reply += t3 - t2;
        c->ack += t4 - t3;
    }
}

/* ---- lwIP UDP only ---- */

__attribute__((noinline)) void ip_udp_send(int k)
{
    ip_addr_t dst;
    ip_addr_set_ip4_u32(&dst, ip_ip[1]);
    for (int i = 0; i < k; i++) {
        /* As the transport sends (stack/swp.c transmit()). */
        struct pbuf *p;
        if (msg_size <= (uint32_t)frame_mtu - 28) {
            if (!(p = ini_netif_alloc_tx(&A.st.nf, (uint16_t)msg_size)))
                break;
            memcpy(p->payload, slots, msg_size);
        } else {
            if (!(p = pbuf_alloc(PBUF_TRANSPORT, (u16_t)msg_size, PBUF_REF)))
                break;
            p->payload = slots;
        }
        udp_sendto(A.upcb, p, &dst, 7401);
        pbuf_free(p);
    }
    ini_stack_flush(&A.st);
}

__attribute__((noinline)) void ip_udp_recv(void)
{
    take_frames(&A, &B);
}

/* ---- raw frames ---- */

__attribute__((noinline)) void ip_raw_send(int k)
{
    for (int i = 0; i < k; i++) {
        for (uint32_t off = 0; off < msg_size; off += (uint32_t)frame_mtu) {
            uint32_t chunk = msg_size - off < (uint32_t)frame_mtu ? msg_size - off : (uint32_t)frame_mtu;
            struct rte_mbuf *m = A.nwire < WIRE ? rte_pktmbuf_alloc(ip_pool) : NULL;
            if (!m)
                return;
            struct rte_ether_hdr *eth =
                (struct rte_ether_hdr *)rte_pktmbuf_append(m, (uint16_t)(RTE_ETHER_HDR_LEN + chunk));
            memcpy(&eth->dst_addr, ip_mac[1], 6);
            memcpy(&eth->src_addr, ip_mac[0], 6);
            eth->ether_type = rte_cpu_to_be_16(off + chunk < msg_size ? 0x88b6 : 0x88b5);
            memcpy(eth + 1, slots + off, chunk);
            A.wire[A.nwire++] = m;
        }
    }
}

__attribute__((noinline)) void ip_raw_recv(void)
{
    uint32_t acc = 0;
    for (int i = 0; i < A.nwire; i++) {
        struct rte_mbuf *m = A.wire[i];
        const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
        uint16_t len = (uint16_t)(m->data_len - RTE_ETHER_HDR_LEN);
        if (eth->ether_type == rte_cpu_to_be_16(0x88b5) || eth->ether_type == rte_cpu_to_be_16(0x88b6)) {
            memcpy(sink + acc, eth + 1, len);
            acc += len;
            if (eth->ether_type == rte_cpu_to_be_16(0x88b5)) {
                B.delivered++;
                acc = 0;
            }
        }
        rte_pktmbuf_free(m);
    }
    A.nwire = 0;
}

static void run_layer(const char *layer, int n, int window, struct cost *c)
{
    int half = window / 2 ? window / 2 : 1;
    int rel = !strcmp(layer, "reliable"), udp = !strcmp(layer, "udp-ip");
    uint64_t sent = 0;
    memset(c, 0, sizeof(*c));
    for (uint64_t turns = 0; sent < (uint64_t)n; turns++) {
        if (flood_k && turns > 100 * (uint64_t)n + 100000) {
            printf("  (stopped: real traffic made no progress under the flood)\n");
            break;
        }
        if (flood_k && rel && sent - A.released >= (uint64_t)window - (uint64_t)half)
            ini_stack_poll(&A.st, bench_rdtsc());     /* retransmissions, while the flood takes the rest */
        /* the seed's flood: a window, then half a window each time half
         * of it is acknowledged */
        uint64_t out = rel ? sent - A.released : 0;
        int k = out <= (uint64_t)(window - half) ? (int)(window - (int)out) : 0;
        if ((uint64_t)k > (uint64_t)n - sent)
            k = (int)((uint64_t)n - sent);
        uint64_t t0 = bench_rdtsc();
        if (k) {
            if (rel)
                k = ip_rel_send(k);
            else if (udp)
                ip_udp_send(k);
            else
                ip_raw_send(k);
        }
        uint64_t t1 = bench_rdtsc();
        if (rel)
            ip_rel_recv();
        else if (udp)
            ip_udp_recv();
        else
            ip_raw_recv();
        uint64_t t2 = bench_rdtsc();
        if (rel)
            ip_rel_ack();
        uint64_t t3 = bench_rdtsc();
        c->send += t1 - t0;
        c->recv += t2 - t1;
        c->ack += t3 - t2;
        sent += (uint64_t)k;
    }
    /* let the last ACKs out */
    for (int i = 0; i < 1000 && rel && A.released < sent; i++) {
        bench_spin_ns(10000);
        ip_rel_recv();
        ip_rel_ack();
    }
}

/* ini-bench --inproc's options; the flood's and the frames' go to the
 * file's state (flood_k, flood_stranger, frame_mtu, msg_size). */
struct inproc_opts {
    const char *layer;        /* raw, udp-ip, reliable or all */
    long n, window;
    int pingpong, mac, segment;
};

/* ini-bench --inproc's flags (usage: ini-bench --help). */
static void parse_inproc_args(int argc, char **argv, struct inproc_opts *o)
{
    static const char *const layer_names[] = { "raw", "udp-ip", "reliable", "all", NULL };
    static const char *const seg_modes[] = { "off", "on", NULL };
    long size = BENCH_HDR;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (cli_common_flag(a))
            continue;
        if (!strcmp(a, "--layer"))
            o->layer = layer_names[cli_parse_choice(a, cli_value(argc, argv, &i), layer_names)];
        else if (!strcmp(a, "--count"))
            o->n = cli_parse_long(a, cli_value(argc, argv, &i), 1, 100000000);
        else if (!strcmp(a, "--window"))
            o->window = cli_parse_long(a, cli_value(argc, argv, &i), 1, 1024);
        else if (!strcmp(a, "--pingpong"))
            o->pingpong = 1;
        else if (!strcmp(a, "--mac"))
            o->mac = 1;
        else if (!strcmp(a, "--flood"))
            flood_k = (int)cli_parse_long(a, cli_value(argc, argv, &i), 0, 1000);
        else if (!strcmp(a, "--flood-stranger"))
            flood_stranger = 1;
        else if (!strcmp(a, "--segment"))
            o->segment = cli_parse_choice(a, cli_value(argc, argv, &i), seg_modes);
        else if (!strcmp(a, "--mtu"))
            frame_mtu = (int)cli_parse_long(a, cli_value(argc, argv, &i), 576, 9000);
        else if (!strcmp(a, "--size"))
            size = cli_parse_long(a, cli_value(argc, argv, &i), BENCH_HDR, BENCH_MAX_MSG);
        else if (a[0] == '-')
            cli_bad_arg("--inproc: %s: unknown option", a);
        else
            cli_bad_arg("--inproc: %s: unexpected argument", a);
    }
    msg_size = (uint32_t)size;
}

/* The EAL, the two sides and their message slots; 0, or -1 said. */
static int inproc_setup(const struct inproc_opts *o)
{
    char prefix[64];
    snprintf(prefix, sizeof(prefix), "--file-prefix=ini-bench-ip-%d", (int)getpid());
    char *eal[] = { "ini-bench", "--no-huge", "-m", "128", "--no-pci", "--no-shconf", prefix,
                    "--no-telemetry", "--log-level=*:critical", "--lcores=0@0", NULL };
    if (rte_eal_init(10, eal) < 0) {
        cli_error("--inproc: EAL init failed");
        return -1;
    }
    /* Empty under --no-shconf and --no-telemetry: removed now, so that
     * nothing is left in /var/run/dpdk. */
    rmdir(rte_eal_get_runtime_dir());
    int window = (int)o->window;
    ip_pool = ini_stack_pool_create("ip_mbufs", 8191, ini_stack_mbuf_room(frame_mtu), 256);
    if (!ip_pool || setup_side(&A, 0, window, o->segment, o->mac) < 0 ||
        setup_side(&B, 1, window, o->segment, o->mac) < 0)
        return -1;
    /* A's window of message slots, then B's (for its answers). */
    n_slots = (uint32_t)window;
    slot_stride = (INI_SWP_MAXHDR + (uint32_t)sizeof(struct ini_am_hdr) + msg_size + 63) & ~63u;
    slots = calloc(2 * (size_t)n_slots, slot_stride);
    for (size_t i = 0; i < 2 * (size_t)n_slots * slot_stride; i++)
        slots[i] = (uint8_t)(i * 7);
    for (uint32_t i = 0; i < 2 * n_slots; i++) {
        struct ini_am_hdr h = { (uint16_t)(i >= n_slots), (uint16_t)(i < n_slots), 0, 0, msg_size, 0 };
        memcpy(slots + i * slot_stride + INI_SWP_MAXHDR, &h, sizeof(h));
    }
    return 0;
}

/* --pingpong: n round trips of the reliable layer, cycles per step. */
static void inproc_pingpong(long n)
{
    struct cost c;
    uint64_t reply;
    run_pingpong((int)n, &c, &reply);
    double k = (double)n;
    printf("in-process INI ping-pong, reliable layer: %u-byte messages, %ld round trips, TSC %.2f GHz\n",
           msg_size, n, (double)bench_tsc_hz() / 1e9);
    printf("  cycles per round trip: A sends %.0f, B takes it %.0f, B answers %.0f, A takes the answer %.0f;"
           " total %.0f (%.0f ns)\n",
           (double)c.send / k, (double)c.recv / k, (double)reply / k, (double)c.ack / k,
           (double)(c.send + c.recv + reply + c.ack) / k,
           (double)(c.send + c.recv + reply + c.ack) / k / (double)bench_tsc_hz() * 1e9);
    printf("  delivered: %llu to B, %llu to A; retransmissions %llu\n", (unsigned long long)B.delivered,
           (unsigned long long)A.delivered,
           (unsigned long long)(retransmissions(&A) + retransmissions(&B)));
}

/* The send and receive cycles per message of each layer asked for. */
static void inproc_layers(const struct inproc_opts *o)
{
    long n = o->n;
    double hz = (double)bench_tsc_hz();
    printf("in-process INI stack path: %u-byte messages, window/depth %ld, %ld messages, TSC %.2f GHz\n",
           msg_size, o->window, n, hz / 1e9);
    printf("  %-9s %14s %14s %14s   (cycles per message)\n", "layer", "send", "receive", "send+receive");
    const char *layers[3] = { "raw", "udp-ip", "reliable" };
    for (int k = 0; k < 3; k++) {
        if (strcmp(o->layer, "all") && strcmp(o->layer, layers[k]))
            continue;
        struct cost c;
        uint64_t d0 = B.delivered;
        run_layer(layers[k], (int)n, (int)o->window, &c);
        double s = (double)(c.send + c.ack) / (double)n, r = (double)c.recv / (double)n;
        printf("  %-9s %14.0f %14.0f %14.0f   delivered %llu", layers[k], s, r, s + r,
               (unsigned long long)(B.delivered - d0));
        if (k == 2)
            printf(", of which ACK processing %.0f; retransmissions %llu",
                   (double)c.ack / (double)n,
                   (unsigned long long)retransmissions(&A));
        printf("\n");
        if (flood_k)
            printf("  flood: %llu frames (%d per real frame, from %s), B: %llu datagrams evicted, %llu frames "
                   "from strangers dropped; receive cycles include the flood\n",
                   (unsigned long long)flood_frames, flood_k, flood_stranger ? "a stranger" : "A's address",
                   (unsigned long long)B.st.dg.stats.reass_evictions, (unsigned long long)B.st.nf.stats.rx_not_peer);
    }
}

int bench_inproc_main(int argc, char **argv)
{
    /* segment 0: IP fragments, as the counts in docs/ were taken */
    struct inproc_opts o = { .layer = "all", .n = 100000, .window = 16, .pingpong = 0, .mac = 0, .segment = 0 };
    parse_inproc_args(argc, argv, &o);
    if (inproc_setup(&o) < 0)
        return 1;
    if (o.pingpong)
        inproc_pingpong(o.n);
    else
        inproc_layers(&o);
    rmdir(rte_eal_get_runtime_dir());   /* empty with --no-shconf */
    return 0;
}
