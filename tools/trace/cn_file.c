/*
 * cn_file.c - loads cn<CLUSTER>.trace files and checks them (cn_file.h),
 * and reads the run's clock offsets (clocks.tsv).
 *
 * The skeleton (opening, chunks, the run's files) is trace_load.c's,
 * shared with trace_file.c; here the format's part: its header checked
 * field by field, then every record decoded and checked, so the replay
 * and the other tools can trust what they get.
 */
#include "cn_file.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "file_util.h"
#include "trace_load.h"

double cn_file_hz(const struct ini_cn_trace_info *in)
{
    if (in->end_tsc <= in->start_tsc || in->end_ns <= in->start_ns)
        return 0;
    return (double)(in->end_tsc - in->start_tsc) * 1e9 / (double)(in->end_ns - in->start_ns);
}

static int check_header(void *file, const uint8_t *h, uint64_t size, char *err, size_t errlen)
{
    struct cn_file *f = file;
    const char *p = f->shown;
    if (memcmp(h, INI_CN_TRACE_MAGIC, 8) != 0)
        return ini_fail(err, errlen, "%s: not a compute-node trace file (bad magic)", p);
    struct ini_cn_trace_header hd;
    ini_cn_trace_decode_header(h, &hd);
    unsigned version = hd.version, hs = hd.header_size, rs = hd.record_size;
    if (version != INI_CN_TRACE_VERSION)
        return ini_fail(err, errlen, "%s: unknown format version %u (this reader knows %d)", p, version,
                    INI_CN_TRACE_VERSION);
    if (hs != INI_CN_TRACE_HEADER_SIZE || rs != INI_CN_TRACE_RECORD_SIZE)
        return ini_fail(err, errlen, "%s: header size %u / record size %u, version %d has %d / %d", p, hs, rs,
                    INI_CN_TRACE_VERSION, INI_CN_TRACE_HEADER_SIZE, INI_CN_TRACE_RECORD_SIZE);
    struct ini_cn_trace_info *in = &f->info;
    *in = hd.info;
    if (in->flags & ~(INI_CN_HDR_NODE_HANDLERS | INI_CN_HDR_LIBRARY | INI_CN_HDR_VIRTUAL))
        return ini_fail(err, errlen, "%s: unknown header flags 0x%x", p, in->flags);
    f->n = in->records;
    uint64_t body = size - INI_CN_TRACE_HEADER_SIZE;
    if (f->n > body / INI_CN_TRACE_RECORD_SIZE || body != f->n * INI_CN_TRACE_RECORD_SIZE)
        return ini_fail(err, errlen, "%s: header says %llu records but %llu bytes follow the header (truncated or corrupt)",
                    p, (unsigned long long)f->n, (unsigned long long)body);
    if (in->cluster < 0 || in->cluster >= INI_MAX_CLUSTERS || in->n_pes < 1 || in->n_pes > INI_MAX_PES_PER_CLUSTER)
        return ini_fail(err, errlen, "%s: cluster %d with %d compute nodes (at most %d clusters of %d)", p,
                        in->cluster, in->n_pes, INI_MAX_CLUSTERS, INI_MAX_PES_PER_CLUSTER);
    double hz = cn_file_hz(in);
    if (in->start_tsc == 0 || in->start_ns == 0 || hz < (double)TRACE_TSC_HZ_MIN || hz > (double)TRACE_TSC_HZ_MAX)
        return ini_fail(err, errlen, "%s: clock anchors missing or reversed (TSC %llu..%llu, ns %llu..%llu)", p,
                    (unsigned long long)in->start_tsc, (unsigned long long)in->end_tsc,
                    (unsigned long long)in->start_ns, (unsigned long long)in->end_ns);
    f->ns_per_tsc = 1e9 / hz;
    return 0;
}

static const char *kind_name(int k)
{
    static const char *const names[] = { "?", "SEND", "RECV", "ACTION", "REQ", "JOIN" };
    return k >= INI_CN_SEND && k <= INI_CN_JOIN ? names[k] : names[0];
}

