/*
 * bench_dpdk.c - the three layers that run over one memif link, measured
 * in the same pair of processes, one after the other:
 *
 *   raw-dpdk  Ethernet frames straight from rte_eth_tx_burst to
 *             rte_eth_rx_burst, no stack.  A message larger than the MTU
 *             is cut into MTU-byte frames by the bench itself (EtherType
 *             0x88b6 for a continued message, 0x88b5 for its last frame),
 *             so every layer moves the same bytes per frame.
 *   udp-ip    lwIP's UDP (udp_sendto, the recv callback)
 *             through our link (stack/netif_dpdk.c), IP
 *             fragmentation and reassembly included; no sliding window.
 *   reliable  the INI's transport (stack/swp.h) over the same link: what
 *             two INIs do for each other, minus the compute-node rings.
 *             The stack (stack/stack.h) is the INI's, at its defaults but
 *             for the window and segmentation a run asks for.
 *
 * Processes: the parent (which does not initialise DPDK) forks a server
 * and a client; each initialises its own EAL (own --file-prefix, pinned to
 * its core by --lcores, --no-huge --no-pci) with one memif port, the
 * server side of the link in the server.  Both busy-poll (the INI's poll
 * mode).  Between layers, and when the reliable layer changes its window,
 * the client and the server meet on a socketpair (the "phase" protocol):
 * the client sends STOP in-band, both poll for 5 ms so that every ACK is
 * out, the server reports its retransmissions, stale frames are dropped,
 * both reconfigure, and the server says ready.  The client writes its
 * results to the parent through a pipe.
 */
#include "lwip/ip4.h"
#include "lwip/udp.h"
#include "loop_clock.h"
#include "stack.h"
#include "msg.h"
#include "bench.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#define ET_LAST  0x88b5
#define ET_MORE  0x88b6
#define TXB      64
#define UDP_PORT 7401
#define MBUFS    16383

struct phase_msg {
    int32_t layer;            /* -1: quit */
    int32_t window;           /* reliable: the transport's window (frames) ... */
    int32_t depth;            /* ... and the messages the engine keeps in flight */
};
struct phase_done {
    uint64_t retx;
};

/* Everything one side owns (one per process: static). */
static struct side {
    int role;                 /* 0 client (measures), 1 server */
    int ctl;
    uint16_t port;
    struct rte_mempool *pool;
    struct ini_stack st;      /* the link, UDP/IP and the transport */
    struct udp_pcb *upcb;
    int layer;
    struct bench_eng eng;
    uint64_t now;             /* TSC at the start of the last poll (lwip_poll) */
    struct loop_clock clock;  /* when lwip_poll reads it */
    uint64_t next_lwip_timer;
    /* raw */
    struct rte_mbuf *txb[TXB];
    int ntx;
    uint8_t rx_hdr[BENCH_HDR];
    uint32_t rx_acc;
    /* reliable: the transport's window (frames), and message slots, one
     * per message the engine keeps in flight, each lent to the transport
     * until acknowledged */
    int window;
    uint8_t *slots;
    uint8_t *lent;
    uint32_t nslots, stride;
    uint32_t slot_next;       /* the next slot, 0..nslots-1 */
    uint32_t am_seq;
    uint64_t retx;            /* over all reliable phases, both sides */
    int verbose;
    int segment;              /* the transport's stack.segmentation */
    int mtu;                  /* every layer's frames: payload bytes after the Ethernet header */
    /* --split: time in receive polls that took frames, and in send calls */
    int split;
    uint64_t split_rx_ticks, split_rx_frames, split_tx_ticks, split_tx_calls;
} S;

static inline uint64_t split_begin(void)
{
    return S.split ? bench_rdtsc() : 0;
}

static inline void split_rx(uint64_t t0, uint16_t frames)
{
    if (S.split && frames) {
        S.split_rx_ticks += bench_rdtsc() - t0;
        S.split_rx_frames += frames;
    }
}

static inline void split_tx(uint64_t t0)
{
    if (S.split) {
        S.split_tx_ticks += bench_rdtsc() - t0;
        S.split_tx_calls++;
    }
}

static uint8_t src_buf[BENCH_MAX_MSG];
static const uint8_t mac_of[2][6] = { { 2, 0, 0xc6, 0x12, 0, 1 }, { 2, 0, 0xc6, 0x12, 0, 2 } };
static const uint32_t ip_of[2] = { PP_HTONL(0xc6120001), PP_HTONL(0xc6120002) };

