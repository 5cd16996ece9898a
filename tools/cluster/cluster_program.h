/*
 * cluster_program.h - the launcher's contract with the programs it runs,
 * one per cluster, written once for `run` on one host, `run` across hosts
 * (each host part, cluster_remote.c) and `up` (which starts no program but
 * writes the environment a program needs).
 *
 * The environment, read by libini's ini_cn_attach_env (docs/api.md):
 *
 *   INI_CLUSTER     the program's cluster
 *   INI_CONFIG      the configuration, an absolute path
 *   INI_SEGMENT     the cluster's shared segment
 *   INI_RUN_DIR     the run directory, absolute
 *   INI_TAG         the run's tag
 *   INI_POLICY, INI_INI_POLICY, INI_KNOBS
 *                   --policy, --ini-policy and --knob, when given
 *   INI_TRACE       --trace, when given: the compute nodes trace too
 *                   (ini/trace/trace_cn.h)
 *
 * A program's stdout and stderr go to RUN_DIR/cluster<C>.out and .err.
 * Its stdin is the launcher's for cluster 0 of a run on one host (so that
 * `ini-cluster run CONFIG -- water --mgs < input` works), /dev/null
 * otherwise: across hosts a part's stdin is the head's control channel
 * (cluster_remote.h).  Each program leads its own process group and gets
 * SIGTERM if its launcher dies.
 */
#ifndef CLUSTER_PROGRAM_H
#define CLUSTER_PROGRAM_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cluster_launch.h"

#define PROGRAM_STOP_MS   2000    /* programs get this long after SIGTERM */
#define OTHERS_GRACE_MS   10000   /* after one program fails, the others get this long */
#define PROGRAM_ENV_MAX   9

/* The environment of one cluster's program. */
struct program_env {
    int n;
    char entry[PROGRAM_ENV_MAX][PATH_MAX + 32];  /* "NAME=VALUE" */
    int number[PROGRAM_ENV_MAX];                 /* VALUE is a number (the cluster) */
    char *envp[PROGRAM_ENV_MAX + 1];             /* the entries, NULL-terminated */
};

/* The environment of cluster c's program in the launch L, with the
 * options d given to its daemons. */
void program_env(struct program_env *e, const struct launch *L, const struct daemon_opts *d, int c);
/* The same as one shell line, "export INI_CLUSTER=C INI_CONFIG='...' ...",
 * each value single-quoted but for the cluster's number. */
void program_env_line(const struct program_env *e, char *buf, size_t len);

struct program {
    int cluster;
    pid_t pid;
    int running;
    int wstatus;
    char out[PATH_MAX + 32], err[PATH_MAX + 32];
};

/* Starts argv as cluster c's program of the launch L (the contract above;
 * keep_stdin: cluster 0 of a run on one host).  0, or -1 with a one-line
 * reason in err. */
int program_start(struct program *p, const struct launch *L, const struct daemon_opts *d, int c,
                  char *const *argv, int keep_stdin, char *err, size_t errlen);

/* Reaps the programs that ended since the last call, saying on stderr how
 * each that failed ended.  The first failure's exit status goes to
 * *exit_code (when it is still 0), and *others_deadline is set to
 * OTHERS_GRACE_MS from then, for the programs still running.  Returns how
 * many ended. */
int programs_poll(struct program *p, int n, int *exit_code, int64_t *others_deadline);

/* SIGTERM to every running program's process group, up to
 * PROGRAM_STOP_MS for them to exit, then SIGKILL; all of them reaped. */
void programs_stop(struct program *p, int n);

/* A program that exited may have left children behind (`cmd &`) in its
 * process group: SIGTERM to what is left of every group, a grace period,
 * then SIGKILL (said on stderr), so that nothing a program started
 * outlives the run. */
void programs_end_groups(const struct program *p, int n);

#endif
