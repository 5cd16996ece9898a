/*
 * synth-queue - the average INI queue length of a run, from its traces, as
 * the contention model of thesis chapter 6 defines it (Q_o: messages at an
 * INI, the one in service included), for the figure 6-3 experiment.
 *
 *   synth-queue RUN_DIR [--trim FRACTION] [--format text|csv]
 *
 * Reads every RUN_DIR/ini<ID>.trace (tools/trace/trace_file.h checks them)
 * and computes, per INI, time averages over a steady-state window: the span
 * in which every INI of the run was busy with messages (from the latest
 * first arrival to the earliest last completion over all INIs), minus
 * FRACTION of it at each end (default 0.05), so that neither the start of
 * the clusters at slightly different times nor the tail of the DONE
 * barrier weighs in.  A message counts over the part of its interval that
 * falls in the window (Little's law on the intervals, not sampling).
 *
 *   q_queue  messages between entering the INI's FIFO queue (t1) and done:
 *            the quantity `ini-trace report` prints as "queue len", here
 *            restricted to the window.
 *   q_ini    messages between reaching the INI and done, which is what
 *            the model counts: an outbound message reaches the INI when
 *            its PE submits it (t0, detailed traces only), an inbound one
 *            when the peer INI has handed its frames to the link (the
 *            peer's done stamp of the same message; every INI of a run
 *            shares one TSC).  A message waiting in a PE ring or a receive
 *            ring while the INI is busy is thus counted as queued, as it
 *            would be in the hardware queue of the thesis's INI.  Falls
 *            back to t1 where the earlier instant is unknown (summary
 *            traces, unmatched messages), and says how often.
 *   busy     utilization: measure of the union of the service intervals in
 *            the window over its length (service starts at t2 in detailed
 *            traces, else max(t1, the previous done), as ini-trace does).
 *   O_us     mean service time per message: busy time / messages served.
 *
 * The inbound-to-outbound match: messages of one (sending INI, receiving
 * INI, source PE, destination PE) arrive in the order they were sent (one
 * transport connection, in-order delivery), so the k-th inbound record of
 * that key at the receiver is the k-th outbound record at the sender.
 *
 * Output: one row per INI and a last row "mean" (the mean over the INIs,
 * as the thesis reports a queue length per INI node).  Exit status 0, 1 if
 * the traces cannot be read, 2 on bad arguments.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "trace_file.h"

static const char usage_text[] =
    "usage: synth-queue RUN_DIR [--trim FRACTION] [--format text|csv]\n"
    "       synth-queue --help | --version\n";

/* One message interval at an INI. */
struct span {
    uint64_t arrive_ini;   /* reached the INI (model's arrival) */
    uint64_t enqueue;      /* t1 */
    uint64_t service;      /* start of service (t2, or reconstructed) */
    uint64_t done;
    int early;             /* arrive_ini is known and earlier than t1 */
};

/* Record reference for matching inbound with outbound. */
struct key_ref {
    int sender, receiver;
    uint16_t src, dst;
    uint64_t t1;            /* order within the key */
    int file;               /* index in run.files */
    uint64_t idx;           /* index in that file's msgs */
};

static int cmp_key(const void *a, const void *b)
{
    const struct key_ref *x = a, *y = b;
    if (x->sender != y->sender) return x->sender < y->sender ? -1 : 1;
    if (x->receiver != y->receiver) return x->receiver < y->receiver ? -1 : 1;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst) return x->dst < y->dst ? -1 : 1;
    if (x->t1 != y->t1) return x->t1 < y->t1 ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int same_key(const struct key_ref *x, const struct key_ref *y)
{
    return x->sender == y->sender && x->receiver == y->receiver && x->src == y->src && x->dst == y->dst;
}

static uint64_t overlap(uint64_t s, uint64_t e, uint64_t a, uint64_t b)
{
    if (s < a) s = a;
    if (e > b) e = b;
    return e > s ? e - s : 0;
}

/* FIFO order: arrival in the queue, ties by completion. */
static int cmp_span_fifo(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    if (x->enqueue != y->enqueue) return x->enqueue < y->enqueue ? -1 : 1;
    return x->done < y->done ? -1 : x->done > y->done;
}

