/*
 * fake_service.c - the stand-in's INI service: O and the trace
 * (fake_service.h).
 */
#include "fake_service.h"
#include "clock.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>

#include "cli.h"

/* The TSC's rate, against the monotonic clock over 10 ms (no DPDK here). */
static uint64_t tsc_rate(void)
{
    uint64_t n0 = ini_mono_ns(), t0 = rte_rdtsc();
    while (ini_mono_ns() - n0 < 10000000)
        ;
    return (uint64_t)((double)(rte_rdtsc() - t0) * 1e9 / (double)(ini_mono_ns() - n0));
}

int fake_service_init(struct fake_service *s, const struct ini_config *cfg, const struct ini_node_cfg *me,
                      const char *knob, const char *trace, const char *pe_policy, const char *ini_policy)
{
    struct ini_knobs k = cfg->knobs;
    char err[256];
    memset(s, 0, sizeof *s);
    if (knob && ini_knobs_parse(knob, &k, err, sizeof err) < 0)
        cli_bad_arg("--knob: %s", err);
    enum ini_trace_mode mode = cfg->trace.mode;
    if (trace)
        mode = (enum ini_trace_mode)cli_parse_choice("--trace", trace, ini_trace_mode_names);
    s->on = k.O_us > 0 || mode != INI_TRACE_OFF;
    if (!s->on)
        return 0;
    s->tsc_hz = tsc_rate();
    inid_knobs_init(&s->knobs, &k, s->tsc_hz, me->id);
    if (s->knobs.O && s->knobs.O_sleep) {
        /* as inid with O asleep (ini/daemon/inid.c): sleeps end when asked, and a
         * waking stand-in takes a core at once */
        prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
        if (setpriority(PRIO_PROCESS, 0, -15) != 0)
            fprintf(stderr, "fake-inid %d: O in sleep mode at normal priority (%s)\n", me->id, strerror(errno));
    }
    if (ini_trace_init(&s->trace, mode, (uint32_t)cfg->trace.records, me->id, me->cluster, s->tsc_hz) < 0) {
        fprintf(stderr, "fake-inid %d: cannot allocate %d trace records\n", me->id, cfg->trace.records);
        return -1;
    }
    ini_trace_set_cluster(&s->trace, me->index, cfg->clusters[me->cluster].n_inis, cfg->clusters[me->cluster].n_pes);
    int pp = pe_policy ? ini_policy_parse(pe_policy) : (int)cfg->pe_policy;
    int ip = ini_policy ? ini_policy_parse(ini_policy) : (int)cfg->ini_policy;
    ini_trace_set_policies(&s->trace, pp, ip);
    ini_trace_run_start(&s->trace, rte_rdtsc());
    return 0;
}

void fake_service_record(struct fake_service *s, int kind, const struct ini_am_hdr *h, int peer, uint64_t arrive,
                         uint64_t begun, uint32_t qlen)
{
    if (!s->on)
        return;
    struct ini_trace_rec *r = ini_trace_begin(&s->trace, (enum ini_trace_kind)kind, arrive, qlen);
    ini_trace_set_msg(r, h->src_pe, h->dst_pe, (uint16_t)peer, h->len);
    ini_trace_stamp(&s->trace, r, INI_TS_DEQUEUE, begun);
    ini_trace_commit(&s->trace, r, r ? rte_rdtsc() : 0);
}

void fake_service_end(struct fake_service *s, const char *run_dir, int id)
{
    if (!s->on)
        return;
    ini_trace_run_end(&s->trace, rte_rdtsc());
    char path[INI_PATH_LEN + 64];
    snprintf(path, sizeof path, "%s/ini%d.trace", run_dir, id);
    if (s->trace.mode != INI_TRACE_OFF && ini_trace_write(&s->trace, path) < 0)
        fprintf(stderr, "fake-inid %d: cannot write %s: %s\n", id, path, strerror(errno));
    ini_trace_free(&s->trace);
}
