/*
 * config_spec.c - the fault and knob specifications (config.h): a flag's
 * "key=value,..." (inid and ini-cluster --fault and --knob) and a file's
 * faults = { ... } and knobs = { ... } groups go through the same setter
 * per name, so that both accept exactly the same names and values.  The
 * groups' reader is here too (cfg_load_kv_group, cfg_load_faults), called
 * by pass 2's top-level groups (config_groups.c) and by its INIs
 * (config_machine.c): calls go from those two down to this file, and from
 * config_groups.c to config_machine.c, never back.
 */
#include "config_internal.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ini_fault_defaults(struct ini_fault_cfg *f)
{
    memset(f, 0, sizeof *f);
    f->reorder_depth = 3;
    f->delay_us = 200;
    f->seed = 1;
}

int cfg_fault_enabled(const struct ini_fault_cfg *f)
{
    return f->drop > 0 || f->dup > 0 || f->reorder > 0 || f->corrupt > 0 || f->delay > 0;
}

/* One "key=value" of a fault specification or a fault group. */
int cfg_fault_set(void *fault_cfg, const char *key, const char *value, char *err, size_t errlen)
{
    struct ini_fault_cfg *f = fault_cfg;
    static const char *const rates[] = { "drop", "dup", "reorder", "corrupt", "delay" };
    double *rate_of[] = { &f->drop, &f->dup, &f->reorder, &f->corrupt, &f->delay };
    char *end;
    for (int i = 0; i < 5; i++) {
        if (strcmp(key, rates[i]) != 0)
            continue;
        double v = strtod(value, &end);
        if (*value == '\0' || *end != '\0' || !(v >= 0.0 && v <= 1.0)) {
            snprintf(err, errlen, "%s: \"%s\" is not a rate between 0 and 1", key, value);
            return -1;
        }
        *rate_of[i] = v;
        return 0;
    }
    if (!strcmp(key, "side")) {
        if (strcmp(value, "tx") && strcmp(value, "rx")) {
            snprintf(err, errlen, "side: \"%s\" is neither tx nor rx", value);
            return -1;
        }
        f->on_rx = !strcmp(value, "rx");
        return 0;
    }
    long long lo = 0, hi = 0;
    if (!strcmp(key, "depth")) lo = 1, hi = 64;
    else if (!strcmp(key, "delay_us")) lo = 0, hi = 1000000;
    else if (!strcmp(key, "seed")) lo = 0, hi = LLONG_MAX;
    else {
        snprintf(err, errlen, "unknown fault \"%s\" (expected drop, dup, reorder, corrupt, delay, "
                              "depth, delay_us, seed or side)", key);
        return -1;
    }
    errno = 0;
    long long v = strtoll(value, &end, 10);
    /* ERANGE: strtoll clamped the value; refused, never taken as the limit. */
    if (*value == '\0' || *end != '\0' || errno == ERANGE || v < lo || v > hi) {
        snprintf(err, errlen, "%s: \"%s\" is not an integer in %lld..%lld", key, value, lo, hi);
        return -1;
    }
    if (!strcmp(key, "depth")) f->reorder_depth = (int)v;
    else if (!strcmp(key, "delay_us")) f->delay_us = (int)v;
    else f->seed = (uint64_t)v;
    return 0;
}

/* One knob: "O" or "O_us" and so on; values are non-negative numbers of
 * at most a second (per byte: a millisecond); the dilation K is 0 (off)
 * or a factor of 1..1000, beta a factor of 0.001..1000. */
int cfg_knob_set(void *knobs_cfg, const char *key, const char *value, char *err, size_t errlen)
{
    struct ini_knobs *k = knobs_cfg;
    static const struct { const char *name, *alias; size_t offset; double min, max; } knobs[] = {
        { "O_us", "O", offsetof(struct ini_knobs, O_us), 0, 1e6 },
        { "gap_us", "gap", offsetof(struct ini_knobs, gap_us), 0, 1e6 },
        { "per_byte_ns", "per_byte", offsetof(struct ini_knobs, per_byte_ns), 0, 1e6 },
        { "latency_us", "latency", offsetof(struct ini_knobs, latency_us), 0, 1e6 },
        { "overhead_us", "overhead", offsetof(struct ini_knobs, overhead_us), 0, 1e6 },
        { "dilate", "K", offsetof(struct ini_knobs, dilate), 1, 1000 },
        { "beta", "beta", offsetof(struct ini_knobs, beta), 0.001, 1000 },
    };
    if (!strcmp(key, "O_dist")) {
        if (strcmp(value, "fixed") && strcmp(value, "exp")) {
            snprintf(err, errlen, "%s: \"%s\" is neither fixed nor exp", key, value);
            return -1;
        }
        k->O_exp = !strcmp(value, "exp");
        return 0;
    }
    if (!strcmp(key, "O_mode") || !strcmp(key, "overhead_mode")) {
        if (strcmp(value, "spin") && strcmp(value, "sleep")) {
            snprintf(err, errlen, "%s: \"%s\" is neither spin nor sleep", key, value);
            return -1;
        }
        *(key[0] == 'O' ? &k->O_sleep : &k->overhead_sleep) = !strcmp(value, "sleep");
        return 0;
    }
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++) {
        if (strcmp(key, knobs[i].name) && strcmp(key, knobs[i].alias))
            continue;
        char *end;
        double v = strtod(value, &end);
        /* dilate = 0 is off, as every other knob's 0 */
        int dilate = knobs[i].offset == offsetof(struct ini_knobs, dilate);
        if (*value == '\0' || *end != '\0' ||
            !((dilate && v == 0.0) || (v >= knobs[i].min && v <= knobs[i].max))) {
            snprintf(err, errlen, "%s: \"%s\" is not a number in %s%g..%g", key, value, dilate ? "0 (off) or " : "",
                     knobs[i].min, knobs[i].max);
            return -1;
        }
        *(double *)((char *)k + knobs[i].offset) = v;
        return 0;
    }
    snprintf(err, errlen, "unknown knob \"%s\" (expected O, O_mode, O_dist, gap, per_byte, latency, "
                          "overhead, overhead_mode, dilate or beta)", key);
    return -1;
}