static int cmp_span_service(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    if (x->service != y->service) return x->service < y->service ? -1 : 1;
    return x->done < y->done ? -1 : x->done > y->done;
}

struct queue_opts {
    const char *dir;
    double trim;            /* fraction of the busy span cut at each end */
    int csv;
};

static void parse_args(int argc, char **argv, struct queue_opts *o)
{
    const char *arg;
    for (int i = 0; (arg = cli_next_arg(argc, argv, &i));) {
        if (!strcmp(arg, "--trim")) {
            const char *v = cli_value(argc, argv, &i);
            char *end;
            errno = 0;
            o->trim = strtod(v, &end);
            if (errno || *end || end == v || !(o->trim >= 0 && o->trim < 0.5))
                cli_bad_arg("--trim: '%s' is not a fraction in [0, 0.5)", v);
        } else if (!strcmp(arg, "--format")) {
            static const char *const formats[] = { "text", "csv", NULL };
            o->csv = cli_parse_choice(arg, cli_value(argc, argv, &i), formats) == 1;
        } else if (arg[0] == '-') {
            cli_unknown_option(arg);
        } else if (o->dir) {
            cli_bad_arg("%s: unexpected argument (one RUN_DIR)", arg);
        } else {
            o->dir = arg;
        }
    }
    if (!o->dir)
        cli_bad_arg("no run directory (synth-queue RUN_DIR [--trim FRACTION] [--format text|csv])");
}

/* The common busy span of all INIs, [*first, *last]; 0, or -1 said. */
static int common_busy_span(const struct trace_run *run, const char *dir, uint64_t *first, uint64_t *last)
{
    *first = 0;
    *last = UINT64_MAX;
    for (int f = 0; f < run->n_files; f++) {
        const struct trace_file *tf = &run->files[f];
        uint64_t lo = UINT64_MAX, hi = 0;
        for (uint64_t k = 0; k < tf->n; k++) {
            const struct trace_msg *m = &tf->msgs[k];
            if (m->t[INI_TS_ENQUEUE] < lo) lo = m->t[INI_TS_ENQUEUE];
            if (trace_msg_done(m) > hi) hi = trace_msg_done(m);
        }
        if (!tf->n) {
            cli_error("%s: no messages", tf->name);
            return -1;
        }
        if (lo > *first) *first = lo;
        if (hi < *last) *last = hi;
    }
    if (*last <= *first) {
        cli_error("%s: the INIs were never busy at the same time", dir);
        return -1;
    }
    return 0;
}

/* Every INI's spans and the keys of its outbound and inbound messages,
 * owned here (spans_free). */
struct spans {
    struct span **by_file;      /* [run.n_files][that file's n] */
    struct key_ref *outs, *ins;
    size_t no, ni;
};

static void spans_free(struct spans *sp, int n_files)
{
    free(sp->outs);
    free(sp->ins);
    for (int f = 0; sp->by_file && f < n_files; f++)
        free(sp->by_file[f]);
    free(sp->by_file);
}

/* One message's span, and its key into outs or ins. */
static void add_span(struct spans *sp, const struct trace_msg *m, int me, int f, uint64_t k)
{
    struct span *s = &sp->by_file[f][k];
    s->enqueue = m->t[INI_TS_ENQUEUE];
    s->done = trace_msg_done(m);
    s->arrive_ini = s->enqueue;
    if (m->kind == INI_TRACE_OUT && m->t[INI_TS_SUBMIT] && m->t[INI_TS_SUBMIT] <= s->enqueue) {
        s->arrive_ini = m->t[INI_TS_SUBMIT];
        s->early = 1;
    }
    s->service = m->t[INI_TS_DEQUEUE];
    if (m->kind == INI_TRACE_OUT)
        sp->outs[sp->no++] = (struct key_ref){ me, m->peer_ini, m->src_pe, m->dst_pe, m->t[INI_TS_ENQUEUE], f, k };
    else if (m->kind == INI_TRACE_IN)
        sp->ins[sp->ni++] = (struct key_ref){ m->peer_ini, me, m->src_pe, m->dst_pe, m->t[INI_TS_ENQUEUE], f, k };
}

