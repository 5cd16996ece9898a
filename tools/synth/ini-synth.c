/*
 * ini-synth - the synthetic contention workload of thesis chapter 6: every
 * compute node (PE) repeats the compute/request cycle of figure 6-2.  Run
 * under the launcher, one process per cluster:
 *
 *   ini-cluster run CONFIG -- ini-synth [--W CYCLES | --W-us US] [--o CYCLES | --o-us US]
 *       [--scale US_PER_CYCLE] [--mode sleep|spin] [--dist exp|fixed]
 *       [--pattern uniform|hotspot:SHARE[:PE]|neighbour] [--hot-sources N:FACTOR]
 *       [--duration SEC | --cycles N] [--seed S] [--timeout-ms MS]
 *
 * One cycle of a PE (figure 6-2, equation 6.1):
 *
 *   work W       the compute phase.  Request handlers of other PEs that
 *                arrive meanwhile run at once (the thesis's interrupts) and
 *                do not count as work: the phase ends when W of work is
 *                done, so it lasts R_w = W + the handlers that hit it.
 *   request      one message to a PE of another cluster (--pattern).
 *   block        until the reply arrives, serving requests meanwhile
 *                (ini_wait runs handlers while it waits).
 *   reply        the reply handler costs o and unblocks the thread.
 *
 * The request handler at the destination costs o, then sends the reply
 * from inside the handler; handlers never block on anything but their own
 * cost, and run atomically (FIFO, one at a time per PE), as the model
 * assumes.  R, the cycle time, runs from the start of the work to the end
 * of the reply handler.
 *
 * Costs are drawn per use: W and o fixed or exponentially distributed
 * (--dist; the model assumes exponential service times).  --mode says how
 * a cost is spent:
 *   sleep  a timed wait on CLOCK_MONOTONIC (the compute phase waits in
 *          ini_wait, so it still wakes for requests), so that many PEs can
 *          share the two cores of these machines and still behave as if
 *          each had its own.  The timer slack of every PE thread is set to
 *          1 ns, which leaves the wake-up latency of the scheduler (tens of
 *          microseconds here) as the noise; hence the experiment scales
 *          cycles to times large against it.
 *   spin   real CPU work, measured on the thread's CPU-time clock, polling
 *          for messages between checks: W and o are then CPU time, and
 *          PEs sharing a core slow each other down, as real work would.
 *
 * Times: --W and --o are in cycles of the thesis's 20 MHz Alewife and are
 * turned into microseconds by --scale (microseconds per cycle, default
 * 0.5: a cycle is stretched 10 times, see docs/synth.md); --W-us and --o-us
 * give microseconds directly.  Defaults: the figure 6-3 values W = 41789,
 * o = 742 cycles.
 *
 * Start and end across clusters: each PE first sends HELLO to every PE of
 * the other clusters and waits for theirs, so that the measured cycles all
 * run while every cluster is up.  It then works for --duration seconds
 * (or --cycles cycles) and stops issuing: its last request has been
 * answered, so it sends DONE, carrying how many requests it sent there, to
 * every PE of the other clusters and keeps serving until it has DONE from
 * all of them.  Nobody exits while another still needs a reply, and the
 * counts check that every request was served exactly once.
 *
 * Output, per cluster process: a header, one line per PE (cycles, mean R,
 * mean work and handler times as achieved), and last a summary line
 * "cluster C: P PEs, N cycles, mean R X us".  The same numbers go to
 * $INI_RUN_DIR/synth-cluster<C>.json.  Exit status 0, 1 on a protocol
 * error (lost or stray reply, count mismatch, the INIs stopped), 2 on bad
 * arguments.
 *
 * All state of a PE is touched only by its own thread: handlers run on the
 * receiving PE's thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "config.h"
#include "cli.h"
#include "clock.h"
#include "splitmix.h"
#include "cnprog.h"
#include "ini_cn.h"

enum { H_REQUEST = 1, H_REPLY = 2, H_DONE = 3, H_HELLO = 4 };

#define SCALE_DEFAULT   0.5        /* microseconds per Alewife cycle */
#define W_CYCLES_FIG63  41789.0
#define O_CYCLES_FIG63  742.0      /* the PE handler overhead o (lower case) */
#define MSG_MAGIC       0x4e595353u   /* "SSYN" */

/* ---- options ---- */