/* ---- raw ---- */

static void raw_flush(void *ctx)
{
    int sent = 0;
    uint64_t since = bench_rdtsc(), limit = 3 * bench_tsc_hz();
    while (sent < S.ntx) {
        uint16_t k = rte_eth_tx_burst(S.port, 0, S.txb + sent, (uint16_t)(S.ntx - sent));
        sent += k;
        if (k)
            since = bench_rdtsc();
        else if (bench_rdtsc() - since > limit)
            break;            /* the peer is gone: the engine reports the stall */
    }
    if (sent < S.ntx)
        rte_pktmbuf_free_bulk(S.txb + sent, (unsigned)(S.ntx - sent));
    S.ntx = 0;
}

static int raw_send(void *ctx, const uint8_t h[BENCH_HDR], uint32_t len)
{
    uint32_t mtu = (uint32_t)S.mtu;
    int nfr = (int)((len + mtu - 1) / mtu);
    if (S.ntx + nfr > TXB)
        raw_flush(ctx);
    uint64_t t0 = split_begin();
    struct rte_mbuf *ms[TXB];
    if (rte_pktmbuf_alloc_bulk(S.pool, ms, (unsigned)nfr) != 0)
        return -1;
    memcpy(src_buf, h, BENCH_HDR);
    uint32_t off = 0;
    for (int f = 0; f < nfr; f++) {
        uint32_t chunk = len - off < mtu ? len - off : mtu;
        struct rte_ether_hdr *eth = (struct rte_ether_hdr *)rte_pktmbuf_append(ms[f], (uint16_t)(RTE_ETHER_HDR_LEN + chunk));
        memcpy(&eth->dst_addr, mac_of[1 - S.role], 6);
        memcpy(&eth->src_addr, mac_of[S.role], 6);
        eth->ether_type = rte_cpu_to_be_16(f == nfr - 1 ? ET_LAST : ET_MORE);
        memcpy(eth + 1, src_buf + off, chunk);
        off += chunk;
        S.txb[S.ntx++] = ms[f];
    }
    split_tx(t0);
    return 0;
}

static int raw_poll(void *ctx)
{
    struct rte_mbuf *pkts[INI_NETIF_BURST];
    uint64_t t0 = split_begin();
    uint16_t n = rte_eth_rx_burst(S.port, 0, pkts, INI_NETIF_BURST);
    for (uint16_t i = 0; i < n; i++) {
        struct rte_mbuf *m = pkts[i];
        const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
        uint16_t et = rte_be_to_cpu_16(eth->ether_type);
        if ((et != ET_LAST && et != ET_MORE) || m->data_len < RTE_ETHER_HDR_LEN + BENCH_HDR)
            continue;
        if (S.rx_acc == 0)
            memcpy(S.rx_hdr, eth + 1, BENCH_HDR);
        S.rx_acc += m->data_len - RTE_ETHER_HDR_LEN;
        if (et == ET_LAST) {
            bench_deliver(&S.eng, S.rx_hdr, S.rx_acc);
            S.rx_acc = 0;
        }
    }
    if (n)
        rte_pktmbuf_free_bulk(pkts, n);
    split_rx(t0, n);
    return n;
}

static const struct bench_ops raw_ops = { raw_send, raw_flush, raw_poll, NULL, 0 };

/* ---- lwIP: UDP/IP and the reliable transport share the netif ---- */

static void lwip_flush(void *ctx)
{
    ini_stack_flush(&S.st);
}

