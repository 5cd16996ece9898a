/*
 * cluster_clock.h - the run's one clock: the launcher writes
 * RUN_DIR/clocks.tsv, each host's CLOCK_REALTIME offset from the
 * launcher's, so that `ini-trace timeline`, `critical` and `whatif` put the
 * traces of every host on one time line (docs/traces.md, "One clock").
 *
 *   host offset_ns uncertainty_ns at_ns end_offset_ns end_uncertainty_ns end_at_ns
 *
 * one tab-separated line per host after that header: add OFFSET to the
 * host's clock to get the launcher's, as measured at AT (the launcher's
 * CLOCK_REALTIME) with the true offset within +- UNCERTAINTY; the END
 * columns are the same measured again when the host's programs ended (the
 * start's again when that measurement failed), so a reader corrects drift
 * by interpolating between the two.
 *
 * Hosts are named as the launcher names them (the configuration's host,
 * the ssh target, Slurm's node name), not what they call themselves (the
 * lab's namespaces all answer `vm`): each host part passes its name to its
 * daemons and programs in INI_TRACE_HOST, which their traces carry.
 *
 * Measured NTP's way over the head's channel to each host part, a pipe
 * through the ssh or srun connection already open (cluster_remote.h): the
 * head sends "clock", the part answers its CLOCK_REALTIME at once;
 * CLOCK_ROUNDS rounds, the sample with the least round trip kept (its
 * offset assumes the two halves equal, so the error is within half the
 * round trip, the uncertainty written).  Over an open connection a round
 * trip is tens of microseconds on one machine, where a new ssh or srun per
 * sample took 10-400 ms (issue 46).  On one host the file has that host
 * (gethostname) with offset 0.
 */
#ifndef CLUSTER_CLOCK_H
#define CLUSTER_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#define CLOCK_ROUNDS 32
#define CLOCK_REQUEST "clock"       /* head -> part, one line */
#define CLOCK_REPLY   "@@ini clock "  /* part -> head: then its CLOCK_REALTIME in ns */

/* One measurement: the least-delay sample so far (rtt_ns < 0: none). */
struct clock_best {
    int64_t offset_ns, rtt_ns, at_ns;
};

struct clock_entry {
    char host[256];
    struct clock_best start, end;   /* end.rtt_ns < 0: not measured at the end */
};

int64_t clock_realtime_ns(void);
/* Starts a measurement. */
void clock_best_init(struct clock_best *b);
/* One round: the head's clock t0 when it asked, theirs the host's answer,
 * t1 when the answer came; kept if its round trip is the least so far.
 * A sample with t1 < t0 (the head's clock stepped) is passed over. */
void clock_sample(struct clock_best *b, int64_t t0, int64_t theirs, int64_t t1);
/* Half the round trip: the bound on the offset's error. */
int64_t clock_uncertainty_ns(const struct clock_best *b);
/* This host: offset 0. */
void clock_local(struct clock_entry *e);
/* RUN_DIR/clocks.tsv from n entries (a host named twice is written once).
 * 0, or -1 with a reason. */
int clock_write(const char *run_dir, const struct clock_entry *e, int n, char *err, size_t errlen);
/* A run on this host alone: the file with this host; a failure is
 * reported on stderr (the run goes on; its traces then have no offsets). */
void clock_write_local(const char *run_dir);

#endif
