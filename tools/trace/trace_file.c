/*
 * trace_file.c - loads ini<ID>.trace files and checks them (trace_file.h).
 *
 * The skeleton is trace_load.c's, shared with cn_file.c; here the
 * format's part: its header checked field by field, then every record
 * decoded and checked, so the report code can trust what it gets:
 * each record has the stamps its kind and the file's mode promise, in time
 * order, inside the run's [start, end].  Run-level checks then compare the
 * headers of the files of one cluster.
 */
#include "trace_file.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "file_util.h"
#include "trace_load.h"

static const char *kind_name(int kind)
{
    switch (kind) {
    case INI_TRACE_OUT:   return "outbound";
    case INI_TRACE_IN:    return "inbound";
    case INI_TRACE_LOCAL: return "local";
    default:              return "?";
    }
}

/* The stamps a record of this kind carries in this mode, in time order. */
static int required_stamps(int kind, int mode, int idx[INI_TS_COUNT])
{
    static const int out_detailed[] = { 0, 1, 2, 3, 4, 5 };
    static const int in_detailed[] = { 1, 2, 3, 4, 5, 6 };
    static const int local_detailed[] = { 1, 2, 6 };
    static const int out_summary[] = { 1, 5 };
    static const int in_summary[] = { 1, 6 };
    const int *src;
    int n;
    if (mode == INI_TRACE_DETAILED) {
        if (kind == INI_TRACE_OUT)     { src = out_detailed;   n = 6; }
        else if (kind == INI_TRACE_IN) { src = in_detailed;    n = 6; }
        else                           { src = local_detailed; n = 3; }
    } else {
        if (kind == INI_TRACE_OUT)     { src = out_summary;    n = 2; }
        else                           { src = in_summary;     n = 2; }
    }
    memcpy(idx, src, (size_t)n * sizeof(int));
    return n;
}

