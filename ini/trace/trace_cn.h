/*
 * trace_cn.h - the compute nodes' side of the message trace: what a
 * replay of the run needs and the INIs' traces (trace.h) cannot see.
 *
 * An INI's trace knows when a message entered and left that INI.  To ask
 * "what if" of a run (`ini-trace whatif`, docs/traces.md) one also needs,
 * per compute node, when each message was sent and why, when its handler
 * ran, and which messages the node *waited* for: a compute thread that
 * faults on a page, asks for a lock or arrives at a barrier stops until a
 * reply comes back, so a slower INI lengthens its run only through those
 * waits.  This trace records exactly that, in one more file per cluster
 * process, RUN_DIR/cn<CLUSTER>.trace, written when the process detaches.
 *
 * Records (48 bytes each, little-endian on disk, docs/traces.md):
 *
 *   SEND    ini_send (ini_cn.c): a message handed to an INI, with the
 *           source PE's sequence number, the one the INIs' version-2
 *           records carry (so the three records of a message join), and
 *           the program's tag, cause and argument for it (below).  A
 *           program that delivers some messages itself (MGS, to its own
 *           cluster) records them as SEND with INI_CN_LOCAL.
 *   RECV    ini_poll (ini_cn.c): a message's handler ran [t0, t1].
 *   ACTION  the program (MGS's protocol thread) acted on one message or
 *           request [t0, t1]: every message it sent meanwhile names the
 *           action as its cause, so the replay knows what each send waited
 *           for.  An action started inside another (a deferred request
 *           served when a transaction ends) names its parent.
 *   REQ     a compute thread's blocking request: submitted at t0,
 *           completed at t1 (by action b), the thread's previous resume at
 *           t2, so t0 - t2 is the compute in between.
 *   JOIN    a contribution to something that waits for several events (a
 *           barrier's arrivals, a flush's acknowledgements, a release's
 *           invalidation replies, a lock token's departure): the group of
 *           one key ends with the record flagged INI_CN_LAST, whose action
 *           could not go on before every earlier contribution of the group.
 *
 * Recording follows trace.h's rules: one buffer per compute node (struct
 * ini_pe), allocated and touched when the process attaches, written only
 * by the thread that owns the node (in MGS, the protocol thread, which
 * also records the REQ of the compute threads it serves), a few stores per
 * record, no allocation, system call or lock; a full buffer counts drops.
 * The TSC is the INIs' clock; the header anchors it to the host's
 * CLOCK_REALTIME at attach and at the write, which gives the TSC rate and
 * puts the file on the run's one clock (docs/traces.md, "One clock").
 */
#ifndef INI_TRACE_CN_H
#define INI_TRACE_CN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "trace.h"      /* the little-endian codecs, INI_TRACE_HOST_LEN */

#define INI_CN_TRACE_MAGIC        "INICNTRC"
#define INI_CN_TRACE_VERSION      1
#define INI_CN_TRACE_HEADER_SIZE  128
#define INI_CN_TRACE_RECORD_SIZE  48

enum ini_cn_trace_kind {
    INI_CN_SEND = 1,
    INI_CN_RECV = 2,
    INI_CN_ACTION = 3,
    INI_CN_REQ = 4,
    INI_CN_JOIN = 5,
};

/* The file's header flags: how the program that wrote it works, for the
 * replay (docs/traces.md).  Without a flag: MGS's model, one protocol
 * thread per cluster runs every action, compute threads make requests. */
#define INI_CN_HDR_NODE_HANDLERS 1u   /* each node runs its own actions (its handlers), on
                                         its own thread, only between its computing */
#define INI_CN_HDR_LIBRARY 2u         /* the compute-node library wrote the actions and requests,
                                         for a program that writes none (ini/cn/cn_trace.c):
                                         message types are handler ids, requests INI_CN_REQ_* */
#define INI_CN_HDR_VIRTUAL 4u         /* a virtual-time run: stamps and anchors are the emulated
                                         machine's cycles (+ INI_TRACE_VT_ORIGIN) and its ns (trace.h) */

/* record flags */
#define INI_CN_LOCAL 1u      /* SEND, ACTION: a message the program delivered itself, no INI */
#define INI_CN_LAST  2u      /* JOIN: the contribution that completed its group */

