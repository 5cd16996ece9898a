/*
 * splitmix.h - SplitMix64, the project's one small random generator: a
 * 64-bit state advanced by a constant and mixed (Steele, Lea and Flood,
 * "Fast splittable pseudorandom number generators", OOPSLA 2014).  Nearby
 * seeds give unrelated streams, which is what the users want: one stream
 * per compute node or test case from a seed and an index.  Not for
 * anything secret.
 */
#ifndef INI_SPLITMIX_H
#define INI_SPLITMIX_H

#include <stdint.h>

/* The next 64 random bits of the stream *state. */
static inline uint64_t ini_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1), 53 bits. */
static inline double ini_splitmix_uniform(uint64_t *state)
{
    return (double)(ini_splitmix64(state) >> 11) * 0x1.0p-53;
}

#endif
