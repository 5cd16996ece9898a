/*
 * ini-bench - measures every layer of the INI's path in one run, with the
 * microbenchmarks of seed 003 (section 4) and the LogGP-style parameters
 * of its section 3: round trip and EEL, CPU overheads o_s and o_r, the gap
 * g for small messages at queue depths 1..64, the per-byte gap G from a
 * size sweep 8 bytes..64 KB, and M = g/G.
 *
 *   ini-bench [--quick] [--format table|csv|json] [--layers LIST]
 *             [--runs N] [--count N] [--budget-ms N] [--depths LIST]
 *             [--sizes LIST] [--bw-depth N] [--window N] [--cores A,B]
 *             [--cn-idle auto|poll|adaptive] [--cn-window N]
 *             [--cn-yield-us N] [--cn-colocate 0|1] [--cn-inplace 0|1] [--cn-ring-bytes N]
 *             [--segment on|off]
 *             [--mtu N] [--split] [--rtt-bytes B] [--plot FILE | --no-plot] [--save PREFIX]
 *             [--verbose]
 *   ini-bench --inproc [...]     the stack path in one process (callgrind)
 *   ini-bench --checksum [--reps N]  the CRC and sum pass of a 64 KB message,
 *                                each path this CPU has (bench_checksum.c)
 *   ini-bench --probe [--cores A,B]  the machine's state: a cache line's round
 *                                trip between two CPUs, a core's speed
 *                                (bench_probe.c; recorded by the experiments)
 *   ini-bench --handover [--cores A]  two processes handing CPU A to each other
 *                                by sched_yield: ns per switch (bench_handover.c)
 *
 * Layers (LIST: comma-separated names, default all):
 *   raw-dpdk            Ethernet frames over memif, no stack
 *   udp-ip              lwIP UDP/IP over the same link through our glue
 *   reliable            the INI's sliding-window transport over the glue
 *   compute-to-compute  compute node to compute node through two inids
 *                       started by ini-cluster run (the whole system)
 *   kernel-udp          kernel UDP sockets over loopback
 * and the peers, what a user could pick instead (skipped, not failed,
 * when the library was not built in or cannot run here):
 *   ucx-am-tcp          UCX active messages, UCX_TLS=tcp over loopback
 *   ucx-am-sm           UCX active messages, UCX_TLS=sm (shared memory)
 *   ofi-rxd-udp         libfabric reliable datagrams, udp;ofi_rxd, loopback
 *
 * Design: this process only orchestrates.  The first three layers run in
 * two forked processes (bench_dpdk.c), one per side, each with its own EAL
 * and memif port, pinned to the two cores (--cores, default 0,1) and
 * busy-polling; the compute-node layer runs under the launcher
 * (bench_cn.c); kernel UDP in two forked processes on the same cores
 * (bench_kernel.c).  All of them drive the same measuring engine
 * (bench_engine.c), so every layer is measured the same way; the results
 * come back as binary structs and are reported here (bench_report.c).
 *
 * Output goes to stdout; --save PREFIX also writes the same run as
 * PREFIX.txt, PREFIX.csv and PREFIX.json; --plot FILE writes a PNG of
 * bandwidth by size with gnuplot (docs/results/bench-bandwidth.png is
 * made with --plot; nothing is plotted unless asked).  Exit status 0 if every layer was measured, 1 if
 * one failed, 2 for bad arguments.
 */
#include "bench.h"
#include "bench_logp.h"
#include "cli.h"
#include "config.h"             /* INI_RING_BYTES_MIN and _MAX */
#include "stack_defaults.h"     /* the transport's default segmentation */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --cn-trace's directory: the launcher makes it, or takes it empty. */
static int dir_new_or_empty(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return errno == ENOENT;
    struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(d)))
        empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    closedir(d);
    return empty;
}

