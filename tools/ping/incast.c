/*
 * incast.c - ini-ping --incast (incast.h): many senders into one compute
 * node, the traffic of an MGS home, a reduction or a gather, which issue
 * 50 found collapsing the transport on a LAN that drops frames.
 *
 * The senders are every PE of the clusters other than the target's.  The
 * target runs the run in phases, each started by its GO message:
 *
 *   solo    (unless --solo off) the first sender alone sends its messages:
 *           the goodput one sender gets into this INI, the baseline;
 *   incast  every sender sends its messages at once.
 *
 * A sender sends `count` messages of each size in turn (one-way: no
 * echo), its sequence numbers running on across the phases.  The target
 * checks each message (sender, destination, sequence: exactly once, and
 * in order per sender when both policies are static, the length, and the
 * checksum of every byte, ping_msg.h) and times each phase from its GO to
 * its last message verified: goodput is the message bytes of the phase
 * over that time.  When the last phase is complete it sends FIN to every
 * sender, which then ends: no sender leaves while its messages are on
 * their way.  The transport's own figures (retransmissions, NAKs, drops)
 * are in the INIs' counters files; tools/ping/incast.sh puts both in a
 * table.
 */
#include "ping/incast.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cnprog.h"
#include "ping/ping_msg.h"

enum { H_DATA = 4, H_GO = 5, H_FIN = 6 };
enum { PHASE_SOLO, PHASE_ALL, N_PHASES };
static const char *const phase_name[N_PHASES] = { "solo", "incast" };

struct phase {
    uint64_t msgs, bytes, expect;
    uint64_t t_go_ns, t_end_ns;
};

struct incast_pe {
    struct cnprog_pe c;
    uint8_t *buf;
    /* a sender */
    int go[N_PHASES], fin;
    uint32_t next_seq;
    /* the target: per sender PE, the sequence numbers seen (a bit each)
     * and the lowest missing; per phase its figures */
    uint8_t **seen;
    uint32_t *base;
    uint32_t *per_sender;          /* messages a sender sends in all */
    int phase;
    struct phase ph[N_PHASES];
};

static const struct ini_config *cfg;
static const struct incast_opt *opt;
static struct incast_pe *pes;
static int n_senders, first_sender;

#define report(st, ...) cli_pe_error((st)->c.id, &(st)->c.errors, __VA_ARGS__)

static int is_sender(int pe)
{
    return pe != opt->target && cfg->pes[pe].cluster != cfg->pes[opt->target].cluster;
}

static uint32_t msgs_per_phase(void)
{
    return (uint32_t)(opt->count * opt->n_sizes);
}

/* ---- the target's checks ---- */

/* Sequence seq from src: new (0), or reported (-1). */
static int check_seq(struct incast_pe *st, int src, uint32_t seq)
{
    if (seq >= st->per_sender[src]) {
        report(st, "message from PE %d: sequence %u, but it sends %u", src, seq, st->per_sender[src]);
        return -1;
    }
    uint8_t *seen = st->seen[src];
    if (seen[seq / 8] & (1u << (seq % 8))) {
        report(st, "message from PE %d: sequence %u received twice", src, seq);
        return -1;
    }
    if (opt->ordered && seq != st->base[src])
        report(st, "message from PE %d: sequence %u before %u (out of order)", src, seq, st->base[src]);
    seen[seq / 8] |= (uint8_t)(1u << (seq % 8));
    while (st->base[src] < st->per_sender[src] && (seen[st->base[src] / 8] & (1u << (st->base[src] % 8))))
        st->base[src]++;
    return 0;
}

static void on_data(struct ini_pe *pe, int src, const void *data, uint32_t len, void *arg)
{
    (void)arg;
    struct incast_pe *st = &pes[ini_pe_local(pe)];
    st->c.last_progress_ns = cnprog_now_ns();
    if (st->c.id != opt->target || src < 0 || src >= cfg->n_pes || !is_sender(src)) {
        report(st, "incast message from PE %d to PE %d: not a sender to the target", src, st->c.id);
        return;
    }
    struct ping_hdr h;
    if (len < PING_HDR_BYTES) {
        report(st, "message from PE %d: %u bytes, shorter than its header", src, len);
        return;
    }
    memcpy(&h, data, sizeof h);
    if (check_seq(st, src, h.seq) < 0)
        return;
    const uint8_t *p = data;
    if (h.src != src || h.dst != st->c.id || h.size != len ||
        h.sum != ping_checksum(p + PING_HDR_BYTES, len - PING_HDR_BYTES)) {
        report(st, "message from PE %d, sequence %u (%u bytes): header or payload damaged", src, h.seq, len);
        return;
    }
    struct phase *ph = &st->ph[st->phase];
    ph->msgs++;
    ph->bytes += len;
    if (ph->msgs == ph->expect)
        ph->t_end_ns = st->c.last_progress_ns;
}

/* ---- a sender ---- */

