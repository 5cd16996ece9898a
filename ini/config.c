/*
 * config.c - loads, validates and generates the machine description
 * (the format is documented field by field in docs/config.md).
 *
 * Design
 * ------
 * Loading is all-or-nothing and stops at the first error, which becomes the
 * single line "FILE:LINE: FIELD: message" of the err buffer.  It runs in
 * three stages:
 *
 *   1. libconfig parses the file.  An unreadable file or a syntax error is
 *      reported with libconfig's own file and line, FIELD "file" or "syntax".
 *   2. The structural pass walks the tree once, top to bottom.  Every group
 *      is checked for member names it does not know (this is what catches
 *      typos: libconfig itself accepts any name), every value for its type
 *      and its own range, and the scalar settings are stored into the
 *      result.  Clusters and INIs are collected in file order into drafts
 *      that keep pointers to the libconfig settings they came from, because
 *      the later checks must still be able to name a line.
 *   3. The cross-reference pass checks what needs the whole machine: ids
 *      dense from 0 and unique, every PE in exactly one cluster, an INI in
 *      every cluster with compute nodes, unique IP and MAC addresses, static
 *      entries naming INIs of the PE's own cluster.  Then the result is
 *      assembled: arrays indexed by id, PE lists sorted ascending, defaults
 *      (MAC, block static mapping) filled in.
 *
 * The result is built in a heap-allocated scratch loader and copied to the
 * caller only on success, so a rejected file leaves *cfg untouched.
 *
 * FIELD is computed from the libconfig setting by walking up its parents
 * (clusters[1].inis[0].ip), so no check has to spell a path by hand.  A
 * missing field is named by its enclosing group's path plus its own name,
 * at the group's line (line 0 for the top level, whose group is the file).
 *
 * The generator writes the same format with every optional group spelled
 * out with its default value, so that a generated file is also a template
 * to edit.  Defaults live in one place, set_defaults(), used by both.
 */
#include "config.h"
#include "file_util.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <libconfig.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <limits.h>
#include <stddef.h>
#include <fcntl.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- limits of the format (the array limits are INI_MAX_* in config.h) -- */

#define FORMAT_VERSION        1
#define MTU_MIN               576        /* smallest datagram every IPv4 host accepts */
#define MTU_MAX               9000       /* jumbo frames */
#define WINDOW_CAP            4096       /* the stack keeps per-slot state */
#define TIMEOUT_MIN_US        1
#define TIMEOUT_MAX_US        10000000   /* 10 s: anything longer is a typo */
#define SPIN_MAX_US           1000000
#define SLEEP_MIN_US          1
#define SLEEP_MAX_US          1000000
#define TRACE_RECORDS_MIN     1024
#define TRACE_RECORDS_MAX     (1 << 26)
#define EAL_MEMORY_MIN_MB     128        /* 64 cannot hold the mbuf pool (issue 17) */
/* Per mbuf beyond its data room: the rte_mbuf (128), our private area and
 * the mempool's object header, rounded up; and the rest of a daemon's EAL
 * memory (measured: 96 MiB runs MTU 1500, 64 MiB does not). */
#define MBUF_OVERHEAD_BYTES   256
#define EAL_MARGIN_MB         64
#define EAL_MEMORY_MAX_MB     16384
#define CORE_MAX              1023

/* A message travels in one UDP datagram: 65535 bytes of IPv4 datagram minus
 * the 20-byte IPv4 and 8-byte UDP headers, and the stack's own headers take
 * PROTOCOL_HEADER_BYTES of that. */
#define UDP_MAX_PAYLOAD       65507
#define PROTOCOL_HEADER_BYTES 32

/* Addresses the generator (and the default MAC rule) derive from INI ids:
 * the RFC 2544 benchmark range 198.18.0.0/15, and a locally administered
 * MAC prefix 02:00 followed by c6:12 (198.18). */
#define GENERATED_IP_BASE     0xC6120000u     /* 198.18.0.0 */
#define MAC_PREFIX            0x02, 0x00, 0xc6, 0x12

/* ---- names ------------------------------------------------------------- */

static const char *const net_mode_names[] = {
    [INI_NET_MEMIF] = "memif", [INI_NET_AF_PACKET] = "af_packet", [INI_NET_PCI] = "pci",
};
static const char *const idle_mode_names[] = {
    [INI_IDLE_POLL] = "poll", [INI_IDLE_ADAPTIVE] = "adaptive", [INI_IDLE_AUTO] = "auto",
};
static const char *const trace_mode_names[] = {
    [INI_TRACE_OFF] = "off", [INI_TRACE_SUMMARY] = "summary", [INI_TRACE_DETAILED] = "detailed",
};
static const char *const huge_names[] = {
    [INI_HUGE_AUTO] = "auto", [INI_HUGE_YES] = "yes", [INI_HUGE_NO] = "no",
};
static const char *const policy_names[] = {
    [INI_POLICY_STATIC] = "static", [INI_POLICY_ROUND_ROBIN] = "round-robin",
    [INI_POLICY_LOAD_AWARE] = "load-aware",
};
#define N_NAMES(table) ((int)(sizeof(table) / sizeof((table)[0])))

static const char *name_of(const char *const *names, int n, int value)
{
    return value >= 0 && value < n ? names[value] : "?";
}

static int parse_name(const char *const *names, int n, const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

const char *ini_net_mode_name(enum ini_net_mode m)
{
    return name_of(net_mode_names, N_NAMES(net_mode_names), (int)m);
}

const char *ini_idle_mode_name(enum ini_idle_mode m)
{
    return name_of(idle_mode_names, N_NAMES(idle_mode_names), (int)m);
}

const char *ini_trace_mode_name(enum ini_trace_mode m)
{
    return name_of(trace_mode_names, N_NAMES(trace_mode_names), (int)m);
}

const char *ini_policy_name(enum ini_policy p)
{
    return name_of(policy_names, N_NAMES(policy_names), (int)p);
}

int ini_policy_parse(const char *name)
{
    return parse_name(policy_names, N_NAMES(policy_names), name);
}

/* ---- defaults and derived values ---------------------------------------- */

static void set_defaults(struct ini_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->net_mode = INI_NET_MEMIF;
    snprintf(cfg->bridge, sizeof cfg->bridge, "%s", "inibr0");
    cfg->pe_policy = INI_POLICY_STATIC;
    cfg->ini_policy = INI_POLICY_STATIC;
    cfg->stack = (struct ini_stack_cfg){
        .mtu = 1500, .window = 64, .seq_bits = 32, .send_timeout_us = 2000,
        .ack_timeout_us = 200, .max_message = INI_MAX_MESSAGE_LIMIT, .nak = 1,
        .segmentation = INI_SEGMENTATION_DEFAULT,
    };
    cfg->idle = (struct ini_idle_cfg){ .mode = INI_IDLE_AUTO, .spin_us = 5, .max_sleep_us = 1000,
                                       .yield_us = INI_IDLE_YIELD_US_DEFAULT,
                                       .colocate = INI_IDLE_COLOCATE_DEFAULT };
    cfg->trace = (struct ini_trace_cfg){ .mode = INI_TRACE_OFF, .records = 1048576 };
    cfg->eal_memory_mb = 256;
    ini_fault_defaults(&cfg->faults);
}

void ini_fault_defaults(struct ini_fault_cfg *f)
{
    memset(f, 0, sizeof *f);
    f->reorder_depth = 3;
    f->delay_us = 200;
    f->seed = 1;
}

static int fault_enabled(const struct ini_fault_cfg *f)
{
    return f->drop > 0 || f->dup > 0 || f->reorder > 0 || f->corrupt > 0 || f->delay > 0;
}

/* One "key=value" of a fault specification or a fault group. */
static int fault_set(struct ini_fault_cfg *f, const char *key, const char *value, char *err, size_t errlen)
{
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
 * at most a second (per byte: a millisecond). */
static int knob_set(struct ini_knobs *k, const char *key, const char *value, char *err, size_t errlen)
{
    static const struct { const char *name, *alias; size_t offset; double max; } knobs[] = {
        { "O_us", "O", offsetof(struct ini_knobs, O_us), 1e6 },
        { "gap_us", "gap", offsetof(struct ini_knobs, gap_us), 1e6 },
        { "per_byte_ns", "per_byte", offsetof(struct ini_knobs, per_byte_ns), 1e6 },
        { "latency_us", "latency", offsetof(struct ini_knobs, latency_us), 1e6 },
        { "overhead_us", "overhead", offsetof(struct ini_knobs, overhead_us), 1e6 },
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
        if (*value == '\0' || *end != '\0' || !(v >= 0.0 && v <= knobs[i].max)) {
            snprintf(err, errlen, "%s: \"%s\" is not a number in 0..%g", key, value, knobs[i].max);
            return -1;
        }
        *(double *)((char *)k + knobs[i].offset) = v;
        return 0;
    }
    snprintf(err, errlen, "unknown knob \"%s\" (expected O, O_mode, O_dist, gap, per_byte, latency, "
                          "overhead or overhead_mode)", key);
    return -1;
}

int ini_knobs_parse(const char *spec, struct ini_knobs *k, char *err, size_t errlen)
{
    char buf[512];
    if (strlen(spec) >= sizeof buf) {
        snprintf(err, errlen, "knob specification too long");
        return -1;
    }
    memcpy(buf, spec, strlen(spec) + 1);
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq) {
            snprintf(err, errlen, "\"%s\": expected name=value", item);
            return -1;
        }
        *eq = '\0';
        if (knob_set(k, item, eq + 1, err, errlen) < 0)
            return -1;
    }
    return 0;
}

