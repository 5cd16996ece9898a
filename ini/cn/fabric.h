/*
 * fabric.h - the hand-off between a cluster's compute nodes and its INIs:
 * what a record in the segment's rings is, how one is put and published,
 * and how the side that consumes it is woken when it sleeps.
 *
 * Every producer of the intra-cluster fabric goes through here: the
 * compute-node API (ini/cn/ini_cn.c) towards the INIs, inid (ini/daemon/inid_loop.c)
 * and the forwarding stand-in (tools/cluster/cluster_fake_inid.c) towards
 * the compute nodes.  The stand-in is the "no INI" baseline of the thesis's
 * experiments: it shares this code so that it cannot drift from inid.
 *
 * Putting a message (one producer per ring, ring.h):
 *
 *     rec = ini_fabric_reserve(prod, len);   typed INI_REC_MSG, or NULL: full
 *     ... write len bytes at rec->data ...
 *     ini_fabric_publish(prod);              one release store
 *     ini_fabric_wake_pe(seg, pe);           or ini_fabric_consumer_sleeps() +
 *                                            ini_fabric_ring_fifo() to an INI
 *
 * Everything on that path is inline and costs what the code it replaced
 * did: no call through a pointer, no system call unless the consumer sleeps.
 *
 * Sleeping and waking (the adaptive idle mode).  A consumer that found
 * nothing announces that it sleeps, issues a full fence, looks at its
 * rings once more and only then sleeps; a producer publishes, issues a full
 * fence, and reads the announcement.  One of the two sees the other (the
 * classic store-buffer pairing), so no wake-up is lost.  Both halves are
 * here: the producer's inline below (ini_fabric_wake_pe,
 * ini_fabric_consumer_sleeps), the consumer's in ini_fabric_sleep and
 * ini_fabric_sleep_futex, which every sleeper uses (inid's idle mode,
 * ini_wait and ini_wait_any, MGS's protocol thread when it runs without
 * INIs, the stand-in):
 *
 *     if (!work)
 *         ini_fabric_sleep(words, n, on, pending, sleep, ctx);
 *               announce `on` in each word, fence, pending(ctx): the
 *               last look; sleep(ctx) only if it found nothing; then
 *               announce 0 (awake) in each word
 *
 *   - An INI sleeps in epoll on its doorbell FIFO (segment.h wake_path);
 *     `sleeping` of its struct ini_seg_ini is 0 or 1, and a producer that
 *     sees 1 writes a byte to the FIFO (ini_fabric_ring_fifo).
 *   - A compute node sleeps on a futex word in the segment.  The word a PE
 *     sleeps on need not be its own: `sleeping` of its struct ini_seg_pe is
 *     INI_PE_AWAKE (0) or ini_fabric_sleeps_on(k) = 1 + k, "asleep on the
 *     doorbell of PE k of this cluster".  ini_wait sleeps on the PE's own
 *     doorbell; ini_wait_any, one thread waiting for several PEs, points
 *     every PE of its group at the doorbell of the group's first PE and
 *     sleeps there, so a delivery to any of them wakes it.  The INI reads
 *     the one word it read before and rings the doorbell it names: the
 *     single-PE case costs what it did.  A PE belongs to at most one
 *     sleeping thread at a time.
 *
 * Sharing a core (idle.colocate: a compute node on its INI's core).  The
 * two hand the core to each other with sched_yield, each switch about
 * 1.3 us on the 2-core development machine: a round trip between two
 * compute nodes needs at least four (a message to each INI, each reply to
 * its compute node).  While a compute node waits in ini_wait it says so
 * (`waiting` of its struct ini_seg_pe, ini_fabric_pe_waits): its INI then
 * keeps the core and polls instead of yielding at every idle turn, so
 * that a frame that arrives is taken at once, not after the compute
 * node's turn and a switch, and hands the core over once it has delivered
 * to it and drained its port (a turn whose receive burst came back full
 * takes the frames behind it first: a large message's segments then
 * reach the compute node in one hand-over, not one a turn).
 *
 * A yield is not a hand-over.  Under Linux's EEVDF scheduler (6.6 on)
 * sched_yield only pushes the caller's deadline back: when the other task
 * on the core is not eligible (it has had more than its share lately) the
 * scheduler picks the caller again.  Either side then kept the core for
 * its whole yield window (idle.yield_us) while the other waited to run:
 * seen with perf sched on the 2-core machine, inid ran 200 us and its
 * compute node 3 us in turn, and a round trip took 440 us instead of 8
 * (docs/results/bench-c2c-yield-ab.txt: 3 of 12 runs at 66-407 us before,
 * none after).  So both sides time their yields (ini_fabric_yield): one
 * that returns at once (a kept yield costs 0.5 us, a switch there and back
 * at least 2.6) was not a hand-over, and the yielder sleeps instead
 * (the compute node on its doorbell, the INI in epoll), which leaves the
 * other task the only one to run; each wakes the other as before.
 */
