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
 * host), the per-host part of an ssh or Slurm run, and for `up` a process
 * of its own.  `up` forks it before anything is made: it brings the
 * machine up (so the daemons are its children and their wait status
 * tells how they died), writes RUN_DIR/state with its pid, tells `up` that
 * the machine is ready, and then watches the daemons (supervise_up) until
 * `down` ends it (supervise_up_stop) - detached, in a session of its own,
 * its output in RUN_DIR/supervisor.log, named ini-sv-TAG (its comm, which
 * `status` and `down` check before they believe the state's pid).  What a
 * restarted daemon resumes is inid's business (docs/transport.md, "An INI
 * that restarts").
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

/* ---- `up`'s supervisor ---- */

/* ini-sv-TAG, the supervisor's process name (comm: 15 characters at
 * most; a tag is a pid in hex, 7 at most): how `status`, `down` and
 * `cleanup` know it. */
#define SUPERVISE_NAME_LEN 16
void supervise_name(char *buf, size_t len, const char *tag);

/* Makes this process `up`'s supervisor of L: its own session, named
 * ini-sv-TAG, L->supervisor its pid.  Called in the child `up` forked,
 * before the bring-up. */
void supervise_up_become(struct launch *L);

/* Once the machine is up and RUN_DIR/state written: stdin from /dev/null,
 * stdout and stderr to RUN_DIR/supervisor.log (so that `up`'s caller, a
 * shell's pipe or ssh, is not held open). */
void supervise_up_detach_output(const struct launch *L);

/* Watches L's daemons until a signal (launch_stop_signal: `down`) ends it,
 * returning 0 and leaving the daemons to `down`.  A daemon that dies is
 * restarted within the bound (supervise_restart; RUN_DIR/state then names
 * its new pid); one that is not restarted is reported and every daemon
 * stopped (the segments and the state stay for `down`): returns 1. */
int supervise_up(struct launch *L);

/* Is L->supervisor (read from RUN_DIR/state) the live supervisor of L's
 * run?  Its comm must be ini-sv-TAG: a reused pid is not ours. */
int supervise_up_alive(const struct launch *L);

/* `down`: SIGTERM to the supervisor, and up to grace_ms for it to go
 * (then SIGKILL), so that nobody restarts the daemons `down` stops. */
void supervise_up_stop(const struct launch *L, int grace_ms);

#endif
