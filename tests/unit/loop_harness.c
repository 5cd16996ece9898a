/*
 * loop_harness.c - two INIs joined by a scripted wire (see loop_harness.h).
 */
#include "loop_harness.h"
#include "ip_frames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "lwip/memp.h"
#include "lwip/stats.h"
#include "lwip/sys.h"
#include "msg.h"
#include "stack_config.h"

struct ini_config loop_cfg;
struct loop_side loop_a, loop_b;
uint64_t loop_now = 1;
int loop_segmentation;
int loop_grant_start;
static struct rte_mempool *pool;

/* Frames on the wire wait in the receiver's inbox until the sender's
 * flush is over (loop_pump): as over a real port, one side's receive path
 * never runs inside the other side's transmit (lwIP is not reentrant, and
 * the transport flushes ACKs as it sends them). */
#define LOOP_INBOX 8192
static struct rte_mbuf *inbox[2][LOOP_INBOX];
static int n_inbox[2];

static void deliver_frame(struct loop_side *to, struct rte_mbuf *m)
{
    if (n_inbox[to->id] == LOOP_INBOX) {
        rte_pktmbuf_free(m);            /* a full wire loses the frame */
        return;
    }
    inbox[to->id][n_inbox[to->id]++] = m;
}

/* Frames wait for a side that is awake. */
static int inbox_ready(int id)
{
    return n_inbox[id] && !(id ? &loop_b : &loop_a)->asleep;
}

void loop_pump(void)
{
    static struct rte_mbuf *batch[LOOP_INBOX];
    while (inbox_ready(0) || inbox_ready(1)) {
        for (int id = 0; id < 2; id++) {
            if (!inbox_ready(id))
                continue;
            /* Take the inbox first: input may put frames on the wire. */
            int n = n_inbox[id];
            memcpy(batch, inbox[id], (size_t)n * sizeof(*batch));
            n_inbox[id] = 0;
            struct ini_rx_meta rx = { 0 };
            for (int i = 0; i < n; i++)
                ini_stack_input(&(id ? &loop_b : &loop_a)->st, batch[i], &rx);
        }
    }
}

int loop_flush(struct loop_side *s)
{
    int waiting = ini_stack_flush(&s->st);
    loop_pump();
    return waiting;
}

static uint16_t wire_xmit(struct ini_netif *nf, struct ini_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
    struct loop_side *from = nf->xmit_ctx, *to = from->other;
    for (uint16_t i = 0; i < n; i++) {
        struct rte_mbuf *m = pkts[i];
        enum wire_fate fate = WIRE_PASS;
        if (from->script)
            fate = from->script(from, from->frames_out, rte_pktmbuf_mtod(m, uint8_t *), m->data_len);
        from->frames_out++;
        switch (fate) {
        case WIRE_DROP:
            rte_pktmbuf_free(m);
            break;
        case WIRE_HOLD:
            if (from->n_held < 64) {
                from->held[from->n_held++] = m;
                break;
            }
            deliver_frame(to, m);
            break;
        case WIRE_DUP: {
            struct rte_mbuf *c = rte_pktmbuf_copy(m, pool, 0, UINT32_MAX);
            deliver_frame(to, m);
            if (c)
                deliver_frame(to, c);
            break;
        }
        case WIRE_CORRUPT:
            rte_pktmbuf_mtod(m, uint8_t *)[m->data_len - 1] ^= 0x04;
            deliver_frame(to, m);
            break;
        default:
            deliver_frame(to, m);
        }
    }
    return n;
}

void loop_release_held(struct loop_side *from)
{
    for (int i = 0; i < from->n_held; i++)
        deliver_frame(from->other, from->held[i]);
    from->n_held = 0;
    loop_pump();
}

static int deliver(void *ctx, int src_ini, struct pbuf *p, uint16_t off, struct ini_rx_meta *rx)
{
    struct loop_side *s = ctx;
    if (s->refuse)
        return -1;
    uint32_t len = p->tot_len - off;
    s->last_len = pbuf_copy_partial(p, s->last, (u16_t)len, off);
    if (s->intent) {                /* "published" once n_got counts it */
        s->intent->where = 0;
        s->intent->mark = s->n_got + 1;
        s->intent->armed = 1;
    }
    if (s->n_got < LOOP_MAX_MSGS) {
        uint32_t tag = 0;
        if (len >= 20)
            memcpy(&tag, s->last + 16, 4);
        s->got_len[s->n_got] = len;
        s->got_tag[s->n_got] = tag;
    }
    s->n_got++;
    pbuf_free(p);
    return 0;
}