enum cost_mode { MODE_SLEEP, MODE_SPIN };
enum cost_dist { DIST_EXP, DIST_FIXED };
/* The names of --mode and --dist, for parsing and for the report. */
static const char *const mode_names[] = { [MODE_SLEEP] = "sleep", [MODE_SPIN] = "spin", NULL };
static const char *const dist_names[] = { [DIST_EXP] = "exp", [DIST_FIXED] = "fixed", NULL };
enum pattern   { PATTERN_UNIFORM, PATTERN_HOTSPOT, PATTERN_NEIGHBOUR };

static struct {
    double W_value, o_value;        /* as given */
    int W_in_us, o_in_us;           /* 1: the value is microseconds, 0: cycles */
    double scale;                   /* microseconds per cycle */
    double W_us, o_us;              /* resolved */
    enum cost_mode mode;
    enum cost_dist dist;
    enum pattern pattern;
    double hot_share;
    int hot_pe;                     /* -1: the first PE of cluster 0 */
    int hot_sources;                /* PEs per cluster with a shorter W */
    double hot_factor;              /* ... W divided by this */
    double duration_s;              /* 0 with cycles */
    long cycles;                    /* 0 with duration */
    uint64_t seed;
    long timeout_ms;
} opt = {
    .W_value = W_CYCLES_FIG63, .o_value = O_CYCLES_FIG63, .scale = SCALE_DEFAULT,
    .mode = MODE_SLEEP, .dist = DIST_EXP, .pattern = PATTERN_UNIFORM, .hot_pe = -1,
    .hot_factor = 1.0, .duration_s = 10.0, .seed = 1, .timeout_ms = 10000,
};




#define STR_(x) #x
#define STR(x) STR_(x)
static const char usage_text[] =
    "usage: ini-synth [--W CYCLES | --W-us US] [--o CYCLES | --o-us US] [--scale US_PER_CYCLE]\n"
    "                 [--mode sleep|spin] [--dist exp|fixed]\n"
    "                 [--pattern uniform|hotspot:SHARE[:PE]|neighbour] [--hot-sources N:FACTOR]\n"
    "                 [--duration SEC | --cycles N] [--seed S] [--timeout-ms MS]\n"
    "       ini-synth --help | --version\n"
    "defaults: --W 41789 --o 742 (cycles, figure 6-3) --scale " STR(SCALE_DEFAULT) " --mode sleep --dist exp\n"
    "          --pattern uniform --duration 10 --seed 1 --timeout-ms 10000\n"
    "(run under ini-cluster run CONFIG -- ini-synth ...)\n";

/* "hotspot:SHARE[:PE]" */
static void parse_hotspot(const char *v)
{
    char copy[128];
    snprintf(copy, sizeof copy, "%s", v + strlen("hotspot:"));
    char *pe = strchr(copy, ':');
    if (pe)
        *pe++ = '\0';
    opt.hot_share = cli_parse_double("--pattern hotspot:SHARE", copy, 0.0, 1.0);
    if (pe)
        opt.hot_pe = (int)cli_parse_long("--pattern hotspot:SHARE:PE", pe, 0, INI_MAX_PES - 1);
}

/* "N:FACTOR" */
static void parse_hot_sources(const char *v)
{
    char copy[128];
    snprintf(copy, sizeof copy, "%s", v);
    char *factor = strchr(copy, ':');
    if (!factor)
        cli_bad_arg("--hot-sources: '%s' is not N:FACTOR", v);
    *factor++ = '\0';
    opt.hot_sources = (int)cli_parse_long("--hot-sources N", copy, 0, INI_MAX_PES_PER_CLUSTER);
    opt.hot_factor = cli_parse_double("--hot-sources FACTOR", factor, 1.0, 1e6);
}

