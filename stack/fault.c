/*
 * fault.c - fault injection at a port (see fault.h).
 */
#include "fault.h"

#include <rte_ether.h>

/* xorshift64*: small, fast and good enough to draw fault decisions. */
static inline uint64_t next_rand(struct ini_fault *f)
{
    f->rng ^= f->rng >> 12;
    f->rng ^= f->rng << 25;
    f->rng ^= f->rng >> 27;
    return f->rng * 2685821657736338717ull;
}

static inline int chance(struct ini_fault *f, double p)
{
    return p > 0 && (double)(next_rand(f) >> 11) * 0x1.0p-53 < p;
}

void ini_fault_init(struct ini_fault *f, const struct ini_fault_params *cfg, uint64_t seed_salt,
                    uint64_t tsc_hz, struct rte_mempool *pool)
{
    f->cfg = *cfg;
    /* Each injector gets its own stream: the seed mixed with its identity. */
    f->rng = (cfg->seed + 1) * 0x9e3779b97f4a7c15ull ^ (seed_salt + 1) * 0xbf58476d1ce4e5b9ull;
    if (!f->rng)
        f->rng = 1;
    f->tsc_hz = tsc_hz;
    f->delay_ticks = tsc_hz / 1000000 * (uint64_t)cfg->delay_us;
    f->passed = 0;
    f->pool = pool;
    f->n_held = 0;
}

static void drop(struct ini_fault *f, struct rte_mbuf *m)
{
    f->stats.dropped++;
    if (f->on_drop)
        f->on_drop(f->drop_ctx, f, m);
    rte_pktmbuf_free(m);
}

static void corrupt(struct ini_fault *f, struct rte_mbuf *m)
{
    uint32_t first = RTE_ETHER_HDR_LEN + 20;    /* past the IP header */
    if (m->data_len <= first)
        return;
    uint32_t bit = (uint32_t)(next_rand(f) % ((m->data_len - first) * 8u));
    uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
    d[first + bit / 8] ^= (uint8_t)(1u << (bit % 8));
}

static int hold(struct ini_fault *f, struct rte_mbuf *m, uint64_t now, uint64_t after_frames)
{
    if (f->n_held == INI_FAULT_HOLD)
        return -1;
    f->held[f->n_held++] = (struct ini_fault_held){ m, now + f->delay_ticks, f->passed + after_frames };
    return 0;
}

uint16_t ini_fault_apply(struct ini_fault *f, uint64_t now, struct rte_mbuf **pkts, uint16_t n,
                         struct rte_mbuf **out, uint16_t cap)
{
    uint16_t k = 0;
    for (uint16_t i = 0; i < n; i++) {
        struct rte_mbuf *m = pkts[i];
        f->stats.frames++;
        if (chance(f, f->cfg.drop)) {
            drop(f, m);
            continue;
        }
        if (chance(f, f->cfg.corrupt)) {
            f->stats.corrupted++;
            corrupt(f, m);
        }
        if (chance(f, f->cfg.dup) && k + 1u < cap) {
            struct rte_mbuf *copy = rte_pktmbuf_copy(m, f->pool, 0, UINT32_MAX);
            if (copy) {
                f->stats.duplicated++;
                out[k++] = copy;
                f->passed++;
            }
        }
        if (chance(f, f->cfg.reorder) && hold(f, m, now, (uint64_t)f->cfg.reorder_depth) == 0) {
            f->stats.reordered++;
            continue;
        }
        if (chance(f, f->cfg.delay) && hold(f, m, now, UINT64_MAX / 2) == 0) {
            f->stats.delayed++;
            continue;
        }
        if (k < cap) {
            out[k++] = m;
            f->passed++;
        } else {
            drop(f, m);
        }
    }
    /* Release held frames whose time or turn has come, oldest first. */
    uint32_t kept = 0;
    for (uint32_t i = 0; i < f->n_held; i++) {
        struct ini_fault_held *h = &f->held[i];
        if ((now >= h->release_tsc || f->passed >= h->release_count) && k < cap) {
            out[k++] = h->m;
            f->passed++;
        } else {
            f->held[kept++] = *h;
        }
    }
    f->n_held = kept;
    return k;
}
