/*
 * trace_file.h - reading and validating the trace files of a run.
 *
 * A run directory holds one RUN_DIR/ini<ID>.trace per INI (ini/trace/trace.h,
 * docs/traces.md).  Loading checks everything the reports rely on and fails
 * with one line "FILE: what is wrong" on the first problem: a short or
 * corrupt header, an unknown version, a record count that does not match
 * the file size, a record of unknown kind, with a missing stamp or with
 * stamps out of order or outside the run, and between files: INIs of one
 * cluster that disagree about its size, a missing or duplicated INI.
 *
 * Records are decoded into struct trace_msg, which names every stamp by its
 * index t0..t7 whatever the kind (the file packs them into six slots).
 * Both versions of the format are read: version 1 (no message names, no
 * clock anchor) and version 2 (ini/trace/trace.h); `version` says which, and
 * what needs version 2 (joining a message's records, `ini-trace whatif`,
 * `timeline`, `critical`) refuses a version-1 run in one line.
 */
#ifndef TRACE_FILE_H
#define TRACE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

#define TRACE_ERR_LEN 512
#define TRACE_SHOWN_LEN 200     /* a path in a message: the reason after it must fit */
/* What a trace's clock may be: a TSC of 1 MHz to 100 GHz over at most
 * about 11 days (the compute-node trace's reader takes the same rates). */
#define TRACE_TSC_HZ_MIN 1000000ull
#define TRACE_TSC_HZ_MAX 100000000000ull
#define TRACE_SPAN_MAX_S 1e6

struct trace_msg {
    uint8_t  kind;                  /* enum ini_trace_kind */
    uint16_t src_pe, dst_pe, peer_ini;
    uint32_t len, qlen;
    uint32_t seq;                   /* source PE's sequence number (version 2; 0 in version 1) */
    uint64_t t[INI_TS_COUNT];       /* TSC; 0 = not recorded */
};

/* The done stamp: t5 outbound, t6 inbound and local. */
static inline int trace_done_index(int kind)
{
    return kind == INI_TRACE_OUT ? INI_TS_OUT_DONE : INI_TS_IN_DONE;
}

static inline uint64_t trace_msg_done(const struct trace_msg *m)
{
    return m->t[trace_done_index(m->kind)];
}

struct trace_file {
    char path[1024];
    char name[256];                 /* the file name without the directory, for messages */
    char shown[TRACE_SHOWN_LEN];    /* path for messages, shortened with "..." if long */
    int version;                    /* 1 or 2 */
    int mode;                       /* INI_TRACE_SUMMARY or INI_TRACE_DETAILED */
    struct ini_trace_info info;
    uint64_t dropped;
    uint64_t n;
    struct trace_msg *msgs;
};

struct trace_run {
    char dir[1024];
    char shown[TRACE_SHOWN_LEN];    /* dir for messages, shortened with "..." if long */
    int n_files;
    struct trace_file *files;       /* ascending INI id */
};

/* "<PREFIX><N>.trace", N up to 9 decimal digits: N, else -1. */
long trace_name_number(const char *name, const char *prefix);

/* 0, or -1 with the reason in err ("PATH: ..."). */
int  trace_file_load(struct trace_file *f, const char *path, char *err, size_t errlen);
/* The same from a file's bytes already in memory (size bytes at bytes,
 * borrowed for the call); path names the file in messages. */
int  trace_file_load_mem(struct trace_file *f, const char *path, const uint8_t *bytes, uint64_t size,
                         char *err, size_t errlen);
void trace_file_free(struct trace_file *f);
/* Loads every RUN_DIR/ini<ID>.trace and checks the files against each
 * other.  0, or -1 with the reason in err. */
int  trace_run_load(struct trace_run *run, const char *dir, char *err, size_t errlen);
/* The same from files already in memory, as if they were the entries of
 * directory dir (in this order; names other than ini<ID>.trace are
 * skipped, as in a directory): for tests and the fuzz harness. */
struct trace_image {
    const char *name;               /* "ini<ID>.trace" */
    const uint8_t *bytes;
    uint64_t size;
};
int  trace_run_load_mem(struct trace_run *run, const char *dir, const struct trace_image *images, int n,
                        char *err, size_t errlen);
void trace_run_free(struct trace_run *run);
/* The INIs of the run whose trace file is missing: ids below the largest
 * traced one without a file (INI ids are dense), and INIs that left a
 * daemon log (RUN_DIR/ini<ID>.log, written by the launcher for every INI it
 * started) but no trace.  Writes up to max ids, ascending, into missing and
 * returns how many there are (possibly more than max). */
int  trace_run_missing(const struct trace_run *run, int *missing, int max);

#endif