#ifndef INI_FABRIC_H
#define INI_FABRIC_H

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "clock.h"
#include "msg.h"
#include "ring.h"
#include "segment.h"

/* Record types (struct ini_rec.type). */
enum ini_rec_type {
    INI_REC_NONE = 0,         /* reserved by ini_ring_reserve, not typed yet */
    /* A message.  PE -> INI: INI_HEADROOM bytes (the submit TSC, then the
     * transport header) | AM header | payload.  INI -> PE: AM header |
     * payload.  Between stand-in INIs: 8-byte send time | AM header |
     * payload. */
    INI_REC_MSG = 1,
    /* INI_REC_PAD (ring.h, 0xffff): filler in front of a wrapped record. */
};

/* A PE's `sleeping` word: awake, or asleep on the doorbell of PE k. */
#define INI_PE_AWAKE 0u
static inline uint32_t ini_fabric_sleeps_on(int pe_local) { return 1u + (uint32_t)pe_local; }

/* Reserves a message record of len bytes, for the producer to fill; NULL
 * when the ring has no room now.  Invisible until ini_fabric_publish. */
static inline struct ini_rec *ini_fabric_reserve(struct ini_ring_prod *p, uint32_t len)
{
    struct ini_rec *rec = ini_ring_reserve(p, len);
    if (rec)
        rec->type = INI_REC_MSG;
    return rec;
}

/* Publishes every record reserved so far. */
static inline void ini_fabric_publish(struct ini_ring_prod *p)
{
    ini_ring_publish(p);
}

/* The AM header of a PE -> INI message record, behind the headroom. */
static inline struct ini_am_hdr *ini_fabric_out_am(struct ini_rec *rec)
{
    return (struct ini_am_hdr *)(rec->data + INI_HEADROOM);
}

/* Copies the message at msg (AM header and payload, len bytes) into a new
 * record and publishes it: the INI -> PE delivery.  0, or -1 when the ring
 * has no room now (nothing written). */
static inline int ini_fabric_put(struct ini_ring_prod *p, const void *msg, uint32_t len)
{
    struct ini_rec *rec = ini_fabric_reserve(p, len);
    if (!rec)
        return -1;
    __builtin_memcpy(rec->data, msg, len);
    ini_fabric_publish(p);
    return 0;
}

/* After publishing to PE pe_local: wakes the thread sleeping for it, if
 * any.  A value naming no PE of the segment (it is shared memory) wakes
 * the PE's own doorbell. */
static inline void ini_fabric_wake_pe(struct ini_segment *seg, int pe_local)
{
    atomic_thread_fence(memory_order_seq_cst);
    uint32_t on = atomic_load_explicit(&seg->pes[pe_local].sleeping, memory_order_relaxed);
    if (on != INI_PE_AWAKE) {
        uint32_t k = on - 1u;
        if (k >= seg->n_pes || k >= INI_MAX_PES_PER_CLUSTER)
            k = (uint32_t)pe_local;
        ini_doorbell_ring(&seg->pes[k].doorbell);
    }
}

