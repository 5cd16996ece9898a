/*
 * swp.c - the transport's header codec, set-up and accessors (swp.h); the
 * protocol itself is in the files swp_internal.h lists, one per concern.
 */
#include "swp_internal.h"

#include <stdlib.h>

#include "lwip/ip.h"
#include "lwip/prot/udp.h"

#include <rte_cycles.h>

/* ---- header codec ---- */

int ini_swp_hdr_len(int seq_bits)
{
    return 2 + 2 * (seq_bits / 8);
}

static inline uint32_t get_seq(const uint8_t *p, int seq_bits)
{
    if (seq_bits == 32) {
        uint32_t v;
        memcpy(&v, p, 4);
        return __builtin_bswap32(v);
    }
    if (seq_bits == 16) {
        uint16_t x;
        memcpy(&x, p, 2);
        return __builtin_bswap16(x);
    }
    return *p;
}

void ini_swp_hdr_write(uint8_t *dst, const struct ini_swp_hdr *h, int seq_bits)
{
    hdr_write(dst, h, seq_bits);
}

int ini_swp_hdr_read(const uint8_t *src, uint32_t len, int seq_bits, struct ini_swp_hdr *h)
{
    int w = seq_bits / 8;
    if (len < (uint32_t)ini_swp_hdr_len(seq_bits))
        return -1;
    h->op = src[0] & INI_SWP_OP_MASK;
    h->flags = src[0] & (uint8_t)~INI_SWP_OP_MASK;
    h->conn = src[1];
    h->seq = get_seq(src + 2, seq_bits);
    h->ack = get_seq(src + 2 + w, seq_bits);
    if (h->op < INI_SWP_DATA || h->op > INI_SWP_SYNC ||
        (h->flags && h->op != INI_SWP_DATA && !(h->op == INI_SWP_SYNC && h->flags == INI_SWP_F_REPLY)))
        return -1;
    return 0;
}

/* ---- read-only accessors (swp.h) ---- */

#define RELAXED(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/* The counters of st added into sum, each loaded once (relaxed). */
static void stats_add_relaxed(struct ini_swp_stats *sum, const struct ini_swp_stats *st)
{
#define INI_SWP_ADD_RELAXED(name) sum->name += RELAXED(st->name);
    INI_SWP_COUNTERS(INI_SWP_ADD_RELAXED)
#undef INI_SWP_ADD_RELAXED
}

struct ini_swp_stats ini_swp_totals(const struct ini_swp *s)
{
    struct ini_swp_stats sum = { 0 };
    stats_add_relaxed(&sum, &s->stats);
    for (int i = 0; i < s->n_inis; i++)
        if (s->conns[i].peer >= 0)
            stats_add_relaxed(&sum, &s->conns[i].stats);
    return sum;
}

int ini_swp_conn(const struct ini_swp *s, int peer, struct ini_swp_conn_info *ci)
{
    if (peer < 0 || peer >= s->n_inis || s->conns[peer].peer < 0)
        return -1;
    const struct swp_conn *c = &s->conns[peer];
    ci->peer = peer;
    ci->snd_una = RELAXED(c->snd_una);
    ci->snd_nxt = RELAXED(c->snd_nxt);
    ci->in_flight = dist(s, ci->snd_una, ci->snd_nxt);
    ci->rcv_nxt = RELAXED(c->rcv_nxt);
    ci->ack_sent = RELAXED(c->ack_sent);
    /* The timer lists are read only through the connection's head
     * pointer's being NULL or not: no pointer the loop changes is
     * followed. */
    ci->ack_timer = RELAXED(s->ack_timers.conns[peer].head) != NULL;
    ci->delivery_blocked = RELAXED(c->delivery_blocked);
    ci->listed = RELAXED(c->later_listed);
    ci->delivered = RELAXED(c->dc->delivered);
    ci->next_seq = RELAXED(c->dc->next_seq);
    ci->logged = RELAXED(c->dc->tail) - RELAXED(c->dc->head);
    ci->unsynced = RELAXED(c->unsynced);
    ci->replaying = RELAXED(c->replaying);
    ci->cwnd = RELAXED(c->cwnd);
    ci->grant = RELAXED(c->grant);
    ci->srtt_ticks = RELAXED(c->srtt);
    ci->rx_srtt_ticks = RELAXED(c->rx_srtt);
    ci->quiet = RELAXED(c->quiet);
    ci->stats = &c->stats;
    return 0;
}

