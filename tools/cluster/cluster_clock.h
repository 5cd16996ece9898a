/*
 * cluster_clock.h - the run's one clock: at the start of a run the
 * launcher writes RUN_DIR/clocks.tsv, each host's CLOCK_REALTIME offset
 * from the launcher's, so that `ini-trace timeline` and the replay put the
 * traces of every host on one time line (docs/traces.md, "One clock").
 *
 *   host<TAB>offset_ns<TAB>rtt_ns      header line
 *   NAME<TAB>OFFSET<TAB>RTT            one line per host: add OFFSET to the
 *                                      host's clock to get the launcher's;
 *                                      RTT bounds the error (+- RTT / 2)
 *
 * Host names are what each host calls itself (gethostname), the name its
 * traces carry.  On one host the file has that host with offset 0.  Across
 * hosts each host is asked CLOCK_MEASURE_SAMPLES times, over the run's own
 * way of reaching it (ssh or srun), for its name and clock; the sample with
 * the least round trip gives the offset, as Cristian's algorithm does.
 */
#ifndef CLUSTER_CLOCK_H
#define CLUSTER_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#define CLOCK_MEASURE_SAMPLES 5
/* What a host is asked to run (argv of the part's command). */
extern char *const clock_probe_argv[];

struct clock_entry {
    char host[256];
    int64_t offset_ns, rtt_ns;
};

/* Runs argv (a command that reaches the host and runs clock_probe_argv)
 * CLOCK_MEASURE_SAMPLES times; 0 with e filled, or -1 with a reason. */
int clock_measure(char *const *argv, struct clock_entry *e, char *err, size_t errlen);
/* This host: offset 0. */
void clock_local(struct clock_entry *e);
/* RUN_DIR/clocks.tsv from n entries (a host named twice is written once).
 * 0, or -1 with a reason. */
int clock_write(const char *run_dir, const struct clock_entry *e, int n, char *err, size_t errlen);
/* A run on this host alone: the file with this host; a failure is
 * reported on stderr (the run goes on; its traces then have no offsets). */
void clock_write_local(const char *run_dir);

#endif