static const char usage_text[] =
    "usage: ini-bench [--quick] [--format table|csv|json] [--layers LIST] [--runs N] [--count N]\n"
    "                 [--budget-ms N] [--depths LIST] [--sizes LIST] [--bw-depth N] [--window N]\n"
    "                 [--cores A,B] [--cn-idle auto|poll|adaptive] [--cn-window N]\n"
    "                 [--cn-yield-us N] [--cn-colocate 0|1] [--cn-inplace 0|1] [--cn-ring-bytes N] [--cn-trace DIR]\n"
    "                 [--segment on|off] [--mtu N] [--split] [--rtt-bytes B]\n"
    "                 [--plot FILE | --no-plot] [--save PREFIX] [--verbose]\n"
    "       ini-bench --inproc [--layer raw|udp-ip|reliable|all] [--count N] [--window W] [--size B] [--mac]\n"
    "                        [--segment on|off] [--mtu N]\n"
    "                        [--flood K [--flood-stranger]]\n"
    "       ini-bench --inproc --pingpong [--count N] [--size B] [--mac]\n"
    "       ini-bench --checksum [--reps N]\n"
    "       ini-bench --probe [--cores A,B]\n"
    "       ini-bench --handover [--cores A]\n"
    "       ini-bench --logp [--tests signature,overlap] [--deltas US,...] [--bursts M,...] [--window N]\n"
    "                        [--bulk BYTES] [--reps N] [--count N] [--cores A,B] [--timeout-ms N] [--quick]\n"
    "                        (under ini-cluster run: the LogP parameters, bench_logp.h)\n"
    "       ini-bench --help | --version\n"
    "layers: raw-dpdk, udp-ip, reliable, compute-to-compute, kernel-udp,\n"
    "        ucx-am-tcp, ucx-am-sm, ofi-rxd-udp (peers)\n"
    "(see the header of tools/bench/ini-bench.c and docs/performance.md)\n";

/* What the options ask for before it is checked and put into the setup. */
struct bench_opts {
    enum bench_format fmt;
    const char *plot, *layers, *depths, *sizes, *cores, *save, *cn_trace;
    int no_plot;
    long runs, count, budget_ms, bw_depth, window, cn_window, rtt_bytes;
    long cn_yield_us, cn_colocate, cn_inplace, cn_ring_bytes, mtu;
};

/* The options that take a number: flag, field of struct bench_opts, range. */
static const struct long_option {
    const char *flag;
    size_t field;
    long lo, hi;
} long_options[] = {
    { "--runs", offsetof(struct bench_opts, runs), 1, 256 },
    { "--count", offsetof(struct bench_opts, count), 20, 10000000 },
    { "--budget-ms", offsetof(struct bench_opts, budget_ms), 1, 100000 },
    /* 22 x 45 fragments of a 65,000-byte message fill a 1024-slot memif ring */
    { "--bw-depth", offsetof(struct bench_opts, bw_depth), 1, 22 },
    { "--window", offsetof(struct bench_opts, window), 1, 512 },
    { "--cn-yield-us", offsetof(struct bench_opts, cn_yield_us), 0, 1000000 },
    { "--cn-colocate", offsetof(struct bench_opts, cn_colocate), 0, 1 },
    /* 1: the compute nodes write each message into its ring record
     * (ini_send_inplace, no copy); 0: build it in a buffer, ini_send copies */
    { "--cn-inplace", offsetof(struct bench_opts, cn_inplace), 0, 1 },
    /* the compute-to-compute run's rings.bytes (a power of two) */
    { "--cn-ring-bytes", offsetof(struct bench_opts, cn_ring_bytes), INI_RING_BYTES_MIN, INI_RING_BYTES_MAX },
    /* the frames of every memif layer, raw included (so that the layers
     * compare), and the compute-to-compute run's stack.mtu */
    { "--mtu", offsetof(struct bench_opts, mtu), 576, 9000 },
    { "--rtt-bytes", offsetof(struct bench_opts, rtt_bytes), BENCH_HDR, BENCH_MAX_MSG },
    { "--cn-window", offsetof(struct bench_opts, cn_window), 1, 4096 },
};

/* The options that take a string, kept as given and checked later. */
static const struct string_option {
    const char *flag;
    size_t field;
} string_options[] = {
    { "--layers", offsetof(struct bench_opts, layers) },
    { "--depths", offsetof(struct bench_opts, depths) },
    { "--sizes", offsetof(struct bench_opts, sizes) },
    { "--cores", offsetof(struct bench_opts, cores) },
    /* the compute-to-compute run traced in detail, its run directory kept
     * for ini-trace (tools/inimeasure/c2c_path.py) */
    { "--cn-trace", offsetof(struct bench_opts, cn_trace) },
    { "--plot", offsetof(struct bench_opts, plot) },
    { "--save", offsetof(struct bench_opts, save) },
};

