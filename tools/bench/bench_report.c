/*
 * bench_report.c - ini-bench's output: a text table, CSV (one row per
 * measured value: layer,test,param,min,median,unit) or JSON (an object
 * whose "layers" list holds one entry per layer with the median figures
 * named as in the table), and the bandwidth-versus-size plot (gnuplot).
 * In the CSV, "min" is the fastest run's figure: the least time, or for
 * rates and bandwidths the rate of the run with the least time.
 * Every layer is also given as a ratio to raw-dpdk, measured in the same
 * run.
 */
#include "bench.h"

#include <stdio.h>
#include <string.h>

static const struct layer_result *raw_of(const struct bench_setup *s, const struct layer_result *res)
{
    return s->layers_on[L_RAW] && res[L_RAW].ok ? &res[L_RAW] : NULL;
}

static double ratio(double x, double raw)
{
    return raw > 0 && x > 0 ? x / raw : 0;
}

static double gbps(uint32_t size, double ns)
{
    return ns > 0 ? (double)size * 8.0 / ns : 0;
}

static double flood_cell(const struct layer_result *r, const struct bench_params *p, int i)
{
    (void)p;
    return r->flood[i].med > 0 ? 1e3 / r->flood[i].med : 0;
}

static double bw_cell(const struct layer_result *r, const struct bench_params *p, int i)
{
    return gbps(p->sizes[i], r->size_ns[i].med);
}

/* One row per layer that ran: its name, then n cells in fmt. */
static void layer_rows(FILE *f, const struct bench_setup *s, const struct layer_result *res, int n,
                       double (*cell)(const struct layer_result *, const struct bench_params *, int),
                       const char *fmt)
{
    for (int l = 0; l < L_COUNT; l++) {
        const struct layer_result *r = &res[l];
        if (!s->layers_on[l] || !r->ok)
            continue;
        fprintf(f, "%-19s", bench_layer_names[l]);
        for (int i = 0; i < n; i++)
            fprintf(f, fmt, cell(r, &s->p, i));
        fprintf(f, "\n");
    }
}

/* The INI against the peers measured in the same run: the reliable
 * transport's and the whole path's figures over each peer's (RTT: below
 * 1 is faster; rate and Gbit/s: above 1 is faster). */
static void peers_table(FILE *f, const struct bench_setup *s, const struct layer_result *res)
{
    int any = 0;
    for (int l = L_FIRST_PEER; l < L_COUNT; l++)
        any |= s->layers_on[l] && res[l].ok;
    if (!any)
        return;
    fprintf(f, "against the peers (ours / peer, same run; RTT below 1x and rate, Gbit/s above 1x: ours is faster)\n"
               "%-19s %-19s %8s %8s %8s\n", "ours", "peer", "RTT", "rate", "Gbit/s");
    static const int ours[2] = { L_REL, L_CN };
    for (int k = 0; k < 2; k++) {
        const struct layer_result *o = &res[ours[k]];
        if (!s->layers_on[ours[k]] || !o->ok)
            continue;
        for (int l = L_FIRST_PEER; l < L_COUNT; l++) {
            const struct layer_result *r = &res[l];
            if (!s->layers_on[l] || !r->ok)
                continue;
            fprintf(f, "%-19s %-19s %7.2fx %7.3fx %7.3fx\n", bench_layer_names[ours[k]], bench_layer_names[l],
                    ratio(o->rtt.med, r->rtt.med), ratio(o->rate_mps, r->rate_mps), ratio(o->gbps_max, r->gbps_max));
        }
    }
    fprintf(f, "\n");
}