/* ACTION's tag: what it acted on (b names it). */
enum ini_cn_action_kind {
    INI_CN_ACT_MSG = 1,      /* a message through the INIs: peer = source PE, b = its sequence */
    INI_CN_ACT_LOCAL = 2,    /* a local message: peer = source PE, b = its local sequence */
    INI_CN_ACT_REQ = 3,      /* a request: b = its REQ id */
};

/* One record, as stored (field use per kind: docs/traces.md, "Compute
 * node traces"). */
struct ini_cn_trace_rec {
    uint8_t  kind;           /* enum ini_cn_trace_kind */
    uint8_t  tag;            /* SEND: the program's message type; ACTION: enum ini_cn_action_kind;
                                REQ: the request kind; JOIN: the site */
    uint16_t flags;
    uint16_t pe;             /* global PE id: sender, receiver, acting or waiting node */
    uint16_t peer;           /* the other PE of a message */
    uint32_t a, b, c, d;     /* per kind */
    uint64_t t[3];           /* TSC stamps; 0 = none */
};
_Static_assert(sizeof(struct ini_cn_trace_rec) == INI_CN_TRACE_RECORD_SIZE, "a CN trace record is 48 bytes");

/* One compute node's buffer. */
struct ini_cn_trace {
    struct ini_cn_trace_rec *recs;
    uint32_t n, capacity;
    uint64_t dropped;
    /* The program's note for the next SEND (ini_cn_trace_tag). */
    uint8_t next_tag;
    uint32_t next_cause, next_arg;
};

/* The file's header, decoded. */
struct ini_cn_trace_info {
    uint16_t flags;          /* INI_CN_HDR_* */
    int32_t  cluster, n_pes;
    uint64_t records, dropped;
    uint64_t start_tsc, start_ns, end_tsc, end_ns;   /* TSC and CLOCK_REALTIME anchors */
    char     host[INI_TRACE_HOST_LEN];
};

/* Allocates and touches the buffer.  0, or -1 with errno (EINVAL, ENOMEM). */
int  ini_cn_trace_init(struct ini_cn_trace *t, uint32_t capacity);
void ini_cn_trace_free(struct ini_cn_trace *t);
/* The current TSC and CLOCK_REALTIME (ns), read back to back. */
void ini_cn_trace_anchor(uint64_t *tsc, uint64_t *ns);
/* Writes the header (info; records and dropped are counted here) and the
 * records of the n buffers, through path.tmp and a rename.  0, or -1 with
 * errno set. */
int  ini_cn_trace_write(const char *path, struct ini_cn_trace_info *info, const struct ini_cn_trace *bufs,
                        int n);
/* The compute-node trace's header as the file has it (after the magic);
 * its layout and the records' are tables of trace.h's fields (trace_cn.c). */
struct ini_cn_trace_header {
    uint16_t version, header_size, record_size;
    struct ini_cn_trace_info info;
};
void ini_cn_trace_encode_header(const struct ini_cn_trace_info *in, uint8_t out[INI_CN_TRACE_HEADER_SIZE]);
/* Every field, unchecked; the host ends in NUL. */
void ini_cn_trace_decode_header(const uint8_t in[INI_CN_TRACE_HEADER_SIZE], struct ini_cn_trace_header *h);
void ini_cn_trace_encode_rec(const struct ini_cn_trace_rec *r, uint8_t out[INI_CN_TRACE_RECORD_SIZE]);
void ini_cn_trace_decode_rec(const uint8_t in[INI_CN_TRACE_RECORD_SIZE], struct ini_cn_trace_rec *r);

static inline uint64_t ini_cn_trace_tsc(void)
{
    return __builtin_ia32_rdtsc();
}

/* The next free record, zeroed, of the given kind; NULL (a drop counted)
 * when the buffer is full.  t may be NULL (tracing off): then NULL. */
static inline struct ini_cn_trace_rec *ini_cn_trace_next(struct ini_cn_trace *t, int kind)
{
    if (!t)
        return NULL;
    if (t->n >= t->capacity) {
        t->dropped++;
        return NULL;
    }
    struct ini_cn_trace_rec *r = &t->recs[t->n++];
    memset(r, 0, sizeof(*r));
    r->kind = (uint8_t)kind;
    return r;
}