int ini_fault_parse(const char *spec, struct ini_fault_cfg *f, char *err, size_t errlen)
{
    char buf[512];
    if (strlen(spec) >= sizeof buf) {
        snprintf(err, errlen, "fault specification too long");
        return -1;
    }
    memcpy(buf, spec, strlen(spec) + 1);
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq) {
            snprintf(err, errlen, "\"%s\": expected key=value", item);
            return -1;
        }
        *eq = '\0';
        if (fault_set(f, item, eq + 1, err, errlen) < 0)
            return -1;
    }
    f->enabled = fault_enabled(f);
    return 0;
}

/* 02:00:c6:12:HI:LO, HI and LO being the bytes of the INI id. */
static void default_mac(int ini_id, uint8_t mac[6])
{
    const uint8_t prefix[4] = { MAC_PREFIX };
    memcpy(mac, prefix, sizeof prefix);
    mac[4] = (uint8_t)(ini_id >> 8);
    mac[5] = (uint8_t)ini_id;
}

/* 198.18.X.Y = 198.18.0.0 + id + 1: the +1 keeps the generated addresses
 * off 198.18.0.0, the network address of the range. */
static uint32_t generated_ip(int ini_id)
{
    return htonl(GENERATED_IP_BASE + (uint32_t)ini_id + 1);
}

static void format_ip(uint32_t ip, char buf[INET_ADDRSTRLEN])
{
    struct in_addr addr = { .s_addr = ip };
    inet_ntop(AF_INET, &addr, buf, INET_ADDRSTRLEN);
}

static void format_mac(const uint8_t mac[6], char buf[18])
{
    snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x",
             mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
}

/* Exactly six colon-separated pairs of hex digits. */
static bool parse_mac(const char *text, uint8_t mac[6])
{
    if (strlen(text) != 17)
        return false;
    for (int i = 0; i < 6; i++) {
        const char *pair = text + 3 * i;
        char hex[3] = { pair[0], pair[1], 0 };
        if (!isxdigit((unsigned char)pair[0]) || !isxdigit((unsigned char)pair[1]))
            return false;
        if (i < 5 && pair[2] != ':')
            return false;
        mac[i] = (uint8_t)strtoul(hex, NULL, 16);
    }
    return true;
}

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

/* ---- error reporting ---------------------------------------------------- */

/* A file name in an error is cut to this (with "..." in the middle), so
 * that the reason after it fits in the caller's buffer (1 KiB is usual). */
#define ERR_PATH_SHOWN 256


/* The name under which to report FILE, a name libconfig recorded: the
 * loaded file itself, or an @include'd file, which libconfig (1.5) records
 * as written in the directive although it opened it in the include
 * directory; naming it relative to that directory keeps the name usable. */
static const char *report_file(struct loader *ld, const char *file)
{
    size_t dir_len = strlen(ld->include_dir);
    if (!file || strcmp(file, ld->path) == 0)
        return ld->path;
    if (file[0] == '/' || dir_len == 0 ||
        (strncmp(file, ld->include_dir, dir_len) == 0 && file[dir_len] == '/'))
        return file;
    snprintf(ld->file_buf, sizeof ld->file_buf, "%s%s%s", ld->include_dir,
             ld->include_dir[dir_len - 1] == '/' ? "" : "/", file);
    return ld->file_buf;
}

/* Writes "FILE:LINE: FIELD: message" unless an error was already written.
 * Control characters (a string from the file may hold "\n") are replaced,
 * so that the error stays one line.  Always returns -1, for `return fail()`. */
