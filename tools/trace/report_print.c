/*
 * report_print.c - formats a built report (report.h) as text tables in the
 * thesis's layout, as CSV (one section per table, a blank line between) or
 * as one JSON object.  No arithmetic here beyond unit conversion for
 * display (rates shown as percentages in text).
 */
#include "report.h"
#include "config.h"   /* ini_policy_name */

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

static const char *const send_cols[REPORT_COLS] = { "handler", "queue", "slid_win", "UDP", "IP", "total" };
static const char *const recv_cols[REPORT_COLS] = { "queue", "IP", "UDP", "slid_win", "delivery", "total" };
static const char *const send_keys[REPORT_COLS] = { "handler", "queue", "slid_win", "udp", "ip", "total" };
static const char *const recv_keys[REPORT_COLS] = { "queue", "ip", "udp", "slid_win", "delivery", "total" };

/* -2: the INIs of the run used different policies. */
static const char *policy_name(int p)
{
    if (p == -2)
        return "mixed";
    const char *name = ini_policy_name((enum ini_policy)p);
    return strcmp(name, "?") ? name : "unknown";
}

/* The thesis numbers tables 5.3 / 5.6 for static INI scheduling and
 * 5.4 / 5.7 for round-robin. */
static const char *perf_table(int ini_policy)
{
    return ini_policy == 0 ? "Table 5.3" : ini_policy == 1 ? "Table 5.4" : "Table 5.3/5.4";
}

static const char *mis_table(int ini_policy)
{
    return ini_policy == 0 ? "Table 5.6" : ini_policy == 1 ? "Table 5.7" : "Table 5.6/5.7";
}

static void len_label(char *buf, size_t n, const struct report_bucket *b)
{
    if (b->len_lo == b->len_hi)
        snprintf(buf, n, "%u", b->len_lo);
    else
        snprintf(buf, n, "%u-%u", b->len_lo, b->len_hi);
}

/* A number in a fixed-width text column; "-" for NaN. */
static void text_num(FILE *o, int width, int prec, double v)
{
    if (isnan(v))
        fprintf(o, " %*s", width, "-");
    else
        fprintf(o, " %*.*f", width, prec, v);
}

static void text_pct(FILE *o, int width, double v)
{
    if (isnan(v))
        fprintf(o, " %*s", width, "-");
    else
        fprintf(o, " %*.1f%%", width - 1, 100.0 * v);
}

/* ---- the rows of the tables per INI and per cluster, in every format -- */

/* A row of the INI performance table: the cluster ("all": the machine),
 * its size and INIs (0: not known), the INI ("avg": the cluster's or the
 * machine's average), its figures and its share of the cluster's load. */
typedef void perf_row_fn(FILE *o, const char *cluster, int clu_size, int ios, const char *ini,
                         const struct report_perf *p, double share);
/* A row of the misrouting table (cluster as for perf_row_fn). */
typedef void mis_row_fn(FILE *o, const char *cluster, int clu_size, int ios, const struct report_misroute *m);

/* Each INI of each cluster, then the cluster's average (only_multi: only
 * where the cluster has more than one INI), last the machine's. */
static void each_perf_row(FILE *o, const struct report *r, perf_row_fn *row, bool only_multi)
{
    for (int c = 0; c < r->n_clusters; c++) {
        const struct report_cluster *cl = &r->clusters[c];
        char cid[16], ini[16];
        snprintf(cid, sizeof(cid), "%d", cl->cluster_id);
        for (int k = cl->first_ini; k < cl->first_ini + cl->n_inis; k++) {
            snprintf(ini, sizeof(ini), "%d", r->inis[k].ini_id);
            row(o, cid, cl->n_pes, cl->n_inis, ini, &r->inis[k].perf, r->inis[k].share);
        }
        if (!only_multi || cl->n_inis > 1)
            row(o, cid, cl->n_pes, cl->n_inis, "avg", &cl->perf, NAN);
    }
    row(o, "all", r->common_pes, r->common_inis, "avg", &r->all, NAN);
}

