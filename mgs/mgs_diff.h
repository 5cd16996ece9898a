/*
 * mgs_diff.h - twins and byte-exact diffs of a coherence unit.
 *
 * When a cluster first writes a unit it keeps a twin (a copy of the unit as
 * it was before the write).  At invalidation the cluster sends the home the
 * difference between its copy and the twin, and the home merges it into the
 * master copy.  Several clusters may write different bytes of the same unit
 * (even of the same word) in one interval, so a diff must carry exactly the
 * bytes that changed and nothing else: merging an unchanged byte would
 * overwrite another writer's change with a stale value.  The encoder
 * therefore compares eight bytes at a time for speed, but emits runs that
 * start and end on byte boundaries and never bridge an unchanged gap, however
 * short.
 *
 * Encoding: a sequence of runs, in increasing offset order,
 *
 *     u16 offset | u16 length (>= 1) | length bytes of the new content
 *
 * little-endian, no padding.  The encoding of an unchanged unit is empty.
 * Units are at most MGS_DIFF_MAX_UNIT bytes so that offsets and lengths fit.
 * A long diff may be cut at run boundaries into several messages; each piece
 * is a valid diff on its own (mgs_diff_next_piece).
 */
#ifndef MGS_DIFF_H
#define MGS_DIFF_H

#include <stddef.h>
#include <stdint.h>

#define MGS_DIFF_MAX_UNIT 32768u
#define MGS_DIFF_RUN_HEADER 4u

/* Largest encoding of a unit of len bytes (every other byte changed). */
static inline size_t mgs_diff_max_size(size_t len)
{
    size_t alternating = (len + 1) / 2 * (MGS_DIFF_RUN_HEADER + 1);
    size_t one_run = MGS_DIFF_RUN_HEADER + len;
    return alternating > one_run ? alternating : one_run;
}

/* Encodes the bytes of cur that differ from twin (both len bytes, len <=
 * MGS_DIFF_MAX_UNIT) into out, which must hold mgs_diff_max_size(len)
 * bytes.  Returns the encoded size (0: no change); *changed, if not NULL,
 * receives the number of changed bytes. */
size_t mgs_diff_encode(const uint8_t *twin, const uint8_t *cur, size_t len, uint8_t *out,
                       size_t *changed);

/* Writes the runs of diff (dlen bytes) into dst (len bytes).  Only the bytes
 * named by the runs are written.  Returns 0, or -1 if the diff is malformed
 * (truncated run, zero length, out of bounds, offsets not increasing); then
 * nothing is written. */
int mgs_diff_apply(uint8_t *dst, size_t len, const uint8_t *diff, size_t dlen);

/* Splitting a diff into messages: returns the length of the longest prefix
 * of diff[pos..dlen) made of whole runs and at most max_piece bytes (at
 * least one run, even if that run alone is longer).  0 when pos == dlen. */
size_t mgs_diff_next_piece(const uint8_t *diff, size_t dlen, size_t pos, size_t max_piece);

#endif
