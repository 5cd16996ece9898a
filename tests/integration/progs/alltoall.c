/*
 * alltoall.c - a user's program built from an installed tree only
 * (tests/integration/install.sh, deb.sh): every PE sends ROUNDS requests to
 * every other PE of the machine, each answered by a reply that carries the
 * request back; both ends check source, destination, round and payload.
 *
 *   cc alltoall.c $(pkg-config --cflags --libs ini)
 *   ini-cluster run CONFIG -- ./alltoall [ROUNDS]
 *
 * Prints "alltoall: cluster C: R requests answered, R replies checked,
 * E errors" and exits 1 if E > 0.
 */
#include <ini/ini_cn.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { H_REQUEST = 1, H_REPLY = 2, PAYLOAD = 200 };

struct msg {
    int32_t src, dst, round;
    uint8_t data[PAYLOAD];
};

struct pe_state {
    long requests, replies, errors;
};

static int rounds = 3;
static int n_pes;
static struct pe_state state[INI_MAX_PES_PER_CLUSTER];
static atomic_long total_errors;

static void fill(struct msg *m, int src, int dst, int round)
{
    m->src = src;
    m->dst = dst;
    m->round = round;
    for (int i = 0; i < PAYLOAD; i++)
        m->data[i] = (uint8_t)(src * 31 + dst * 7 + round + i);
}

static int check(const void *data, uint32_t len, int src, int dst)
{
    struct msg want;
    const struct msg *m = data;
    if (len != sizeof want || m->src != src || m->dst != dst)
        return -1;
    fill(&want, src, dst, m->round);
    return memcmp(&want, m, sizeof want) ? -1 : 0;
}

static void on_request(struct ini_pe *pe, int src_pe, const void *data, uint32_t len, void *arg)
{
    (void)arg;
    struct pe_state *s = &state[ini_pe_local(pe)];
    if (check(data, len, src_pe, ini_pe_id(pe)) < 0) {
        s->errors++;
        return;
    }
    s->requests++;
    if (ini_send(pe, src_pe, H_REPLY, data, len) < 0)
        s->errors++;
}

static void on_reply(struct ini_pe *pe, int src_pe, const void *data, uint32_t len, void *arg)
{
    (void)arg;
    struct pe_state *s = &state[ini_pe_local(pe)];
    /* The reply is our own request coming back. */
    if (check(data, len, ini_pe_id(pe), src_pe) < 0)
        s->errors++;
    else
        s->replies++;
}

static int run_pe(struct ini_pe *pe, void *arg)
{
    (void)arg;
    struct pe_state *s = &state[ini_pe_local(pe)];
    int me = ini_pe_id(pe);
    long want = (long)rounds * (n_pes - 1);
    for (int r = 0; r < rounds; r++)
        for (int dst = 0; dst < n_pes; dst++) {
            if (dst == me)
                continue;
            struct msg m;
            fill(&m, me, dst, r);
            if (ini_send(pe, dst, H_REQUEST, &m, sizeof m) < 0) {
                s->errors++;
                return 1;
            }
        }
    while (s->requests < want || s->replies < want) {
        int n = ini_wait(pe, 10 * 1000 * 1000);
        if (n < 0) {
            fprintf(stderr, "alltoall: PE %d: the INIs stopped\n", me);
            return 1;
        }
        if (n == 0) {
            fprintf(stderr, "alltoall: PE %d: no progress in 10 s (%ld/%ld requests, %ld/%ld replies)\n",
                    me, s->requests, want, s->replies, want);
            return 1;
        }
    }
    atomic_fetch_add(&total_errors, s->errors);
    return s->errors ? 1 : 0;
}

int main(int argc, char **argv)
{
    char err[512];
    if (argc > 1)
        rounds = atoi(argv[1]);
    struct ini_cn *cn = ini_cn_attach_env(err, sizeof err);
    if (!cn) {
        fprintf(stderr, "alltoall: %s\n", err);
        return 2;
    }
    n_pes = ini_cn_config(cn)->n_pes;
    ini_cn_register(cn, H_REQUEST, on_request, NULL);
    ini_cn_register(cn, H_REPLY, on_reply, NULL);
    int failed = ini_cn_run(cn, run_pe, NULL);
    long requests = 0, replies = 0;
    for (int i = 0; i < ini_cn_n_pes(cn); i++) {
        requests += state[i].requests;
        replies += state[i].replies;
    }
    printf("alltoall: cluster %d: %ld requests answered, %ld replies checked, %ld errors\n",
           ini_cn_cluster(cn), requests, replies, (long)atomic_load(&total_errors));
    ini_cn_detach(cn);
    return failed || atomic_load(&total_errors) ? 1 : 0;
}
