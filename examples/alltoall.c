/*
 * alltoall.c - every compute node (PE) sends requests to every PE of the
 * other clusters; each request's handler replies; every PE counts and
 * checks its replies.
 *
 *     ini-cluster run conf/default.cfg -- ./alltoall [ROUNDS]
 *
 * Each PE sends ROUNDS (default 50) requests to each remote PE, keeping up to
 * WINDOW of them unanswered, and serves the requests of others meanwhile.
 * A PE is done when it has all its replies *and* has answered every request
 * addressed to it: every remote PE sends it exactly ROUNDS, so it knows the
 * number in advance and needs no end-of-run message.
 *
 * A request carries (source, destination, sequence) and a pattern derived
 * from them; the reply is the request's bytes sent back.  Checked: who sent
 * it, to whom, the length, the pattern, and at the end that each remote PE
 * answered exactly ROUNDS times.  Messages between two PEs may arrive in any
 * order under the round-robin and load-aware policies, so nothing here
 * relies on order.  Each cluster process prints
 * "alltoall: cluster C: N replies, E errors" and exits 1 if E > 0.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini/ini_cn.h>

#define WINDOW 8
#define TIMEOUT_US 10000000

enum { H_REQUEST = 1, H_REPLY = 2 };

struct request {                  /* the first 8 bytes of every message */
    uint16_t src, dst;
    uint32_t seq;                 /* per (src, dst) */
};

/* Everything one PE owns.  Only its own thread touches it: its handlers
 * run on it too. */
struct pe_state {
    int id;
    int n_remote, remote[INI_MAX_PES];     /* PEs of the other clusters */
    long replies, served, errors;
    long replies_from[INI_MAX_PES];
};

static const struct ini_config *cfg;
static struct pe_state pes[INI_MAX_PES_PER_CLUSTER];   /* by local index */
static int rounds = 50;

static uint32_t size_of(uint32_t seq) { return sizeof(struct request) + (seq % 4) * 700; }

static void make(uint8_t *p, int src, int dst, uint32_t seq)
{
    struct request h = { (uint16_t)src, (uint16_t)dst, seq };
    memcpy(p, &h, sizeof h);
    for (uint32_t i = sizeof h; i < size_of(seq); i++)
        p[i] = (uint8_t)(src * 7 + dst * 13 + seq + i);
}

/* 1 if p is the request (src -> dst, any seq) it claims to be. */
static int valid(const uint8_t *p, uint32_t len, int src, int dst)
{
    struct request h;
    uint8_t want[sizeof h + 3 * 700];
    if (len < sizeof h)
        return 0;
    memcpy(&h, p, sizeof h);
    if (h.src != src || h.dst != dst || len != size_of(h.seq))
        return 0;
    make(want, src, dst, h.seq);
    return memcmp(p, want, len) == 0;
}

static void on_request(struct ini_pe *pe, int src_pe, const void *data, uint32_t len, void *arg)
{
    (void)arg;
    struct pe_state *s = &pes[ini_pe_local(pe)];
    if (!valid(data, len, src_pe, s->id)) {
        fprintf(stderr, "alltoall: PE %d: bad request from PE %d\n", s->id, src_pe);
        s->errors++;
    }
    s->served++;
    if (ini_send(pe, src_pe, H_REPLY, data, len) != 0) {   /* the reply: the same bytes */
        perror("alltoall: ini_send");
        s->errors++;
    }
}

static void on_reply(struct ini_pe *pe, int src_pe, const void *data, uint32_t len, void *arg)
{
    (void)arg;
    struct pe_state *s = &pes[ini_pe_local(pe)];
    if (!valid(data, len, s->id, src_pe)) {   /* my request, answered by the PE I sent it to */
        fprintf(stderr, "alltoall: PE %d: bad reply from PE %d\n", s->id, src_pe);
        s->errors++;
    }
    s->replies++;
    s->replies_from[src_pe]++;
}

static int pe_main(struct ini_pe *pe, void *arg)
{
    (void)arg;
    struct pe_state *s = &pes[ini_pe_local(pe)];
    long total = (long)rounds * s->n_remote;   /* to send, and to serve */
    long sent = 0;
    uint8_t buf[sizeof(struct request) + 3 * 700];

    while (s->replies < total || s->served < total) {
        if (sent < total && sent - s->replies < WINDOW) {
            int dst = s->remote[sent % s->n_remote];
            uint32_t seq = (uint32_t)(sent / s->n_remote);
            make(buf, s->id, dst, seq);
            if (ini_send(pe, dst, H_REQUEST, buf, size_of(seq)) != 0) {
                perror("alltoall: ini_send");
                return 1;
            }
            sent++;
            ini_poll(pe);                      /* serve others between sends */
            continue;
        }
        int n = ini_wait(pe, TIMEOUT_US);      /* window full, or all sent */
        if (n <= 0) {
            fprintf(stderr, "alltoall: PE %d: %s (%ld of %ld replies, %ld of %ld requests)\n", s->id,
                    n < 0 ? "the INIs stopped" : "stuck for 10 s", s->replies, total, s->served, total);
            s->errors++;
            return 1;
        }
    }
    for (int i = 0; i < s->n_remote; i++)
        if (s->replies_from[s->remote[i]] != rounds) {
            fprintf(stderr, "alltoall: PE %d: %ld replies from PE %d, expected %d\n", s->id,
                    s->replies_from[s->remote[i]], s->remote[i], rounds);
            s->errors++;
        }
    return s->errors != 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && (rounds = atoi(argv[1])) <= 0) {
        fprintf(stderr, "usage: alltoall [ROUNDS]\n");
        return 2;
    }
    char err[256];
    struct ini_cn *cn = ini_cn_attach_env(err, sizeof err);
    if (!cn) {
        fprintf(stderr, "alltoall: %s (run me under ini-cluster run)\n", err);
        return 2;
    }
    cfg = ini_cn_config(cn);
    int me = ini_cn_cluster(cn);
    /* `ini-cluster run --policy P` reaches us as INI_POLICY, which
     * ini_cn_attach_env has applied; ini_cn_set_policy would override it. */

    for (int l = 0; l < ini_cn_n_pes(cn); l++) {
        struct pe_state *s = &pes[l];
        s->id = ini_pe_id(ini_cn_pe(cn, l));
        for (int p = 0; p < cfg->n_pes; p++)
            if (cfg->pes[p].cluster != me)
                s->remote[s->n_remote++] = p;
    }
    if (ini_cn_register(cn, H_REQUEST, on_request, NULL) != 0 ||
        ini_cn_register(cn, H_REPLY, on_reply, NULL) != 0) {
        fprintf(stderr, "alltoall: cannot register the handlers\n");
        return 2;
    }
    int failed = ini_cn_run(cn, pe_main, NULL);

    long replies = 0, errors = 0, want = 0;
    for (int l = 0; l < ini_cn_n_pes(cn); l++) {
        replies += pes[l].replies;
        errors += pes[l].errors;
        want += (long)rounds * pes[l].n_remote;
    }
    if (replies != want)
        errors++;
    printf("alltoall: cluster %d: %ld replies, %ld errors\n", me, replies, errors);
    ini_cn_detach(cn);
    return failed || errors ? 1 : 0;
}