static int check_header(void *file, const uint8_t *h, uint64_t size, char *err, size_t errlen)
{
    struct trace_file *f = file;
    const char *p = f->shown;
    if (memcmp(h, INI_TRACE_MAGIC, INI_TRACE_MAGIC_LEN) != 0)
        return ini_fail(err, errlen, "%s: not an INI trace file (bad magic)", p);
    struct ini_trace_header hd;
    ini_trace_decode_header(h, &hd);
    unsigned version = hd.version, header_size = hd.header_size, record_size = hd.record_size;
    if (version < 1 || version > INI_TRACE_VERSION)
        return ini_fail(err, errlen, "%s: unknown format version %u (this reader knows 1 to %d)", p, version,
                        INI_TRACE_VERSION);
    f->version = (int)version;
    if (header_size != INI_TRACE_HEADER_SIZE || record_size != INI_TRACE_RECORD_SIZE)
        return ini_fail(err, errlen, "%s: header size %u / record size %u, version %u has %d / %d", p,
                        header_size, record_size, version, INI_TRACE_HEADER_SIZE, INI_TRACE_RECORD_SIZE);
    f->mode = hd.mode;
    if (f->mode != INI_TRACE_SUMMARY && f->mode != INI_TRACE_DETAILED)
        return ini_fail(err, errlen, "%s: unknown trace mode %d", p, f->mode);
    struct ini_trace_info *in = &f->info;
    *in = hd.info;
    f->n = hd.n;
    f->dropped = hd.dropped;

    uint64_t body = size - INI_TRACE_HEADER_SIZE;
    if (f->n > body / INI_TRACE_RECORD_SIZE || body != f->n * INI_TRACE_RECORD_SIZE)
        return ini_fail(err, errlen,
                        "%s: header says %llu records (%llu bytes) but %llu bytes follow the header "
                        "(truncated or corrupt)", p, (unsigned long long)f->n,
                        (unsigned long long)(f->n * INI_TRACE_RECORD_SIZE), (unsigned long long)body);
    if (in->tsc_hz == 0)
        return ini_fail(err, errlen, "%s: TSC rate is 0", p);
    if (in->ini_id < 0 || in->cluster_id < 0)
        return ini_fail(err, errlen, "%s: negative INI id %d or cluster id %d", p, in->ini_id, in->cluster_id);
    /* The readers size their tables by these: a damaged header must not
     * make them allocate gigabytes (the system's limits, config.h). */
    if (in->ini_id >= INI_MAX_INIS || in->cluster_id >= INI_MAX_CLUSTERS)
        return ini_fail(err, errlen, "%s: INI id %d or cluster id %d beyond the system's %d INIs and %d clusters", p,
                        in->ini_id, in->cluster_id, INI_MAX_INIS, INI_MAX_CLUSTERS);
    if (in->cluster_inis <= 0)
        return ini_fail(err, errlen, "%s: the number of INIs in the cluster was not recorded", p);
    if (in->cluster_inis > INI_MAX_INIS_PER_CLUSTER || in->cluster_pes < 0 ||
        in->cluster_pes > INI_MAX_PES_PER_CLUSTER)
        return ini_fail(err, errlen, "%s: a cluster of %d INIs and %d compute nodes (at most %d and %d)", p,
                        in->cluster_inis, in->cluster_pes, INI_MAX_INIS_PER_CLUSTER, INI_MAX_PES_PER_CLUSTER);
    if (in->ini_index < 0 || in->ini_index >= in->cluster_inis)
        return ini_fail(err, errlen, "%s: INI index %d outside its cluster's %d INIs", p, in->ini_index,
                        in->cluster_inis);
    if (in->start_tsc == 0 || in->end_tsc < in->start_tsc)
        return ini_fail(err, errlen, "%s: run span [%llu, %llu] not recorded or reversed", p,
                        (unsigned long long)in->start_tsc, (unsigned long long)in->end_tsc);
    /* The readers turn stamps into nanoseconds and back (the replay's
     * synthetic traces): a rate or a span no machine has would overflow
     * them.  A record's stamps lie inside the span (check_record). */
    double span_s = (double)(in->end_tsc - in->start_tsc) / (double)in->tsc_hz;
    if (in->tsc_hz < TRACE_TSC_HZ_MIN || in->tsc_hz > TRACE_TSC_HZ_MAX || span_s > TRACE_SPAN_MAX_S)
        return ini_fail(err, errlen, "%s: a TSC of %llu Hz over %.3g s (at most %.0f s of a clock of 1 MHz to 100 GHz)",
                        p, (unsigned long long)in->tsc_hz, span_s, TRACE_SPAN_MAX_S);
    return 0;
}

static int check_record(const struct trace_file *f, uint64_t i, const struct ini_trace_rec *r,
                        struct trace_msg *m, char *err, size_t errlen)
{
    if (r->kind < INI_TRACE_OUT || r->kind > INI_TRACE_LOCAL)
        return ini_fail(err, errlen, "%s: record %llu: unknown kind %u", f->shown, (unsigned long long)i, r->kind);
    memset(m, 0, sizeof(*m));
    m->kind = r->kind;
    m->src_pe = r->src_pe;
    m->dst_pe = r->dst_pe;
    m->peer_ini = r->peer_ini;
    m->len = r->len;
    m->qlen = r->qlen;
    m->seq = r->seq;
    int first = ini_trace_first_stamp(r->kind);
    int idx[INI_TS_COUNT];
    int n = required_stamps(r->kind, f->mode, idx);
    for (int k = 0; k < n; k++) {
        int s = idx[k];
        m->t[s] = r->slot[s - first];
        if (m->t[s] == 0)
            return ini_fail(err, errlen, "%s: record %llu (%s): stamp t%d missing in a %s trace", f->shown,
                            (unsigned long long)i, kind_name(r->kind), s,
                            f->mode == INI_TRACE_DETAILED ? "detailed" : "summary");
        if (k > 0 && m->t[s] < m->t[idx[k - 1]])
            return ini_fail(err, errlen, "%s: record %llu (%s): stamps out of order: t%d = %llu < t%d = %llu",
                            f->shown, (unsigned long long)i, kind_name(r->kind), s,
                            (unsigned long long)m->t[s], idx[k - 1], (unsigned long long)m->t[idx[k - 1]]);
    }
    /* t0 is the PE's and may precede the INI's run; the INI's own stamps
     * must lie inside it, or utilization would exceed 1. */
    uint64_t arrive = m->t[INI_TS_ENQUEUE], done = trace_msg_done(m);
    if (arrive < f->info.start_tsc || done > f->info.end_tsc)
        return ini_fail(err, errlen, "%s: record %llu (%s): [t1, done] = [%llu, %llu] outside the run [%llu, %llu]",
                        f->shown, (unsigned long long)i, kind_name(r->kind), (unsigned long long)arrive,
                        (unsigned long long)done, (unsigned long long)f->info.start_tsc,
                        (unsigned long long)f->info.end_tsc);
    return 0;
}