/* Each cluster, then the machine where misrouting applies to it. */
static void each_mis_row(FILE *o, const struct report *r, mis_row_fn *row)
{
    for (int c = 0; c < r->n_clusters; c++) {
        char cid[16];
        snprintf(cid, sizeof(cid), "%d", r->clusters[c].cluster_id);
        row(o, cid, r->clusters[c].n_pes, r->clusters[c].n_inis, &r->clusters[c].mis);
    }
    if (r->all_mis.applicable)
        row(o, "all", r->common_pes, r->common_inis, &r->all_mis);
}

/* ---- the one-sentence summaries under the text tables ----------------- */

static void text_breakdown_sentence(FILE *o, const struct report_breakdown *bd, const char *const cols[REPORT_COLS])
{
    int top = -1;
    for (int c = 0; c < REPORT_COLS - 1; c++)
        if (!isnan(bd->all.cycles[c]) && (top < 0 || bd->all.cycles[c] > bd->all.cycles[top]))
            top = c;
    if (bd->n_msgs == 0 || top < 0 || !(bd->all.cycles[REPORT_COLS - 1] > 0)) {
        fprintf(o, "No message of this path was traced in detail.\n");
        return;
    }
    fprintf(o, "Over all %llu messages, %s took the largest part of the time: %.0f%% of %.0f cycles.\n",
            (unsigned long long)bd->n_msgs, cols[top],
            100.0 * bd->all.cycles[top] / bd->all.cycles[REPORT_COLS - 1], bd->all.cycles[REPORT_COLS - 1]);
}

static void text_perf_sentence(FILE *o, const struct report *r)
{
    if (r->busiest_ini >= 0) {
        const struct report_ini *b = &r->inis[r->busiest_ini];
        int n_inis = 0;
        for (int c = 0; c < r->n_clusters; c++)
            if (r->clusters[c].cluster_id == b->cluster_id)
                n_inis = r->clusters[c].n_inis;
        fprintf(o, "INI %d carried %.0f%% of cluster %d's messages, the largest share of any INI "
                   "(an even split: %.0f%%); INI utilization ranged from %.3f to %.3f.\n",
                b->ini_id, 100.0 * b->share, b->cluster_id, 100.0 / (n_inis ? n_inis : 1), r->util_min,
                r->util_max);
    } else if (r->n_inis) {
        fprintf(o, "Every cluster has one INI, which carried all its messages; INI utilization ranged "
                   "from %.3f to %.3f.\n", r->util_min, r->util_max);
    }
}

static void text_mis_sentence(FILE *o, const struct report *r)
{
    const struct report_misroute *m = &r->all_mis;
    if (!m->applicable) {
        fprintf(o, "No cluster has two INIs, so no message could have gone to another INI.\n");
        return;
    }
    if (m->messages == 0) {
        fprintf(o, "No inter-cluster message passed the clusters with two or more INIs.\n");
        return;
    }
    fprintf(o, "In the clusters with two or more INIs, %.1f%% of the inter-cluster messages queued at a busy "
               "INI while another INI of their cluster was idle; their queue time was %.1f%% of the "
               "INIs' processing time%s.\n", 100.0 * m->count_rate, 100.0 * m->time_rate,
            m->time_rate > 1 ? " (above 100%: messages arrived in bursts at one INI, see docs/traces.md)" : "");
}

/* Messages per compute node per INI: rows are compute nodes, columns the
 * cluster's INIs in order, cells sent/received. */
