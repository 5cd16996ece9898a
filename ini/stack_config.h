/*
 * stack_config.h - the stack's parameters from the machine description:
 * the transport's (stack/swp.h struct ini_swp_params) and the fault
 * injectors' (stack/fault.h struct ini_fault_params).
 *
 * The stack sits below the configuration and does not read it; whoever
 * builds a stack from a configuration (inid, the unit tests' loop harness,
 * ini-bench's in-process and DPDK layers) fills its parameters here, once,
 * at start.
 */
#ifndef INI_STACK_CONFIG_H
#define INI_STACK_CONFIG_H

#include "config.h"
#include "fault.h"
#include "swp.h"

_Static_assert(INI_MAX_INIS <= INI_SWP_MAX_INIS, "the transport addresses every INI id");

/* The transport of INI `me` of cfg: one connection to every INI of every
 * other cluster. */
static inline void ini_swp_params_from_config(struct ini_swp_params *p, const struct ini_config *cfg, int me,
                                              uint64_t tsc_hz)
{
    *p = (struct ini_swp_params){
        .me = me,
        .n_inis = cfg->n_inis,
        .mtu = cfg->stack.mtu,
        .window = cfg->stack.window,
        .seq_bits = cfg->stack.seq_bits,
        .send_timeout_us = cfg->stack.send_timeout_us,
        .ack_timeout_us = cfg->stack.ack_timeout_us,
        .nak = cfg->stack.nak,
        .segment = cfg->stack.segmentation,
        .tsc_hz = tsc_hz,
    };
    for (int i = 0; i < cfg->n_inis; i++) {
        p->ip[i] = cfg->inis[i].ip;
        p->connect[i] = cfg->inis[i].cluster != cfg->inis[me].cluster;
    }
}

static inline void ini_fault_params_from_config(struct ini_fault_params *p, const struct ini_fault_cfg *f)
{
    *p = (struct ini_fault_params){
        .drop = f->drop, .dup = f->dup, .reorder = f->reorder, .corrupt = f->corrupt, .delay = f->delay,
        .reorder_depth = f->reorder_depth, .delay_us = f->delay_us, .seed = f->seed,
    };
}

#endif