static int decode_records(void *file, uint64_t first, const uint8_t *buf, size_t m, char *err, size_t errlen)
{
    struct trace_file *f = file;
    for (size_t j = 0; j < m; j++) {
        struct ini_trace_rec r;
        const uint8_t *in = buf + j * INI_TRACE_RECORD_SIZE;
        uint32_t len = 0, qlen = 0;
        if (f->version == 1)
            ini_trace_decode_rec_v1(in, &r, &len, &qlen);
        else
            ini_trace_decode_rec(in, &r);
        if (check_record(f, first + j, &r, &f->msgs[first + j], err, errlen) < 0)
            return -1;
        if (f->version == 1) {
            f->msgs[first + j].len = len;
            f->msgs[first + j].qlen = qlen;
        }
    }
    return 0;
}

static long file_id(const void *file)
{
    return ((const struct trace_file *)file)->info.ini_id;
}

static int cmp_file_by_id(const void *a, const void *b);

static void free_file(void *file)
{
    trace_file_free(file);
}

static const struct trace_format ini_format = {
    .prefix = "ini", .id_what = "INI",
    .header_size = INI_TRACE_HEADER_SIZE, .rec_size = INI_TRACE_RECORD_SIZE,
    TRACE_FORMAT_LAYOUT(struct trace_file, msgs),
    .header = check_header, .records = decode_records, .id = file_id, .cmp = cmp_file_by_id, .free = free_file,
};

int trace_file_load(struct trace_file *f, const char *path, char *err, size_t errlen)
{
    return trace_load_file(&ini_format, f, path, err, errlen);
}

int trace_file_load_mem(struct trace_file *f, const char *path, const uint8_t *bytes, uint64_t size,
                        char *err, size_t errlen)
{
    return trace_load_file_mem(&ini_format, f, path, bytes, size, err, errlen);
}

void trace_file_free(struct trace_file *f)
{
    free(f->msgs);
    f->msgs = NULL;
    f->n = 0;
}

long trace_name_number(const char *name, const char *prefix)
{
    size_t np = strlen(prefix);
    if (strncmp(name, prefix, np) != 0)
        return -1;
    const char *p = name + np;
    long id = 0;
    int digits = 0;
    while (*p >= '0' && *p <= '9' && digits < 9) {
        id = id * 10 + (*p++ - '0');
        digits++;
    }
    return digits > 0 && strcmp(p, ".trace") == 0 ? id : -1;
}

static int cmp_file_by_id(const void *a, const void *b)
{
    const struct trace_file *x = a, *y = b;
    return (x->info.ini_id > y->info.ini_id) - (x->info.ini_id < y->info.ini_id);
}

