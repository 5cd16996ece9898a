/*
 * cn_file.h - reading and validating the compute nodes' trace files of a
 * run, RUN_DIR/cn<CLUSTER>.trace (ini/trace/trace_cn.h, docs/traces.md), and the
 * run's clock offsets, RUN_DIR/clocks.tsv (written by the launcher).
 *
 * As trace_file.c does for the INIs' files, loading checks everything the
 * tools rely on and fails with one line "FILE: what is wrong": header
 * fields, the record count against the file size, every record's kind and
 * stamps (present, ordered, inside the file's clock anchors), and between
 * files, one file per cluster.
 */
#ifndef CN_FILE_H
#define CN_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "trace_cn.h"
#include "trace_file.h"

struct cn_file {
    char path[1024];
    char name[256];
    char shown[TRACE_SHOWN_LEN];
    struct ini_cn_trace_info info;
    double ns_per_tsc;              /* from the anchors */
    uint64_t n;
    struct ini_cn_trace_rec *recs;
};

struct cn_run {
    int n_files;
    struct cn_file *files;          /* ascending cluster */
};

/* The TSC rate a file's anchors give (Hz); 0 if they cannot. */
double cn_file_hz(const struct ini_cn_trace_info *in);

int  cn_file_load_mem(struct cn_file *f, const char *path, const uint8_t *bytes, uint64_t size, char *err,
                      size_t errlen);
int  cn_file_load(struct cn_file *f, const char *path, char *err, size_t errlen);
void cn_file_free(struct cn_file *f);
/* Every RUN_DIR/cn<C>.trace; none is not an error (n_files 0). */
int  cn_run_load(struct cn_run *run, const char *dir, char *err, size_t errlen);
/* The same from images named cn<C>.trace (others skipped). */
int  cn_run_load_mem(struct cn_run *run, const char *dir, const struct trace_image *images, int n, char *err,
                     size_t errlen);
void cn_run_free(struct cn_run *run);

/* RUN_DIR/clocks.tsv (tools/cluster/cluster_clock.h): after a header line,
 * one line per host, "HOST OFFSET_NS UNCERTAINTY_NS AT_NS END_OFFSET_NS
 * END_UNCERTAINTY_NS END_AT_NS" (tab-separated); OFFSET_NS is what to add
 * to the host's CLOCK_REALTIME to get the launcher's, measured at AT_NS and
 * again at END_AT_NS.  The earlier form "HOST OFFSET_NS RTT_NS" (header
 * "host offset_ns rtt_ns") is read too: uncertainty RTT / 2, no drift. */
#define CLOCK_MAX_HOSTS 64
struct clock_table {
    int n;
    char host[CLOCK_MAX_HOSTS][INI_TRACE_HOST_LEN];
    int64_t offset_ns[CLOCK_MAX_HOSTS], uncertainty_ns[CLOCK_MAX_HOSTS], at_ns[CLOCK_MAX_HOSTS];
    int64_t end_offset_ns[CLOCK_MAX_HOSTS], end_uncertainty_ns[CLOCK_MAX_HOSTS], end_at_ns[CLOCK_MAX_HOSTS];
    char how[256];        /* the launcher's note "# ..." after the header: how they were measured ("": not said) */
};
/* 0 (n = 0 when the file is absent), or -1 with "FILE:LINE: why". */
int clock_table_load(struct clock_table *t, const char *dir, char *err, size_t errlen);
/* The offset of host at its clock's instant when_ns: the start's and the
 * end's interpolated (drift), or the start's alone when they were measured
 * at one instant; 0 when the table is empty.  -1 when the table has
 * entries but not this host. */
int clock_table_offset(const struct clock_table *t, const char *host, double when_ns, int64_t *offset_ns);
/* The largest uncertainty of any host's offset (ns; 0 for an empty
 * table), and that host's index into *which (-1 when none). */
int64_t clock_table_uncertainty(const struct clock_table *t, int *which);

#endif
