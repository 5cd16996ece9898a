/*
 * mgs_stats.c - the counters of a cluster: RUN_DIR/mgs-cluster<C>.json and a
 * one-line summary on stderr (stdout belongs to the application).
 *
 * The file goes to INI_RUN_DIR (or MGS_RUN_DIR); without either, as in a
 * standalone run outside the launcher, only the summary is printed.
 *
 * Message counters count MGS messages between clusters (what crossed the
 * INIs: header + payload as handed to ini_send); messages a cluster sends to
 * itself (its own homes, locks) are counted apart as `local`.  The average
 * inter-cluster message length is sent bytes over sent messages.
 */
#include "mgs_internal.h"

#include <stdio.h>

#include "counters.h"

static void totals(const struct mgs_counters *s, uint64_t *msgs, uint64_t *bytes)
{
    *msgs = *bytes = 0;
    for (int t = 1; t < MGS_M_TYPES; t++) {
        *msgs += s->msg[t].sent;
        *bytes += s->msg[t].sent_bytes;
    }
}

void mgs_stats_totals(const struct mgs_counters *s, double out[MGS_T_COUNT])
{
    uint64_t msgs, bytes;
    totals(s, &msgs, &bytes);
    out[MGS_T_MSGS] = (double)msgs;
    out[MGS_T_BYTES] = (double)bytes;
    out[MGS_T_READ_FAULTS] = (double)s->read_faults;
    out[MGS_T_WRITE_FAULTS] = (double)s->write_faults;
    out[MGS_T_FETCHED] = (double)s->pages_fetched;
    out[MGS_T_DIFFS] = (double)s->diffs_sent;
    out[MGS_T_DIFF_BYTES] = (double)s->diff_bytes;
    out[MGS_T_INVALIDATIONS] = (double)s->invalidations;
    out[MGS_T_SW_GRANTS] = (double)s->sw_grants;
    out[MGS_T_SW_RECALLS] = (double)s->sw_recalls;
    out[MGS_T_LOCAL_HANDOFFS] = (double)s->lock_local_handoffs;
    out[MGS_T_REMOTE_ACQUIRES] = (double)s->lock_remote_acquires;
    out[MGS_T_BARRIER_US] = (double)s->barrier_wait_us;
}

static void machine_summary(const struct mgs *g, char *buf, size_t len)
{
    const double *t = g->machine;
    snprintf(buf, len,
             "mgs machine (%d clusters): %.0f inter-cluster msgs, %.0f B, average message %.0f B; faults %.0f read, "
             "%.0f write; %.0f units fetched; %.0f diffs (avg %.0f B); %.0f invalidations; single-writer %.0f "
             "grants, %.0f recalls; locks %.0f local hand-offs, %.0f remote",
             g->n_clusters, t[MGS_T_MSGS], t[MGS_T_BYTES], t[MGS_T_MSGS] > 0 ? t[MGS_T_BYTES] / t[MGS_T_MSGS] : 0.0,
             t[MGS_T_READ_FAULTS], t[MGS_T_WRITE_FAULTS], t[MGS_T_FETCHED], t[MGS_T_DIFFS],
             t[MGS_T_DIFFS] > 0 ? t[MGS_T_DIFF_BYTES] / t[MGS_T_DIFFS] : 0.0, t[MGS_T_INVALIDATIONS],
             t[MGS_T_SW_GRANTS], t[MGS_T_SW_RECALLS], t[MGS_T_LOCAL_HANDOFFS], t[MGS_T_REMOTE_ACQUIRES]);
}

void mgs_stats_print_machine(struct mgs *g)
{
    char line[512];
    machine_summary(g, line, sizeof line);
    fprintf(stderr, "%s\n", line);
}

