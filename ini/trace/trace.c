/*
 * trace.c - the trace buffer's set-up and the trace file writer.
 *
 * The hot-path functions are inline in trace.h.  Here: allocation (the
 * buffer is touched at init so that recording never takes a page fault),
 * the little-endian codecs of header and record, and the writer, which
 * encodes records in chunks through a small staging buffer so the file is
 * the same on any host byte order.
 */
#include "trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int ini_trace_init(struct ini_trace *t, enum ini_trace_mode mode, uint32_t capacity,
                   int ini_id, int cluster_id, uint64_t tsc_hz)
{
    memset(t, 0, sizeof(*t));
    t->mode = mode;
    t->info = (struct ini_trace_info){
        .tsc_hz = tsc_hz, .ini_id = ini_id, .cluster_id = cluster_id,
        .pe_policy = -1, .ini_policy = -1,
    };
    if (gethostname(t->info.host, sizeof(t->info.host) - 1) != 0)
        t->info.host[0] = '\0';
    if (mode == INI_TRACE_OFF)
        return 0;
    if ((mode != INI_TRACE_SUMMARY && mode != INI_TRACE_DETAILED) || capacity == 0 || tsc_hz == 0) {
        t->mode = INI_TRACE_OFF;
        errno = EINVAL;
        return -1;
    }
    size_t bytes = (size_t)capacity * sizeof(struct ini_trace_rec);
    t->recs = aligned_alloc(64, bytes);    /* bytes is a multiple of 64 */
    if (!t->recs) {
        t->mode = INI_TRACE_OFF;
        errno = ENOMEM;
        return -1;
    }
    memset(t->recs, 0, bytes);             /* fault every page in now, not on the hot path */
    t->capacity = capacity;
    return 0;
}

void ini_trace_set_cluster(struct ini_trace *t, int ini_index, int cluster_inis, int cluster_pes)
{
    t->info.ini_index = ini_index;
    t->info.cluster_inis = cluster_inis;
    t->info.cluster_pes = cluster_pes;
}

void ini_trace_set_policies(struct ini_trace *t, int pe_policy, int ini_policy)
{
    t->info.pe_policy = (int8_t)pe_policy;
    t->info.ini_policy = (int8_t)ini_policy;
}

void ini_trace_set_knobs(struct ini_trace *t, double O_us, int O_exp)
{
    double ns = O_us * 1000.0;
    t->info.O_ns = ns <= 0 ? 0 : ns >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
    t->info.O_exp = O_exp != 0;
}

/* The start's instant on the host's clock too: the TSC is the host's own,
 * so traces of several hosts meet on CLOCK_REALTIME (corrected by the
 * launcher's measured offsets, docs/traces.md).  The TSC given was read
 * just before this call; the few hundred ns between are below what the
 * offsets resolve. */