static int vfail(struct loader *ld, const char *file, int line, const char *field,
                 const char *fmt, va_list ap)
{
    if (ld->failed)
        return -1;
    ld->failed = true;
    if (!ld->err || ld->errlen == 0)
        return -1;
    char shown[ERR_PATH_SHOWN];
    int used = snprintf(ld->err, ld->errlen, "%s:%d: %s: ",
                        ini_path_for_message(report_file(ld, file), shown, sizeof shown), line, field);
    if (used >= 0 && (size_t)used < ld->errlen)
        vsnprintf(ld->err + used, ld->errlen - (size_t)used, fmt, ap);
    for (char *c = ld->err; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return -1;
}

static int fail_plain(struct loader *ld, const char *file, int line, const char *field,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int fail_plain(struct loader *ld, const char *file, int line, const char *field,
                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(ld, file, line, field, fmt, ap);
    va_end(ap);
    return -1;
}

/* The path of a setting as the user would write it: clusters[1].inis[0].ip. */
static void setting_path(const config_setting_t *s, char *buf, size_t len)
{
    if (!s || config_setting_is_root(s)) {
        buf[0] = '\0';
        return;
    }
    setting_path(config_setting_parent(s), buf, len);
    size_t used = strlen(buf);
    const char *name = config_setting_name(s);
    if (name)
        snprintf(buf + used, len - used, "%s%s", used ? "." : "", name);
    else
        snprintf(buf + used, len - used, "[%d]", config_setting_index(s));
}

/* Reports an error about setting S, or, when MEMBER is not NULL, about the
 * member of that name which S (a group) lacks: then the line is S's. */
static int fail_member(struct loader *ld, const config_setting_t *s, const char *member,
                       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail_member(struct loader *ld, const config_setting_t *s, const char *member,
                       const char *fmt, ...)
{
    char field[256];
    setting_path(s, field, sizeof field);
    if (member) {
        size_t used = strlen(field);
        snprintf(field + used, sizeof field - used, "%s%s", used ? "." : "", member);
    }
    va_list ap;
    va_start(ap, fmt);
    vfail(ld, config_setting_source_file(s), config_setting_source_line(s), field, fmt, ap);
    va_end(ap);
    return -1;
}

#define fail_at(ld, s, ...) fail_member((ld), (s), NULL, __VA_ARGS__)

static const char *type_name(const config_setting_t *s)
{
    switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT:    return "an integer";
    case CONFIG_TYPE_INT64:  return "an integer";
    case CONFIG_TYPE_FLOAT:  return "a float";
    case CONFIG_TYPE_STRING: return "a string";
    case CONFIG_TYPE_BOOL:   return "a boolean";
    case CONFIG_TYPE_ARRAY:  return "an array [ ]";
    case CONFIG_TYPE_LIST:   return "a list ( )";
    case CONFIG_TYPE_GROUP:  return "a group { }";
    default:                 return "an unknown type";
    }
}

/* ---- typed access --------------------------------------------------------
 * The read_* functions look up an optional member of a group and return
 * -1 after reporting, 0 when it is absent (the output keeps its default),
 * 1 when it was read.  The others check one setting: -1 or 0. */

/* A group with no member outside ALLOWED (NULL-terminated). */
static int check_group(struct loader *ld, const config_setting_t *s, const char *const *allowed)
{
    if (!config_setting_is_group(s))
        return fail_at(ld, s, "expected a group { ... }, found %s", type_name(s));
    for (int i = 0; i < config_setting_length(s); i++) {
        const config_setting_t *member = config_setting_get_elem(s, (unsigned)i);
        const char *name = config_setting_name(member);
        bool known = false;
        for (const char *const *a = allowed; *a && !known; a++)
            known = strcmp(*a, name) == 0;
        if (!known) {
            char expected[256] = "";
            for (const char *const *a = allowed; *a; a++) {
                size_t used = strlen(expected);
                snprintf(expected + used, sizeof expected - used, "%s%s",
                         a == allowed ? "" : ", ", *a);
            }
            return fail_at(ld, member, "unknown field (expected one of: %s)", expected);
        }
    }
    return 0;
}

static const config_setting_t *member_of(const config_setting_t *group, const char *name)
{
    return config_setting_get_member(group, name);
}

/* An optional group member; *out is NULL when absent. */
static int read_group(struct loader *ld, const config_setting_t *parent, const char *name,
                      const char *const *allowed, const config_setting_t **out)
{
    *out = member_of(parent, name);
    if (!*out)
        return 0;
    return check_group(ld, *out, allowed) < 0 ? -1 : 1;
}

static int int_value(struct loader *ld, const config_setting_t *s, long long *out)
{
    int type = config_setting_type(s);
    if (type != CONFIG_TYPE_INT && type != CONFIG_TYPE_INT64)
        return fail_at(ld, s, "expected an integer, found %s", type_name(s));
    *out = config_setting_get_int64(s);
    return 0;
}

static int int_in_range(struct loader *ld, const config_setting_t *s, long long lo, long long hi,
                        int *out)
{
    long long value = 0;
    if (int_value(ld, s, &value) < 0)
        return -1;
    if (value < lo || value > hi)
        return fail_at(ld, s, "%lld is out of range %lld..%lld", value, lo, hi);
    *out = (int)value;
    return 0;
}

static int read_int(struct loader *ld, const config_setting_t *group, const char *name,
                    long long lo, long long hi, int *out)
{
    const config_setting_t *s = member_of(group, name);
    if (!s)
        return 0;
    return int_in_range(ld, s, lo, hi, out) < 0 ? -1 : 1;
}

static int read_bool(struct loader *ld, const config_setting_t *group, const char *name, int *out)
{
    const config_setting_t *s = member_of(group, name);
    if (!s)
        return 0;
    if (config_setting_type(s) != CONFIG_TYPE_BOOL)
        return fail_at(ld, s, "expected true or false, found %s", type_name(s));
    *out = config_setting_get_bool(s);
    return 1;
}

/* A string of at most CAP-1 bytes, copied into OUT when OUT is not NULL. */
static int string_value(struct loader *ld, const config_setting_t *s, char *out, size_t cap,
                        const char **text)
{
    if (config_setting_type(s) != CONFIG_TYPE_STRING)
        return fail_at(ld, s, "expected a string, found %s", type_name(s));
    *text = config_setting_get_string(s);
    if (strlen(*text) >= cap)
        return fail_at(ld, s, "longer than %zu characters", cap - 1);
    if (out)
        memcpy(out, *text, strlen(*text) + 1);
    return 0;
}

static int read_enum(struct loader *ld, const config_setting_t *group, const char *name,
                     const char *const *names, int n_names, int *out)
{
    const config_setting_t *s = member_of(group, name);
    const char *text;
    if (!s)
        return 0;
    if (string_value(ld, s, NULL, SIZE_MAX, &text) < 0)
        return -1;
    int value = parse_name(names, n_names, text);
    if (value < 0) {
        char expected[128] = "";
        for (int i = 0; i < n_names; i++) {
            size_t used = strlen(expected);
            snprintf(expected + used, sizeof expected - used, "%s%s",
                     i == 0 ? "" : i == n_names - 1 ? " or " : ", ", names[i]);
        }
        return fail_at(ld, s, "unknown value \"%s\" (expected %s)", text, expected);
    }
    *out = value;
    return 1;
}

/* An array [ ] or list ( ) of at most MAX elements.  Lists are accepted
 * because an empty "( )" is as natural to write as "[ ]". */
static int read_sequence(struct loader *ld, const config_setting_t *s, int max, const char *what)
{
    if (!config_setting_is_array(s) && !config_setting_is_list(s))
        return fail_at(ld, s, "expected an array [ ... ] of %s, found %s", what, type_name(s));
    if (config_setting_length(s) > max)
        return fail_at(ld, s, "%d entries, at most %d are supported", config_setting_length(s), max);
    return 0;
}

/* A list ( ) of groups; an empty array "[ ]" is taken as an empty list. */
static int read_group_list(struct loader *ld, const config_setting_t *s, int max, const char *what)
{
    bool empty_array = config_setting_is_array(s) && config_setting_length(s) == 0;
    if (!config_setting_is_list(s) && !empty_array)
        return fail_at(ld, s, "expected a list ( { ... }, ... ) of %s, found %s", what, type_name(s));
    if (config_setting_length(s) > max)
        return fail_at(ld, s, "%d %s, at most %d are supported", config_setting_length(s), what, max);
    return 0;
}

/* ---- pass 2: structure, types, ranges ----------------------------------- */

static int load_network(struct loader *ld, const config_setting_t *root)
{
    static const char *const allowed[] = { "mode", "bridge", NULL };
    const config_setting_t *g, *bridge;
    int mode;
    int found = read_group(ld, root, "network", allowed, &g);
    if (found <= 0)
        return found;
    switch (read_enum(ld, g, "mode", net_mode_names, N_NAMES(net_mode_names), &mode)) {
    case -1: return -1;
    case 1:  ld->cfg.net_mode = (enum ini_net_mode)mode; break;
    }
    if ((bridge = member_of(g, "bridge"))) {
        const char *text;
        if (string_value(ld, bridge, ld->cfg.bridge, sizeof ld->cfg.bridge, &text) < 0)
            return -1;
        if (text[0] == '\0')
            return fail_at(ld, bridge, "empty bridge name");
    }
    return 0;
}

static int load_policy(struct loader *ld, const config_setting_t *root)
{
    static const char *const allowed[] = { "compute", "ini", NULL };
    const config_setting_t *g;
    int value;
    int found = read_group(ld, root, "policy", allowed, &g);
    if (found <= 0)
        return found;
    switch (read_enum(ld, g, "compute", policy_names, N_NAMES(policy_names), &value)) {
    case -1: return -1;
    case 1:  ld->cfg.pe_policy = (enum ini_policy)value; break;
    }
    switch (read_enum(ld, g, "ini", policy_names, N_NAMES(policy_names), &value)) {
    case -1: return -1;
    case 1:  ld->cfg.ini_policy = (enum ini_policy)value; break;
    }
    return 0;
}

static int load_stack(struct loader *ld, const config_setting_t *root)
{
    static const char *const allowed[] = { "mtu", "window", "seq_bits", "send_timeout_us",
                                           "ack_timeout_us", "max_message", "nak", "segmentation", NULL };
    struct ini_stack_cfg *st = &ld->cfg.stack;
    const config_setting_t *g, *s;
    int found = read_group(ld, root, "stack", allowed, &g);
    if (found <= 0)
        return found;
    if (read_int(ld, g, "mtu", MTU_MIN, MTU_MAX, &st->mtu) < 0)
        return -1;
    /* load_structure reads network before stack: the mode is known. */
    if (ld->cfg.net_mode == INI_NET_AF_PACKET && st->mtu > INI_AF_PACKET_MTU_MAX)
        return fail_at(ld, member_of(g, "mtu"), "%d is above %d, the largest MTU of DPDK 22.11's "
                       "af_packet driver (frames of at most 1518 bytes); jumbo frames need memif or pci",
                       st->mtu, INI_AF_PACKET_MTU_MAX);
    if ((s = member_of(g, "seq_bits"))) {
        long long bits = 0;
        if (int_value(ld, s, &bits) < 0)
            return -1;
        if (bits != 8 && bits != 16 && bits != 32)
            return fail_at(ld, s, "%lld is not 8, 16 or 32", bits);
        st->seq_bits = (int)bits;
    }
    /* Selective repeat needs the window to be at most half the sequence
     * space, or an old and a new packet could carry the same number. */
    long long half_space = 1LL << (st->seq_bits - 1);
    long long window_max = half_space < WINDOW_CAP ? half_space : WINDOW_CAP;
    if ((s = member_of(g, "window"))) {
        long long window = 0;
        if (int_value(ld, s, &window) < 0)
            return -1;
        if (window < 1 || window > window_max)
            return fail_at(ld, s, "%lld is out of range 1..%lld (at most %d, and at most half the "
                           "sequence space of seq_bits %d)", window, window_max, WINDOW_CAP,
                           st->seq_bits);
        st->window = (int)window;
    }
    if (read_int(ld, g, "send_timeout_us", TIMEOUT_MIN_US, TIMEOUT_MAX_US, &st->send_timeout_us) < 0 ||
        read_int(ld, g, "ack_timeout_us", TIMEOUT_MIN_US, TIMEOUT_MAX_US, &st->ack_timeout_us) < 0)
        return -1;
    /* The receiver must acknowledge before the sender gives up and resends. */
    if (st->ack_timeout_us >= st->send_timeout_us) {
        if (member_of(g, "ack_timeout_us"))
            return fail_member(ld, g, "ack_timeout_us", "%d must be less than send_timeout_us (%d)",
                               st->ack_timeout_us, st->send_timeout_us);
        return fail_member(ld, g, "send_timeout_us", "%d must be more than ack_timeout_us (%d)",
                           st->send_timeout_us, st->ack_timeout_us);
    }
    if ((s = member_of(g, "max_message"))) {
        if (int_in_range(ld, s, 1, INI_MAX_MESSAGE_LIMIT, &st->max_message) < 0)
            return -1;
        /* Holds for every value while INI_MAX_MESSAGE_LIMIT stays 65000;
         * checked here so that raising the limit cannot break the stack. */
        if (st->max_message + PROTOCOL_HEADER_BYTES > UDP_MAX_PAYLOAD)
            return fail_at(ld, s, "%d plus %d bytes of headers does not fit in a UDP datagram (%d bytes)",
                           st->max_message, PROTOCOL_HEADER_BYTES, UDP_MAX_PAYLOAD);
    }
    if (read_bool(ld, g, "segmentation", &st->segmentation) < 0)
        return -1;
    return read_bool(ld, g, "nak", &st->nak) < 0 ? -1 : 0;
}

int ini_config_mbuf_room(int mtu)
{
    int room = mtu + 14 + 128 + 64;   /* frame, RTE_PKTMBUF_HEADROOM, slack */
    return room < 2048 + 128 ? 2048 + 128 : room;
}

int ini_config_eal_memory_needed_mb(int mtu)
{
    long long pool = (long long)INI_MBUFS * (ini_config_mbuf_room(mtu) + MBUF_OVERHEAD_BYTES);
    return (int)((pool + (1 << 20) - 1) >> 20) + EAL_MARGIN_MB;
}

int ini_key_file_read(const char *path, uint8_t key[INI_KEY_LEN], char *err, size_t errlen)
{
    /* O_NONBLOCK: a FIFO named here must not block the reader. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = -1;
    if (fstat(fd, &st) < 0)
        snprintf(err, errlen, "cannot stat %s: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        snprintf(err, errlen, "%s is not a regular file", path);
    else if (st.st_size != INI_KEY_LEN)
        snprintf(err, errlen, "%s holds %lld bytes, a key is exactly %d random bytes "
                 "(head -c %d /dev/urandom > FILE; chmod 600 FILE)", path, (long long)st.st_size, INI_KEY_LEN,
                 INI_KEY_LEN);
    else if (st.st_mode & (S_IROTH | S_IWOTH))
        snprintf(err, errlen, "%s is readable or writable by others (mode %03o): chmod 600 it", path,
                 (unsigned)(st.st_mode & 0777));
    else if (read(fd, key, INI_KEY_LEN) != INI_KEY_LEN)
        snprintf(err, errlen, "cannot read %d bytes from %s", INI_KEY_LEN, path);
    else
        rc = 0;
    close(fd);
    return rc;
}

/* security = { key_file = "path"; }: the path is checked here, so that a
 * bad key stops the run before anything starts; inid reads the key. */
static int load_security(struct loader *ld, const config_setting_t *root)
{
    static const char *const allowed[] = { "key_file", NULL };
    const config_setting_t *g, *kf;
    const char *text;
    char why[INI_PATH_LEN + 160];
    uint8_t key[INI_KEY_LEN];
    int found = read_group(ld, root, "security", allowed, &g);
    if (found <= 0 || !(kf = member_of(g, "key_file")))
        return found < 0 ? -1 : 0;
    if (string_value(ld, kf, NULL, INI_PATH_LEN, &text) < 0)
        return -1;
    if (text[0] == '\0')
        return fail_at(ld, kf, "empty path");
    /* Relative to the configuration file, like @include. */
    char *path = ld->cfg.security.key_file;
    size_t cap = sizeof ld->cfg.security.key_file;
    int n = text[0] == '/' || !ld->include_dir[0] ? snprintf(path, cap, "%s", text)
                                                  : snprintf(path, cap, "%s/%s", ld->include_dir, text);
    if (n < 0 || (size_t)n >= cap)
        return fail_at(ld, kf, "path longer than %zu characters", cap - 1);
    int rc = ini_key_file_read(path, key, why, sizeof why);
    explicit_bzero(key, sizeof key);
    return rc < 0 ? fail_at(ld, kf, "%s", why) : 0;
}

static int load_idle(struct loader *ld, const config_setting_t *root)
{
    static const char *const allowed[] = { "mode", "spin_us", "max_sleep_us", "yield_us", "colocate", NULL };
    struct ini_idle_cfg *idle = &ld->cfg.idle;
    const config_setting_t *g;
    int mode;
    int found = read_group(ld, root, "idle", allowed, &g);
    if (found <= 0)
        return found;
    switch (read_enum(ld, g, "mode", idle_mode_names, N_NAMES(idle_mode_names), &mode)) {
    case -1: return -1;
    case 1:  idle->mode = (enum ini_idle_mode)mode; break;
    }
    if (read_int(ld, g, "spin_us", 0, SPIN_MAX_US, &idle->spin_us) < 0 ||
        read_int(ld, g, "max_sleep_us", SLEEP_MIN_US, SLEEP_MAX_US, &idle->max_sleep_us) < 0 ||
        read_int(ld, g, "yield_us", 0, SPIN_MAX_US, &idle->yield_us) < 0 ||
        read_bool(ld, g, "colocate", &idle->colocate) < 0)
        return -1;
    return 0;
}

static int load_trace(struct loader *ld, const config_setting_t *root)
{
    static const char *const allowed[] = { "mode", "records", NULL };
    const config_setting_t *g;
    int mode;
    int found = read_group(ld, root, "trace", allowed, &g);
    if (found <= 0)
        return found;
    switch (read_enum(ld, g, "mode", trace_mode_names, N_NAMES(trace_mode_names), &mode)) {
    case -1: return -1;
    case 1:  ld->cfg.trace.mode = (enum ini_trace_mode)mode; break;
    }
    return read_int(ld, g, "records", TRACE_RECORDS_MIN, TRACE_RECORDS_MAX, &ld->cfg.trace.records) < 0 ? -1 : 0;
}

/* A group of name = value settings handed one by one to the parser of
 * the matching command-line specification (set(target, key, value)), so
 * that a file and a flag accept exactly the same names and values. */
typedef int (*kv_setter)(void *target, const char *key, const char *value, char *err, size_t errlen);

static int load_kv_group(struct loader *ld, const config_setting_t *parent, const char *name,
                         const char *const *allowed, kv_setter set, void *target)
{
    const config_setting_t *g;
    int found = read_group(ld, parent, name, allowed, &g);
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
        default: return fail_at(ld, m, "expected a number or a string, found %s", type_name(m));
        }
        if (set(target, config_setting_name(m), value, err, sizeof err) < 0) {
            /* The prefix names the field already: keep only what is wrong. */
            const char *colon = strchr(err, ':');
            return fail_at(ld, m, "%s", colon && colon[1] == ' ' ? colon + 2 : err);
        }
    }
    return 1;
}

static int fault_setter(void *f, const char *key, const char *value, char *err, size_t errlen)
{
    return fault_set(f, key, value, err, errlen);
}

static int knob_setter(void *k, const char *key, const char *value, char *err, size_t errlen)
{
    return knob_set(k, key, value, err, errlen);
}

/* faults = { drop = 0.1; dup = 0.0; reorder = 0.0; corrupt = 0.0; delay = 0.0;
 *            depth = 3; delay_us = 200; seed = 1; side = "tx"; } */
static int load_faults(struct loader *ld, const config_setting_t *parent, struct ini_fault_cfg *f)
{
    static const char *const allowed[] = { "drop", "dup", "reorder", "corrupt", "delay", "depth",
                                           "delay_us", "seed", "side", NULL };
    int found = load_kv_group(ld, parent, "faults", allowed, fault_setter, f);
    f->enabled = fault_enabled(f);
    return found;
}

/* knobs = { O_us = 50.0; O_mode = "sleep"; gap_us = 0; per_byte_ns = 0;
 *           latency_us = 0; overhead_us = 0; overhead_mode = "spin"; } */
static int load_knobs(struct loader *ld, const config_setting_t *root)
{
    static const char *const allowed[] = { "O_us", "O_mode", "O_dist", "gap_us", "per_byte_ns", "latency_us",
                                           "overhead_us", "overhead_mode", NULL };
    return load_kv_group(ld, root, "knobs", allowed, knob_setter, &ld->cfg.knobs);
}

static int load_eal(struct loader *ld, const config_setting_t *root)
{
    static const char *const allowed[] = { "memory_mb", "hugepages", "args", NULL };
    const config_setting_t *g, *args;
    int huge;
    int found = read_group(ld, root, "eal", allowed, &g);
    if (found <= 0)
        return found;
    if (read_int(ld, g, "memory_mb", EAL_MEMORY_MIN_MB, EAL_MEMORY_MAX_MB, &ld->cfg.eal_memory_mb) < 0)
        return -1;
    switch (read_enum(ld, g, "hugepages", huge_names, N_NAMES(huge_names), &huge)) {
    case -1: return -1;
    case 1:  ld->cfg.eal_hugepages = (enum ini_eal_huge)huge; break;
    }
    /* stack is read before eal: the MTU is known. */
    int need = ini_config_eal_memory_needed_mb(ld->cfg.stack.mtu);
    if (ld->cfg.eal_memory_mb < need)
        return fail_at(ld, member_of(g, "memory_mb"), "%d MiB cannot hold a daemon's %d mbufs at MTU %d: "
                       "at least %d", ld->cfg.eal_memory_mb, INI_MBUFS, ld->cfg.stack.mtu, need);
    if (!(args = member_of(g, "args")))
        return 0;
    if (read_sequence(ld, args, INI_MAX_EAL_ARGS, "strings") < 0)
        return -1;
    for (int i = 0; i < config_setting_length(args); i++) {
        const config_setting_t *arg = config_setting_get_elem(args, (unsigned)i);
        const char *text;
        if (string_value(ld, arg, ld->cfg.eal_args[i], sizeof ld->cfg.eal_args[i], &text) < 0)
            return -1;
        /* An empty word would end getopt's option scan inside the EAL. */
        if (text[0] == '\0')
            return fail_at(ld, arg, "empty argument");
    }
    ld->cfg.n_eal_args = config_setting_length(args);
    return 0;
}

/* ---- hosts and devices (the machine across hosts) ---- */

int ini_device_is_pci(const char *device)
{
    /* [DOMAIN:]BUS:DEVICE.FUNCTION: 0000:03:00.0 or 03:00.0 */
    size_t n = strlen(device);
    const char *p = n == 12 ? device + 5 : n == 7 ? device : NULL;
    if (!p || (n == 12 && device[4] != ':'))
        return 0;
    for (size_t i = 0; i < (size_t)(p - device) - (n == 12); i++)
        if (!isxdigit((unsigned char)device[i]))
            return 0;
    return isxdigit((unsigned char)p[0]) && isxdigit((unsigned char)p[1]) && p[2] == ':' &&
           isxdigit((unsigned char)p[3]) && isxdigit((unsigned char)p[4]) && p[5] == '.' &&
           p[6] >= '0' && p[6] <= '7';
}

/* A Linux interface name: 1..15 characters, none of them '/', ':' or a
 * space; we take the portable subset: letters, digits, '_', '-', '.'. */
static bool is_iface_name(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 15 || !strcmp(name, ".") || !strcmp(name, ".."))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)name[i]) && !strchr("_-.", name[i]))
            return false;
    return true;
}

