/*
 * profile.c - `ini-trace profile RUN_DIR [--format text|csv|json]`: the
 * program's communication profile, in the terms of seed 000's table 4
 * (Martin et al., "Effects of communication latency, overhead, and
 * bandwidth in a cluster architecture"): messages and bytes per compute
 * node (mean and maximum), by the program's message type, the interval
 * between a node's messages, the barrier interval, the requests that made
 * a compute thread wait (by kind, with their mean wait and the message
 * type that ended the wait), and the sender x receiver matrix.
 *
 * Counted from the compute nodes' traces: every message a node sent, the
 * inter-cluster ones (through the INIs) apart from those MGS delivered in
 * its own cluster.  A message's bytes are its payload (MGS's header
 * included, the AM header not), as in the INI traces.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "critical.h"
#include "mgs_internal.h"      /* the names of MGS's message types and request kinds */
#include "report.h"

#define TYPES 32
#define KINDS 16
#define MAX_PE 256

#define tname mgs_msg_name
#define kname mgs_req_name

struct profile {
    int n_pes, pes[MAX_PE];             /* the nodes seen, ascending */
    double span_ns;                     /* first request to last completion */
    uint64_t msgs[MAX_PE], bytes[MAX_PE], local[MAX_PE];
    uint64_t type_msgs[TYPES], type_bytes[TYPES], type_local[TYPES];
    uint64_t matrix[MAX_PE][MAX_PE];    /* inter-cluster, by sender and receiver index */
    double gap_sum;                     /* gaps between a node's consecutive sends */
    uint64_t gaps;
    uint64_t req_n[KINDS], req_ended_by[KINDS][TYPES];
    double req_wait[KINDS];
    int barriers;
    double barrier_interval_ns;
};

static int pe_index(const struct profile *p, int pe)
{
    for (int i = 0; i < p->n_pes; i++)
        if (p->pes[i] == pe)
            return i;
    return -1;
}

/* Messages by sender, then send time; arg: the graph. */
static int cmp_send_g(const void *a, const void *b, void *arg)
{
    const struct run_graph *g = arg;
    const struct rg_msg *x = &g->msgs[*(const int *)a], *y = &g->msgs[*(const int *)b];
    int c = rg_cmp_int(x->src_pe, y->src_pe);
    return c ? c : rg_cmp_double(x->send, y->send);
}

static void count_messages(struct profile *p, const struct run_graph *g)
{
    for (int pe = 0; pe < g->max_pe && pe < MAX_PE; pe++)
        if (g->pe_cluster[pe] >= 0)
            p->pes[p->n_pes++] = pe;
    int *order = malloc(((size_t)g->n_msgs + 1) * sizeof(int)), n = 0;
    for (int k = 0; k < g->n_msgs; k++) {
        const struct rg_msg *m = &g->msgs[k];
        int s = pe_index(p, m->src_pe), d = pe_index(p, m->dst_pe), t = m->type < TYPES ? m->type : 0;
        if (s < 0)
            continue;
        if (m->local) {
            p->local[s]++;
            p->type_local[t]++;
            continue;
        }
        p->msgs[s]++;
        p->bytes[s] += m->len;
        p->type_msgs[t]++;
        p->type_bytes[t] += m->len;
        if (d >= 0)
            p->matrix[s][d]++;
        if (order)
            order[n++] = k;
    }
    if (!order)
        return;
    qsort_r(order, (size_t)n, sizeof(int), cmp_send_g, (void *)g);
    for (int i = 1; i < n; i++)
        if (g->msgs[order[i]].src_pe == g->msgs[order[i - 1]].src_pe) {
            p->gap_sum += g->msgs[order[i]].send - g->msgs[order[i - 1]].send;
            p->gaps++;
        }
    free(order);
}

static void count_requests(struct profile *p, const struct run_graph *g)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int q = 0; q < g->n_reqs; q++) {
        const struct rg_req *r = &g->reqs[q];
        lo = fmin(lo, r->submit);
        hi = fmax(hi, r->complete);
        int k = r->kind >= 0 && r->kind < KINDS ? r->kind : 0;
        p->req_n[k]++;
        p->req_wait[k] += r->complete - r->submit;
        int t = 0;
        if (r->done >= 0 && g->actions[r->done].msg >= 0)
            t = g->msgs[g->actions[r->done].msg].type % TYPES;
        p->req_ended_by[k][t]++;
    }
    p->span_ns = g->n_reqs ? hi - lo : 0;
}

static void stats(const struct profile *p, const uint64_t *v, double *mean, uint64_t *max)
{
    uint64_t sum = 0;
    *max = 0;
    for (int i = 0; i < p->n_pes; i++) {
        sum += v[i];
        if (v[i] > *max)
            *max = v[i];
    }
    *mean = p->n_pes ? (double)sum / p->n_pes : 0;
}