static void release(void *ctx, void *cookie)
{
    ((struct loop_side *)ctx)->released++;
}

/* lwIP's clock (NO_SYS): the fake TSC, so that a test ages reassembly out
 * by advancing loop_now (stack/lwip_port.c is not linked into the tests). */
u32_t sys_now(void)
{
    return (u32_t)(loop_now / (LOOP_HZ / 1000));
}

int loop_global_init(const char *name)
{
    char prefix[96];
    snprintf(prefix, sizeof(prefix), "--file-prefix=%s_%d", name, (int)getpid());
    char *argv[] = { (char *)name, "--no-huge", "-m", "256", "--no-pci", "--no-shconf", prefix,
                     "--no-telemetry", "--log-level=*:error", "--lcores=0@0", NULL };
    if (rte_eal_init(10, argv) < 0) {
        fprintf(stderr, "%s: EAL init failed\n", name);
        return -1;
    }
    /* Empty under --no-shconf and --no-telemetry: removed now, so that
     * nothing is left in /var/run/dpdk. */
    rmdir(rte_eal_get_runtime_dir());
    pool = ini_stack_pool_create("loop_mbufs", 16383, ini_stack_mbuf_room(1500), 0);
    return pool ? 0 : -1;
}

struct rte_mbuf *loop_frame(const void *bytes, uint16_t len)
{
    struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
    if (!m)
        return NULL;
    void *d = rte_pktmbuf_append(m, len);
    if (!d) {
        rte_pktmbuf_free(m);
        return NULL;
    }
    memcpy(d, bytes, len);
    return m;
}

uint16_t loop_ip_frame(uint8_t *buf, const struct loop_side *from, uint16_t ip_id, uint16_t frag, uint8_t proto,
                       const void *payload, uint16_t len)
{
    const struct ini_node_cfg *src = &loop_cfg.inis[from->id], *dst = &loop_cfg.inis[from->other->id];
    memcpy(buf, dst->mac, 6);
    memcpy(buf + 6, src->mac, 6);
    buf[12] = 0x08;
    buf[13] = 0x00;
    uint8_t *ip = buf + 14;
    test_ipv4_header(ip, src->ip, dst->ip, ip_id, frag, proto, len);
    memcpy(ip + 20, payload, len);
    return (uint16_t)(14 + 20 + len);
}

unsigned loop_mbufs_in_use(void)
{
    ini_netif_return_mbufs(&loop_a.st.nf);  /* mbufs held for bulk transfers */
    ini_netif_return_mbufs(&loop_b.st.nf);
    return rte_mempool_in_use_count(pool);
}

struct ini_swp_conn_info loop_conn(const struct loop_side *s)
{
    struct ini_swp_conn_info ci;
    memset(&ci, 0, sizeof(ci));
    ini_swp_conn(s->st.swp, s->other->id, &ci);
    return ci;
}

static void make_ini(int id, int cluster, uint32_t ip)
{
    struct ini_node_cfg *n = &loop_cfg.inis[id];
    n->id = id;
    n->cluster = cluster;
    n->ip = ip;
    uint8_t mac[6] = { 2, 0, 0xc6, 0x12, 0, (uint8_t)(id + 1) };
    memcpy(n->mac, mac, 6);
}

/* Side s's stack, from loop_cfg (key NULL: no MAC), over the harness's
 * pool; its link has one port, the other side its only (static) peer. */
static void setup_side(struct loop_side *s, const uint8_t *key, const uint8_t *epoch)
{
    struct ini_stack_params prm;
    char err[256];
    ini_stack_params_from_config(&prm, &loop_cfg, s->id, LOOP_HZ);
    prm.pool = pool;
    /* The scripted tests count frames from a full window at once; the
     * credit's small start has its own tests (test_swp.c, "credit"). */
    prm.swp.grant_start = loop_grant_start;
    prm.deliver = deliver;
    prm.release = release;
    prm.ctx = s;
    if (key) {
        prm.swp.auth = 1;
        memcpy(prm.swp.key, key, INI_SWP_KEY_LEN);
        memcpy(prm.swp.epoch, epoch, INI_SWP_EPOCH_LEN);
    }
    if (ini_stack_open(&s->st, &prm, err, sizeof(err)) < 0) {
        fprintf(stderr, "loop_harness: INI %d: %s\n", s->id, err);
        abort();
    }
    s->st.nf.xmit = wire_xmit;
    s->st.nf.xmit_ctx = s;
    int q = ini_netif_add_txq(&s->st.nf, 0);
    ini_netif_add_peer(&s->st.nf, loop_cfg.inis[1 - s->id].ip, loop_cfg.inis[1 - s->id].mac, q);
}