/* The LogGP figures of every layer, with the run's conditions above. */
static void main_table(FILE *f, const struct bench_setup *s, const struct layer_result *res)
{
    const struct bench_params *p = &s->p;
    uint32_t big = p->sizes[p->n_sizes - 1];
    fprintf(f, "ini-bench: measuring side on CPU %d, answering side on CPU %d; memif, MTU %d; "
               "messages longer than a frame as %s; %d runs per test, medians [minimum]; "
               "load average %.2f at the start\n\n",
            s->cores[0], s->cores[1], s->mtu, s->segment ? "transport segments" : "IP fragments", p->runs,
            s->loadavg);
    fprintf(f, "%-19s %17s %17s %17s %17s %9s %8s %9s %8s %9s\n", "layer", "RTT us", "EEL us", "o_s us",
            "o_r us", "g ns", "Mmsg/s", "G ns/B", "M B", "Gbit/s");
    for (int l = 0; l < L_COUNT; l++) {
        if (!s->layers_on[l])
            continue;
        const struct layer_result *r = &res[l];
        if (!r->ok) {
            fprintf(f, "%-19s %s: %s\n", bench_layer_names[l], r->skipped ? "skipped" : "FAILED", r->err);
            continue;
        }
        fprintf(f, "%-19s %8.2f [%6.2f] %8.2f [%6.2f] %8.2f [%6.2f] %8.2f [%6.2f] %9.1f %8.3f %9.4f %8.0f %9.2f\n",
                bench_layer_names[l], r->rtt.med / 1e3, r->rtt.min / 1e3, r->rtt.med / 2e3, r->rtt.min / 2e3,
                r->o_s.med / 1e3, r->o_s.min / 1e3, r->o_r.med / 1e3, r->o_r.min / 1e3, r->g_ns, r->rate_mps,
                r->G_ns_per_byte, r->M_bytes, r->gbps_max);
    }
    fprintf(f, "\n  RTT: %u-byte ping-pong; EEL = RTT/2; o_s, o_r: CPU-overlap test at q=1; g: best gap\n"
               "  over the queue depths (8 bytes, one way), Mmsg/s = 1000/g; G: per-byte gap from the\n"
               "  size sweep at depth %d; M = g/G; Gbit/s: %u-byte messages at depth %d.\n\n",
            p->rtt_bytes, p->bw_depth, big, p->bw_depth);
}

/* Every layer's medians over raw-dpdk's. */
static void ratios_table(FILE *f, const struct bench_setup *s, const struct layer_result *res,
                         const struct layer_result *raw)
{
    fprintf(f, "ratios to raw-dpdk (medians)\n%-19s %8s %8s %8s %8s %8s %8s\n", "layer", "RTT", "o_s", "o_r",
            "g", "rate", "Gbit/s");
    for (int l = 0; l < L_COUNT; l++) {
        const struct layer_result *r = &res[l];
        if (!s->layers_on[l] || !r->ok)
            continue;
        fprintf(f, "%-19s %7.2fx %7.2fx %7.2fx %7.2fx %7.3fx %7.3fx\n", bench_layer_names[l],
                ratio(r->rtt.med, raw->rtt.med), ratio(r->o_s.med, raw->o_s.med),
                ratio(r->o_r.med, raw->o_r.med), ratio(r->g_ns, raw->g_ns),
                ratio(r->rate_mps, raw->rate_mps), ratio(r->gbps_max, raw->gbps_max));
    }
    fprintf(f, "\n");
}

/* The memif layers' round trips measured in turns (and --split's parts). */
static void turns_table(FILE *f, const struct bench_setup *s, const struct layer_result *res)
{
    fprintf(f, "round trips in turns (the memif layers one after the other, %d turns, a few ms apart):\n"
               "medians [minimum] us, and the median of the per-turn ratios to raw-dpdk\n", s->p.runs);
    for (int l = 0; l < L_COUNT; l++) {
        const struct layer_result *r = &res[l];
        if (!s->layers_on[l] || !r->ok || r->rtt_turns.med <= 0)
            continue;
        fprintf(f, "%-19s %8.2f [%6.2f] %7.2fx", bench_layer_names[l], r->rtt_turns.med / 1e3,
                r->rtt_turns.min / 1e3, r->rtt_turns_ratio);
        if (s->split)
            fprintf(f, "   receive %6.1f ns/frame, send %6.1f ns/call", r->split_rx_ns, r->split_tx_ns);
        fprintf(f, "\n");
    }
    if (s->split)
        fprintf(f, "(--split, the measuring side: receive = a poll that took frames, per frame; send = the\n"
                   " send call, the frame built and queued; the transmit burst is apart)\n");
    fprintf(f, "\n");
}

