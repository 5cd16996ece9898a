/*
 * trace_cn.c - the compute nodes' trace buffers and their file
 * (trace_cn.h): set-up, the clock anchor, the file's layout (tables of
 * trace.h's fields) and the writer, which puts every node's buffer of
 * one cluster process into one file through trace.c's writer.
 */
#include "trace_cn.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

int ini_cn_trace_init(struct ini_cn_trace *t, uint32_t capacity)
{
    memset(t, 0, sizeof(*t));
    if (capacity == 0) {
        errno = EINVAL;
        return -1;
    }
    size_t bytes = (size_t)capacity * sizeof(struct ini_cn_trace_rec);
    t->recs = malloc(bytes);
    if (!t->recs) {
        errno = ENOMEM;
        return -1;
    }
    memset(t->recs, 0, bytes);             /* fault every page in now, not while recording */
    t->capacity = capacity;
    return 0;
}

void ini_cn_trace_free(struct ini_cn_trace *t)
{
    free(t->recs);
    t->recs = NULL;
    t->n = t->capacity = 0;
}

/* CLOCK_REALTIME read between two TSC reads, the TSC taken as their
 * midpoint: the pair is exact to half the read's cost (tens of ns). */
void ini_cn_trace_anchor(uint64_t *tsc, uint64_t *ns)
{
    struct timespec ts;
    uint64_t a = ini_cn_trace_tsc();
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t b = ini_cn_trace_tsc();
    *tsc = a + (b - a) / 2;
    *ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the layout (trace.h's fields; docs/traces.md, "The compute-node trace file") ---- */

#define H(off, member) INI_TRACE_U(off, struct ini_cn_trace_header, member, INI_CN_TRACE_VERSION)
static const struct ini_trace_field header_fields[] = {
    H(8, version),          H(10, header_size),      H(12, record_size),    H(14, info.flags),
    H(16, info.cluster),    H(20, info.n_pes),       H(24, info.records),   H(32, info.dropped),
    H(40, info.start_tsc),  H(48, info.start_ns),    H(56, info.end_tsc),   H(64, info.end_ns),
    INI_TRACE_TEXT(96, struct ini_cn_trace_header, info.host, INI_CN_TRACE_VERSION),
};
#undef H

#define R(off, member) INI_TRACE_U(off, struct ini_cn_trace_rec, member, INI_CN_TRACE_VERSION)
static const struct ini_trace_field rec_fields[] = {
    R(0, kind), R(1, tag), R(2, flags), R(4, pe), R(6, peer), R(8, a), R(12, b), R(16, c), R(20, d),
    INI_TRACE_FIELD(24, struct ini_cn_trace_rec, t, 3, INI_TRACE_F_UINT, INI_CN_TRACE_VERSION),
};
#undef R

#define N_FIELDS(t) ((int)(sizeof(t) / sizeof((t)[0])))

void ini_cn_trace_encode_header(const struct ini_cn_trace_info *in, uint8_t out[INI_CN_TRACE_HEADER_SIZE])
{
    struct ini_cn_trace_header h = {
        .version = INI_CN_TRACE_VERSION, .header_size = INI_CN_TRACE_HEADER_SIZE,
        .record_size = INI_CN_TRACE_RECORD_SIZE, .info = *in,
    };
    ini_trace_pack(header_fields, N_FIELDS(header_fields), &h, out, INI_CN_TRACE_HEADER_SIZE);
    memcpy(out, INI_CN_TRACE_MAGIC, 8);
}

void ini_cn_trace_decode_header(const uint8_t in[INI_CN_TRACE_HEADER_SIZE], struct ini_cn_trace_header *h)
{
    memset(h, 0, sizeof(*h));
    ini_trace_unpack(header_fields, N_FIELDS(header_fields), in, INI_CN_TRACE_VERSION, h);
}

void ini_cn_trace_encode_rec(const struct ini_cn_trace_rec *r, uint8_t out[INI_CN_TRACE_RECORD_SIZE])
{
    ini_trace_pack(rec_fields, N_FIELDS(rec_fields), r, out, INI_CN_TRACE_RECORD_SIZE);
}

void ini_cn_trace_decode_rec(const uint8_t in[INI_CN_TRACE_RECORD_SIZE], struct ini_cn_trace_rec *r)
{
    ini_trace_unpack(rec_fields, N_FIELDS(rec_fields), in, INI_CN_TRACE_VERSION, r);
}

/* The buffers one after the other, for ini_trace_write_file. */
struct bufs {
    const struct ini_cn_trace *b;
    int n;
};

static void encode_nth(const void *ctx, uint64_t i, uint8_t *out)
{
    const struct bufs *s = ctx;
    int k = 0;
    while (i >= s->b[k].n)
        i -= s->b[k++].n;
    ini_cn_trace_encode_rec(&s->b[k].recs[i], out);
}

int ini_cn_trace_write(const char *path, struct ini_cn_trace_info *info, const struct ini_cn_trace *b, int n)
{
    info->records = info->dropped = 0;
    for (int k = 0; k < n; k++) {
        info->records += b[k].n;
        info->dropped += b[k].dropped;
    }
    uint8_t header[INI_CN_TRACE_HEADER_SIZE];
    ini_cn_trace_encode_header(info, header);
    struct bufs s = { b, n };
    return ini_trace_write_file(path, header, sizeof(header), INI_CN_TRACE_RECORD_SIZE, info->records,
                                encode_nth, &s);
}