/* The spans of every message of the run; 0, or -1 said. */
static int collect_spans(const struct trace_run *run, struct spans *sp)
{
    size_t n_out = 0, n_in = 0;
    for (int f = 0; f < run->n_files; f++)
        for (uint64_t k = 0; k < run->files[f].n; k++) {
            int kind = run->files[f].msgs[k].kind;
            n_out += kind == INI_TRACE_OUT;
            n_in += kind == INI_TRACE_IN;
        }
    sp->outs = calloc(n_out + 1, sizeof *sp->outs);
    sp->ins = calloc(n_in + 1, sizeof *sp->ins);
    sp->by_file = calloc((size_t)run->n_files, sizeof *sp->by_file);
    if (!sp->outs || !sp->ins || !sp->by_file) {
        cli_error("out of memory");
        return -1;
    }
    for (int f = 0; f < run->n_files; f++) {
        const struct trace_file *tf = &run->files[f];
        if (!(sp->by_file[f] = calloc(tf->n, sizeof **sp->by_file))) {
            cli_error("out of memory");
            return -1;
        }
        for (uint64_t k = 0; k < tf->n; k++)
            add_span(sp, &tf->msgs[k], tf->info.ini_id, f, k);
    }
    return 0;
}

/* Inbound messages reach the INI when the peer's outbound copy is done. */
static void match_inbound(const struct trace_run *run, struct spans *sp)
{
    struct key_ref *outs = sp->outs, *ins = sp->ins;
    size_t no = sp->no, ni = sp->ni;
    qsort(outs, no, sizeof *outs, cmp_key);
    qsort(ins, ni, sizeof *ins, cmp_key);
    for (size_t i = 0, o = 0; i < ni;) {
        /* Advance both lists to the same key, then pair them in order. */
        while (o < no && cmp_key(&outs[o], &ins[i]) < 0 && !same_key(&outs[o], &ins[i]))
            o++;
        size_t i_end = i, o_end = o;
        while (i_end < ni && same_key(&ins[i_end], &ins[i]))
            i_end++;
        while (o_end < no && same_key(&outs[o_end], &ins[i]))
            o_end++;
        /* With unequal counts (a trace buffer that filled up) pairing by
         * rank would be wrong: leave that key at t1. */
        if (i_end - i == o_end - o)
            for (size_t k = 0; k < i_end - i; k++) {
                const struct trace_msg *peer = &run->files[outs[o + k].file].msgs[outs[o + k].idx];
                struct span *s = &sp->by_file[ins[i + k].file][ins[i + k].idx];
                uint64_t sent = trace_msg_done(peer);
                if (sent <= s->enqueue) {
                    s->arrive_ini = sent;
                    s->early = 1;
                }
            }
        i = i_end;
        o = o_end;
    }
}

/* One INI's averages over the window. */
struct ini_queue {
    double qq, qi, busy, O_us, known;
};

/* Busy time in [a, b]: the union of the service intervals (sorts sp). */
static uint64_t busy_time(struct span *sp, uint64_t n, uint64_t a, uint64_t b)
{
    uint64_t busy = 0, busy_until = 0;
    qsort(sp, n, sizeof *sp, cmp_span_service);
    for (uint64_t k = 0; k < n; k++) {
        const struct span *s = &sp[k];
        uint64_t from = s->service > busy_until ? s->service : busy_until;
        if (s->done > from)
            busy += overlap(from, s->done, a, b);
        if (s->done > busy_until)
            busy_until = s->done;
    }
    return busy;
}

static struct ini_queue ini_queue(const struct trace_file *tf, struct span *sp, uint64_t a, uint64_t b)
{
    int detailed = tf->mode == INI_TRACE_DETAILED;
    qsort(sp, tf->n, sizeof *sp, cmp_span_fifo);
    uint64_t area_q = 0, area_i = 0, served = 0, known = 0, prev_done = 0;
    for (uint64_t k = 0; k < tf->n; k++) {
        struct span *s = &sp[k];
        /* A summary trace has no t2: a run-to-completion FIFO server
         * starts a message when it arrived and the one before is done. */
        if (!detailed || !s->service)
            s->service = s->enqueue > prev_done ? s->enqueue : prev_done;
        if (s->service > s->done)
            s->service = s->done;
        if (s->done > prev_done)
            prev_done = s->done;
        area_q += overlap(s->enqueue, s->done, a, b);
        area_i += overlap(s->arrive_ini, s->done, a, b);
        known += (uint64_t)s->early;
        if (s->done > a && s->done <= b)
            served++;
    }
    uint64_t busy = busy_time(sp, tf->n, a, b);
    double len = (double)(b - a), hz = (double)tf->info.tsc_hz;
    struct ini_queue q = { (double)area_q / len, (double)area_i / len, (double)busy / len, 0.0, 0.0 };
    q.O_us = served ? (double)busy / (double)served / hz * 1e6 : 0.0;
    q.known = tf->n ? (double)known / (double)tf->n : 0.0;
    return q;
}