/* The stamps a kind must carry (a mask of t[0..2]) and how they order. */
static int check_record(const struct cn_file *f, uint64_t i, const struct ini_cn_trace_rec *r, char *err,
                        size_t errlen)
{
    const char *p = f->shown;
    unsigned long long at = (unsigned long long)i;
    if (r->kind < INI_CN_SEND || r->kind > INI_CN_JOIN)
        return ini_fail(err, errlen, "%s: record %llu: unknown kind %u", p, at, r->kind);
    const char *k = kind_name(r->kind);
    int need1 = r->kind == INI_CN_RECV || r->kind == INI_CN_ACTION || r->kind == INI_CN_REQ;
    if (r->t[0] == 0 || (need1 && r->t[1] == 0))
        return ini_fail(err, errlen, "%s: record %llu (%s): a stamp is missing", p, at, k);
    if (need1 && r->t[1] < r->t[0])
        return ini_fail(err, errlen, "%s: record %llu (%s): ends before it starts (%llu < %llu)", p, at, k,
                    (unsigned long long)r->t[1], (unsigned long long)r->t[0]);
    if (r->kind == INI_CN_REQ && r->t[2] > r->t[0])
        return ini_fail(err, errlen, "%s: record %llu (REQ): resumed after the next submit", p, at);
    if (r->kind != INI_CN_REQ && r->t[2] != 0)
        return ini_fail(err, errlen, "%s: record %llu (%s): stamp 2 set", p, at, k);
    if ((r->kind == INI_CN_ACTION || r->kind == INI_CN_REQ) && r->a == 0)
        return ini_fail(err, errlen, "%s: record %llu (%s): no id", p, at, k);
    if (r->kind == INI_CN_ACTION && (r->tag < INI_CN_ACT_MSG || r->tag > INI_CN_ACT_REQ))
        return ini_fail(err, errlen, "%s: record %llu (ACTION): unknown action kind %u", p, at, r->tag);
    for (int s = 0; s < 3; s++)
        if (r->t[s] && (r->t[s] < f->info.start_tsc || r->t[s] > f->info.end_tsc))
            return ini_fail(err, errlen, "%s: record %llu (%s): stamp %d = %llu outside the file's [%llu, %llu]", p,
                        at, k, s, (unsigned long long)r->t[s], (unsigned long long)f->info.start_tsc,
                        (unsigned long long)f->info.end_tsc);
    return 0;
}

static int decode_records(void *file, uint64_t first, const uint8_t *buf, size_t m, char *err, size_t errlen)
{
    struct cn_file *f = file;
    for (size_t j = 0; j < m; j++) {
        ini_cn_trace_decode_rec(buf + j * INI_CN_TRACE_RECORD_SIZE, &f->recs[first + j]);
        if (check_record(f, first + j, &f->recs[first + j], err, errlen) < 0)
            return -1;
    }
    return 0;
}

static long file_id(const void *file)
{
    return ((const struct cn_file *)file)->info.cluster;
}

static int cmp_cluster(const void *a, const void *b)
{
    const struct cn_file *x = a, *y = b;
    return (x->info.cluster > y->info.cluster) - (x->info.cluster < y->info.cluster);
}

static void free_file(void *file)
{
    cn_file_free(file);
}

static const struct trace_format cn_format = {
    .prefix = "cn", .id_what = "cluster",
    .header_size = INI_CN_TRACE_HEADER_SIZE, .rec_size = INI_CN_TRACE_RECORD_SIZE,
    TRACE_FORMAT_LAYOUT(struct cn_file, recs),
    .header = check_header, .records = decode_records, .id = file_id, .cmp = cmp_cluster, .free = free_file,
};

int cn_file_load_mem(struct cn_file *f, const char *path, const uint8_t *bytes, uint64_t size, char *err,
                     size_t errlen)
{
    return trace_load_file_mem(&cn_format, f, path, bytes, size, err, errlen);
}

int cn_file_load(struct cn_file *f, const char *path, char *err, size_t errlen)
{
    return trace_load_file(&cn_format, f, path, err, errlen);
}

void cn_file_free(struct cn_file *f)
{
    free(f->recs);
    f->recs = NULL;
    f->n = 0;
}

static int load_run(struct cn_run *run, const char *dir, const struct trace_image *images, int n, char *err,
                    size_t errlen)
{
    char shown[TRACE_SHOWN_LEN];
    memset(run, 0, sizeof(*run));
    ini_path_for_message(dir, shown, sizeof(shown));
    void *files = NULL;
    int rc = trace_load_run(&cn_format, dir, shown, images, n, &files, &run->n_files, err, errlen);
    run->files = files;
    if (rc < 0)
        cn_run_free(run);
    return rc;
}

int cn_run_load(struct cn_run *run, const char *dir, char *err, size_t errlen)
{
    return load_run(run, dir, NULL, 0, err, errlen);
}

int cn_run_load_mem(struct cn_run *run, const char *dir, const struct trace_image *images, int n, char *err,
                    size_t errlen)
{
    static const struct trace_image none;
    return load_run(run, dir, images ? images : &none, n, err, errlen);   /* never the directory */
}