static int lwip_poll(void *ctx)
{
    struct rte_mbuf *pkts[INI_NETIF_BURST];
    uint64_t t0 = split_begin();
    /* The time before the receive burst, where inid's loop reads it, but
     * only after a turn with work and every 8 idle turns
     * (timers/loop_clock.h): the transport needs it for its timers only,
     * while inid also times each turn for its counters.  The transport's
     * sends until the next turn take it too. */
    uint64_t now = loop_clock_turn(&S.clock);
    S.now = now;
    /* The transport's timers and deferred acks first, then the receive
     * burst, in the order of inid's loop turn. */
    int work = S.layer == L_REL ? ini_stack_poll(&S.st, now) : 0;
    uint16_t n = rte_eth_rx_burst(S.port, 0, pkts, INI_NETIF_BURST);
    uint16_t frames = n;
    struct ini_rx_meta rx = { 0 };      /* no traces here */
    for (uint16_t i = 0; i < n; i++)
        ini_stack_input(&S.st, pkts[i], &rx);
    n = (uint16_t)(n + work);
    if (n)
        loop_clock_expire(&S.clock);
    if (now >= S.next_lwip_timer) {
        ini_stack_timers(&S.st);
        S.next_lwip_timer = now + bench_tsc_hz() / 10;
    }
    /* What the transport sent on its own (ACKs, NAKs, retransmissions)
     * leaves at the end of the turn, as in inid's loop. */
    ini_stack_flush(&S.st);
    split_rx(t0, frames);
    return n;
}

static int udp_send_msg(void *ctx, const uint8_t h[BENCH_HDR], uint32_t len)
{
    uint64_t t0 = split_begin();
    memcpy(src_buf, h, BENCH_HDR);
    /* As the transport sends: a single frame is copied into a transmit
     * mbuf, a longer datagram goes to lwIP by reference. */
    struct pbuf *p;
    if (len <= (uint32_t)S.mtu - 28) {
        p = ini_netif_alloc_tx(&S.st.nf, (uint16_t)len);
        if (!p)
            return -1;
        memcpy(p->payload, src_buf, len);
    } else {
        p = pbuf_alloc(PBUF_TRANSPORT, (u16_t)len, PBUF_REF);
        if (!p)
            return -1;
        p->payload = src_buf;
    }
    ip_addr_t dst;
    ip_addr_set_ip4_u32(&dst, ip_of[1 - S.role]);
    err_t e = udp_sendto(S.upcb, p, &dst, UDP_PORT);
    pbuf_free(p);
    split_tx(t0);
    return e == ERR_OK ? 0 : -1;
}

static void udp_recv_msg(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr, u16_t port)
{
    uint8_t h[BENCH_HDR] = { 0 };
    if (p->len >= BENCH_HDR)
        memcpy(h, p->payload, BENCH_HDR);
    else
        pbuf_copy_partial(p, h, BENCH_HDR, 0);
    bench_deliver(&S.eng, h, p->tot_len);
    pbuf_free(p);
}

static const struct bench_ops udp_ops = { udp_send_msg, lwip_flush, lwip_poll, NULL, 0 };

static int rel_send(void *ctx, const uint8_t h[BENCH_HDR], uint32_t len)
{
    uint64_t t0 = split_begin();
    /* The slots in turn, by a wrapping index: no division per message,
     * which the raw layer's harness does not pay either.  One still lent
     * (its message not acknowledged yet) is not written over. */
    uint32_t k = S.slot_next;
    if (S.lent[k])
        return -1;
    uint8_t *am = S.slots + (size_t)k * S.stride + INI_SWP_MAXHDR;
    struct ini_am_hdr ah = { (uint16_t)S.role, (uint16_t)(1 - S.role), 0, 0, len, S.am_seq };
    memcpy(am, &ah, sizeof(ah));
    memcpy(am + sizeof(ah), h, BENCH_HDR);
    if (ini_swp_send(S.st.swp, 1 - S.role, am, (uint32_t)sizeof(ah) + len, (void *)(uintptr_t)k, S.now, NULL) < 0)
        return -1;
    S.lent[k] = 1;
    if (++S.slot_next == S.nslots)
        S.slot_next = 0;
    S.am_seq++;
    split_tx(t0);
    return 0;
}

static int rel_deliver(void *ctx, int src_ini, struct pbuf *p, uint16_t off, struct ini_rx_meta *rx)
{
    uint8_t h[BENCH_HDR] = { 0 };
    uint32_t at = off + (uint32_t)sizeof(struct ini_am_hdr);
    if (p->len >= at + BENCH_HDR)    /* one frame: read in place, as the raw layer does */
        memcpy(h, (const uint8_t *)p->payload + at, BENCH_HDR);
    else
        pbuf_copy_partial(p, h, BENCH_HDR, (u16_t)at);
    bench_deliver(&S.eng, h, p->tot_len - off - (uint32_t)sizeof(struct ini_am_hdr));
    pbuf_free(p);
    return 0;
}

