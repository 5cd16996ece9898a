/*
 * clocksync.h - an INI's clock against its peers', measured over the INIs'
 * own links, so that traces of several hosts go on one time line
 * (docs/traces.md, "One clock").
 *
 * Why over the links: the launcher's channel to a host (ssh, srun) has
 * round trips of tens of microseconds to milliseconds, and an offset's
 * error is up to half the round trip; between two INIs a round trip is a
 * frame each way between two polling loops.
 *
 * How: NTP's way (timers/clock_sample.h).  The INI asks each peer INI in
 * turn on UDP port INI_CLOCK_PORT (its own pcb beside the transport's
 * port, so the transport's path is untouched) with a request carrying a
 * sequence number; the peer answers at once with its CLOCK_REALTIME; the
 * least round trip of INI_CLOCKSYNC_ROUNDS answers per peer is kept.  One
 * request is outstanding at a time; one not answered within
 * INI_CLOCKSYNC_WAIT_NS is given up, and that peer asked again only
 * INI_CLOCKSYNC_RETRY_NS later (it may not be up yet), so that a missing
 * peer costs no busy loop.  Every INI answers requests whether it measures
 * or not.  The rounds with one peer are INI_CLOCKSYNC_GAP_NS apart: on
 * shared cores a round trip is short only while both daemons hold a core,
 * and rounds spread over 130 ms meet such moments where 64 rounds back to
 * back (or a peer kept awake by spinning, which took the core from the
 * others) gave least round trips of 1-8 ms on the lab under load.
 *
 * When: a phase (ini_clocksync_begin) at the daemon's start and another
 * when it stops; ini_clocksync_turn once per loop turn while a phase runs.
 * Nothing runs per message: the requests are a few dozen frames a peer per
 * phase, the answers lwIP's UDP input of port INI_CLOCK_PORT.
 */
#ifndef INI_CLOCKSYNC_H
#define INI_CLOCKSYNC_H

#include <stdint.h>

#include "clock_sample.h"
#include "netif_dpdk.h"
#include "swp.h"

#define INI_CLOCK_PORT          (INI_UDP_PORT + 1)
#define INI_CLOCKSYNC_ROUNDS    64
#define INI_CLOCKSYNC_WAIT_NS   2000000      /* an answer later than this is given up */
#define INI_CLOCKSYNC_RETRY_NS  20000000     /* a peer that did not answer is asked again after this */
#define INI_CLOCKSYNC_GAP_NS    2000000      /* between two rounds with one peer */

struct udp_pcb;

struct ini_clocksync {
    struct udp_pcb *pcb;
    struct ini_netif *nf;
    uint16_t me;
    int n_peers;
    uint16_t peer[INI_SWP_MAX_INIS];         /* the INIs measured */
    uint32_t ip[INI_SWP_MAX_INIS];           /* every INI's address, network order */
    struct clock_best start[INI_SWP_MAX_INIS], end[INI_SWP_MAX_INIS];   /* by peer index */
    int answers[INI_SWP_MAX_INIS];           /* this phase's, by peer index */
    int64_t retry_at[INI_SWP_MAX_INIS];      /* by peer index: not asked before (realtime ns) */
    struct clock_best *phase;                /* start or end; NULL: no phase runs */
    int64_t deadline_ns;                     /* the phase gives up then */
    int asking;                              /* peer index of the request outstanding, -1: none */
    int next;                                /* where the round-robin goes on */
    uint32_t seq;
    int64_t t0;                              /* when the outstanding request went */
    uint64_t requests, answered, replies_sent;
};

/* Binds INI_CLOCK_PORT on the link's address; measures the n_peers INIs
 * listed in peer (their addresses in ip, indexed by INI id).  0, or -1
 * (the port taken, no pcb). */
int  ini_clocksync_open(struct ini_clocksync *cs, struct ini_netif *nf, uint16_t me, const uint32_t *ip,
                        const uint16_t *peer, int n_peers);
void ini_clocksync_close(struct ini_clocksync *cs);
/* A phase: at_end 0 the start's, 1 the end's; until every peer answered
 * INI_CLOCKSYNC_ROUNDS times or for_ns have passed. */
void ini_clocksync_begin(struct ini_clocksync *cs, int at_end, int64_t for_ns);
/* Once a loop turn: sends the next request when one is due.  Returns 1
 * while an answer is awaited (the loop should not sleep then), else 0;
 * *done is set to 1 once the phase is over (or none runs). */
int  ini_clocksync_turn(struct ini_clocksync *cs, int *done);
/* RUN_DIR's ini<ID>.clock at path (clock_sample.h's format).  0, or -1
 * (errno says why). */
int  ini_clocksync_write(const struct ini_clocksync *cs, const char *path);

#endif
