/*
 * segment.h - the per-cluster shared-memory segment: the intra-cluster
 * fabric between a cluster's compute nodes and its INIs.
 *
 * The launcher creates one POSIX shared-memory object per cluster; the
 * cluster's INI daemons and its compute process map it.  It holds
 *   - a header naming the cluster, its PEs and INIs (checked on attach),
 *   - per INI: state, its load (messages submitted by the compute nodes
 *     and not yet processed, read by the load-aware policy) and the path
 *     of its doorbell, a FIFO a compute node writes to after publishing to
 *     an INI that is asleep (adaptive idle mode),
 *   - per PE: its doorbell, rung by an INI after delivering to a sleeping PE
 *     (or to a PE whose thread sleeps on another PE's doorbell, fabric.h),
 *   - two rings per (PE, INI) pair: PE -> INI (outbound messages) and
 *     INI -> PE (deliveries).  Every ring has exactly one producer and one
 *     consumer, so the fabric needs no lock.
 */
#ifndef INI_SEGMENT_H
#define INI_SEGMENT_H

#include <stdatomic.h>
#include <stdint.h>

#include "config.h"
#include "ring.h"

#define INI_SEG_MAGIC   0x31474553494e49ull   /* "INISEG1" */
#define INI_SEG_VERSION 2

enum ini_seg_state { INI_SEG_ABSENT = 0, INI_SEG_READY = 1, INI_SEG_STOPPED = 2 };
enum ini_ring_dir  { INI_TO_INI = 0, INI_TO_PE = 1 };

struct ini_seg_ini {
    _Alignas(64) _Atomic uint32_t state;
    _Atomic int32_t  pid;
    _Atomic uint32_t sleeping;    /* the INI is asleep: ring its doorbell */
    /* The INI's doorbell is a FIFO (it sleeps in epoll on it together with
     * its ports' receive interrupts); a compute node writes a byte to it. */
    char wake_path[108];
    /* Load, for the load-aware policies: messages the compute nodes have
     * handed this INI and it has not finished yet, submitted - processed.
     * Each on its own line: many writers for one, the INI for the other. */
    _Alignas(64) _Atomic uint64_t submitted;   /* compute nodes add 1 per message */
    _Alignas(64) _Atomic uint64_t processed;   /* the INI stores its count each turn */
    _Atomic uint32_t inbound;                  /* and the frames and deliveries waiting in it */
};

struct ini_seg_pe {
    _Alignas(64) _Atomic uint32_t doorbell;   /* futex word */
    /* INI_PE_AWAKE (0), or 1 + k: whoever waits for this PE sleeps on the
     * doorbell of PE k, itself or the first of a group (ini/cn/fabric.h). */
    _Atomic uint32_t sleeping;
    /* 1 while the PE's thread waits for a message handing its core over
     * (ini_wait, before it sleeps): an INI on that core keeps the core
     * until it has something for the PE (ini/cn/fabric.h). */
    _Atomic uint32_t waiting;
};

struct ini_segment {
    uint64_t magic;
    uint32_t version;
    uint32_t cluster;
    uint64_t bytes;            /* whole mapping */
    uint64_t ring_size;
    uint64_t rings_offset;
    uint32_t n_pes, n_inis;
    int32_t  pe_ids[INI_MAX_PES_PER_CLUSTER];
    int32_t  ini_ids[INI_MAX_INIS_PER_CLUSTER];
    struct ini_seg_ini inis[INI_MAX_INIS_PER_CLUSTER];
    struct ini_seg_pe  pes[INI_MAX_PES_PER_CLUSTER];
};

/* Shared-memory object name of a cluster's segment for a run tag. */
void ini_segment_name(char *buf, size_t len, const char *tag, int cluster);

/* Size of the segment of `cluster`, bytes. */
uint64_t ini_segment_bytes(const struct ini_config *cfg, int cluster, uint64_t ring_size);
/* Creates (replacing any stale one), allocates (posix_fallocate: ENOSPC
 * when /dev/shm is too small) and initialises the segment of `cluster`;
 * returns the mapping or NULL with errno set. */
struct ini_segment *ini_segment_create(const char *name, const struct ini_config *cfg,
                                       int cluster, uint64_t ring_size);
/* Maps an existing segment and checks it belongs to `cluster` (-1: any);
 * NULL with a message in err otherwise. */
struct ini_segment *ini_segment_attach(const char *name, int cluster, char *err, size_t errlen);
void ini_segment_detach(struct ini_segment *seg);
/* One compute-node program per cluster: takes an exclusive lock (flock) on
 * the segment and returns the descriptor that holds it (close it to let
 * go; a process that dies lets go by itself, so no owner goes stale).
 * -1 with a message in err when another program holds it. */
int  ini_segment_claim(const char *name, char *err, size_t errlen);
int  ini_segment_unlink(const char *name);

/* The ring between the PE and the INI with the given local indices. */
static inline struct ini_ring *ini_segment_ring(struct ini_segment *seg, int pe_local,
                                                int ini_local, enum ini_ring_dir dir)
{
    uint64_t each = sizeof(struct ini_ring) + seg->ring_size;
    uint64_t idx = ((uint64_t)pe_local * seg->n_inis + (uint64_t)ini_local) * 2 + dir;
    return (struct ini_ring *)((uint8_t *)seg + seg->rings_offset + idx * each);
}

/* Compute-node doorbells (futex words in the segment). */
void ini_doorbell_ring(_Atomic uint32_t *word);
/* Sleeps while *word == seen, at most timeout_us (0: no limit). */
void ini_doorbell_wait(_Atomic uint32_t *word, uint32_t seen, uint64_t timeout_us);

#endif
