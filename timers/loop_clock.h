/*
 * loop_clock.h - the poll loop's clock: the TSC read once per turn that
 * needs it, not once per turn.
 *
 * Why: a poll loop reads the time at the start of every turn, for its
 * timers and for the sends of that turn.  On this project's machines a TSC
 * read costs about 10 ns (35-40 cycles on AMD EPYC in a VM), a third of an
 * idle turn over memif.  A frame that lands during an idle turn waits, on
 * average, for half a turn before the next receive burst sees it, so the
 * clock read alone adds about 5 ns to every hop.  Yet an idle turn changes
 * nothing that needs a fresh time: the timers are milliseconds long.
 *
 * Who uses it: a loop that needs the time for its timers only (ini-bench's
 * reliable layer, a program of one's own around the stack).  inid does
 * not: its busy cycles, queue area and arrival stamps count from each
 * turn's start, and a stale start would count up to `every` idle turns
 * as busy.
 *
 * Policy
 *   - loop_clock_turn() at a turn's start returns the time: read afresh
 *     after a turn with work (loop_clock_expire()) and at least every
 *     `every` idle turns; in between, the last reading.  `every` = 1 reads
 *     every turn.
 *   - A loop that may sleep (sched_yield, epoll) calls loop_clock_expire()
 *     after it: the next turn must not start a timer from a time before
 *     the sleep.
 *   - The time is never later than the truth and never goes backwards, as
 *     timer_list_start() requires.  A stale reading is at most `every`
 *     idle turns old (about 0.2 us at 8): a timer may start that much early
 *     and fire that much late, both far below any timeout.
 *
 * Ticks are TSC cycles, as the timer lists' (x86; rdtsc is what DPDK's
 * rte_rdtsc() is there).
 */
#ifndef INI_LOOP_CLOCK_H
#define INI_LOOP_CLOCK_H

#include <stdint.h>

/* Idle turns between two readings by default. */
#define LOOP_CLOCK_EVERY 8

struct loop_clock {
    uint64_t now;               /* the last reading */
    uint32_t left;              /* turns until the next reading; 0: next turn */
    uint32_t every;             /* idle turns per reading, >= 1 */
};

static inline uint64_t loop_clock_tsc(void)
{
    return __builtin_ia32_rdtsc();
}

/* every >= 1 (0 is taken as 1); the first turn reads. */
static inline void loop_clock_init(struct loop_clock *c, uint32_t every)
{
    c->now = loop_clock_tsc();
    c->left = 0;
    c->every = every ? every : 1;
}

/* True when this turn reads the clock (the policy, apart for tests). */
static inline int loop_clock_due(struct loop_clock *c)
{
    if (c->left == 0) {
        c->left = c->every - 1;
        return 1;
    }
    c->left--;
    return 0;
}

/* The time for a turn starting now. */
static inline uint64_t loop_clock_turn(struct loop_clock *c)
{
    if (loop_clock_due(c))
        c->now = loop_clock_tsc();
    return c->now;
}

/* A turn did work: the next one reads the clock. */
static inline void loop_clock_expire(struct loop_clock *c)
{
    c->left = 0;
}

#endif
