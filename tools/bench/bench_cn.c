/*
 * bench_cn.c - compute node to compute node through INIs: the whole
 * system.  The parent writes a configuration of 2 clusters x 1 compute
 * node x 1 INI (memif, the INIs on the two benchmark cores, window
 * cn_window so that only the queue depth limits a flood) and runs
 *
 *     ini-cluster run CFG --run-dir DIR/run -- ini-bench --cn-agent DIR
 *
 * so the launcher starts both inid daemons and this program once per
 * cluster.  The agent reads the measurement set-up from DIR/setup.bin; in
 * cluster 0 its compute node runs the suite (ini_send to the other
 * cluster's compute node, ini_wait to receive) and writes DIR/result.bin,
 * in cluster 1 its compute node answers until STOP.  The daemons' idle
 * mode is --cn-idle (default auto: adaptive on a 2-core machine, where 2
 * daemons and 2 compute nodes cannot each have a core; poll wants 4 cores).
 * Each compute node runs on its cluster's INI core (idle.colocate, unless
 * --cn-colocate 0), so that the two hand one core to each other
 * (idle.yield_us) instead of waking each other across cores.  With
 * --cn-trace DIR the run is traced in detail and its directory is DIR,
 * kept: tools/inimeasure/c2c_path.py says where its round trips went.
 */
#include "bench.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "ini_cn.h"

#define H_BENCH 1

/* ---- the agent (inside the cluster run) ---- */

static struct {
    struct ini_pe *pe;
    int peer_pe;
    int inplace;        /* --cn-inplace */
    struct bench_eng eng;
} C;

static uint8_t c_src[BENCH_MAX_MSG];

/* The message written where it is sent from: the engine's header; the
 * rest stands for what a program computes in place (not written, as a
 * program's result would not be written twice). */
static void c_write(void *dst, uint32_t len, void *h)
{
    memcpy(dst, h, BENCH_HDR);
}

static int c_send(void *ctx, const uint8_t h[BENCH_HDR], uint32_t len)
{
    if (C.inplace)
        return ini_send_inplace(C.pe, C.peer_pe, H_BENCH, len, c_write, (void *)h);
    memcpy(c_src, h, BENCH_HDR);
    return ini_send(C.pe, C.peer_pe, H_BENCH, c_src, len);
}

static void c_flush(void *ctx) { }

static int c_poll(void *ctx)
{
    int n = ini_wait(C.pe, 2000);
    return n > 0 ? n : 0;
}

static const struct bench_ops c_ops = { c_send, c_flush, c_poll, NULL, 0 };

static void on_msg(struct ini_pe *pe, int src_pe, const void *data, uint32_t len, void *arg)
{
    if (len >= BENCH_HDR)
        bench_deliver(&C.eng, data, len);
}

struct agent {
    const char *dir;
    struct bench_setup setup;
    int rc;
};

static int pe_main(struct ini_pe *pe, void *arg)
{
    struct agent *a = arg;
    struct ini_cn *cn = ini_pe_cn(pe);
    const struct ini_config *cfg = ini_cn_config(cn);
    int me = ini_cn_cluster(cn);
    C.pe = pe;
    C.inplace = a->setup.cn_inplace;
    C.peer_pe = cfg->clusters[1 - me].pes[0];
    if (me == 1) {
        bench_serve(&C.eng);
        return 0;
    }
    struct layer_result res;
    bench_run_suite(&C.eng, &a->setup.p, &res);
    bench_send_kind(&C.eng, BK_STOP);
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/result.bin", a->dir);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(&res, sizeof(res), 1, f) != 1) {
        cli_error("cannot write %s", path);
        if (f)
            fclose(f);
        return 1;
    }
    fclose(f);
    return res.ok ? 0 : 1;
}

