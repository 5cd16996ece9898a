/*
 * trace_fixture.h - builds trace files for the tests with the daemon's own
 * writer API (ini/trace/trace.h), into a temporary run directory.
 *
 * fx_out / fx_in / fx_local record one message through begin, set_msg,
 * stamp and commit exactly as the daemon does, so a summary-mode trace
 * keeps only t1 and the done stamp of the same calls.
 */
#ifndef TRACE_FIXTURE_H
#define TRACE_FIXTURE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"

static inline char *fx_mkdir(void)
{
    char tmpl[] = "/tmp/test_trace.XXXXXX";
    char *d = mkdtemp(tmpl);
    char *copy = d ? strdup(d) : NULL;
    if (!copy) {                     /* nothing to test without a directory */
        perror("test_trace: mkdtemp");
        abort();
    }
    return copy;
}

static inline void fx_rmdir(char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char p[1024];
            snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
    free(dir);
}

/* A trace of `capacity` records for INI `ini`, index `index` of `n_inis`
 * in cluster `cluster` of `n_pes` compute nodes, run [start, end]. */
static inline int fx_init(struct ini_trace *t, enum ini_trace_mode mode, uint32_t capacity, uint64_t hz,
                          int ini, int cluster, int index, int n_inis, int n_pes, uint64_t start, uint64_t end)
{
    if (ini_trace_init(t, mode, capacity, ini, cluster, hz) < 0)
        return -1;
    ini_trace_set_cluster(t, index, n_inis, n_pes);
    ini_trace_set_policies(t, INI_POLICY_STATIC, INI_POLICY_ROUND_ROBIN);
    ini_trace_run_start(t, start);
    ini_trace_run_end(t, end);
    return 0;
}

static inline void fx_out(struct ini_trace *t, uint16_t src, uint16_t dst, uint16_t peer, uint32_t len,
                          uint32_t qlen, uint64_t t0, uint64_t t1, uint64_t t2, uint64_t t3, uint64_t t4,
                          uint64_t t5)
{
    struct ini_trace_rec *r = ini_trace_begin(t, INI_TRACE_OUT, t1, qlen);
    ini_trace_set_msg(r, src, dst, peer, len);
    ini_trace_stamp(t, r, INI_TS_SUBMIT, t0);
    ini_trace_stamp(t, r, INI_TS_DEQUEUE, t2);
    ini_trace_stamp(t, r, INI_TS_OUT_WINDOW, t3);
    ini_trace_stamp(t, r, INI_TS_OUT_UDP, t4);
    ini_trace_commit(t, r, t5);
}

static inline void fx_in(struct ini_trace *t, uint16_t src, uint16_t dst, uint16_t peer, uint32_t len,
                         uint32_t qlen, uint64_t t1, uint64_t t2, uint64_t t3, uint64_t t4, uint64_t t5,
                         uint64_t t6)
{
    struct ini_trace_rec *r = ini_trace_begin(t, INI_TRACE_IN, t1, qlen);
    ini_trace_stamp(t, r, INI_TS_DEQUEUE, t2);
    ini_trace_stamp(t, r, INI_TS_IN_IP, t3);
    ini_trace_set_msg(r, src, dst, peer, len);     /* known once reassembled */
    ini_trace_stamp(t, r, INI_TS_IN_UDP, t4);
    ini_trace_stamp(t, r, INI_TS_IN_WINDOW, t5);
    ini_trace_commit(t, r, t6);
}

static inline void fx_local(struct ini_trace *t, uint16_t src, uint16_t dst, uint32_t len, uint32_t qlen,
                            uint64_t t1, uint64_t t2, uint64_t t6)
{
    struct ini_trace_rec *r = ini_trace_begin(t, INI_TRACE_LOCAL, t1, qlen);
    ini_trace_set_msg(r, src, dst, INI_TRACE_NO_PEER, len);
    ini_trace_stamp(t, r, INI_TS_DEQUEUE, t2);
    ini_trace_commit(t, r, t6);
}

/* One message of each kind, every stamp distinct: out 0 -> 2 (peer INI 1,
 * 100 bytes, queue 1; t0..t5 = 900, 1100, 1150, 1200, 1300, 1500), in
 * 2 -> 1 (peer 1, 50 bytes, queue 0; t1..t6 = 2000, 2010, 2100, 2200,
 * 2250, 2300) and local 0 -> 1 (8 bytes, queue 3; t1, t2, t6 = 3000, 3005,
 * 3050).  The round trip of test_trace checks each value. */
static inline void fx_one_of_each(struct ini_trace *t)
{
    fx_out(t, 0, 2, 1, 100, 1, 900, 1100, 1150, 1200, 1300, 1500);
    fx_in(t, 2, 1, 1, 50, 0, 2000, 2010, 2100, 2200, 2250, 2300);
    fx_local(t, 0, 1, 8, 3, 3000, 3005, 3050);
}

/* Writes dir/ini<ID>.trace and frees the buffer; 0 or -1. */
static inline int fx_write(struct ini_trace *t, const char *dir)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/ini%d.trace", dir, t->info.ini_id);
    int rc = ini_trace_write(t, path);
    ini_trace_free(t);
    return rc;
}

/* A whole file into a fresh buffer (the caller frees it), and back; a file
 * the test itself wrote that cannot be read or written stops the test. */
static inline uint8_t *fx_slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    uint8_t *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!f || !buf || fseek(f, 0, SEEK_SET) != 0 || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        perror(path);
        abort();
    }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static inline void fx_spill(const char *path, const uint8_t *buf, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, n, f) != n || fclose(f) != 0) {
        perror(path);
        abort();
    }
}

#endif
