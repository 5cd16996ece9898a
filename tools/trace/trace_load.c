/*
 * trace_load.c - the loaders' shared skeleton (trace_load.h): one file
 * opened, checked and decoded; one run's files found, loaded and ordered.
 * What differs between the two formats is in their struct trace_format.
 */
#include "trace_load.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_util.h"

static char *field(void *file, size_t off)
{
    return (char *)file + off;
}

static const char *shown_of(const struct trace_format *k, const void *file)
{
    return (const char *)file + k->shown_off;
}

/* Names the file after path (for messages). */
static void name_file(const struct trace_format *k, void *file, const char *path)
{
    memset(file, 0, k->file_size);
    snprintf(field(file, k->path_off), 1024, "%s", path);
    const char *slash = strrchr(path, '/');
    snprintf(field(file, k->name_off), 256, "%s", slash ? slash + 1 : path);
    ini_path_for_message(path, field(file, k->shown_off), TRACE_SHOWN_LEN);
}

/* The header checked and the records' array allocated (the format's free
 * frees it). */
static int begin(const struct trace_format *k, void *file, const uint8_t *header, uint64_t size, uint64_t *n,
                 char *err, size_t errlen)
{
    if (size < k->header_size)
        return ini_fail(err, errlen, "%s: truncated: %llu bytes, shorter than the %zu-byte header",
                        shown_of(k, file), (unsigned long long)size, k->header_size);
    if (k->header(file, header, size, err, errlen) < 0)
        return -1;
    memcpy(n, field(file, k->n_off), sizeof(*n));
    void *recs = calloc(*n ? *n : 1, k->elem_size);
    if (!recs)
        return ini_fail(err, errlen, "%s: out of memory for %llu records", shown_of(k, file), (unsigned long long)*n);
    memcpy(field(file, k->recs_off), &recs, sizeof(recs));    /* the struct's typed pointer */
    return 0;
}

int trace_load_file_mem(const struct trace_format *k, void *file, const char *path, const uint8_t *bytes,
                        uint64_t size, char *err, size_t errlen)
{
    uint64_t n = 0;
    name_file(k, file, path);
    if (begin(k, file, bytes, size, &n, err, errlen) < 0 ||
        k->records(file, 0, bytes + k->header_size, (size_t)n, err, errlen) < 0) {
        k->free(file);
        return -1;
    }
    return 0;
}

/* The records after the header, read in chunks. */
static int stream_records(const struct trace_format *k, void *file, FILE *fp, uint64_t n, char *err, size_t errlen)
{
    enum { CHUNK = 4096 };
    uint8_t *buf = malloc(CHUNK * k->rec_size);
    int rc = buf ? 0 : ini_fail(err, errlen, "%s: out of memory", shown_of(k, file));
    for (uint64_t i = 0; rc == 0 && i < n; i += CHUNK) {
        size_t m = n - i < CHUNK ? (size_t)(n - i) : CHUNK;
        if (fread(buf, k->rec_size, m, fp) != m)
            rc = ini_fail(err, errlen, "%s: read error after %llu records", shown_of(k, file), (unsigned long long)i);
        else
            rc = k->records(file, i, buf, m, err, errlen);
    }
    free(buf);
    return rc;
}

int trace_load_file(const struct trace_format *k, void *file, const char *path, char *err, size_t errlen)
{
    name_file(k, file, path);
    const char *shown = shown_of(k, file);
    /* Never blocks: a FIFO under a trace file's name is refused, not read. */
    char why[128];
    int fd = ini_open_regular(path, -1, why, sizeof(why));
    if (fd < 0)
        return ini_fail(err, errlen, "%s: %s", shown, why);
    FILE *fp = fdopen(fd, "rb");
    struct stat st;
    if (!fp || fstat(fd, &st) != 0) {
        int e = errno;
        if (fp)
            fclose(fp);
        else
            close(fd);
        return ini_fail(err, errlen, "%s: %s", shown, strerror(e));
    }
    uint64_t size = (uint64_t)st.st_size, n = 0;
    uint8_t header[256];
    int rc = 0;
    if (k->header_size > sizeof(header))
        rc = ini_fail(err, errlen, "%s: a header of %zu bytes", shown, k->header_size);
    else if (size >= k->header_size && fread(header, k->header_size, 1, fp) != 1)
        rc = ini_fail(err, errlen, "%s: cannot read the header", shown);
    else if (begin(k, file, header, size, &n, err, errlen) < 0)
        rc = -1;
    else
        rc = stream_records(k, file, fp, n, err, errlen);
    fclose(fp);
    if (rc < 0)
        k->free(file);
    return rc;
}

/* One file of the run by name, if it is named like one: 0 (loaded, or
 * passed over), or -1. */
static int add_file(const struct trace_format *k, const char *dir, const char *shown, const char *name,
                    const struct trace_image *image, char **files, int *n_files, int *cap, char *err,
                    size_t errlen)
{
    long id = trace_name_number(name, k->prefix);
    if (id < 0)
        return 0;
    if (*n_files == *cap) {
        int grown_cap = *cap ? 2 * *cap : 16;
        char *grown = realloc(*files, (size_t)grown_cap * k->file_size);
        if (!grown)
            return ini_fail(err, errlen, "%s: out of memory", shown);
        *files = grown;
        *cap = grown_cap;
    }
    void *f = *files + (size_t)*n_files * k->file_size;
    char path[2048];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if ((image ? trace_load_file_mem(k, f, path, image->bytes, image->size, err, errlen)
               : trace_load_file(k, f, path, err, errlen)) < 0)
        return -1;
    (*n_files)++;
    if (k->id(f) != id)
        return ini_fail(err, errlen, "%s: the header says %s %ld", shown_of(k, f), k->id_what, k->id(f));
    return 0;
}

int trace_load_run(const struct trace_format *k, const char *dir, const char *shown,
                   const struct trace_image *images, int n, void **files, int *n_files, char *err, size_t errlen)
{
    char *v = *files;
    int cap = *n_files, rc = 0;
    if (images) {
        for (int i = 0; rc == 0 && i < n; i++)
            rc = add_file(k, dir, shown, images[i].name, &images[i], &v, n_files, &cap, err, errlen);
    } else {
        DIR *d = opendir(dir);
        if (!d)
            return ini_fail(err, errlen, "%s: %s", shown, strerror(errno));
        struct dirent *e;
        while (rc == 0 && (e = readdir(d)) != NULL)
            rc = add_file(k, dir, shown, e->d_name, NULL, &v, n_files, &cap, err, errlen);
        closedir(d);
    }
    *files = v;
    if (rc < 0)
        return -1;
    if (*n_files > 1)           /* none: no array to sort */
        qsort(v, (size_t)*n_files, k->file_size, k->cmp);
    for (int i = 1; i < *n_files; i++) {
        const void *a = v + (size_t)(i - 1) * k->file_size, *b = v + (size_t)i * k->file_size;
        if (k->id(a) == k->id(b))
            return ini_fail(err, errlen, "%s: %s %ld is also in %s", shown_of(k, b), k->id_what, k->id(b),
                            (const char *)a + k->name_off);
    }
    return 0;
}