int bench_cn_agent(int argc, char **argv)
{
    if (argc != 3) {
        cli_bad_arg("--cn-agent: expected one DIR (the agent is started by ini-bench itself)");
    }
    static struct agent a;
    a.dir = argv[2];
    char path[PATH_MAX], err[512];
    snprintf(path, sizeof(path), "%s/setup.bin", a.dir);
    FILE *f = fopen(path, "rb");
    if (!f || fread(&a.setup, sizeof(a.setup), 1, f) != 1) {
        cli_error("cannot read %s", path);
        return 2;
    }
    fclose(f);
    struct ini_cn *cn = ini_cn_attach_env(err, sizeof(err));
    if (!cn) {
        cli_error("%s", err);
        return 1;
    }
    if (ini_cn_n_pes(cn) != 1) {
        cli_error("the agent wants one compute node per cluster");
        return 1;
    }
    for (size_t i = 0; i < sizeof(c_src); i++)
        c_src[i] = (uint8_t)(i * 13 + 1);
    bench_eng_init(&C.eng, &c_ops, NULL);
    ini_cn_register(cn, H_BENCH, on_msg, NULL);
    int failed = ini_cn_run(cn, pe_main, &a);
    ini_cn_detach(cn);
    return failed ? 1 : 0;
}

/* ---- the parent ---- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

const char *const bench_copy_names[BENCH_COPY_N] = { "compute node into its ring", "INI into frames",
                                                     "memif out", "memif in", "INI into a compute node's ring" };

/* A counters file's text (at most n - 1 bytes), or "" when absent. */
static void counters_text(const char *path, char *buf, size_t n)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    buf[fread(buf, 1, n - 1, f)] = '\0';
    fclose(f);
}

/* Counter `name` of group `group` ("transport" holds the totals, before
 * the connections'); 0 if absent. */
static uint64_t counter_of(const char *buf, const char *group, const char *name)
{
    char key[64];
    snprintf(key, sizeof(key), "\"%s\": {", group);
    const char *t = strstr(buf, key);
    snprintf(key, sizeof(key), "\"%s\": ", name);
    unsigned long long v = 0;
    if (t && (t = strstr(t, key)))
        sscanf(t + strlen(key), "%llu", &v);
    return v;
}

/* What the run's counters say: retransmissions (timer + NAK), and the
 * bytes each copy of the path moved (both INIs: the figures are per byte
 * the compute nodes received).  memif's driver copies every frame it
 * sends and every one it receives (no zero-copy without hugepages), so
 * its copies are the link's bytes, headers and ACKs included. */
static void read_counters(const char *run_dir, struct layer_result *r)
{
    uint64_t c[BENCH_COPY_N] = { 0 }, checked = 0, payload = 0;
    static char buf[32768];
    for (int i = 0; i < 2; i++) {
        char path[PATH_MAX + 32];
        snprintf(path, sizeof(path), "%s/ini%d.counters.json", run_dir, i);
        counters_text(path, buf, sizeof(buf));
        r->retransmissions += counter_of(buf, "transport", "retx_timer") + counter_of(buf, "transport", "retx_nak");
        c[BENCH_COPY_CN] += counter_of(buf, "messages", "cn_copied");
        c[BENCH_COPY_FRAMES] += counter_of(buf, "transport", "tx_copied");
        c[BENCH_COPY_LINK_OUT] += counter_of(buf, "link", "tx_bytes");
        c[BENCH_COPY_LINK_IN] += counter_of(buf, "link", "rx_bytes");
        c[BENCH_COPY_RINGS] += counter_of(buf, "messages", "ring_copied");
        checked += counter_of(buf, "transport", "rx_checked");
        payload += counter_of(buf, "transport", "bytes_delivered");
    }
    for (int k = 0; k < BENCH_COPY_N && payload; k++)
        r->copies[k] = (double)c[k] / (double)payload;
    r->checked = payload ? (double)checked / (double)payload : 0;
}