/* device = "eth1" or "0000:03:00.0" */
static int load_device(struct loader *ld, const config_setting_t *group, struct ini_node_cfg *node)
{
    const config_setting_t *s = member_of(group, "device");
    const char *text;
    if (!s)
        return 0;
    if (string_value(ld, s, node->device, sizeof node->device, &text) < 0)
        return -1;
    if (!ini_device_is_pci(text) && !is_iface_name(text))
        return fail_at(ld, s, "\"%s\" is neither a PCI address (0000:03:00.0) nor an interface name "
                       "(1..15 letters, digits, '_', '-', '.')", text);
    return 0;
}

/* host = "node7" or "user@node7.example.org": what ssh and srun are given. */
static int load_host(struct loader *ld, struct cluster_draft *c)
{
    const char *text;
    if (!(c->host_setting = member_of(c->group, "host")))
        return 0;
    if (string_value(ld, c->host_setting, c->host, sizeof c->host, &text) < 0)
        return -1;
    const char *at = strchr(text, '@');
    const char *name = at ? at + 1 : text;
    bool ok = name[0] != '\0' && name[0] != '-' && (!at || (at > text && !strchr(name, '@')));
    for (const char *p = text; ok && *p; p++)
        ok = isalnum((unsigned char)*p) || strchr("._-@", *p);
    if (!ok)
        return fail_at(ld, c->host_setting, "\"%s\" is not a host name ([user@]host: letters, digits, "
                       "'.', '-', '_')", text);
    return 0;
}