void cn_run_free(struct cn_run *run)
{
    for (int i = 0; i < run->n_files; i++)
        cn_file_free(&run->files[i]);
    free(run->files);
    run->files = NULL;
    run->n_files = 0;
}

/* One line of clocks.tsv into entry t->n; 0, or -1 (malformed). */
static int clock_line(struct clock_table *t, const char *line, bool old_form)
{
    int k = t->n;
    char host[INI_TRACE_HOST_LEN + 1], extra;
    long long v[6];
    if (old_form) {
        if (sscanf(line, "%32s %lld %lld %c", host, &v[0], &v[1], &extra) != 3 || v[1] < 0)
            return -1;
        v[1] = (v[1] + 1) / 2;
        v[2] = v[5] = 0;
        v[3] = v[0];
        v[4] = v[1];
    } else if (sscanf(line, "%32s %lld %lld %lld %lld %lld %lld %c", host, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                      &extra) != 7 || v[1] < 0 || v[4] < 0 || v[5] < v[2]) {
        return -1;
    }
    snprintf(t->host[k], sizeof(t->host[k]), "%s", host);
    t->offset_ns[k] = v[0];
    t->uncertainty_ns[k] = v[1];
    t->at_ns[k] = v[2];
    t->end_offset_ns[k] = v[3];
    t->end_uncertainty_ns[k] = v[4];
    t->end_at_ns[k] = v[5];
    t->n++;
    return 0;
}

int clock_table_load(struct clock_table *t, const char *dir, char *err, size_t errlen)
{
    memset(t, 0, sizeof(*t));
    char path[2048], shown[TRACE_SHOWN_LEN], why[128];
    snprintf(path, sizeof(path), "%s/clocks.tsv", dir);
    if (access(path, F_OK) != 0)
        return 0;
    ini_path_for_message(path, shown, sizeof(shown));
    int fd = ini_open_regular(path, 1 << 20, why, sizeof(why));
    FILE *fp = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!fp) {
        if (fd >= 0)
            close(fd);
        return ini_fail(err, errlen, "%s: %s", shown, fd < 0 ? why : strerror(errno));
    }
    char line[512];
    int ln = 0, rc = 0;
    bool old_form = false;
    while (rc == 0 && fgets(line, sizeof(line), fp)) {
        ln++;
        if (ln == 1) {
            old_form = strstr(line, "rtt_ns") != NULL;   /* the header line names the form */
            continue;
        }
        if (line[0] == '#' && !t->how[0]) {
            snprintf(t->how, sizeof(t->how), "%s", line + 1 + (line[1] == ' '));
            t->how[strcspn(t->how, "\n")] = '\0';
        }
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (t->n == CLOCK_MAX_HOSTS)
            rc = ini_fail(err, errlen, "%s:%d: more than %d hosts", shown, ln, CLOCK_MAX_HOSTS);
        else if (clock_line(t, line, old_form) < 0)
            rc = ini_fail(err, errlen, old_form ? "%s:%d: expected HOST OFFSET_NS RTT_NS"
                                                : "%s:%d: expected HOST OFFSET_NS UNCERTAINTY_NS AT_NS END_OFFSET_NS "
                                                  "END_UNCERTAINTY_NS END_AT_NS", shown, ln);
    }
    fclose(fp);
    return rc;
}

int clock_table_offset(const struct clock_table *t, const char *host, double when_ns, int64_t *offset_ns)
{
    *offset_ns = 0;
    if (t->n == 0)
        return 0;
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->host[i], host) == 0) {
            double a = (double)t->at_ns[i] - (double)t->offset_ns[i];        /* on the host's clock */
            double b = (double)t->end_at_ns[i] - (double)t->end_offset_ns[i];
            double o = (double)t->offset_ns[i];
            if (b > a)
                o += ((double)t->end_offset_ns[i] - o) * (when_ns - a) / (b - a);
            *offset_ns = (int64_t)llround(o);
            return 0;
        }
    return -1;
}

int64_t clock_table_uncertainty(const struct clock_table *t, int *which)
{
    int64_t u = 0;
    *which = -1;
    for (int i = 0; i < t->n; i++) {
        int64_t x = t->uncertainty_ns[i] > t->end_uncertainty_ns[i] ? t->uncertainty_ns[i] : t->end_uncertainty_ns[i];
        if (*which < 0 || x > u) {
            u = x;
            *which = i;
        }
    }
    return u;
}