static void rel_release(void *ctx, void *cookie)
{
    S.lent[(uintptr_t)cookie] = 0;
    bench_complete(&S.eng, 1);
}

static int rel_set_window(void *ctx, int depth, uint32_t len);
static const struct bench_ops rel_ops = { rel_send, lwip_flush, lwip_poll, rel_set_window, 1 };

/* The stack over the memif port, like two INIs of two clusters: the
 * stack's defaults but for the window and segmentation asked for.  Opened
 * at start, and again for the reliable layer's window. */
static void stack_params(struct ini_stack_params *p, int window)
{
    ini_stack_params_default(p);
    p->swp.me = S.role;
    p->swp.n_inis = 2;
    p->swp.mtu = S.mtu;                 /* the frames every layer moves */
    p->swp.window = window;
    p->swp.segment = S.segment;
    p->swp.tsc_hz = bench_tsc_hz();
    for (int i = 0; i < 2; i++) {
        p->swp.ip[i] = ip_of[i];
        p->swp.connect[i] = 1;          /* two clusters of one INI each */
    }
    memcpy(p->mac, mac_of[S.role], 6);
    p->pool = S.pool;
    p->deliver = rel_deliver;
    p->release = rel_release;
}

static int open_stack(int window)
{
    struct ini_stack_params prm;
    char err[256];
    if (S.st.swp)
        ini_stack_close(&S.st);
    stack_params(&prm, window);
    if (ini_stack_open(&S.st, &prm, err, sizeof(err)) < 0) {
        fprintf(stderr, "ini-bench: %s: %s\n", S.role ? "server" : "client", err);
        return -1;
    }
    int q = ini_netif_add_txq(&S.st.nf, S.port);
    return ini_netif_add_peer(&S.st.nf, ip_of[1 - S.role], mac_of[1 - S.role], q);
}

/* The reliable layer with `window` (frames) and `depth` messages in
 * flight: the stack again, and a slot per message (at least 8: the
 * answering side's replies may wait for their acks a little). */
static int rel_configure(int window, int depth)
{
    if (open_stack(window) < 0)
        return -1;
    S.window = window;
    uint32_t stride = (INI_SWP_MAXHDR + (uint32_t)sizeof(struct ini_am_hdr) + BENCH_MAX_MSG + 63) & ~63u;
    uint32_t n = depth < 8 ? 8 : (uint32_t)depth;
    if (n > S.nslots) {
        free(S.slots);
        free(S.lent);
        S.slots = malloc((size_t)n * stride);
        S.lent = malloc(n);
        if (!S.slots || !S.lent)
            return -1;
        for (size_t i = 0; i < (size_t)n * stride; i++)
            S.slots[i] = (uint8_t)(i * 7);
    }
    memset(S.lent, 0, n);
    S.nslots = n;
    S.stride = stride;
    S.slot_next = 0;
    loop_clock_init(&S.clock, LOOP_CLOCK_EVERY);
    S.now = S.clock.now;             /* until the first poll */
    return 0;
}

/* ---- phases ---- */

static void drop_stale(void)
{
    struct rte_mbuf *pkts[INI_NETIF_BURST];
    uint16_t n;
    while ((n = rte_eth_rx_burst(S.port, 0, pkts, INI_NETIF_BURST)) > 0)
        rte_pktmbuf_free_bulk(pkts, n);
    S.rx_acc = 0;
}

static int configure(int layer, int window, int depth)
{
    drop_stale();
    const struct bench_ops *ops = layer == L_RAW ? &raw_ops : layer == L_UDP ? &udp_ops : &rel_ops;
    /* A window change inside the client's suite keeps the engine's counters. */
    if (!(S.role == 0 && S.layer == layer && S.eng.ops == ops))
        bench_eng_init(&S.eng, ops, NULL);
    S.layer = layer;
    if (layer == L_REL) {
        if (rel_configure(window, depth) < 0)
            return -1;
    }
    return 0;
}

static int phase_begin(int layer, int window, int depth)
{
    struct phase_msg m = { layer, window, depth };
    char ready;
    if (configure(layer, window, depth) < 0 || write(S.ctl, &m, sizeof(m)) != sizeof(m) ||
        bench_read_full(S.ctl, &ready, 1) < 0)
        return -1;
    return 0;
}

