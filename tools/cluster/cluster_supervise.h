/*
 * cluster_supervise.h - supervised daemons: an INI that dies while its
 * machine's programs run is started again, within a bound.
 *
 * The configuration's `restart = { max = N; window_s = S; }` (config.h
 * struct ini_restart_cfg) bounds it: a daemon that exits abnormally - a
 * signal, or a non-zero status - is started again (launch_restart_daemon:
 * with --resume, its old log kept beside the new) unless it was already
 * restarted N times within the last S seconds; then, and for a daemon that
 * exited with status 0 (it was stopped on purpose) or refused to resume
 * (INI_EXIT_NO_RESUME), the caller stops the machine and names the INI as
 * it always did.  Each decision is one line on stderr and in
 * RUN_DIR/launcher.log, with the cause.
 *
 * The supervisor is the launcher that started the daemons: `run` (on one
 * host) and the per-host part of an ssh or Slurm run.  What a restarted
 * daemon resumes is inid's business (docs/transport.md, "An INI that
 * restarts").
 */
#ifndef CLUSTER_SUPERVISE_H
#define CLUSTER_SUPERVISE_H

#include "cluster_launch.h"

/* d was just found dead (launch_poll_daemons) while the programs run.
 * Returns 1 when it was started again and is READY (the run goes on), 0
 * when the caller stops the machine (launch_report_deaths names it). */
int supervise_restart(struct launch *L, struct daemon *d);

/* Restarts within the last window_s seconds, of the `max` kept in d's
 * ring: what the bound is checked against (for tests: the time is given). */
int supervise_recent(const struct daemon *d, int max, int window_s, int64_t now);

#endif