static void text_split(FILE *o, const struct report *r)
{
    int cols = 0;
    for (int c = 0; c < r->n_clusters; c++)
        cols = r->clusters[c].n_inis > cols ? r->clusters[c].n_inis : cols;
    if (cols > REPORT_MAX_INIS_PER_CLUSTER)
        cols = REPORT_MAX_INIS_PER_CLUSTER;
    fprintf(o, "Messages per compute node per INI (sent/received; INI columns: the cluster's INIs in order)\n");
    fprintf(o, "%-7s %5s", "cluster", "PE");
    for (int k = 0; k < cols; k++) {
        char h[16];
        snprintf(h, sizeof(h), "INI #%d", k);
        fprintf(o, " %13s", h);
    }
    fprintf(o, " %5s\n", "INIs");
    for (int c = 0; c < r->n_clusters; c++) {
        const struct report_cluster *cl = &r->clusters[c];
        for (int i = cl->first_pe; i < cl->first_pe + cl->n_split_pes; i++) {
            const struct report_pe_split *p = &r->pe_split[i];
            fprintf(o, "%-7d %5d", cl->cluster_id, p->pe);
            for (int k = 0; k < cols; k++) {
                char cell[48];
                if (k < cl->n_inis)
                    snprintf(cell, sizeof(cell), "%llu/%llu", (unsigned long long)p->sent[k],
                             (unsigned long long)p->received[k]);
                else
                    snprintf(cell, sizeof(cell), "-");
                fprintf(o, " %13s", cell);
            }
            fprintf(o, " %5d\n", p->inis_used);
        }
    }
    if (r->pe_inis_max == 0)
        fprintf(o, "No compute node sent a message.\n");
    else if (r->pe_inis_min == r->pe_inis_max)
        fprintf(o, "Every compute node that sent messages sent them through %d INI%s of its cluster.\n",
                r->pe_inis_min, r->pe_inis_min == 1 ? "" : "s");
    else
        fprintf(o, "Compute nodes sent their messages through %d to %d INIs of their cluster.\n",
                r->pe_inis_min, r->pe_inis_max);
}

/* ---- text ----------------------------------------------------------- */

static void text_breakdown(FILE *o, const struct report_breakdown *bd, const char *title,
                           const char *const cols[REPORT_COLS], bool ns, const char *cycles)
{
    fprintf(o, "%s, mean %s per message\n", title, ns ? "nanoseconds" : cycles);
    fprintf(o, "%-13s %8s", "len (bytes)", "msgs");
    for (int c = 0; c < REPORT_COLS; c++)
        fprintf(o, " %10s", cols[c]);
    fputc('\n', o);
    for (int b = 0; b <= bd->n_buckets; b++) {
        const struct report_bucket *k = b < bd->n_buckets ? &bd->buckets[b] : &bd->all;
        char label[32];
        if (b < bd->n_buckets)
            len_label(label, sizeof(label), k);
        else
            snprintf(label, sizeof(label), "all");
        fprintf(o, "%-13s %8llu", label, (unsigned long long)k->count);
        for (int c = 0; c < REPORT_COLS; c++)
            text_num(o, 10, 1, ns ? k->ns[c] : k->cycles[c]);
        fputc('\n', o);
    }
    text_breakdown_sentence(o, bd, cols);
    fputc('\n', o);
}

/* The configuration columns; 0 (not recorded, or differing between the
 * clusters in the machine row) prints as "-". */
static const char *config_num(char *buf, size_t n, int v)
{
    if (v > 0)
        snprintf(buf, n, "%d", v);
    else
        snprintf(buf, n, "-");
    return buf;
}

static void text_perf_row(FILE *o, const char *cluster, int clu_size, int ios, const char *ini,
                          const struct report_perf *p, double share)
{
    char size[16], n_ios[16];
    fprintf(o, "%-7s %8s %7s %-5s %8llu %8llu %6llu", cluster, config_num(size, sizeof(size), clu_size),
            config_num(n_ios, sizeof(n_ios), ios), ini,
            (unsigned long long)p->n_out, (unsigned long long)p->n_in, (unsigned long long)p->n_local);
    text_num(o, 8, 1, p->msg_len);
    text_num(o, 10, 1, p->send_cycles);
    text_num(o, 10, 1, p->recv_cycles);
    text_num(o, 10, 1, p->msg_cycles);
    text_num(o, 10, 1, p->msg_ns);
    text_num(o, 9, 3, p->queue_len);
    text_num(o, 9, 3, p->queue_at_arrival);
    text_num(o, 11, 3, p->utilization);
    text_pct(o, 7, share);
    fputc('\n', o);
}