/* The next record (ini_cn_trace_next) with the fields all kinds share:
 * tag, node and the words a, b, c (their meaning per kind); NULL when
 * tracing is off or the buffer is full. */
static inline struct ini_cn_trace_rec *ini_cn_trace_fill(struct ini_cn_trace *t, int kind, uint8_t tag, uint16_t pe,
                                                         uint32_t a, uint32_t b, uint32_t c)
{
    struct ini_cn_trace_rec *r = ini_cn_trace_next(t, kind);
    if (r) {
        r->tag = tag;
        r->pe = pe;
        r->a = a;
        r->b = b;
        r->c = c;
    }
    return r;
}

/* The program's tag, cause and argument for the next messages sent from
 * this node (they stay until changed). */
static inline void ini_cn_trace_tag(struct ini_cn_trace *t, uint8_t tag, uint32_t cause, uint32_t arg)
{
    if (!t)
        return;
    t->next_tag = tag;
    t->next_cause = cause;
    t->next_arg = arg;
}

/* An action of node pe on a trigger from peer (ref: its sequence or
 * request id), [t0, t1], inside action `parent` (0: none); kind: enum
 * ini_cn_action_kind.  The programs' writers (mgs/mgs_trace.c,
 * tools/apps/em3d/em3d_am_trace.c) all go through these three. */
static inline void ini_cn_trace_action(struct ini_cn_trace *t, int kind, uint16_t pe, uint16_t peer, uint32_t id,
                                       uint32_t ref, uint32_t parent, uint64_t t0, uint64_t t1)
{
    struct ini_cn_trace_rec *r = ini_cn_trace_fill(t, INI_CN_ACTION, (uint8_t)kind, pe, id, ref, parent);
    if (!r)
        return;
    r->flags = kind == INI_CN_ACT_LOCAL ? INI_CN_LOCAL : 0;
    r->peer = peer;
    r->t[0] = t0;
    r->t[1] = t1;
}

/* A blocking request of thread `thread` on node pe: submitted, completed
 * by action `done`, the thread's previous return (0: none). */
static inline void ini_cn_trace_req(struct ini_cn_trace *t, int kind, uint16_t pe, uint32_t id, uint32_t done,
                                    uint32_t thread, uint64_t submit, uint64_t complete, uint64_t resumed)
{
    struct ini_cn_trace_rec *r = ini_cn_trace_fill(t, INI_CN_REQ, (uint8_t)kind, pe, id, done, thread);
    if (!r)
        return;
    r->t[0] = submit;
    r->t[1] = complete;
    r->t[2] = resumed;
}

/* Action `action`'s contribution to join `key` of `site`, at `when`;
 * last: the one that let its action go on. */
static inline void ini_cn_trace_join_at(struct ini_cn_trace *t, int site, uint16_t pe, uint32_t key,
                                        uint32_t action, int last, uint64_t when)
{
    struct ini_cn_trace_rec *r = ini_cn_trace_fill(t, INI_CN_JOIN, (uint8_t)site, pe, key, action, 0);
    if (!r)
        return;
    r->flags = last ? INI_CN_LAST : 0;
    r->t[0] = when;
}

/* The same, now (the TSC). */
static inline void ini_cn_trace_join(struct ini_cn_trace *t, int site, uint16_t pe, uint32_t key, uint32_t action,
                                     int last)
{
    ini_cn_trace_join_at(t, site, pe, key, action, last, ini_cn_trace_tsc());
}

/* A message sent by PE pe to peer, with the node's current tag. */
static inline void ini_cn_trace_send(struct ini_cn_trace *t, uint16_t pe, uint16_t peer, uint32_t seq,
                                     uint32_t len, uint16_t flags, uint64_t tsc)
{
    struct ini_cn_trace_rec *r = ini_cn_trace_next(t, INI_CN_SEND);
    if (!r)
        return;
    r->pe = pe;
    r->peer = peer;
    r->flags = flags;
    r->a = seq;
    r->b = len;
    r->tag = t->next_tag;
    r->c = t->next_cause;
    r->d = t->next_arg;
    r->t[0] = tsc;
}

#endif
