/*
 * cluster_reap.h - nothing of a run outlives it, even what escaped.
 *
 * Two leaks the process-group cleanup of ini-cluster cannot see:
 *
 *   - a program's child that starts its own session (setsid, a daemon
 *     double-fork) leaves the program's process group.  The launcher is a
 *     child subreaper (prctl PR_SET_CHILD_SUBREAPER): such a process,
 *     orphaned, becomes the launcher's child instead of init's, and at the
 *     end of the run every child the launcher still has is one of these:
 *     reap_descendants() ends them (SIGTERM, then SIGKILL) and reaps them,
 *     round after round, since a dying one may orphan children of its own.
 *   - a launcher killed with SIGKILL cannot delete its af_packet network
 *     namespaces (and, if its daemons died with it, its segments, the
 *     doorbell FIFOs they made in /tmp and their DPDK runtime directories,
 *     which a daemon removes only when it exits by itself).  Their names
 *     carry the run tag, the launcher's pid in hex (optionally plus one
 *     letter).
 *     cleanup_stale_runs() removes the namespaces, segments and FIFOs of
 *     every tag whose pid is not a live process (of any name:
 *     a reused pid delays the cleanup, never harms a live run) and whose
 *     daemons are gone too (no process has `--tag TAG` on its command line, so an `up`
 *     machine, whose launcher exited on purpose, is left alone).  `run`
 *     and `up` call it before they create anything, and `ini-cluster
 *     cleanup` on demand.
 */
#ifndef CLUSTER_REAP_H
#define CLUSTER_REAP_H

#include <stdio.h>

/* Makes the calling process a child subreaper; 0 or -1 (errno). */
int become_subreaper(void);

/* Ends and reaps every child the calling process still has: SIGTERM, then
 * SIGKILL after grace_ms.  Returns how many it found. */
int reap_descendants(int grace_ms);

/* Removes what runs with a dead launcher and no live daemon left: network
 * namespaces ini-TAG-* (when /var/run/netns exists and we may), segments
 * /dev/shm/ini-TAG-c* and state regions /dev/shm/ini-TAG-iN, doorbell FIFOs /tmp/ini-TAG-N.wake and DPDK runtime
 * directories RUNTIME/dpdk/ini-TAG-N (cluster_telemetry.h: RUNTIME is
 * /var/run for root).  One line per tag cleaned on `out` (may be NULL),
 * naming what was removed.  Returns the number of tags cleaned: tags of
 * which something was removed. */
int cleanup_stale_runs(FILE *out);

/* Removes the DPDK runtime directory of INI `ini` of the run `tag`, if
 * any: a daemon killed with SIGKILL leaves it.  The launcher calls it for
 * each of its daemons once they are all stopped.  1 if it was there. */
int reap_runtime_dir(const char *tag, int ini);

#endif
