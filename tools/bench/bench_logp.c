/*
 * bench_logp.c - ini-bench --logp (bench_logp.h): the program run in each
 * of two clusters of one compute node, its options and its report.
 *
 *   ini-cluster run CFG [--knob SPEC] -- ini-bench --logp
 *       [--tests signature,overlap] [--deltas US,...] [--bursts M,...]
 *       [--window N] [--bulk BYTES] [--reps N] [--count N] [--cores A,B]
 *       [--timeout-ms N] [--quick]
 *
 * Cluster 0's compute node measures (bench_logp_tests.c) on CPU A, alone,
 * busy-polling; cluster 1's answers on CPU B, where the configuration
 * should put both INIs (tools/bench/logp.sh writes such a configuration),
 * waiting in the adaptive idle mode.  The Δo knob reaches both compute
 * nodes through the launcher's INI_KNOBS, the INI's knobs the daemons.
 * Cluster 0 prints one JSON object on its stdout (the run directory's
 * cluster0.out): the options, the round trip and EEL, o_s, o_r, g, G, L,
 * the signature's points and the overlap sweeps (docs/logp.md).  Exit
 * status 0, 1 when a test failed (one line on stderr), 2 on bad input.
 */
#include "bench.h"
#include "bench_logp.h"
#include "bench_logp_internal.h"
#include "cli.h"
#include "cnprog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the two compute nodes ---- */

static struct lp_client C;          /* cluster 0 */
static struct {                     /* cluster 1 */
    struct ini_pe *pe;
    int peer;
    uint32_t flood;                 /* LP_DATA messages to send */
    int stop;
} S;

static struct lp_msg msg_of(const void *data, uint32_t len)
{
    struct lp_msg m = { 0, 0 };
    memcpy(&m, data, len < sizeof(m) ? len : sizeof(m));
    return m;
}

static void on_req(struct ini_pe *pe, int src, const void *data, uint32_t len, void *arg)
{
    static const struct lp_msg reply = { 0, 0 };
    if (msg_of(data, len).op & LP_F_REPLY)
        ini_send(pe, src, LP_REP, &reply, sizeof(reply));
}

static void on_rep(struct ini_pe *pe, int src, const void *data, uint32_t len, void *arg)
{
    C.replies++;
}

static void on_ctl(struct ini_pe *pe, int src, const void *data, uint32_t len, void *arg)
{
    struct lp_msg m = msg_of(data, len);
    if (m.op == LP_OP_FLOOD)
        S.flood += m.n;
    else if (m.op == LP_OP_STOP)
        S.stop = 1;
}

static void on_data(struct ini_pe *pe, int src, const void *data, uint32_t len, void *arg)
{
    C.data_rx++;
    if (C.rx_delta_ns)
        bench_spin_ns(C.rx_delta_ns);
    C.t_data_last = bench_rdtsc();
}

/* Cluster 1: answers requests (in on_req), sends the floods asked for,
 * until STOP. */
static int serve(void)
{
    static const struct lp_msg data = { 0, 0 };
    while (!S.stop) {
        for (; S.flood; S.flood--)
            if (ini_send(S.pe, S.peer, LP_DATA, &data, sizeof(data)) < 0)
                return 1;
        if (ini_wait(S.pe, 100000) < 0)
            return 1;
    }
    return 0;
}

/* ---- the report ---- */

static void json_sweep(const char *name, const struct lp_sweep *s)
{
    printf(", \"%s\": {\"g_us\": %.4f, \"o_us\": %.4f, \"o_knee_us\": %.4f, \"d_us\": [", name, s->g_us, s->o_us,
           s->o_knee_us);
    for (int k = 0; k < LP_SWEEP; k++)
        printf("%s%.4f", k ? ", " : "", s->d_us[k]);
    printf("], \"t_us\": [");
    for (int k = 0; k < LP_SWEEP; k++)
        printf("%s%.4f", k ? ", " : "", s->t_us[k]);
    printf("]}");
}

