/*
 * swp.c - the transport's header codec, set-up and accessors (swp.h); the
 * protocol itself is in the files swp_internal.h lists, one per concern.
 */
#include "swp_internal.h"

#include <stdlib.h>

#include "lwip/ip.h"
#include "lwip/prot/udp.h"

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
    if (h->op < INI_SWP_DATA || h->op > INI_SWP_NAK || (h->flags && h->op != INI_SWP_DATA))
        return -1;
    return 0;
}

/* ---- counters ---- */

struct ini_swp_stats ini_swp_totals(const struct ini_swp *s)
{
    struct ini_swp_stats sum = s->stats;
    for (int i = 0; i < s->n_inis; i++)
        if (s->conns[i].peer >= 0)
            ini_swp_stats_add(&sum, &s->conns[i].stats);
    return sum;
}

/* ---- set-up ---- */

int ini_swp_init(struct ini_swp *s, const struct ini_swp_params *prm, struct ini_netif *nf,
                 ini_deliver_fn deliver, ini_release_fn release, void *ctx)
{
    memset(s, 0, sizeof(*s));
    if (prm->n_inis < 1 || prm->n_inis > INI_SWP_MAX_INIS || prm->me < 0 || prm->me >= prm->n_inis ||
        (prm->seq_bits != 8 && prm->seq_bits != 16 && prm->seq_bits != 32) || prm->window < 1 ||
        (uint64_t)prm->window > (1ull << (prm->seq_bits - 1)) ||
        prm->mtu < IP_HLEN + UDP_HLEN + INI_SWP_MAXHDR + INI_SWP_TAG_LEN + (int)sizeof(struct ini_am_hdr))
        return -1;
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
    if (prm->auth && swp_mac_keys(s, prm) < 0)
        return -1;
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
    uint64_t send_ticks = prm->tsc_hz / 1000000 * (uint64_t)prm->send_timeout_us;
    uint64_t ack_ticks = prm->tsc_hz / 1000000 * (uint64_t)prm->ack_timeout_us;
    s->nak_gap = send_ticks / 4;

    int n_conns = 0;
    for (int i = 0; i < prm->n_inis; i++) {
        struct swp_conn *c = &s->conns[i];
        c->peer = -1;
        if (!prm->connect[i] || i == prm->me)
            continue;
        c->peer = i;
        ini_dgram_dst_init(&c->dst, prm->ip[i]);
        c->tx = calloc(slots, sizeof(*c->tx));
        c->rx = calloc(slots, sizeof(*c->rx));
        if (!c->tx || !c->rx)
            return -1;
        n_conns++;
    }
    /* A machine of one cluster has no connection; the lists still need a
     * record to exist. */
    uint32_t send_capacity = n_conns ? (uint32_t)n_conns * s->window : 1;
    if (timer_list_init_send(&s->send_timers, (uint32_t)prm->n_inis, send_capacity, send_ticks) < 0 ||
        timer_list_init_ack(&s->ack_timers, (uint32_t)prm->n_inis, ack_ticks) < 0)
        return -1;

    /* Every datagram goes through the INI's UDP port (stack/dgram.h:
     * header prediction, lwIP for the rest); ini_swp_input takes them. */
    return ini_dgram_open(&s->dg, nf, INI_UDP_PORT, ini_swp_input, s);
}

void ini_swp_close(struct ini_swp *s)
{
    ini_dgram_close(&s->dg);
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
    timer_list_destroy(&s->send_timers);
    timer_list_destroy(&s->ack_timers);
    swp_mac_forget(s);
}
