/*
 * config_internal.h - the loader of the machine description, private to
 * the config_*.c files of ini/ (the format is documented field by field in
 * docs/config.md; the public interface is config.h).
 *
 * Design
 * ------
 * Loading is all-or-nothing and stops at the first error, which becomes the
 * single line "FILE:LINE: FIELD: message" of the err buffer.  It runs in
 * three stages:
 *
 *   1. libconfig parses the file (config_load.c).  An unreadable file or a
 *      syntax error is reported with libconfig's own file and line, FIELD
 *      "file" or "syntax".  Before that the file and every @include target
 *      are checked to be regular files within the size limit.
 *   2. The structural pass walks the tree once, top to bottom
 *      (config_groups.c for the top-level groups, config_machine.c for the
 *      clusters and their INIs).  Every group is checked for member names
 *      it does not know (this is what catches typos: libconfig itself
 *      accepts any name), every value for its type and its own range, and
 *      the scalar settings are stored into the result.  Clusters and INIs
 *      are collected in file order into drafts that keep pointers to the
 *      libconfig settings they came from, because the later checks must
 *      still be able to name a line.
 *   3. The cross-reference pass (config_check.c) checks what needs the
 *      whole machine: ids dense from 0 and unique, every PE in exactly one
 *      cluster, an INI in every cluster with compute nodes, unique IP and
 *      MAC addresses, static entries naming INIs of the PE's own cluster,
 *      the hosts.  Then the result is assembled: arrays indexed by id, PE
 *      lists sorted ascending, defaults (MAC, block static mapping) filled
 *      in.
 *
 * The result is built in a heap-allocated scratch loader and copied to the
 * caller only on success, so a rejected file leaves *cfg untouched.
 *
 * FIELD is computed from the libconfig setting by walking up its parents
 * (clusters[1].inis[0].ip), so no check has to spell a path by hand.  A
 * missing field is named by its enclosing group's path plus its own name,
 * at the group's line (line 0 for the top level, whose group is the file).
 * config_read.c holds that vocabulary: the errors and the typed reads that
 * every pass uses.
 *
 * The rest of the configuration's code stands beside the loader: the names
 * of the enums and their parsers (config_names.c), the fault and knob
 * specifications a flag and a group share (config_spec.c), the defaults
 * and the values derived from a configuration (config_values.c).
 *
 * The functions below are shared between those files only: prefixed cfg_
 * and of hidden visibility, they stay out of libini's interface.
 */
#ifndef INI_CONFIG_INTERNAL_H
#define INI_CONFIG_INTERNAL_H

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>

#include "config.h"

/* ---- limits of the format (the array limits are INI_MAX_* in config.h) -- */

#define MTU_MIN               576        /* smallest datagram every IPv4 host accepts */
#define MTU_MAX               9000       /* jumbo frames */
#define WINDOW_CAP            INI_WINDOW_LIMIT
#define TIMEOUT_MIN_US        1
#define TIMEOUT_MAX_US        10000000   /* 10 s: anything longer is a typo */
#define SPIN_MAX_US           1000000
#define SLEEP_MIN_US          1
#define SLEEP_MAX_US          1000000
#define TRACE_RECORDS_MIN     1024
#define TRACE_RECORDS_MAX     (1 << 26)
#define EAL_MEMORY_MIN_MB     128        /* 64 cannot hold the mbuf pool (issue 17) */
#define EAL_MEMORY_MAX_MB     16384
#define CORE_MAX              1023

/* A message travels in one UDP datagram: 65535 bytes of IPv4 datagram minus
 * the 20-byte IPv4 and 8-byte UDP headers, and the stack's own headers take
 * PROTOCOL_HEADER_BYTES of that. */
#define UDP_MAX_PAYLOAD       65507
#define PROTOCOL_HEADER_BYTES 32

#pragma GCC visibility push(hidden)

/* ---- the state of one load ---------------------------------------------- */

/* An INI or a cluster as read by pass 2, with the settings it came from so
 * that pass 3 can still point at a line.  Ids stay long long until pass 3
 * has checked them, so that no out-of-range value is truncated into a
 * valid-looking one. */
struct ini_draft {
    const config_setting_t *group;   /* the INI's { ... } */
    int cluster_pos;                 /* position of its cluster in the file */
    int index;                       /* position among its cluster's INIs */
    long long id;                    /* as written; checked in pass 3 */
    struct ini_node_cfg node;        /* core, ip, mac, devargs, device */
    bool mac_given;                  /* false: derived from the id in pass 3 */
};

struct cluster_draft {
    const config_setting_t *group, *id_setting, *pes_setting, *inis_setting, *static_setting;
    const config_setting_t *host_setting;            /* NULL: this host */
    char host[INI_HOST_LEN];
    long long id;
    int n_pes;
    long long pes[INI_MAX_PES_PER_CLUSTER];          /* file order */
    int first_ini, n_inis;                           /* range of loader.inis */
    long long static_inis[INI_MAX_PES_PER_CLUSTER];  /* file order; valid if static_setting */
};

/* Everything a load needs besides libconfig's tree: where the error goes,
 * the result being built, and the drafts. */
