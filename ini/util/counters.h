/*
 * counters.h - counters written from a table, as DPDK's ethdev names its
 * extended statistics: each entry names one uint64_t field of a stats
 * struct by its offset, so one table gives the field its name in the
 * counters file (RUN_DIR/ini<ID>.counters.json) and nothing is spelt twice.
 *
 * A module whose counters are a list (stack/swp.h INI_SWP_COUNTERS,
 * stack/fault.h INI_FAULT_COUNTERS) builds its table from the list with
 * INI_COUNTER_SAME; a struct whose fields are named otherwise in the file
 * lists its entries with INI_COUNTER.
 */
#ifndef INI_COUNTERS_H
#define INI_COUNTERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ini_counter {
    const char *name;     /* the key in the file */
    size_t offset;        /* of a uint64_t in the stats struct */
};

#define INI_COUNTER(type, field, name) { name, offsetof(type, field) }
#define INI_COUNTER_SAME(type, field) { #field, offsetof(type, field) }
#define INI_COUNTERS_N(table) (sizeof(table) / sizeof((table)[0]))

static inline uint64_t ini_counter_get(const struct ini_counter *c, const void *stats)
{
    uint64_t v;
    __builtin_memcpy(&v, (const char *)stats + c->offset, sizeof v);
    return v;
}

/* The same, read by another thread than the one that writes the counter
 * (live telemetry, ini/daemon/inid_telemetry.c): a relaxed atomic load, which
 * on x86-64 is a plain aligned 64-bit load, never half of a store.  The
 * writer does plain increments; it is the only writer. */
static inline uint64_t ini_counter_load_relaxed(const struct ini_counter *c, const void *stats)
{
    return __atomic_load_n((const uint64_t *)(const void *)((const char *)stats + c->offset),
                           __ATOMIC_RELAXED);
}

/* Writes the n counters of `stats` that table names as JSON members,
 * "name": value, separated by sep (", " on one line, ",\n  " one a line). */
void ini_counters_json(FILE *f, const struct ini_counter *table, size_t n, const void *stats, const char *sep);

#endif
