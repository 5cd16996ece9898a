/*
 * inid_wedge.c - the af_xdp port's wedge (inid_wedge.h): found from the
 * loop's end of turn at most once a millisecond, recovered by reopening
 * the port (inid_port_reopen), counted as port.wedge_resets.
 *
 * The signal: a span of at least WINDOW in which the loop turned and
 * polled, the port delivered nothing, and its missed frames (the socket's
 * rx_dropped, which DPDK reports as imissed: the kernel found no buffer in
 * the fill ring) grew.  With the receive ring empty (the loop polled and
 * got nothing) and the fill ring empty (the kernel just dropped for want
 * of a buffer), the driver has nothing to refill from: the state is
 * already permanent, so the window only has to outlast the moment a frame
 * is on its way into the receive ring (microseconds) and a turn of the
 * loop on a loaded host (the loop must have turned twice in it).  2 ms:
 * short against the transport's retransmission back-off (up to 2 ms) and
 * the run's seconds, long against both of those.  A port that is merely
 * slow (a full receive ring) drops as ring-full, not as missed, and a
 * port that receives anything resets the span: neither is taken for the
 * wedge.
 */
#include "inid_wedge.h"

#include "inid.h"
#include "inid_counters.h"
#include "inid_port.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#define WEDGE_PERIOD_US  1000     /* the check's period */
#define WEDGE_WINDOW_US  2000     /* nothing received for this long, while misses grow */
#define WEDGE_HOLDOFF_US 10000    /* a new socket's first frames come after this */

/* The lock is the daemon's state, taken by readers that hold it const
 * (a lock is state they may change). */
void inid_wedge_port_lock(const struct inid *d) { rte_spinlock_lock((rte_spinlock_t *)&d->wedge.lock); }
void inid_wedge_port_unlock(const struct inid *d) { rte_spinlock_unlock((rte_spinlock_t *)&d->wedge.lock); }

/* INI_TEST_WEDGE=N (1-1000000000): after N frames the loop stops polling
 * the port until the check reopens it: the reset path, provoked (a test:
 * the kernel's fill ring is not emptied, so the misses are not asked for). */
static int test_init(struct inid *d)
{
    const char *e = getenv("INI_TEST_WEDGE");
    if (!e || !e[0])
        return 0;
    char *end;
    long long n = strtoll(e, &end, 10);
    if (*end || n < 1 || n > 1000000000) {
        fprintf(stderr, "inid %d: INI_TEST_WEDGE: '%s' is not a count of frames (1-1000000000)\n", d->me->id, e);
        return -1;
    }
    d->wedge.test_after = (uint64_t)n;
    return 0;
}

int inid_wedge_init(struct inid *d)
{
    struct inid_wedge *w = &d->wedge;
    struct rte_eth_dev_info info;
    memset(w, 0, sizeof(*w));
    rte_spinlock_init(&w->lock);
    if (test_init(d) < 0)
        return -1;
    w->on = d->cfg.net_mode != INI_NET_MEMIF && d->n_ports == 1 && d->vt == NULL &&
            rte_eth_dev_info_get(d->ports[0], &info) == 0 && info.driver_name &&
            strcmp(info.driver_name, "net_af_xdp") == 0;
    uint64_t us = d->tsc_hz / 1000000u;
    w->period = WEDGE_PERIOD_US * us;
    w->window = WEDGE_WINDOW_US * us;
    w->holdoff = WEDGE_HOLDOFF_US * us;
    w->next_check = rte_rdtsc() + w->period;
    if (w->test_after)
        fprintf(stderr, "inid %d: INI_TEST_WEDGE: the port stops being polled after %llu frames (a test)%s\n",
                d->me->id, (unsigned long long)w->test_after, w->on ? "" : "; no af_xdp port: not armed");
    return 0;
}

/* The port's missed frames: one getsockopt in the driver. */
static uint64_t port_missed(const struct inid *d)
{
    struct rte_eth_stats st;
    return rte_eth_stats_get(d->ports[0], &st) == 0 ? st.imissed : 0;
}

/* The counters a new port starts again from 0, added to the carry. */
static void carry_over(struct inid *d, const struct inid_port_rx *b, const struct inid_port_rx *a)
{
    struct inid_port_carry *c = &d->wedge.carry;
#define CARRY(f) c->f += b->f > a->f ? b->f - a->f : 0
    CARRY(rx_packets); CARRY(rx_missed); CARRY(rx_errors); CARRY(rx_nombuf);
    CARRY(xsk_ring_full); CARRY(xsk_fill_empty); CARRY(xsk_invalid);
#undef CARRY
}

static void reset(struct inid *d, uint64_t missed, uint64_t now)
{
    struct inid_wedge *w = &d->wedge;
    struct inid_port_rx before, after;
    inid_port_rx(d, &before);
    uint64_t t0 = rte_rdtsc();
    struct inid_reopen how;
    inid_wedge_port_lock(d);
    int rc = inid_port_reopen(d, 0, &how);
    inid_wedge_port_unlock(d);
    uint64_t took = rte_rdtsc() - t0;
    inid_port_rx(d, &after);
    carry_over(d, &before, &after);
    w->stalled = 0;
    w->resets++;
    double ms = 1e3 / (double)d->tsc_hz;
    fprintf(stderr, "inid %d: port wedged: %llu frames missed (fill ring empty) in %.1f ms with nothing "
            "received; reopened%s (reset %llu, %.1f ms: closed in %.1f ms, queue freed in %.1f ms%s, %u set-up(s); "
            "mbufs free %llu -> %llu)\n",
            d->me->id, (unsigned long long)missed, (double)(now - w->quiet_since) * ms, rc < 0 ? " and FAILED" : "",
            (unsigned long long)w->resets, (double)took * ms, (double)how.close_cycles * ms,
            (double)how.unbind_cycles * ms, how.asked_kernel ? "" : " (not asked)", how.attempts,
            (unsigned long long)before.pool_free,
            (unsigned long long)after.pool_free);
    if (rc < 0) {
        /* the port is gone: the daemon cannot go on without it */
        w->on = 0;
        d->stop = 1;
        return;
    }
    w->quiet_since = 0;
    w->rx_seen = d->stack.nf.stats.rx_frames;
    w->next_check = rte_rdtsc() + w->holdoff;
}

void inid_wedge_check(struct inid *d, uint64_t now)
{
    struct inid_wedge *w = &d->wedge;
    uint64_t rx = d->stack.nf.stats.rx_frames;
    w->next_check = now + w->period;
    if (w->test_after && !w->test_fired && rx >= w->test_after) {
        w->test_fired = w->stalled = 1;
        fprintf(stderr, "inid %d: INI_TEST_WEDGE: port not polled from %llu frames on (a test)\n", d->me->id,
                (unsigned long long)rx);
    }
    /* Frames arrive, or the loop's queue is too full for it to poll the
     * port (inid_loop.c, poll_ports): not a wedge, and no system call. */
    uint32_t queued = d->q_tail - d->q_head;
    if (rx != w->rx_seen || queued + d->n_stalled + 2 * INI_NETIF_BURST >= INID_QUEUE_SIZE) {
        w->rx_seen = rx;
        w->quiet_since = 0;
        return;
    }
    uint64_t missed = port_missed(d);
    if (!w->quiet_since) {
        w->quiet_since = now;
        w->quiet_missed = missed;
        w->quiet_loops = d->stats.loops;
        return;
    }
    if (now - w->quiet_since >= w->window && d->stats.loops - w->quiet_loops >= 2 &&
        (missed > w->quiet_missed || w->stalled))
        reset(d, missed - w->quiet_missed, now);
}
