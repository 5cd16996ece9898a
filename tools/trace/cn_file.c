/*
 * cn_file.c - loads cn<CLUSTER>.trace files and checks them (cn_file.h),
 * and reads the run's clock offsets (clocks.tsv).
 *
 * A file is read whole (a compute node's share of a run is a few MB), its
 * header checked field by field, then every record decoded and checked,
 * so the replay and the other tools can trust what they get.
 */
#include "cn_file.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "file_util.h"

double cn_file_hz(const struct ini_cn_trace_info *in)
{
    if (in->end_tsc <= in->start_tsc || in->end_ns <= in->start_ns)
        return 0;
    return (double)(in->end_tsc - in->start_tsc) * 1e9 / (double)(in->end_ns - in->start_ns);
}

static int check_header(struct cn_file *f, const uint8_t *h, uint64_t size, char *err, size_t errlen)
{
    const char *p = f->shown;
    if (size < INI_CN_TRACE_HEADER_SIZE)
        return ini_fail(err, errlen, "%s: truncated: %llu bytes, shorter than the %d-byte header", p,
                    (unsigned long long)size, INI_CN_TRACE_HEADER_SIZE);
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
    if (in->flags & ~INI_CN_HDR_NODE_HANDLERS)
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

int cn_file_load_mem(struct cn_file *f, const char *path, const uint8_t *bytes, uint64_t size, char *err,
                     size_t errlen)
{
    memset(f, 0, sizeof(*f));
    snprintf(f->path, sizeof(f->path), "%s", path);
    const char *slash = strrchr(path, '/');
    snprintf(f->name, sizeof(f->name), "%s", slash ? slash + 1 : path);
    ini_path_for_message(path, f->shown, sizeof(f->shown));
    if (check_header(f, bytes, size, err, errlen) < 0)
        return -1;
    f->recs = malloc((f->n ? f->n : 1) * sizeof(*f->recs));
    if (!f->recs)
        return ini_fail(err, errlen, "%s: out of memory for %llu records", f->shown, (unsigned long long)f->n);
    for (uint64_t i = 0; i < f->n; i++) {
        ini_cn_trace_decode_rec(bytes + INI_CN_TRACE_HEADER_SIZE + i * INI_CN_TRACE_RECORD_SIZE, &f->recs[i]);
        if (check_record(f, i, &f->recs[i], err, errlen) < 0) {
            cn_file_free(f);
            return -1;
        }
    }
    return 0;
}

int cn_file_load(struct cn_file *f, const char *path, char *err, size_t errlen)
{
    char why[128], shown[TRACE_SHOWN_LEN];
    ini_path_for_message(path, shown, sizeof(shown));
    size_t size;
    uint8_t *buf = (uint8_t *)ini_read_regular(path, -1, &size, why, sizeof(why));
    if (!buf)
        return ini_fail(err, errlen, "%s: %s", shown, why);
    int rc = cn_file_load_mem(f, path, buf, size, err, errlen);
    free(buf);
    return rc;
}

void cn_file_free(struct cn_file *f)
{
    free(f->recs);
    f->recs = NULL;
    f->n = 0;
}

static int cmp_cluster(const void *a, const void *b)
{
    const struct cn_file *x = a, *y = b;
    return (x->info.cluster > y->info.cluster) - (x->info.cluster < y->info.cluster);
}

/* Adds a loaded file's slot; checks its name against its header. */
static struct cn_file *grow(struct cn_run *run, int *cap)
{
    if (run->n_files == *cap) {
        int c = *cap ? 2 * *cap : 16;
        struct cn_file *g = realloc(run->files, (size_t)c * sizeof(*g));
        if (!g)
            return NULL;
        run->files = g;
        *cap = c;
    }
    return &run->files[run->n_files];
}

static int finish(struct cn_run *run, int rc, char *err, size_t errlen)
{
    if (rc == 0) {
        qsort(run->files, (size_t)run->n_files, sizeof(*run->files), cmp_cluster);
        for (int i = 1; rc == 0 && i < run->n_files; i++)
            if (run->files[i].info.cluster == run->files[i - 1].info.cluster)
                rc = ini_fail(err, errlen, "%s: cluster %d is also in %s", run->files[i].shown,
                          run->files[i].info.cluster, run->files[i - 1].name);
    }
    if (rc < 0)
        cn_run_free(run);
    return rc;
}

/* One file by name: loaded from disk (dir) or from an image. */
static int add_file(struct cn_run *run, int *cap, const char *dir, const char *name,
                    const struct trace_image *img, char *err, size_t errlen)
{
    long c = trace_name_number(name, "cn");
    if (c < 0)
        return 0;
    struct cn_file *f = grow(run, cap);
    if (!f)
        return ini_fail(err, errlen, "%s: out of memory", dir);
    char path[2048];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    int rc = img ? cn_file_load_mem(f, path, img->bytes, img->size, err, errlen) : cn_file_load(f, path, err, errlen);
    if (rc < 0)
        return -1;
    run->n_files++;
    if (f->info.cluster != c)
        return ini_fail(err, errlen, "%s: the header says cluster %d", f->shown, f->info.cluster);
    return 0;
}

int cn_run_load(struct cn_run *run, const char *dir, char *err, size_t errlen)
{
    memset(run, 0, sizeof(*run));
    DIR *d = opendir(dir);
    if (!d)
        return ini_fail(err, errlen, "%s: %s", dir, strerror(errno));
    int cap = 0, rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL)
        rc = add_file(run, &cap, dir, e->d_name, NULL, err, errlen);
    closedir(d);
    return finish(run, rc, err, errlen);
}

int cn_run_load_mem(struct cn_run *run, const char *dir, const struct trace_image *images, int n, char *err,
                    size_t errlen)
{
    memset(run, 0, sizeof(*run));
    int cap = 0, rc = 0;
    for (int i = 0; rc == 0 && i < n; i++)
        rc = add_file(run, &cap, dir, images[i].name, &images[i], err, errlen);
    return finish(run, rc, err, errlen);
}

void cn_run_free(struct cn_run *run)
{
    for (int i = 0; i < run->n_files; i++)
        cn_file_free(&run->files[i]);
    free(run->files);
    run->files = NULL;
    run->n_files = 0;
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
    while (rc == 0 && fgets(line, sizeof(line), fp)) {
        ln++;
        if (ln == 1 || line[0] == '#' || line[0] == '\n')
            continue;                    /* the header line */
        char host[INI_TRACE_HOST_LEN + 1];
        long long off, rtt;
        char extra;
        if (t->n == CLOCK_MAX_HOSTS)
            rc = ini_fail(err, errlen, "%s:%d: more than %d hosts", shown, ln, CLOCK_MAX_HOSTS);
        else if (sscanf(line, "%32s %lld %lld %c", host, &off, &rtt, &extra) != 3 || rtt < 0)
            rc = ini_fail(err, errlen, "%s:%d: expected HOST OFFSET_NS RTT_NS", shown, ln);
        else {
            snprintf(t->host[t->n], sizeof(t->host[t->n]), "%s", host);
            t->offset_ns[t->n] = off;
            t->rtt_ns[t->n] = rtt;
            t->n++;
        }
    }
    fclose(fp);
    return rc;
}

int clock_table_offset(const struct clock_table *t, const char *host, int64_t *offset_ns)
{
    *offset_ns = 0;
    if (t->n == 0)
        return 0;
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->host[i], host) == 0) {
            *offset_ns = t->offset_ns[i];
            return 0;
        }
    return -1;
}
