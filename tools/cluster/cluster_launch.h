/*
 * cluster_launch.h - bringing a machine's INI side up and down: the
 * clusters' shared segments, the af_packet network, one inid per INI, the
 * wait until every daemon reports READY in its segment, and the orderly
 * stop.  Used by `ini-cluster run` (daemons are children of the launcher)
 * and by `ini-cluster up/status/down` (daemons are detached and recorded in
 * RUN_DIR/state, so that a later invocation can find and stop them).
 *
 * Every step records what it made in struct launch, and launch_teardown()
 * undoes exactly that, whatever step failed.
 */
#ifndef CLUSTER_LAUNCH_H
#define CLUSTER_LAUNCH_H

#include <limits.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

#include "config.h"
#include "segment.h"

#define LAUNCH_TAG_LEN      16
#define LAUNCH_MAX_FAULTS   16
#define LAUNCH_READY_MS     30000   /* daemons must be READY within this */
#define LAUNCH_READY_PER_DAEMON_MS 500  /* and this more per daemon: each EAL start costs ~0.5 s of a core */
#define LAUNCH_STOP_MS      10000   /* daemons get this long to stop on SIGTERM */
#define LAUNCH_LOG_TAIL     12      /* log lines quoted when a daemon dies */

/* Options handed through to every inid (NULL / 0: not given). */
struct daemon_opts {
    const char *policy, *ini_policy, *idle, *trace;
    const char *faults[LAUNCH_MAX_FAULTS];
    int n_faults;
    const char *knobs;         /* --knob SPEC, also given to programs as INI_KNOBS */
    int capture;               /* --capture: each inid writes RUN_DIR/ini<ID>.pcapng */
    const char *capture_limit, *capture_ring, *capture_snap;   /* --capture-limit ... (checked) */
    const char *segment;       /* --segment on|off: stack.segmentation for the run */
    char *eal_args[INI_MAX_EAL_ARGS];   /* --eal "ARGS": after inid's "--", to its EAL */
    int n_eal_args;
};

struct daemon {
    int ini, cluster, index;   /* global INI id, its cluster, index within it */
    pid_t pid;                 /* 0: not started */
    int own_child;             /* started by this process (waitpid works) */
    int running;               /* started and not yet seen dead */
    int wstatus;               /* wait status once reaped (own children) */
    char log[PATH_MAX];
    /* Supervision (cluster_supervise.h): restarts so far, and when the
     * last restart.max of them happened (ms, now_ms()), a ring. */
    int restarts;
    int64_t restart_ms[INI_RESTART_MAX_LIMIT];
};

struct launch {
    const struct ini_config *cfg;
    char config_path[PATH_MAX];     /* absolute */
    char run_dir[PATH_MAX];         /* absolute */
    char tag[LAUNCH_TAG_LEN];
    char inid_path[PATH_MAX];
    int selected[INI_MAX_CLUSTERS]; /* clusters brought up */
    int af_packet;
    int link_slack;                 /* bytes a frame carries past the MTU (virtual time's stamp) */
    int net_up;
    struct {
        char name[64];
        struct ini_segment *seg;   /* mapped by this process, or NULL */
        int created;               /* to unlink at teardown */
    } segs[INI_MAX_CLUSTERS];
    int n_daemons;
    struct daemon daemons[INI_MAX_INIS];
    /* How the daemons were started (launch_start_daemons), to start one
     * again the same way (launch_restart_daemon). */
    const struct daemon_opts *opts;
    int detach;
    /* `up`: the process that supervises the daemons (cluster_supervise.h),
     * recorded in RUN_DIR/state; 0 under `run` and for a state without one. */
    pid_t supervisor;
};

/* Set by the launcher's SIGINT/SIGTERM/SIGHUP handler; long waits give up
 * when it becomes non-zero. */
extern volatile sig_atomic_t launch_stop_signal;

/* Fills the fixed part; selected == NULL selects every cluster. */
void launch_init(struct launch *L, const struct ini_config *cfg, const char *config_path,
                 const char *run_dir, const char *tag, const char *inid_path, const int *selected);

/* Segments of the selected clusters, then (af_packet) the network.
 * -1 with a one-line reason in err. */
int launch_create_segments(struct launch *L, char *err, size_t errlen);
int launch_network_up(struct launch *L, char *err, size_t errlen);

/* Starts one inid per INI of the selected clusters, output to
 * RUN_DIR/ini<ID>.log; detach for `up`.  -1 with a reason in err (what
 * started keeps running: call launch_teardown). */
int launch_start_daemons(struct launch *L, const struct daemon_opts *o, int detach,
                         char *err, size_t errlen);

/* Starts daemon d again as launch_start_daemons did, with --resume, after
 * it died: its segment state is reset (so that READY means the new one),
 * its old log kept as LOG.N (N: its restarts before this one), a DPDK
 * runtime directory it left removed.  0, or -1 with a reason in err. */
int launch_restart_daemon(struct launch *L, struct daemon *d, char *err, size_t errlen);

/* Waits until daemon d's segment state is READY: 0; -1 when it died
 * first or did not within timeout_ms (nothing reported: the caller does). */
int launch_wait_one_ready(struct launch *L, struct daemon *d, int timeout_ms);

/* Waits until every daemon's segment state is READY (timeout_ms plus
 * LAUNCH_READY_PER_DAEMON_MS per daemon).  Returns 0; -1 after
 * printing which daemon died or timed out (with its log's last lines); or
 * the signal number when launch_stop_signal interrupted the wait. */
int launch_wait_ready(struct launch *L, int timeout_ms);

/* Shows on stderr, as "ini-cluster: LINE", every line of the daemons' logs
 * that says "warning:" (e.g. a PCI device without hugepages): what a
 * daemon warns about at start is not left in a log nobody reads. */
void launch_show_warnings(const struct launch *L);

/* Reaps own children without blocking; returns the first daemon found dead
 * since the last call, or NULL. */
struct daemon *launch_poll_daemons(struct launch *L);

/* Prints "ini-cluster: inid N (cluster C) WHAT; see LOG" and the log's
 * last lines to stderr.  WHAT is e.g. "exited with status 1 before ready". */
void launch_report_daemon(const struct launch *L, const struct daemon *d, const char *what);

/* Reports `first`, found dead, and every daemon that died with it within
 * a moment, the crashed or failed ones first: "inid N (cluster C) exited
 * with status S WHEN; see LOG" and each log's last lines. */
void launch_report_deaths(struct launch *L, struct daemon *first, const char *when);

/* SIGTERM to every running daemon, up to grace_ms for them to go, then
 * SIGKILL (said on stderr).  Returns how many daemons ended badly: killed,
 * crashed, or exited non-zero (each reported). */
int launch_stop_daemons(struct launch *L, int grace_ms);

/* Stops daemons still running (SIGKILL: this is the failure path), unlinks
 * the segments made, removes the DPDK runtime directories killed daemons
 * left and the network.  Idempotent. */
void launch_teardown(struct launch *L);

/* One line per INI from RUN_DIR/ini<ID>.counters.json, if the daemon
 * wrote one. */
void launch_print_counters(const struct launch *L, FILE *out);

/* RUN_DIR/state: what `down` and `status` need to find the daemons, and
 * each one's restarts so far (down's summary says them). */
int launch_write_state(const struct launch *L, char *err, size_t errlen);
/* Reads RUN_DIR/state into L (cfg must already be loaded).  -1 with reason
 * if absent or unreadable (errno ENOENT when absent). */
int launch_read_state(struct launch *L, const struct ini_config *cfg, const char *run_dir,
                      char *err, size_t errlen);

#endif