/* An option of the two tables above: its value stored, 1; else 0. */
static int parse_table_option(struct bench_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    for (size_t k = 0; k < sizeof(long_options) / sizeof(long_options[0]); k++)
        if (!strcmp(a, long_options[k].flag)) {
            long *v = (long *)((char *)o + long_options[k].field);
            *v = cli_parse_long(a, cli_value(argc, argv, i), long_options[k].lo, long_options[k].hi);
            return 1;
        }
    for (size_t k = 0; k < sizeof(string_options) / sizeof(string_options[0]); k++)
        if (!strcmp(a, string_options[k].flag)) {
            const char **v = (const char **)(void *)((char *)o + string_options[k].field);
            *v = cli_value(argc, argv, i);
            return 1;
        }
    return 0;
}

/* The measuring run's options into o and s; a bad one exits 2. */
static void parse_args(int argc, char **argv, struct bench_setup *s, struct bench_opts *o)
{
    static const char *const formats[] = { "table", "csv", "json", NULL };  /* enum bench_format */
    static const char *const idles[] = { "auto", "poll", "adaptive", NULL };  /* -1, 0, 1 */
    static const char *const modes[] = { "off", "on", NULL };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_common_flag(a) || parse_table_option(o, argc, argv, &i))
            continue;
        if (!strcmp(a, "--quick"))
            s->quick = 1;
        else if (!strcmp(a, "--no-plot"))
            o->no_plot = 1;
        else if (!strcmp(a, "--verbose") || !strcmp(a, "-v"))
            s->p.verbose = 1;
        else if (!strcmp(a, "--split"))
            s->split = 1;
        else if (!strcmp(a, "--format"))
            o->fmt = (enum bench_format)cli_parse_choice(a, cli_value(argc, argv, &i), formats);
        else if (!strcmp(a, "--cn-idle"))
            s->cn_idle = cli_parse_choice(a, cli_value(argc, argv, &i), idles) - 1;
        else if (!strcmp(a, "--segment"))   /* stack.segmentation of the reliable and compute-to-compute layers */
            s->segment = cli_parse_choice(a, cli_value(argc, argv, &i), modes);
        else if (a[0] == '-')
            cli_unknown_option(a);
        else
            cli_bad_arg("%s: unexpected argument", a);
    }
}

/* The numbers of the options into the setup's parameters. */
static void apply_numbers(struct bench_setup *s, const struct bench_opts *o)
{
    s->p.runs = (int)o->runs;
    s->p.count = (int)(o->count > 0 ? o->count : s->quick ? 2000 : 10000);
    s->p.run_budget_ns = (uint64_t)(o->budget_ms > 0 ? o->budget_ms : s->quick ? 20 : 200) * 1000000u;
    s->p.bw_depth = (int)o->bw_depth;
    s->p.window = (int)o->window;
    s->p.rtt_bytes = (uint32_t)o->rtt_bytes;
    s->cn_window = (int)o->cn_window;
    s->cn_yield_us = (int)o->cn_yield_us;
    s->cn_colocate = (int)o->cn_colocate;
    s->cn_inplace = (int)o->cn_inplace;
    s->cn_ring_bytes = (int)o->cn_ring_bytes;
    if (s->cn_ring_bytes & (s->cn_ring_bytes - 1))
        cli_bad_arg("--cn-ring-bytes: %d is not a power of two", s->cn_ring_bytes);
    s->mtu = (int)o->mtu;
    s->cn_trace = o->cn_trace;
    if (s->cn_trace && !dir_new_or_empty(s->cn_trace))
        cli_bad_arg("--cn-trace: %s exists and is not an empty directory", s->cn_trace);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

/* Sorted, without duplicates. */
static int uniq_sorted(long *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_long);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (k == 0 || v[i] != v[k - 1])
            v[k++] = v[i];
    return k;
}