static void parse_args(int argc, char **argv)
{
    int seen_W = 0, seen_o = 0, seen_duration = 0, seen_cycles = 0;
    const char *a;
    for (int i = 0; (a = cli_next_arg(argc, argv, &i));) {
        if (a[0] != '-')
            cli_bad_arg("%s: unexpected argument", a);
        if (!strcmp(a, "--W") || !strcmp(a, "--W-us")) {
            const char *v = cli_value(argc, argv, &i);
            if (seen_W++)
                cli_bad_arg("%s: W given twice", a);
            opt.W_in_us = !strcmp(a, "--W-us");
            opt.W_value = cli_parse_double(a, v, 0.0, 1e9);
        } else if (!strcmp(a, "--o") || !strcmp(a, "--o-us")) {
            const char *v = cli_value(argc, argv, &i);
            if (seen_o++)
                cli_bad_arg("%s: o given twice", a);
            opt.o_in_us = !strcmp(a, "--o-us");
            opt.o_value = cli_parse_double(a, v, 0.0, 1e9);
        } else if (!strcmp(a, "--scale")) {
            const char *v = cli_value(argc, argv, &i);
            opt.scale = cli_parse_double(a, v, 1e-6, 1e6);
        } else if (!strcmp(a, "--mode")) {
            opt.mode = (enum cost_mode)cli_parse_choice(a, cli_value(argc, argv, &i), mode_names);
        } else if (!strcmp(a, "--dist")) {
            opt.dist = (enum cost_dist)cli_parse_choice(a, cli_value(argc, argv, &i), dist_names);
        } else if (!strcmp(a, "--pattern")) {
            const char *v = cli_value(argc, argv, &i);
            if (!strcmp(v, "uniform"))
                opt.pattern = PATTERN_UNIFORM;
            else if (!strcmp(v, "neighbour") || !strcmp(v, "neighbor"))
                opt.pattern = PATTERN_NEIGHBOUR;
            else if (!strncmp(v, "hotspot:", strlen("hotspot:"))) {
                opt.pattern = PATTERN_HOTSPOT;
                parse_hotspot(v);
            } else
                cli_bad_arg("--pattern: '%s' is not uniform, hotspot:SHARE[:PE] or neighbour", v);
        } else if (!strcmp(a, "--hot-sources")) {
            const char *v = cli_value(argc, argv, &i);
            parse_hot_sources(v);
        } else if (!strcmp(a, "--duration")) {
            const char *v = cli_value(argc, argv, &i);
            seen_duration = 1;
            opt.duration_s = cli_parse_double(a, v, 0.001, 86400.0);
        } else if (!strcmp(a, "--cycles")) {
            const char *v = cli_value(argc, argv, &i);
            seen_cycles = 1;
            opt.cycles = cli_parse_long(a, v, 1, 100000000);
        } else if (!strcmp(a, "--seed")) {
            const char *v = cli_value(argc, argv, &i);
            opt.seed = (uint64_t)cli_parse_long(a, v, 0, INT64_MAX);
        } else if (!strcmp(a, "--timeout-ms")) {
            const char *v = cli_value(argc, argv, &i);
            opt.timeout_ms = cli_parse_long(a, v, 1, 3600000);
        } else {
            cli_unknown_option(a);
        }
    }
    if (seen_duration && seen_cycles)
        cli_bad_arg("--duration and --cycles exclude each other");
    if (seen_cycles)
        opt.duration_s = 0;
    opt.W_us = opt.W_in_us ? opt.W_value : opt.W_value * opt.scale;
    opt.o_us = opt.o_in_us ? opt.o_value : opt.o_value * opt.scale;
}

/* ---- clocks and costs ---- */

/* A virtual-time run (ini-cluster run --time virtual, docs/virtual-time.md):
 * W and o are declared to the emulated machine (ini_work_cycles) instead
 * of slept or spun, and every time is read on the node's virtual clock,
 * turned into this program's microseconds (a cycle is --scale us). */
static int vt;

static uint64_t now_ns(void) { return ini_mono_ns(); }

/* The clock work is measured on: wall time when sleeping (the timed wait
 * stands for a PE of its own), the thread's CPU time when spinning. */
static uint64_t work_clock_ns(void)
{
    return opt.mode == MODE_SPIN ? ini_thread_cpu_ns() : ini_mono_ns();
}

static double uniform01(uint64_t *rng) { return ini_splitmix_uniform(rng); }

/* One draw of a cost with mean `mean_us`, in nanoseconds. */
static uint64_t draw_ns(uint64_t *rng, double mean_us)
{
    double us = opt.dist == DIST_FIXED ? mean_us : -mean_us * log1p(-uniform01(rng));
    return (uint64_t)llround(us * 1000.0);
}

/* Spends a handler's cost: sleeps or spins `ns` on the work clock, or in
 * virtual time declares it.  Polls nothing: a handler is atomic. */