static void on_control(struct ini_pe *pe, int src, const void *data, uint32_t len, void *arg)
{
    (void)arg;
    struct incast_pe *st = &pes[ini_pe_local(pe)];
    st->c.last_progress_ns = cnprog_now_ns();
    uint32_t v = 0;
    if (src != opt->target || len != sizeof v) {
        report(st, "control message from PE %d (%u bytes): not the target's", src, len);
        return;
    }
    memcpy(&v, data, sizeof v);
    if (v < N_PHASES)
        st->go[v] = 1;
    else
        st->fin = 1;
}

static int wait_for(struct incast_pe *st, const int *flag, const char *what)
{
    while (!*flag && !st->c.fatal)
        if (cnprog_wait(&st->c, opt->timeout_ms, what) < 0)
            return -1;
    return st->c.fatal ? -1 : 0;
}

/* Sends the messages of one phase to the target. */
static int send_phase(struct incast_pe *st)
{
    for (int z = 0; z < opt->n_sizes; z++)
        for (long k = 0; k < opt->count; k++) {
            uint32_t size = opt->sizes[z];
            ping_make_message(st->buf, size, st->c.id, opt->target, st->next_seq++);
            if (ini_send(st->c.pe, opt->target, H_DATA, st->buf, size) < 0) {
                report(st, "send of %u bytes to PE %d failed: %s", size, opt->target, strerror(errno));
                st->c.fatal = 1;
                return -1;
            }
        }
    st->c.last_progress_ns = cnprog_now_ns();
    return 0;
}

static int sender_main(struct incast_pe *st)
{
    static const char *const waits[N_PHASES] = { "waiting for GO (solo)", "waiting for GO (incast)" };
    for (int p = 0; p < N_PHASES; p++) {
        if (p == PHASE_SOLO && (!opt->solo || st->c.id != first_sender))
            continue;
        if (wait_for(st, &st->go[p], waits[p]) < 0 || send_phase(st) < 0)
            return 1;
    }
    if (wait_for(st, &st->fin, "waiting for FIN from the target") < 0)
        return 1;
    printf("incast: PE %d sent %u messages to PE %d\n", st->c.id, st->next_seq, opt->target);
    return st->c.errors ? 1 : 0;
}

/* ---- the target ---- */

static int send_control(struct incast_pe *st, int dst, uint32_t v)
{
    if (ini_send(st->c.pe, dst, H_GO, &v, sizeof v) == 0)
        return 0;
    report(st, "control message to PE %d failed: %s", dst, strerror(errno));
    st->c.fatal = 1;
    return -1;
}

/* Runs phase p: GO to its senders, then waits for all its messages. */
static int run_phase(struct incast_pe *st, int p)
{
    struct phase *ph = &st->ph[p];
    ph->expect = (uint64_t)msgs_per_phase() * (uint64_t)(p == PHASE_SOLO ? 1 : n_senders);
    st->phase = p;
    ph->t_go_ns = st->c.last_progress_ns = cnprog_now_ns();
    for (int d = 0; d < cfg->n_pes; d++)
        if (is_sender(d) && (p == PHASE_ALL || d == first_sender) && send_control(st, d, (uint32_t)p) < 0)
            return -1;
    while (ph->msgs < ph->expect && !st->c.fatal)
        if (cnprog_wait(&st->c, opt->timeout_ms, "waiting for the senders' messages") < 0) {
            report(st, "%s phase: %" PRIu64 " of %" PRIu64 " messages came", phase_name[p], ph->msgs,
                   ph->expect);
            return -1;
        }
    return st->c.fatal ? -1 : 0;
}

static int target_main(struct incast_pe *st)
{
    int rc = 0;
    for (int p = opt->solo ? PHASE_SOLO : PHASE_ALL; p < N_PHASES && rc == 0; p++)
        rc = run_phase(st, p);
    for (int d = 0; d < cfg->n_pes && !st->c.fatal; d++)
        if (is_sender(d))
            send_control(st, d, N_PHASES);
    return rc < 0 || st->c.errors ? 1 : 0;
}

static int pe_main(struct ini_pe *pe, void *arg)
{
    (void)arg;
    struct incast_pe *st = &pes[ini_pe_local(pe)];
    st->c.last_progress_ns = cnprog_now_ns();
    if (st->c.id == opt->target)
        return target_main(st);
    return is_sender(st->c.id) ? sender_main(st) : 0;
}

/* ---- set-up and results ---- */