/* The flood by queue depth and the bandwidth by message size. */
static void sweep_tables(FILE *f, const struct bench_setup *s, const struct layer_result *res)
{
    const struct bench_params *p = &s->p;
    fprintf(f, "flood, 8-byte messages one way: million messages/s (median) by queue depth q\n%-19s", "layer");
    for (int i = 0; i < p->n_depths; i++)
        fprintf(f, " %7s%-3d", "q=", p->depths[i]);
    fprintf(f, "\n");
    layer_rows(f, s, res, p->n_depths, flood_cell, " %10.3f");
    fprintf(f, "\nbandwidth at depth %d: Gbit/s (median) by message size, bytes\n%-19s", p->bw_depth, "layer");
    for (int i = 0; i < p->n_sizes; i++)
        fprintf(f, " %7u", p->sizes[i]);
    fprintf(f, "\n");
    layer_rows(f, s, res, p->n_sizes, bw_cell, " %7.2f");
}

/* The compute-node path's copies, from the INIs' counters: bytes per byte
 * delivered, mostly the largest messages' (every size the run sent). */
static void copies_line(FILE *f, const struct bench_setup *s, const struct layer_result *r)
{
    if (!s->layers_on[L_CN] || !r->ok)
        return;
    double sum = 0;
    for (int k = 0; k < BENCH_COPY_N; k++)
        sum += r->copies[k];
    fprintf(f, "\ncompute-to-compute: %.2f copies per byte delivered (", sum);
    for (int k = 0; k < BENCH_COPY_N; k++)
        fprintf(f, "%s%s %.2f", k ? ", " : "", bench_copy_names[k], r->copies[k]);
    fprintf(f, "), %.2f read by the receive checks apart\n", r->checked);
}

/* The rest, and a warning when other tasks took a polling layer's cores. */
static void other_table(FILE *f, const struct bench_setup *s, const struct layer_result *res)
{
    fprintf(f, "\nother figures (medians)\n%-19s %12s %12s %8s %8s %9s %10s\n", "layer", "send call us",
            "g(q=1) us", "best q", "retx", "seconds", "preempt/s");
    int busy = 0;
    for (int l = 0; l < L_COUNT; l++) {
        const struct layer_result *r = &res[l];
        if (!s->layers_on[l] || !r->ok)
            continue;
        fprintf(f, "%-19s %12.3f %12.2f %8d %8llu %9.1f %10.1f\n", bench_layer_names[l], r->o_s_call.med / 1e3,
                r->g1.med / 1e3, r->best_depth, (unsigned long long)r->retransmissions, r->seconds,
                r->preempt_per_s);
        busy |= r->preempt_per_s > BENCH_BUSY_PREEMPT && l != L_CN && l != L_KERNEL;
    }
    copies_line(f, s, &res[L_CN]);
    if (busy)
        fprintf(f, "\nWARNING: other tasks took the benchmark's cores (preempt/s above %d for a polling layer):\n"
                   "the figures are not those of dedicated cores; rerun on a quiet machine.\n",
                BENCH_BUSY_PREEMPT);
}

static void table(FILE *f, const struct bench_setup *s, const struct layer_result *res)
{
    main_table(f, s, res);
    const struct layer_result *raw = raw_of(s, res);
    if (raw)
        ratios_table(f, s, res, raw);
    peers_table(f, s, res);
    if (raw && raw->rtt_turns.med > 0)
        turns_table(f, s, res);
    sweep_tables(f, s, res);
    other_table(f, s, res);
}

static void csv_row(FILE *f, int l, const char *test, long param, struct stat2 v, const char *unit)
{
    fprintf(f, "%s,%s,%ld,%.4f,%.4f,%s\n", bench_layer_names[l], test, param, v.min, v.med, unit);
}

