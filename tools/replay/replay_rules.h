/*
 * replay_rules.h - the rules of the daemon and the transport that the
 * replay models (replay_flow.c), in one place, each taken from or checked
 * against its source:
 *
 *   ring in flight   a compute node's records an INI holds and has not
 *                    given back: the daemon's own constant (inid_limits.h,
 *                    which inid.h includes)
 *   window           at most INI_WINDOW_LIMIT (config.h, what the stack
 *                    accepts); the run's value comes from its counters
 *   ack threshold    the receiver acknowledges at once when half a window
 *                    waits (stack/swp_window.c swp_schedule_ack)
 *   window cost      a message longer than a segment takes one slot per
 *                    segment, else one (stack/swp.c ini_swp_window_cost)
 *
 * The stack's two rules are functions of its state that the replay cannot
 * call without linking DPDK into ini-trace, so they are written here again,
 * and test_replay (test_replay_rules_match_the_stack) runs the real
 * transport beside these functions and fails when they part.
 */
#ifndef REPLAY_RULES_H
#define REPLAY_RULES_H

#include <stdint.h>

#include "config.h"         /* INI_WINDOW_LIMIT */
#include "inid_limits.h"    /* INID_RING_INFLIGHT */

/* Records an INI takes from one compute node's ring ahead of the oldest
 * it has not given back (inid_loop.c poll_pes). */
#define REPLAY_RING_INFLIGHT INID_RING_INFLIGHT

/* The largest window a run's counters may name. */
#define REPLAY_WINDOW_LIMIT INI_WINDOW_LIMIT

/* Slots delivered and not yet acknowledged at which the receiver sends a
 * bare ACK at once instead of waiting for its ACK timer. */
static inline int replay_ack_threshold(int window)
{
    return (window + 1) / 2;
}

/* The window's slots a message of am_len bytes (AM header and payload)
 * takes when a segment carries seg_bytes of message (0: messages go whole,
 * in IP fragments). */
static inline int replay_window_cost(uint32_t seg_bytes, uint32_t am_len)
{
    if (seg_bytes == 0 || am_len <= seg_bytes)
        return 1;
    return (int)((am_len + seg_bytes - 1) / seg_bytes);
}

#endif
