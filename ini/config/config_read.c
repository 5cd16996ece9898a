/*
 * config_read.c - the loader's vocabulary (config_internal.h): errors that
 * name FILE:LINE: FIELD from a libconfig setting, and the typed reads of
 * settings every pass of the loader uses.
 */
#include "config_internal.h"
#include "file_util.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- errors ----------------------------------------------------------- */

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

/* Writes "FILE:LINE: FIELD: message" ("FILE: FIELD: message" when the
 * error is the whole file's, line 0) unless an error was already written.
 * Control characters (a string from the file may hold "\n") are replaced,
 * so that the error stays one line.  Always returns -1, for `return cfg_fail()`. */
static int vfail(struct loader *ld, const char *file, int line, const char *field,
                 const char *fmt, va_list ap)
{
    if (ld->failed)
        return -1;
    ld->failed = true;
    if (!ld->err || ld->errlen == 0)
        return -1;
    char shown[ERR_PATH_SHOWN];
    const char *path = ini_path_for_message(report_file(ld, file), shown, sizeof shown);
    /* Line 0: the file as a whole (it cannot be opened, it is too large),
     * "FILE: file: why", with no line to point at. */
    int used = line > 0 ? snprintf(ld->err, ld->errlen, "%s:%d: %s: ", path, line, field)
                        : snprintf(ld->err, ld->errlen, "%s: %s: ", path, field);
    if (used >= 0 && (size_t)used < ld->errlen)
        vsnprintf(ld->err + used, ld->errlen - (size_t)used, fmt, ap);
    for (char *c = ld->err; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return -1;
}

int cfg_fail(struct loader *ld, const char *file, int line, const char *field,
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
int cfg_fail_member(struct loader *ld, const config_setting_t *s, const char *member,
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

const char *cfg_type_name(const config_setting_t *s)
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
 * The cfg_read_* functions look up an optional member of a group and
 * return -1 after reporting, 0 when it is absent (the output keeps its
 * default), 1 when it was read.  The others check one setting: -1 or 0. */

/* A group with no member outside ALLOWED (NULL-terminated). */
int cfg_check_group(struct loader *ld, const config_setting_t *s, const char *const *allowed)
{
    if (!config_setting_is_group(s))
        return cfg_fail_at(ld, s, "expected a group { ... }, found %s", cfg_type_name(s));
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
            return cfg_fail_at(ld, member, "unknown field (expected one of: %s)", expected);
        }
    }
    return 0;
}

const config_setting_t *cfg_member(const config_setting_t *group, const char *name)
{
    return config_setting_get_member(group, name);
}

/* An optional group member; *out is NULL when absent. */
int cfg_read_group(struct loader *ld, const config_setting_t *parent, const char *name,
                   const char *const *allowed, const config_setting_t **out)
{
    *out = cfg_member(parent, name);
    if (!*out)
        return 0;
    return cfg_check_group(ld, *out, allowed) < 0 ? -1 : 1;
}

int cfg_int(struct loader *ld, const config_setting_t *s, long long *out)
{
    int type = config_setting_type(s);
    if (type != CONFIG_TYPE_INT && type != CONFIG_TYPE_INT64)
        return cfg_fail_at(ld, s, "expected an integer, found %s", cfg_type_name(s));
    *out = config_setting_get_int64(s);
    return 0;
}

int cfg_int_in_range(struct loader *ld, const config_setting_t *s, long long lo, long long hi,
                     int *out)
{
    long long value = 0;
    if (cfg_int(ld, s, &value) < 0)
        return -1;
    if (value < lo || value > hi)
        return cfg_fail_at(ld, s, "%lld is out of range %lld..%lld", value, lo, hi);
    *out = (int)value;
    return 0;
}

int cfg_read_int(struct loader *ld, const config_setting_t *group, const char *name,
                 long long lo, long long hi, int *out)
{
    const config_setting_t *s = cfg_member(group, name);
    if (!s)
        return 0;
    return cfg_int_in_range(ld, s, lo, hi, out) < 0 ? -1 : 1;
}

int cfg_read_bool(struct loader *ld, const config_setting_t *group, const char *name, int *out)
{
    const config_setting_t *s = cfg_member(group, name);
    if (!s)
        return 0;
    if (config_setting_type(s) != CONFIG_TYPE_BOOL)
        return cfg_fail_at(ld, s, "expected true or false, found %s", cfg_type_name(s));
    *out = config_setting_get_bool(s);
    return 1;
}

/* A string of at most CAP-1 bytes, copied into OUT when OUT is not NULL. */
int cfg_string(struct loader *ld, const config_setting_t *s, char *out, size_t cap,
               const char **text)
{
    if (config_setting_type(s) != CONFIG_TYPE_STRING)
        return cfg_fail_at(ld, s, "expected a string, found %s", cfg_type_name(s));
    *text = config_setting_get_string(s);
    if (strlen(*text) >= cap)
        return cfg_fail_at(ld, s, "longer than %zu characters", cap - 1);
    if (out)
        memcpy(out, *text, strlen(*text) + 1);
    return 0;
}

int cfg_read_enum(struct loader *ld, const config_setting_t *group, const char *name,
                  const char *const *names, int *out)
{
    const config_setting_t *s = cfg_member(group, name);
    const char *text;
    if (!s)
        return 0;
    if (cfg_string(ld, s, NULL, SIZE_MAX, &text) < 0)
        return -1;
    int value = ini_name_parse(names, text);
    if (value < 0) {
        char expected[128] = "";
        for (int i = 0; names[i]; i++) {
            size_t used = strlen(expected);
            snprintf(expected + used, sizeof expected - used, "%s%s",
                     i == 0 ? "" : names[i + 1] ? ", " : " or ", names[i]);
        }
        return cfg_fail_at(ld, s, "unknown value \"%s\" (expected %s)", text, expected);
    }
    *out = value;
    return 1;
}

/* An array [ ] or list ( ) of at most MAX elements.  Lists are accepted
 * because an empty "( )" is as natural to write as "[ ]". */
int cfg_read_sequence(struct loader *ld, const config_setting_t *s, int max, const char *what)
{
    if (!config_setting_is_array(s) && !config_setting_is_list(s))
        return cfg_fail_at(ld, s, "expected an array [ ... ] of %s, found %s", what, cfg_type_name(s));
    if (config_setting_length(s) > max)
        return cfg_fail_at(ld, s, "%d entries, at most %d are supported", config_setting_length(s), max);
    return 0;
}

/* A list ( ) of groups; an empty array "[ ]" is taken as an empty list. */
int cfg_read_group_list(struct loader *ld, const config_setting_t *s, int max, const char *what)
{
    bool empty_array = config_setting_is_array(s) && config_setting_length(s) == 0;
    if (!config_setting_is_list(s) && !empty_array)
        return cfg_fail_at(ld, s, "expected a list ( { ... }, ... ) of %s, found %s", what, cfg_type_name(s));
    if (config_setting_length(s) > max)
        return cfg_fail_at(ld, s, "%d %s, at most %d are supported", config_setting_length(s), what, max);
    return 0;
}

