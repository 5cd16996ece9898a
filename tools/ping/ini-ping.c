/*
 * ini-ping - round-trip latency and end-to-end integrity of active messages
 * between clusters.  Run under the launcher, one process per cluster:
 *
 *   ini-cluster run CONFIG -- ini-ping [--sizes 0,64,1024] [--count 100]
 *                                      [--window 1] [--pattern all|pairs]
 *                                      [--timeout-ms 10000]
 *
 * Every PE thread sends `count` echo requests of every size to PEs of other
 * clusters (pattern all: all of them in turn; pairs: one partner, the PE
 * with the same local index in the next cluster), keeping up to `window`
 * requests in flight.  The receiving PE's handler echoes the message back
 * unchanged; the originator measures the round trip and verifies the echo.
 *
 * Message layout (little-endian), as much of it as the size allows:
 *
 *   0  u16 src   originating PE            8  u32 size  payload bytes
 *   2  u16 dst   PE asked to echo         12  u32 sum   checksum of bytes 16..
 *   4  u32 seq   per (src, dst) pair      16  pseudo-random fill from (src, dst, seq)
 *
 * A message shorter than 16 bytes carries a prefix of that header, and
 * every field that fits (even partly) is checked; a 0-byte message is
 * verified by its length and by its echo arriving.  Checks:
 *   - on the echoing PE: the sender, the destination (misdelivery), the
 *     sequence number (each request exactly once, and in order when both
 *     scheduling policies are static - the only case where the system
 *     promises order between two PEs), the length and the checksum;
 *   - on the originator: that the echo answers an outstanding request
 *     (duplicates and strays are errors), in order per destination when
 *     ordered, with the right length, header bytes and checksum;
 *   - at the end, a barrier through messages: each PE sends DONE, carrying
 *     how many requests it sent there, to every PE of the other clusters and
 *     keeps echoing until it has DONE from all of them, so no process exits
 *     while another still needs it; the counts in DONE must match the
 *     requests received.
 * A PE that sees no progress for --timeout-ms reports what it was waiting
 * for and gives up.  Each process prints a latency table for its PEs and
 * then, last, "verified N messages, E errors" (N: echoes this process
 * originated and verified); it exits 1 if E > 0, 2 on bad arguments.
 *
 * --incast [--to PE] [--solo on|off] runs the many-into-one workload of
 * issue 50 instead (tools/ping/incast.c).
 *
 * --inject corrupt|duplicate|drop checks the checker: the echo side then
 * damages every 50th echo (flips its last byte, sends it twice, or drops
 * it), and the run must fail naming the damage (tests/integration/
 * ping_faults.sh).
 *
 * The echo is sent before the request is verified, so the verification
 * cost stays out of the round trip; all state of a PE is touched only by
 * its own thread (handlers run on the receiving PE's thread).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cli.h"
#include "cnprog.h"
#include "ini_cn.h"
#include "ping/incast.h"
#include "ping/ping_msg.h"

enum { H_REQUEST = 1, H_REPLY = 2, H_DONE = 3 };

#define HDR_BYTES     PING_HDR_BYTES
#define MAX_SIZES     64
#define MAX_WINDOW    64
#define DONE_MAGIC    0x454e4f44u   /* "DONE" */

/* ---- options ---- */

static struct {
    uint32_t sizes[MAX_SIZES];
    int n_sizes;
    long count;
    int window;
    int pairs;
    long timeout_ms;
    enum { INJECT_NONE, INJECT_CORRUPT, INJECT_DUPLICATE, INJECT_DROP } inject;
    int incast, to, solo;   /* --incast (incast.h): to PE `to`, one sender alone first */
} opt = { { 0, 64, 1024 }, 3, 100, 1, 0, 10000, INJECT_NONE, 0, 0, 1 };

#define INJECT_EVERY 50



static const char usage_text[] =
    "usage: ini-ping [--sizes N,N,...] [--count N] [--window W] [--pattern all|pairs]"
    " [--timeout-ms MS]\n                [--inject corrupt|duplicate|drop]\n"
    "       ini-ping --incast [--to PE] [--solo on|off] [--sizes N,...] [--count N] [--timeout-ms MS]\n"
    "       ini-ping --help | --version\n"
    "(run under ini-cluster run CONFIG -- ini-ping ...)\n";

