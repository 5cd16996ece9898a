/*
 * em3d_am.h - the message versions of EM3D (Get, Put, Bulk) on the
 * compute-node API: what em3d_am.c (the run, the check) and
 * em3d_am_xfer.c (the handlers and the three ways of moving values)
 * share.  Private to tools/apps/em3d/.  The global barrier and the
 * dilation of the updates are the library's (ini_cn.h: ini_cn_barrier,
 * ini_work_begin and ini_work_end).
 *
 * One process per cluster, one thread per PE (ini_cn_run).  The process
 * holds every value of its cluster's PEs in val[kind][vertex] (arrays of
 * the whole graph's size, the other clusters' entries unused): a cluster's
 * PEs read each other's values there, as the hardware shares memory.
 * Every PE keeps its own ghost copies of the other clusters' values it
 * reads (gh[kind], by the kind of the source).  State of one PE is touched
 * by its thread only (its handlers run on it).
 */
#ifndef MGS_EM3D_AM_H
#define MGS_EM3D_AM_H

#include <stdint.h>

#include "em3d.h"
#include "ini_cn.h"

enum { H_GET = 1, H_VALUE, H_BULK };

#define AM_STALL_S 120.0          /* a wait with no progress this long is a failure */

struct am_pe {
    int id;                       /* global PE id */
    struct ini_pe *pe;            /* the library's node */
    struct em3d_ghosts *gh;       /* its ghosts, by source kind: am_run.ghosts[id] */
    const double **from[2];       /* by destination kind */
    uint64_t got[2];              /* ghost values received (replies, puts), by kind */
    uint64_t errors;
    uint64_t sent;                /* messages this PE sent */
    /* the trace (em3d_am_trace.c); tr NULL: not traced */
    struct ini_cn_trace *tr;
    uint32_t get_cause;           /* get: the action the next request is sent in */
    uint32_t fills[2];            /* fills of each kind done: the next one's join key */
    int filling[2];               /* a fill of that kind has been picked up */
    uint32_t fill_done;           /* the action that completed the current fill */
};

/* An action being recorded (em3d_am_trace.c). */
struct amt_act {
    uint32_t id, ref;
    uint64_t t0;
    uint8_t kind;
    uint16_t peer;
};
/* Request kinds: the barrier's is the library's INI_CN_REQ_BARRIER (3). */
enum { AMT_FILL = 1, AMT_PUBLISH };
enum { AMT_JOIN_FILL = 1 };       /* join sites; the barrier's are the library's */

struct am_run {
    const struct em3d_graph *g;
    struct ini_cn *cn;
    int variant, window;
    int cluster, n_local;
    uint32_t bulk_values;         /* values that fit in one bulk message */
    double *val[2];
    /* every PE's ghosts: the owners (put, bulk) read the readers' lists */
    struct em3d_ghosts (*ghosts)[2];
    struct am_pe *pe;             /* by local index */
    double t0, t1;                /* global PE 0: the steps' start and end */
    int traced;                   /* the trace (em3d_am_trace.c) */
};

/* em3d_am_trace.c: the records of a traced run (all return at once when
 * the run is not traced) */
void     amt_init(struct am_run *r);
uint32_t amt_begin(const struct am_run *r, const struct am_pe *s, int kind, int peer, uint32_t ref, struct amt_act *a);
void     amt_end(const struct am_pe *s, const struct amt_act *a);
uint32_t amt_req_begin(const struct am_run *r, const struct am_pe *s, uint64_t *submit);
void     amt_req_done(const struct am_pe *s, uint32_t id, int kind, uint32_t done, uint64_t submit);
void     amt_join(const struct am_pe *s, int site, uint32_t key, uint32_t action, int last);
uint32_t amt_fill_key(const struct am_pe *s, int kind);
void     amt_cause(const struct am_pe *s, int handler, uint32_t action);

/* em3d_am_xfer.c */
int am_register(struct am_run *r);
/* Get: fetches every ghost of kind `kind`; put, bulk: waits until they
 * have all come.  0, or -1 after a message. */
int am_fill(struct am_run *r, struct ini_pe *pe, int kind);
/* Put, bulk: sends this PE's new values of `kind` to their readers. */
int am_publish(struct am_run *r, struct ini_pe *pe, int kind);
/* Sends len bytes to dst, counted; -1 after a message.  cause: the
 * action it is sent in (the trace; 0 when not traced). */
int am_send(struct am_run *r, struct ini_pe *pe, int dst, uint16_t handler, const void *buf, uint32_t len,
            uint32_t cause);
/* One wait for messages; -1 when the INIs stopped or nothing came for
 * AM_STALL_S seconds since *since (what: for the message). */
int am_wait(struct am_run *r, struct ini_pe *pe, double *since, uint64_t progress, uint64_t *last, const char *what);

#endif