/* The table: a row per INI over the window [a, b] of [first, last], a
 * last row of means. */
static void print_queues(const struct trace_run *run, struct spans *sp, const struct queue_opts *o,
                         uint64_t first, uint64_t last, uint64_t a, uint64_t b)
{
    double hz = (double)run->files[0].info.tsc_hz;
    if (o->csv)
        printf("ini,cluster,messages,q_queue,q_ini,busy,O_us,window_s,ini_arrival_known\n");
    else
        printf("%4s %8s %9s %9s %9s %7s %9s %9s  (window %.3f s of %.3f s, trim %.0f%%)\n", "INI", "cluster",
               "messages", "q_queue", "q_ini", "busy", "O_us", "known", (double)(b - a) / hz,
               (double)(last - first) / hz, o->trim * 100);
    struct ini_queue sum = { 0, 0, 0, 0, 0 };
    uint64_t total_msgs = 0;
    for (int f = 0; f < run->n_files; f++) {
        const struct trace_file *tf = &run->files[f];
        struct ini_queue q = ini_queue(tf, sp->by_file[f], a, b);
        sum.qq += q.qq, sum.qi += q.qi, sum.busy += q.busy, sum.O_us += q.O_us, sum.known += q.known;
        total_msgs += tf->n;
        if (o->csv)
            printf("%d,%d,%llu,%.6f,%.6f,%.6f,%.3f,%.3f,%.4f\n", tf->info.ini_id, tf->info.cluster_id,
                   (unsigned long long)tf->n, q.qq, q.qi, q.busy, q.O_us, (double)(b - a) / (double)tf->info.tsc_hz,
                   q.known);
        else
            printf("%4d %8d %9llu %9.4f %9.4f %7.4f %9.1f %8.1f%%\n", tf->info.ini_id, tf->info.cluster_id,
                   (unsigned long long)tf->n, q.qq, q.qi, q.busy, q.O_us, q.known * 100);
    }
    int n = run->n_files;
    if (o->csv)
        printf("mean,,%llu,%.6f,%.6f,%.6f,%.3f,%.3f,%.4f\n", (unsigned long long)total_msgs, sum.qq / n,
               sum.qi / n, sum.busy / n, sum.O_us / n, (double)(b - a) / hz, sum.known / n);
    else
        printf("%4s %8s %9llu %9.4f %9.4f %7.4f %9.1f %8.1f%%\n", "mean", "", (unsigned long long)total_msgs,
               sum.qq / n, sum.qi / n, sum.busy / n, sum.O_us / n, sum.known / n * 100);
}

int main(int argc, char **argv)
{
    struct queue_opts o = { NULL, 0.05, 0 };
    cli_init("synth-queue", usage_text);
    parse_args(argc, argv, &o);

    struct trace_run run;
    char err[TRACE_ERR_LEN];
    if (trace_run_load(&run, o.dir, err, sizeof err) < 0) {
        cli_error("%s", err);
        return 1;
    }
    if (run.n_files <= 0) {
        cli_error("%s: no traces", o.dir);
        return 1;
    }
    /* The common busy span of all INIs, then the trimmed window. */
    uint64_t first, last;
    if (common_busy_span(&run, o.dir, &first, &last) < 0)
        return 1;
    uint64_t cut = (uint64_t)((double)(last - first) * o.trim);
    uint64_t a = first + cut, b = last - cut;

    struct spans sp = { NULL, NULL, NULL, 0, 0 };
    if (collect_spans(&run, &sp) < 0)
        return 1;
    match_inbound(&run, &sp);
    print_queues(&run, &sp, &o, first, last, a, b);
    spans_free(&sp, run.n_files);
    trace_run_free(&run);
    return 0;
}
