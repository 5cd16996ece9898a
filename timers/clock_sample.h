/*
 * clock_sample.h - one clock offset measured NTP's way: of the rounds
 * "ask, be answered with the other clock, see the answer", the one with
 * the least round trip is kept, its offset assuming the two halves of the
 * trip equal, so the offset's error is at most half that round trip.
 *
 * On the ground floor because two floors measure so: the launcher over its
 * ssh or srun channel to each host (tools/cluster/cluster_clock.h) and the
 * INIs over their own links (stack/clocksync.h), whose round trips are
 * shorter.  The INIs write what they measured to RUN_DIR/ini<ID>.clock, in
 * the format below, and the launcher reads it back.
 */
#ifndef INI_CLOCK_SAMPLE_H
#define INI_CLOCK_SAMPLE_H

#include <stdint.h>
#include <time.h>

/* The least-delay sample so far (rtt_ns < 0: none): add offset_ns to the
 * other clock to get ours, as at at_ns (our clock). */
struct clock_best {
    int64_t offset_ns, rtt_ns, at_ns;
};

static inline int64_t clock_realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void clock_best_init(struct clock_best *b)
{
    *b = (struct clock_best){ 0, -1, 0 };
}

/* One round: our clock t0 when we asked, theirs their answer, t1 ours when
 * the answer came; kept if its round trip is the least so far.  A sample
 * with t1 < t0 (our clock stepped) is passed over. */
static inline void clock_sample(struct clock_best *b, int64_t t0, int64_t theirs, int64_t t1)
{
    int64_t rtt = t1 - t0;
    if (rtt < 0 || (b->rtt_ns >= 0 && rtt >= b->rtt_ns))
        return;
    b->rtt_ns = rtt;
    b->at_ns = t0 + rtt / 2;
    b->offset_ns = b->at_ns - theirs;
}

/* Half the round trip: the bound on the offset's error (0: none kept). */
static inline int64_t clock_uncertainty_ns(const struct clock_best *b)
{
    return b->rtt_ns < 0 ? 0 : (b->rtt_ns + 1) / 2;
}

/* RUN_DIR/ini<ID>.clock, written by an INI that measured its peers: this
 * header, then one tab-separated line per peer INI it measured,
 *   PEER OFFSET_NS RTT_NS AT_NS END_OFFSET_NS END_RTT_NS END_AT_NS
 * OFFSET added to the peer's CLOCK_REALTIME gives the writer's, at AT on
 * the writer's clock; RTT the least round trip; the END columns measured
 * again when the INI stopped (END_RTT -1: not measured then). */
#define CLOCK_INI_FILE_HEADER "peer\toffset_ns\trtt_ns\tat_ns\tend_offset_ns\tend_rtt_ns\tend_at_ns\n"

#endif