static void text_mis_row(FILE *o, const char *cluster, int clu_size, int ios, const struct report_misroute *m)
{
    char size[16], n_ios[16];
    fprintf(o, "%-7s %8s %7s", cluster, config_num(size, sizeof(size), clu_size),
            config_num(n_ios, sizeof(n_ios), ios));
    if (!m->applicable) {
        fprintf(o, "  n/a: one INI\n");
        return;
    }
    fprintf(o, " %9llu %8llu %9llu", (unsigned long long)m->messages, (unsigned long long)m->blocked,
            (unsigned long long)m->misrouted);
    text_pct(o, 14, m->time_rate);
    text_pct(o, 15, m->count_rate);
    text_pct(o, 16, m->time_rate_bounded);
    fputc('\n', o);
}

static void print_text(FILE *o, const struct report *r)
{
    fprintf(o, "ini-trace report: %s\n", r->dir);
    /* A virtual-time run's stamps are the emulated machine's cycles (trace.h). */
    const char *cycles = r->n_virtual ? "emulated cycles" : "TSC cycles";
    fprintf(o, "  %d trace files (%d detailed, %d summary), %d clusters; %s %.3f MHz; "
               "policies: compute %s, INI %s\n",
            r->n_files, r->n_detailed, r->n_summary, r->n_clusters,
            r->n_virtual ? "virtual time, the emulated machine's clock" : "TSC",
            r->n_inis ? (double)r->inis[0].tsc_hz / 1e6 : 0.0, policy_name(r->pe_policy),
            policy_name(r->ini_policy));
    fprintf(o, "  messages: %llu recorded, %llu dropped (trace buffer full)\n",
            (unsigned long long)r->recorded, (unsigned long long)r->dropped);
    for (int i = 0; i < r->n_notes; i++)
        fprintf(o, "  note: %s\n", r->notes[i]);
    fputc('\n', o);

    if (r->n_detailed == 0) {
        fprintf(o, "Table 5.1 / 5.2: n/a: summary traces only (set trace.mode = detailed)\n\n");
    } else {
        text_breakdown(o, &r->send, "Table 5.1: time breakdown among sending modules", send_cols, false, cycles);
        text_breakdown(o, &r->send, "Table 5.1: time breakdown among sending modules", send_cols, true, cycles);
        text_breakdown(o, &r->recv, "Table 5.2: time breakdown among receiving modules", recv_cols, false, cycles);
        text_breakdown(o, &r->recv, "Table 5.2: time breakdown among receiving modules", recv_cols, true, cycles);
    }

    fprintf(o, "%s: INI node performance per cluster (times in %s; msg time = time in the send "
               "INI + time in the receive INI)\n", perf_table(r->ini_policy), cycles);
    fprintf(o, "%-7s %8s %7s %-5s %8s %8s %6s %8s %10s %10s %10s %10s %9s %9s %11s %7s\n", "cluster", "clu size",
            "ios/clu", "INI", "out", "in", "local", "msg len", "send time", "recv time", "msg time",
            "msg ns", "queue len", "q@arrive", "utilization", "share");
    each_perf_row(o, r, text_perf_row, true);
    text_perf_sentence(o, r);
    fputc('\n', o);

    fprintf(o, "%s: intra-cluster INI load imbalance (section 5.4)\n", mis_table(r->ini_policy));
    fprintf(o, "%-7s %8s %7s %9s %8s %9s %14s %15s %16s\n", "cluster", "clu size", "ios/clu", "messages",
            "blocked", "misrouted", "mis time rate", "mis count rate", "time (bounded)");
    each_mis_row(o, r, text_mis_row);
    text_mis_sentence(o, r);
    fputc('\n', o);
    text_split(o, r);
}

/* ---- CSV ------------------------------------------------------------ */

static void csv_num(FILE *o, double v)
{
    if (isnan(v))
        fputc(',', o);
    else
        fprintf(o, ",%.15g", v);
}

static void csv_nums(FILE *o, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        csv_num(o, v[i]);
}

/* A table's start: `title`, unless NULL, on a line of its own (the
 * one-stream form of print_csv), then the header line (without its
 * newline: a header may go on column by column). */
