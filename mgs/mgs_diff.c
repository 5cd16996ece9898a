/*
 * mgs_diff.c - byte-exact diffs of a coherence unit against its twin (see
 * mgs_diff.h for the format and why runs never bridge unchanged bytes).
 */
#include "mgs_diff.h"

#include <string.h>

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);   /* unaligned-safe; compiles to one load */
    return v;
}

static inline void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline uint32_t get16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

size_t mgs_diff_encode(const uint8_t *twin, const uint8_t *cur, size_t len, uint8_t *out,
                       size_t *changed)
{
    size_t i = 0, used = 0, total = 0;
    while (i < len) {
        /* Skip equal words, then equal bytes up to the first difference. */
        while (i + 8 <= len && load64(twin + i) == load64(cur + i))
            i += 8;
        while (i < len && twin[i] == cur[i])
            i++;
        if (i >= len)
            break;
        size_t start = i;
        /* Extend over differing bytes; a word whose bytes all differ is
         * taken whole (the XOR has no zero byte). */
        for (;;) {
            if (i + 8 <= len) {
                uint64_t x = load64(twin + i) ^ load64(cur + i);
                /* no zero byte in x <=> every byte differs */
                if (((x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull) == 0) {
                    i += 8;
                    continue;
                }
            }
            if (i < len && twin[i] != cur[i]) {
                i++;
                continue;
            }
            break;
        }
        size_t run = i - start;
        put16(out + used, (uint32_t)start);
        put16(out + used + 2, (uint32_t)run);
        memcpy(out + used + MGS_DIFF_RUN_HEADER, cur + start, run);
        used += MGS_DIFF_RUN_HEADER + run;
        total += run;
    }
    if (changed)
        *changed = total;
    return used;
}

/* Checks a diff completely; returns 0 if every run is well formed. */
static int diff_check(size_t len, const uint8_t *diff, size_t dlen)
{
    size_t pos = 0, next_min = 0;
    while (pos < dlen) {
        if (dlen - pos < MGS_DIFF_RUN_HEADER)
            return -1;
        size_t off = get16(diff + pos), run = get16(diff + pos + 2);
        if (run == 0 || off < next_min || off + run > len || dlen - pos - MGS_DIFF_RUN_HEADER < run)
            return -1;
        next_min = off + run;
        pos += MGS_DIFF_RUN_HEADER + run;
    }
    return 0;
}

int mgs_diff_apply(uint8_t *dst, size_t len, const uint8_t *diff, size_t dlen)
{
    if (diff_check(len, diff, dlen) < 0)
        return -1;
    size_t pos = 0;
    while (pos < dlen) {
        size_t off = get16(diff + pos), run = get16(diff + pos + 2);
        memcpy(dst + off, diff + pos + MGS_DIFF_RUN_HEADER, run);
        pos += MGS_DIFF_RUN_HEADER + run;
    }
    return 0;
}

size_t mgs_diff_next_piece(const uint8_t *diff, size_t dlen, size_t pos, size_t max_piece)
{
    size_t end = pos;
    while (end < dlen) {
        size_t run = MGS_DIFF_RUN_HEADER + get16(diff + end + 2);
        if (end > pos && end + run - pos > max_piece)
            break;
        end += run;
    }
    return end - pos;
}
