/*
 * inid_state.c - the INI's state region (docs/transport.md, "An INI that
 * restarts"): a POSIX shared-memory object per INI, /ini-TAG-iN beside
 * its cluster's segment /ini-TAG-cC, holding the transport's durable
 * state (stack/swp.h) and then inid's own (inid.h struct inid_dur).  A
 * fresh daemon creates it clean; one the launcher restarted (--resume)
 * finds it, has it checked, and walks its compute nodes' rings again from
 * where they were last given back: every record there is done (marked in
 * its header), in flight (logged by the transport: it is replayed), or not
 * sent (taken again as new work).
 */
#include "inid_state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabric.h"
#include "inid_fabric.h"

#define INID_DUR_MAGIC   0x3144554449494e49ull   /* "INIIDUD1" */
#define INID_DUR_VERSION 1

/* Ring `where` (a PE's INI -> PE ring) has been published up to mark
 * (swp.h ini_swp_published_fn). */
static int ring_published(void *ctx, uint32_t where, uint64_t mark)
{
    struct inid *d = ctx;
    if (where >= d->seg->n_pes)
        return 0;
    struct ini_ring *r = ini_segment_ring(d->seg, (int)where, d->local, INI_TO_PE);
    return atomic_load_explicit(&r->tail, memory_order_acquire) >= mark;
}

/* Maps the region: created clean (fresh), or the existing one of the
 * expected size.  NULL with why in err. */
