/*
 * inid_fabric.h - the INI's side of its compute nodes' rings: attaching
 * them, and the bookkeeping of the records it takes from them (which are
 * done, which ring prefix goes back to the compute node).
 *
 * The lowest of the daemon's files above struct inid (inid.h): the loop
 * (inid_loop.c) and the state region (inid_state.c) both use it, and it
 * uses neither, so that calls between the three go one way
 * (docs/architecture.md, "Files").
 *
 * Buffer ownership: a record taken from a PE -> INI ring belongs to the
 * INI (ring.h: the consumer owns it until it releases it) from the moment
 * it is taken until inid_record_done gives back the prefix of the ring
 * whose records are all done; the message it holds may be in the
 * transport's window until then.
 */
#ifndef INI_INID_FABRIC_H
#define INI_INID_FABRIC_H

#include <stdint.h>

#include "inid.h"

/* The INI's mark in the header of a record it took (ring.h: the consumer
 * owns a record until it releases it): its message is done (sent and
 * acknowledged, delivered in the cluster, or dropped).  In the segment,
 * so a restarted INI knows it (inid_state.c). */
#define INID_REC_DONE 0x8000u

/* A message's release cookie (swp.h ini_swp_send): its PE, its in-flight
 * slot and its record's place in the ring (bytes ever published before
 * it, / 64: records are 64-byte aligned), which tells a restarted INI
 * which record a logged message is (inid_state.c). */
static inline uint64_t inid_cookie(int pe, uint32_t slot, uint64_t pos)
{
    return (pos >> 6) << 24 | (uint64_t)pe << 16 | slot;
}
static inline int inid_cookie_pe(uint64_t cookie) { return (int)((cookie >> 16) & 0xff); }
static inline uint32_t inid_cookie_slot(uint64_t cookie) { return (uint32_t)(cookie & 0xffff); }

/* Attaches the INI to its rings in the cluster's segment: one PE -> INI
 * ring to consume and one INI -> PE ring to produce per compute node. */
void inid_fabric_init(struct inid *d);
/* A record's message is done: marked, and the prefix of done records
 * given back to the compute node. */
void inid_record_done(struct inid *d, int pe, uint32_t slot);
/* Transport callback (swp.h): a compute node's record whose message the
 * peer acknowledged, named by its cookie, is done. */
void inid_transport_release(void *ctx, void *cookie);

#endif