static uint64_t my_retx(void)
{
    struct ini_swp_stats t = ini_swp_totals(S.st.swp);
    return t.retx_timer + t.retx_nak;
}

/* --verbose: the transport's totals (every connection's counters, through
 * its accessor), the link's, lwIP's drops. */
static void debug_counters(const char *when)
{
    const struct ini_swp_stats tot = ini_swp_totals(S.st.swp), *w = &tot;
    const struct ini_netif_stats *n = &S.st.nf.stats;
    const struct ini_ip_stats ip = ini_dgram_ip_stats(&S.st.dg);
    fprintf(stderr, "    [%s %s layer %d] swp sent %llu deliv %llu retx %llu+%llu naks %llu/%llu acks bare %llu "
                    "dup %llu oow %llu wfull %llu senderr %llu crc %llu | nf rx %llu tx %llu nombuf %llu "
                    "txdrop %llu notmine %llu notip %llu | udp drop %u chk %u ip drop %u\n",
            S.role ? "server" : "client", when, S.layer, (unsigned long long)w->msgs_sent,
            (unsigned long long)w->msgs_delivered, (unsigned long long)w->retx_timer,
            (unsigned long long)w->retx_nak, (unsigned long long)w->naks_sent,
            (unsigned long long)w->naks_received, (unsigned long long)w->acks_bare,
            (unsigned long long)w->duplicates, (unsigned long long)w->out_of_window,
            (unsigned long long)w->window_full, (unsigned long long)w->send_errors,
            (unsigned long long)w->crc_errors, (unsigned long long)n->rx_frames,
            (unsigned long long)n->tx_frames, (unsigned long long)n->tx_no_mbuf,
            (unsigned long long)n->tx_dropped, (unsigned long long)n->rx_not_mine,
            (unsigned long long)n->rx_not_ip, (unsigned)ip.udp_drops, (unsigned)w->udp_checksum_errors,
            (unsigned)ip.ip_drops);
}

static int phase_end(void)
{
    struct phase_done d;
    bench_send_kind(&S.eng, BK_STOP);
    bench_drain(&S.eng, 5);
    if (bench_read_full(S.ctl, &d, sizeof(d)) < 0)
        return -1;
    if (S.verbose)
        debug_counters("phase end");
    if (S.layer == L_REL)
        S.retx += d.retx + my_retx();
    return 0;
}

/* The engine's window is messages in flight (bench.h); the transport's
 * counts frames, and a message in segments takes several: the window
 * that holds `depth` messages of len bytes, as IP fragments' window of
 * `depth` datagrams does.  A window that stays the same needs no new
 * phase (IP fragments: one window for every size). */
static int rel_set_window(void *ctx, int depth, uint32_t len)
{
    struct ini_stack_params prm;
    stack_params(&prm, S.window);
    int window = depth * (int)ini_swp_window_cost(&prm.swp, (uint32_t)sizeof(struct ini_am_hdr) + len);
    if (window == S.window && (uint32_t)depth <= S.nslots)
        return 0;
    if (phase_end() < 0 || phase_begin(L_REL, window, depth) < 0)
        return -1;
    return 0;
}

static void server_loop(void)
{
    struct phase_msg m;
    while (bench_read_full(S.ctl, &m, sizeof(m)) == 0 && m.layer >= 0) {
        if (configure(m.layer, m.window, m.depth) < 0) {
            fprintf(stderr, "ini-bench: server: cannot set up layer %d\n", m.layer);
            return;
        }
        char ready = 'r';
        if (write(S.ctl, &ready, 1) != 1)
            return;
        bench_serve(&S.eng);
        bench_drain(&S.eng, 5);
        if (S.verbose)
            debug_counters("phase end");
        struct phase_done d = { S.layer == L_REL ? my_retx() : 0 };
        if (write(S.ctl, &d, sizeof(d)) != sizeof(d))
            return;
    }
}

