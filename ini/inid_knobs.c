/*
 * inid_knobs.c - the out-of-line part of the knob stage (inid_knobs.h):
 * setting it up, drawing O, and spending extra service time on the INI's
 * virtual clock.  Runs only with a knob on.
 */
#include "inid_knobs.h"

#include <math.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include <rte_pause.h>

void inid_knobs_init(struct inid_knobs *k, const struct ini_knobs *cfg, uint64_t tsc_hz, int ini_id)
{
    double cycles_per_us = (double)tsc_hz / 1e6;
    memset(k, 0, offsetof(struct inid_knobs, held));
    k->O = (uint64_t)(cfg->O_us * cycles_per_us);
    k->gap = (uint64_t)(cfg->gap_us * cycles_per_us);
    k->per_byte = cfg->per_byte_ns * cycles_per_us / 1000.0;
    k->latency = (uint64_t)(cfg->latency_us * cycles_per_us);
    k->tsc_hz = tsc_hz;
    k->O_exp = cfg->O_exp != 0;
    k->O_sleep = cfg->O_sleep != 0;
    k->tx_on = k->gap || k->per_byte > 0;
    k->rx_on = k->O || k->latency;
    k->rng = 0x9e3779b97f4a7c15ull * (uint64_t)(ini_id + 1) ^ 88172645463325252ull;
}

uint64_t inid_knobs_draw_O(struct inid_knobs *k)
{
    if (!k->O_exp)
        return k->O;
    k->rng ^= k->rng << 13;
    k->rng ^= k->rng >> 7;
    k->rng ^= k->rng << 17;
    double u = (double)(k->rng >> 11) * 0x1.0p-53;
    return (uint64_t)(-(double)k->O * log1p(-u));
}

/* In sleep mode on shared cores a sleep overshoots (timer slack, then a
 * wait for a core: tens of us); the overshoot of one message does not
 * become service time of the next, which starts at its virtual start, so
 * queues form from the extra time and the arrival pattern, not from the
 * machine's scheduling latency (docs/config.md, O_mode). */
void inid_knobs_spend(struct inid_knobs *k, uint64_t arrive, uint64_t begun, uint64_t extra)
{
    uint64_t now = rte_rdtsc();
    /* `begun` may be the loop turn's time: this work began no earlier than
     * the previous wait ended. */
    if (begun < k->left)
        begun = k->left;
    uint64_t start = arrive > k->until ? arrive : k->until;
    uint64_t end = start + (now > begun ? now - begun : 0) + extra;
    k->until = end;
    if (end > now) {
        if (k->O_sleep) {
            uint64_t ns = (end - now) * 1000000000ull / k->tsc_hz;
            struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
            nanosleep(&ts, NULL);
        } else {
            while (rte_rdtsc() < end)
                rte_pause();
        }
    }   /* else behind the virtual clock (a late wake-up): catch up */
    k->left = rte_rdtsc();
}
