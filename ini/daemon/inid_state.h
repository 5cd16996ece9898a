/*
 * inid_state.h - the INI's state region (inid_state.c; docs/transport.md,
 * "An INI that restarts"): the transport's durable state, then inid's own
 * part, struct inid_dur, whose one intent the loop arms around a delivery
 * inside the cluster (inid_state_local_arm/_disarm, inline: the loop's
 * per-message path).
 */
#ifndef INI_INID_STATE_H
#define INI_INID_STATE_H

#include <stdint.h>

#include "inid.h"

/* inid's part of the state region, behind the transport's: a delivery to
 * a compute node of this cluster in progress (the record at local_pos of
 * PE local_src's ring, published into PE local_pe's ring once its tail
 * reaches local_mark). */
struct inid_dur {
    uint64_t magic;
    uint32_t version, local_armed;
    uint32_t local_pe, local_src;
    uint64_t local_mark, local_pos;
};

/* The intent of a delivery in the cluster, said before it is published:
 * a restarted INI must know whether it was published before its record
 * was marked done.  The compiler fences order the stores as a crash of
 * this process sees them (the region outlives it). */
static inline void inid_state_local_arm(struct inid_dur *dur, uint32_t pe, uint32_t src, uint64_t mark,
                                        uint64_t pos)
{
    dur->local_pe = pe;
    dur->local_src = src;
    dur->local_mark = mark;
    dur->local_pos = pos;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    dur->local_armed = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* The delivery's record is marked done: the intent is spent. */
static inline void inid_state_local_disarm(struct inid_dur *dur)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    dur->local_armed = 0;
}

/* After the stack is open: the region created clean, or with --resume
 * found and checked (0; -1 after saying why: exit INI_EXIT_NO_RESUME);
 * after inid_fabric_init, a resumed INI's rings walked again
 * (inid_state_rebuild); unlinked at a clean stop. */
int  inid_state_open(struct inid *d, const struct ini_swp_params *swp);
void inid_state_rebuild(struct inid *d);
void inid_state_unlink(struct inid *d);

#endif