static void print_text(const char *dir, const struct profile *p)
{
    double mm, mb, ml;
    uint64_t xm, xb, xl;
    stats(p, p->msgs, &mm, &xm);
    stats(p, p->bytes, &mb, &xb);
    stats(p, p->local, &ml, &xl);
    double span_ms = p->span_ns / 1e6;
    printf("ini-trace profile: %s\n", dir);
    printf("Communication summary (seed 000, table 4; inter-cluster messages, through the INIs)\n");
    printf("  %-26s %12d\n", "compute nodes", p->n_pes);
    printf("  %-26s %12.3f\n", "run (s, requests)", span_ms / 1e3);
    printf("  %-26s %12.1f\n", "msgs per node, mean", mm);
    printf("  %-26s %12llu\n", "msgs per node, max", (unsigned long long)xm);
    printf("  %-26s %12.0f\n", "bytes per node, mean", mb);
    printf("  %-26s %12llu\n", "bytes per node, max", (unsigned long long)xb);
    printf("  %-26s %12.1f\n", "mean msg length (B)", mm > 0 ? mb / mm : 0);
    printf("  %-26s %12.3f\n", "msgs per node per ms", span_ms > 0 ? mm / span_ms : 0);
    printf("  %-26s %12.1f\n", "msg interval (us)", mm > 0 ? p->span_ns / 1e3 / mm : 0);
    printf("  %-26s %12.1f\n", "mean gap between sends (us)", p->gaps ? p->gap_sum / p->gaps / 1e3 : 0);
    printf("  %-26s %12.3f\n", "barrier interval (ms)", p->barrier_interval_ns / 1e6);
    printf("  %-26s %12.1f\n", "local msgs per node (mean)", ml);
    printf("\nBy message type\n%-12s %10s %8s %12s %10s %10s\n", "type", "msgs", "share", "bytes", "mean B", "local");
    uint64_t all = 0;
    for (int t = 0; t < TYPES; t++)
        all += p->type_msgs[t];
    for (int t = 0; t < TYPES; t++)
        if (p->type_msgs[t] || p->type_local[t])
            printf("%-12s %10llu %7.1f%% %12llu %10.1f %10llu\n", tname(t), (unsigned long long)p->type_msgs[t],
                   all ? 100.0 * p->type_msgs[t] / all : 0, (unsigned long long)p->type_bytes[t],
                   p->type_msgs[t] ? (double)p->type_bytes[t] / p->type_msgs[t] : 0,
                   (unsigned long long)p->type_local[t]);
    printf("\nRequests that made a compute thread wait\n%-16s %8s %14s  %s\n", "kind", "count", "mean wait (us)",
           "ended by (message type: count)");
    for (int k = 0; k < KINDS; k++) {
        if (!p->req_n[k])
            continue;
        printf("%-16s %8llu %14.1f ", kname(k), (unsigned long long)p->req_n[k], p->req_wait[k] / p->req_n[k] / 1e3);
        for (int t = 0; t < TYPES; t++)
            if (p->req_ended_by[k][t])
                printf(" %s: %llu", t ? tname(t) : "(no message)", (unsigned long long)p->req_ended_by[k][t]);
        printf("\n");
    }
    printf("\nSender x receiver (inter-cluster messages; rows: sending PE, columns: receiving PE)\n%5s", "");
    for (int j = 0; j < p->n_pes; j++)
        printf(" %5d", p->pes[j]);
    printf("\n");
    for (int i = 0; i < p->n_pes; i++) {
        printf("%5d", p->pes[i]);
        for (int j = 0; j < p->n_pes; j++)
            printf(" %5llu", (unsigned long long)p->matrix[i][j]);
        printf("\n");
    }
}