static void parse_args(int argc, char **argv)
{
    const char *a;
    for (int i = 0; (a = cli_next_arg(argc, argv, &i));) {
        if (!strcmp(a, "--sizes")) {
            const char *v = cli_value(argc, argv, &i);
            opt.n_sizes = 0;
            /* The list is parsed in place, a copy as long as the argument:
             * no length limit but MAX_SIZES entries. */
            char *copy = strdup(v), *save = NULL;
            if (!copy)
                cli_bad_arg("--sizes: out of memory");
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (opt.n_sizes == MAX_SIZES)
                    cli_bad_arg("--sizes: at most %d sizes", MAX_SIZES);
                opt.sizes[opt.n_sizes++] = (uint32_t)cli_parse_long("--sizes", t, 0, INI_MAX_MESSAGE_LIMIT);
            }
            free(copy);
            if (!opt.n_sizes)
                cli_bad_arg("--sizes: empty list");
        } else if (!strcmp(a, "--count")) {
            opt.count = cli_parse_long(a, cli_value(argc, argv, &i), 1, 1000000);
        } else if (!strcmp(a, "--window")) {
            opt.window = (int)cli_parse_long(a, cli_value(argc, argv, &i), 1, MAX_WINDOW);
        } else if (!strcmp(a, "--timeout-ms")) {
            opt.timeout_ms = cli_parse_long(a, cli_value(argc, argv, &i), 1, 3600000);
        } else if (!strcmp(a, "--pattern")) {
            static const char *const patterns[] = { "all", "pairs", NULL };
            opt.pairs = cli_parse_choice(a, cli_value(argc, argv, &i), patterns);
        } else if (!strcmp(a, "--inject")) {
            /* In the order of the enum, after INJECT_NONE. */
            static const char *const injects[] = { "corrupt", "duplicate", "drop", NULL };
            opt.inject = INJECT_CORRUPT + cli_parse_choice(a, cli_value(argc, argv, &i), injects);
        } else if (!strcmp(a, "--incast")) {
            opt.incast = 1;
        } else if (!strcmp(a, "--to")) {
            opt.to = (int)cli_parse_long(a, cli_value(argc, argv, &i), 0, INI_MAX_PES - 1);
        } else if (!strcmp(a, "--solo")) {
            static const char *const onoff[] = { "off", "on", NULL };
            opt.solo = cli_parse_choice(a, cli_value(argc, argv, &i), onoff);
        } else if (a[0] == '-') {
            cli_unknown_option(a);
        } else {
            cli_bad_arg("%s: unexpected argument", a);
        }
    }
}

/* ---- message contents ---- */

static const struct { const char *name; int off, len; } FIELDS[] = {
    { "source", 0, 2 }, { "destination", 2, 2 }, { "sequence", 4, 4 },
    { "size", 8, 4 },   { "checksum", 12, 4 },
};

/* ---- per-PE state ---- */

struct slot {                 /* one request in flight */
    int used;
    int dst;
    uint32_t seq;
    int size_idx;
    uint64_t t_send_ns;
    struct ping_hdr hdr;      /* as sent */
};

struct pe_state {
    struct cnprog_pe c;               /* first: the PE, its progress and errors */
    uint8_t *buf;
    uint8_t *scratch;                 /* --inject corrupt: the damaged echo */

    /* originator */
    int targets[INI_MAX_PES], n_targets, next_target;
    uint32_t next_seq_to[INI_MAX_PES];
    uint32_t sent_to[INI_MAX_PES];
    struct slot slots[MAX_WINDOW];
    int outstanding;
    uint64_t *rtt_ns[MAX_SIZES];
    long n_rtt[MAX_SIZES];
    uint64_t verified;
    uint64_t last_verified_ns;        /* when the last echo was verified */
    uint64_t longest_gap_ns;          /* the longest time between two (an INI's restart shows here) */

    /* echo side */
    uint32_t req_base[INI_MAX_PES];   /* lowest sequence not yet seen */
    uint8_t *req_seen[INI_MAX_PES];   /* unordered: a bit per sequence, made on first use */
    uint32_t req_from[INI_MAX_PES];
    uint64_t echoed;
    int done_from[INI_MAX_PES], n_done;

    int in_barrier;
};

static struct ini_cn *cn;
static const struct ini_config *cfg;
static int my_cluster;
static int ordered;
static struct pe_state *states;

