/*
 * ring.h - single-producer single-consumer byte ring of variable-size
 * records, living in memory shared between processes.
 *
 * One ring joins one compute node (PE) to one INI in one direction.  A
 * record is a 16-byte header followed by the message, padded to 64 bytes so
 * that records never share a cache line.  A record that would not fit before
 * the end of the ring is preceded by a pad record, so every record is
 * contiguous and can be handed around by pointer: the producer writes the
 * message in place, the consumer reads it in place (no copy in the ring).
 *
 * The producer owns `tail`, the consumer owns `head`; each is on its own
 * cache line and published with release / read with acquire ordering.  Each
 * side keeps a private cached copy of the other's index so that it touches
 * the shared line only when the cached view says the ring is full / empty.
 *
 * The consumer may look ahead of `head` (ini_ring_peek_at) and release later
 * (ini_ring_release_to): an INI keeps a message in the ring, without
 * copying, until the message has been sent (and, with the reliable
 * transport, acknowledged).
 */
#ifndef INI_RING_H
#define INI_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define INI_RING_ALIGN   64u
#define INI_REC_PAD      0xffffu   /* record type of a pad record */

/* Header in front of every record.  `bytes` is the whole record (header,
 * message and padding); `len` is the message length. */
struct ini_rec {
    uint32_t bytes;
    uint32_t len;
    uint16_t type;
    uint16_t flags;
    uint32_t reserved;
    uint8_t  data[];
};

struct ini_ring {
    _Alignas(64) _Atomic uint64_t tail;   /* producer: bytes ever published */
    _Alignas(64) _Atomic uint64_t head;   /* consumer: bytes ever released */
    _Alignas(64) uint64_t size;           /* data bytes, a power of two */
    uint64_t mask;
    _Alignas(64) uint8_t data[];
};

/* Producer-private and consumer-private views of one ring. */
struct ini_ring_prod {
    struct ini_ring *ring;
    uint64_t tail;         /* next byte to write */
    uint64_t head_cache;   /* last head seen */
};

struct ini_ring_cons {
    struct ini_ring *ring;
    uint64_t cursor;       /* next byte to look at (>= head) */
    uint64_t tail_cache;   /* last tail seen */
};

/* Bytes of shared memory a ring of `size` data bytes needs. */
size_t ini_ring_footprint(uint64_t size);
/* Initialises a ring in zeroed shared memory; size must be a power of two
 * of at least 4096 bytes.  Done once, by whoever creates the segment. */
void ini_ring_init(struct ini_ring *r, uint64_t size);
/* Largest message that always fits in an empty ring. */
uint32_t ini_ring_max_message(const struct ini_ring *r);

void ini_ring_prod_attach(struct ini_ring_prod *p, struct ini_ring *r);
void ini_ring_cons_attach(struct ini_ring_cons *c, struct ini_ring *r);

/* Reserves a record for a message of `len` bytes and returns it (its data
 * is the producer's to fill), or NULL when the ring has no room now.  The
 * record is invisible to the consumer until ini_ring_publish(). */
struct ini_rec *ini_ring_reserve(struct ini_ring_prod *p, uint32_t len);
/* Publishes every record reserved so far (one release store). */
void ini_ring_publish(struct ini_ring_prod *p);

/* Returns the next unread record after the consumer's cursor and moves the
 * cursor past it, or NULL when nothing is published.  Pad records are
 * skipped.  *end receives the position just after the record, for
 * ini_ring_release_to().  The record stays valid until released. */
struct ini_rec *ini_ring_next(struct ini_ring_cons *c, uint64_t *end);
/* The next unread record, without moving the cursor past it (pads before
 * it are skipped), or NULL: what ini_ring_next would return next.  The
 * virtual-time mode looks at a record's stamp before it takes it. */
struct ini_rec *ini_ring_peek(struct ini_ring_cons *c);
/* Gives every byte before `pos` back to the producer. */
void ini_ring_release_to(struct ini_ring_cons *c, uint64_t pos);
/* True when records are published beyond the cursor (cheap check). */
int ini_ring_has_unread(struct ini_ring_cons *c);

#endif
