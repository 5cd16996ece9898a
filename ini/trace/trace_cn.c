/*
 * trace_cn.c - the compute nodes' trace buffers and their file
 * (trace_cn.h): set-up, the clock anchor, the little-endian codecs and the
 * writer, which puts every node's buffer of one cluster process into one
 * file through trace.c's writer.
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

void ini_cn_trace_encode_header(const struct ini_cn_trace_info *in, uint8_t out[INI_CN_TRACE_HEADER_SIZE])
{
    memset(out, 0, INI_CN_TRACE_HEADER_SIZE);
    memcpy(out, INI_CN_TRACE_MAGIC, 8);
    ini_trace_put16(out + 8, INI_CN_TRACE_VERSION);
    ini_trace_put16(out + 10, INI_CN_TRACE_HEADER_SIZE);
    ini_trace_put16(out + 12, INI_CN_TRACE_RECORD_SIZE);
    ini_trace_put16(out + 14, in->flags);
    ini_trace_put32(out + 16, (uint32_t)in->cluster);
    ini_trace_put32(out + 20, (uint32_t)in->n_pes);
    ini_trace_put64(out + 24, in->records);
    ini_trace_put64(out + 32, in->dropped);
    ini_trace_put64(out + 40, in->start_tsc);
    ini_trace_put64(out + 48, in->start_ns);
    ini_trace_put64(out + 56, in->end_tsc);
    ini_trace_put64(out + 64, in->end_ns);
    memcpy(out + 96, in->host, strnlen(in->host, INI_TRACE_HOST_LEN));
}

void ini_cn_trace_encode_rec(const struct ini_cn_trace_rec *r, uint8_t out[INI_CN_TRACE_RECORD_SIZE])
{
    out[0] = r->kind;
    out[1] = r->tag;
    ini_trace_put16(out + 2, r->flags);
    ini_trace_put16(out + 4, r->pe);
    ini_trace_put16(out + 6, r->peer);
    ini_trace_put32(out + 8, r->a);
    ini_trace_put32(out + 12, r->b);
    ini_trace_put32(out + 16, r->c);
    ini_trace_put32(out + 20, r->d);
    for (int k = 0; k < 3; k++)
        ini_trace_put64(out + 24 + 8 * k, r->t[k]);
}

void ini_cn_trace_decode_rec(const uint8_t in[INI_CN_TRACE_RECORD_SIZE], struct ini_cn_trace_rec *r)
{
    r->kind = in[0];
    r->tag = in[1];
    r->flags = ini_trace_get16(in + 2);
    r->pe = ini_trace_get16(in + 4);
    r->peer = ini_trace_get16(in + 6);
    r->a = ini_trace_get32(in + 8);
    r->b = ini_trace_get32(in + 12);
    r->c = ini_trace_get32(in + 16);
    r->d = ini_trace_get32(in + 20);
    for (int k = 0; k < 3; k++)
        r->t[k] = ini_trace_get64(in + 24 + 8 * k);
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