/* Across hosts, memif cannot join the INIs (it is shared memory), and the
 * launcher builds no emulated LAN: every INI names its interface. */
static int check_hosts(struct loader *ld)
{
    const struct cluster_draft *named = NULL;
    for (int pos = 0; pos < ld->n_clusters && !named; pos++)
        if (ld->clusters[pos].host_setting)
            named = &ld->clusters[pos];
    if (!named)
        return 0;
    for (int pos = 0; pos < ld->n_clusters; pos++) {
        const struct cluster_draft *c = &ld->clusters[pos];
        if (ld->cfg.net_mode == INI_NET_MEMIF && strcmp(c->host, named->host) != 0)
            return c->host_setting
                ? fail_at(ld, c->host_setting, "memif joins the INIs of one host, but cluster %lld is "
                          "on \"%s\" (use network.mode af_packet or pci across hosts)", named->id, named->host)
                : fail_member(ld, c->group, "host", "missing: cluster %lld is on \"%s\", and memif joins "
                              "the INIs of one host only", named->id, named->host);
    }
    if (ld->cfg.net_mode != INI_NET_AF_PACKET)
        return 0;
    for (int pos = 0; pos < ld->n_inis; pos++) {
        const struct ini_draft *d = &ld->inis[pos];
        if (!d->node.device[0] && !d->node.devargs[0])
            return fail_member(ld, d->group, "device", "missing (af_packet mode across hosts: the "
                               "interface of this INI on its host)");
    }
    return 0;
}

int ini_config_has_hosts(const struct ini_config *cfg)
{
    for (int c = 0; c < cfg->n_clusters; c++)
        if (cfg->clusters[c].host[0])
            return 1;
    return 0;
}

static int load_ini(struct loader *ld, const config_setting_t *group, int cluster_pos, int index)
{
    static const char *const allowed[] = { "id", "core", "ip", "mac", "devargs", "device", "faults", NULL };
    const config_setting_t *id, *ip, *mac, *devargs;
    const char *text;
    struct in_addr addr;

    if (check_group(ld, group, allowed) < 0)
        return -1;
    if (ld->n_inis == INI_MAX_INIS)
        return fail_at(ld, group, "more than %d INIs in the machine (INI_MAX_INIS)", INI_MAX_INIS);
    struct ini_draft *d = &ld->inis[ld->n_inis++];
    d->group = group;
    d->cluster_pos = cluster_pos;
    d->index = index;
    d->node.core = -1;

    if (!(id = member_of(group, "id")))
        return fail_member(ld, group, "id", "missing (required)");
    if (int_value(ld, id, &d->id) < 0)
        return -1;
    if (read_int(ld, group, "core", -1, CORE_MAX, &d->node.core) < 0)
        return -1;

    if (!(ip = member_of(group, "ip")))
        return fail_member(ld, group, "ip", "missing (required)");
    if (config_setting_type(ip) != CONFIG_TYPE_STRING)
        return fail_at(ld, ip, "expected a string, found %s", type_name(ip));
    text = config_setting_get_string(ip);
    if (inet_pton(AF_INET, text, &addr) != 1)
        return fail_at(ld, ip, "\"%s\" is not an IPv4 address (a.b.c.d)", text);
    /* The daemons send to this address: it must name one host. */
    uint32_t host_order = ntohl(addr.s_addr);
    if (host_order == 0 || host_order >= 0xE0000000u)
        return fail_at(ld, ip, "%s is not a unicast address", text);
    d->node.ip = addr.s_addr;

    if ((mac = member_of(group, "mac"))) {
        if (config_setting_type(mac) != CONFIG_TYPE_STRING)
            return fail_at(ld, mac, "expected a string, found %s", type_name(mac));
        text = config_setting_get_string(mac);
        if (!parse_mac(text, d->node.mac))
            return fail_at(ld, mac, "\"%s\" is not a MAC address (xx:xx:xx:xx:xx:xx)", text);
        /* A port cannot own a group address, and all zeroes is no address. */
        static const uint8_t zero[6];
        if ((d->node.mac[0] & 1) || memcmp(d->node.mac, zero, 6) == 0)
            return fail_at(ld, mac, "%s is not a unicast address", text);
        d->mac_given = true;
    }

    if (load_device(ld, group, &d->node) < 0)
        return -1;
    if ((devargs = member_of(group, "devargs"))) {
        if (string_value(ld, devargs, d->node.devargs, sizeof d->node.devargs, &text) < 0)
            return -1;
        if (text[0] == '\0' && ld->cfg.net_mode == INI_NET_PCI && !d->node.device[0])
            return fail_at(ld, devargs, "empty, but pci mode needs the INI's device (devargs or device)");
    } else if (ld->cfg.net_mode == INI_NET_PCI && !d->node.device[0]) {
        return fail_member(ld, group, "devargs", "missing (pci mode needs devargs or device)");
    }
    /* The global faults group is read before the clusters: an INI without
     * its own group inherits it. */
    d->node.faults = ld->cfg.faults;
    return load_faults(ld, group, &d->node.faults) < 0 ? -1 : 0;
}

static int load_cluster(struct loader *ld, const config_setting_t *group, int pos)
{
    static const char *const allowed[] = { "id", "host", "pes", "inis", "static", NULL };
    struct cluster_draft *c = &ld->clusters[pos];

    if (check_group(ld, group, allowed) < 0)
        return -1;
    c->group = group;
    if (load_host(ld, c) < 0)
        return -1;
    if (!(c->id_setting = member_of(group, "id")))
        return fail_member(ld, group, "id", "missing (required)");
    if (int_value(ld, c->id_setting, &c->id) < 0)
        return -1;

    if (!(c->pes_setting = member_of(group, "pes")))
        return fail_member(ld, group, "pes", "missing (required)");
    if (read_sequence(ld, c->pes_setting, INI_MAX_PES_PER_CLUSTER, "compute node ids") < 0)
        return -1;
    c->n_pes = config_setting_length(c->pes_setting);
    for (int i = 0; i < c->n_pes; i++)
        if (int_value(ld, config_setting_get_elem(c->pes_setting, (unsigned)i), &c->pes[i]) < 0)
            return -1;
    if (ld->n_pes + c->n_pes > INI_MAX_PES)
        return fail_at(ld, c->pes_setting, "more than %d compute nodes in the machine (INI_MAX_PES)",
                       INI_MAX_PES);
    ld->n_pes += c->n_pes;

    if (!(c->inis_setting = member_of(group, "inis")))
        return fail_member(ld, group, "inis", "missing (required)");
    if (read_group_list(ld, c->inis_setting, INI_MAX_INIS_PER_CLUSTER, "INIs") < 0)
        return -1;
    c->first_ini = ld->n_inis;
    c->n_inis = config_setting_length(c->inis_setting);
    for (int i = 0; i < c->n_inis; i++)
        if (load_ini(ld, config_setting_get_elem(c->inis_setting, (unsigned)i), pos, i) < 0)
            return -1;

    if ((c->static_setting = member_of(group, "static"))) {
        if (read_sequence(ld, c->static_setting, INI_MAX_PES_PER_CLUSTER, "INI ids") < 0)
            return -1;
        int n = config_setting_length(c->static_setting);
        for (int i = 0; i < n; i++)
            if (int_value(ld, config_setting_get_elem(c->static_setting, (unsigned)i),
                          &c->static_inis[i]) < 0)
                return -1;
        if (n != c->n_pes)
            return fail_at(ld, c->static_setting, "length %d differs from the length of pes (%d)",
                           n, c->n_pes);
    }
    if (c->n_pes == 0 && c->n_inis == 0)
        return fail_at(ld, group, "cluster has no compute node and no INI");
    return 0;
}

