/*
 * run_fixture.h - hand-built traced runs for the replay and critical-path
 * tests: INI traces through the daemon's writer (trace_fixture.h) and
 * compute-node traces through trace_cn.h's, all on one clock: 1 TSC tick
 * = 1 ns, tick t at CLOCK_REALTIME FX_EPOCH_NS + t, one host "fx".
 */
#ifndef RUN_FIXTURE_H
#define RUN_FIXTURE_H

#include "trace_cn.h"
#include "trace_fixture.h"

#define FX_EPOCH_NS 1000000000000ull
#define FX_HZ 1000000000ull
#define FX_END 100000000ull             /* every file's run ends by this tick */

/* An INI trace of `mode` for INI ini (index 0 of n_inis) of cluster c with
 * n_pes compute nodes, on the fixture's clock. */
static inline void fx_ini_open(struct ini_trace *t, enum ini_trace_mode mode, int ini, int c, int index,
                               int n_inis, int n_pes)
{
    fx_init(t, mode, 64, FX_HZ, ini, c, index, n_inis, n_pes, 1, FX_END);
    t->info.start_ns = FX_EPOCH_NS + 1;
    snprintf(t->info.host, sizeof(t->info.host), "fx");
    ini_trace_set_policies(t, 0, 0);
}

/* One message's record, its stamps given as in the file: t1 and done for
 * summary traces; for detailed ones the service start s too. */
static inline void fx_ini_msg(struct ini_trace *t, int kind, uint16_t src, uint16_t dst, uint16_t peer,
                              uint32_t seq, uint64_t send, uint64_t t1, uint64_t s, uint64_t done)
{
    struct ini_trace_rec *r = ini_trace_begin(t, (enum ini_trace_kind)kind, t1, 0);
    ini_trace_set_msg(r, src, dst, kind == INI_TRACE_LOCAL ? INI_TRACE_NO_PEER : peer, 100);
    ini_trace_set_seq(r, seq);
    if (kind == INI_TRACE_OUT) {
        ini_trace_stamp(t, r, INI_TS_SUBMIT, send);
        for (int k = INI_TS_DEQUEUE; k <= INI_TS_OUT_UDP; k++)
            ini_trace_stamp(t, r, k, s);
    } else {
        ini_trace_stamp(t, r, INI_TS_DEQUEUE, s);
        for (int k = INI_TS_IN_IP; k <= INI_TS_IN_WINDOW; k++)
            ini_trace_stamp(t, r, k, s);
    }
    ini_trace_commit(t, r, done);
}

/* A compute node's records. */
static inline void fx_send(struct ini_cn_trace *t, uint16_t pe, uint16_t to, uint32_t seq, uint8_t type,
                           uint32_t cause, int local, uint64_t at)
{
    ini_cn_trace_tag(t, type, cause, 0);
    ini_cn_trace_send(t, pe, to, seq, 100, local ? INI_CN_LOCAL : 0, at);
}

static inline void fx_recv(struct ini_cn_trace *t, uint16_t pe, uint16_t from, uint32_t seq, uint64_t t0,
                           uint64_t t1)
{
    struct ini_cn_trace_rec *r = ini_cn_trace_fill(t, INI_CN_RECV, 0, pe, seq, 0, 0);
    r->peer = from;
    r->t[0] = t0;
    r->t[1] = t1;
}

/* An action id on a message from `from` (seq) or a request (ref). */
static inline void fx_action(struct ini_cn_trace *t, uint16_t pe, uint32_t id, int kind, uint16_t from,
                             uint32_t ref, uint32_t parent, uint64_t t0, uint64_t t1)
{
    ini_cn_trace_action(t, kind, pe, from, id, ref, parent, t0, t1);
}

static inline void fx_req(struct ini_cn_trace *t, uint16_t pe, uint32_t id, uint32_t done_by, int thread,
                          int kind, uint64_t resumed, uint64_t submit, uint64_t complete)
{
    ini_cn_trace_req(t, kind, pe, id, done_by, (uint32_t)thread, submit, complete, resumed);
}

/* Writes dir/cn<c>.trace of one node's buffer, on the fixture's clock,
 * with the header's flags (INI_CN_HDR_*). */