static void report(const struct lp_opts *o, const struct lp_result *r, const char *knobs)
{
    printf("{\"mode\": \"logp\", \"knobs\": \"%s\", \"tsc_ghz\": %.4f, \"window\": %u, \"bulk_bytes\": %u, "
           "\"reps\": %d, \"count\": %u, \"cores\": [%d, %d], \"rtt_us\": %.4f, \"eel_us\": %.4f",
           knobs, r->tsc_ghz, o->window, o->bulk, o->reps, o->count, o->cores[0], o->cores[1], r->rtt_us,
           r->eel_us);
    if (o->signature) {
        printf(", \"o_s_us\": %.4f, \"o_r_us\": %.4f, \"o_r_steady_us\": %.4f, \"g_us\": %.4f, "
               "\"G_ns_per_byte\": %.5f, \"L_us\": %.4f, \"delta_big_us\": %.4f, \"bulk_interval_us\": %.4f, "
               "\"signature\": [",
               r->o_s_us, r->o_r_us, r->o_r_steady_us, r->g_us, r->G_ns_per_byte, r->L_us, r->delta_big_us,
               r->bulk_interval_us);
        for (int i = 0; i < r->n_points; i++)
            printf("%s{\"delta_us\": %g, \"m\": %u, \"interval_us\": %.4f}", i ? ", " : "", r->points[i].delta_us,
                   r->points[i].m, r->points[i].interval_us);
        printf("]");
    }
    if (o->overlap) {
        json_sweep("overlap_send", &r->send);
        json_sweep("overlap_recv", &r->recv);
    }
    printf("}\n");
    fflush(stdout);
}

/* ---- options ---- */

/* A comma list of numbers in lo..hi, ascending after sorting is the
 * caller's business; count, or exit 2 naming the flag. */
static int parse_doubles(const char *flag, const char *s, double *out, int max, double lo, double hi)
{
    int n = 0;
    for (const char *p = s; *p;) {
        char *end;
        errno = 0;
        double x = strtod(p, &end);
        if (end == p || errno || x < lo || x > hi || n >= max || (*end && *end != ',') || (*end && !end[1]))
            cli_bad_arg("%s: expected up to %d comma-separated numbers in %g..%g", flag, max, lo, hi);
        out[n++] = x;
        p = *end ? end + 1 : end;
    }
    if (!n)
        cli_bad_arg("%s: empty list", flag);
    return n;
}

static void parse_tests(struct lp_opts *o, const char *s)
{
    char buf[64];
    snprintf(buf, sizeof(buf), "%s", s);
    o->signature = o->overlap = 0;
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ","))
        if (!strcmp(t, "signature"))
            o->signature = 1;
        else if (!strcmp(t, "overlap"))
            o->overlap = 1;
        else if (!strcmp(t, "all"))
            o->signature = o->overlap = 1;
        else
            cli_bad_arg("--tests: '%s' is not a test (signature, overlap, all)", t);
    if (!o->signature && !o->overlap)
        cli_bad_arg("--tests: empty list (signature, overlap, all)");
}

static void defaults(struct lp_opts *o, int quick)
{
    static const double deltas[] = { 0, 1, 2, 5, 10, 20, 50, 100 }, deltas_quick[] = { 0, 10, 40 };
    o->signature = 1;
    o->n_deltas = quick ? 3 : 8;
    memcpy(o->deltas_us, quick ? deltas_quick : deltas, sizeof(double) * (size_t)o->n_deltas);
    o->n_bursts = 0;
    for (uint32_t m = 1; m <= (quick ? 256u : 1024u); m *= 2)
        o->bursts[o->n_bursts++] = m;
    /* Enough requests in flight that the round trip of the largest ΔL
     * swept (docs/logp.md) does not limit g; seed 000's fixed window did,
     * its Table 2 shows g rising with L. */
    o->window = quick ? 64 : 256;
    o->bulk = 8192;
    o->reps = quick ? 3 : 5;
    o->count = quick ? 500 : 1000;
    o->timeout_ms = 10000;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    o->cores[0] = 0;
    o->cores[1] = ncpu > 1 ? 1 : 0;
}

