/*
 * clocksync.c - clock offsets between INIs over their links (clocksync.h).
 *
 * A frame of port INI_CLOCK_PORT carries struct clock_msg, its integers in
 * network order; a frame of another length or magic is dropped.
 */
#include "clocksync.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>

#include "lwip/ip_addr.h"
#include "lwip/pbuf.h"
#include "lwip/udp.h"

#define CLOCK_MAGIC   0x494e4943u      /* "INIC" */
#define KIND_REQUEST  1
#define KIND_ANSWER   2

struct clock_msg {
    uint32_t magic;
    uint16_t kind, from;
    uint32_t seq, pad;
    uint64_t theirs;                   /* the answer's CLOCK_REALTIME (ns) */
};

static void send_msg(struct ini_clocksync *cs, uint32_t ip, uint16_t kind, uint32_t seq, int64_t theirs)
{
    struct pbuf *p = pbuf_alloc(PBUF_TRANSPORT, sizeof(struct clock_msg), PBUF_RAM);
    if (!p)
        return;
    struct clock_msg m = { .magic = rte_cpu_to_be_32(CLOCK_MAGIC), .kind = rte_cpu_to_be_16(kind),
                           .from = rte_cpu_to_be_16(cs->me), .seq = rte_cpu_to_be_32(seq),
                           .theirs = rte_cpu_to_be_64((uint64_t)theirs) };
    memcpy(p->payload, &m, sizeof m);
    ip_addr_t to;
    ip_addr_set_ip4_u32(&to, ip);
    udp_sendto_if(cs->pcb, p, &to, INI_CLOCK_PORT, &cs->nf->netif);
    pbuf_free(p);
}

/* An answer to the request outstanding: one sample of that peer. */
static void take_answer(struct ini_clocksync *cs, const struct clock_msg *m, int64_t t1)
{
    int k = cs->asking;
    if (k < 0 || !cs->phase || rte_be_to_cpu_32(m->seq) != cs->seq || cs->peer[k] != rte_be_to_cpu_16(m->from))
        return;                         /* late, or not what we asked */
    clock_sample(&cs->phase[k], cs->t0, (int64_t)rte_be_to_cpu_64(m->theirs), t1);
    cs->answers[k]++;
    cs->answered++;
    cs->retry_at[k] = t1 + INI_CLOCKSYNC_GAP_NS;
    cs->asking = -1;
}

/* lwIP's up-call for port INI_CLOCK_PORT: a request answered at once, an
 * answer taken. */
static void clock_recv(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr, u16_t port)
{
    struct ini_clocksync *cs = arg;
    int64_t now = clock_realtime_ns();
    struct clock_msg m;
    (void)pcb;
    if (p->tot_len == sizeof m && pbuf_copy_partial(p, &m, sizeof m, 0) == sizeof m &&
        rte_be_to_cpu_32(m.magic) == CLOCK_MAGIC && port == INI_CLOCK_PORT) {
        uint16_t kind = rte_be_to_cpu_16(m.kind);
        if (kind == KIND_REQUEST) {
            send_msg(cs, ip4_addr_get_u32(ip_2_ip4(addr)), KIND_ANSWER, rte_be_to_cpu_32(m.seq), clock_realtime_ns());
            cs->replies_sent++;
        } else if (kind == KIND_ANSWER) {
            take_answer(cs, &m, now);
        }
    }
    pbuf_free(p);
}

int ini_clocksync_open(struct ini_clocksync *cs, struct ini_netif *nf, uint16_t me, const uint32_t *ip,
                       const uint16_t *peer, int n_peers)
{
    memset(cs, 0, sizeof(*cs));
    cs->nf = nf;
    cs->me = me;
    cs->asking = -1;
    cs->n_peers = n_peers > INI_SWP_MAX_INIS ? INI_SWP_MAX_INIS : n_peers;
    memcpy(cs->ip, ip, sizeof cs->ip);
    for (int i = 0; i < cs->n_peers; i++) {
        cs->peer[i] = peer[i];
        clock_best_init(&cs->start[i]);
        clock_best_init(&cs->end[i]);
    }
    ip_addr_t local;
    ip_addr_set_ip4_u32(&local, ip[me]);
    cs->pcb = udp_new();
    if (!cs->pcb)
        return -1;
    if (udp_bind(cs->pcb, &local, INI_CLOCK_PORT) != ERR_OK) {
        udp_remove(cs->pcb);
        cs->pcb = NULL;
        return -1;
    }
    udp_recv(cs->pcb, clock_recv, cs);
    return 0;
}

void ini_clocksync_close(struct ini_clocksync *cs)
{
    if (cs->pcb)
        udp_remove(cs->pcb);
    cs->pcb = NULL;
    cs->phase = NULL;
}

void ini_clocksync_begin(struct ini_clocksync *cs, int at_end, int64_t for_ns)
{
    cs->phase = at_end ? cs->end : cs->start;
    cs->deadline_ns = clock_realtime_ns() + for_ns;
    cs->asking = -1;
    cs->next = 0;
    for (int i = 0; i < cs->n_peers; i++) {
        cs->answers[i] = 0;
        cs->retry_at[i] = 0;
    }
}

/* The next peer that still wants answers and may be asked now; -1 when
 * none may now, and *left the count still wanting answers. */
static int next_peer(struct ini_clocksync *cs, int64_t now, int *left)
{
    *left = 0;
    int pick = -1;
    for (int j = 0; j < cs->n_peers; j++) {
        int k = (cs->next + j) % cs->n_peers;
        if (cs->answers[k] >= INI_CLOCKSYNC_ROUNDS)
            continue;
        (*left)++;
        if (pick < 0 && cs->retry_at[k] <= now)
            pick = k;
    }
    return pick;
}

int ini_clocksync_turn(struct ini_clocksync *cs, int *done)
{
    *done = 1;
    if (!cs->phase)
        return 0;
    int64_t now = clock_realtime_ns();
    if (cs->asking >= 0) {
        if (now - cs->t0 < INI_CLOCKSYNC_WAIT_NS) {
            *done = 0;
            return 1;
        }
        cs->retry_at[cs->asking] = now + INI_CLOCKSYNC_RETRY_NS;   /* not up yet, or lost */
        cs->asking = -1;
    }
    int left, k = next_peer(cs, now, &left);
    if (left == 0 || now >= cs->deadline_ns) {
        cs->phase = NULL;
        return 0;
    }
    *done = 0;
    if (k < 0)
        return 0;
    cs->asking = k;
    cs->next = (k + 1) % cs->n_peers;
    cs->seq++;
    cs->requests++;
    cs->t0 = clock_realtime_ns();
    send_msg(cs, cs->ip[cs->peer[k]], KIND_REQUEST, cs->seq, 0);
    return 1;
}

int ini_clocksync_write(const struct ini_clocksync *cs, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(CLOCK_INI_FILE_HEADER, f);
    for (int i = 0; i < cs->n_peers; i++) {
        const struct clock_best *s = &cs->start[i], *e = &cs->end[i];
        if (s->rtt_ns < 0 && e->rtt_ns < 0)
            continue;                   /* never answered */
        fprintf(f, "%u\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\n", cs->peer[i], (long long)s->offset_ns,
                (long long)s->rtt_ns, (long long)s->at_ns, (long long)e->offset_ns, (long long)e->rtt_ns,
                (long long)e->at_ns);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        if (!errno)
            errno = EIO;
        return -1;
    }
    return 0;
}
