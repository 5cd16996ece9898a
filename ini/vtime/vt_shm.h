/*
 * vt_shm.h - the virtual-time machine of a run in shared memory: the
 * launcher creates it (one POSIX shared-memory object per run, named in
 * the environment as INI_VTIME), every daemon and compute node maps it.
 *
 * Slot numbering, the one contract between them: compute node p (its
 * global id) is slot p; INI i is slot n_pes + i.  The launcher names every
 * slot and sets its lookahead before anything starts, so that a processor
 * that has not arrived yet already holds the machine at time 0 with the
 * right promise.
 *
 * The environment of a virtual run (set by `ini-cluster run --time virtual`):
 *   INI_VTIME        the object's name ("/ini-TAG-vt")
 *   INI_VT_COSTS     the cost set's name (vt_cost.h: "thesis", "stack")
 */
#ifndef INI_VT_SHM_H
#define INI_VT_SHM_H

#include <stdatomic.h>
#include <stdint.h>

#include "vt_cost.h"
#include "vt_machine.h"

#ifdef __cplusplus
extern "C" {
#endif

#define INI_VT_ENV        "INI_VTIME"
#define INI_VT_COSTS_ENV  "INI_VT_COSTS"
#define INI_VT_HZ_DEFAULT 20000000u     /* the thesis's machine: 20 MHz */

static inline uint32_t ini_vt_pe_slot(int pe) { return (uint32_t)pe; }
static inline uint32_t ini_vt_ini_slot(int n_pes, int ini) { return (uint32_t)(n_pes + ini); }

/* A delivery to a compute node reserves INI_VT_DELIVERY_ROOM bytes more
 * than its message; its stamp (the arrival, cycles) is the aligned
 * 8-byte word this returns, inside that room.  `data`: the record's data
 * (8-byte aligned), `len`: the record's len, room included.  The daemon
 * writes it, the library reads it: both with this one formula. */
#define INI_VT_DELIVERY_ROOM 16u
static inline _Atomic uint64_t *ini_vt_delivery_stamp(void *data, uint32_t len)
{
    return (_Atomic uint64_t *)((char *)data + ((len - INI_VT_DELIVERY_ROOM + 7u) & ~7u));
}

/* Creates and initialises the machine `name` for n_pes compute nodes and
 * n_inis INIs at `hz`, every slot named, compute nodes with the cost set's
 * hand-over as lookahead, INIs with the lesser of its wire and delivery.
 * Returns it mapped, or NULL with a one-line reason in err. */
struct ini_vt_machine *ini_vt_shm_create(const char *name, int n_pes, int n_inis, uint64_t hz,
                                         const struct ini_vt_costs *costs, char *err, size_t errlen);

/* Maps the machine `name` made by ini_vt_shm_create.  NULL with a reason. */
struct ini_vt_machine *ini_vt_shm_attach(const char *name, char *err, size_t errlen);

/* Unmaps a machine mapped by either call. */
void ini_vt_shm_detach(struct ini_vt_machine *m);

/* The cost set the environment names (INI_VT_COSTS, default "thesis").
 * 0, or -1 with a reason in err. */
int ini_vt_costs_from_env(struct ini_vt_costs *c, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