/* Counts and, while there are few, prints an error of this PE. */
#define report(st, ...) cli_pe_error((st)->c.id, &(st)->c.errors, __VA_ARGS__)

static uint32_t field_value(const uint8_t *p, int len)
{
    uint32_t v = 0;
    memcpy(&v, p, (size_t)len);
    return v;
}

/* Compares the header prefix of a message of `len` bytes with `want`,
 * field by field (skip_seq: the expected sequence is unknown); reports the
 * first difference.  Returns 0 if everything present matches. */
static int check_header(struct pe_state *st, const char *what, const uint8_t *data, uint32_t len,
                        const struct ping_hdr *want, int skip_seq)
{
    const uint8_t *w = (const uint8_t *)want;
    for (size_t f = 0; f < sizeof FIELDS / sizeof FIELDS[0]; f++) {
        int off = FIELDS[f].off, n = FIELDS[f].len;
        if ((int)len <= off)
            break;
        if ((int)len < off + n)
            n = (int)len - off;
        if (skip_seq && off == 4)
            continue;
        if (memcmp(data + off, w + off, (size_t)n) != 0) {
            report(st, "%s (%u bytes): %s field is %u, expected %u%s", what, len, FIELDS[f].name,
                   field_value(data + off, n), field_value(w + off, n),
                   n < FIELDS[f].len ? " (the part that fits)" : "");
            return -1;
        }
    }
    return 0;
}

/* ---- handlers ---- */

static void on_request(struct ini_pe *pe, int src, const void *data, uint32_t len, void *arg)
{
    struct pe_state *st = &states[ini_pe_local(pe)];
    const uint8_t *p = data;
    const void *echo = data;
    int copies = 1;
    if (opt.inject && st->echoed % INJECT_EVERY == INJECT_EVERY - 1 && len > 0) {
        if (opt.inject == INJECT_CORRUPT) {
            memcpy(st->scratch, data, len);
            st->scratch[len - 1] ^= 0x5a;
            echo = st->scratch;
        }
        copies = opt.inject == INJECT_DUPLICATE ? 2 : opt.inject == INJECT_DROP ? 0 : 1;
    }
    for (int k = 0; k < copies; k++)
        if (ini_send(pe, src, H_REPLY, echo, len) < 0)
            report(st, "cannot echo a request of PE %d: %s", src, strerror(errno));
    st->echoed++;
    if (st->in_barrier)
        st->c.last_progress_ns = cnprog_now_ns();

    if (src < 0 || src >= cfg->n_pes || cfg->pes[src].cluster == my_cluster) {
        report(st, "request from PE %d, which is not a PE of another cluster", src);
        return;
    }
    st->req_from[src]++;
    char what[64];
    snprintf(what, sizeof what, "request from PE %d", src);

    /* The sequence number: known in advance when ordered, else read. */
    uint32_t seq = st->req_base[src];
    int have_seq = len >= 8;
    if (have_seq)
        memcpy(&seq, p + 4, 4);
    struct ping_hdr want = { (uint16_t)src, (uint16_t)st->c.id, ordered ? st->req_base[src] : seq, len,
                             ping_checksum(p + HDR_BYTES, len > HDR_BYTES ? len - HDR_BYTES : 0) };
    if (ordered) {
        if (check_header(st, what, p, len, &want, 0) < 0 && have_seq)
            st->req_base[src] = seq;   /* resynchronise: one error, not a cascade */
        st->req_base[src]++;
        return;
    }
    /* A damaged header is reported once; its sequence number still counts
     * when plausible, so that one error does not cascade into more. */
    int damaged = check_header(st, what, p, len, &want, 1) < 0;
    /* Unordered: each sequence exactly once within the sender's window.
     * A request too short to carry its sequence number takes the lowest
     * one missing: a sender finishes one size (all echoed) before it starts
     * the next, so short and long requests never mix in a window. */
    /* Not a sliding window: a request held up on one INI may be overtaken
     * by any number of later ones while its sender's window stays full of
     * others.  A sender sends at most count x sizes requests here. */
    uint32_t base = st->req_base[src];
    uint64_t max_seq = (uint64_t)opt.count * (uint64_t)opt.n_sizes;
    if (!have_seq)
        seq = base;
    if (seq >= max_seq) {
        if (!damaged)
            report(st, "%s: sequence %u, but no sender sends more than %" PRIu64, what, seq, max_seq);
        return;
    }
    if (!st->req_seen[src] && !(st->req_seen[src] = calloc(max_seq / 8 + 1, 1))) {
        report(st, "out of memory tracking the requests of PE %d", src);
        return;
    }
    uint8_t *seen = st->req_seen[src];
    if (seen[seq / 8] & (1u << (seq % 8))) {
        if (!damaged)
            report(st, "%s: sequence %u received twice", what, seq);
        return;
    }
    seen[seq / 8] |= (uint8_t)(1u << (seq % 8));
    while (base < max_seq && (seen[base / 8] & (1u << (base % 8))))
        base++;
    st->req_base[src] = base;
}

