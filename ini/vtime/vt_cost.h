/*
 * vt_cost.h - the cost model of the virtual-time mode: what an INI's work
 * costs in cycles of the emulated machine, from what it did (passes,
 * messages, bytes, frames), never from how long the host took.
 *
 * Why counts and not measured CPU: on this host an INI's CPU per pass
 * follows how many daemons share the two cores (5.9 us with 2, 13.9-15.1
 * with 16: docs/results/thesis-uniform-beta1), so a charge from the host's
 * clock measures the host.  A dedicated INI's cost does not depend on how
 * many other INIs exist.
 *
 * Each side (sending, receiving) costs
 *     per_pass * passes + per_message + per_byte * bytes + per_frame * (frames - 1)
 * cycles for one message of `bytes` in `frames` frames (segments or IP
 * fragments).  The virtual loop serves one input an event, an event being
 * one pass: an event that did work pays per_pass once (the larger side's
 * figure; it is measured per work turn), after its outputs have left
 * (inid_vtime.c, charge_pass).  Named sets:
 *   thesis  tables 5.1 and 5.2 of the thesis (seed 002), fitted by
 *           tools/inimeasure/thesis_costs.py: within 3.4% of every send total
 *           and 7.9% of every receive total from 0 to 65,000 bytes
 *           (docs/results/vtime-thesis-costs.txt)
 *   stack   this stack's own costs, from quiet single-INI runs of the real
 *           stack (tools/inimeasure/stack_costs.py: the traced breakdown
 *           per module, the compute-to-compute path's phases), in cycles of
 *           the emulated clock at 20 MHz (host ns x 0.02), with their dates,
 *           commits and CPU (docs/results/vtime-stack-costs.txt)
 * The wire's latency and the compute node's hand-over to its INI are
 * parameters of their own; the thesis's "IO delay" (5,800 cycles, an
 * average message through an unloaded INI) is its send and receive totals
 * at about 200 bytes, so its wire costs nothing.
 */
#ifndef INI_VT_COST_H
#define INI_VT_COST_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ini_vt_side {
    double per_pass;        /* a loop pass that did work */
    double per_message;
    double per_byte;
    double per_frame;       /* each frame after the first */
};

struct ini_vt_costs {
    char name[16];
    struct ini_vt_side send, recv;
    double wire;            /* a frame's send to its arrival */
    double handover;        /* a compute node's send to its INI's input */
    double deliver;         /* an INI's delivery to the compute node's input */
};

/* The names ini_vt_costs_named knows, for messages. */
#define INI_VT_COST_SETS "thesis, stack"

/* Fills *c with the named set (INI_VT_COST_SETS).  0, or -1 when unknown. */
int ini_vt_costs_named(const char *name, struct ini_vt_costs *c);

/* Cycles of one side's work for a message of `bytes` in `frames` frames
 * (0 frames counts as 1), over `passes` passes. */
uint64_t ini_vt_side_cycles(const struct ini_vt_side *s, uint32_t passes, uint32_t bytes, uint32_t frames);

/* Frames of a UDP datagram of `bytes` at an MTU of `mtu` (IP fragments). */
uint32_t ini_vt_ip_frames(uint32_t bytes, uint32_t mtu);

#ifdef __cplusplus
}
#endif

#endif