struct loader {
    const char *path;
    char include_dir[INI_PATH_LEN];  /* directory of path; "" when path has none */
    char file_buf[2 * INI_PATH_LEN]; /* an included file's name, resolved */
    char *err;
    size_t errlen;
    bool failed;
    struct ini_config cfg;
    int n_clusters, n_pes, n_inis;
    struct cluster_draft clusters[INI_MAX_CLUSTERS];
    struct ini_draft inis[INI_MAX_INIS];
};

/* ---- errors (config_read.c) ----------------------------------------------
 * Each writes "FILE:LINE: FIELD: message" unless an error was written
 * already, and returns -1, for `return cfg_fail...()`. */

/* FILE (NULL: the loaded file) and LINE as given, FIELD spelled out. */
int cfg_fail(struct loader *ld, const char *file, int line, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* About setting S, or, when MEMBER is not NULL, about the member of that
 * name which S (a group) lacks: then the line is S's. */
int cfg_fail_member(struct loader *ld, const config_setting_t *s, const char *member, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define cfg_fail_at(ld, s, ...) cfg_fail_member((ld), (s), NULL, __VA_ARGS__)

/* "an integer", "a group { }", ...: what a setting is, for messages. */
const char *cfg_type_name(const config_setting_t *s);

/* ---- typed access (config_read.c) ----------------------------------------
 * The cfg_read_* functions look up an optional member of a group and
 * return -1 after reporting, 0 when it is absent (the output keeps its
 * default), 1 when it was read.  The others check one setting: -1 or 0. */

const config_setting_t *cfg_member(const config_setting_t *group, const char *name);
/* A group with no member outside ALLOWED (NULL-terminated). */
int cfg_check_group(struct loader *ld, const config_setting_t *s, const char *const *allowed);
/* An optional group member; *out is NULL when absent. */
int cfg_read_group(struct loader *ld, const config_setting_t *parent, const char *name,
                   const char *const *allowed, const config_setting_t **out);
int cfg_int(struct loader *ld, const config_setting_t *s, long long *out);
int cfg_int_in_range(struct loader *ld, const config_setting_t *s, long long lo, long long hi, int *out);
int cfg_read_int(struct loader *ld, const config_setting_t *group, const char *name, long long lo,
                 long long hi, int *out);
int cfg_read_bool(struct loader *ld, const config_setting_t *group, const char *name, int *out);
/* A string of at most CAP-1 bytes, copied into OUT when OUT is not NULL. */
int cfg_string(struct loader *ld, const config_setting_t *s, char *out, size_t cap, const char **text);
/* One of NAMES (NULL-terminated, indexed by the enum: config.h). */
int cfg_read_enum(struct loader *ld, const config_setting_t *group, const char *name,
                  const char *const *names, int *out);
/* An array [ ] or list ( ) of at most MAX elements. */
int cfg_read_sequence(struct loader *ld, const config_setting_t *s, int max, const char *what);
/* A list ( ) of groups; an empty array "[ ]" is taken as an empty list. */
int cfg_read_group_list(struct loader *ld, const config_setting_t *s, int max, const char *what);

/* ---- the passes ---------------------------------------------------------- */

/* Pass 2 (config_groups.c): the whole tree, clusters included.  Its
 * files call one way: config_groups.c -> config_machine.c -> config_spec.c
 * (the groups of name = value settings), config_groups.c -> config_spec.c. */
int cfg_load_structure(struct loader *ld, const config_setting_t *root);
/* clusters = ( ... ) and their INIs (config_machine.c). */
int cfg_load_clusters(struct loader *ld, const config_setting_t *root);
/* Pass 3 (config_check.c): the machine as a whole, then the hosts. */
int cfg_check_cross_references(struct loader *ld);
int cfg_check_hosts(struct loader *ld);
/* The result in ld->cfg, from the checked drafts (config_check.c). */
void cfg_assemble(struct loader *ld);

/* ---- specifications (config_spec.c) -------------------------------------- */

/* One name = value of a specification into *target: a command-line flag's
 * "key=value,..." and a file's group share these, so that both accept
 * exactly the same names and values.  0, or -1 with "key: why" in err. */
typedef int (*cfg_kv_setter)(void *target, const char *key, const char *value, char *err, size_t errlen);
int cfg_fault_set(void *fault_cfg, const char *key, const char *value, char *err, size_t errlen);
int cfg_knob_set(void *knobs_cfg, const char *key, const char *value, char *err, size_t errlen);
/* Whether any rate of f is above 0. */
int cfg_fault_enabled(const struct ini_fault_cfg *f);
/* Group NAME of PARENT (members ALLOWED), each member handed to SET as
 * "key", "value": -1 after reporting, 0 when absent, 1 when read. */
int cfg_load_kv_group(struct loader *ld, const config_setting_t *parent, const char *name,
                      const char *const *allowed, cfg_kv_setter set, void *target);
/* faults = { ... } in parent, over *f (the global group, or an INI's). */
int cfg_load_faults(struct loader *ld, const config_setting_t *parent, struct ini_fault_cfg *f);

#pragma GCC visibility pop

#endif