static void print_csv(const struct profile *p)
{
    double mm, mb;
    uint64_t xm, xb;
    stats(p, p->msgs, &mm, &xm);
    stats(p, p->bytes, &mb, &xb);
    printf("summary\nnodes,run_s,msgs_mean,msgs_max,bytes_mean,bytes_max,msg_len,msgs_per_node_per_ms,"
           "interval_us,gap_us,barrier_interval_ms\n");
    printf("%d,%.6f,%.3f,%llu,%.1f,%llu,%.2f,%.4f,%.2f,%.2f,%.4f\n\n", p->n_pes, p->span_ns / 1e9, mm,
           (unsigned long long)xm, mb, (unsigned long long)xb, mm > 0 ? mb / mm : 0,
           p->span_ns > 0 ? mm / (p->span_ns / 1e6) : 0, mm > 0 ? p->span_ns / 1e3 / mm : 0,
           p->gaps ? p->gap_sum / p->gaps / 1e3 : 0, p->barrier_interval_ns / 1e6);
    printf("types\ntype,msgs,bytes,local\n");
    for (int t = 0; t < TYPES; t++)
        if (p->type_msgs[t] || p->type_local[t])
            printf("%s,%llu,%llu,%llu\n", tname(t), (unsigned long long)p->type_msgs[t],
                   (unsigned long long)p->type_bytes[t], (unsigned long long)p->type_local[t]);
    printf("\nrequests\nkind,count,mean_wait_us\n");
    for (int k = 0; k < KINDS; k++)
        if (p->req_n[k])
            printf("%s,%llu,%.2f\n", kname(k), (unsigned long long)p->req_n[k], p->req_wait[k] / p->req_n[k] / 1e3);
    printf("\nmatrix\nsender,receiver,msgs\n");
    for (int i = 0; i < p->n_pes; i++)
        for (int j = 0; j < p->n_pes; j++)
            if (p->matrix[i][j])
                printf("%d,%d,%llu\n", p->pes[i], p->pes[j], (unsigned long long)p->matrix[i][j]);
}

static void print_json(const char *dir, const struct profile *p)
{
    double mm, mb;
    uint64_t xm, xb;
    stats(p, p->msgs, &mm, &xm);
    stats(p, p->bytes, &mb, &xb);
    printf("{\"run\": ");
    report_json_str(stdout, dir);
    printf(", \"nodes\": %d, \"msgs_max\": %llu, \"bytes_max\": %llu, ", p->n_pes, (unsigned long long)xm,
           (unsigned long long)xb);
    report_json_num(stdout, "run_s", p->span_ns / 1e9, true);
    report_json_num(stdout, "msgs_mean", mm, true);
    report_json_num(stdout, "bytes_mean", mb, true);
    report_json_num(stdout, "interval_us", mm > 0 ? p->span_ns / 1e3 / mm : NAN, true);
    report_json_num(stdout, "barrier_interval_ms", p->barrier_interval_ns / 1e6, true);
    printf("\n \"types\": {");
    int first = 1;
    for (int t = 0; t < TYPES; t++)
        if (p->type_msgs[t] || p->type_local[t]) {
            printf("%s\"%s\": {\"msgs\": %llu, \"bytes\": %llu, \"local\": %llu}", first ? "" : ", ", tname(t),
                   (unsigned long long)p->type_msgs[t], (unsigned long long)p->type_bytes[t],
                   (unsigned long long)p->type_local[t]);
            first = 0;
        }
    printf("},\n \"requests\": {");
    first = 1;
    for (int k = 0; k < KINDS; k++)
        if (p->req_n[k]) {
            printf("%s\"%s\": {\"count\": %llu, ", first ? "" : ", ", kname(k), (unsigned long long)p->req_n[k]);
            report_json_num(stdout, "mean_wait_us", p->req_wait[k] / p->req_n[k] / 1e3, false);
            printf("}");
            first = 0;
        }
    printf("},\n \"pes\": [");
    for (int i = 0; i < p->n_pes; i++)
        printf("%s%d", i ? ", " : "", p->pes[i]);
    printf("],\n \"matrix\": [");
    for (int i = 0; i < p->n_pes; i++) {
        printf("%s[", i ? ", " : "");
        for (int j = 0; j < p->n_pes; j++)
            printf("%s%llu", j ? ", " : "", (unsigned long long)p->matrix[i][j]);
        printf("]");
    }
    printf("]}\n");
}

int cmd_profile(int argc, char **argv)
{
    int fmt = 0;
    static const char *const formats[] = { "text", "csv", "json", NULL };
    const char *dir = cmd_format_only(argc, argv, formats, &fmt);
    struct run_files rf;
    cmd_load(&rf, dir);
    struct profile *p = calloc(1, sizeof(*p));
    if (!p) {
        run_files_free(&rf);
        cli_error("out of memory");
        return 1;
    }
    count_messages(p, &rf.g);
    count_requests(p, &rf.g);
    struct crit_result cr;
    char err[TRACE_ERR_LEN];
    if (critical_run(&rf.g, &cr, err, sizeof(err)) == 0) {     /* the steps between barriers */
        p->barriers = cr.n_steps;
        p->barrier_interval_ns = cr.n_steps ? (cr.total.end - cr.total.start) / cr.n_steps : 0;
        critical_free(&cr);
    }
    if (fmt == 2)
        print_json(dir, p);
    else if (fmt == 1)
        print_csv(p);
    else
        print_text(dir, p);
    free(p);
    run_files_free(&rf);
    return fflush(stdout) == 0 ? 0 : 2;
}
