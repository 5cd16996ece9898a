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

#include "clock_sample.h"   /* struct clock_best, clock_sample: NTP's arithmetic */

#define CLOCK_ROUNDS 32
#define CLOCK_REQUEST "clock"       /* head -> part, one line */
#define CLOCK_REPLY   "@@ini clock "  /* part -> head: then its CLOCK_REALTIME in ns */

struct clock_entry {
    char host[256];
    struct clock_best start, end;   /* end.rtt_ns < 0: not measured at the end */
};

/* This host: offset 0. */
void clock_local(struct clock_entry *e);
/* RUN_DIR/clocks.tsv from n entries (a host named twice is written once).
 * 0, or -1 with a reason. */
int clock_write(const char *run_dir, const struct clock_entry *e, int n, char *err, size_t errlen);
/* The same with a line "# NOTE" after the header (NULL: none): how the
 * offsets were measured, which the trace tools print. */
int clock_write_note(const char *run_dir, const struct clock_entry *e, int n, const char *note, char *err,
                     size_t errlen);

/* The INIs' own measurements in place of the channel's (stack/clocksync.h):
 * every RUN_DIR/ini<ID>.clock of the n_inis INIs, host_of_ini[ID] the
 * index into e of that INI's host (-1: unknown).  A reference host R is
 * chosen (the one with the least round trip over the channel, among those
 * with INIs); every host measured over the links gets
 *   offset = R's channel offset + its offset to R over the links,
 * by the path of least total round trip (each link the least round trip
 * between any two INIs of its two hosts, either way), that sum as its
 * round trip, so that its uncertainty bounds its error against R: the error of R's offset to the launcher shifts every
 * host alike and changes no time between hosts.  R's end offset is its
 * start's (the run's clock is R's, shifted once).  A host with no path
 * to R keeps the channel's offset, its round trip the sum of its
 * own and R's.  Returns the hosts put on R's clock over the links (0:
 * nothing changed), with a line for clock_write_note in note. */
int clock_from_inis(const char *run_dir, struct clock_entry *e, int n, const int *host_of_ini, int n_inis,
                    char *note, size_t notelen);
/* A run on this host alone: the file with this host; a failure is
 * reported on stderr (the run goes on; its traces then have no offsets). */
void clock_write_local(const char *run_dir);

#endif