/* Round trips of the memif layers in turns (see layer_result.rtt_turns). */
static int rtt_in_turns(const struct bench_setup *s, struct layer_result *res)
{
    static const int order[3] = { L_RAW, L_UDP, L_REL };
    double v[3][256], ratio[3][256];      /* --runs is at most 256 */
    double rx_ns[3][256], tx_ns[3][256];  /* --split */
    int turns = s->p.runs;
    int n = s->p.count < 2000 ? s->p.count : 2000;
    int have_raw = s->layers_on[L_RAW] && res[L_RAW].ok;
    for (int t = 0; t < turns; t++) {
        for (int k = 0; k < 3; k++) {
            int layer = order[k];
            if (!s->layers_on[layer] || !res[layer].ok)
                continue;
            S.retx = 0;
            if (phase_begin(layer, s->p.window, s->p.window) < 0)
                return -1;
            S.split = s->split;
            S.split_rx_ticks = S.split_rx_frames = S.split_tx_ticks = S.split_tx_calls = 0;
            v[k][t] = bench_pingpong(&S.eng, s->p.rtt_bytes, n / 10, n);
            S.split = 0;
            double ns_per_tick = 1e9 / (double)bench_tsc_hz();
            rx_ns[k][t] = S.split_rx_frames ? (double)S.split_rx_ticks * ns_per_tick / (double)S.split_rx_frames : 0;
            tx_ns[k][t] = S.split_tx_calls ? (double)S.split_tx_ticks * ns_per_tick / (double)S.split_tx_calls : 0;
            if (phase_end() < 0 || v[k][t] < 0)
                return -1;
            res[layer].retransmissions += S.retx;
            ratio[k][t] = have_raw ? v[k][t] / v[0][t] : 0;
        }
    }
    for (int k = 0; k < 3; k++) {
        struct layer_result *r = &res[order[k]];
        if (!s->layers_on[order[k]] || !r->ok)
            continue;
        r->rtt_turns = bench_stat(v[k], turns);
        r->rtt_turns_ratio = have_raw ? bench_stat(ratio[k], turns).med : 0;
        if (s->split) {
            r->split_rx_ns = bench_stat(rx_ns[k], turns).med;
            r->split_tx_ns = bench_stat(tx_ns[k], turns).med;
        }
    }
    return 0;
}

static int client_run(const struct bench_setup *s, struct layer_result *res)
{
    static const int order[3] = { L_RAW, L_UDP, L_REL };
    for (int k = 0; k < 3; k++) {
        int layer = order[k];
        if (!s->layers_on[layer])
            continue;
        if (s->p.verbose)
            fprintf(stderr, "ini-bench: %s\n", bench_layer_names[layer]);
        S.retx = 0;
        if (phase_begin(layer, s->p.window, s->p.window) < 0)
            return -1;
        bench_run_suite(&S.eng, &s->p, &res[layer]);
        if (phase_end() < 0)
            return -1;
        res[layer].retransmissions = S.retx;
    }
    if (rtt_in_turns(s, res) < 0)
        return -1;
    struct phase_msg quit = { -1, 0, 0 };
    return write(S.ctl, &quit, sizeof(quit)) == sizeof(quit) ? 0 : -1;
}

/* ---- process set-up ---- */

static int port_up(void)
{
    struct rte_eth_conf conf;
    memset(&conf, 0, sizeof(conf));
    if (rte_eth_dev_get_port_by_name("net_memif0", &S.port) != 0)
        return -1;
    uint16_t rxd = 1024, txd = 1024;
    if (rte_eth_dev_configure(S.port, 1, 1, &conf) < 0 ||
        rte_eth_dev_adjust_nb_rx_tx_desc(S.port, &rxd, &txd) < 0 ||
        rte_eth_rx_queue_setup(S.port, 0, rxd, 0, NULL, S.pool) < 0 ||
        rte_eth_tx_queue_setup(S.port, 0, txd, 0, NULL) < 0)
        return -1;
    if (rte_eth_dev_start(S.port) < 0 && S.role == 1)
        return -1;
    /* A memif client whose server is not listening yet must be restarted. */
    for (int i = 0; i < 2000; i++) {
        struct rte_eth_link link;
        memset(&link, 0, sizeof(link));
        rte_eth_link_get_nowait(S.port, &link);
        if (link.link_status == RTE_ETH_LINK_UP)
            return 0;
        if (S.role == 0 && i % 30 == 29) {
            rte_eth_dev_stop(S.port);
            rte_eth_dev_start(S.port);
        }
        usleep(10000);
    }
    return -1;
}