/* The cluster's one-line summary (stderr and the file's "summary"). */
static void cluster_summary(const struct mgs *g, uint64_t msgs, uint64_t bytes, char *buf, size_t len)
{
    const struct mgs_counters *s = &g->stats;
    snprintf(buf, len,
             "mgs cluster %d: %llu msgs / %llu B sent (avg %.0f B); faults %llu read, %llu write; "
             "%llu units fetched; %llu diffs (avg %.0f B); %llu invalidations; single-writer %llu grants, "
             "%llu recalls; locks %llu local hand-offs, %llu remote; %llu barriers (avg %.0f us)",
             g->cluster, (unsigned long long)msgs, (unsigned long long)bytes,
             msgs ? (double)bytes / (double)msgs : 0.0,
             (unsigned long long)s->read_faults, (unsigned long long)s->write_faults,
             (unsigned long long)s->pages_fetched, (unsigned long long)s->diffs_sent,
             s->diffs_sent ? (double)s->diff_bytes / (double)s->diffs_sent : 0.0,
             (unsigned long long)s->invalidations, (unsigned long long)s->sw_grants,
             (unsigned long long)s->sw_recalls, (unsigned long long)s->lock_local_handoffs,
             (unsigned long long)s->lock_remote_acquires, (unsigned long long)s->barriers,
             s->barriers ? (double)s->barrier_wait_us / (double)s->barriers : 0.0);
}

/* The file's counters after the messages, one a line, in this order. */
#define MGS_COUNTER(name) INI_COUNTER_SAME(struct mgs_counters, name)
static const struct ini_counter protocol_counters[] = {
    MGS_COUNTER(read_faults),          MGS_COUNTER(write_faults),       MGS_COUNTER(spurious_faults),
    MGS_COUNTER(pages_fetched),        MGS_COUNTER(upgrades),           MGS_COUNTER(diffs_sent),
    MGS_COUNTER(diff_bytes),           MGS_COUNTER(diff_changed_bytes), MGS_COUNTER(diff_max_bytes),
    MGS_COUNTER(clean_acks),           MGS_COUNTER(invalidations),      MGS_COUNTER(inv_sent),
    MGS_COUNTER(sw_grants),            MGS_COUNTER(sw_recalls),         MGS_COUNTER(sw_grants_given),
    MGS_COUNTER(sw_recalls_sent),      MGS_COUNTER(releases),           MGS_COUNTER(flushes),
    MGS_COUNTER(lock_acquires),        MGS_COUNTER(lock_local_handoffs), MGS_COUNTER(lock_remote_acquires),
    MGS_COUNTER(lock_token_departures), MGS_COUNTER(barriers),          MGS_COUNTER(barrier_wait_us),
    MGS_COUNTER(barrier_max_us),       MGS_COUNTER(reorder_held),       MGS_COUNTER(dilate_sleeps),
    MGS_COUNTER(dilate_sleep_us),      MGS_COUNTER(dilate_cpu_us),      MGS_COUNTER(dilate_span_us),
    MGS_COUNTER(protocol_dilate_sleeps), MGS_COUNTER(protocol_dilate_sleep_us),
    MGS_COUNTER(protocol_dilate_cpu_us), MGS_COUNTER(protocol_dilate_span_us),
    MGS_COUNTER(sibling_faults),       MGS_COUNTER(unchanged_releases), MGS_COUNTER(local_held),
};

/* "messages": each type's counters, one a line. */
static void json_messages(FILE *f, const struct mgs_counters *s)
{
    fprintf(f, "  \"messages\": {\n");
    for (int t = 1; t < MGS_M_TYPES; t++) {
        const struct mgs_msg_counters *m = &s->msg[t];
        fprintf(f,
                "    \"%s\": { \"sent\": %llu, \"sent_bytes\": %llu, \"received\": %llu, "
                "\"received_bytes\": %llu, \"local\": %llu }%s\n",
                mgs_msg_name(t), (unsigned long long)m->sent, (unsigned long long)m->sent_bytes,
                (unsigned long long)m->received, (unsigned long long)m->received_bytes,
                (unsigned long long)m->local, t + 1 < MGS_M_TYPES ? "," : "");
    }
    fprintf(f, "  },\n");
}

/* "nodes": each compute node's own traffic, as the INI layer counted it:
 * what it sent through each INI of the cluster (index within the cluster). */
