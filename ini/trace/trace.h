/*
 * trace.h - the per-INI message trace (thesis section 4.4.2) and its file.
 *
 * Every message an INI finishes becomes one fixed 64-byte record in a buffer
 * the daemon allocates (and touches) once at start-up, so recording on the
 * hot path is a few stores: no allocation, no system call, no lock, no page
 * fault.  When the buffer is full recording stops and a counter counts the
 * records that were dropped.  At exit the daemon writes the buffer to
 * RUN_DIR/ini<ID>.trace; `ini-trace report` (tools/trace/) turns the files
 * of a run into the thesis's tables 5.1-5.7.  The file format is documented
 * byte by byte in docs/traces.md.
 *
 * Two modes (config `trace.mode`), as the thesis's two collection modes:
 *   summary   per message its kind, length, the INI's queue length at its
 *             arrival, and the arrival and done stamps (time in the INI);
 *   detailed  also a TSC stamp at every module boundary.
 *
 * Stamps.  t0..t6 name instants in the life of a message (t7 is unused):
 *
 *   outbound (PE -> network)     inbound (network -> PE)      local (PE -> PE)
 *   t0 PE submitted the message  -                            -
 *   t1 entered the INI's queue   t1 the frame completing the  t1
 *                                   datagram entered it
 *   t2 dequeued                  t2 dequeued                  t2
 *   t3 sliding window done       t3 IP done (reassembled)     -
 *   t4 UDP done                  t4 UDP done (checksum ok)    -
 *   t5 IP done = done            t5 sliding window done       -
 *   -                            t6 delivered to the PE ring  t6 delivered
 *
 * No kind uses more than six, so a record stores six 64-bit stamps: slot k
 * holds t(k + first), first = 0 for outbound and 1 otherwise.  Slot 5 is
 * thus always the done stamp and the arrival t1 is slot 1 (outbound) or 0.
 * This keeps full 64-bit stamps (any order error stays visible to the
 * reader) in one cache line.  A stamp of 0 means "not recorded"; summary
 * mode records only t1 and the done stamp.
 *
 * Use from the daemon (one thread, the INI's lcore):
 *
 *   r = ini_trace_begin(&tr, INI_TRACE_OUT, w->t_arrive, w->qlen);
 *   ini_trace_set_msg(r, src_pe, dst_pe, peer_ini, len);
 *   ini_trace_set_seq(r, pe_seq);
 *   ini_trace_stamp(&tr, r, INI_TS_SUBMIT, submit_tsc);
 *   ini_trace_stamp(&tr, r, INI_TS_DEQUEUE, rte_rdtsc());  ... t3, t4
 *   ini_trace_commit(&tr, r, rte_rdtsc());                 (the done stamp)
 *
 * set_msg, stamp and commit accept the NULL that begin returns when tracing
 * is off or the buffer is full, so the calls need no guard (but read the
 * clock for commit only when r is not NULL: a TSC read costs about 10 ns,
 * and the daemon's hot path makes none of its own); commit of NULL
 * counts a dropped record when tracing is on.  begin hands out the
 * next free slot without reserving it: a record that is begun and never
 * committed (a fragment that did not complete a datagram) is overwritten by
 * the next begin.  Hence only one begun record may be open at a time; a
 * message whose processing interleaves with others (one that stalls on a
 * full window or a full PE ring) builds its record elsewhere, e.g. in its
 * work item, with ini_trace_rec_init() and hands it over with
 * ini_trace_add() when done.
 */
#ifndef INI_TRACE_H
#define INI_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "config.h"     /* enum ini_trace_mode */

/* The file is little-endian whatever the host: its writer, its reader
 * (tools/trace) and the tests code fields a byte at a time with these. */
static inline void ini_trace_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void ini_trace_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void ini_trace_put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t ini_trace_get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t ini_trace_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t ini_trace_get64(const uint8_t *p)
{
    return (uint64_t)ini_trace_get32(p) | (uint64_t)ini_trace_get32(p + 4) << 32;
}

#define INI_TRACE_MAGIC        "INITRACE"   /* 8 bytes, no terminating NUL */
#define INI_TRACE_MAGIC_LEN    8
#define INI_TRACE_VERSION      2            /* the reader also reads version 1 */
#define INI_TRACE_HEADER_SIZE  128
#define INI_TRACE_RECORD_SIZE  64
#define INI_TRACE_SLOTS        6
#define INI_TRACE_NO_PEER      0xffff       /* peer_ini of a local message */

enum ini_trace_kind {
    INI_TRACE_OUT = 1,      /* PE -> network */
    INI_TRACE_IN = 2,       /* network -> PE */
    INI_TRACE_LOCAL = 3,    /* PE -> PE of the same cluster */
};

