/*
 * ring.c - SPSC byte ring of variable-size records (see ring.h).
 */
#include "ring.h"

#include <string.h>

static inline uint64_t round_up(uint64_t n, uint64_t a) { return (n + a - 1) & ~(a - 1); }
static inline uint64_t record_bytes(uint32_t len)
{
    return round_up(sizeof(struct ini_rec) + (uint64_t)len, INI_RING_ALIGN);
}

size_t ini_ring_footprint(uint64_t size)
{
    return sizeof(struct ini_ring) + size;
}

void ini_ring_init(struct ini_ring *r, uint64_t size)
{
    r->size = size;
    r->mask = size - 1;
    atomic_store_explicit(&r->head, 0, memory_order_relaxed);
    atomic_store_explicit(&r->tail, 0, memory_order_release);
}

uint32_t ini_ring_max_message(const struct ini_ring *r)
{
    /* A record may need a pad in front of it as large as itself minus one
     * alignment unit, so only half the ring is guaranteed contiguous. */
    return (uint32_t)(r->size / 2 - sizeof(struct ini_rec));
}

void ini_ring_prod_attach(struct ini_ring_prod *p, struct ini_ring *r)
{
    p->ring = r;
    p->tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    p->head_cache = atomic_load_explicit(&r->head, memory_order_acquire);
}

void ini_ring_cons_attach(struct ini_ring_cons *c, struct ini_ring *r)
{
    c->ring = r;
    c->cursor = atomic_load_explicit(&r->head, memory_order_relaxed);
    c->tail_cache = atomic_load_explicit(&r->tail, memory_order_acquire);
}

/* Free bytes for the producer, refreshing the cached head only if needed. */
static inline int prod_has_room(struct ini_ring_prod *p, uint64_t need)
{
    struct ini_ring *r = p->ring;
    if (p->tail + need - p->head_cache <= r->size)
        return 1;
    p->head_cache = atomic_load_explicit(&r->head, memory_order_acquire);
    return p->tail + need - p->head_cache <= r->size;
}

struct ini_rec *ini_ring_reserve(struct ini_ring_prod *p, uint32_t len)
{
    struct ini_ring *r = p->ring;
    uint64_t need = record_bytes(len);
    uint64_t pos = p->tail & r->mask;
    uint64_t pad = (pos + need > r->size) ? r->size - pos : 0;

    if (len > ini_ring_max_message(r) || !prod_has_room(p, pad + need))
        return NULL;
    if (pad) {
        struct ini_rec *padrec = (struct ini_rec *)(r->data + pos);
        padrec->bytes = (uint32_t)pad;
        padrec->len = 0;
        padrec->type = INI_REC_PAD;
        p->tail += pad;
        pos = 0;
    }
    struct ini_rec *rec = (struct ini_rec *)(r->data + pos);
    rec->bytes = (uint32_t)need;
    rec->len = len;
    rec->type = 0;
    rec->flags = 0;
    p->tail += need;
    return rec;
}

void ini_ring_publish(struct ini_ring_prod *p)
{
    atomic_store_explicit(&p->ring->tail, p->tail, memory_order_release);
}

int ini_ring_has_unread(struct ini_ring_cons *c)
{
    if (c->cursor != c->tail_cache)
        return 1;
    c->tail_cache = atomic_load_explicit(&c->ring->tail, memory_order_acquire);
    return c->cursor != c->tail_cache;
}

struct ini_rec *ini_ring_next(struct ini_ring_cons *c, uint64_t *end)
{
    struct ini_ring *r = c->ring;
    for (;;) {
        if (!ini_ring_has_unread(c))
            return NULL;
        struct ini_rec *rec = (struct ini_rec *)(r->data + (c->cursor & r->mask));
        c->cursor += rec->bytes;
        if (rec->type != INI_REC_PAD) {
            *end = c->cursor;
            return rec;
        }
    }
}

struct ini_rec *ini_ring_peek(struct ini_ring_cons *c)
{
    struct ini_ring *r = c->ring;
    for (;;) {
        if (!ini_ring_has_unread(c))
            return NULL;
        struct ini_rec *rec = (struct ini_rec *)(r->data + (c->cursor & r->mask));
        if (rec->type != INI_REC_PAD)
            return rec;
        c->cursor += rec->bytes;       /* a pad is nobody's: step over it */
    }
}

void ini_ring_release_to(struct ini_ring_cons *c, uint64_t pos)
{
    atomic_store_explicit(&c->ring->head, pos, memory_order_release);
}