/* A compute node's thread waits for a message (1), or not (0): ini_wait
 * says so around handing its core over (fabric.h, "Sharing a core"). */
static inline void ini_fabric_pe_waits(struct ini_segment *seg, int pe_local, uint32_t on)
{
    atomic_store_explicit(&seg->pes[pe_local].waiting, on, memory_order_relaxed);
}

/* A yield shorter than this returned without running anyone else. */
#define INI_FABRIC_YIELD_KEPT_NS 1500

/* sched_yield; 1 when it handed the core over (someone else ran), 0 when
 * the scheduler kept the caller (fabric.h, "Sharing a core"). */
static inline int ini_fabric_yield(void)
{
    uint64_t a = ini_mono_ns();
    sched_yield();
    return ini_mono_ns() - a >= INI_FABRIC_YIELD_KEPT_NS;
}

/* 1 when every PE of `pes` (a mask of local indices, not empty) waits. */
static inline int ini_fabric_pes_wait(const struct ini_segment *seg, uint64_t pes)
{
    for (; pes; pes &= pes - 1)
        if (!atomic_load_explicit(&seg->pes[__builtin_ctzll(pes)].waiting, memory_order_relaxed))
            return 0;
    return 1;
}

/* The INI stops (its state is INI_SEG_STOPPED): every PE's doorbell rings,
 * so that whoever sleeps for a PE sees the state. */
static inline void ini_fabric_wake_all_pes(struct ini_segment *seg)
{
    for (uint32_t p = 0; p < seg->n_pes; p++)
        ini_doorbell_ring(&seg->pes[p].doorbell);
}

/* After publishing to a consumer whose announcement is the word
 * `sleeping` (an INI's in the segment, or any ini_fabric_sleep caller's):
 * 1 if it announced it sleeps (then ring it: ini_fabric_ring_fifo for an
 * INI's FIFO, ini_doorbell_ring for a futex word). */
static inline int ini_fabric_consumer_sleeps(_Atomic uint32_t *sleeping)
{
    atomic_thread_fence(memory_order_seq_cst);
    return atomic_load_explicit(sleeping, memory_order_relaxed) != 0;
}

/* Writes a byte to the doorbell FIFO at path, through *fd (-1: opened
 * here on first use; threads sharing *fd may race to open it, the loser
 * closes its copy).  A full FIFO means wake-ups are pending already; a
 * FIFO that cannot be opened (its INI is not up) is tried again next time.
 * A FIFO whose reader is gone (its INI died) is opened again at path and
 * put under the same descriptor number, so that a restarted INI's new
 * FIFO is rung.  Returns -1 when the write failed otherwise, or the reader
 * is gone and no new one is there yet: a caller that owns *fd alone may
 * close it and set it to -1 to reopen. */
int ini_fabric_ring_fifo(int *fd, const char *path);

/* The consumer's half.  A consumer that found no work: announces `on` (not
 * 0) in each of its n `sleeping` words, issues the full fence, takes its
 * last look (pending(ctx): work published meanwhile, or a reason not to
 * sleep) and only if that found nothing sleeps (sleep(ctx), which returns
 * when woken or after a bound of its own); then it announces 0 in each
 * word again.  Returns 1 if it slept, 0 if the last look found work.
 * Called only with nothing to do: the calls through pointers cost nothing
 * that matters next to the system call. */
int ini_fabric_sleep(_Atomic uint32_t *const sleeping[], int n, uint32_t on, int (*pending)(void *ctx),
                     void (*sleep)(void *ctx), void *ctx);

/* ini_fabric_sleep for a consumer that sleeps on the futex word `bell`
 * (ini_doorbell_ring wakes it), at most timeout_us (0: no bound).  The
 * bell's value is read before the announcement, so a ring that comes
 * after the last look makes the sleep return at once. */
int ini_fabric_sleep_futex(_Atomic uint32_t *bell, _Atomic uint32_t *const sleeping[], int n, uint32_t on,
                           int (*pending)(void *ctx), void *ctx, uint64_t timeout_us);

#endif
