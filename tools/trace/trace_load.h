/*
 * trace_load.h - the skeleton both trace loaders share: the INI's
 * (trace_file.c, ini<ID>.trace) and the compute nodes' (cn_file.c,
 * cn<C>.trace).  A loader describes its format (struct trace_format: its
 * file names, sizes, header check and record decoder); the skeleton opens
 * the file without blocking (ini_open_regular), refuses one shorter than
 * its header, checks the header, decodes the records in chunks (a file of
 * a million records need not be in memory twice), and for a run reads
 * every <prefix><N>.trace of the directory, checks N against the header
 * and refuses a number found twice, each with one line in err.
 */
#ifndef TRACE_LOAD_H
#define TRACE_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "trace_file.h"     /* struct trace_image, TRACE_SHOWN_LEN */

struct trace_format {
    const char *prefix;         /* the files are <prefix><N>.trace */
    const char *id_what;        /* what N numbers, in messages: "INI", "cluster" */
    size_t header_size, rec_size, file_size;
    size_t path_off, name_off, shown_off;   /* the file struct's path[1024], name[256], shown[] */
    size_t n_off, recs_off, elem_size;      /* its uint64_t record count, its records' array, one element */
    /* The header of a file of size bytes (at least header_size) checked
     * and kept in the file struct, its record count among it. */
    int  (*header)(void *file, const uint8_t *header, uint64_t size, char *err, size_t errlen);
    /* Records first .. first+m-1, encoded in buf: decoded and checked. */
    int  (*records)(void *file, uint64_t first, const uint8_t *buf, size_t m, char *err, size_t errlen);
    long (*id)(const void *file);          /* N, from the header */
    int  (*cmp)(const void *a, const void *b);   /* qsort: ascending N */
    void (*free)(void *file);
};

/* A trace_format's layout fields for the file struct TYPE, its records
 * in its array field RECS: the contract above, stated once for both
 * loaders. */
#define TRACE_FORMAT_LAYOUT(type, recs)                                                                    \
    .file_size = sizeof(type), .path_off = offsetof(type, path), .name_off = offsetof(type, name),          \
    .shown_off = offsetof(type, shown), .n_off = offsetof(type, n), .recs_off = offsetof(type, recs),       \
    .elem_size = sizeof(*((type *)0)->recs)

/* A file from disk (streamed) or from its bytes in memory: 0, or -1 with
 * the error in err and the file freed. */
int trace_load_file(const struct trace_format *k, void *file, const char *path, char *err, size_t errlen);
int trace_load_file_mem(const struct trace_format *k, void *file, const char *path, const uint8_t *bytes,
                        uint64_t size, char *err, size_t errlen);

/* Every <prefix><N>.trace of dir (or, images != NULL, of the n images),
 * appended to the array *files of *n_files (grown with realloc), then
 * sorted by N; a file whose header names another N, or an N found twice,
 * refused.  shown: dir for messages.  0, or -1 with the error in err (the
 * caller frees what was loaded). */
int trace_load_run(const struct trace_format *k, const char *dir, const char *shown,
                   const struct trace_image *images, int n, void **files, int *n_files, char *err, size_t errlen);

#endif