uint32_t ini_swp_window(const struct ini_swp *s)
{
    return s->window;
}

uint32_t ini_swp_segment_bytes(const struct ini_swp *s)
{
    return s->segment ? s->seg_max : 0;
}

uint32_t ini_swp_window_cost(const struct ini_swp_params *p, uint32_t am_len)
{
    uint32_t frame_max = (uint32_t)(p->mtu - IP_HLEN - UDP_HLEN);
    uint32_t data_hdr = (uint32_t)ini_swp_hdr_len(p->seq_bits) + (p->auth ? INI_SWP_TAG_LEN : 0) + 4;
    if (!p->segment || am_len + data_hdr <= frame_max)
        return 1;
    return (am_len + frame_max - data_hdr - 1) / (frame_max - data_hdr);
}

uint32_t ini_swp_send_timers(const struct ini_swp *s)
{
    return RELAXED(s->send_timers.in_use);
}

/* ---- set-up ---- */

void ini_swp_params_default(struct ini_swp_params *p)
{
    struct ini_swp_defaults d = ini_swp_defaults();
    *p = (struct ini_swp_params){
        .mtu = d.mtu, .window = d.window, .seq_bits = d.seq_bits, .send_timeout_us = d.send_timeout_us,
        .ack_timeout_us = d.ack_timeout_us, .nak = d.nak, .segment = d.segment,
        .grant_start = INI_SWP_GRANT_START,
    };
}

static int params_ok(const struct ini_swp_params *prm)
{
    return prm->n_inis >= 1 && prm->n_inis <= INI_SWP_MAX_INIS && prm->me >= 0 && prm->me < prm->n_inis &&
           (prm->seq_bits == 8 || prm->seq_bits == 16 || prm->seq_bits == 32) && prm->window >= 1 &&
           (uint64_t)prm->window <= (1ull << (prm->seq_bits - 1)) && prm->send_timeout_us > 0 &&
           prm->ack_timeout_us > 0 &&
           prm->mtu >= IP_HLEN + UDP_HLEN + INI_SWP_MAXHDR + INI_SWP_TAG_LEN + (int)sizeof(struct ini_am_hdr);
}

/* Every connection's slots (a power of two of them, at least a window:
 * swp_internal.h tx_slot) and the timer lists. */
static int alloc_conns(struct ini_swp *s, const struct ini_swp_params *prm, uint64_t tsc_hz)
{
    uint32_t slots = s->slot_mask + 1;
    int n_conns = 0;
    for (int i = 0; i < prm->n_inis; i++) {
        struct swp_conn *c = &s->conns[i];
        c->peer = -1;
        if (!prm->connect[i] || i == prm->me)
            continue;
        c->peer = i;
        c->cwnd = s->window;        /* the fixed window's speed until a loss ... */
        c->grant = c->grant_sent =
            prm->grant_start <= 0 || (uint32_t)prm->grant_start > s->window ? s->window : (uint32_t)prm->grant_start;
        set_limit(c);               /* ... once the receiver grants it */
        ini_dgram_dst_init(&c->dst, prm->ip[i]);
        c->tx = calloc(slots, sizeof(*c->tx));
        c->rx = calloc(slots, sizeof(*c->rx));
        if (!c->tx || !c->rx)
            return -1;
        n_conns++;
    }
    uint64_t send_ticks = tsc_hz / 1000000 * (uint64_t)prm->send_timeout_us;
    uint64_t ack_ticks = tsc_hz / 1000000 * (uint64_t)prm->ack_timeout_us;
    s->nak_gap = send_ticks / 4;
    s->rx_budget = INI_SWP_RX_BUDGET_WINDOWS * s->window;
    s->active_span = s->nak_gap;    /* a peer that sent within the last probe interval sends now */
    /* With NAKs, a SEND timer sends a probe, not the frame (swp.h): it
     * costs a header, so it may go sooner than a retransmission would,
     * after the least time between two NAKs. */
    uint64_t send_expiry = s->use_nak && s->nak_gap ? s->nak_gap : send_ticks;
    /* A machine of one cluster has no connection; the lists still need a
     * record to exist.  With NAKs one SEND timer per connection (the
     * probe's, swp_window.c), else one per frame in flight. */
    uint32_t send_capacity = n_conns ? (uint32_t)n_conns * s->window : 1;
    int sent = s->use_nak ? timer_list_init_ack(&s->send_timers, (uint32_t)prm->n_inis, send_expiry)
                          : timer_list_init_send(&s->send_timers, (uint32_t)prm->n_inis, send_capacity, send_expiry);
    if (sent < 0 ||
        timer_list_init_ack(&s->ack_timers, (uint32_t)prm->n_inis, ack_ticks) < 0)
        return -1;
    return 0;
}