static void on_reply(struct ini_pe *pe, int src, const void *data, uint32_t len, void *arg)
{
    struct pe_state *st = &states[ini_pe_local(pe)];
    uint64_t t = cnprog_pe_now_ns(&st->c);
    const uint8_t *p = data;
    st->c.last_progress_ns = cnprog_now_ns();

    /* The request it answers: the oldest one outstanding to that PE whose
     * sequence number agrees with as many of its bytes as the message
     * holds (all 4 from 8 bytes on, none below 5). */
    int seq_bytes = len <= 4 ? 0 : len >= 8 ? 4 : (int)len - 4;
    struct slot *oldest = NULL, *match = NULL;
    for (int k = 0; k < opt.window; k++) {
        struct slot *s = &st->slots[k];
        if (!s->used || s->dst != src)
            continue;
        if (!oldest || s->seq < oldest->seq)
            oldest = s;
        if (memcmp(&s->seq, p + 4, (size_t)seq_bytes) == 0 && (!match || s->seq < match->seq))
            match = s;
    }
    if (!match) {
        char seq_text[32] = "";
        if (len >= 8)
            snprintf(seq_text, sizeof seq_text, ", sequence %u", field_value(p + 4, 4));
        report(st, "echo from PE %d (%u bytes%s) answers no outstanding request: duplicate, "
                   "stray or corrupted", src, len, seq_text);
        return;
    }
    match->used = 0;
    st->outstanding--;
    char what[64];
    snprintf(what, sizeof what, "echo from PE %d of sequence %u", src, match->seq);
    int bad = 0;
    if (ordered && match != oldest) {
        report(st, "%s arrived before the echo of sequence %u (out of order)", what, oldest->seq);
        bad = 1;
    }
    if (len != match->hdr.size) {
        report(st, "%s: %u bytes, sent %u", what, len, match->hdr.size);
        return;
    }
    if (bad || check_header(st, what, p, len, &match->hdr, 0) < 0)
        return;
    if (len > HDR_BYTES && ping_checksum(p + HDR_BYTES, len - HDR_BYTES) != match->hdr.sum) {
        report(st, "%s: payload corrupted (checksum mismatch)", what);
        return;
    }
    st->verified++;
    st->rtt_ns[match->size_idx][st->n_rtt[match->size_idx]++] = t - match->t_send_ns;
    if (st->last_verified_ns && t - st->last_verified_ns > st->longest_gap_ns)
        st->longest_gap_ns = t - st->last_verified_ns;
    st->last_verified_ns = t;
}

static void on_done(struct ini_pe *pe, int src, const void *data, uint32_t len, void *arg)
{
    struct pe_state *st = &states[ini_pe_local(pe)];
    st->c.last_progress_ns = cnprog_now_ns();
    uint32_t msg[2];
    if (len != sizeof msg) {
        report(st, "DONE from PE %d: %u bytes, expected %zu", src, len, sizeof msg);
        return;
    }
    memcpy(msg, data, sizeof msg);
    if (msg[0] != DONE_MAGIC || src < 0 || src >= cfg->n_pes || cfg->pes[src].cluster == my_cluster) {
        report(st, "DONE from PE %d: corrupted or from an unexpected PE", src);
        return;
    }
    if (st->done_from[src]++) {
        report(st, "DONE from PE %d received twice", src);
        return;
    }
    st->n_done++;
    if (msg[1] != st->req_from[src])
        report(st, "PE %d sent %u requests here, %u arrived", src, msg[1], st->req_from[src]);
}

/* ---- the PE's run ---- */

static int wait_progress(struct pe_state *st, const char *waiting_for)
{
    return cnprog_wait(&st->c, opt.timeout_ms, waiting_for);
}