static void setup(struct ini_cn *cn)
{
    n_senders = 0;
    first_sender = -1;
    for (int d = 0; d < cfg->n_pes; d++)
        if (is_sender(d)) {
            n_senders++;
            if (first_sender < 0)
                first_sender = d;
        }
    if (!n_senders)
        cli_bad_arg("--incast: no PE of another cluster than PE %d's to send", opt->target);
    uint32_t max = PING_HDR_BYTES;
    for (int z = 0; z < opt->n_sizes; z++) {
        if (opt->sizes[z] < PING_HDR_BYTES)
            cli_bad_arg("--incast: --sizes %u is below the %d bytes of a message's header", opt->sizes[z],
                        PING_HDR_BYTES);
        if (opt->sizes[z] > max)
            max = opt->sizes[z];
    }
    int n = ini_cn_n_pes(cn);
    pes = cnprog_calloc((size_t)n, sizeof *pes);
    for (int l = 0; l < n; l++) {
        struct incast_pe *st = &pes[l];
        cnprog_pe_init(&st->c, cn, cfg, l);
        st->buf = cnprog_calloc(1, max);
        if (st->c.id != opt->target)
            continue;
        st->seen = cnprog_calloc((size_t)cfg->n_pes, sizeof *st->seen);
        st->base = cnprog_calloc((size_t)cfg->n_pes, sizeof *st->base);
        st->per_sender = cnprog_calloc((size_t)cfg->n_pes, sizeof *st->per_sender);
        for (int d = 0; d < cfg->n_pes; d++)
            if (is_sender(d)) {
                st->per_sender[d] = msgs_per_phase() * (opt->solo && d == first_sender ? 2u : 1u);
                st->seen[d] = cnprog_calloc(st->per_sender[d] / 8 + 1, 1);
            }
    }
}

static double gbps(const struct phase *ph)
{
    uint64_t ns = ph->t_end_ns > ph->t_go_ns ? ph->t_end_ns - ph->t_go_ns : 0;
    return ns ? (double)ph->bytes * 8.0 / (double)ns : 0.0;
}

/* The target's results: a line per phase, and incast.json. */
static void print_results(const struct incast_pe *st)
{
    double ratio = opt->solo && gbps(&st->ph[PHASE_SOLO]) > 0
                       ? gbps(&st->ph[PHASE_ALL]) / gbps(&st->ph[PHASE_SOLO]) : 0.0;
    const char *dir = getenv("INI_RUN_DIR");
    char path[4096];
    FILE *f = NULL;
    if (dir && snprintf(path, sizeof path, "%s/incast.json", dir) < (int)sizeof path && !(f = fopen(path, "w")))
        cli_error("cannot write %s: %s", path, strerror(errno));
    if (f)
        fprintf(f, "{\"target\": %d, \"senders\": %d, \"messages_per_sender\": %u, \"errors\": %" PRIu64,
                opt->target, n_senders, msgs_per_phase(), st->c.errors);
    for (int p = opt->solo ? PHASE_SOLO : PHASE_ALL; p < N_PHASES; p++) {
        const struct phase *ph = &st->ph[p];
        double secs = (double)(ph->t_end_ns > ph->t_go_ns ? ph->t_end_ns - ph->t_go_ns : 0) / 1e9;
        printf("%s: %d sender%s, %" PRIu64 " of %" PRIu64 " messages, %" PRIu64 " bytes in %.3f s: %.3f Gbit/s\n",
               phase_name[p], p == PHASE_SOLO ? 1 : n_senders, p == PHASE_SOLO ? "" : "s",
               ph->msgs, ph->expect, ph->bytes, secs, gbps(ph));
        if (f)
            fprintf(f, ", \"%s\": {\"messages\": %" PRIu64 ", \"expected\": %" PRIu64 ", \"bytes\": %" PRIu64
                       ", \"seconds\": %.6f, \"gbps\": %.4f}", phase_name[p], ph->msgs, ph->expect, ph->bytes,
                    secs, gbps(ph));
    }
    if (opt->solo)
        printf("incast goodput %.2f x solo\n", ratio);
    if (f) {
        fprintf(f, ", \"ratio\": %.4f}\n", ratio);
        fclose(f);
    }
}

int ping_incast(struct ini_cn *cn, const struct ini_config *c, const struct incast_opt *o)
{
    cfg = c;
    opt = o;
    if (o->target < 0 || o->target >= c->n_pes)
        cli_bad_arg("--to %d: %s has PEs 0..%d", o->target, c->path, c->n_pes - 1);
    setup(cn);
    cnprog_register(cn, H_DATA, on_data);
    cnprog_register(cn, H_GO, on_control);
    int my_cluster = ini_cn_cluster(cn);
    printf("ini-ping --incast: cluster %d, %d senders to PE %d, %ld messages of each of %d sizes each%s\n",
           my_cluster, n_senders, o->target, o->count, o->n_sizes, o->solo ? ", solo first" : "");
    int failed = ini_cn_run(cn, pe_main, NULL);
    uint64_t verified = 0, errors = 0;
    for (int l = 0; l < ini_cn_n_pes(cn); l++) {
        errors += pes[l].c.errors;
        if (pes[l].c.id == o->target) {
            print_results(&pes[l]);
            verified = pes[l].ph[PHASE_SOLO].msgs + pes[l].ph[PHASE_ALL].msgs;
        }
    }
    if (failed && !errors)
        errors = 1;
    printf("verified %" PRIu64 " messages, %" PRIu64 " errors\n", verified, errors);
    return errors ? 1 : 0;
}
