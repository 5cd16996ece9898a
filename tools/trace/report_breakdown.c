/*
 * report_breakdown.c - tables 5.1 and 5.2 of `ini-trace report`: the send
 * and receive breakdowns of the detailed traces, per message length (or
 * power-of-two bucket of lengths when there are too many), each column the
 * mean time between two of a message's module-boundary stamps
 * (report_internal.h; the rest of the report is report.c's).
 */
#include "report.h"
#include "report_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


static uint32_t bucket_lo(uint32_t len, bool pow2)
{
    if (!pow2 || len == 0)
        return len;
    uint32_t b = 1;
    while (len >> 1 >= b)
        b <<= 1;
    return b;
}

static uint32_t bucket_hi(uint32_t lo, bool pow2)
{
    if (!pow2 || lo == 0)
        return lo;
    return lo >= 0x80000000u ? UINT32_MAX : 2 * lo - 1;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static size_t sort_unique(uint32_t *v, size_t n)
{
    qsort(v, n, sizeof(*v), cmp_u32);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || v[i] != v[u - 1])
            v[u++] = v[i];
    return u;
}

#define KIND_OUT_OR_IN (-1)     /* for detailed_lengths: every message but local ones */

/* The lengths of the messages of one kind (or KIND_OUT_OR_IN) in the run's
 * detailed traces, in a malloc'd array (never of size 0), their number in
 * *n; NULL when out of memory. */
static uint32_t *detailed_lengths(const struct trace_run *run, int kind, size_t *n)
{
    size_t cap = 0;
    for (int i = 0; i < run->n_files; i++)
        if (run->files[i].mode == INI_TRACE_DETAILED)
            cap += (size_t)run->files[i].n;
    uint32_t *lens = malloc((cap ? cap : 1) * sizeof(*lens));
    if (!lens)
        return NULL;
    size_t k = 0;
    for (int i = 0; i < run->n_files; i++) {
        const struct trace_file *f = &run->files[i];
        if (f->mode != INI_TRACE_DETAILED)
            continue;
        for (uint64_t j = 0; j < f->n; j++)
            if (kind == KIND_OUT_OR_IN ? f->msgs[j].kind != INI_TRACE_LOCAL : f->msgs[j].kind == kind)
                lens[k++] = f->msgs[j].len;
    }
    *n = k;
    return lens;
}

/* The stamps (t[from], t[to]) each column of a path's table runs between. */
static const uint8_t send_spans[REPORT_COLS][2] = {
    [SEND_HANDLER] = { 0, 1 }, [SEND_QUEUE] = { 1, 2 }, [SEND_WINDOW] = { 2, 3 },
    [SEND_UDP] = { 3, 4 },     [SEND_IP] = { 4, 5 },    [SEND_TOTAL] = { 0, 5 },
};
static const uint8_t recv_spans[REPORT_COLS][2] = {
    [RECV_QUEUE] = { 1, 2 },  [RECV_IP] = { 2, 3 },       [RECV_UDP] = { 3, 4 },
    [RECV_WINDOW] = { 4, 5 }, [RECV_DELIVERY] = { 5, 6 }, [RECV_TOTAL] = { 1, 6 },
};

/* The six column values of a message for its path's table. */
static void breakdown_columns(const struct trace_msg *m, double col[REPORT_COLS])
{
    const uint8_t (*span)[2] = m->kind == INI_TRACE_OUT ? send_spans : recv_spans;
    for (int c = 0; c < REPORT_COLS; c++)
        col[c] = (double)(m->t[span[c][1]] - m->t[span[c][0]]);
}

static void bucket_add(struct report_bucket *b, const double col[REPORT_COLS], uint64_t hz)
{
    b->count++;
    for (int c = 0; c < REPORT_COLS; c++) {
        b->cycles[c] += col[c];
        b->ns[c] += cycles_to_ns(col[c], hz);
    }
}

static void bucket_finish(struct report_bucket *b)
{
    for (int c = 0; c < REPORT_COLS; c++) {
        b->cycles[c] = mean(b->cycles[c], b->count);
        b->ns[c] = mean(b->ns[c], b->count);
    }
}

int report_breakdown_build(struct report_breakdown *bd, const struct trace_run *run, int kind, bool pow2)
{
    memset(bd, 0, sizeof(*bd));
    size_t n;
    uint32_t *keys = detailed_lengths(run, kind, &n);
    if (!keys)
        return -1;
    for (size_t k = 0; k < n; k++)
        keys[k] = bucket_lo(keys[k], pow2);
    size_t u = sort_unique(keys, n);
    bd->buckets = calloc(u ? u : 1, sizeof(*bd->buckets));
    if (!bd->buckets) {
        free(keys);
        return -1;
    }
    bd->n_buckets = (int)u;
    for (size_t b = 0; b < u; b++) {
        bd->buckets[b].len_lo = keys[b];
        bd->buckets[b].len_hi = bucket_hi(keys[b], pow2);
    }
    bd->all.len_lo = u ? keys[0] : 0;
    bd->all.len_hi = u ? bucket_hi(keys[u - 1], pow2) : 0;
    for (int i = 0; i < run->n_files; i++) {
        const struct trace_file *f = &run->files[i];
        if (f->mode != INI_TRACE_DETAILED)
            continue;
        for (uint64_t j = 0; j < f->n; j++) {
            const struct trace_msg *m = &f->msgs[j];
            if (m->kind != kind)
                continue;
            uint32_t key = bucket_lo(m->len, pow2);
            uint32_t *at = bsearch(&key, keys, u, sizeof(*keys), cmp_u32);
            double col[REPORT_COLS];
            breakdown_columns(m, col);
            bucket_add(&bd->buckets[at - keys], col, f->info.tsc_hz);
            bucket_add(&bd->all, col, f->info.tsc_hz);
        }
    }
    for (int b = 0; b < bd->n_buckets; b++)
        bucket_finish(&bd->buckets[b]);
    bd->n_msgs = bd->all.count;
    bucket_finish(&bd->all);
    free(keys);
    return 0;
}

/* Power-of-two buckets when the detailed traces hold many distinct lengths. */
int report_choose_pow2(const struct trace_run *run, bool *pow2)
{
    size_t n;
    uint32_t *lens = detailed_lengths(run, KIND_OUT_OR_IN, &n);
    if (!lens)
        return -1;
    *pow2 = sort_unique(lens, n) > REPORT_MAX_DISTINCT_LENGTHS;
    free(lens);
    return 0;
}
