/*
 * inid_clock.c - the clock exchange of an INI across hosts (inid_clock.h).
 */
#include "inid_clock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int inid_clock_init(struct inid *d)
{
    const char *on = getenv("INI_CLOCK_SYNC");
    d->clk_on = 0;
    if (!on || strcmp(on, "1") != 0 || d->vt)
        return 0;               /* one host, or virtual time: one clock already */
    uint32_t ip[INI_SWP_MAX_INIS] = { 0 };
    uint16_t peer[INI_SWP_MAX_INIS];
    int n = 0;
    for (int i = 0; i < d->cfg.n_inis; i++) {
        ip[i] = d->cfg.inis[i].ip;
        /* A cluster is one process on one host: its own INIs share our clock. */
        if (d->cfg.inis[i].cluster != d->cluster)
            peer[n++] = (uint16_t)i;
    }
    if (ini_clocksync_open(&d->clk, &d->stack.nf, (uint16_t)d->me->id, ip, peer, n) < 0) {
        fprintf(stderr, "inid %d: clock exchange: UDP port %d taken or no pcb\n", d->me->id, INI_CLOCK_PORT);
        return -1;
    }
    ini_clocksync_begin(&d->clk, 0, INID_CLOCK_START_NS);
    d->clk_on = 1;
    d->clk_stop_at = 0;
    return 0;
}

int inid_clock_turn(struct inid *d)
{
    int done;
    int waiting = ini_clocksync_turn(&d->clk, &done);
    if (d->clk_stop_at && clock_realtime_ns() >= d->clk_stop_at)
        d->stop = 1;            /* the end's window is over */
    return waiting;
}

void inid_clock_end(struct inid *d, int (*loop)(void *))
{
    if (!d->clk_on)
        return;
    /* Stopped: measured again while the loop keeps answering the peers
     * that stop up to INID_CLOCK_END_NS later.  A second signal ends it
     * at once. */
    ini_clocksync_begin(&d->clk, 1, INID_CLOCK_END_NS);
    d->clk_stop_at = clock_realtime_ns() + INID_CLOCK_END_NS;
    d->stop = 0;
    loop(d);
    char path[INI_PATH_LEN + 32];
    snprintf(path, sizeof(path), "%.*s/ini%d.clock", INI_PATH_LEN - 1, d->run_dir, d->me->id);
    if (ini_clocksync_write(&d->clk, path) < 0)
        fprintf(stderr, "inid %d: cannot write %s: %s\n", d->me->id, path, strerror(errno));
    printf("inid %d: clock: %llu requests, %llu answered, %llu answers given\n", d->me->id,
           (unsigned long long)d->clk.requests, (unsigned long long)d->clk.answered,
           (unsigned long long)d->clk.replies_sent);
    ini_clocksync_close(&d->clk);
    d->clk_on = 0;
}