static inline int fx_cn_write_flags(struct ini_cn_trace *t, const char *dir, int c, unsigned flags)
{
    struct ini_cn_trace_info in = { .flags = (uint16_t)flags, .cluster = c, .n_pes = 1, .start_tsc = 1,
                                    .start_ns = FX_EPOCH_NS + 1, .end_tsc = FX_END, .end_ns = FX_EPOCH_NS + FX_END };
    snprintf(in.host, sizeof(in.host), "fx");
    char path[1024];
    snprintf(path, sizeof(path), "%s/cn%d.trace", dir, c);
    int rc = ini_cn_trace_write(path, &in, t, 1);
    ini_cn_trace_free(t);
    return rc;
}

static inline int fx_cn_write(struct ini_cn_trace *t, const char *dir, int c)
{
    return fx_cn_write_flags(t, dir, c, 0);
}

/* Two clusters of one node and one INI each, detailed INI traces:
 * PE 0 / INI 0 in cluster 0, PE 1 / INI 1 in cluster 1.  0, or -1 when
 * a compute-node buffer cannot be had. */
static inline int fx_two_clusters(struct ini_trace *i0, struct ini_trace *i1, struct ini_cn_trace *c0,
                                  struct ini_cn_trace *c1)
{
    fx_ini_open(i0, INI_TRACE_DETAILED, 0, 0, 0, 1, 1);
    fx_ini_open(i1, INI_TRACE_DETAILED, 1, 1, 0, 1, 1);
    return ini_cn_trace_init(c0, 64) == 0 && ini_cn_trace_init(c1, 64) == 0 ? 0 : -1;
}

/* One request answered, on fx_two_clusters' traces: node 0 asks at 100
 * (its request 1, picked up by its action 1; type 1, seq 1) through INI 0
 * [100, 150] and INI 1 [150, 200]; node 1's handler [2000, 2001] and its
 * action answer_id answer (type 2, seq 1) through INI 1 [2000, 2050] and
 * INI 0 [2050, 2100]; node 0's handler [2100, 2101] and its action 2,
 * from done_t0 to 2101, complete request 1. */
static inline void fx_request_answered(struct ini_trace *i0, struct ini_trace *i1, struct ini_cn_trace *c0,
                                       struct ini_cn_trace *c1, uint32_t answer_id, uint64_t done_t0)
{
    fx_action(c0, 0, 1, INI_CN_ACT_REQ, 0, 1, 0, 100, 100);
    fx_send(c0, 0, 1, 1, 1, 1, 0, 100);
    fx_ini_msg(i0, INI_TRACE_OUT, 0, 1, 1, 1, 100, 100, 100, 150);
    fx_ini_msg(i1, INI_TRACE_IN, 0, 1, 0, 1, 0, 150, 150, 200);
    fx_recv(c1, 1, 0, 1, 2000, 2001);
    fx_action(c1, 1, answer_id, INI_CN_ACT_MSG, 0, 1, 0, 2000, 2001);
    fx_send(c1, 1, 0, 1, 2, answer_id, 0, 2000);
    fx_ini_msg(i1, INI_TRACE_OUT, 1, 0, 0, 1, 2000, 2000, 2000, 2050);
    fx_ini_msg(i0, INI_TRACE_IN, 1, 0, 1, 1, 0, 2050, 2050, 2100);
    fx_recv(c0, 0, 1, 1, 2100, 2101);
    fx_action(c0, 0, 2, INI_CN_ACT_MSG, 1, 1, 0, done_t0, 2101);
    fx_req(c0, 0, 1, 2, 0, 1, 0, 100, 2101);
}

/* The four traces of fx_two_clusters written into dir: 0, or -1. */
static inline int fx_two_write(const char *dir, struct ini_trace *i0, struct ini_trace *i1, struct ini_cn_trace *c0,
                               struct ini_cn_trace *c1)
{
    if (fx_write(i0, dir) != 0 || fx_write(i1, dir) != 0)
        return -1;
    return fx_cn_write(c0, dir, 0) == 0 && fx_cn_write(c1, dir, 1) == 0 ? 0 : -1;
}

#endif