static void describe_outstanding(struct pe_state *st)
{
    for (int k = 0; k < opt.window; k++)
        if (st->slots[k].used) {
            const struct slot *s = &st->slots[k];
            report(st, "lost: request of %u bytes, sequence %u, to PE %d (cluster %d)", s->hdr.size,
                   s->seq, s->dst, cfg->pes[s->dst].cluster);
        }
}

static int send_one(struct pe_state *st, int size_idx)
{
    int dst = st->targets[st->next_target];
    st->next_target = (st->next_target + 1) % st->n_targets;
    struct slot *s = NULL;
    for (int k = 0; k < opt.window && !s; k++)
        if (!st->slots[k].used)
            s = &st->slots[k];
    uint32_t size = opt.sizes[size_idx];
    s->dst = dst;
    s->seq = st->next_seq_to[dst]++;
    s->size_idx = size_idx;
    s->hdr = ping_make_message(st->buf, size, st->c.id, dst, s->seq);
    s->used = 1;
    st->outstanding++;
    st->sent_to[dst]++;
    s->t_send_ns = cnprog_now_ns();
    if (ini_send(st->c.pe, dst, H_REQUEST, st->buf, size) < 0) {
        report(st, "send of %u bytes to PE %d failed: %s", size, dst, strerror(errno));
        s->used = 0;
        st->outstanding--;
        st->c.fatal = errno == EPIPE;
        return -1;
    }
    if (ini_cn_vtime_hz(ini_pe_cn(st->c.pe)))
        s->t_send_ns = cnprog_pe_now_ns(&st->c);   /* virtual time: the send's own event */
    return 0;
}

static int pe_main(struct ini_pe *pe, void *arg)
{
    struct pe_state *st = &states[ini_pe_local(pe)];
    st->c.last_progress_ns = cnprog_now_ns();

    for (int z = 0; z < opt.n_sizes && !st->c.fatal; z++) {
        int gave_up = 0;
        for (long k = 0; k < opt.count && !gave_up && !st->c.fatal; k++) {
            while (st->outstanding == opt.window && !gave_up)
                gave_up = wait_progress(st, "waiting for echoes") < 0;
            if (gave_up || send_one(st, z) < 0)
                break;
            ini_poll(pe);
        }
        while (st->outstanding > 0 && !gave_up && !st->c.fatal)
            gave_up = wait_progress(st, "waiting for the last echoes of a size") < 0;
        if (gave_up) {
            describe_outstanding(st);
            break;   /* what is lost stays lost; go on to the barrier */
        }
        st->c.last_progress_ns = cnprog_now_ns();
    }

    /* The barrier: tell every PE of the other clusters, then serve until
     * all of them have told us. */
    st->in_barrier = 1;
    st->c.last_progress_ns = cnprog_now_ns();
    for (int d = 0; d < cfg->n_pes && !st->c.fatal; d++) {
        if (cfg->pes[d].cluster == my_cluster)
            continue;
        uint32_t msg[2] = { DONE_MAGIC, st->sent_to[d] };
        if (ini_send(pe, d, H_DONE, msg, sizeof msg) < 0) {
            report(st, "sending DONE to PE %d failed: %s", d, strerror(errno));
            st->c.fatal = errno == EPIPE;
        }
    }
    while (st->n_done < st->c.n_others && !st->c.fatal)
        if (wait_progress(st, "waiting for DONE from the other clusters") < 0) {
            for (int d = 0; d < cfg->n_pes; d++)
                if (cfg->pes[d].cluster != my_cluster && !st->done_from[d])
                    report(st, "no DONE from PE %d (cluster %d)", d, cfg->pes[d].cluster);
            break;
        }
    /* Echoes of abandoned requests may still come in; they would be
     * reported as strays, which is right, but after the table. */
    return st->c.errors ? 1 : 0;
}

/* ---- setup and report ---- */

