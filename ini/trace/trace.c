/*
 * trace.c - the trace buffer's set-up and the trace file writer.
 *
 * The hot-path functions are inline in trace.h.  Here: allocation (the
 * buffer is touched at init so that recording never takes a page fault),
 * the record layout (trace.h: one table of fields per header and record,
 * packed and unpacked by one pair of functions for both trace files), this
 * file's tables and codecs, and the writer, which
 * encodes records in chunks through a small staging buffer so the file is
 * the same on any host byte order.
 */
#include "trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

void ini_trace_host_name(char host[INI_TRACE_HOST_LEN])
{
    const char *given = getenv("INI_TRACE_HOST");
    memset(host, 0, INI_TRACE_HOST_LEN);
    if (given && *given)
        snprintf(host, INI_TRACE_HOST_LEN, "%s", given);
    else if (gethostname(host, INI_TRACE_HOST_LEN - 1) != 0)
        host[0] = '\0';
    host[INI_TRACE_HOST_LEN - 1] = '\0';
}

int ini_trace_init(struct ini_trace *t, enum ini_trace_mode mode, uint32_t capacity,
                   int ini_id, int cluster_id, uint64_t tsc_hz)
{
    memset(t, 0, sizeof(*t));
    t->mode = mode;
    t->info = (struct ini_trace_info){
        .tsc_hz = tsc_hz, .ini_id = ini_id, .cluster_id = cluster_id,
        .pe_policy = -1, .ini_policy = -1,
    };
    ini_trace_host_name(t->info.host);
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

/* ---- the layout ---- */

static uint64_t load_uint(const uint8_t *m, int width)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    switch (width) {
    case 1: memcpy(&u8, m, 1); return u8;
    case 2: memcpy(&u16, m, 2); return u16;
    case 4: memcpy(&u32, m, 4); return u32;
    default: memcpy(&u64, m, 8); return u64;
    }
}

static void store_uint(uint8_t *m, int width, uint64_t v)
{
    uint8_t u8 = (uint8_t)v;
    uint16_t u16 = (uint16_t)v;
    uint32_t u32 = (uint32_t)v;
    switch (width) {
    case 1: memcpy(m, &u8, 1); break;
    case 2: memcpy(m, &u16, 2); break;
    case 4: memcpy(m, &u32, 4); break;
    default: memcpy(m, &v, 8); break;
    }
}