/* Stamp indexes (the t0..t6 above). */
enum ini_trace_stamp_index {
    INI_TS_SUBMIT = 0,         /* outbound: the PE's submit time */
    INI_TS_ENQUEUE = 1,        /* entered the INI's FIFO queue (arrival) */
    INI_TS_DEQUEUE = 2,        /* processing starts */
    INI_TS_OUT_WINDOW = 3,     /* outbound: sliding window done, UDP starts */
    INI_TS_OUT_UDP = 4,        /* outbound: UDP done, IP starts */
    INI_TS_OUT_DONE = 5,       /* outbound: IP done, all frames handed to the link */
    INI_TS_IN_IP = 3,          /* inbound: reassembled, UDP starts */
    INI_TS_IN_UDP = 4,         /* inbound: checksum verified, sliding window starts */
    INI_TS_IN_WINDOW = 5,      /* inbound: sliding window done, delivery starts */
    INI_TS_IN_DONE = 6,        /* inbound and local: delivered into the PE's ring */
    INI_TS_COUNT = 8,          /* t0..t7 */
};

/* One message, exactly as stored in the file (little-endian there).
 * Version 2 names the message: the sending compute node's sequence number
 * (the AM header's pe_seq), so that the record of a message at the sending
 * INI, its record at the receiving INI and the compute nodes' records of
 * it (ini/trace/trace_cn.h) can be joined; to make room, length and queue
 * length are 16 bits (a payload is at most INI_MAX_MESSAGE_LIMIT = 65000
 * bytes; a queue length above 65535 is stored as 65535).  Version 1 had
 * no sequence number and 32-bit length and queue length at 8 and 12. */
struct ini_trace_rec {
    uint8_t  kind;             /* enum ini_trace_kind */
    uint8_t  reserved;         /* 0 */
    uint16_t peer_ini;         /* remote INI's global id; INI_TRACE_NO_PEER for local */
    uint16_t src_pe, dst_pe;   /* global PE ids */
    uint16_t len;              /* payload bytes */
    uint16_t qlen;             /* work items in the INI's FIFO queue at arrival (saturated) */
    uint32_t seq;              /* the source PE's sequence number of the message */
    uint64_t slot[INI_TRACE_SLOTS];   /* TSC stamps, see the mapping above */
};
_Static_assert(sizeof(struct ini_trace_rec) == INI_TRACE_RECORD_SIZE, "a trace record is 64 bytes");
_Static_assert(offsetof(struct ini_trace_rec, slot) == 16, "stamps start at byte 16");

#define INI_TRACE_HOST_LEN 32                /* the header's host name field */

/* What the stamps count.  A run in virtual time (docs/virtual-time.md)
 * stamps its records with the emulated machine's cycles, not the host's
 * TSC: the header's tsc_hz is then the machine's clock rate (20 MHz by
 * default), so every reader turns stamps into emulated seconds as it
 * turns TSC cycles into host ones.  Because a stamp of 0 means "not
 * recorded" and the machine starts at cycle 0, a stamp is the cycle plus
 * INI_TRACE_VT_ORIGIN; the run's span starts there. */
enum ini_trace_clock {
    INI_TRACE_CLOCK_HOST = 0,      /* the host's TSC */
    INI_TRACE_CLOCK_VIRTUAL = 1,   /* the emulated machine's cycles, + INI_TRACE_VT_ORIGIN */
};
#define INI_TRACE_VT_ORIGIN 1

/* The INI and run a trace describes: the file header minus format fields. */
struct ini_trace_info {
    uint64_t tsc_hz;
    int32_t  ini_id, cluster_id;
    int32_t  ini_index;        /* position among the cluster's INIs */
    int32_t  cluster_inis;     /* INIs in the cluster; 0 = not recorded */
    int32_t  cluster_pes;      /* compute nodes in the cluster; 0 = not recorded */
    int8_t   pe_policy, ini_policy;   /* enum ini_policy, -1 = not recorded */
    uint8_t  clock;                   /* enum ini_trace_clock (version 2; 0 in older files) */
    uint64_t start_tsc, end_tsc;      /* the run: before the first arrival, after the last done */
    /* Version 2: start_tsc's instant on the host's CLOCK_REALTIME (ns;
     * 0 = not recorded), with the host's name, so that the traces of
     * several hosts go on one clock (docs/traces.md, "One clock"); the O
     * knob the INI ran with (mean, ns; O_exp: drawn exponential). */
    uint64_t start_ns;
    uint32_t O_ns;
    uint8_t  O_exp;
    char     host[INI_TRACE_HOST_LEN];        /* NUL-terminated when shorter */
};