static void *map_region(struct inid *d, int fresh, char *err, size_t errlen)
{
    int fd = shm_open(d->region_name, fresh ? O_RDWR | O_CREAT | O_TRUNC : O_RDWR, 0600);
    struct stat st;
    void *mem = MAP_FAILED;
    if (fd < 0) {
        snprintf(err, errlen, "%s", strerror(errno));
    } else if (fresh && ftruncate(fd, (off_t)d->region_bytes) < 0) {
        snprintf(err, errlen, "%zu bytes: %s", d->region_bytes, strerror(errno));
    } else if (!fresh && (fstat(fd, &st) < 0 || (size_t)st.st_size != d->region_bytes)) {
        snprintf(err, errlen, "%lld bytes, expected %zu", (long long)st.st_size, d->region_bytes);
    } else {
        mem = mmap(NULL, d->region_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (mem == MAP_FAILED)
            snprintf(err, errlen, "%s", strerror(errno));
    }
    if (fd >= 0)
        close(fd);
    return mem == MAP_FAILED ? NULL : mem;
}

int inid_state_open(struct inid *d, const struct ini_swp_params *swp)
{
    char err[256];
    size_t swp_bytes = ini_swp_durable_bytes(swp);
    d->region_bytes = swp_bytes + sizeof(struct inid_dur);
    snprintf(d->region_name, sizeof d->region_name, "/ini-%s-i%d", d->tag, d->me->id);
    d->region = map_region(d, !d->resume, err, sizeof err);
    struct inid_dur *dur = d->region ? (struct inid_dur *)((uint8_t *)d->region + swp_bytes) : NULL;
    int rc = -1;
    if (!dur)
        ;                           /* err says why */
    else if (d->resume && (dur->magic != INID_DUR_MAGIC || dur->version != INID_DUR_VERSION))
        snprintf(err, sizeof err, "inid's part: version %u, expected %u", dur->version, INID_DUR_VERSION);
    else
        rc = ini_swp_durable_attach(d->stack.swp, d->region, swp_bytes, d->seg, d->resume, ring_published, err,
                                    sizeof err);
    if (rc < 0) {
        fprintf(stderr, "inid %d: %sstate region /dev/shm%s: %s\n", d->me->id, d->resume ? "cannot resume: " : "",
                d->region_name, err);
        return -1;
    }
    if (!d->resume) {
        dur->magic = INID_DUR_MAGIC;
        dur->version = INID_DUR_VERSION;
    }
    d->dur = dur;
    d->swp_intent = ini_swp_intent(d->stack.swp);
    /* The knob stage holds messages the transport has acknowledged: not
     * in a ring, so not resumable (docs/transport.md). */
    if (d->knobs.rx_on)
        ini_swp_durable_unresumable(d->stack.swp);
    return 0;
}

void inid_state_unlink(struct inid *d)
{
    if (d->region_name[0])
        shm_unlink(d->region_name);
}

/* ---- a resumed INI's rings ---- */

/* What the walk found: each record taken again, by PE and slot. */
struct walk {
    struct inid *d;
    int kept;                       /* logged messages found in the rings */
};

/* Is the logged message at offset off (cookie: its PE and place in the
 * ring, inid_cookie) a record the walk took?  Then its cookie is the one
 * of its new slot (swp.h ini_swp_logged_fn). */
static int claim_logged(void *ctx, int peer, uint64_t off, void **cookie)
{
    struct walk *w = ctx;
    struct inid *d = w->d;
    uint64_t c = (uint64_t)(uintptr_t)*cookie;
    int pe = inid_cookie_pe(c);
    if (pe >= d->n_pes)
        return 0;
    struct out_ring *o = &d->out[pe];
    for (uint32_t s = o->head; s != o->tail; s++) {
        uint32_t k = s % INID_RING_INFLIGHT;
        uint64_t pos = o->end[k] - o->rec[k]->bytes;
        if (inid_cookie(pe, 0, pos) >> 24 == c >> 24 &&
            (uint8_t *)ini_fabric_out_am(o->rec[k]) == (uint8_t *)d->seg + off) {
            o->done[k] = 2;         /* in flight: not new work */
            *cookie = (void *)(uintptr_t)inid_cookie(pe, k, pos);
            w->kept++;
            return 1;
        }
    }
    return 0;                       /* given back already: it was acknowledged */
}

/* The delivery to a compute node of this cluster that the dead INI was
 * in: published, its record is done. */
static int local_done(const struct inid *d, int pe, uint64_t pos)
{
    const struct inid_dur *dur = d->dur;
    return dur->local_armed && dur->local_src == (uint32_t)pe && dur->local_pos == pos &&
           ring_published((void *)d, dur->local_pe, dur->local_mark);
}

/* Takes PE pe's unreleased records again, in ring order, into its
 * in-flight slots: done ones marked so (1). */
static void walk_ring(struct inid *d, int pe)
{
    struct out_ring *o = &d->out[pe];
    struct ini_rec *rec;
    uint64_t end;
    while (o->tail - o->head < INID_RING_INFLIGHT && (rec = ini_ring_next(&o->cons, &end))) {
        uint32_t k = o->tail++ % INID_RING_INFLIGHT;
        o->end[k] = end;
        o->rec[k] = rec;
        if (local_done(d, pe, end - rec->bytes))
            rec->flags |= INID_REC_DONE;
        o->done[k] = (rec->flags & INID_REC_DONE) ? 1 : 0;
    }
}

/* Records neither done nor in flight were taken and not sent: work again,
 * in ring order (2 marked the ones in flight: back to 0). */
static int requeue(struct inid *d, int pe)
{
    struct out_ring *o = &d->out[pe];
    int n = 0;
    for (uint32_t s = o->head; s != o->tail; s++) {
        uint32_t k = s % INID_RING_INFLIGHT;
        if (o->done[k] == 2) {
            o->done[k] = 0;
        } else if (!o->done[k]) {
            struct work *w = &d->queue[d->q_tail++ % INID_QUEUE_SIZE];
            *w = (struct work){ .kind = WORK_OUT, .target = INT16_MIN, .pe = (uint8_t)pe, .slot = (uint16_t)k,
                                .rec = o->rec[k] };
            n++;
        }
    }
    return n;
}

void inid_state_rebuild(struct inid *d)
{
    if (!d->resume)
        return;
    struct walk w = { .d = d };
    for (int pe = 0; pe < d->n_pes; pe++)
        walk_ring(d, pe);
    ini_swp_durable_logged(d->stack.swp, claim_logged, &w);
    int again = 0, done = 0;
    for (int pe = 0; pe < d->n_pes; pe++) {
        again += requeue(d, pe);
        struct out_ring *o = &d->out[pe];
        for (uint32_t s = o->head; s != o->tail; s++)
            done += o->done[s % INID_RING_INFLIGHT] == 1;
        if (o->head != o->tail && o->done[o->head % INID_RING_INFLIGHT])
            inid_record_done(d, pe, o->head % INID_RING_INFLIGHT);     /* gives back the done prefix */
    }
    d->dur->local_armed = 0;
    d->stats.processed = atomic_load_explicit(&d->seg->inis[d->local].processed, memory_order_relaxed);
    printf("inid %d: resumed (incarnation %u): %d message(s) in flight to replay, %d to send, %d done\n",
           d->me->id, ini_swp_incarnation(d->stack.swp), w.kept, again, done);
}
