/*
 * inid_knobs.c - the out-of-line part of the knob stage (inid_knobs.h):
 * setting it up, drawing O, and spending extra service time on the INI's
 * virtual clock, for O and for uniform dilation.  Runs only with a knob on.
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
    k->dil.factor = ini_knobs_ini_dilation(cfg);
    k->dil.poll_ns = INID_DILATE_POLL_US * 1000u;
    if (k->dil.factor > 0)
        k->dil.clock_cost_ns = ini_thread_clock_cost_ns();
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

static void sleep_cycles(const struct inid_knobs *k, uint64_t cycles)
{
    uint64_t ns = cycles * 1000000000ull / k->tsc_hz;
    struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
    nanosleep(&ts, NULL);
}

/* The virtual clock (inid_knobs.h): the end of a service of `extra` cycles
 * more than its real work, which began at `begun` and ends `now`. */
static uint64_t service_end(struct inid_knobs *k, uint64_t arrive, uint64_t begun, uint64_t now, uint64_t extra)
{
    /* `begun` may be the loop turn's time: this work began no earlier than
     * the previous wait ended. */
    if (begun < k->left)
        begun = k->left;
    uint64_t start = arrive > k->until ? arrive : k->until;
    uint64_t end = start + (now > begun ? now - begun : 0) + extra;
    k->until = end;
    return end;
}

/* In sleep mode on shared cores a sleep overshoots (timer slack, then a
 * wait for a core: tens of us); the overshoot of one message does not
 * become service time of the next, which starts at its virtual start, so
 * queues form from the extra time and the arrival pattern, not from the
 * machine's scheduling latency (docs/config.md, O_mode). */
void inid_knobs_spend(struct inid_knobs *k, uint64_t arrive, uint64_t begun, uint64_t extra)
{
    uint64_t now = rte_rdtsc();
    uint64_t end = service_end(k, arrive, begun, now, extra);
    if (end > now) {
        if (k->O_sleep) {
            sleep_cycles(k, end - now);
        } else {
            while (rte_rdtsc() < end)
                rte_pause();
        }
    }   /* else behind the virtual clock (a late wake-up): catch up */
    k->left = rte_rdtsc();
}

/* A dilated turn lasts factor x its CPU time (the clock read's own cost
 * off), counted from its start on the virtual clock: the turn's TSC span
 * is part of it, the rest is extra.  A turn preempted for longer than
 * that ends when its work does.  The wait sleeps in steps of
 * INID_DILATE_POLL_US and, after each, lets the loop queue what arrived. */
uint64_t inid_knobs_dilate(struct inid_knobs *k, uint64_t arrive, uint64_t begun, uint64_t *work_end)
{
    struct inid_dilation *dil = &k->dil;
    uint64_t cpu = ini_thread_cpu_ns() - dil->turn_cpu_ns;
    uint64_t now = rte_rdtsc();
    cpu = cpu > dil->clock_cost_ns ? cpu - dil->clock_cost_ns : 0;
    uint64_t total = (uint64_t)(dil->factor * (double)cpu * (double)k->tsc_hz / 1e9);
    uint64_t span = now > begun ? now - begun : 0;
    uint64_t extra = total > span ? total - span : 0;
    uint64_t end = service_end(k, arrive, begun, now, extra);
    *work_end = now;
    dil->turns++;
    dil->cpu_ns += cpu;
    dil->extra_cycles += end > now ? end - now : 0;
    /* The steps end at absolute times on the monotonic clock, so that a
     * late wake-up shortens the next step instead of adding up. */
    uint64_t t = ini_mono_ns(), until = t + (end > now ? (end - now) * 1000000000ull / k->tsc_hz : 0);
    while (now < end) {
        t = dil->poll && until - t > dil->poll_ns ? t + dil->poll_ns : until;
        ini_sleep_until_ns(t);
        now = rte_rdtsc();
        if (dil->poll) {
            dil->poll(dil->poll_ctx, now);
            dil->polls++;
        }
        uint64_t late = ini_mono_ns();
        if (late > t)
            t = late < until ? late : until;
    }
    k->left = rte_rdtsc();
    return end;
}
