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

int main(int argc, char **argv)
{
    const char *dir = NULL;
    double trim = 0.05;
    int csv = 0;
    cli_init("synth-queue", usage_text);
    const char *arg;
    for (int i = 0; (arg = cli_next_arg(argc, argv, &i));) {
        if (!strcmp(arg, "--trim")) {
            const char *v = cli_value(argc, argv, &i);
            char *end;
            errno = 0;
            trim = strtod(v, &end);
            if (errno || *end || end == v || !(trim >= 0 && trim < 0.5))
                cli_bad_arg("--trim: '%s' is not a fraction in [0, 0.5)", v);
        } else if (!strcmp(arg, "--format")) {
            static const char *const formats[] = { "text", "csv", NULL };
            csv = cli_parse_choice(arg, cli_value(argc, argv, &i), formats) == 1;
        } else if (arg[0] == '-') {
            cli_unknown_option(arg);
        } else if (dir) {
            cli_bad_arg("%s: unexpected argument (one RUN_DIR)", arg);
        } else {
            dir = arg;
        }
    }
    if (!dir)
        cli_bad_arg("no run directory (synth-queue RUN_DIR [--trim FRACTION] [--format text|csv])");

    struct trace_run run;
    char err[TRACE_ERR_LEN];
    if (trace_run_load(&run, dir, err, sizeof err) < 0) {
        cli_error("%s", err);
        return 1;
    }

    if (run.n_files <= 0) {
        cli_error("%s: no traces", dir);
        return 1;
    }

    /* The common busy span of all INIs, then the trimmed window. */
    uint64_t first = 0, last = UINT64_MAX;
    for (int f = 0; f < run.n_files; f++) {
        const struct trace_file *tf = &run.files[f];
        uint64_t lo = UINT64_MAX, hi = 0;
        for (uint64_t k = 0; k < tf->n; k++) {
            const struct trace_msg *m = &tf->msgs[k];
            if (m->t[INI_TS_ENQUEUE] < lo) lo = m->t[INI_TS_ENQUEUE];
            if (trace_msg_done(m) > hi) hi = trace_msg_done(m);
        }
        if (!tf->n) {
            cli_error("%s: no messages", tf->name);
            return 1;
        }
        if (lo > first) first = lo;
        if (hi < last) last = hi;
    }
    if (last <= first) {
        cli_error("%s: the INIs were never busy at the same time", dir);
        return 1;
    }
    uint64_t cut = (uint64_t)((double)(last - first) * trim);
    uint64_t a = first + cut, b = last - cut;

    /* Match inbound messages with the peers' outbound ones. */
    size_t n_out = 0, n_in = 0;
    for (int f = 0; f < run.n_files; f++)
        for (uint64_t k = 0; k < run.files[f].n; k++) {
            int kind = run.files[f].msgs[k].kind;
            n_out += kind == INI_TRACE_OUT;
            n_in += kind == INI_TRACE_IN;
        }
    struct key_ref *outs = calloc(n_out + 1, sizeof *outs), *ins = calloc(n_in + 1, sizeof *ins);
    struct span **spans = calloc((size_t)run.n_files, sizeof *spans);
    if (!outs || !ins || !spans) {
        cli_error("out of memory");
        return 1;
    }
    size_t no = 0, ni = 0;
    for (int f = 0; f < run.n_files; f++) {
        const struct trace_file *tf = &run.files[f];
        int me = tf->info.ini_id;
        if (!(spans[f] = calloc(tf->n, sizeof **spans))) {
            cli_error("out of memory");
            return 1;
        }
        for (uint64_t k = 0; k < tf->n; k++) {
            const struct trace_msg *m = &tf->msgs[k];
            struct span *s = &spans[f][k];
            s->enqueue = m->t[INI_TS_ENQUEUE];
            s->done = trace_msg_done(m);
            s->arrive_ini = s->enqueue;
            if (m->kind == INI_TRACE_OUT && m->t[INI_TS_SUBMIT] && m->t[INI_TS_SUBMIT] <= s->enqueue) {
                s->arrive_ini = m->t[INI_TS_SUBMIT];
                s->early = 1;
            }
            s->service = m->t[INI_TS_DEQUEUE];
            if (m->kind == INI_TRACE_OUT)
                outs[no++] = (struct key_ref){ me, m->peer_ini, m->src_pe, m->dst_pe, m->t[INI_TS_ENQUEUE], f, k };
            else if (m->kind == INI_TRACE_IN)
                ins[ni++] = (struct key_ref){ m->peer_ini, me, m->src_pe, m->dst_pe, m->t[INI_TS_ENQUEUE], f, k };
        }
    }
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
                const struct trace_msg *peer = &run.files[outs[o + k].file].msgs[outs[o + k].idx];
                struct span *s = &spans[ins[i + k].file][ins[i + k].idx];
                uint64_t sent = trace_msg_done(peer);
                if (sent <= s->enqueue) {
                    s->arrive_ini = sent;
                    s->early = 1;
                }
            }
        i = i_end;
        o = o_end;
    }

    if (csv)
        printf("ini,cluster,messages,q_queue,q_ini,busy,O_us,window_s,ini_arrival_known\n");
    else
        printf("%4s %8s %9s %9s %9s %7s %9s %9s  (window %.3f s of %.3f s, trim %.0f%%)\n", "INI", "cluster",
               "messages", "q_queue", "q_ini", "busy", "O_us", "known", (double)(b - a) / (double)run.files[0].info.tsc_hz,
               (double)(last - first) / (double)run.files[0].info.tsc_hz, trim * 100);
    double sum_qq = 0, sum_qi = 0, sum_busy = 0, sum_O = 0, sum_known = 0;
    uint64_t total_msgs = 0;
    for (int f = 0; f < run.n_files; f++) {
        const struct trace_file *tf = &run.files[f];
        struct span *sp = spans[f];
        int detailed = tf->mode == INI_TRACE_DETAILED;
        qsort(sp, tf->n, sizeof *sp, cmp_span_fifo);
        uint64_t area_q = 0, area_i = 0, busy = 0, served = 0, known = 0, prev_done = 0, busy_until = 0;
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
        /* Busy time: the union of the service intervals. */
        qsort(sp, tf->n, sizeof *sp, cmp_span_service);
        for (uint64_t k = 0; k < tf->n; k++) {
            const struct span *s = &sp[k];
            uint64_t from = s->service > busy_until ? s->service : busy_until;
            if (s->done > from)
                busy += overlap(from, s->done, a, b);
            if (s->done > busy_until)
                busy_until = s->done;
        }
        double len = (double)(b - a), hz = (double)tf->info.tsc_hz;
        double qq = (double)area_q / len, qi = (double)area_i / len, u = (double)busy / len;
        double O_us = served ? (double)busy / (double)served / hz * 1e6 : 0.0;
        double known_frac = tf->n ? (double)known / (double)tf->n : 0.0;
        sum_qq += qq, sum_qi += qi, sum_busy += u, sum_O += O_us, sum_known += known_frac;
        total_msgs += tf->n;
        if (csv)
            printf("%d,%d,%llu,%.6f,%.6f,%.6f,%.3f,%.3f,%.4f\n", tf->info.ini_id, tf->info.cluster_id,
                   (unsigned long long)tf->n, qq, qi, u, O_us, len / hz, known_frac);
        else
            printf("%4d %8d %9llu %9.4f %9.4f %7.4f %9.1f %8.1f%%\n", tf->info.ini_id, tf->info.cluster_id,
                   (unsigned long long)tf->n, qq, qi, u, O_us, known_frac * 100);
    }
    int n = run.n_files;
    double hz = (double)run.files[0].info.tsc_hz;
    if (csv)
        printf("mean,,%llu,%.6f,%.6f,%.6f,%.3f,%.3f,%.4f\n", (unsigned long long)total_msgs, sum_qq / n, sum_qi / n,
               sum_busy / n, sum_O / n, (double)(b - a) / hz, sum_known / n);
    else
        printf("%4s %8s %9llu %9.4f %9.4f %7.4f %9.1f %8.1f%%\n", "mean", "", (unsigned long long)total_msgs,
               sum_qq / n, sum_qi / n, sum_busy / n, sum_O / n, sum_known / n * 100);
    free(outs);
    free(ins);
    for (int f = 0; f < run.n_files; f++)
        free(spans[f]);
    free(spans);
    trace_run_free(&run);
    return 0;
}