static void spend(struct ini_pe *pe, uint64_t ns)
{
    if (!ns)
        return;
    if (vt) {
        ini_work_cycles(pe, (uint64_t)llround((double)ns / 1000.0 / opt.scale));
        return;
    }
    if (opt.mode == MODE_SLEEP) {
        ini_sleep_until_ns(now_ns() + ns);
        return;
    }
    uint64_t until = work_clock_ns() + ns;
    while (work_clock_ns() < until)
        ;
}

/* ---- per-PE state ---- */

struct sum {                 /* a mean accumulated in nanoseconds */
    uint64_t n;
    double total_ns;
};

static void sum_add(struct sum *s, uint64_t ns)
{
    s->n++;
    s->total_ns += (double)ns;
}

static double sum_mean_us(const struct sum *s) { return s->n ? s->total_ns / (double)s->n / 1000.0 : 0.0; }

struct pe_state {
    struct cnprog_pe c;                /* first: the PE, its progress and errors */
    /* Two streams: the program's draws (W, destinations) and the handlers'
     * (o), so that a PE's program draws the same W and destinations
     * whatever order the handlers run in (how many INIs, which policy):
     * runs that differ only in the machine then run the same workload. */
    uint64_t rng, rng_o;
    double W_us;                       /* this PE's mean W (hot sources: shorter) */

    /* the request in flight (one at a time: the thread blocks) */
    int waiting;
    int reply_in;
    int dst;
    uint32_t seq;
    uint32_t next_seq_to[INI_MAX_PES];
    uint32_t sent_to[INI_MAX_PES];
    uint64_t handler_work_ns;          /* work clock spent in handlers: not work */

    /* served */
    uint32_t req_from[INI_MAX_PES];
    int hello_from[INI_MAX_PES], n_hello;
    int done_from[INI_MAX_PES], n_done;

    /* measurements, all in ns */
    struct sum R;                      /* cycle: work start to reply handled */
    struct sum work;                   /* work achieved (handlers excluded) */
    struct sum R_w;                    /* compute phase, wall, handlers included */
    struct sum blocked;                /* request sent to reply handled */
    struct sum req_handler;            /* request handlers run here (o on the requests) */
    struct sum reply_handler;          /* reply handlers (o on the replies) */

};

static struct ini_cn *cn;
static const struct ini_config *cfg;
static int my_cluster;
static int n_local;
static struct pe_state *states;

/* Counts and, while there are few, prints an error of this PE. */
#define report(st, ...) cli_pe_error((st)->c.id, &(st)->c.errors, __VA_ARGS__)

static int other_cluster_pe(int pe)
{
    return pe >= 0 && pe < cfg->n_pes && cfg->pes[pe].cluster != my_cluster;
}

/* ---- handlers (on the receiving PE's thread) ---- */

struct synth_msg {
    uint32_t magic;
    uint32_t seq;
};

static void on_request(struct ini_pe *pe, int src, const void *data, uint32_t len, void *arg)
{
    struct pe_state *st = &states[ini_pe_local(pe)];
    uint64_t t0 = now_ns(), w0 = work_clock_ns();
    struct synth_msg m;
    if (len != sizeof m || !other_cluster_pe(src)) {
        report(st, "request from PE %d: %u bytes, or not from another cluster", src, len);
        return;
    }
    memcpy(&m, data, sizeof m);
    if (m.magic != MSG_MAGIC) {
        report(st, "request from PE %d: corrupted", src);
        return;
    }
    /* The handler's cost o comes first, then the reply (figure 6-2). */
    uint64_t o = draw_ns(&st->rng_o, opt.o_us);
    spend(pe, o);
    if (ini_send(pe, src, H_REPLY, &m, sizeof m) < 0) {
        report(st, "cannot reply to PE %d: %s", src, strerror(errno));
        st->c.fatal = errno == EPIPE;
    }
    st->req_from[src]++;
    st->handler_work_ns += vt ? o : work_clock_ns() - w0;
    sum_add(&st->req_handler, vt ? o : now_ns() - t0);
    st->c.last_progress_ns = now_ns();
}

