/*
 * cluster_vtime.h - `ini-cluster run --time virtual`: the run's emulated
 * machine (ini/vtime/vt_shm.h) made before the daemons start, named to
 * them and to the programs in the environment, read for the run's
 * summary, and removed at the end.
 *
 * Flags (run only, one host):
 *   --time real|virtual       real (the default) is the real-time mode, or
 *                             dilation when the `dilate` knob is set
 *   --vt-costs NAME           the cost set (vt_cost.h): thesis (the default), stack
 *   --vt-compute declared|measured, --vt-k K   a node's bursts (cn_vtime.h)
 *   --vt-hz HZ                the emulated clock rate (20000000)
 * The summary: the run's virtual time (the latest compute node's clock
 * when it ended), in cycles and emulated seconds, and how it stopped; also
 * RUN_DIR/vtime.json.
 */
#ifndef INI_CLUSTER_VTIME_H
#define INI_CLUSTER_VTIME_H

#include <stdio.h>

#include "config.h"
#include "vt_machine.h"

struct vtime_opts {
    int virtual_time;
    const char *costs, *compute, *k, *hz;
};

struct vtime_run {
    struct ini_vt_machine *m;     /* NULL: not a virtual run */
    char name[96];
    int n_pes, n_inis;
};

/* A --time/--vt-* flag (name, its value): 1 taken, 0 not one of ours;
 * a bad value exits 2 naming the flag. */
int vtime_option(struct vtime_opts *o, const char *name, const char *value);

/* Makes the machine of a run with tag `tag` and sets the environment the
 * daemons and programs inherit.  0 (also when not virtual), or -1 with a
 * one-line reason in err. */
int vtime_start(struct vtime_run *r, const struct vtime_opts *o, const struct ini_config *cfg, const char *tag,
                char *err, size_t errlen);

/* The programs have exited: their compute nodes (those that never
 * started too) leave the machine, so that INIs waiting for them are told
 * it stopped and can see their own stop. */
void vtime_programs_ended(struct vtime_run *r);

/* The summary line on out, RUN_DIR/vtime.json; then the machine is
 * removed.  1 when it stopped early (a deadlock, a causality violation:
 * the run failed), else 0. */
int vtime_finish(struct vtime_run *r, const char *run_dir, FILE *out);

#endif