static int side_main(const struct bench_setup *s, int role, int ctl, int out_fd, int tag)
{
    char a_prefix[64], a_lcores[32], a_vdev[192];
    snprintf(a_prefix, sizeof(a_prefix), "--file-prefix=ini-bench-%d-%d", tag, role);
    snprintf(a_lcores, sizeof(a_lcores), "--lcores=0@%d", s->cores[role]);
    snprintf(a_vdev, sizeof(a_vdev), "--vdev=net_memif0,role=%s,id=0,socket=ini-bench-%d,socket-abstract=yes,bsize=%u",
             role ? "server" : "client", tag, ini_stack_memif_bsize(s->mtu));
    char *argv[] = { "ini-bench", "--no-huge", "-m", "256", "--no-pci", "--no-shconf", a_prefix,
                     "--no-telemetry", "--log-level=*:critical", a_lcores, a_vdev, NULL };
    S.role = role;
    S.layer = -1;
    S.ctl = ctl;
    S.verbose = s->p.verbose;
    S.segment = s->segment;
    S.mtu = s->mtu;
    if (rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv) < 0) {
        fprintf(stderr, "ini-bench: EAL init failed: %s\n", rte_strerror(rte_errno));
        return 1;
    }
    /* Empty under --no-shconf and --no-telemetry: removed now, so that
     * nothing is left in /var/run/dpdk. */
    rmdir(rte_eal_get_runtime_dir());
    char name[32];
    snprintf(name, sizeof(name), "bench%d", role);
    S.pool = ini_stack_pool_create(name, MBUFS, ini_stack_mbuf_room(S.mtu), 256);
    if (!S.pool || port_up() < 0) {
        fprintf(stderr, "ini-bench: %s: memif port did not come up\n", role ? "server" : "client");
        return 1;
    }
    if (open_stack(s->p.window) < 0)
        return 1;
    S.upcb = udp_new();
    ip_addr_t local;
    ip_addr_set_ip4_u32(&local, ip_of[role]);
    if (!S.upcb || udp_bind(S.upcb, &local, UDP_PORT) != ERR_OK)
        return 1;
    udp_recv(S.upcb, udp_recv_msg, NULL);
    for (size_t i = 0; i < sizeof(src_buf); i++)
        src_buf[i] = (uint8_t)(i * 13 + 1);

    int rc = 0;
    if (role == 1) {
        server_loop();
    } else {
        static struct layer_result res[L_COUNT];
        rc = client_run(s, res) < 0;
        if (write(out_fd, res, sizeof(res)) != (ssize_t)sizeof(res))
            rc = 1;
    }
    /* Stopped, not closed (see ini/daemon/inid_port.c), then exit at once,
     * leaving no runtime directory behind (it is empty: --no-shconf). */
    rte_eth_dev_stop(S.port);
    rmdir(rte_eal_get_runtime_dir());
    return rc;
}

int bench_dpdk_layers(const struct bench_setup *s, struct layer_result *res)
{
    int ctl[2], out[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, ctl) < 0 || pipe(out) < 0) {
        perror("ini-bench: socketpair");
        return -1;
    }
    int tag = (int)getpid();
    bench_tsc_hz();                  /* calibrate once, inherited */
    fflush(NULL);
    pid_t srv = fork();
    if (srv == 0) {
        close(ctl[0]);
        close(out[0]);
        close(out[1]);
        _exit(side_main(s, 1, ctl[1], -1, tag));
    }
    pid_t cli = fork();
    if (cli == 0) {
        close(ctl[1]);
        close(out[0]);
        _exit(side_main(s, 0, ctl[0], out[1], tag));
    }
    close(ctl[0]);
    close(ctl[1]);
    close(out[1]);
    static struct layer_result got[L_COUNT];
    int ok = srv > 0 && cli > 0 && bench_read_full(out[0], got, sizeof(got)) == 0;
    close(out[0]);
    int st;
    if (cli > 0)
        waitpid(cli, &st, 0);
    if (!ok && srv > 0)
        kill(srv, SIGKILL);
    if (srv > 0)
        waitpid(srv, &st, 0);
    const int layers[3] = { L_RAW, L_UDP, L_REL };
    for (int k = 0; k < 3; k++) {
        int l = layers[k];
        if (!s->layers_on[l])
            continue;
        if (ok)
            res[l] = got[l];
        else
            snprintf(res[l].err, sizeof(res[l].err), "the DPDK processes failed");
    }
    return ok ? 0 : -1;
}
