/*
 * ini-vtime-queue - a known answer for the virtual-time mode: an open
 * Poisson stream of messages through one INI, whose queue M/D/1 predicts.
 *
 *   ini-cluster gen 1 2 1 -o one.cfg
 *   ini-cluster run one.cfg --time virtual -- ini-vtime-queue [--rho R] [--count N] [--seed S]
 *
 * Compute node 0 sends N empty messages to compute node 1 of its own
 * cluster, the gaps between them exponential, declared as work
 * (ini_work_cycles), so that they reach the INI as a Poisson stream.  The
 * INI's service of a message to a node of its cluster is deterministic in
 * the cost model: D = its send side's per-message cost (no bytes, one
 * frame); the gap's mean is D / rho.  Node 1 takes each message at its
 * arrival and sums the time from its send: the INI's queue and service.
 * M/D/1 says the mean of that is D (1 + rho / (2 (1 - rho))).
 *
 * Prints "queue: N messages, rho R, D CYCLES: mean time in the INI M
 * cycles, M/D/1 P cycles, ratio X" on node 1's cluster; exit 0, 1 when the
 * program could not run (not a virtual run, another layout), 2 on bad
 * flags.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cnprog.h"
#include "ini_cn.h"
#include "splitmix.h"
#include "vt_cost.h"

enum { H_MSG = 1, H_END = 2 };

static const char *usage_text =
    "usage: ini-vtime-queue [--rho R] [--count N] [--seed S]\n"
    "       ini-vtime-queue --help | --version\n"
    "(run under ini-cluster run CONFIG --time virtual -- ini-vtime-queue; CONFIG: one cluster, 2 compute nodes, "
    "1 INI)\n";

static struct {
    double rho;
    long count;
    uint64_t seed;
} opt = { 0.5, 20000, 1 };

struct stamp {
    uint64_t seq, sent;
};

static struct {
    uint64_t received, next_seq, errors, ended;
    double total;             /* cycles in the INI, summed */
} sink;

static void parse_args(int argc, char **argv)
{
    const char *a;
    for (int i = 0; (a = cli_next_arg(argc, argv, &i));) {
        if (!strcmp(a, "--rho"))
            opt.rho = cli_parse_double(a, cli_value(argc, argv, &i), 0.01, 0.95);
        else if (!strcmp(a, "--count"))
            opt.count = cli_parse_long(a, cli_value(argc, argv, &i), 1, 10000000);
        else if (!strcmp(a, "--seed"))
            opt.seed = (uint64_t)cli_parse_long(a, cli_value(argc, argv, &i), 0, 1L << 62);
        else if (a[0] == '-')
            cli_unknown_option(a);
        else
            cli_bad_arg("%s: unexpected argument", a);
    }
}

/* Node 1: a message's time from its send to now, its arrival. */
static void on_msg(struct ini_pe *pe, int src, const void *data, uint32_t len, void *arg)
{
    struct stamp s;
    (void)src, (void)arg;
    if (len != sizeof s) {
        sink.errors++;
        return;
    }
    memcpy(&s, data, sizeof s);
    sink.errors += s.seq != sink.next_seq++;
    sink.total += (double)(ini_pe_vtime(pe) - s.sent);
    sink.received++;
}

static void on_end(struct ini_pe *pe, int src, const void *data, uint32_t len, void *arg)
{
    (void)pe, (void)src, (void)data, (void)len, (void)arg;
    sink.ended = 1;
}

/* Node 0: the Poisson stream.  Its clock when it sends is its last event's
 * plus the gap it declared (nothing reaches it, so nothing interrupts). */
static int source(struct ini_pe *pe, double D)
{
    uint64_t rng = opt.seed;
    for (long k = 0; k < opt.count; k++) {
        uint64_t gap = (uint64_t)llround(-(D / opt.rho) * log1p(-ini_splitmix_uniform(&rng)));
        struct stamp s = { (uint64_t)k, ini_pe_vtime(pe) + gap };
        ini_work_cycles(pe, gap);
        if (ini_send(pe, 1, H_MSG, &s, sizeof s) < 0)
            return -1;
    }
    return ini_send(pe, 1, H_END, NULL, 0);
}

static double service_cycles;

static int pe_main(struct ini_pe *pe, void *arg)
{
    (void)arg;
    if (ini_pe_local(pe) == 0)
        return source(pe, service_cycles);
    while (!sink.ended)
        if (ini_wait(pe, 0) < 0)
            return -1;
    return 0;
}

int main(int argc, char **argv)
{
    cli_init("ini-vtime-queue", usage_text);
    parse_args(argc, argv);
    struct ini_cn *cn = cnprog_attach();
    const struct ini_config *cfg = ini_cn_config(cn);
    struct ini_vt_costs costs;
    const char *set = getenv("INI_VT_COSTS");
    if (!ini_cn_vtime_hz(cn) || ini_vt_costs_named(set ? set : "thesis", &costs) < 0) {
        cli_error("not a virtual-time run (ini-cluster run --time virtual)");
        return 1;
    }
    if (cfg->n_clusters != 1 || ini_cn_n_pes(cn) != 2 || cfg->n_inis != 1) {
        cli_error("needs one cluster of 2 compute nodes and 1 INI (ini-cluster gen 1 2 1)");
        return 1;
    }
    service_cycles = (double)llround(costs.send.per_message);
    ini_cn_register(cn, H_MSG, on_msg, NULL);
    ini_cn_register(cn, H_END, on_end, NULL);
    int failed = ini_cn_run(cn, pe_main, NULL);
    double D = service_cycles, mean = sink.received ? sink.total / (double)sink.received : 0;
    double want = D * (1.0 + opt.rho / (2.0 * (1.0 - opt.rho)));
    printf("queue: %llu messages, rho %.2f, D %.0f cycles: mean time in the INI %.1f cycles, M/D/1 %.1f "
           "cycles, ratio %.4f; %llu errors\n",
           (unsigned long long)sink.received, opt.rho, D, mean, want, mean / want,
           (unsigned long long)sink.errors);
    ini_cn_detach(cn);
    return failed || sink.errors || sink.received != (uint64_t)opt.count ? 1 : 0;
}
