/*
 * pingpong.c - the smallest complete program on the compute-node API.
 *
 * Run it under the launcher, which starts one copy of it per cluster:
 *
 *     ini-cluster run conf/default.cfg -- ./pingpong
 *
 * The first compute node (PE) of cluster 0 sends ROUNDS "ping" messages, one
 * at a time, to the first PE of cluster 1; that PE's handler answers each one
 * with a "pong" carrying the same bytes.  Both sides check every payload.
 * Each cluster process prints one line, "pingpong: cluster C: ... E errors",
 * and exits 1 if E > 0.
 *
 * The steps every program takes:
 *   1. ini_cn_attach_env   attach to this process's cluster (the launcher
 *                          put its name in the environment: INI_CONFIG,
 *                          INI_CLUSTER, INI_SEGMENT, ...)
 *   2. ini_cn_register     one handler per message type, before any thread
 *   3. ini_cn_run          one thread per PE of the cluster runs pe_main
 *   4. ini_send / ini_wait a PE sends; handlers run on the receiving PE's
 *                          thread, inside its ini_poll or ini_wait
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <ini/ini_cn.h>

#define ROUNDS 200
#define MAX_PAYLOAD 20000
#define TIMEOUT_US 10000000          /* give up after 10 s without a pong */

enum { H_PING = 1, H_PONG = 2 };    /* handler ids: any number < INI_MAX_HANDLERS */

/* State of this process.  Each field is touched by one PE thread only: the
 * pinger's by the pinger (its handlers run on its own thread), the
 * ponger's by the ponger, so no lock is needed. */
static struct {
    int pinger, ponger;     /* global PE ids */
    int pongs, pings;       /* pongs received (pinger), pings answered (ponger) */
    int errors;
} st;

/* Payload of round r: r in the first 4 bytes, then a pattern from r.  Sizes
 * go from 4 bytes to MAX_PAYLOAD, so long messages are fragmented on the
 * network (the default MTU is 1500) and reassembled by the INIs. */
static uint32_t size_of_round(int r) { return 4 + (uint32_t)(r * 997) % MAX_PAYLOAD; }

static void fill(uint8_t *p, int r)
{
    uint32_t n = size_of_round(r);
    memcpy(p, &r, 4);
    for (uint32_t i = 4; i < n; i++)
        p[i] = (uint8_t)(r * 31 + i);
}

static int check(const uint8_t *p, uint32_t len, int r)
{
    uint8_t want[MAX_PAYLOAD + 4];
    fill(want, r);
    return len == size_of_round(r) && memcmp(p, want, len) == 0;
}

/* Runs on the ponger's thread.  `data` is valid only during the call: it
 * lies in the ring the INI delivered into.  Sending from a handler is
 * allowed; ini_send copies the bytes before it returns. */
static void on_ping(struct ini_pe *pe, int src_pe, const void *data, uint32_t len, void *arg)
{
    (void)arg;
    if (src_pe != st.pinger || !check(data, len, st.pings)) {
        fprintf(stderr, "pingpong: bad ping %d from PE %d (%u bytes)\n", st.pings, src_pe, len);
        st.errors++;
    }
    st.pings++;
    if (ini_send(pe, src_pe, H_PONG, data, len) != 0) {
        perror("pingpong: ini_send");
        st.errors++;
    }
}

/* Runs on the pinger's thread. */
static void on_pong(struct ini_pe *pe, int src_pe, const void *data, uint32_t len, void *arg)
{
    (void)pe, (void)arg;
    if (src_pe != st.ponger || !check(data, len, st.pongs)) {
        fprintf(stderr, "pingpong: bad pong %d from PE %d (%u bytes)\n", st.pongs, src_pe, len);
        st.errors++;
    }
    st.pongs++;
}

/* Waits until *count reaches want; 0, or -1 on a timeout or stopped INIs. */
static int wait_for(struct ini_pe *pe, const int *count, int want)
{
    while (*count < want) {
        int n = ini_wait(pe, TIMEOUT_US);   /* runs handlers; sleeps when idle */
        if (n <= 0) {
            fprintf(stderr, "pingpong: PE %d: %s\n", ini_pe_id(pe),
                    n < 0 ? "the INIs stopped" : "no message for 10 s");
            st.errors++;
            return -1;
        }
    }
    return 0;
}

/* One thread per PE of this cluster runs this. */
static int pe_main(struct ini_pe *pe, void *arg)
{
    (void)arg;
    static uint8_t buf[MAX_PAYLOAD + 4];    /* the pinger's only */
    if (ini_pe_id(pe) == st.pinger) {
        for (int r = 0; r < ROUNDS; r++) {
            fill(buf, r);
            if (ini_send(pe, st.ponger, H_PING, buf, size_of_round(r)) != 0) {
                perror("pingpong: ini_send");
                return 1;
            }
            /* buf is ours again already: ini_send copied it. */
            if (wait_for(pe, &st.pongs, r + 1) != 0)
                return 1;
        }
    } else if (ini_pe_id(pe) == st.ponger) {
        if (wait_for(pe, &st.pings, ROUNDS) != 0)
            return 1;
    }
    return 0;   /* the other PEs have nothing to do */
}

int main(void)
{
    char err[256];
    struct ini_cn *cn = ini_cn_attach_env(err, sizeof err);
    if (!cn) {
        fprintf(stderr, "pingpong: %s (run me under ini-cluster run)\n", err);
        return 2;
    }
    const struct ini_config *cfg = ini_cn_config(cn);
    if (cfg->n_clusters < 2 || cfg->stack.max_message < MAX_PAYLOAD) {
        fprintf(stderr, "pingpong: needs 2 clusters and stack.max_message >= %d\n", MAX_PAYLOAD);
        return 2;
    }
    st.pinger = cfg->clusters[0].pes[0];
    st.ponger = cfg->clusters[1].pes[0];

    if (ini_cn_register(cn, H_PING, on_ping, NULL) != 0 || ini_cn_register(cn, H_PONG, on_pong, NULL) != 0) {
        fprintf(stderr, "pingpong: cannot register the handlers\n");
        return 2;
    }
    int failed = ini_cn_run(cn, pe_main, NULL);   /* returns when every PE thread has */

    int cluster = ini_cn_cluster(cn);
    int done = cluster == 0 ? st.pongs : cluster == 1 ? st.pings : 0;
    printf("pingpong: cluster %d: %d %s, %d errors\n", cluster, done,
           cluster == 0 ? "round trips" : "pings answered", st.errors);
    ini_cn_detach(cn);
    return failed || st.errors ? 1 : 0;
}
