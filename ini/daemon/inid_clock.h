/*
 * inid_clock.h - the daemon's clock exchange with the INIs of the other
 * clusters over its links (stack/clocksync.h), when a run across hosts
 * asks for it: INI_CLOCK_SYNC=1 in the environment, which ini-cluster's
 * host parts set.  On one host every trace shares one clock, and nothing
 * here runs.
 *
 *   inid_clock_init   after the links are up: the pcb, and the start's
 *                     phase (INID_CLOCK_START_NS at most)
 *   inid_clock_turn   once a loop turn while on (inid_loop.c)
 *   inid_clock_end    after the loop stopped: the end's phase, the loop
 *                     run again for INID_CLOCK_END_NS answering peers that
 *                     stop a little later, then RUN_DIR/ini<ID>.clock
 *
 * The launcher reads every ini<ID>.clock into RUN_DIR/clocks.tsv
 * (tools/cluster/cluster_clock.h).
 */
#ifndef INI_INID_CLOCK_H
#define INI_INID_CLOCK_H

#include "inid.h"

#define INID_CLOCK_START_NS 10000000000LL   /* peers on other hosts may start seconds later */
#define INID_CLOCK_END_NS   300000000LL     /* the launcher stops every host's daemons within this */

/* 0 (on or off), or -1 with a line printed (the port taken). */
int  inid_clock_init(struct inid *d);
/* 1 while an answer is awaited (the turn counts as busy: no sleep). */
int  inid_clock_turn(struct inid *d);
/* After the loop: the end's exchange and the file; nothing when off. */
void inid_clock_end(struct inid *d, int (*loop)(void *));

#endif
