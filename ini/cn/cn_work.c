/*
 * cn_work.c - compute bursts (ini_cn.h, ini_work_begin/ini_work_end):
 * the computing a node does between two communication calls, and today
 * its uniform dilation (docs/experiments.md).
 *
 * The rule is ini/util/clock.h's ini_dilate_until, the one MGS's compute
 * threads follow (mgs/mgs_dilate.c): a burst that used c ns of its
 * thread's CPU ends K * c after it began, on the monotonic clock; time the
 * thread spent waiting for a core counts toward that end instead of adding
 * to it.  The CPU clock is a system call, so it is read once at each end
 * of a burst, and not at all when K = 1.
 *
 * Why a burst API and not "dilate": the two calls mark where the node
 * computes, whatever the clock.  A virtual-time mode will charge the burst
 * there (its measured CPU time times K, or a length the program declares)
 * to the node's clock instead of sleeping it out, as SMPI charges the
 * computing between two MPI calls; the programs keep their calls.
 *
 * Also here: the dilation factor's reading (MGS_DILATE, else the `dilate`
 * knob), and the set-up of the barrier's state (cn_sync.h), both at attach.
 */
#include "cn_sync.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include "clock.h"

int ini_cn_sync_dilation(struct cn_sync *s, double knob, char *err, size_t errlen)
{
    const char *v = getenv("MGS_DILATE");
    s->dilate = knob >= 1.0 ? knob : 1.0;
    if (v && *v) {
        char *end;
        s->dilate = strtod(v, &end);
        if (*end || !(s->dilate >= 1.0 && s->dilate <= 1000.0)) {
            snprintf(err, errlen, "MGS_DILATE=%s: expected a factor from 1 to 1000", v);
            return -1;
        }
    }
    if (s->dilate > 1.0 && !s->clock_cost_ns)
        s->clock_cost_ns = ini_thread_clock_cost_ns();
    return 0;
}

int ini_cn_sync_init(struct cn_sync *s, const struct ini_config *cfg, int cluster, char *err, size_t errlen)
{
    s->cluster = cluster;
    s->n_local = cfg->clusters[cluster].n_pes;
    s->n_clusters = cfg->n_clusters;
    for (int c = 0; c < cfg->n_clusters; c++)
        s->leader[c] = cfg->clusters[c].pes[0];
    atomic_init(&s->count, 0);
    atomic_init(&s->gen, 0);
    atomic_init(&s->last_arrival, 0);
    atomic_init(&s->release, 0);
    atomic_init(&s->next_action, 1);
    atomic_init(&s->next_req, 1);
    return ini_cn_sync_dilation(s, cfg->knobs.dilate, err, errlen);
}

double ini_cn_dilation(const struct ini_cn *cn)
{
    return ini_cn_sync((struct ini_cn *)cn)->dilate;
}

void ini_work_begin(struct ini_pe *pe)
{
    const struct cn_sync *s = ini_cn_sync(ini_pe_cn(pe));
    if (s->dilate > 1.0) {
        struct pe_sync *w = ini_pe_sync(pe);
        w->work_cpu0 = ini_thread_cpu_ns();
        w->work_wall0 = ini_mono_ns();
    }
}

void ini_work_end(struct ini_pe *pe)
{
    const struct cn_sync *s = ini_cn_sync(ini_pe_cn(pe));
    if (s->dilate <= 1.0)
        return;
    const struct pe_sync *w = ini_pe_sync(pe);
    uint64_t cpu;
    uint64_t until = ini_dilate_until(s->dilate, s->clock_cost_ns, w->work_cpu0, w->work_wall0, &cpu);
    if (ini_mono_ns() < until) {
        /* The program's thread: its sleeps end when asked, not up to the
         * kernel's default 50 us later.  Inside the burst's deadline. */
        prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
        ini_sleep_until_ns(until);
    }
}