static void csv_head(FILE *o, const char *title, const char *header)
{
    if (title)
        fprintf(o, "%s\n", title);
    fputs(header, o);
}

static void csv_breakdown(FILE *o, const char *section, const struct report_breakdown *bd,
                          const char *const keys[REPORT_COLS])
{
    csv_head(o, section, "len_lo,len_hi,msgs");
    for (int c = 0; c < REPORT_COLS; c++)
        fprintf(o, ",%s_cycles", keys[c]);
    for (int c = 0; c < REPORT_COLS; c++)
        fprintf(o, ",%s_ns", keys[c]);
    fputc('\n', o);
    for (int b = 0; b <= bd->n_buckets; b++) {
        const struct report_bucket *k = b < bd->n_buckets ? &bd->buckets[b] : &bd->all;
        if (b == bd->n_buckets && bd->n_buckets == 0)
            break;
        if (b < bd->n_buckets)
            fprintf(o, "%u,%u,%llu", k->len_lo, k->len_hi, (unsigned long long)k->count);
        else
            fprintf(o, "all,all,%llu", (unsigned long long)k->count);
        csv_nums(o, k->cycles, REPORT_COLS);
        csv_nums(o, k->ns, REPORT_COLS);
        fputc('\n', o);
    }
}

/* cluster, clu_size, ios_per_clu; a size of 0 (not known) is left empty */
static void csv_config(FILE *o, const char *cluster, int clu_size, int ios)
{
    fprintf(o, "%s,", cluster);
    if (clu_size > 0)
        fprintf(o, "%d", clu_size);
    fputc(',', o);
    if (ios > 0)
        fprintf(o, "%d", ios);
}

static void csv_perf_row(FILE *o, const char *cluster, int clu_size, int ios, const char *ini,
                         const struct report_perf *p, double share)
{
    csv_config(o, cluster, clu_size, ios);
    fprintf(o, ",%s,%llu,%llu,%llu", ini, (unsigned long long)p->n_out,
            (unsigned long long)p->n_in, (unsigned long long)p->n_local);
    const double v[] = { p->msg_len, p->send_cycles, p->recv_cycles, p->msg_cycles, p->send_ns, p->recv_ns,
                         p->msg_ns, p->local_cycles, p->queue_len, p->queue_at_arrival, p->utilization,
                         p->busy_cycles, p->run_cycles, share };
    csv_nums(o, v, sizeof(v) / sizeof(v[0]));
    fputc('\n', o);
}

static void csv_mis_row(FILE *o, const char *cluster, int clu_size, int ios, const struct report_misroute *m)
{
    csv_config(o, cluster, clu_size, ios);
    if (!m->applicable) {
        fprintf(o, ",,,,,,,,,,n/a: one INI\n");
        return;
    }
    fprintf(o, ",%llu,%llu,%llu", (unsigned long long)m->messages, (unsigned long long)m->blocked,
            (unsigned long long)m->misrouted);
    const double v[] = { m->time_rate, m->count_rate, m->time_rate_bounded, m->saved_cycles,
                         m->saved_bounded_cycles, m->busy_cycles };
    csv_nums(o, v, sizeof(v) / sizeof(v[0]));
    fprintf(o, ",\n");
}

/* The CSV tables, each a header line and its rows; `title`, unless NULL,
 * goes on a line of its own first (the one-stream form of print_csv). */
static void csv_send(FILE *o, const struct report *r, const char *title)
{
    csv_breakdown(o, title, &r->send, send_keys);
}

static void csv_recv(FILE *o, const struct report *r, const char *title)
{
    csv_breakdown(o, title, &r->recv, recv_keys);
}

static void csv_clusters(FILE *o, const struct report *r, const char *title)
{
    csv_head(o, title, "cluster,clu_size,ios_per_clu,ini,msgs_out,msgs_in,msgs_local,msg_len,send_cycles,"
                       "recv_cycles,msg_cycles,send_ns,recv_ns,msg_ns,local_cycles,queue_len,queue_at_arrival,"
                       "utilization,busy_cycles,run_cycles,share\n");
    each_perf_row(o, r, csv_perf_row, false);
}