static int load_clusters(struct loader *ld, const config_setting_t *root)
{
    const config_setting_t *list = member_of(root, "clusters");
    if (!list)
        return fail_member(ld, root, "clusters", "missing (required)");
    if (read_group_list(ld, list, INI_MAX_CLUSTERS, "clusters") < 0)
        return -1;
    ld->n_clusters = config_setting_length(list);
    if (ld->n_clusters == 0)
        return fail_at(ld, list, "no cluster");
    for (int i = 0; i < ld->n_clusters; i++)
        if (load_cluster(ld, config_setting_get_elem(list, (unsigned)i), i) < 0)
            return -1;
    return 0;
}

static int load_structure(struct loader *ld, const config_setting_t *root)
{
    static const char *const allowed[] = { "version", "network", "policy", "stack", "idle",
                                           "trace", "eal", "faults", "knobs", "clusters", "security", NULL };
    const config_setting_t *version = member_of(root, "version");
    long long value = 0;

    /* The version first: a file of another version may well fail every
     * other check, and that message would mislead. */
    if (!version)
        return fail_member(ld, root, "version", "missing (required; this program reads version %d)",
                           FORMAT_VERSION);
    if (int_value(ld, version, &value) < 0)
        return -1;
    if (value != FORMAT_VERSION)
        return fail_at(ld, version, "unsupported version %lld (this program reads version %d)",
                       value, FORMAT_VERSION);
    if (check_group(ld, root, allowed) < 0 ||
        load_network(ld, root) < 0 || load_policy(ld, root) < 0 || load_stack(ld, root) < 0 ||
        load_idle(ld, root) < 0 || load_trace(ld, root) < 0 || load_eal(ld, root) < 0 ||
        load_faults(ld, root, &ld->cfg.faults) < 0 || load_knobs(ld, root) < 0 ||
        load_clusters(ld, root) < 0)
        return -1;
    if (load_security(ld, root) < 0)
        return -1;
    return 0;
}

/* ---- pass 3: cross references ------------------------------------------ */

/* Ids must be exactly 0..n-1: each in range and none twice is equivalent. */
static int check_dense_id(struct loader *ld, const config_setting_t *s, const char *what,
                          long long id, int n, int *owner, int self)
{
    if (id < 0 || id >= n)
        return fail_at(ld, s, "%s id %lld is out of range 0..%d (ids are dense from 0)", what, id, n - 1);
    if (owner[id] >= 0)
        return -2;   /* duplicate: the caller words it, it knows what owns the id */
    owner[id] = self;
    return 0;
}

static int check_cross_references(struct loader *ld)
{
    int cluster_pos_of_id[INI_MAX_CLUSTERS];
    int cluster_pos_of_pe[INI_MAX_PES];
    int ini_pos_of_id[INI_MAX_INIS];
    memset(cluster_pos_of_id, -1, sizeof cluster_pos_of_id);
    memset(cluster_pos_of_pe, -1, sizeof cluster_pos_of_pe);
    memset(ini_pos_of_id, -1, sizeof ini_pos_of_id);

    for (int pos = 0; pos < ld->n_clusters; pos++) {
        const struct cluster_draft *c = &ld->clusters[pos];
        int rc = check_dense_id(ld, c->id_setting, "cluster", c->id, ld->n_clusters,
                                cluster_pos_of_id, pos);
        if (rc == -1)
            return -1;
        if (rc == -2)
            return fail_at(ld, c->id_setting, "duplicate cluster id %lld (also clusters[%d])",
                           c->id, cluster_pos_of_id[c->id]);
    }

    for (int pos = 0; pos < ld->n_clusters; pos++) {
        const struct cluster_draft *c = &ld->clusters[pos];
        for (int i = 0; i < c->n_pes; i++) {
            const config_setting_t *s = config_setting_get_elem(c->pes_setting, (unsigned)i);
            int rc = check_dense_id(ld, s, "compute node", c->pes[i], ld->n_pes,
                                    cluster_pos_of_pe, pos);
            if (rc == -1)
                return -1;
            if (rc == -2 && cluster_pos_of_pe[c->pes[i]] == pos)
                return fail_at(ld, s, "duplicate compute node id %lld in this cluster", c->pes[i]);
            if (rc == -2)
                return fail_at(ld, s, "compute node %lld is already in cluster %lld", c->pes[i],
                               ld->clusters[cluster_pos_of_pe[c->pes[i]]].id);
        }
    }

    for (int pos = 0; pos < ld->n_inis; pos++) {
        const struct ini_draft *d = &ld->inis[pos];
        const config_setting_t *s = member_of(d->group, "id");
        int rc = check_dense_id(ld, s, "INI", d->id, ld->n_inis, ini_pos_of_id, pos);
        if (rc == -1)
            return -1;
        if (rc == -2) {
            const struct ini_draft *first = &ld->inis[ini_pos_of_id[d->id]];
            return fail_at(ld, s, "duplicate INI id %lld (also in cluster %lld)", d->id,
                           ld->clusters[first->cluster_pos].id);
        }
    }

    for (int pos = 0; pos < ld->n_clusters; pos++) {
        const struct cluster_draft *c = &ld->clusters[pos];
        if (c->n_pes > 0 && c->n_inis == 0)
            return fail_at(ld, c->inis_setting, "compute node %lld has no INI (cluster %lld lists none)",
                           c->pes[0], c->id);
    }

    /* Addresses: the MAC default is derived now that the ids are known, so
     * that an explicit MAC colliding with a derived one is caught too. */
    for (int pos = 0; pos < ld->n_inis; pos++) {
        struct ini_draft *d = &ld->inis[pos];
        if (!d->mac_given)
            default_mac((int)d->id, d->node.mac);
        for (int other = 0; other < pos; other++) {
            const struct ini_draft *o = &ld->inis[other];
            if (o->node.ip == d->node.ip) {
                char ip[INET_ADDRSTRLEN];
                format_ip(d->node.ip, ip);
                return fail_at(ld, member_of(d->group, "ip"), "%s is already the address of INI %lld",
                               ip, o->id);
            }
            if (memcmp(o->node.mac, d->node.mac, 6) == 0) {
                char mac[18];
                format_mac(d->node.mac, mac);
                if (d->mac_given)
                    return fail_at(ld, member_of(d->group, "mac"), "%s is already the MAC of INI %lld",
                                   mac, o->id);
                return fail_member(ld, d->group, "mac", "%s (derived from the id) is already the MAC of INI %lld",
                                   mac, o->id);
            }
        }
    }

    for (int pos = 0; pos < ld->n_clusters; pos++) {
        const struct cluster_draft *c = &ld->clusters[pos];
        if (!c->static_setting)
            continue;
        for (int i = 0; i < c->n_pes; i++) {
            const config_setting_t *s = config_setting_get_elem(c->static_setting, (unsigned)i);
            long long ini = c->static_inis[i];
            if (ini < 0 || ini >= ld->n_inis)
                return fail_at(ld, s, "INI %lld does not exist (INI ids are 0..%d)", ini, ld->n_inis - 1);
            long long owner = ld->clusters[ld->inis[ini_pos_of_id[ini]].cluster_pos].id;
            if (owner != c->id)
                return fail_at(ld, s, "INI %lld belongs to cluster %lld, not to this cluster (%lld)",
                               ini, owner, c->id);
        }
    }

    /* memif: every INI has one DPDK port per INI of the other clusters,
     * and DPDK has RTE_MAX_ETHPORTS of them. */
    if (ld->cfg.net_mode == INI_NET_MEMIF)
        for (int pos = 0; pos < ld->n_clusters; pos++) {
            const struct cluster_draft *c = &ld->clusters[pos];
            int peers = ld->n_inis - c->n_inis;
            if (peers > INI_MEMIF_MAX_PEERS)
                return fail_at(ld, c->inis_setting, "in memif mode each INI of this cluster needs a port "
                               "per INI of the other clusters, %d, and DPDK has %d; use af_packet, or "
                               "fewer INIs", peers, INI_MEMIF_MAX_PEERS);
        }
    return 0;
}

