/*
 * stack_config.h - the stack's parameters from the machine description:
 * the stack's (stack/stack.h struct ini_stack_params: the link, the
 * transport's struct ini_swp_params, the mbufs) and the fault injectors'
 * (stack/fault.h struct ini_fault_params).
 *
 * The stack sits below the configuration and does not read it; whoever
 * builds a stack from a configuration (inid, the unit tests' loop
 * harness) fills its parameters here, once, at start; ini-bench's layers,
 * which have no configuration, start from the stack's defaults.
 */
#ifndef INI_STACK_CONFIG_H
#define INI_STACK_CONFIG_H

#include <string.h>

#include "config.h"
#include "fault.h"
#include "stack.h"

_Static_assert(INI_MAX_INIS <= INI_SWP_MAX_INIS, "the transport addresses every INI id");

/* The stack of INI `me` of cfg: its addresses and the transport's
 * parameters (one connection to every INI of every other cluster); every
 * other field at the stack's default. */
static inline void ini_stack_params_from_config(struct ini_stack_params *p, const struct ini_config *cfg, int me,
                                                uint64_t tsc_hz)
{
    ini_stack_params_default(p);
    struct ini_swp_params *t = &p->swp;
    t->me = me;
    t->n_inis = cfg->n_inis;
    t->mtu = cfg->stack.mtu;
    t->window = cfg->stack.window;
    t->seq_bits = cfg->stack.seq_bits;
    t->send_timeout_us = cfg->stack.send_timeout_us;
    t->ack_timeout_us = cfg->stack.ack_timeout_us;
    t->nak = cfg->stack.nak;
    t->segment = cfg->stack.segmentation;
    t->tsc_hz = tsc_hz;
    for (int i = 0; i < cfg->n_inis; i++) {
        t->ip[i] = cfg->inis[i].ip;
        t->connect[i] = cfg->inis[i].cluster != cfg->inis[me].cluster;
    }
    memcpy(p->mac, cfg->inis[me].mac, sizeof(p->mac));
}

static inline void ini_fault_params_from_config(struct ini_fault_params *p, const struct ini_fault_cfg *f)
{
    *p = (struct ini_fault_params){
        .drop = f->drop, .dup = f->dup, .reorder = f->reorder, .corrupt = f->corrupt, .delay = f->delay,
        .reorder_depth = f->reorder_depth, .delay_us = f->delay_us, .seed = f->seed,
    };
}

#endif