static void csv_misrouting(FILE *o, const struct report *r, const char *title)
{
    csv_head(o, title, "cluster,clu_size,ios_per_clu,messages,blocked,misrouted,mis_sched_time_rate,"
                       "mis_sched_count_rate,mis_sched_time_rate_bounded,saved_cycles,saved_bounded_cycles,"
                       "busy_cycles,note\n");
    each_mis_row(o, r, csv_mis_row);
}

static void csv_pe_split(FILE *o, const struct report *r, const char *title)
{
    csv_head(o, title, "cluster,pe,ini_index,ini,sent,received\n");
    for (int c = 0; c < r->n_clusters; c++) {
        const struct report_cluster *cl = &r->clusters[c];
        for (int i = cl->first_pe; i < cl->first_pe + cl->n_split_pes; i++)
            for (int k = 0; k < cl->n_inis && k < REPORT_MAX_INIS_PER_CLUSTER; k++)
                fprintf(o, "%d,%d,%d,%d,%llu,%llu\n", cl->cluster_id, r->pe_split[i].pe, k,
                        r->inis[cl->first_ini + k].ini_id, (unsigned long long)r->pe_split[i].sent[k],
                        (unsigned long long)r->pe_split[i].received[k]);
    }
}

/* The CSV tables, by name: the title of each in the one stream, its file
 * name (NAME.csv) in a directory. */
static const struct {
    const char *name;
    void (*write)(FILE *o, const struct report *r, const char *title);
} csv_tables[] = {
    { "send_breakdown", csv_send },
    { "receive_breakdown", csv_recv },
    { "clusters", csv_clusters },
    { "misrouting", csv_misrouting },
    { "pe_split", csv_pe_split },
};

/* All tables in one stream: each under its title, a blank line between. */
static void print_csv(FILE *o, const struct report *r)
{
    for (size_t t = 0; t < sizeof csv_tables / sizeof csv_tables[0]; t++) {
        if (t)
            fputc('\n', o);
        csv_tables[t].write(o, r, csv_tables[t].name);
    }
}

