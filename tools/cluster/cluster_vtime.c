/*
 * cluster_vtime.c - the launcher's side of the virtual-time mode
 * (cluster_vtime.h).
 */
#include "cluster_vtime.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cli.h"
#include "vt_cost.h"
#include "vt_shm.h"

int vtime_option(struct vtime_opts *o, const char *name, const char *value)
{
    if (!strcmp(name, "--time")) {
        if (strcmp(value, "real") && strcmp(value, "virtual"))
            cli_bad_arg("--time: '%s' is not a time mode (real, virtual)", value);
        o->virtual_time = !strcmp(value, "virtual");
    } else if (!strcmp(name, "--vt-costs")) {
        struct ini_vt_costs c;
        if (ini_vt_costs_named(value, &c) < 0)
            cli_bad_arg("--vt-costs: '%s' is not a cost set (" INI_VT_COST_SETS ")", value);
        o->costs = value;
    } else if (!strcmp(name, "--vt-compute")) {
        if (strcmp(value, "declared") && strcmp(value, "measured"))
            cli_bad_arg("--vt-compute: '%s' is not declared or measured", value);
        o->compute = value;
    } else if (!strcmp(name, "--vt-k") || !strcmp(name, "--vt-hz")) {
        char *end;
        double v = strtod(value, &end);
        if (*end || !(v > 0 && v <= 1e12))
            cli_bad_arg("%s: '%s' is not a positive number", name, value);
        *(strcmp(name, "--vt-k") ? &o->hz : &o->k) = value;
    } else {
        return 0;
    }
    return 1;
}

int vtime_start(struct vtime_run *r, const struct vtime_opts *o, const struct ini_config *cfg, const char *tag,
                char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (!o->virtual_time)
        return 0;
    struct ini_vt_costs c;
    ini_vt_costs_named(o->costs ? o->costs : "thesis", &c);
    uint64_t hz = o->hz ? (uint64_t)strtod(o->hz, NULL) : INI_VT_HZ_DEFAULT;
    snprintf(r->name, sizeof r->name, "/ini-%s-vt", tag);
    r->n_pes = cfg->n_pes;
    r->n_inis = cfg->n_inis;
    r->m = ini_vt_shm_create(r->name, cfg->n_pes, cfg->n_inis, hz, &c, err, errlen);
    if (!r->m)
        return -1;
    setenv(INI_VT_ENV, r->name, 1);
    setenv(INI_VT_COSTS_ENV, c.name, 1);
    setenv("INI_VT_COMPUTE", o->compute ? o->compute : "declared", 1);
    setenv("INI_VT_K", o->k ? o->k : "1", 1);
    return 0;
}

void vtime_programs_ended(struct vtime_run *r)
{
    if (!r->m)
        return;
    for (int p = 0; p < r->n_pes; p++)
        if (atomic_load(&r->m->slots[ini_vt_pe_slot(p)].state) != INI_VT_DONE)
            ini_vt_done(r->m, ini_vt_pe_slot(p));
}

/* The run's virtual time: the latest clock of a compute node. */
static uint64_t end_time(const struct vtime_run *r)
{
    uint64_t end = 0;
    for (int p = 0; p < r->n_pes; p++) {
        uint64_t c = atomic_load(&r->m->slots[ini_vt_pe_slot(p)].clock);
        if (c > end)
            end = c;
    }
    return end;
}

/* RUN_DIR/vtime.json: the run's time, and each processor's clock, turns
 * and busy cycles (its work: an INI's service, a node's handlers), from
 * which its utilization is busy / cycles. */
static void write_json(const struct ini_vt_machine *m, const char *run_dir, uint64_t end, uint64_t events,
                       const char *why)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/vtime.json", run_dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "{\"cycles\": %llu, \"hz\": %llu, \"seconds\": %.9f, \"events\": %llu, \"handovers\": %llu, "
               "\"why\": \"%s\", \"slots\": [",
            (unsigned long long)end, (unsigned long long)m->hz, (double)end / (double)m->hz,
            (unsigned long long)events, (unsigned long long)m->handovers, why);
    for (uint32_t s = 0; s < m->n_slots; s++) {
        const struct ini_vt_slot *x = &m->slots[s];
        fprintf(f, "%s\n  {\"name\": \"%s\", \"clock\": %llu, \"events\": %llu, \"busy\": %llu}", s ? "," : "",
                x->name, (unsigned long long)atomic_load(&x->clock), (unsigned long long)x->events,
                (unsigned long long)x->busy);
    }
    fprintf(f, "\n]}\n");
    fclose(f);
}

int vtime_finish(struct vtime_run *r, const char *run_dir, FILE *out)
{
    if (!r->m)
        return 0;
    uint64_t end = end_time(r), events = 0;
    for (uint32_t s = 0; s < r->m->n_slots; s++)
        events += r->m->slots[s].events;
    const char *why = ini_vt_why(r->m);
    int all_done = 1;            /* every compute node ended: the run did, whatever the INIs wait for */
    for (int p = 0; p < r->n_pes; p++)
        all_done &= atomic_load(&r->m->slots[ini_vt_pe_slot(p)].state) == INI_VT_DONE;
    if (all_done && strstr(why, "nothing is due"))
        why = "";
    double secs = (double)end / (double)r->m->hz;
    fprintf(out, "virtual time: %llu cycles (%.6f s at %.0f MHz), %llu events, %llu hand-overs%s%s\n",
            (unsigned long long)end, secs, (double)r->m->hz / 1e6, (unsigned long long)events,
            (unsigned long long)r->m->handovers, *why ? "; stopped: " : "", why);
    write_json(r->m, run_dir, end, events, why);
    int stopped = *why != 0;       /* why lives in the machine: read before the unmap */
    ini_vt_shm_detach(r->m);
    shm_unlink(r->name);
    r->m = NULL;
    return stopped;
}