/* "key=value,key=value" through set, item by item; WHAT names the
 * specification and PAIR its items in the errors. */
static int parse_spec(const char *spec, const char *what, const char *pair, cfg_kv_setter set, void *target,
                      char *err, size_t errlen)
{
    char buf[512];
    if (strlen(spec) >= sizeof buf) {
        snprintf(err, errlen, "%s specification too long", what);
        return -1;
    }
    memcpy(buf, spec, strlen(spec) + 1);
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq) {
            snprintf(err, errlen, "\"%s\": expected %s=value", item, pair);
            return -1;
        }
        *eq = '\0';
        if (set(target, item, eq + 1, err, errlen) < 0)
            return -1;
    }
    return 0;
}

int ini_knobs_parse(const char *spec, struct ini_knobs *k, char *err, size_t errlen)
{
    return parse_spec(spec, "knob", "name", cfg_knob_set, k, err, errlen);
}

int ini_fault_parse(const char *spec, struct ini_fault_cfg *f, char *err, size_t errlen)
{
    if (parse_spec(spec, "fault", "key", cfg_fault_set, f, err, errlen) < 0)
        return -1;
    f->enabled = cfg_fault_enabled(f);
    return 0;
}

/* ---- the same specifications as groups of a file ---- */

/* A group of name = value settings handed one by one to the setter of
 * the matching command-line specification above (set(target, key,
 * value)), so that a file and a flag accept exactly the same names and
 * values.  Here, below both readers of such groups (config_groups.c: the
 * global faults and the knobs; config_machine.c: an INI's faults), so
 * that the two passes call down into this file and never into each
 * other. */
int cfg_load_kv_group(struct loader *ld, const config_setting_t *parent, const char *name,
                      const char *const *allowed, cfg_kv_setter set, void *target)
{
    const config_setting_t *g;
    int found = cfg_read_group(ld, parent, name, allowed, &g);
    if (found <= 0)
        return found;
    for (int i = 0; i < config_setting_length(g); i++) {
        const config_setting_t *m = config_setting_get_elem(g, (unsigned)i);
        char value[64], err[256];
        switch (config_setting_type(m)) {
        case CONFIG_TYPE_FLOAT: snprintf(value, sizeof value, "%.17g", config_setting_get_float(m)); break;
        case CONFIG_TYPE_INT:
        case CONFIG_TYPE_INT64: snprintf(value, sizeof value, "%lld", config_setting_get_int64(m)); break;
        case CONFIG_TYPE_STRING: snprintf(value, sizeof value, "%s", config_setting_get_string(m)); break;
        default: return cfg_fail_at(ld, m, "expected a number or a string, found %s", cfg_type_name(m));
        }
        if (set(target, config_setting_name(m), value, err, sizeof err) < 0) {
            /* The prefix names the field already: keep only what is wrong. */
            const char *colon = strchr(err, ':');
            return cfg_fail_at(ld, m, "%s", colon && colon[1] == ' ' ? colon + 2 : err);
        }
    }
    return 1;
}

/* faults = { drop = 0.1; dup = 0.0; reorder = 0.0; corrupt = 0.0; delay = 0.0;
 *            depth = 3; delay_us = 200; seed = 1; side = "tx"; } */
int cfg_load_faults(struct loader *ld, const config_setting_t *parent, struct ini_fault_cfg *f)
{
    static const char *const allowed[] = { "drop", "dup", "reorder", "corrupt", "delay", "depth",
                                           "delay_us", "seed", "side", NULL };
    int found = cfg_load_kv_group(ld, parent, "faults", allowed, cfg_fault_set, f);
    f->enabled = cfg_fault_enabled(f);
    return found;
}