static void on_reply(struct ini_pe *pe, int src, const void *data, uint32_t len, void *arg)
{
    struct pe_state *st = &states[ini_pe_local(pe)];
    uint64_t t0 = now_ns(), w0 = work_clock_ns();
    struct synth_msg m;
    if (len != sizeof m) {
        report(st, "reply from PE %d: %u bytes", src, len);
        return;
    }
    memcpy(&m, data, sizeof m);
    if (!st->waiting || st->reply_in || src != st->dst || m.magic != MSG_MAGIC || m.seq != st->seq) {
        report(st, "reply from PE %d (sequence %u) answers no outstanding request", src, m.seq);
        return;
    }
    /* The reply handler costs o too (R_y of the model). */
    uint64_t o = draw_ns(&st->rng_o, opt.o_us);
    spend(pe, o);
    st->reply_in = 1;
    st->handler_work_ns += vt ? o : work_clock_ns() - w0;
    sum_add(&st->reply_handler, vt ? o : now_ns() - t0);
    st->c.last_progress_ns = now_ns();
}

/* DONE carries how many requests the sender sent to this PE. */
static void on_done(struct ini_pe *pe, int src, const void *data, uint32_t len, void *arg)
{
    struct pe_state *st = &states[ini_pe_local(pe)];
    struct synth_msg m;
    st->c.last_progress_ns = now_ns();
    if (len != sizeof m || !other_cluster_pe(src)) {
        report(st, "DONE from PE %d: %u bytes, or not from another cluster", src, len);
        return;
    }
    memcpy(&m, data, sizeof m);
    if (m.magic != MSG_MAGIC || st->done_from[src]++) {
        report(st, "DONE from PE %d: corrupted or received twice", src);
        return;
    }
    st->n_done++;
    if (m.seq != st->req_from[src])
        report(st, "PE %d sent %u requests here, %u arrived", src, m.seq, st->req_from[src]);
}

static void on_hello(struct ini_pe *pe, int src, const void *data, uint32_t len, void *arg)
{
    struct pe_state *st = &states[ini_pe_local(pe)];
    st->c.last_progress_ns = now_ns();
    if (!other_cluster_pe(src) || st->hello_from[src]++) {
        report(st, "HELLO from PE %d: not from another cluster, or received twice", src);
        return;
    }
    st->n_hello++;
}

/* ---- the PE's run ---- */

static int serve(struct pe_state *st, const char *waiting_for)
{
    return cnprog_wait(&st->c, opt.timeout_ms, waiting_for);
}

/* Sends `handler` with `seq` to every PE of the other clusters. */
static void broadcast(struct pe_state *st, uint16_t handler, const char *what)
{
    for (int d = 0; d < cfg->n_pes && !st->c.fatal; d++) {
        if (!other_cluster_pe(d))
            continue;
        struct synth_msg m = { MSG_MAGIC, st->sent_to[d] };
        if (ini_send(st->c.pe, d, handler, &m, sizeof m) < 0) {
            report(st, "sending %s to PE %d failed: %s", what, d, strerror(errno));
            st->c.fatal = errno == EPIPE;
        }
    }
}

static int pick_destination(struct pe_state *st)
{
    const struct ini_cluster_cfg *next = &cfg->clusters[(my_cluster + 1) % cfg->n_clusters];
    switch (opt.pattern) {
    case PATTERN_NEIGHBOUR:
        return next->pes[st->c.local % next->n_pes];
    case PATTERN_HOTSPOT:
        /* The hot PE's own cluster cannot reach it inter-cluster: those
         * PEs send uniformly. */
        if (other_cluster_pe(opt.hot_pe) && uniform01(&st->rng) < opt.hot_share)
            return opt.hot_pe;
        break;
    case PATTERN_UNIFORM:
        break;
    }
    int k = (int)(uniform01(&st->rng) * st->c.n_others);
    for (int d = 0; d < cfg->n_pes; d++)
        if (other_cluster_pe(d) && k-- == 0)
            return d;
    return -1;   /* not reached: n_others > 0 is checked at start */
}

/* The time a cycle is measured on: the host's, or the node's virtual
 * clock in this program's nanoseconds (a cycle is --scale us). */
static uint64_t cycle_clock_ns(const struct pe_state *st)
{
    if (!vt)
        return now_ns();
    return (uint64_t)llround((double)ini_pe_vtime(st->c.pe) * opt.scale * 1000.0);
}

/* Work W: wait (sleep mode) or spin until W of work is done, handlers that
 * run meanwhile pushing the end back by their own cost; in virtual time,
 * declared, and the library's poll makes the handlers that arrive during
 * it interrupts.  The work achieved; 0, or -1 when the INIs stopped. */