static void new_side(struct loop_side *s, struct loop_side *other, int id, const uint8_t *key,
                     const uint8_t *epoch)
{
    memset(s, 0, sizeof(*s));
    s->id = id;
    s->other = other;
    if (key) {
        s->keyed = 1;
        memcpy(s->key, key, INI_SWP_KEY_LEN);
        memcpy(s->epoch, epoch, INI_SWP_EPOCH_LEN);
    }
    setup_side(s, key, epoch);
}

static void setup(int window, int seq_bits, int nak, const uint8_t *key, const uint8_t *epoch_a,
                  const uint8_t *epoch_b)
{
    memset(&loop_cfg, 0, sizeof(loop_cfg));
    loop_cfg.n_inis = 2;
    loop_cfg.n_clusters = 2;
    loop_cfg.stack.seq_bits = seq_bits;
    loop_cfg.stack.window = window;
    loop_cfg.stack.mtu = 1500;
    loop_cfg.stack.nak = nak;
    loop_cfg.stack.send_timeout_us = 2000;
    loop_cfg.stack.ack_timeout_us = 200;
    loop_cfg.stack.max_message = 65000;
    loop_cfg.stack.segmentation = loop_segmentation;
    make_ini(0, 0, PP_HTONL(0xc6120001));   /* 198.18.0.1 */
    make_ini(1, 1, PP_HTONL(0xc6120002));   /* 198.18.0.2 */
    new_side(&loop_a, &loop_b, 0, key, epoch_a);
    new_side(&loop_b, &loop_a, 1, key, epoch_b);
}

void loop_setup(int window, int seq_bits, int nak)
{
    setup(window, seq_bits, nak, NULL, NULL, NULL);
}

void loop_setup_keyed(int window, int seq_bits, int nak, const uint8_t key[INI_SWP_KEY_LEN],
                      const uint8_t epoch_a[INI_SWP_EPOCH_LEN], const uint8_t epoch_b[INI_SWP_EPOCH_LEN])
{
    setup(window, seq_bits, nak, key, epoch_a, epoch_b);
}

/* Closes both sides: held frames freed, stacks closed (what they queued
 * and held freed, their partial datagrams given up, their mbufs back). */
static void close_sides(struct loop_side *const sides[2])
{
    for (int i = 0; i < 2; i++) {
        struct loop_side *s = sides[i];
        for (int k = 0; k < s->n_held; k++)
            rte_pktmbuf_free(s->held[k]);
        s->n_held = 0;
        ini_stack_close(&s->st);
    }
}

/* Drops what waits in the inboxes: the next test starts with an empty
 * wire. */
static void empty_wire(void)
{
    for (int id = 0; id < 2; id++) {
        rte_pktmbuf_free_bulk(inbox[id], (unsigned)n_inbox[id]);
        n_inbox[id] = 0;
    }
}

/* lwIP's pools, by name (its memp_std.h list, as lwIP's memp.h builds
 * its enum from it). */
static const char *const memp_names[MEMP_MAX] = {
#define LWIP_MEMPOOL(name, num, size, desc) #name,
#include "lwip/priv/memp_std.h"
};

/* The buffers in use with both sides closed: mbufs, and the elements of
 * every lwIP pool but its timeouts (lwIP's own timers, always there). */
static unsigned leaks(void)
{
    unsigned n = rte_mempool_in_use_count(pool);
    if (n)
        fprintf(stderr, "loop_harness: %u mbufs not back in the pool\n", n);
    for (int i = 0; i < MEMP_MAX; i++) {
        if (i == MEMP_SYS_TIMEOUT || !lwip_stats.memp[i]->used)
            continue;
        fprintf(stderr, "loop_harness: lwIP pool %s: %u in use\n", memp_names[i],
                (unsigned)lwip_stats.memp[i]->used);
        n += lwip_stats.memp[i]->used;
    }
    return n;
}

unsigned loop_teardown(void)
{
    struct loop_side *const sides[2] = { &loop_a, &loop_b };
    close_sides(sides);
    empty_wire();
    for (int i = 0; i < 2; i++) {
        free(sides[i]->region);
        sides[i]->region = NULL;
        sides[i]->intent = NULL;
    }
    return leaks();
}

void loop_reset_transport(const uint8_t *key, const uint8_t *epoch_a, const uint8_t *epoch_b)
{
    struct loop_side *const sides[2] = { &loop_a, &loop_b };
    close_sides(sides);
    empty_wire();
    for (int i = 0; i < 2; i++) {
        struct loop_side *s = sides[i];
        setup_side(s, key, i ? epoch_b : epoch_a);     /* hosts learned by ARP forgotten */
        s->n_got = 0;
        s->released = 0;
        s->last_len = 0;
    }
}