static void pick_targets(struct pe_state *st)
{
    const struct ini_cluster_cfg *mine = &cfg->clusters[my_cluster];
    if (opt.pairs) {
        /* The next cluster that has compute nodes: a cluster may have INIs
         * only. */
        for (int k = 1; k < cfg->n_clusters; k++) {
            const struct ini_cluster_cfg *next = &cfg->clusters[(my_cluster + k) % cfg->n_clusters];
            if (next->n_pes > 0) {
                st->targets[st->n_targets++] = next->pes[st->c.local % next->n_pes];
                return;
            }
        }
        return;
    }
    for (int d = 0; d < cfg->n_pes; d++)
        if (cfg->pes[d].cluster != my_cluster)
            st->targets[st->n_targets++] = d;
    /* Start at different places so the PEs of a cluster spread their load. */
    if (st->n_targets)
        st->next_target = (st->c.local + my_cluster * mine->n_pes) % st->n_targets;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double pct_us(const uint64_t *v, long n, double p)
{
    long rank = (long)(p * (double)n + 0.999999);   /* nearest rank */
    if (rank < 1)
        rank = 1;
    return (double)v[rank - 1] / 1000.0;
}

static void print_table(int n_pes)
{
    printf("%7s %8s %9s %9s %9s %9s %9s   (round trip, us)\n", "bytes", "echoes", "min", "p50",
           "p90", "p99", "max");
    for (int z = 0; z < opt.n_sizes; z++) {
        long n = 0;
        for (int p = 0; p < n_pes; p++)
            n += states[p].n_rtt[z];
        if (!n) {
            printf("%7u %8d %9s %9s %9s %9s %9s\n", opt.sizes[z], 0, "-", "-", "-", "-", "-");
            continue;
        }
        uint64_t *all = malloc(sizeof(uint64_t) * (size_t)n);
        long k = 0;
        for (int p = 0; p < n_pes; p++) {
            memcpy(all + k, states[p].rtt_ns[z], sizeof(uint64_t) * (size_t)states[p].n_rtt[z]);
            k += states[p].n_rtt[z];
        }
        qsort(all, (size_t)n, sizeof all[0], cmp_u64);
        printf("%7u %8ld %9.1f %9.1f %9.1f %9.1f %9.1f\n", opt.sizes[z], n, pct_us(all, n, 0),
               pct_us(all, n, 0.50), pct_us(all, n, 0.90), pct_us(all, n, 0.99), pct_us(all, n, 1.0));
        free(all);
    }
}

/* Refuses a configuration the run cannot complete; the largest message. */
static uint32_t check_config(void)
{
    /* DONE (two words) must fit in a message, or the closing barrier could
     * never be sent: refuse such a configuration at start, not at the end. */
    cnprog_need_message(cfg, 2 * sizeof(uint32_t), "DONE message");
    if (cfg->n_clusters < 2)
        cli_bad_arg("%s has one cluster: nobody to ping", cfg->path);
    /* Clusters may have INIs and no compute node: they take no part. */
    if (cfg->n_pes - cfg->clusters[my_cluster].n_pes == 0)
        cli_bad_arg("%s: no other cluster has compute nodes: nobody to ping", cfg->path);
    uint32_t max_size = HDR_BYTES;
    for (int z = 0; z < opt.n_sizes; z++) {
        if (opt.sizes[z] > (uint32_t)cfg->stack.max_message)
            cli_bad_arg("--sizes: %u bytes exceeds stack.max_message = %d of %s", opt.sizes[z],
                    cfg->stack.max_message, cfg->path);
        if (opt.sizes[z] > max_size)
            max_size = opt.sizes[z];
    }
    return max_size;
}

/* Every local PE's state, its buffers of max_size bytes; 0, or -1 said. */
static int setup_states(int n_pes, uint32_t max_size)
{
    states = cnprog_calloc((size_t)n_pes, sizeof *states);
    for (int p = 0; p < n_pes; p++) {
        struct pe_state *st = &states[p];
        cnprog_pe_init(&st->c, cn, cfg, p);
        st->buf = calloc(1, max_size);
        st->scratch = opt.inject == INJECT_CORRUPT ? calloc(1, max_size) : st->buf;
        for (int z = 0; z < opt.n_sizes; z++)
            st->rtt_ns[z] = malloc(sizeof(uint64_t) * (size_t)opt.count);
        if (!st->buf || !st->scratch || (opt.n_sizes && !st->rtt_ns[opt.n_sizes - 1])) {
            cli_error("out of memory");
            return -1;
        }
        pick_targets(st);
    }
    return 0;
}

/* The lines after the table; the errors of the run (1 when a run that
 * reported none still fell short). */
static uint64_t print_summary(int n_pes, int failed, double secs)
{
    uint64_t verified = 0, errors = 0, echoed = 0;
    uint64_t expected = (uint64_t)n_pes * (uint64_t)opt.count * (uint64_t)opt.n_sizes;
    for (int p = 0; p < n_pes; p++) {
        verified += states[p].verified;
        errors += states[p].c.errors;
        echoed += states[p].echoed;
    }
    if (!errors && (failed || verified != expected)) {
        cli_error("cluster %d: %" PRIu64 " of %" PRIu64 " messages verified", my_cluster, verified,
                  expected);
        errors = 1;
    }
    /* The rate of this process's verified round trips over the whole run
     * (the DONE exchange included): each is a request and an echo. */
    printf("rate %.0f echoes/s (%" PRIu64 " in %.3f s)\n", secs > 0 ? (double)verified / secs : 0.0,
           verified, secs);
    printf("echoed %" PRIu64 " requests\n", echoed);
    /* The longest a PE went without a verified echo: with one request in
     * flight, the blackout of an INI's restart as this PE saw it (last
     * echo before the kill to the first after; tools/bench/blackout.sh). */
    uint64_t gap = 0;
    int gap_pe = -1;
    for (int p = 0; p < n_pes; p++)
        if (states[p].longest_gap_ns > gap) {
            gap = states[p].longest_gap_ns;
            gap_pe = states[p].c.id;
        }
    if (gap_pe >= 0)
        printf("longest gap between echoes %.3f ms (PE %d)\n", (double)gap / 1e6, gap_pe);
    printf("verified %" PRIu64 " messages, %" PRIu64 " errors\n", verified, errors);
    return errors;
}

int main(int argc, char **argv)
{
    cli_init("ini-ping", usage_text);
    setvbuf(stdout, NULL, _IOLBF, 0);
    parse_args(argc, argv);
    cn = cnprog_attach();
    cfg = ini_cn_config(cn);
    my_cluster = ini_cn_cluster(cn);
    /* The policies in force (the launcher's overrides, else the config's):
     * order is promised only when both are static. */
    enum ini_policy pe_policy = cnprog_policy("INI_POLICY", cfg->pe_policy);
    enum ini_policy ini_policy = cnprog_policy("INI_INI_POLICY", cfg->ini_policy);
    ini_cn_set_policy(cn, pe_policy);
    ordered = pe_policy == INI_POLICY_STATIC && ini_policy == INI_POLICY_STATIC;

    uint32_t max_size = check_config();
    if (opt.incast) {
        struct incast_opt io = { opt.sizes, opt.n_sizes, opt.count, opt.timeout_ms, opt.to, opt.solo, ordered };
        int rc = ping_incast(cn, cfg, &io);
        ini_cn_detach(cn);
        return rc;
    }
    int n_pes = ini_cn_n_pes(cn);
    if (setup_states(n_pes, max_size) < 0)
        return 1;
    cnprog_register(cn, H_REQUEST, on_request);
    cnprog_register(cn, H_REPLY, on_reply);
    cnprog_register(cn, H_DONE, on_done);

    const struct ini_cluster_cfg *cl = &cfg->clusters[my_cluster];
    printf("ini-ping: cluster %d (PEs", my_cluster);
    for (int p = 0; p < n_pes; p++)
        printf(" %d", cl->pes[p]);
    printf("), pattern %s, window %d, %ld messages per size per PE, %s delivery checked\n",
           opt.pairs ? "pairs" : "all", opt.window, opt.count, ordered ? "in-order" : "exactly-once");

    uint64_t t_start = cnprog_now_ns();
    int failed = ini_cn_run(cn, pe_main, NULL);
    double secs = (double)(cnprog_now_ns() - t_start) / 1e9;
    uint64_t hz = ini_cn_vtime_hz(cn);
    if (hz) {       /* the emulated machine's time: the latest node's clock */
        uint64_t end = 0;
        for (int p = 0; p < n_pes; p++)
            if (ini_pe_vtime(ini_cn_pe(cn, p)) > end)
                end = ini_pe_vtime(ini_cn_pe(cn, p));
        secs = (double)end / (double)hz;
        printf("virtual time: %llu cycles at %.0f MHz (round trips below in emulated us)\n",
               (unsigned long long)end, (double)hz / 1e6);
    }

    print_table(n_pes);
    uint64_t errors = print_summary(n_pes, failed, secs);
    ini_cn_detach(cn);
    return errors ? 1 : 0;
}