static int work_phase(struct pe_state *st, uint64_t W_ns, uint64_t *work)
{
    st->handler_work_ns = 0;
    if (vt) {
        spend(st->c.pe, W_ns);
        *work = W_ns;
        return ini_poll(st->c.pe) < 0 ? -1 : 0;
    }
    uint64_t w_start = work_clock_ns();
    for (;;) {
        uint64_t end = w_start + W_ns + st->handler_work_ns, w = work_clock_ns();
        if (w >= end)
            break;
        if (opt.mode == MODE_SPIN) {
            ini_poll(st->c.pe);
            continue;
        }
        if (ini_wait(st->c.pe, (end - w + 999) / 1000) < 0)
            return -1;
    }
    *work = work_clock_ns() - w_start - st->handler_work_ns;
    return 0;
}

/* One compute/request cycle; 0, or -1 when the PE must give up. */
static int one_cycle(struct pe_state *st)
{
    uint64_t start = cycle_clock_ns(st), work;
    if (work_phase(st, draw_ns(&st->rng, st->W_us), &work) < 0) {
        report(st, "the INIs stopped while working");
        st->c.fatal = 1;
        return -1;
    }
    uint64_t work_end = cycle_clock_ns(st);
    sum_add(&st->work, work);
    sum_add(&st->R_w, work_end - start);

    /* The request, then block until its reply has been handled. */
    st->dst = pick_destination(st);
    st->seq = st->next_seq_to[st->dst]++;
    st->waiting = 1;
    st->reply_in = 0;
    struct synth_msg m = { MSG_MAGIC, st->seq };
    if (ini_send(st->c.pe, st->dst, H_REQUEST, &m, sizeof m) < 0) {
        report(st, "request to PE %d failed: %s", st->dst, strerror(errno));
        st->c.fatal = errno == EPIPE;
        return -1;
    }
    st->sent_to[st->dst]++;
    st->c.last_progress_ns = now_ns();
    while (!st->reply_in)
        if (serve(st, "waiting for a reply") < 0) {
            report(st, "lost: request %u to PE %d (cluster %d)", st->seq, st->dst,
                   cfg->pes[st->dst].cluster);
            return -1;
        }
    st->waiting = 0;
    uint64_t end = cycle_clock_ns(st);
    sum_add(&st->blocked, end - work_end);
    sum_add(&st->R, end - start);
    return 0;
}

static int pe_main(struct ini_pe *pe, void *arg)
{
    struct pe_state *st = &states[ini_pe_local(pe)];
    /* Timed waits end within a nanosecond of their deadline as far as the
     * kernel is concerned (default slack: 50 us, as large as the noise we
     * fight). */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

    /* Start together: HELLO to everyone, then wait for theirs. */
    st->c.last_progress_ns = now_ns();
    broadcast(st, H_HELLO, "HELLO");
    while (st->n_hello < st->c.n_others && !st->c.fatal)
        if (serve(st, "waiting for HELLO from the other clusters") < 0)
            break;

    uint64_t stop_at = now_ns() + (uint64_t)(opt.duration_s * 1e9);
    while (!st->c.fatal && !st->c.errors) {
        if (opt.cycles ? (long)st->R.n >= opt.cycles : now_ns() >= stop_at)
            break;
        if (one_cycle(st) < 0)
            break;
    }

    /* The end: our last reply is in, so DONE to everyone, then serve
     * until everyone has said DONE. */
    st->c.last_progress_ns = now_ns();
    broadcast(st, H_DONE, "DONE");
    while (st->n_done < st->c.n_others && !st->c.fatal)
        if (serve(st, "waiting for DONE from the other clusters") < 0) {
            for (int d = 0; d < cfg->n_pes; d++)
                if (other_cluster_pe(d) && !st->done_from[d])
                    report(st, "no DONE from PE %d (cluster %d)", d, cfg->pes[d].cluster);
            break;
        }
    return st->c.errors || st->c.fatal ? 1 : 0;
}

/* ---- report ---- */

static const char *mode_name(void) { return vt ? "virtual" : mode_names[opt.mode]; }
static const char *dist_name(void) { return dist_names[opt.dist]; }

