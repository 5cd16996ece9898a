/*
 * report.h - the statistics of a traced run, as the thesis's chapter 5
 * reports them (definitions and formulas: docs/traces.md).
 *
 *   send / receive breakdown   tables 5.1 and 5.2: average cycles (and ns)
 *                              per module, per message length; detailed
 *                              traces only
 *   per-INI performance        tables 5.3 / 5.4: message length, message
 *                              time (send INI + receive INI), time-average
 *                              queue length, queue length at arrival, INI
 *                              utilization; per INI, per cluster, machine
 *   misrouting                 section 5.4, tables 5.6 / 5.7: mis-scheduled
 *                              count and time rates per cluster
 *   compute-node split         messages per compute node per INI (which
 *                              INIs each compute node's traffic used)
 *
 * report_build() does all the arithmetic on a loaded run (trace_file.h) and
 * fills plain structs; report_print() (report_print.c) only formats them,
 * so tests check the numbers directly.  A mean over nothing is NaN, printed
 * as "-" (null in JSON).
 */
#ifndef TRACE_REPORT_H
#define TRACE_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "trace_file.h"

/* Lengths become power-of-two buckets beyond this many distinct lengths. */
#define REPORT_MAX_DISTINCT_LENGTHS 16
#define REPORT_MAX_NOTES 32
/* Columns of the compute-node split: a cluster's INIs (ini/config/config.h's bound). */
#define REPORT_MAX_INIS_PER_CLUSTER 16

/* Columns of the breakdown tables, in the thesis's order; the send path's
 * handler column is the compute node's share (t1 - t0). */
enum report_send_col { SEND_HANDLER, SEND_QUEUE, SEND_WINDOW, SEND_UDP, SEND_IP, SEND_TOTAL };
enum report_recv_col { RECV_QUEUE, RECV_IP, RECV_UDP, RECV_WINDOW, RECV_DELIVERY, RECV_TOTAL };
#define REPORT_COLS 6

struct report_bucket {
    uint32_t len_lo, len_hi;        /* payload bytes, inclusive */
    uint64_t count;
    double cycles[REPORT_COLS];     /* averages */
    double ns[REPORT_COLS];
};

struct report_breakdown {
    int n_buckets;
    struct report_bucket *buckets;  /* ascending length */
    uint64_t n_msgs;
    struct report_bucket all;       /* every length together */
};

/* One row of table 5.3: an INI, a cluster or the whole machine. */
struct report_perf {
    uint64_t n_out, n_in, n_local;
    double msg_len;                 /* mean payload of outbound and inbound messages */
    double send_cycles, send_ns;    /* mean time in the send INI: t5 - t1 of outbound */
    double recv_cycles, recv_ns;    /* mean time in the receive INI: t6 - t1 of inbound */
    double msg_cycles, msg_ns;      /* send + receive */
    double local_cycles;            /* mean t6 - t1 of local messages */
    double service_cycles, service_ns;  /* mean done - s of outbound and inbound messages: the
                                           processing time of one pass, queue left out */
    double queue_len;               /* time-average messages in the INI (mean over INIs) */
    double queue_at_arrival;        /* mean queue length field over messages */
    double utilization;             /* busy / run (mean over INIs) */
    double busy_cycles, run_cycles; /* sums over the INIs */
};

/* Section 5.4 over one cluster (definitions: docs/traces.md). */
struct report_misroute {
    bool applicable;                /* the cluster has two or more INIs */
    uint64_t messages;              /* inter-cluster messages that arrived in the common window */
    uint64_t blocked;               /* of them: queued while their INI processed others */
    uint64_t misrouted;             /* of them: a sibling INI was idle (no message) at the arrival */
    double saved_cycles;            /* sum of the misrouted messages' queue time (wasted time) */
    double saved_bounded_cycles;    /* same, each capped by the sibling's idle time left */
    double busy_cycles;             /* time the cluster's INIs processed inter-cluster messages */
    double count_rate;              /* misrouted / messages */
    double time_rate;               /* saved / busy */
    double time_rate_bounded;       /* saved_bounded / busy */
};

/* One compute node's messages through each INI of its cluster: outbound
 * and local ones it sent, inbound ones it received (columns: the cluster's
 * INIs by index). */
struct report_pe_split {
    int pe;                         /* global id */
    uint64_t sent[REPORT_MAX_INIS_PER_CLUSTER];
    uint64_t received[REPORT_MAX_INIS_PER_CLUSTER];
    int inis_used;                  /* INIs it sent through (0 if it sent nothing) */
};

struct report_ini {
    int ini_id, cluster_id, ini_index;
    char file[256];
    int mode;
    uint64_t dropped;
    uint64_t tsc_hz;
    bool virtual_clock;             /* its stamps are emulated cycles (trace.h) */
    struct report_perf perf;
    double share;                   /* its messages / its cluster's (any kind) */
};

struct report_cluster {
    int cluster_id, n_inis, n_pes;
    int first_ini;                  /* its INIs are inis[first_ini .. first_ini + n_inis - 1] */
    struct report_perf perf;        /* messages pooled, queue and utilization averaged over INIs */
    struct report_misroute mis;
    int first_pe, n_split_pes;      /* its rows are pe_split[first_pe ..], ascending PE */
};

struct report {
    char dir[1024];
    int n_files, n_detailed, n_summary;
    int n_virtual;                  /* files of a virtual-time run (trace.h, enum ini_trace_clock) */
    uint64_t recorded, dropped;     /* messages in the files, messages their full buffers missed */
    int pe_policy, ini_policy;      /* -1 not recorded, -2 files disagree */
    bool pow2_buckets;
    struct report_breakdown send, recv;
    int n_inis;
    struct report_ini *inis;        /* ascending cluster, then index */
    int n_clusters;
    struct report_cluster *clusters;
    struct report_perf all;
    struct report_misroute all_mis; /* pooled over the clusters that apply */
    int common_pes, common_inis;    /* every cluster's PEs and INIs, 0 if they differ */
    int n_pe_split;
    struct report_pe_split *pe_split;
    /* For the one-sentence summaries under the tables: */
    int busiest_ini;                /* index in inis[] of the largest share among clusters with
                                       two or more INIs; -1 if none */
    double util_min, util_max;      /* over the INIs */
    int pe_inis_min, pe_inis_max;   /* INIs a compute node sent through, over those that sent */
    int n_notes;
    char notes[REPORT_MAX_NOTES][256];
};

enum report_format { REPORT_TEXT, REPORT_CSV, REPORT_JSON };

/* Each record's service start s (docs/traces.md), by record index into
 * start_of[f->n]: t2, or reconstructed for a summary trace.  0, or -1 out
 * of memory. */
int  report_service_starts(const struct trace_file *f, uint64_t *start_of);
/* 0, or -1 (out of memory) with the reason in err. */
int  report_build(struct report *r, const struct trace_run *run, char *err, size_t errlen);
void report_free(struct report *r);
void report_print(FILE *out, const struct report *r, enum report_format fmt);
/* JSON pieces, for the other commands' output: a quoted, escaped
 * string; "KEY": number (null for NaN), ", " after it when comma. */
void report_json_str(FILE *o, const char *s);
void report_json_num(FILE *o, const char *key, double v, bool comma);
/* The CSV tables as one file each, DIR/<table>.csv (send_breakdown,
 * receive_breakdown, clusters, misrouting, pe_split): a header line and
 * the rows, nothing else.  Makes DIR if needed.  0, or -1 with err. */
int report_write_csv_dir(const struct report *r, const char *dir, char *err, size_t errlen);

#endif
