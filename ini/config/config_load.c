/*
 * config_load.c - stage 1 of the loader and its entry points (config.h,
 * config_internal.h): the file and every @include target checked before
 * libconfig sees them, the parse, then passes 2 and 3 and the copy of the
 * result to the caller.
 */
#include "config_internal.h"
#include "file_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* libconfig says only "file I/O error", and would block on a FIFO and
 * parse a file of any size (a 10 MB one takes minutes): open the file
 * ourselves first, without blocking, to refuse those with the reason. */
static int check_readable(struct loader *ld)
{
    char why[128];
    int fd = ini_open_regular(ld->path, INI_CONFIG_MAX_BYTES, why, sizeof why);
    if (fd < 0)
        return cfg_fail(ld, NULL, 0, "file", "%s", why);
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
                    return cfg_fail(ld, file, at, "file", "@include \"%s\": %s", name,
                                    n ? "a name with a backslash or a control character" : "no name");
                char target[2 * INI_PATH_LEN + 2];
                if (ld->include_dir[0])
                    snprintf(target, sizeof target, "%s/%s", ld->include_dir, name);
                else
                    snprintf(target, sizeof target, "%s", name);
                struct stat st;
                if (closed && stat(target, &st) == 0) {
                    char why[128];
                    size_t got;
                    char *inner = ini_read_regular(target, INI_CONFIG_MAX_BYTES, &got, why, sizeof why);
                    if (!inner)
                        return cfg_fail(ld, file, at, "file", "@include \"%s\": %s", name, why);
                    if (depth + 1 >= INCLUDE_DEPTH_MAX) {
                        free(inner);
                        return cfg_fail(ld, file, at, "file", "@include \"%s\": includes nested "
                                          "deeper than %d", name, INCLUDE_DEPTH_MAX);
                    }
                    int rc = check_includes(ld, inner, got, target, depth + 1);
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

/* The text of the file at path, read once more for its includes (it is at
 * most INI_CONFIG_MAX_BYTES: check_readable); NULL if it cannot be read,
 * which libconfig then reports.  *len is its length. */
static char *read_own_text(const char *path, size_t *len)
{
    char why[128];
    return ini_read_regular(path, INI_CONFIG_MAX_BYTES, len, why, sizeof why);
}

/* A loader for PATH (TEXT: its text, or NULL to read the file) after the
 * checks that need no parse, with its include directory: @include "x.cfg"
 * is relative to the including file, not to the current directory of
 * whoever starts the daemon.  NULL after reporting. */
static struct loader *loader_start(const char *path, const char *text, const struct ini_config *cfg,
                                   char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    struct loader *ld = calloc(1, sizeof *ld);
    if (!ld) {
        if (err && errlen)
            snprintf(err, errlen, "%s: file: out of memory", path ? path : "(null)");
        return NULL;
    }
    ld->path = path ? path : "(null)";
    ld->err = err;
    ld->errlen = errlen;
    ini_config_defaults(&ld->cfg);

    int bad = -1;
    if (!path || !cfg)
        cfg_fail(ld, NULL, 0, "file", "no file or no result given");
    else if (strlen(path) >= sizeof ld->cfg.path)
        cfg_fail(ld, NULL, 0, "file", "path longer than %zu characters", sizeof ld->cfg.path - 1);
    else if (text && strlen(text) > INI_CONFIG_MAX_BYTES)
        cfg_fail(ld, NULL, 0, "file", "more than the limit of %d bytes", INI_CONFIG_MAX_BYTES);
    else
        bad = !text && check_readable(ld) < 0;
    if (bad) {
        free(ld);
        return NULL;
    }
    snprintf(ld->cfg.path, sizeof ld->cfg.path, "%s", path);
    snprintf(ld->include_dir, sizeof ld->include_dir, "%s", path);
    char *slash = strrchr(ld->include_dir, '/');
    if (slash)
        slash[slash == ld->include_dir ? 1 : 0] = '\0';
    else
        ld->include_dir[0] = '\0';
    return ld;
}

/* Stage 1 (the includes of TEXT, or of the file's own text), the parse,
 * passes 2 and 3; the result in ld->cfg.  0, or -1 after reporting. */
static int load_tree(struct loader *ld, config_t *tree, const char *text)
{
    size_t len = 0;
    char *own = text ? NULL : read_own_text(ld->path, &len);
    int bad = text ? check_includes(ld, text, strlen(text), ld->path, 0) < 0
                   : own && check_includes(ld, own, len, ld->path, 0) < 0;
    free(own);
    if (bad)
        return -1;
    if (!(text ? config_read_string(tree, text) : config_read_file(tree, ld->path))) {
        if (config_error_type(tree) == CONFIG_ERR_FILE_IO)
            return cfg_fail(ld, config_error_file(tree), config_error_line(tree), "file",
                            "cannot read: %s", config_error_text(tree));
        return cfg_fail(ld, config_error_file(tree), config_error_line(tree), "syntax", "%s",
                        config_error_text(tree));
    }
    if (cfg_load_structure(ld, config_root_setting(tree)) < 0 || cfg_check_cross_references(ld) < 0 ||
        cfg_check_hosts(ld) < 0)
        return -1;
    cfg_assemble(ld);
    return 0;
}

/* Loads PATH, or TEXT under the name PATH when TEXT is not NULL. */
static int load_common(const char *path, const char *text, struct ini_config *cfg, char *err,
                       size_t errlen)
{
    struct loader *ld = loader_start(path, text, cfg, err, errlen);
    if (!ld)
        return -1;
    config_t tree;
    config_init(&tree);
    if (ld->include_dir[0])
        config_set_include_dir(&tree, ld->include_dir);
    int rc = load_tree(ld, &tree, text);
    if (rc == 0)
        memcpy(cfg, &ld->cfg, sizeof *cfg);
    config_destroy(&tree);
    free(ld);
    return rc;
}

int ini_config_load(const char *path, struct ini_config *cfg, char *err, size_t errlen)
{
    return load_common(path, NULL, cfg, err, errlen);
}

int ini_config_load_text(const char *text, const char *name, struct ini_config *cfg, char *err,
                         size_t errlen)
{
    if (!text) {
        if (err && errlen)
            snprintf(err, errlen, "%s: file: no text given", name ? name : "(null)");
        return -1;
    }
    return load_common(name, text, cfg, err, errlen);
}