static void pattern_text(char *buf, size_t len)
{
    switch (opt.pattern) {
    case PATTERN_UNIFORM:   snprintf(buf, len, "uniform"); break;
    case PATTERN_NEIGHBOUR: snprintf(buf, len, "neighbour"); break;
    case PATTERN_HOTSPOT:   snprintf(buf, len, "hotspot:%g:%d", opt.hot_share, opt.hot_pe); break;
    }
}

static void print_table(void)
{
    printf("%5s %8s %10s %10s %10s %10s %8s %9s %9s   (means, us)\n", "PE", "cycles", "R", "work",
           "R_w", "blocked", "served", "o_req", "o_reply");
    for (int p = 0; p < n_local; p++) {
        const struct pe_state *st = &states[p];
        printf("%5d %8" PRIu64 " %10.1f %10.1f %10.1f %10.1f %8" PRIu64 " %9.1f %9.1f\n", st->c.id, st->R.n,
               sum_mean_us(&st->R), sum_mean_us(&st->work), sum_mean_us(&st->R_w),
               sum_mean_us(&st->blocked), st->req_handler.n, sum_mean_us(&st->req_handler),
               sum_mean_us(&st->reply_handler));
    }
}

/* Cluster totals: mean R over the PEs that completed a cycle, and the
 * handler and work means pooled over all of them. */
struct totals {
    uint64_t cycles;
    double mean_R_us, pooled_R_us, work_us, o_us;
    int pes_with_cycles;
};

static struct totals totals(void)
{
    struct totals t = { 0 };
    struct sum R = { 0 }, work = { 0 }, handlers = { 0 };
    for (int p = 0; p < n_local; p++) {
        const struct pe_state *st = &states[p];
        t.cycles += st->R.n;
        if (st->R.n) {
            t.mean_R_us += sum_mean_us(&st->R);
            t.pes_with_cycles++;
        }
        R.n += st->R.n, R.total_ns += st->R.total_ns;
        work.n += st->work.n, work.total_ns += st->work.total_ns;
        handlers.n += st->req_handler.n + st->reply_handler.n;
        handlers.total_ns += st->req_handler.total_ns + st->reply_handler.total_ns;
    }
    if (t.pes_with_cycles)
        t.mean_R_us /= t.pes_with_cycles;
    t.pooled_R_us = sum_mean_us(&R);
    t.work_us = sum_mean_us(&work);
    t.o_us = sum_mean_us(&handlers);
    return t;
}

static void json_sum(FILE *f, const char *name, const struct sum *s)
{
    fprintf(f, "\"%s_us\": %.3f", name, sum_mean_us(s));
}

/* RUN_DIR/synth-cluster<C>.json, written atomically (tmp + rename). */
static void write_json(const struct totals *t, uint64_t errors)
{
    const char *dir = getenv("INI_RUN_DIR");
    if (!dir || !*dir)
        return;
    char path[INI_PATH_LEN + 64], tmp[INI_PATH_LEN + 80];
    snprintf(path, sizeof path, "%s/synth-cluster%d.json", dir, my_cluster);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        cli_error("cannot write %s: %s", tmp, strerror(errno));
        return;
    }
    char pattern[64];
    pattern_text(pattern, sizeof pattern);
    fprintf(f, "{\n  \"cluster\": %d, \"pes\": %d,\n", my_cluster, n_local);
    fprintf(f, "  \"params\": {\"W_us\": %.3f, \"o_us\": %.3f, \"scale_us_per_cycle\": %g, \"mode\": \"%s\", "
               "\"dist\": \"%s\", \"pattern\": \"%s\", \"hot_sources\": %d, \"hot_factor\": %g, "
               "\"duration_s\": %g, \"cycles\": %ld, \"seed\": %" PRIu64 "},\n",
            opt.W_us, opt.o_us, opt.scale, mode_name(), dist_name(), pattern, opt.hot_sources,
            opt.hot_factor, opt.duration_s, opt.cycles, opt.seed);
    fprintf(f, "  \"per_pe\": [");
    for (int p = 0; p < n_local; p++) {
        const struct pe_state *st = &states[p];
        fprintf(f, "%s\n    {\"pe\": %d, \"cycles\": %" PRIu64 ", \"W_mean_us\": %.3f, ", p ? "," : "", st->c.id,
                st->R.n, st->W_us);
        json_sum(f, "R", &st->R);
        fprintf(f, ", ");
        json_sum(f, "work", &st->work);
        fprintf(f, ", ");
        json_sum(f, "R_w", &st->R_w);
        fprintf(f, ", ");
        json_sum(f, "blocked", &st->blocked);
        fprintf(f, ", \"served\": %" PRIu64 ", ", st->req_handler.n);
        json_sum(f, "o_request", &st->req_handler);
        fprintf(f, ", ");
        json_sum(f, "o_reply", &st->reply_handler);
        fprintf(f, "}");
    }
    fprintf(f, "\n  ],\n");
    /* Keys unique in the file, so that a shell script can grep them. */
    fprintf(f, "  \"total_cycles\": %" PRIu64 ", \"mean_R_us\": %.3f, \"pooled_R_us\": %.3f, "
               "\"pooled_work_us\": %.3f, \"pooled_o_us\": %.3f, \"errors\": %" PRIu64 "\n}\n",
            t->cycles, t->mean_R_us, t->pooled_R_us, t->work_us, t->o_us, errors);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        cli_error("cannot write %s: %s", path, strerror(errno));
}