static void csv(FILE *f, const struct bench_setup *s, const struct layer_result *res)
{
    const struct bench_params *p = &s->p;
    const struct layer_result *raw = raw_of(s, res);
    fprintf(f, "layer,test,param,min,median,unit\n");
    for (int l = 0; l < L_COUNT; l++) {
        const struct layer_result *r = &res[l];
        if (s->layers_on[l] && r->skipped)
            fprintf(f, "%s,skipped,0,0,0,-\n", bench_layer_names[l]);
        if (!s->layers_on[l] || !r->ok)
            continue;
        /* The INI's reliable transport over a peer (RTT, rate, Gbit/s). */
        if (l >= L_FIRST_PEER && s->layers_on[L_REL] && res[L_REL].ok) {
            const struct layer_result *o = &res[L_REL];
            fprintf(f, "%s,reliable_over_peer_rtt,0,%.4f,%.4f,x\n", bench_layer_names[l],
                    ratio(o->rtt.min, r->rtt.min), ratio(o->rtt.med, r->rtt.med));
            fprintf(f, "%s,reliable_over_peer_rate,0,%.4f,%.4f,x\n", bench_layer_names[l],
                    ratio(o->rate_mps, r->rate_mps), ratio(o->rate_mps, r->rate_mps));
            fprintf(f, "%s,reliable_over_peer_gbps,0,%.4f,%.4f,x\n", bench_layer_names[l],
                    ratio(o->gbps_max, r->gbps_max), ratio(o->gbps_max, r->gbps_max));
        }
        struct stat2 eel = { r->rtt.min / 2, r->rtt.med / 2 };
        csv_row(f, l, "rtt", BENCH_HDR, r->rtt, "ns");
        if (r->rtt_turns.med > 0)
            csv_row(f, l, "rtt_turns", BENCH_HDR, r->rtt_turns, "ns");
        if (r->split_rx_ns > 0) {   /* medians only: min = med */
            csv_row(f, l, "split_receive", BENCH_HDR, (struct stat2){ r->split_rx_ns, r->split_rx_ns }, "ns");
            csv_row(f, l, "split_send", BENCH_HDR, (struct stat2){ r->split_tx_ns, r->split_tx_ns }, "ns");
        }
        csv_row(f, l, "eel", BENCH_HDR, eel, "ns");
        csv_row(f, l, "o_s", BENCH_HDR, r->o_s, "ns");
        csv_row(f, l, "o_r", BENCH_HDR, r->o_r, "ns");
        csv_row(f, l, "send_call", BENCH_HDR, r->o_s_call, "ns");
        csv_row(f, l, "g_q1", BENCH_HDR, r->g1, "ns");
        for (int i = 0; i < p->n_depths; i++) {
            /* rates and bandwidths: "min" is the figure of the fastest run */
            struct stat2 rate = { r->flood[i].min > 0 ? 1e3 / r->flood[i].min : 0,
                                  r->flood[i].med > 0 ? 1e3 / r->flood[i].med : 0 };
            csv_row(f, l, "flood_gap", p->depths[i], r->flood[i], "ns");
            csv_row(f, l, "flood_rate", p->depths[i], rate, "Mmsg/s");
        }
        for (int i = 0; i < p->n_sizes; i++) {
            struct stat2 bw = { gbps(p->sizes[i], r->size_ns[i].min), gbps(p->sizes[i], r->size_ns[i].med) };
            csv_row(f, l, "size_gap", p->sizes[i], r->size_ns[i], "ns");
            csv_row(f, l, "bandwidth", p->sizes[i], bw, "Gbit/s");
        }
        fprintf(f, "%s,g,%d,%.4f,%.4f,ns\n", bench_layer_names[l], r->best_depth, r->g_ns, r->g_ns);
        fprintf(f, "%s,rate,%d,%.4f,%.4f,Mmsg/s\n", bench_layer_names[l], r->best_depth, r->rate_mps, r->rate_mps);
        fprintf(f, "%s,G,%d,%.6f,%.6f,ns/byte\n", bench_layer_names[l], p->bw_depth, r->G_ns_per_byte,
                r->G_ns_per_byte);
        fprintf(f, "%s,M,%d,%.1f,%.1f,bytes\n", bench_layer_names[l], p->bw_depth, r->M_bytes, r->M_bytes);
        fprintf(f, "%s,retransmissions,0,%llu,%llu,count\n", bench_layer_names[l],
                (unsigned long long)r->retransmissions, (unsigned long long)r->retransmissions);
        fprintf(f, "%s,preemptions,0,%.1f,%.1f,per_s\n", bench_layer_names[l], r->preempt_per_s, r->preempt_per_s);
        if (raw) {
            fprintf(f, "%s,ratio_rtt,0,%.4f,%.4f,x\n", bench_layer_names[l], ratio(r->rtt.min, raw->rtt.min),
                    ratio(r->rtt.med, raw->rtt.med));
            if (r->rtt_turns.med > 0)
                fprintf(f, "%s,ratio_rtt_turns,0,%.4f,%.4f,x\n", bench_layer_names[l], r->rtt_turns_ratio,
                        r->rtt_turns_ratio);
            fprintf(f, "%s,ratio_rate,0,%.4f,%.4f,x\n", bench_layer_names[l], ratio(r->rate_mps, raw->rate_mps),
                    ratio(r->rate_mps, raw->rate_mps));
            fprintf(f, "%s,ratio_gbps,0,%.4f,%.4f,x\n", bench_layer_names[l], ratio(r->gbps_max, raw->gbps_max),
                    ratio(r->gbps_max, raw->gbps_max));
        }
    }
}