struct ini_trace {
    struct ini_trace_rec *recs;
    uint32_t n, capacity;      /* committed records, buffer size */
    uint64_t dropped;          /* finished messages that found the buffer full */
    enum ini_trace_mode mode;
    struct ini_trace_info info;
};

/* Allocates and touches the buffer of `capacity` records (none when mode is
 * INI_TRACE_OFF).  0, or -1 with errno set (EINVAL, ENOMEM). */
/* The name a trace gives its host (its line of the run's clocks.tsv):
 * $INI_TRACE_HOST when set (a run across hosts: the launcher's name for
 * the host, which need not be what the host calls itself), else
 * gethostname; NUL-terminated, at most INI_TRACE_HOST_LEN - 1 characters. */
void ini_trace_host_name(char host[INI_TRACE_HOST_LEN]);
int  ini_trace_init(struct ini_trace *t, enum ini_trace_mode mode, uint32_t capacity,
                    int ini_id, int cluster_id, uint64_t tsc_hz);
/* The INI's place in its cluster, for the per-cluster reports. */
void ini_trace_set_cluster(struct ini_trace *t, int ini_index, int cluster_inis, int cluster_pes);
/* The scheduling policies of the run (enum ini_policy), shown in reports. */
void ini_trace_set_policies(struct ini_trace *t, int pe_policy, int ini_policy);
/* The run's span: call run_start before the loop starts taking work and
 * run_end after it stopped; utilization is busy time over end - start. */
void ini_trace_run_start(struct ini_trace *t, uint64_t tsc);
void ini_trace_run_end(struct ini_trace *t, uint64_t tsc);
/* The O knob the INI runs with (recorded for `ini-trace whatif --O`). */
void ini_trace_set_knobs(struct ini_trace *t, double O_us, int O_exp);
/* Writes header and records to `path` (through path.tmp and a rename, so a
 * file under that name is always complete).  Does nothing when tracing is
 * off.  Ordinary stdio: call it from the normal exit path, not from a
 * signal handler.  0, or -1 with errno set. */
int  ini_trace_write(const struct ini_trace *t, const char *path);
void ini_trace_free(struct ini_trace *t);
/* The writer of both trace files (this one and trace_cn.h's): header_size
 * bytes of header, then n records of rec_size bytes (rec_size <= 16384),
 * record i encoded by encode(ctx, i, out), into path.tmp renamed to path
 * when complete.  0, or -1 with errno set. */
int  ini_trace_write_file(const char *path, const uint8_t *header, size_t header_size, size_t rec_size,
                          uint64_t n, void (*encode)(const void *ctx, uint64_t i, uint8_t *out),
                          const void *ctx);

/* ---- the record layout: both files' headers and records, described once ----
 *
 * A header or record is a table of fields, each at a byte offset of the
 * file, one or `count` little-endian integers of the width of its member
 * (or a NUL-padded text), and the format version that added it.  The
 * writers encode and the readers (tools/trace) decode through the same
 * tables (trace.c, trace_cn.c), so an offset is written in one place. */
enum ini_trace_field_type { INI_TRACE_F_UINT, INI_TRACE_F_TEXT };
struct ini_trace_field {
    uint16_t off;           /* in the file */
    uint16_t member;        /* in the struct: offsetof */
    uint8_t width, count;   /* bytes of one integer (1, 2, 4, 8), how many one after the other */
    uint8_t type;           /* enum ini_trace_field_type; TEXT: width 1, count the bytes */
    uint8_t since;          /* the format version that added it */
};
/* A field of struct TYPE at file offset OFF: COUNT integers (or bytes of
 * text) that fill the member. */
#define INI_TRACE_FIELD(off, type, member, count, ftype, since)                                          \
    { (off), (uint16_t)offsetof(type, member), (uint8_t)(sizeof(((type *)0)->member) / (count)), (count), \
      (ftype), (since) }
#define INI_TRACE_U(off, type, member, since)     INI_TRACE_FIELD(off, type, member, 1, INI_TRACE_F_UINT, since)
#define INI_TRACE_TEXT(off, type, member, since)  \
    INI_TRACE_FIELD(off, type, member, sizeof(((type *)0)->member), INI_TRACE_F_TEXT, since)

/* Writes src's fields into out (size bytes, zeroed first: unnamed bytes
 * are 0); text up to its NUL. */
void ini_trace_pack(const struct ini_trace_field *f, int n, const void *src, uint8_t *out, size_t size);
/* Reads the fields of format `version` and before from in into dst (the
 * others left as they are); a text ends in NUL whatever the file says. */
void ini_trace_unpack(const struct ini_trace_field *f, int n, const uint8_t *in, unsigned version, void *dst);

/* The INI trace's header as the file has it (after the magic). */
struct ini_trace_header {
    uint16_t version, header_size, record_size, mode;
    uint64_t n, dropped;
    struct ini_trace_info info;
};