int main(int argc, char **argv)
{
    cli_init("ini-synth", usage_text);
    setvbuf(stdout, NULL, _IOLBF, 0);
    parse_args(argc, argv);
    cn = cnprog_attach();   /* applies the launcher's INI_POLICY */
    cfg = ini_cn_config(cn);
    my_cluster = ini_cn_cluster(cn);
    cnprog_need_message(cfg, sizeof(struct synth_msg), "messages");
    vt = ini_cn_vtime_hz(cn) != 0;
    if (vt && !opt.cycles)
        cli_bad_arg("--time virtual: give --cycles N (a --duration of host time would end the run at a point "
                    "the host chooses)");
    if (cfg->n_clusters < 2)
        cli_bad_arg("%s has one cluster: no inter-cluster requests to make", cfg->path);
    if (opt.pattern == PATTERN_HOTSPOT) {
        if (opt.hot_pe < 0)
            opt.hot_pe = cfg->clusters[0].pes[0];
        if (opt.hot_pe >= cfg->n_pes)
            cli_bad_arg("--pattern hotspot: PE %d is not a PE of %s (%d PEs)", opt.hot_pe, cfg->path, cfg->n_pes);
    }

    n_local = ini_cn_n_pes(cn);
    states = cnprog_calloc((size_t)n_local, sizeof *states);
    for (int p = 0; p < n_local; p++) {
        struct pe_state *st = &states[p];
        cnprog_pe_init(&st->c, cn, cfg, p);
        st->rng = opt.seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(st->c.id + 1));
        st->rng_o = st->rng ^ 0xd1b54a32d192ed03ull;
        st->W_us = p < opt.hot_sources ? opt.W_us / opt.hot_factor : opt.W_us;
    }
    cnprog_register(cn, H_REQUEST, on_request);
    cnprog_register(cn, H_REPLY, on_reply);
    cnprog_register(cn, H_DONE, on_done);
    cnprog_register(cn, H_HELLO, on_hello);

    char pattern[64];
    pattern_text(pattern, sizeof pattern);
    printf("ini-synth: cluster %d (%d PEs), mode %s, dist %s, W %.1f us, o %.1f us (scale %g us/cycle), "
           "pattern %s", my_cluster, n_local, mode_name(), dist_name(), opt.W_us, opt.o_us, opt.scale, pattern);
    if (opt.hot_sources)
        printf(", hot sources %d per cluster with W / %g", opt.hot_sources, opt.hot_factor);
    if (opt.cycles)
        printf(", %ld cycles per PE\n", opt.cycles);
    else
        printf(", %g s\n", opt.duration_s);

    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    int failed = ini_cn_run(cn, pe_main, NULL);

    print_table();
    uint64_t errors = 0;
    for (int p = 0; p < n_local; p++)
        errors += states[p].c.errors + (uint64_t)states[p].c.fatal;
    if (!errors && failed)
        errors = (uint64_t)failed;
    struct totals t = totals();
    write_json(&t, errors);
    printf("cluster %d: %d PEs, %" PRIu64 " cycles, mean R %.1f us, %" PRIu64 " errors\n", my_cluster, n_local,
           t.cycles, t.mean_R_us, errors);
    ini_cn_detach(cn);
    return errors ? 1 : 0;
}