static void put_le(uint8_t *p, int width, uint64_t v)
{
    for (int k = 0; k < width; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}

static uint64_t get_le(const uint8_t *p, int width)
{
    uint64_t v = 0;
    for (int k = 0; k < width; k++)
        v |= (uint64_t)p[k] << (8 * k);
    return v;
}

void ini_trace_pack(const struct ini_trace_field *f, int n, const void *src, uint8_t *out, size_t size)
{
    memset(out, 0, size);
    for (int i = 0; i < n; i++) {
        const uint8_t *m = (const uint8_t *)src + f[i].member;
        if (f[i].type == INI_TRACE_F_TEXT) {
            memcpy(out + f[i].off, m, strnlen((const char *)m, f[i].count));
            continue;
        }
        for (int k = 0; k < f[i].count; k++)
            put_le(out + f[i].off + k * f[i].width, f[i].width, load_uint(m + k * f[i].width, f[i].width));
    }
}

void ini_trace_unpack(const struct ini_trace_field *f, int n, const uint8_t *in, unsigned version, void *dst)
{
    for (int i = 0; i < n; i++) {
        uint8_t *m = (uint8_t *)dst + f[i].member;
        if (f[i].since > version)
            continue;
        if (f[i].type == INI_TRACE_F_TEXT) {
            memcpy(m, in + f[i].off, f[i].count);
            m[f[i].count - 1] = '\0';
            continue;
        }
        for (int k = 0; k < f[i].count; k++)
            store_uint(m + k * f[i].width, f[i].width, get_le(in + f[i].off + k * f[i].width, f[i].width));
    }
}

/* ---- the INI trace file (docs/traces.md, "The INI trace file") ---- */

#define H(off, member, since) INI_TRACE_U(off, struct ini_trace_header, member, since)
static const struct ini_trace_field header_fields[] = {
    H(8, version, 1),          H(10, header_size, 1),     H(12, record_size, 1),     H(14, mode, 1),
    H(16, info.tsc_hz, 1),     H(24, info.ini_id, 1),     H(28, info.cluster_id, 1), H(32, info.ini_index, 1),
    H(36, info.cluster_inis, 1), H(40, info.cluster_pes, 1), H(44, info.pe_policy, 1), H(45, info.ini_policy, 1),
    H(46, info.clock, 2),
    H(48, n, 1),               H(56, dropped, 1),         H(64, info.start_tsc, 1),  H(72, info.end_tsc, 1),
    H(80, info.start_ns, 2),   H(88, info.O_ns, 2),       H(92, info.O_exp, 2),
    INI_TRACE_TEXT(96, struct ini_trace_header, info.host, 2),
};
#undef H

#define R(off, member, since) INI_TRACE_U(off, struct ini_trace_rec, member, since)
static const struct ini_trace_field rec_fields[] = {
    R(0, kind, 1),  R(1, reserved, 1), R(2, peer_ini, 1), R(4, src_pe, 1), R(6, dst_pe, 1),
    R(8, len, 2),   R(10, qlen, 2),    R(12, seq, 2),
    INI_TRACE_FIELD(16, struct ini_trace_rec, slot, INI_TRACE_SLOTS, INI_TRACE_F_UINT, 1),
};
#undef R

/* Version 1's record: 32-bit length and queue length where version 2 has
 * its 16-bit ones and the sequence number. */
struct rec_v1 {
    uint32_t len, qlen;
};
static const struct ini_trace_field rec_v1_fields[] = {
    INI_TRACE_U(8, struct rec_v1, len, 1),
    INI_TRACE_U(12, struct rec_v1, qlen, 1),
};

#define N_FIELDS(t) ((int)(sizeof(t) / sizeof((t)[0])))

void ini_trace_encode_header(const struct ini_trace *t, uint8_t out[INI_TRACE_HEADER_SIZE])
{
    struct ini_trace_header h = {
        .version = INI_TRACE_VERSION, .header_size = INI_TRACE_HEADER_SIZE,
        .record_size = INI_TRACE_RECORD_SIZE, .mode = (uint16_t)t->mode, .n = t->n, .dropped = t->dropped,
        .info = t->info,
    };
    ini_trace_pack(header_fields, N_FIELDS(header_fields), &h, out, INI_TRACE_HEADER_SIZE);
    memcpy(out, INI_TRACE_MAGIC, INI_TRACE_MAGIC_LEN);
}

void ini_trace_decode_header(const uint8_t in[INI_TRACE_HEADER_SIZE], struct ini_trace_header *h)
{
    memset(h, 0, sizeof(*h));
    ini_trace_unpack(header_fields, N_FIELDS(header_fields), in, 1, h);    /* the version among them */
    if (h->version > 1)
        ini_trace_unpack(header_fields, N_FIELDS(header_fields), in, h->version, h);
    h->info.O_exp = h->info.O_exp != 0;
}

void ini_trace_encode_rec(const struct ini_trace_rec *r, uint8_t out[INI_TRACE_RECORD_SIZE])
{
    ini_trace_pack(rec_fields, N_FIELDS(rec_fields), r, out, INI_TRACE_RECORD_SIZE);
}

void ini_trace_decode_rec(const uint8_t in[INI_TRACE_RECORD_SIZE], struct ini_trace_rec *r)
{
    ini_trace_unpack(rec_fields, N_FIELDS(rec_fields), in, INI_TRACE_VERSION, r);
}

void ini_trace_decode_rec_v1(const uint8_t in[INI_TRACE_RECORD_SIZE], struct ini_trace_rec *r, uint32_t *len,
                             uint32_t *qlen)
{
    struct rec_v1 v1;
    memset(r, 0, sizeof(*r));
    ini_trace_unpack(rec_fields, N_FIELDS(rec_fields), in, 1, r);
    ini_trace_unpack(rec_v1_fields, N_FIELDS(rec_v1_fields), in, 1, &v1);
    *len = v1.len;
    *qlen = v1.qlen;
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
