/*
 * incast.h - ini-ping's incast mode (tools/ping/incast.c): every compute
 * node of the other clusters sends messages to one compute node, which
 * checks every byte of each and measures the goodput, first of one sender
 * alone (solo), then of all together, into the same INI in the same run.
 */
#ifndef INI_PING_INCAST_H
#define INI_PING_INCAST_H

#include <stdint.h>

#include "config.h"
#include "ini_cn.h"

#ifdef __cplusplus
extern "C" {
#endif

struct incast_opt {
    const uint32_t *sizes;    /* each sender sends `count` messages of each size, in turn */
    int n_sizes;
    long count;
    long timeout_ms;          /* a PE that sees no progress for this long gives up */
    int target;               /* the PE every message goes to */
    int solo;                 /* 1: the first sender alone first (the baseline) */
    int ordered;              /* both policies static: in order per sender */
};

/* Runs the mode on the attached cluster cn (configuration cfg): the
 * handlers are registered here.  Prints the results (the target's cluster:
 * the goodput of both phases) and writes them to $INI_RUN_DIR/incast.json.
 * Returns the process's exit status: 0, or 1 on any error. */
int ping_incast(struct ini_cn *cn, const struct ini_config *cfg, const struct incast_opt *o);

#ifdef __cplusplus
}
#endif

#endif