/* The files of each cluster must agree on its shape and be all there. */
static int check_clusters(const struct trace_run *run, char *err, size_t errlen)
{
    for (int i = 0; i < run->n_files; i++) {
        const struct trace_file *a = &run->files[i];
        int present = 0;
        for (int j = 0; j < run->n_files; j++) {
            const struct trace_file *b = &run->files[j];
            if (b->info.cluster_id != a->info.cluster_id)
                continue;
            present++;
            if (j == i)
                continue;
            if (b->info.cluster_inis != a->info.cluster_inis)
                return ini_fail(err, errlen, "%s: INI %d says cluster %d has %d INIs, but %s (INI %d) says %d",
                                b->shown, b->info.ini_id, b->info.cluster_id, b->info.cluster_inis, a->name,
                                a->info.ini_id, a->info.cluster_inis);
            if (b->info.cluster_pes != a->info.cluster_pes)
                return ini_fail(err, errlen, "%s: INI %d says cluster %d has %d compute nodes, but %s says %d",
                                b->shown, b->info.ini_id, b->info.cluster_id, b->info.cluster_pes, a->name,
                                a->info.cluster_pes);
            if (b->info.ini_index == a->info.ini_index)
                return ini_fail(err, errlen, "%s: INI %d has the same index %d in cluster %d as %s", b->shown,
                                b->info.ini_id, b->info.ini_index, b->info.cluster_id, a->name);
        }
        if (present != a->info.cluster_inis)
            return ini_fail(err, errlen, "%s: cluster %d has %d INIs but %d trace files were found for it in %s",
                            a->shown, a->info.cluster_id, a->info.cluster_inis, present, run->shown);
    }
    return 0;
}

/* The checks between files once all are loaded; frees the run on failure. */
static int finish_run(struct trace_run *run, int rc, char *err, size_t errlen)
{
    if (rc == 0 && run->n_files == 0)
        rc = ini_fail(err, errlen, "%s: no ini<ID>.trace files", run->shown);
    if (rc == 0)
        rc = check_clusters(run, err, errlen);
    if (rc < 0)
        trace_run_free(run);
    return rc;
}

static int load_run(struct trace_run *run, const char *dir, const struct trace_image *images, int n, char *err,
                    size_t errlen)
{
    memset(run, 0, sizeof(*run));
    snprintf(run->dir, sizeof(run->dir), "%s", dir);
    ini_path_for_message(dir, run->shown, sizeof(run->shown));
    void *files = NULL;
    int rc = trace_load_run(&ini_format, dir, run->shown, images, n, &files, &run->n_files, err, errlen);
    run->files = files;
    return finish_run(run, rc, err, errlen);
}

int trace_run_load(struct trace_run *run, const char *dir, char *err, size_t errlen)
{
    return load_run(run, dir, NULL, 0, err, errlen);
}

int trace_run_load_mem(struct trace_run *run, const char *dir, const struct trace_image *images, int n,
                       char *err, size_t errlen)
{
    static const struct trace_image none;
    return load_run(run, dir, images ? images : &none, n, err, errlen);   /* never the directory */
}

void trace_run_free(struct trace_run *run)
{
    for (int i = 0; i < run->n_files; i++)
        trace_file_free(&run->files[i]);
    free(run->files);
    run->files = NULL;
    run->n_files = 0;
}

static int has_file(const struct trace_run *run, long id)
{
    for (int i = 0; i < run->n_files; i++)
        if (run->files[i].info.ini_id == id)
            return 1;
    return 0;
}

/* "ini<ID>.log": the id, or -1. */
static long log_name_id(const char *name)
{
    if (strncmp(name, "ini", 3) != 0)
        return -1;
    char *end;
    errno = 0;
    long id = strtol(name + 3, &end, 10);
    if (end == name + 3 || name[3] < '0' || name[3] > '9' || errno || id > 99999 || strcmp(end, ".log") != 0)
        return -1;
    return id;
}

int trace_run_missing(const struct trace_run *run, int *missing, int max)
{
    enum { MAX_ID = 100000 };
    long top = -1;
    for (int i = 0; i < run->n_files; i++)
        if (run->files[i].info.ini_id > top)
            top = run->files[i].info.ini_id;
    DIR *d = opendir(run->dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            long id = log_name_id(e->d_name);
            if (id > top)
                top = id;
        }
        closedir(d);
    }
    if (top >= MAX_ID)
        top = MAX_ID - 1;
    int n = 0;
    for (long id = 0; id <= top; id++) {
        if (has_file(run, id))
            continue;
        /* Below the largest id every INI existed (ids are dense); the
         * largest one is known from its log or its trace. */
        if (n < max)
            missing[n] = (int)id;
        n++;
    }
    return n;
}