static int write_config(const char *path, const struct bench_setup *s)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    const char *idle = s->cn_idle < 0 ? "auto" : s->cn_idle ? "adaptive" : "poll";
    char extra[96] = "", rings[64] = "";
    if (s->cn_ring_bytes)
        snprintf(rings, sizeof(rings), "rings   = { bytes = %d; };\n", s->cn_ring_bytes);
    if (s->cn_yield_us >= 0)
        snprintf(extra, sizeof(extra), " yield_us = %d;", s->cn_yield_us);
    if (s->cn_colocate >= 0)
        snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), " colocate = %s;",
                 s->cn_colocate ? "true" : "false");
    fprintf(f, "# ini-bench: 2 clusters x 1 compute node x 1 INI over memif\n"
               "version = 1;\n"
               "network = { mode = \"memif\"; };\n"
               "policy  = { compute = \"static\"; ini = \"static\"; };\n"
               "stack   = { mtu = %d; window = %d; seq_bits = 32; send_timeout_us = 2000;\n"
               "            ack_timeout_us = 200; max_message = %d; nak = true; segmentation = %s; };\n"
               "idle    = { mode = \"%s\"; spin_us = 5; max_sleep_us = 1000;%s };\n"
               "trace   = { mode = \"%s\"; records = 4194304; };\n"
               "%s"
               "clusters = (\n"
               "  { id = 0; pes = [0]; inis = ( { id = 0; core = %d; ip = \"198.18.0.1\"; } ); },\n"
               "  { id = 1; pes = [1]; inis = ( { id = 1; core = %d; ip = \"198.18.0.2\"; } ); }\n"
               ");\n",
            s->mtu, s->cn_window, BENCH_MAX_MSG, s->segment ? "true" : "false", idle, extra,
            s->cn_trace ? "detailed" : "off", rings, s->cores[0],
            s->cores[1]);
    return fclose(f);
}

int bench_cn_layer(const struct bench_setup *s, struct layer_result *r)
{
    memset(r, 0, sizeof(*r));
    char dir[] = "/tmp/ini-bench-cn.XXXXXX";
    if (!mkdtemp(dir)) {
        snprintf(r->err, sizeof(r->err), "mkdtemp: %s", strerror(errno));
        return -1;
    }
    char cfg[PATH_MAX], setup[PATH_MAX], run_dir[PATH_MAX], log[PATH_MAX], result[PATH_MAX];
    char launcher[PATH_MAX];
    snprintf(cfg, sizeof(cfg), "%s/cn.cfg", dir);
    snprintf(setup, sizeof(setup), "%s/setup.bin", dir);
    /* --cn-trace: the run's directory (its traces) is kept where asked */
    if (s->cn_trace)
        snprintf(run_dir, sizeof(run_dir), "%s", s->cn_trace);
    else
        snprintf(run_dir, sizeof(run_dir), "%s/run", dir);
    snprintf(log, sizeof(log), "%s/launcher.out", dir);
    snprintf(result, sizeof(result), "%s/result.bin", dir);
    snprintf(launcher, sizeof(launcher), "%s", s->self);
    char *slash = strrchr(launcher, '/');
    snprintf(slash ? slash + 1 : launcher, sizeof(launcher) - (size_t)(slash ? slash + 1 - launcher : 0),
             "ini-cluster");
    FILE *f = fopen(setup, "wb");
    int ok = f && fwrite(s, sizeof(*s), 1, f) == 1;
    if (f)
        fclose(f);
    if (!ok || write_config(cfg, s) < 0) {
        snprintf(r->err, sizeof(r->err), "cannot write %s", dir);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        FILE *o = freopen(log, "w", stdout);
        if (!o || dup2(fileno(stdout), 2) < 0)
            _exit(127);
        execl(launcher, launcher, "run", cfg, "--run-dir", run_dir, "--timeout", s->quick ? "100" : "900",
              "--", s->self, "--cn-agent", dir, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0) {
        snprintf(r->err, sizeof(r->err), "cannot run %.120s", launcher);
        return -1;
    }
    f = fopen(result, "rb");
    ok = f && fread(r, sizeof(*r), 1, f) == 1;
    if (f)
        fclose(f);
    if (!ok) {
        memset(r, 0, sizeof(*r));
        snprintf(r->err, sizeof(r->err), "cluster run failed (exit %d); see %.100s",
                 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), log);
        return -1;
    }
    read_counters(run_dir, r);
    if (r->ok && !(WIFEXITED(st) && WEXITSTATUS(st) == 0) && s->p.verbose)
        cli_error("ini-cluster exited with status %d (results kept); see %s",
                  WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), log);
    if (r->ok && !s->p.verbose)
        nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return r->ok ? 0 : -1;
}
