/*
 * cluster_remote.h - a machine whose clusters live on several hosts,
 * launched the way mpirun does: one "host part" per host, started over
 * OpenSSH or by Slurm's srun, each bringing up its clusters' segments and
 * daemons and running the program once per cluster.
 *
 * The head (`ini-cluster run` where the user typed it) and each host part
 * (`ini-cluster host-run`, started by the head) talk through the part's
 * standard streams:
 *
 *   part -> head, stdout   the programs' stdout lines, "[cC] " in front,
 *                          and the control lines "@@ini ready" once every
 *                          daemon of the part is READY, "@@ini clock NS"
 *                          answering "clock", "@@ini end" once its
 *                          programs ended well
 *   part -> head, stderr   the programs' stderr lines ("[cC] ") and the
 *                          part's own messages ("ini-cluster: ..."), which
 *                          the head shows as "ini-cluster: host H: ..."
 *   head -> part, stdin    first "secrets EPOCH KEY" (hex; cluster_secret.h);
 *                          "clock" (answered at once with the part's
 *                          CLOCK_REALTIME: cluster_clock.h), 32 times once
 *                          every part is ready and again after its "end";
 *                          "go" once every part is ready and its clock
 *                          measured (so no program sends before every INI
 *                          can receive); end of
 *                          file means "stop": the part stops its programs
 *                          and daemons, cleans up and exits.  That also
 *                          covers a head that died or a dropped ssh
 *                          connection.
 *
 * A part that exits non-zero stops the run: the head closes every other
 * part's stdin, gives them LAUNCH_STOP_MS + 10 s to clean up, then ends
 * the ssh or srun processes.  The head's exit status is the first
 * failing part's (the same rules as a single-host run), 124 on --timeout,
 * 128 + N on signal N.
 *
 * Across hosts the programs read /dev/null (use a program's --input FILE,
 * with the same path on every host) and the configuration, run directory,
 * program and ini-cluster have the same absolute paths on every host,
 * unless --remote-launcher names ini-cluster's path there.
 */
#ifndef CLUSTER_REMOTE_H
#define CLUSTER_REMOTE_H

#include "cluster_launch.h"
#include "config.h"

enum remote_engine { ENGINE_LOCAL, ENGINE_SSH, ENGINE_SLURM };

struct remote_opts {
    const char *config;            /* absolute */
    const char *run_dir;           /* absolute */
    const struct daemon_opts *daemon;
    const char *inid;              /* --inid PATH, or NULL */
    const char *eal;               /* --eal "ARGS", or NULL */
    const char *ssh;               /* --ssh "CMD ARGS" (default $INI_SSH, else "ssh") */
    const char *remote_launcher;   /* ini-cluster on the hosts (default: our own path) */
    long timeout_s;
    char **program;                /* NULL-terminated */
};

/* The engine `run` uses: `--launch` (local, ssh, slurm) when given, else
 * slurm inside an allocation of 2 or more nodes (SLURM_JOB_NODELIST) when
 * the mode can span hosts, ssh when the configuration names hosts, local
 * otherwise.  Exits with status 2 on a bad --launch. */
enum remote_engine remote_pick_engine(const struct ini_config *cfg, const char *launch);

/* `run` across hosts (ssh or slurm); returns the exit status. */
int remote_run(const struct ini_config *cfg, enum remote_engine engine, const struct remote_opts *o);

/* `ini-cluster host-run`: the part of a run on one host, for the clusters
 * of `clusters` ("0,2"), under the head's tag; returns the exit status. */
int remote_host_part(const struct ini_config *cfg, const struct remote_opts *o, const char *clusters,
                     const char *tag, const char *host);

/* up / status / down across hosts: the same command on every host of the
 * configuration, for that host's clusters, in RUN_DIR/host-NAME; cmd is
 * "up", "status" or "down".  Returns the worst exit status. */
int remote_each_host(const struct ini_config *cfg, const char *cmd, const struct remote_opts *o);

#endif
