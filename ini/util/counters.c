/*
 * counters.c - counters written from a table (see counters.h).
 */
#include "counters.h"

void ini_counters_json(FILE *f, const struct ini_counter *table, size_t n, const void *stats, const char *sep)
{
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s\"%s\": %llu", i ? sep : "", table[i].name,
                (unsigned long long)ini_counter_get(&table[i], stats));
}