/* ---- assembly ----------------------------------------------------------- */

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Every id is valid and dense by now: arrays are indexed by id. */
static void assemble(struct loader *ld)
{
    struct ini_config *cfg = &ld->cfg;
    cfg->n_clusters = ld->n_clusters;
    cfg->n_pes = ld->n_pes;
    cfg->n_inis = ld->n_inis;

    for (int pos = 0; pos < ld->n_inis; pos++) {
        const struct ini_draft *d = &ld->inis[pos];
        struct ini_node_cfg *node = &cfg->inis[d->id];
        *node = d->node;
        node->id = (int)d->id;
        node->cluster = (int)ld->clusters[d->cluster_pos].id;
        node->index = d->index;
    }

    for (int pos = 0; pos < ld->n_clusters; pos++) {
        const struct cluster_draft *d = &ld->clusters[pos];
        struct ini_cluster_cfg *c = &cfg->clusters[d->id];
        c->id = (int)d->id;
        memcpy(c->host, d->host, sizeof c->host);
        c->n_pes = d->n_pes;
        c->n_inis = d->n_inis;
        for (int i = 0; i < d->n_inis; i++)
            c->inis[i] = (int)ld->inis[d->first_ini + i].id;
        for (int i = 0; i < d->n_pes; i++) {
            c->pes[i] = (int)d->pes[i];
            /* static is written in the order of pes in the file. */
            cfg->pes[d->pes[i]].static_ini = d->static_setting ? (int)d->static_inis[i] : -1;
        }
        qsort(c->pes, (size_t)c->n_pes, sizeof c->pes[0], compare_ints);
        for (int local = 0; local < c->n_pes; local++) {
            struct ini_pe_cfg *pe = &cfg->pes[c->pes[local]];
            pe->id = c->pes[local];
            pe->cluster = c->id;
            pe->local = local;
            if (!d->static_setting)   /* blocks: consecutive PEs share an INI */
                pe->static_ini = c->inis[local * c->n_inis / c->n_pes];
        }
    }
}

/* ---- loading ------------------------------------------------------------ */


/* libconfig says only "file I/O error", and would block on a FIFO and
 * parse a file of any size (a 10 MB one takes minutes): open the file
 * ourselves first, without blocking, to refuse those with the reason. */
static int check_readable(struct loader *ld)
{
    char why[128];
    int fd = ini_open_regular(ld->path, INI_CONFIG_MAX_BYTES, why, sizeof why);
    if (fd < 0)
        return fail_plain(ld, NULL, 0, "file", "%s", why);
    close(fd);
    return 0;
}

/* libconfig (1.5) opens an @include target with fopen and reads it with
 * its scanner: a directory makes the scanner fail with exit(2) inside the
 * library ("input in flex scanner failed"), a FIFO blocks, a device never
 * ends.  So every target is checked first, as the file itself is: each
 * line that starts (after blanks) with @include "NAME" (escapes \\ and
 * \" as libconfig reads them) names include_dir/NAME; a target that
 * exists must be a regular file within the size limit, and its own
 * includes are checked in turn, as deep as libconfig goes (10).  A line
 * inside a comment is checked too: stricter than libconfig, never looser.
 * A target that does not exist is left to libconfig's own error. */
#define INCLUDE_DEPTH_MAX 10

static int check_includes(struct loader *ld, const char *text, size_t len, const char *file, int depth)
{
    int line = 1;
    size_t i = 0;
    while (i < len) {
        size_t k = i;
        while (k < len && (text[k] == ' ' || text[k] == '\t'))
            k++;
        int at = line;                   /* the line the directive starts on */
        if (len - k > 8 && memcmp(text + k, "@include", 8) == 0) {
            k += 8;
            size_t blanks = k;
            while (k < len && (text[k] == ' ' || text[k] == '\t'))
                k++;
            if (k > blanks && k < len && text[k] == '"') {
                /* The name runs to the next quote, across lines as in
                 * libconfig.  How libconfig reads escapes, line breaks and
                 * NUL bytes in it is its own business (fuzz_config found
                 * two ways to name the directory that way): a name with
                 * any of them, or an empty one, is refused outright. */
                char name[INI_PATH_LEN];
                size_t n = 0;
                int closed = 0, odd = 0;
                for (k++; k < len; k++) {
                    unsigned char c = (unsigned char)text[k];
                    if (c == '"') {
                        closed = 1;
                        k++;
                        break;
                    }
                    if (c == '\n')
                        line++;
                    if (c < 0x20 || c == 0x7f || c == '\\')
                        odd = 1;
                    if (n + 1 < sizeof name)
                        name[n++] = (char)(c < 0x20 || c == 0x7f ? '?' : c);
                }
                name[n] = '\0';
                if (closed && (odd || n == 0))
                    return fail_plain(ld, file, at, "file", "@include \"%s\": %s", name,
                                      n ? "a name with a backslash or a control character" : "no name");
                char target[2 * INI_PATH_LEN + 2];
                if (ld->include_dir[0])
                    snprintf(target, sizeof target, "%s/%s", ld->include_dir, name);
                else
                    snprintf(target, sizeof target, "%s", name);
                struct stat st;
                if (closed && stat(target, &st) == 0) {
                    char why[128];
                    int fd = ini_open_regular(target, INI_CONFIG_MAX_BYTES, why, sizeof why);
                    if (fd < 0)
                        return fail_plain(ld, file, at, "file", "@include \"%s\": %s", name, why);
                    if (depth + 1 >= INCLUDE_DEPTH_MAX) {
                        close(fd);
                        return fail_plain(ld, file, at, "file", "@include \"%s\": includes nested "
                                          "deeper than %d", name, INCLUDE_DEPTH_MAX);
                    }
                    char *inner = fstat(fd, &st) == 0 ? malloc((size_t)st.st_size + 1) : NULL;
                    ssize_t got = inner ? read(fd, inner, (size_t)st.st_size) : -1;
                    close(fd);
                    int rc = got < 0 ? 0 : check_includes(ld, inner, (size_t)got, target, depth + 1);
                    free(inner);
                    if (rc < 0)
                        return -1;
                }
            }
        }
        /* On to the next line (the rest of this one cannot start a
         * directive). */
        while (k < len && text[k] != '\n')
            k++;
        i = k + 1;
        line++;
    }
    return 0;
}

static int load_common(const char *path, const char *text, struct ini_config *cfg, char *err,
                       size_t errlen);

int ini_config_load(const char *path, struct ini_config *cfg, char *err, size_t errlen)
{
    return load_common(path, NULL, cfg, err, errlen);
}

int ini_config_load_text(const char *text, const char *name, struct ini_config *cfg, char *err,
                         size_t errlen)
{
    if (!text) {
        if (err && errlen)
            snprintf(err, errlen, "%s:0: file: no text given", name ? name : "(null)");
        return -1;
    }
    return load_common(name, text, cfg, err, errlen);
}

/* Loads PATH, or TEXT under the name PATH when TEXT is not NULL. */
static int load_common(const char *path, const char *text, struct ini_config *cfg, char *err,
                       size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    struct loader *ld = calloc(1, sizeof *ld);
    if (!ld) {
        if (err && errlen)
            snprintf(err, errlen, "%s:0: file: out of memory", path ? path : "(null)");
        return -1;
    }
    ld->path = path ? path : "(null)";
    ld->err = err;
    ld->errlen = errlen;
    set_defaults(&ld->cfg);

    if (!path || !cfg) {
        fail_plain(ld, NULL, 0, "file", "no file or no result given");
        free(ld);
        return -1;
    }
    if (strlen(path) >= sizeof ld->cfg.path) {
        fail_plain(ld, NULL, 0, "file", "path longer than %zu characters", sizeof ld->cfg.path - 1);
        free(ld);
        return -1;
    }
    snprintf(ld->cfg.path, sizeof ld->cfg.path, "%s", path);
    if (text && strlen(text) > INI_CONFIG_MAX_BYTES) {
        fail_plain(ld, NULL, 0, "file", "more than the limit of %d bytes", INI_CONFIG_MAX_BYTES);
        free(ld);
        return -1;
    }
    if (!text && check_readable(ld) < 0) {
        free(ld);
        return -1;
    }

    config_t tree;
    config_init(&tree);
    /* @include "x.cfg" is relative to the including file, not to the
     * current directory of whoever starts the daemon. */
    snprintf(ld->include_dir, sizeof ld->include_dir, "%s", path);
    char *slash = strrchr(ld->include_dir, '/');
    if (slash) {
        slash[slash == ld->include_dir ? 1 : 0] = '\0';
        config_set_include_dir(&tree, ld->include_dir);
    } else {
        ld->include_dir[0] = '\0';
    }

    int rc = -1;
    if (text && check_includes(ld, text, strlen(text), path, 0) < 0) {
        config_destroy(&tree);
        free(ld);
        return -1;
    }
    if (!text) {
        /* The file's own includes: read it once more, it is at most
         * INI_CONFIG_MAX_BYTES (check_readable). */
        char why[128];
        struct stat st;
        int fd = ini_open_regular(path, INI_CONFIG_MAX_BYTES, why, sizeof why);
        char *own = fd >= 0 && fstat(fd, &st) == 0 ? malloc((size_t)st.st_size + 1) : NULL;
        ssize_t got = own ? read(fd, own, (size_t)st.st_size) : -1;
        if (fd >= 0)
            close(fd);
        int bad = got >= 0 && check_includes(ld, own, (size_t)got, path, 0) < 0;
        free(own);
        if (bad) {
            config_destroy(&tree);
            free(ld);
            return -1;
        }
    }
    if (!(text ? config_read_string(&tree, text) : config_read_file(&tree, path))) {
        if (config_error_type(&tree) == CONFIG_ERR_FILE_IO)
            fail_plain(ld, config_error_file(&tree), config_error_line(&tree), "file",
                       "cannot read: %s", config_error_text(&tree));
        else
            fail_plain(ld, config_error_file(&tree), config_error_line(&tree), "syntax", "%s",
                       config_error_text(&tree));
    } else if (load_structure(ld, config_root_setting(&tree)) == 0 &&
               check_cross_references(ld) == 0 && check_hosts(ld) == 0) {
        assemble(ld);
        memcpy(cfg, &ld->cfg, sizeof *cfg);
        rc = 0;
    }
    config_destroy(&tree);
    free(ld);
    return rc;
}