static void json_nodes(FILE *f, const struct mgs *g)
{
    int n_inis = ini_cn_config(g->cn)->clusters[g->cluster].n_inis;
    fprintf(f, "  \"nodes\": [");
    for (int k = 0; k < g->n_pes; k++) {
        const struct ini_pe_stats *ps = ini_pe_stats(g->pes[k]);
        fprintf(f, "%s\n    { \"pe\": %d, \"sent\": %llu, \"received\": %llu, \"sent_per_ini\": [", k ? "," : "",
                ini_pe_id(g->pes[k]), (unsigned long long)ps->sent, (unsigned long long)ps->received);
        for (int i = 0; i < n_inis; i++)
            fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)ps->sent_per_ini[i]);
        fprintf(f, "]");
        if (g->vt.on)    /* MGS on every node: the steps this node ran, and its clock at the end */
            fprintf(f, ", \"protocol_steps\": %llu, \"vtime_cycles\": %llu", (unsigned long long)g->vt.steps[k],
                    (unsigned long long)ini_pe_vtime(g->pes[k]));
        fprintf(f, " }");
    }
    fprintf(f, "\n  ],\n");
}

/* "machine": summed over all clusters by the shutdown barrier (taken just
 * before it, so its own ARRIVE/GO are not included); cluster 0 writes it. */
static void json_machine(FILE *f, const struct mgs *g)
{
    static const char *const names[MGS_T_COUNT] = {
        "messages_sent", "bytes_sent", "read_faults", "write_faults", "pages_fetched", "diffs_sent",
        "diff_bytes", "invalidations", "sw_grants", "sw_recalls", "lock_local_handoffs",
        "lock_remote_acquires", "barrier_wait_us" };
    fprintf(f, "  \"machine\": {");
    for (int i = 0; i < MGS_T_COUNT; i++)
        fprintf(f, "%s\"%s\": %.0f", i ? ", " : " ", names[i], g->machine[i]);
    fprintf(f, ", \"avg_message_bytes\": %.1f },\n",
            g->machine[MGS_T_MSGS] > 0 ? g->machine[MGS_T_BYTES] / g->machine[MGS_T_MSGS] : 0.0);
}

void mgs_stats_write(struct mgs *g)
{
    mgs_dilate_counters(g, &g->stats);
    const struct mgs_counters *s = &g->stats;
    uint64_t msgs, bytes;
    totals(s, &msgs, &bytes);
    char summary[512];
    cluster_summary(g, msgs, bytes, summary, sizeof summary);
    fprintf(stderr, "%s\n", summary);

    if (!g->run_dir[0])
        return;   /* standalone run without a run directory: the summary only */
    char path[600];
    snprintf(path, sizeof path, "%s/mgs-cluster%d.json", g->run_dir, g->cluster);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "mgs: cannot write %s: %m\n", path);
        return;
    }
    fprintf(f, "{\n  \"cluster\": %d,\n  \"clusters\": %d,\n  \"threads\": %d,\n  \"unit_bytes\": %zu,\n",
            g->cluster, g->n_clusters, g->local_threads[g->cluster], g->unit);
    json_messages(f, s);
    fprintf(f, "  \"messages_sent\": %llu,\n  \"bytes_sent\": %llu,\n  \"avg_message_bytes\": %.1f,\n",
            (unsigned long long)msgs, (unsigned long long)bytes, msgs ? (double)bytes / (double)msgs : 0.0);
    fprintf(f, "  ");
    ini_counters_json(f, protocol_counters, INI_COUNTERS_N(protocol_counters), s, ",\n  ");
    fprintf(f, ",\n");
    fprintf(f, "  \"avg_diff_bytes\": %.1f,\n", s->diffs_sent ? (double)s->diff_bytes / (double)s->diffs_sent : 0.0);
    if (g->cn)
        json_nodes(f, g);
    if (g->cluster == 0)
        json_machine(f, g);
    fprintf(f, "  \"summary\": \"%s\"\n}\n", summary);
    fclose(f);
}