/* Header and record codecs, shared with the reader.  decode_header takes
 * the fields of the version the header names (a version-1 header has no
 * clock, knob or host: those are 0) and does not check it. */
void ini_trace_encode_header(const struct ini_trace *t, uint8_t out[INI_TRACE_HEADER_SIZE]);
void ini_trace_decode_header(const uint8_t in[INI_TRACE_HEADER_SIZE], struct ini_trace_header *h);
void ini_trace_encode_rec(const struct ini_trace_rec *r, uint8_t out[INI_TRACE_RECORD_SIZE]);
void ini_trace_decode_rec(const uint8_t in[INI_TRACE_RECORD_SIZE], struct ini_trace_rec *r);
/* A version-1 record: its 32-bit length and queue length (at 8 and 12),
 * the rest as version 2's, no sequence number. */
void ini_trace_decode_rec_v1(const uint8_t in[INI_TRACE_RECORD_SIZE], struct ini_trace_rec *r, uint32_t *len,
                             uint32_t *qlen);

/* The stamp index of slot 0 for a kind; the slot of stamp i is i - first. */
static inline int ini_trace_first_stamp(int kind)
{
    return kind == INI_TRACE_OUT ? INI_TS_SUBMIT : INI_TS_ENQUEUE;
}

/* Fills a record kept anywhere: kind, arrival stamp and queue length. */
static inline void ini_trace_rec_init(struct ini_trace_rec *r, enum ini_trace_kind kind,
                                      uint64_t t_enqueue, uint32_t qlen)
{
    memset(r, 0, sizeof(*r));
    r->kind = (uint8_t)kind;
    r->peer_ini = INI_TRACE_NO_PEER;
    r->qlen = qlen > UINT16_MAX ? UINT16_MAX : (uint16_t)qlen;
    r->slot[INI_TS_ENQUEUE - ini_trace_first_stamp(kind)] = t_enqueue;
}

/* The next free slot, initialised, or NULL when off or full. */
static inline struct ini_trace_rec *ini_trace_begin(struct ini_trace *t, enum ini_trace_kind kind,
                                                    uint64_t t_enqueue, uint32_t qlen)
{
    if (t->n >= t->capacity)      /* also when off: capacity is 0 then */
        return NULL;
    struct ini_trace_rec *r = &t->recs[t->n];
    ini_trace_rec_init(r, kind, t_enqueue, qlen);
    return r;
}

/* The message's identity, known for inbound messages only after reassembly. */
static inline void ini_trace_set_msg(struct ini_trace_rec *r, uint16_t src_pe, uint16_t dst_pe,
                                     uint16_t peer_ini, uint32_t len)
{
    if (!r)
        return;
    r->src_pe = src_pe;
    r->dst_pe = dst_pe;
    r->peer_ini = peer_ini;
    r->len = len > UINT16_MAX ? UINT16_MAX : (uint16_t)len;
}

/* The message's name: the source PE's sequence number (AM header pe_seq). */
static inline void ini_trace_set_seq(struct ini_trace_rec *r, uint32_t seq)
{
    if (r)
        r->seq = seq;
}

/* Records stamp i (enum ini_trace_stamp_index) in detailed mode; summary mode
 * keeps only arrival and done, which begin and commit record. */
static inline void ini_trace_stamp(const struct ini_trace *t, struct ini_trace_rec *r, int i, uint64_t tsc)
{
    if (!r || t->mode != INI_TRACE_DETAILED)
        return;
    if (r->kind == INI_TRACE_LOCAL && i != INI_TS_DEQUEUE)
        return;                   /* a local message has no protocol modules */
    int k = i - ini_trace_first_stamp(r->kind);
    if (k >= 0 && k < INI_TRACE_SLOTS)
        r->slot[k] = tsc;
}

/* Finishes the record begin returned: done stamp, then it counts. */
static inline void ini_trace_commit(struct ini_trace *t, struct ini_trace_rec *r, uint64_t t_done)
{
    if (!r) {
        if (t->mode != INI_TRACE_OFF)
            t->dropped++;
        return;
    }
    r->slot[INI_TRACE_SLOTS - 1] = t_done;
    t->n++;
}

/* Finishes a record built with ini_trace_rec_init and copies it in. */
static inline void ini_trace_add(struct ini_trace *t, struct ini_trace_rec *r, uint64_t t_done)
{
    if (t->mode == INI_TRACE_OFF)
        return;
    if (t->n >= t->capacity) {
        t->dropped++;
        return;
    }
    r->slot[INI_TRACE_SLOTS - 1] = t_done;
    t->recs[t->n++] = *r;
}

#endif