/* ---- generation --------------------------------------------------------- */

static int generate_error(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int generate_error(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static void write_int_list(FILE *out, const int *values, int n)
{
    fputc('[', out);
    for (int i = 0; i < n; i++) {
        /* Sixteen to a line keeps a 64-node cluster readable. */
        if (i > 0)
            fputs(i % 16 == 0 ? ",\n              " : ", ", out);
        fprintf(out, "%d", values[i]);
    }
    fputc(']', out);
}

int ini_config_generate(FILE *out, int n_clusters, int pes_per_cluster,
                        int inis_per_cluster, enum ini_net_mode mode,
                        char *err, size_t errlen)
{
    return ini_config_generate_hosts(out, n_clusters, pes_per_cluster, inis_per_cluster, mode,
                                     NULL, 0, NULL, 0, err, errlen);
}

int ini_config_generate_hosts(FILE *out, int n_clusters, int pes_per_cluster,
                              int inis_per_cluster, enum ini_net_mode mode,
                              const char *const *hosts, int n_hosts,
                              const char *const *devices, int n_devices,
                              char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!out)
        return generate_error(err, errlen, "no output file");
    if (n_clusters < 1 || n_clusters > INI_MAX_CLUSTERS)
        return generate_error(err, errlen, "clusters: %d is out of range 1..%d",
                              n_clusters, INI_MAX_CLUSTERS);
    if (pes_per_cluster < 1 || pes_per_cluster > INI_MAX_PES_PER_CLUSTER)
        return generate_error(err, errlen, "compute nodes per cluster: %d is out of range 1..%d",
                              pes_per_cluster, INI_MAX_PES_PER_CLUSTER);
    if (inis_per_cluster < 1 || inis_per_cluster > INI_MAX_INIS_PER_CLUSTER)
        return generate_error(err, errlen, "INIs per cluster: %d is out of range 1..%d",
                              inis_per_cluster, INI_MAX_INIS_PER_CLUSTER);
    if (n_clusters * pes_per_cluster > INI_MAX_PES)
        return generate_error(err, errlen, "%d clusters x %d compute nodes = %d compute nodes, at most %d",
                              n_clusters, pes_per_cluster, n_clusters * pes_per_cluster, INI_MAX_PES);
    if (n_clusters * inis_per_cluster > INI_MAX_INIS)
        return generate_error(err, errlen, "%d clusters x %d INIs = %d INIs, at most %d",
                              n_clusters, inis_per_cluster, n_clusters * inis_per_cluster, INI_MAX_INIS);
    if (n_hosts > 0 && mode == INI_NET_MEMIF)
        return generate_error(err, errlen, "memif joins the INIs of one host: clusters on several "
                              "hosts need --mode af_packet (or pci)");
    if (n_hosts > 0 && !n_devices)
        return generate_error(err, errlen, "clusters on hosts need each INI's interface or PCI "
                              "address on its host (--device)");
    for (int k = 0; k < n_devices; k++)
        if (!ini_device_is_pci(devices[k]) && !is_iface_name(devices[k]))
            return generate_error(err, errlen, "device \"%s\" is neither a PCI address nor an "
                                  "interface name", devices[k]);
    for (int k = 0; k < n_hosts; k++) {
        if (!hosts[k][0] || strlen(hosts[k]) >= INI_HOST_LEN || strchr(hosts[k], '"'))
            return generate_error(err, errlen, "host \"%s\" is not a host name", hosts[k]);
    }
    if (mode == INI_NET_PCI && !n_devices)
        return generate_error(err, errlen, "pci mode needs the device of every INI (devargs), "
                              "which cannot be generated; generate in memif or af_packet mode "
                              "and add mode = \"pci\" and the devargs by hand");
    if (mode != INI_NET_MEMIF && mode != INI_NET_AF_PACKET && mode != INI_NET_PCI)
        return generate_error(err, errlen, "unknown network mode %d", (int)mode);
    if (mode == INI_NET_MEMIF && (n_clusters - 1) * inis_per_cluster > INI_MEMIF_MAX_PEERS)
        return generate_error(err, errlen, "memif mode gives each INI a port per INI of the other "
                              "clusters, %d here, and DPDK has %d; use --mode af_packet",
                              (n_clusters - 1) * inis_per_cluster, INI_MEMIF_MAX_PEERS);

    struct ini_config d;
    set_defaults(&d);
    fprintf(out,
            "# %d cluster%s x %d compute node%s x %d INI%s, %s mode, written by the\n"
            "# configuration generator (ini-cluster gen %d %d %d --mode %s).\n"
            "# Every optional group is spelled out with its default; see docs/config.md.\n"
            "version = %d;\n"
            "network = { mode = \"%s\"; bridge = \"%s\"; };\n"
            "policy  = { compute = \"%s\"; ini = \"%s\"; };\n"
            "stack   = { mtu = %d; window = %d; seq_bits = %d; send_timeout_us = %d;\n"
            "            ack_timeout_us = %d; max_message = %d; nak = %s; segmentation = %s; };\n"
            "idle    = { mode = \"%s\"; spin_us = %d; max_sleep_us = %d; yield_us = %d; colocate = %s; };\n"
            "trace   = { mode = \"%s\"; records = %d; };\n"
            "eal     = { memory_mb = %d; hugepages = \"auto\"; args = [ ]; };\n"
            "clusters = (\n",
            n_clusters, n_clusters > 1 ? "s" : "", pes_per_cluster, pes_per_cluster > 1 ? "s" : "",
            inis_per_cluster, inis_per_cluster > 1 ? "s" : "", ini_net_mode_name(mode),
            n_clusters, pes_per_cluster, inis_per_cluster, ini_net_mode_name(mode),
            FORMAT_VERSION, ini_net_mode_name(mode), d.bridge,
            ini_policy_name(d.pe_policy), ini_policy_name(d.ini_policy),
            d.stack.mtu, d.stack.window, d.stack.seq_bits, d.stack.send_timeout_us,
            d.stack.ack_timeout_us, d.stack.max_message, d.stack.nak ? "true" : "false",
            d.stack.segmentation ? "true" : "false",
            ini_idle_mode_name(d.idle.mode), d.idle.spin_us, d.idle.max_sleep_us, d.idle.yield_us,
            d.idle.colocate ? "true" : "false",
            ini_trace_mode_name(d.trace.mode), d.trace.records, d.eal_memory_mb);

    for (int c = 0; c < n_clusters; c++) {
        int pes[INI_MAX_PES_PER_CLUSTER], statics[INI_MAX_PES_PER_CLUSTER];
        int first_ini = c * inis_per_cluster;
        for (int i = 0; i < pes_per_cluster; i++) {
            pes[i] = c * pes_per_cluster + i;
            statics[i] = first_ini + i * inis_per_cluster / pes_per_cluster;
        }
        fprintf(out, "  { id = %d;\n", c);
        if (n_hosts > 0)
            fprintf(out, "    host   = \"%s\";\n", hosts[c % n_hosts]);
        fputs("    pes    = ", out);
        write_int_list(out, pes, pes_per_cluster);
        fputs(";\n    inis   = (\n", out);
        for (int k = 0; k < inis_per_cluster; k++) {
            int id = first_ini + k;
            char ip[INET_ADDRSTRLEN], mac[18];
            uint8_t mac_bytes[6];
            format_ip(generated_ip(id), ip);
            default_mac(id, mac_bytes);
            format_mac(mac_bytes, mac);
            fprintf(out, "      { id = %d; core = -1; ip = \"%s\"; mac = \"%s\";", id, ip, mac);
            if (n_devices > 0)
                fprintf(out, " device = \"%s\";", devices[k % n_devices]);
            fprintf(out, " }%s\n", k + 1 < inis_per_cluster ? "," : "");
        }
        fputs("    );\n    static = ", out);
        write_int_list(out, statics, pes_per_cluster);
        fprintf(out, ";\n  }%s\n", c + 1 < n_clusters ? "," : "");
    }
    fputs(");\n", out);

    if (fflush(out) != 0 || ferror(out))
        return generate_error(err, errlen, "cannot write the configuration: %s", strerror(errno));
    return 0;
}