static void parse(int argc, char **argv, struct lp_opts *o)
{
    int quick = 0;
    for (int i = 2; i < argc; i++)
        quick |= !strcmp(argv[i], "--quick");
    defaults(o, quick);
    long list[LP_MAX_BURSTS];
    const char *a;
    for (int i = 1; (a = cli_next_arg(argc, argv, &i));) {   /* after "--logp" */
        if (!strcmp(a, "--quick")) {
            continue;
        } else if (!strcmp(a, "--tests")) {
            parse_tests(o, cli_value(argc, argv, &i));
        } else if (!strcmp(a, "--deltas")) {
            o->n_deltas = parse_doubles(a, cli_value(argc, argv, &i), o->deltas_us, LP_MAX_DELTAS, 0, 1e5);
        } else if (!strcmp(a, "--bursts")) {
            int n = bench_parse_list(cli_value(argc, argv, &i), list, LP_MAX_BURSTS, 1, 100000);
            if (n <= 0)
                cli_bad_arg("--bursts: expected up to %d comma-separated burst sizes in 1..100000", LP_MAX_BURSTS);
            for (int k = 1; k < n; k++)
                if (list[k] <= list[k - 1])
                    cli_bad_arg("--bursts: the sizes must ascend");
            o->n_bursts = n;
            for (int k = 0; k < n; k++)
                o->bursts[k] = (uint32_t)list[k];
        } else if (!strcmp(a, "--window")) {
            o->window = (uint32_t)cli_parse_long(a, cli_value(argc, argv, &i), 1, 4096);
        } else if (!strcmp(a, "--bulk")) {
            o->bulk = (uint32_t)cli_parse_long(a, cli_value(argc, argv, &i), 16, BENCH_MAX_MSG);
        } else if (!strcmp(a, "--reps")) {
            o->reps = (int)cli_parse_long(a, cli_value(argc, argv, &i), 1, 256);
        } else if (!strcmp(a, "--count")) {
            o->count = (uint32_t)cli_parse_long(a, cli_value(argc, argv, &i), 20, 10000);
        } else if (!strcmp(a, "--timeout-ms")) {
            o->timeout_ms = cli_parse_long(a, cli_value(argc, argv, &i), 100, 3600000);
        } else if (!strcmp(a, "--cores")) {
            long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
            if (bench_parse_list(cli_value(argc, argv, &i), list, 2, 0, ncpu - 1) != 2)
                cli_bad_arg("--cores: expected two CPU numbers A,B of this machine");
            o->cores[0] = (int)list[0];
            o->cores[1] = (int)list[1];
        } else if (a[0] == '-') {
            cli_unknown_option(a);
        } else {
            cli_bad_arg("%s: unexpected argument", a);
        }
    }
    /* The steady state is read from the second half of the longest burst,
     * which must be well past the window's filling. */
    if (o->signature && o->bursts[o->n_bursts - 1] < 4 * o->window)
        cli_bad_arg("--bursts: the longest burst (%u) must be at least 4 x --window (%u)",
                    o->bursts[o->n_bursts - 1], 4 * o->window);
}

/* ---- the program ---- */

static int pe_main(struct ini_pe *pe, void *arg)
{
    const struct lp_opts *o = arg;
    struct ini_cn *cn = ini_pe_cn(pe);
    int me = ini_cn_cluster(cn);
    int peer = ini_cn_config(cn)->clusters[1 - me].pes[0];
    if (bench_pin_cpu(o->cores[me]) < 0)
        cli_error("cannot pin cluster %d's compute node to CPU %d (it runs unpinned)", me, o->cores[me]);
    if (me == 1) {
        S.pe = pe;
        S.peer = peer;
        return serve();
    }
    C.pe = pe;
    C.peer = peer;
    static struct lp_result r;
    int rc = lp_measure(&C, &r);
    if (rc < 0)
        cli_error("%s", C.err);
    else
        report(o, &r, getenv("INI_KNOBS") ? getenv("INI_KNOBS") : "");
    lp_send(&C, LP_CTL, LP_OP_STOP, 0, LP_MIN_MSG);
    return rc < 0;
}

int bench_logp_main(int argc, char **argv)
{
    static struct lp_opts o;
    parse(argc, argv, &o);
    struct ini_cn *cn = cnprog_attach();
    const struct ini_config *cfg = ini_cn_config(cn);
    if (cfg->n_clusters != 2 || cfg->clusters[0].n_pes != 1 || cfg->clusters[1].n_pes != 1)
        cli_bad_arg("%s: --logp wants 2 clusters of one compute node each", cfg->path);
    cnprog_need_message(cfg, o.signature ? o.bulk : LP_MIN_MSG, "bulk request");
    C.hz = bench_tsc_hz();
    C.o = &o;
    C.buf = cnprog_calloc(o.bulk > LP_MIN_MSG ? o.bulk : LP_MIN_MSG, 1);
    cnprog_register(cn, LP_REQ, on_req);
    cnprog_register(cn, LP_REP, on_rep);
    cnprog_register(cn, LP_CTL, on_ctl);
    cnprog_register(cn, LP_DATA, on_data);
    int failed = ini_cn_run(cn, pe_main, &o);
    ini_cn_detach(cn);
    free(C.buf);
    return failed ? 1 : 0;
}