static void json(FILE *f, const struct bench_setup *s, const struct layer_result *res)
{
    const struct bench_params *p = &s->p;
    const struct layer_result *raw = raw_of(s, res);
    fprintf(f, "{\n  \"tool\": \"ini-bench\", \"quick\": %s, \"cores\": [%d, %d], \"runs\": %d, "
               "\"message_bytes\": %d, \"rtt_bytes\": %u, \"bw_depth\": %d, \"largest_message\": %u, \"mtu\": %d, "
               "\"segmentation\": %s, \"loadavg_at_start\": %.2f,\n  \"layers\": [",
            s->quick ? "true" : "false", s->cores[0], s->cores[1], p->runs, BENCH_HDR, p->rtt_bytes, p->bw_depth,
            p->sizes[p->n_sizes - 1], s->mtu, s->segment ? "true" : "false", s->loadavg);
    int first = 1;
    for (int l = 0; l < L_COUNT; l++) {
        if (!s->layers_on[l])
            continue;
        const struct layer_result *r = &res[l];
        fprintf(f, "%s\n    {\"name\": \"%s\", \"ok\": %s%s", first ? "" : ",", bench_layer_names[l],
                r->ok ? "true" : "false", r->skipped ? ", \"skipped\": true" : "");
        first = 0;
        if (!r->ok) {
            fprintf(f, ", \"error\": \"");
            for (const char *c = r->err; *c; c++)
                fprintf(f, *c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
            fprintf(f, "\"}");
            continue;
        }
        fprintf(f, ",\n     \"rtt_ns\": %.1f, \"eel_ns\": %.1f, \"o_s_ns\": %.1f, \"o_r_ns\": %.1f, "
                   "\"g_ns\": %.2f, \"G_ns_per_byte\": %.6f, \"M_bytes\": %.1f, \"rate_mps\": %.4f, "
                   "\"gbps_64k\": %.3f,\n",
                r->rtt.med, r->rtt.med / 2, r->o_s.med, r->o_r.med, r->g_ns, r->G_ns_per_byte, r->M_bytes,
                r->rate_mps, r->gbps_max);
        fprintf(f, "     \"min\": {\"rtt_ns\": %.1f, \"eel_ns\": %.1f, \"o_s_ns\": %.1f, \"o_r_ns\": %.1f},\n",
                r->rtt.min, r->rtt.min / 2, r->o_s.min, r->o_r.min);
        fprintf(f, "     \"send_call_ns\": %.1f, \"g_q1_ns\": %.1f, \"best_depth\": %d, \"retransmissions\": %llu, "
                   "\"seconds\": %.2f, \"preemptions_per_s\": %.1f,\n",
                r->o_s_call.med, r->g1.med, r->best_depth, (unsigned long long)r->retransmissions, r->seconds,
                r->preempt_per_s);
        if (l == L_CN)
            fprintf(f, "     \"copies\": {\"cn\": %.4f, \"frames\": %.4f, \"link_out\": %.4f, \"link_in\": %.4f, "
                       "\"rings\": %.4f, \"checked\": %.4f},\n",
                    r->copies[BENCH_COPY_CN], r->copies[BENCH_COPY_FRAMES], r->copies[BENCH_COPY_LINK_OUT],
                    r->copies[BENCH_COPY_LINK_IN], r->copies[BENCH_COPY_RINGS], r->checked);
        fprintf(f, "     \"flood\": [");
        for (int i = 0; i < p->n_depths; i++)
            fprintf(f, "%s{\"depth\": %d, \"ns_per_msg\": %.2f, \"min_ns_per_msg\": %.2f, \"rate_mps\": %.4f}",
                    i ? ", " : "", p->depths[i], r->flood[i].med, r->flood[i].min,
                    r->flood[i].med > 0 ? 1e3 / r->flood[i].med : 0);
        fprintf(f, "],\n     \"sizes\": [");
        for (int i = 0; i < p->n_sizes; i++)
            fprintf(f, "%s{\"bytes\": %u, \"ns_per_msg\": %.1f, \"gbps\": %.3f}", i ? ", " : "", p->sizes[i],
                    r->size_ns[i].med, gbps(p->sizes[i], r->size_ns[i].med));
        fprintf(f, "]");
        if (raw)
            fprintf(f, ",\n     \"ratio_to_raw\": {\"rtt\": %.3f, \"o_s\": %.3f, \"o_r\": %.3f, \"g\": %.3f, "
                       "\"rate\": %.4f, \"gbps_64k\": %.4f}",
                    ratio(r->rtt.med, raw->rtt.med), ratio(r->o_s.med, raw->o_s.med),
                    ratio(r->o_r.med, raw->o_r.med), ratio(r->g_ns, raw->g_ns), ratio(r->rate_mps, raw->rate_mps),
                    ratio(r->gbps_max, raw->gbps_max));
        if (l >= L_FIRST_PEER && s->layers_on[L_REL] && res[L_REL].ok)
            fprintf(f, ",\n     \"reliable_over_peer\": {\"rtt\": %.3f, \"rate\": %.4f, \"gbps_64k\": %.4f}",
                    ratio(res[L_REL].rtt.med, r->rtt.med), ratio(res[L_REL].rate_mps, r->rate_mps),
                    ratio(res[L_REL].gbps_max, r->gbps_max));
        if (r->rtt_turns.med > 0)
            fprintf(f, ",\n     \"rtt_turns_ns\": %.1f, \"rtt_turns_min_ns\": %.1f, \"rtt_turns_ratio\": %.3f",
                    r->rtt_turns.med, r->rtt_turns.min, r->rtt_turns_ratio);
        if (r->split_rx_ns > 0)
            fprintf(f, ",\n     \"split_receive_ns\": %.1f, \"split_send_ns\": %.1f", r->split_rx_ns,
                    r->split_tx_ns);
        fprintf(f, "}");
    }
    fprintf(f, "\n  ]\n}\n");
}

void bench_report(FILE *f, enum bench_format fmt, const struct bench_setup *s, const struct layer_result *res)
{
    if (fmt == FMT_CSV)
        csv(f, s, res);
    else if (fmt == FMT_JSON)
        json(f, s, res);
    else
        table(f, s, res);
}

int bench_plot(const char *png, const struct bench_setup *s, const struct layer_result *res)
{
    const struct bench_params *p = &s->p;
    FILE *g = popen("gnuplot", "w");
    if (!g)
        return -1;
    fprintf(g, "set terminal pngcairo size 1000,640 font ',11'\nset output '%s'\n"
               "set title 'ini-bench: one-way bandwidth by message size (queue depth %d, MTU %d, medians of %d runs)'\n"
               "set logscale x 2\nset xlabel 'message size (bytes)'\nset ylabel 'Gbit/s'\n"
               "set format x '%%.0f'\nset key top left\nset grid\n",
            png, p->bw_depth, s->mtu, p->runs);
    int n = 0;
    for (int l = 0; l < L_COUNT; l++)
        if (s->layers_on[l] && res[l].ok)
            fprintf(g, "%s'-' using 1:2 with linespoints lw 2 title '%s'", n++ ? ", " : "plot ",
                    bench_layer_names[l]);
    fprintf(g, "\n");
    for (int l = 0; l < L_COUNT; l++) {
        if (!s->layers_on[l] || !res[l].ok)
            continue;
        for (int i = 0; i < p->n_sizes; i++)
            fprintf(g, "%u %.4f\n", p->sizes[i], gbps(p->sizes[i], res[l].size_ns[i].med));
        fprintf(g, "e\n");
    }
    return pclose(g) == 0 && n ? 0 : -1;
}
