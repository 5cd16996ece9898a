/*
 * fault.h - fault injection at an INI's port: drop, duplicate, reorder,
 * corrupt and delay frames, each at its own rate, from a seeded generator
 * so that a run can be repeated.
 *
 * One injector sits on one port in one direction.  ini_fault_apply() takes
 * a burst and returns the frames to pass on now; frames held back
 * (reordered: until `depth` later frames have passed or delay_us is over;
 * delayed: until delay_us is over) come out of later calls, also with an
 * empty burst, so the owner calls it every loop turn while ini_fault_holding()
 * is true.  Corruption flips one bit past the IP header, which the IP or UDP
 * checksum must catch.  The injector owns held frames; frames it passes on
 * belong to the caller again; dropped frames are freed.
 */
#ifndef INI_FAULT_H
#define INI_FAULT_H

#include <stdint.h>

#include <rte_mbuf.h>

#define INI_FAULT_HOLD 256

/* What to inject, each rate the probability that a frame suffers that
 * fault (0..1).  The owner fills it (ini/daemon/stack_config.h does from the
 * INI's configuration, docs/config.md group faults). */
struct ini_fault_params {
    double drop, dup, reorder, corrupt, delay;
    int reorder_depth;        /* a reordered frame is held back this many frames */
    int delay_us;             /* a delayed (or held-back) frame waits at most this long */
    uint64_t seed;
};

/* The injector's counters, one list: fields, sums and the counters file
 * come from it.  X(name) per counter. */
#define INI_FAULT_COUNTERS(X) X(frames) X(dropped) X(duplicated) X(reordered) X(corrupted) X(delayed)

struct ini_fault_stats {
#define INI_FAULT_FIELD(name) uint64_t name;
    INI_FAULT_COUNTERS(INI_FAULT_FIELD)
#undef INI_FAULT_FIELD
};

static inline void ini_fault_stats_add(struct ini_fault_stats *sum, const struct ini_fault_stats *x)
{
#define INI_FAULT_ADD(name) sum->name += x->name;
    INI_FAULT_COUNTERS(INI_FAULT_ADD)
#undef INI_FAULT_ADD
}

struct ini_fault_held {
    struct rte_mbuf *m;
    uint64_t release_tsc;     /* pass on at this time at the latest */
    uint64_t release_count;   /* or once this many frames have passed */
};

struct ini_fault;
/* Told of each frame the injector drops, before it frees it (m stays the
 * injector's): the daemon's capture records it (ini/daemon/capture.h). */
typedef void ini_fault_drop_fn(void *ctx, const struct ini_fault *f, struct rte_mbuf *m);

struct ini_fault {
    struct ini_fault_params cfg;
    uint64_t rng;
    uint64_t tsc_hz, delay_ticks;
    uint64_t passed;                       /* frames passed so far */
    struct rte_mempool *pool;              /* for duplicates */
    uint32_t n_held;
    struct ini_fault_held held[INI_FAULT_HOLD];
    struct ini_fault_stats stats;
    ini_fault_drop_fn *on_drop;            /* NULL (the default): nobody is told */
    void *drop_ctx;
};

/* Sets f up to inject cfg's faults, drawing from a stream of its own: the
 * seed mixed with seed_salt (the injector's identity).  pool provides the
 * duplicates. */
void ini_fault_init(struct ini_fault *f, const struct ini_fault_params *cfg, uint64_t seed_salt,
                    uint64_t tsc_hz, struct rte_mempool *pool);
/* Applies the faults to n frames and writes the frames to pass on now into
 * out (room for cap >= 2 * n + INI_FAULT_HOLD); returns how many. */
uint16_t ini_fault_apply(struct ini_fault *f, uint64_t now, struct rte_mbuf **pkts, uint16_t n,
                         struct rte_mbuf **out, uint16_t cap);
static inline int ini_fault_holding(const struct ini_fault *f) { return f->n_held != 0; }

#endif