/* The sent messages' buffers: messages stay borrowed until acknowledged,
 * so each side rotates over as many as a window can hold. */
static uint8_t bufs[2][64][INI_SWP_MAXHDR + 70000];

const uint8_t *loop_base(void)
{
    return &bufs[0][0][0];
}

static int published(void *ctx, uint32_t where, uint64_t mark)
{
    return where == 0 && ((struct loop_side *)ctx)->n_got >= mark;
}

void loop_durable(void)
{
    struct loop_side *const sides[2] = { &loop_a, &loop_b };
    struct ini_swp_params prm;
    for (int i = 0; i < 2; i++) {
        struct loop_side *s = sides[i];
        char err[256];
        ini_swp_params_default(&prm);
        prm.n_inis = loop_cfg.n_inis;
        prm.window = loop_cfg.stack.window;
        free(s->region);
        s->region_bytes = ini_swp_durable_bytes(&prm);
        s->region = calloc(1, s->region_bytes);
        if (!s->region || ini_swp_durable_attach(s->st.swp, s->region, s->region_bytes, loop_base(), 0, published,
                                                 err, sizeof err) < 0) {
            fprintf(stderr, "loop_harness: durable region: %s\n", err);
            abort();
        }
        s->intent = ini_swp_intent(s->st.swp);
    }
}

/* Keeps every logged message, with its cookie (swp.h ini_swp_logged_fn). */
static int keep_logged(void *ctx, int peer, uint64_t off, void **cookie)
{
    return 1;
}

int loop_restart(struct loop_side *s, char *err, size_t errlen)
{
    for (int k = 0; k < s->n_held; k++)
        rte_pktmbuf_free(s->held[k]);
    s->n_held = 0;
    ini_stack_close(&s->st);
    setup_side(s, s->keyed ? s->key : NULL, s->epoch);
    s->intent = NULL;
    if (ini_swp_durable_attach(s->st.swp, s->region, s->region_bytes, loop_base(), 1, published, err, errlen) < 0)
        return -1;
    ini_swp_durable_logged(s->st.swp, keep_logged, s);
    s->intent = ini_swp_intent(s->st.swp);
    return 0;
}

const char *loop_check_delivered(uint32_t n)
{
    static char why[128];
    if (loop_b.n_got != n) {
        snprintf(why, sizeof why, "b got %u messages, expected %u", loop_b.n_got, n);
        return why;
    }
    for (uint32_t i = 0; i < n; i++)
        if (loop_b.got_tag[i] != i) {
            snprintf(why, sizeof why, "b's message %u is %u", i, loop_b.got_tag[i]);
            return why;
        }
    struct ini_swp_conn_info ci = loop_conn(&loop_a);
    if (loop_a.released != n || ci.snd_una != ci.snd_nxt) {
        snprintf(why, sizeof why, "a released %u of %u, %u still in flight", loop_a.released, n, ci.in_flight);
        return why;
    }
    return NULL;
}

int loop_send(struct loop_side *s, uint32_t tag, uint32_t len)
{
    /* The next of 64 buffers, taken only when the send is: a refused
     * send must not overwrite a message still unacknowledged (the
     * transport retransmits from the buffer it borrowed). */
    static int next[2];
    uint8_t *am = bufs[s->id][next[s->id] % 64] + INI_SWP_MAXHDR;
    struct ini_am_hdr h = { 0, 1, 0, 0, len - 16, 0 };
    memcpy(am, &h, sizeof(h));
    for (uint32_t i = 16; i < len; i++)
        am[i] = (uint8_t)(i * 13 + tag);
    if (len >= 20)
        memcpy(am + 16, &tag, 4);
    int rc = ini_swp_send(s->st.swp, s->other->id, am, len, NULL, loop_now, NULL);
    if (rc == 0)
        next[s->id]++;
    loop_flush(s);
    return rc;
}

void loop_run(uint64_t step_ns, int rounds)
{
    for (int r = 0; r < rounds; r++) {
        loop_now += step_ns;
        if (!loop_a.asleep) {
            ini_stack_poll(&loop_a.st, loop_now);
            loop_flush(&loop_a);
        }
        if (!loop_b.asleep) {
            ini_stack_poll(&loop_b.st, loop_now);
            loop_flush(&loop_b);
        }
        ini_stack_timers(&loop_a.st);       /* one lwIP for both sides */
    }
}
