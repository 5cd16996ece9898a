/*
 * report_internal.h - what report.c and report_breakdown.c share: two
 * numeric helpers and the breakdown's entry points.  Not an interface
 * (report.h is).
 */
#ifndef REPORT_INTERNAL_H
#define REPORT_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "report.h"

static inline double mean(double sum, uint64_t n)
{
    return n ? sum / (double)n : NAN;
}

static inline double cycles_to_ns(double cycles, uint64_t hz)
{
    return cycles * 1e9 / (double)hz;
}

/* Table 5.1 (kind INI_TRACE_OUT) or 5.2 (INI_TRACE_IN) from the run's
 * detailed traces, by length or, pow2, by power-of-two bucket: 0, or -1
 * out of memory. */
int report_breakdown_build(struct report_breakdown *bd, const struct trace_run *run, int kind, bool pow2);
/* Whether the run's distinct lengths are too many for a row each. */
int report_choose_pow2(const struct trace_run *run, bool *pow2);

#endif