struct ini_swp *ini_swp_open(const struct ini_swp_params *prm, struct ini_dgram *dg, struct ini_netif *nf,
                             ini_deliver_fn deliver, ini_release_fn release, void *ctx)
{
    if (!params_ok(prm))
        return NULL;
    struct ini_swp *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->me = prm->me;
    s->n_inis = prm->n_inis;
    s->frame_max = (uint32_t)(prm->mtu - IP_HLEN - UDP_HLEN);
    s->seq_bits = prm->seq_bits;
    s->hdr_len = ini_swp_hdr_len(s->seq_bits);
    s->tag_len = prm->auth ? INI_SWP_TAG_LEN : 0;
    s->crc_off = s->hdr_len + s->tag_len;
    s->data_hdr_len = s->crc_off + 4;
    s->segment = prm->segment;
    s->seg_max = s->frame_max - (uint32_t)s->data_hdr_len;
    s->seq_mask = s->seq_bits == 32 ? UINT32_MAX : (1u << s->seq_bits) - 1;
    s->window = (uint32_t)prm->window;
    uint32_t slots = 1;
    while (slots < s->window)
        slots <<= 1;
    s->slot_mask = slots - 1;
    s->use_nak = prm->nak;
    s->deliver = deliver;
    s->release = release;
    s->ctx = ctx;
    s->dg = dg;
    /* Every datagram goes through the INI's UDP port (stack/dgram.h:
     * header prediction, lwIP for the rest); ini_swp_input takes them. */
    if ((prm->auth && swp_mac_keys(s, prm) < 0) ||
        alloc_conns(s, prm, prm->tsc_hz ? prm->tsc_hz : rte_get_tsc_hz()) < 0 || swp_durable_open(s, prm) < 0 ||
        ini_dgram_open(dg, nf, INI_UDP_PORT, ini_swp_input, s) < 0) {
        ini_swp_close(s);
        return NULL;
    }
    if (s->tag_len)
        ini_dgram_no_checksum(dg);  /* the MAC covers what the UDP checksum would */
    return s;
}

void ini_swp_close(struct ini_swp *s)
{
    if (!s)
        return;
    ini_dgram_close(s->dg);
    for (int i = 0; i < s->n_inis; i++) {
        struct swp_conn *c = &s->conns[i];
        if (c->rx)
            for (uint32_t k = 0; k <= s->slot_mask; k++)
                if (c->rx[k].p)
                    pbuf_free(c->rx[k].p);
        if (c->asm_head)
            pbuf_free(c->asm_head);
        c->asm_head = NULL;
        free(c->tx);
        free(c->rx);
        c->tx = NULL;
        c->rx = NULL;
    }
    swp_durable_close(s);
    timer_list_destroy(&s->send_timers);     /* safe on a list never set up */
    timer_list_destroy(&s->ack_timers);
    swp_mac_forget(s);
    free(s);
}