void ini_trace_run_start(struct ini_trace *t, uint64_t tsc)
{
    struct timespec ts;
    t->info.start_tsc = tsc;
    t->info.start_ns = clock_gettime(CLOCK_REALTIME, &ts) == 0
                           ? (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec : 0;
}

void ini_trace_run_end(struct ini_trace *t, uint64_t tsc)
{
    t->info.end_tsc = tsc;
}

void ini_trace_free(struct ini_trace *t)
{
    free(t->recs);
    t->recs = NULL;
    t->n = t->capacity = 0;
}

void ini_trace_encode_header(const struct ini_trace *t, uint8_t out[INI_TRACE_HEADER_SIZE])
{
    const struct ini_trace_info *in = &t->info;
    memset(out, 0, INI_TRACE_HEADER_SIZE);
    memcpy(out, INI_TRACE_MAGIC, INI_TRACE_MAGIC_LEN);
    ini_trace_put16(out + 8, INI_TRACE_VERSION);
    ini_trace_put16(out + 10, INI_TRACE_HEADER_SIZE);
    ini_trace_put16(out + 12, INI_TRACE_RECORD_SIZE);
    ini_trace_put16(out + 14, (uint16_t)t->mode);
    ini_trace_put64(out + 16, in->tsc_hz);
    ini_trace_put32(out + 24, (uint32_t)in->ini_id);
    ini_trace_put32(out + 28, (uint32_t)in->cluster_id);
    ini_trace_put32(out + 32, (uint32_t)in->ini_index);
    ini_trace_put32(out + 36, (uint32_t)in->cluster_inis);
    ini_trace_put32(out + 40, (uint32_t)in->cluster_pes);
    out[44] = (uint8_t)in->pe_policy;
    out[45] = (uint8_t)in->ini_policy;
    ini_trace_put64(out + 48, t->n);
    ini_trace_put64(out + 56, t->dropped);
    ini_trace_put64(out + 64, in->start_tsc);
    ini_trace_put64(out + 72, in->end_tsc);
    ini_trace_put64(out + 80, in->start_ns);
    ini_trace_put32(out + 88, in->O_ns);
    out[92] = in->O_exp;
    memcpy(out + 96, in->host, strnlen(in->host, INI_TRACE_HOST_LEN));
}

void ini_trace_encode_rec(const struct ini_trace_rec *r, uint8_t out[INI_TRACE_RECORD_SIZE])
{
    out[0] = r->kind;
    out[1] = r->reserved;
    ini_trace_put16(out + 2, r->peer_ini);
    ini_trace_put16(out + 4, r->src_pe);
    ini_trace_put16(out + 6, r->dst_pe);
    ini_trace_put16(out + 8, r->len);
    ini_trace_put16(out + 10, r->qlen);
    ini_trace_put32(out + 12, r->seq);
    for (int k = 0; k < INI_TRACE_SLOTS; k++)
        ini_trace_put64(out + 16 + 8 * k, r->slot[k]);
}

void ini_trace_decode_rec(const uint8_t in[INI_TRACE_RECORD_SIZE], struct ini_trace_rec *r)
{
    r->kind = in[0];
    r->reserved = in[1];
    r->peer_ini = ini_trace_get16(in + 2);
    r->src_pe = ini_trace_get16(in + 4);
    r->dst_pe = ini_trace_get16(in + 6);
    r->len = ini_trace_get16(in + 8);
    r->qlen = ini_trace_get16(in + 10);
    r->seq = ini_trace_get32(in + 12);
    for (int k = 0; k < INI_TRACE_SLOTS; k++)
        r->slot[k] = ini_trace_get64(in + 16 + 8 * k);
}

/* The records of an ini_trace, for ini_trace_write_file. */
static void encode_nth(const void *ctx, uint64_t i, uint8_t *out)
{
    ini_trace_encode_rec(&((const struct ini_trace *)ctx)->recs[i], out);
}

int ini_trace_write(const struct ini_trace *t, const char *path)
{
    if (t->mode == INI_TRACE_OFF)
        return 0;
    uint8_t header[INI_TRACE_HEADER_SIZE];
    ini_trace_encode_header(t, header);
    return ini_trace_write_file(path, header, sizeof(header), INI_TRACE_RECORD_SIZE, t->n, encode_nth, t);
}

int ini_trace_write_file(const char *path, const uint8_t *header, size_t header_size, size_t rec_size,
                         uint64_t n, void (*encode)(const void *ctx, uint64_t i, uint8_t *out),
                         const void *ctx)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return -1;
    int ok = fwrite(header, header_size, 1, f) == 1;

    enum { STAGE = 16384 };                /* bytes of records encoded at a time, on the stack */
    uint8_t stage[STAGE];
    uint64_t chunk = STAGE / rec_size;
    for (uint64_t i = 0; ok && i < n; i += chunk) {
        uint64_t m = n - i < chunk ? n - i : chunk;
        for (uint64_t j = 0; j < m; j++)
            encode(ctx, i + j, stage + j * rec_size);
        ok = fwrite(stage, rec_size, (size_t)m, f) == m;
    }
    int saved = errno;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = 0;
        saved = errno;
    }
    if (!ok) {
        remove(tmp);
        errno = saved ? saved : EIO;
        return -1;
    }
    return 0;
}