/* --depths and --sizes (or their defaults), sorted and without repeats. */
static void set_depths_and_sizes(struct bench_setup *s, const struct bench_opts *o)
{
    long list[32];
    int n;
    if (o->depths) {
        if ((n = bench_parse_list(o->depths, list, BENCH_MAX_DEPTHS, 1, 512)) <= 0)
            cli_bad_arg("--depths: expected up to 16 comma-separated depths in 1..512");
    } else {
        const long d[] = { 1, 2, 4, 8, 16, 32, 64 };
        n = 7;
        memcpy(list, d, sizeof(d));
    }
    n = uniq_sorted(list, n);
    s->p.n_depths = n;
    for (int i = 0; i < n; i++)
        s->p.depths[i] = (int)list[i];
    if (o->sizes) {
        if ((n = bench_parse_list(o->sizes, list, BENCH_MAX_SIZES, BENCH_HDR, BENCH_MAX_MSG)) < 2)
            cli_bad_arg("--sizes: expected 2 to 24 comma-separated sizes in 8..65000");
    } else {
        n = 0;
        for (long b = 8; b <= 32768; b *= 2)
            list[n++] = b;
        list[n++] = BENCH_MAX_MSG;
    }
    n = uniq_sorted(list, n);
    if (n < 2)
        cli_bad_arg("--sizes: expected at least two different sizes");
    s->p.n_sizes = n;
    for (int i = 0; i < n; i++)
        s->p.sizes[i] = (uint32_t)list[i];
}

/* --cores A,B (default 0,1): two different CPUs of this machine. */
static void set_cores(struct bench_setup *s, const char *cores)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    long list[2];
    s->cores[0] = 0;
    s->cores[1] = ncpu > 1 ? 1 : 0;
    if (cores) {
        if (bench_parse_list(cores, list, 2, 0, ncpu - 1) != 2)
            cli_bad_arg("--cores: expected two CPU numbers A,B of this machine");
        s->cores[0] = (int)list[0];
        s->cores[1] = (int)list[1];
    }
    /* Each layer's two sides busy-poll, one pinned to each CPU: on one CPU
     * they meet once a scheduler tick, and a quick run never ends. */
    if (s->cores[0] == s->cores[1])
        cli_bad_arg("--cores: %d,%d: the two sides need two different CPUs (this machine has %ld)", s->cores[0],
                    s->cores[1], ncpu);
}

/* --layers LIST (default all) into s->layers_on. */
static void set_layers(struct bench_setup *s, const char *layers)
{
    if (!layers) {
        for (int l = 0; l < L_COUNT; l++)
            s->layers_on[l] = 1;
        return;
    }
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", layers);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int found = 0;
        for (int l = 0; l < L_COUNT; l++)
            if (!strcmp(tok, bench_layer_names[l]))
                s->layers_on[l] = found = 1;
        if (!found)
            cli_bad_arg("--layers: '%s' is not a layer (raw-dpdk, udp-ip, reliable, "
                        "compute-to-compute, kernel-udp, ucx-am-tcp, ucx-am-sm, ofi-rxd-udp)", tok);
    }
    int any = 0;
    for (int l = 0; l < L_COUNT; l++)
        any |= s->layers_on[l];
    if (!any)   /* "" or ",": nothing to measure is a mistake, not a run */
        cli_bad_arg("--layers: empty list (raw-dpdk, udp-ip, reliable, compute-to-compute, kernel-udp, "
                    "ucx-am-tcp, ucx-am-sm, ofi-rxd-udp)");
}

/* This program's path, for the cluster run; kept in static storage. */
static void set_self(struct bench_setup *s)
{
    static char self[PATH_MAX];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (sl <= 0)
        cli_bad_arg("cannot find this program's path (/proc/self/exe)");
    self[sl] = '\0';
    s->self = self;
}

static void say_layer(const struct bench_setup *s, const char *what)
{
    if (s->p.verbose)
        fprintf(stderr, "ini-bench: %s\n", what);
}

/* Measures every layer asked for, in the order of the report. */
static void run_layers(struct bench_setup *s, struct layer_result *res)
{
    FILE *la = fopen("/proc/loadavg", "r");
    if (!la || fscanf(la, "%lf", &s->loadavg) != 1)
        s->loadavg = -1;
    if (la)
        fclose(la);
    bench_tsc_hz();
    if (s->layers_on[L_RAW] || s->layers_on[L_UDP] || s->layers_on[L_REL]) {
        say_layer(s, "memif layers");
        bench_dpdk_layers(s, res);
    }
    if (s->layers_on[L_CN]) {
        say_layer(s, bench_layer_names[L_CN]);
        bench_cn_layer(s, &res[L_CN]);
    }
    if (s->layers_on[L_KERNEL]) {
        say_layer(s, bench_layer_names[L_KERNEL]);
        bench_kernel_layer(s, &res[L_KERNEL]);
    }
    static const char *const ucx_tls[2] = { "tcp", "sm" };
    for (int k = 0; k < 2; k++)
        if (s->layers_on[L_UCX_TCP + k]) {
            say_layer(s, bench_layer_names[L_UCX_TCP + k]);
            bench_ucx_layer(s, ucx_tls[k], &res[L_UCX_TCP + k]);
        }
    if (s->layers_on[L_OFI_RXD]) {
        say_layer(s, bench_layer_names[L_OFI_RXD]);
        bench_ofi_layer(s, &res[L_OFI_RXD]);
    }
}

