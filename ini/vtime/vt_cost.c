/*
 * vt_cost.c - the named cost sets and the cost of one side's work
 * (vt_cost.h).
 */
#include "vt_cost.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* tools/inimeasure/thesis_costs.py's fit of tables 5.1 and 5.2 (seed 002). */
static const struct ini_vt_costs thesis = {
    .name = "thesis",
    .send = { .per_pass = 0, .per_message = 2330.6, .per_byte = 2.5370, .per_frame = 6170.1 },
    .recv = { .per_pass = 0, .per_message = 2502.1, .per_byte = 2.5821, .per_frame = 10791.9 },
    .wire = 0,
    .handover = 0,
    .deliver = 0,
};

/* tools/inimeasure/stack_costs.py on quiet single-INI runs of this stack
 * made on 2026-12-03 at fde6395 (docs/results/vtime-stack-costs.txt: what
 * each number comes from, the load, the CPU), host nanoseconds x 20e6 /
 * 1e9.  per_frame is 0: a message of several segments takes a cheaper
 * path per byte than a one-frame message, which this model's form cannot
 * hold without a negative per_frame.  per_pass is a work turn's busy time
 * outside any message's service (each INI's counters less its traces):
 * 60% of the INI's busy time on that run, so most of what an INI costs. */
static const struct ini_vt_costs stack = {
    .name = "stack",
    .send = { .per_pass = 37.7367, .per_message = 2.3941, .per_byte = 0.002924, .per_frame = 0 },
    .recv = { .per_pass = 37.7367, .per_message = 4.1246, .per_byte = 0.003622, .per_frame = 0 },
    .wire = 6,
    .handover = 5,
    .deliver = 6,
};

int ini_vt_costs_named(const char *name, struct ini_vt_costs *c)
{
    static const struct ini_vt_costs *const sets[] = { &thesis, &stack };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        if (strcmp(name, sets[i]->name) == 0) {
            *c = *sets[i];
            return 0;
        }
    return -1;
}

uint64_t ini_vt_side_cycles(const struct ini_vt_side *s, uint32_t passes, uint32_t bytes, uint32_t frames)
{
    double more = frames > 1 ? (double)(frames - 1) : 0.0;
    double c = s->per_pass * passes + s->per_message + s->per_byte * bytes + s->per_frame * more;
    return c > 0 ? (uint64_t)llround(c) : 0;
}

uint32_t ini_vt_ip_frames(uint32_t bytes, uint32_t mtu)
{
    uint32_t per = (mtu - 20) & ~7u;     /* IP payload per fragment, 8-byte units */
    uint32_t n = (bytes + 8 + per - 1) / per;
    return n ? n : 1;
}