int report_write_csv_dir(const struct report *r, const char *dir, char *err, size_t errlen)
{
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    for (size_t t = 0; t < sizeof csv_tables / sizeof csv_tables[0]; t++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.csv", dir, csv_tables[t].name);
        FILE *o = fopen(path, "w");
        if (!o) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            return -1;
        }
        csv_tables[t].write(o, r, NULL);
        if (fclose(o) != 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* ---- JSON ----------------------------------------------------------- */

void report_json_str(FILE *o, const char *s)
{
    fputc('"', o);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(o, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(o, "\\u%04x", ch);
        else
            fputc(ch, o);
    }
    fputc('"', o);
}

void report_json_num(FILE *o, const char *key, double v, bool comma)
{
    fprintf(o, "\"%s\": ", key);
    if (isnan(v))
        fprintf(o, "null");
    else
        fprintf(o, "%.15g", v);
    if (comma)
        fprintf(o, ", ");
}

static void json_bucket(FILE *o, const struct report_bucket *b, const char *const keys[REPORT_COLS], bool all)
{
    if (all)
        fprintf(o, "{\"msgs\": %llu, \"cycles\": {", (unsigned long long)b->count);
    else
        fprintf(o, "{\"len_lo\": %u, \"len_hi\": %u, \"msgs\": %llu, \"cycles\": {", b->len_lo, b->len_hi,
                (unsigned long long)b->count);
    for (int c = 0; c < REPORT_COLS; c++)
        report_json_num(o, keys[c], b->cycles[c], c + 1 < REPORT_COLS);
    fprintf(o, "}, \"ns\": {");
    for (int c = 0; c < REPORT_COLS; c++)
        report_json_num(o, keys[c], b->ns[c], c + 1 < REPORT_COLS);
    fprintf(o, "}}");
}

static void json_breakdown(FILE *o, const char *key, const struct report_breakdown *bd,
                           const char *const keys[REPORT_COLS], bool available)
{
    fprintf(o, "  \"%s\": {\"available\": %s, \"rows\": [", key, available ? "true" : "false");
    for (int b = 0; b < bd->n_buckets; b++) {
        fprintf(o, "%s\n    ", b ? "," : "");
        json_bucket(o, &bd->buckets[b], keys, false);
    }
    fprintf(o, "%s],\n    \"all\": ", bd->n_buckets ? "\n  " : "");
    json_bucket(o, &bd->all, keys, true);
    fprintf(o, "},\n");
}

static void json_perf(FILE *o, const struct report_perf *p)
{
    fprintf(o, "\"msgs_out\": %llu, \"msgs_in\": %llu, \"msgs_local\": %llu, ", (unsigned long long)p->n_out,
            (unsigned long long)p->n_in, (unsigned long long)p->n_local);
    report_json_num(o, "msg_len", p->msg_len, true);
    report_json_num(o, "send_cycles", p->send_cycles, true);
    report_json_num(o, "recv_cycles", p->recv_cycles, true);
    report_json_num(o, "msg_cycles", p->msg_cycles, true);
    report_json_num(o, "send_ns", p->send_ns, true);
    report_json_num(o, "recv_ns", p->recv_ns, true);
    report_json_num(o, "msg_ns", p->msg_ns, true);
    report_json_num(o, "local_cycles", p->local_cycles, true);
    report_json_num(o, "service_cycles", p->service_cycles, true);
    report_json_num(o, "service_ns", p->service_ns, true);
    report_json_num(o, "queue_len", p->queue_len, true);
    report_json_num(o, "queue_at_arrival", p->queue_at_arrival, true);
    report_json_num(o, "utilization", p->utilization, true);
    report_json_num(o, "busy_cycles", p->busy_cycles, true);
    report_json_num(o, "run_cycles", p->run_cycles, false);
}

static void json_mis(FILE *o, const struct report_misroute *m, const char *why_not)
{
    fprintf(o, "\"applicable\": %s", m->applicable ? "true" : "false");
    if (!m->applicable) {
        fprintf(o, ", \"note\": \"%s\"", why_not);
        return;
    }
    fprintf(o, ", \"messages\": %llu, \"blocked\": %llu, \"misrouted\": %llu, ",
            (unsigned long long)m->messages, (unsigned long long)m->blocked, (unsigned long long)m->misrouted);
    report_json_num(o, "mis_sched_time_rate", m->time_rate, true);
    report_json_num(o, "mis_sched_count_rate", m->count_rate, true);
    report_json_num(o, "mis_sched_time_rate_bounded", m->time_rate_bounded, true);
    report_json_num(o, "saved_cycles", m->saved_cycles, true);
    report_json_num(o, "saved_bounded_cycles", m->saved_bounded_cycles, true);
    report_json_num(o, "busy_cycles", m->busy_cycles, false);
}

static void print_json(FILE *o, const struct report *r)
{
    fprintf(o, "{\n  \"run\": ");
    report_json_str(o, r->dir);
    fprintf(o, ", \"files\": %d, \"detailed\": %d, \"summary\": %d, \"pe_policy\": \"%s\", "
               "\"ini_policy\": \"%s\", \"length_buckets\": \"%s\",\n",
            r->n_files, r->n_detailed, r->n_summary, policy_name(r->pe_policy), policy_name(r->ini_policy),
            r->pow2_buckets ? "power_of_two" : "distinct");
    fprintf(o, "  \"recorded\": %llu, \"dropped\": %llu,\n", (unsigned long long)r->recorded,
            (unsigned long long)r->dropped);
    fprintf(o, "  \"notes\": [");
    for (int i = 0; i < r->n_notes; i++) {
        if (i)
            fprintf(o, ", ");
        report_json_str(o, r->notes[i]);
    }
    fprintf(o, "],\n");
    json_breakdown(o, "send_breakdown", &r->send, send_keys, r->n_detailed > 0);
    json_breakdown(o, "receive_breakdown", &r->recv, recv_keys, r->n_detailed > 0);

    fprintf(o, "  \"clusters\": [");
    for (int c = 0; c < r->n_clusters; c++) {
        const struct report_cluster *cl = &r->clusters[c];
        fprintf(o, "%s\n    {\"cluster\": %d, \"clu_size\": %d, \"ios_per_clu\": %d, \"inis\": [", c ? "," : "",
                cl->cluster_id, cl->n_pes, cl->n_inis);
        for (int k = cl->first_ini; k < cl->first_ini + cl->n_inis; k++) {
            const struct report_ini *ri = &r->inis[k];
            fprintf(o, "%s\n      {\"ini\": %d, \"index\": %d, \"file\": ", k > cl->first_ini ? "," : "",
                    ri->ini_id, ri->ini_index);
            report_json_str(o, ri->file);
            fprintf(o, ", \"mode\": \"%s\", \"dropped\": %llu, \"tsc_hz\": %llu, \"clock\": \"%s\", ",
                    ri->mode == INI_TRACE_DETAILED ? "detailed" : "summary", (unsigned long long)ri->dropped,
                    (unsigned long long)ri->tsc_hz, ri->virtual_clock ? "virtual" : "host");
            json_perf(o, &ri->perf);
            fprintf(o, ", ");
            report_json_num(o, "share", ri->share, false);
            fprintf(o, "}");
        }
        fprintf(o, "],\n     \"average\": {");
        json_perf(o, &cl->perf);
        fprintf(o, "}}");
    }
    fprintf(o, "\n  ],\n  \"machine\": {");
    report_json_num(o, "clu_size", r->common_pes > 0 ? (double)r->common_pes : NAN, true);
    report_json_num(o, "ios_per_clu", r->common_inis > 0 ? (double)r->common_inis : NAN, true);
    json_perf(o, &r->all);
    fprintf(o, "},\n  \"misrouting\": [");
    for (int c = 0; c < r->n_clusters; c++) {
        const struct report_cluster *cl = &r->clusters[c];
        fprintf(o, "%s\n    {\"cluster\": %d, \"clu_size\": %d, \"ios_per_clu\": %d, ", c ? "," : "",
                cl->cluster_id, cl->n_pes, cl->n_inis);
        json_mis(o, &cl->mis, "n/a: one INI");
        fprintf(o, "}");
    }
    fprintf(o, "\n  ],\n  \"misrouting_all\": {");
    json_mis(o, &r->all_mis, "n/a: no cluster has two INIs");
    fprintf(o, "},\n  \"pe_split\": [");
    int first = 1;
    for (int c = 0; c < r->n_clusters; c++) {
        const struct report_cluster *cl = &r->clusters[c];
        for (int i = cl->first_pe; i < cl->first_pe + cl->n_split_pes; i++) {
            const struct report_pe_split *p = &r->pe_split[i];
            fprintf(o, "%s\n    {\"cluster\": %d, \"pe\": %d, \"inis_used\": %d, \"sent\": [", first ? "" : ",",
                    cl->cluster_id, p->pe, p->inis_used);
            for (int k = 0; k < cl->n_inis && k < REPORT_MAX_INIS_PER_CLUSTER; k++)
                fprintf(o, "%s%llu", k ? ", " : "", (unsigned long long)p->sent[k]);
            fprintf(o, "], \"received\": [");
            for (int k = 0; k < cl->n_inis && k < REPORT_MAX_INIS_PER_CLUSTER; k++)
                fprintf(o, "%s%llu", k ? ", " : "", (unsigned long long)p->received[k]);
            fprintf(o, "]}");
            first = 0;
        }
    }
    fprintf(o, "\n  ],\n  \"pe_inis_min\": %d, \"pe_inis_max\": %d\n}\n", r->pe_inis_min, r->pe_inis_max);
}

void report_print(FILE *out, const struct report *r, enum report_format fmt)
{
    switch (fmt) {
    case REPORT_CSV:  print_csv(out, r); break;
    case REPORT_JSON: print_json(out, r); break;
    default:          print_text(out, r); break;
    }
}