/* Says which layers were skipped or failed; 1 if one failed. */
static int report_failures(const struct bench_setup *s, const struct layer_result *res)
{
    int failed = 0;
    for (int l = 0; l < L_COUNT; l++)
        if (s->layers_on[l] && !res[l].ok && res[l].skipped) {
            fprintf(stderr, "ini-bench: %s skipped: %s\n", bench_layer_names[l], res[l].err);
        } else if (s->layers_on[l] && !res[l].ok) {
            failed = 1;
            cli_error("%s: %s", bench_layer_names[l], res[l].err[0] ? res[l].err : "failed");
        }
    return failed;
}

/* --save PREFIX: the run as PREFIX.txt, .csv and .json; 1 if one failed. */
static int save_reports(const char *save, const struct bench_setup *s, const struct layer_result *res)
{
    static const char *ext[3] = { "txt", "csv", "json" };   /* enum bench_format */
    int failed = 0;
    for (int k = 0; k < 3; k++) {
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s.%s", save, ext[k]);
        FILE *f = fopen(path, "w");
        if (!f) {
            cli_error("cannot write %s", path);
            failed = 1;
            continue;
        }
        bench_report(f, (enum bench_format)k, s, res);
        fclose(f);
    }
    return failed;
}

typedef int mode_main(int argc, char **argv);

/* The other modes, each its own program behind a first flag; NULL: the
 * measuring run. */
static mode_main *find_mode(int argc, char **argv)
{
    static const struct {
        const char *flag;
        mode_main *main;
    } modes[] = {
        { "--cn-agent", bench_cn_agent }, { "--inproc", bench_inproc_main },
        { "--checksum", bench_checksum_main }, { "--probe", bench_probe_main },
        { "--handover", bench_handover_main }, { "--logp", bench_logp_main },
    };
    for (size_t k = 0; argc > 1 && k < sizeof(modes) / sizeof(modes[0]); k++)
        if (!strcmp(argv[1], modes[k].flag))
            return modes[k].main;
    return NULL;
}

int main(int argc, char **argv)
{
    cli_init("ini-bench", usage_text);
    mode_main *mode = find_mode(argc, argv);
    if (mode)
        return mode(argc, argv);

    static struct bench_setup s;
    static struct layer_result res[L_COUNT];
    /* The cluster run: one compute node per INI on shared cores, each
     * cluster's daemon and compute node on one core handing it over
     * (idle.colocate; idle.yield_us at the configuration's default). */
    struct bench_opts o = {
        .fmt = FMT_TABLE, .runs = 10, .count = -1, .budget_ms = -1, .bw_depth = 16, .window = 16,
        .cn_window = 64, .rtt_bytes = BENCH_HDR, .cn_yield_us = -1, .cn_colocate = 1, .cn_inplace = 1,
        .mtu = BENCH_MTU,
    };
    s.cn_idle = -1;
    s.segment = ini_swp_defaults().segment;
    parse_args(argc, argv, &s, &o);
    apply_numbers(&s, &o);
    set_depths_and_sizes(&s, &o);
    set_cores(&s, o.cores);
    set_layers(&s, o.layers);
    set_self(&s);

    run_layers(&s, res);
    int failed = report_failures(&s, res);
    bench_report(stdout, o.fmt, &s, res);
    fflush(stdout);
    if (o.save)
        failed |= save_reports(o.save, &s, res);
    const char *plot = o.no_plot ? NULL : o.plot;
    if (plot && bench_plot(plot, &s, res) < 0)
        cli_error("could not write the plot %s (gnuplot)", plot);
    return failed;
}
