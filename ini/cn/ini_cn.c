/*
 * ini_cn.c - the compute-node interface (see ini_cn.h).
 *
 * Each PE owns, for every INI of its cluster, the producer side of its
 * PE -> INI ring and the consumer side of the INI -> PE ring.  Nothing here
 * is shared between PE threads except read-only configuration and the
 * handler table, so no lock is taken on any path.  The barrier and the
 * compute bursts (cn_barrier.c, cn_work.c) keep their state here too
 * (cn_sync.h): the process's in struct ini_cn, a node's in struct ini_pe.
 */
#include "ini_cn.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "cn_internal.h"
#include "cn_sync.h"
#include "cn_vtime.h"
#include "fabric.h"
#include "loadbal.h"
#include "trace_cn.h"

_Static_assert(INI_CN_BARRIER_HANDLER == INI_MAX_HANDLERS - 1, "the barrier's handler is the last id");

static inline uint64_t now_us(void) { return ini_mono_ns() / 1000u; }
static inline uint64_t now_ns(void) { return ini_mono_ns(); }

/* The Δo knob from the configuration (or INI_KNOBS). */
static void set_overhead(struct ini_cn *cn)
{
    cn->overhead_ns = (uint64_t)(cn->cfg.knobs.overhead_us * 1000.0);
    cn->overhead_sleep = cn->cfg.knobs.overhead_sleep;
}

/* The Δo knob: the compute node spends this much longer per send and per
 * receive, spinning or sleeping.  Asleep, until an absolute deadline
 * taken first, with the calling thread's timer slack set to 1 ns: Linux's
 * default 50 us slack made every sleep 72-77 us late (docs/logp.md, the
 * knob check).  The prctl is set here, per sleep, because the sending
 * threads are the program's (ini_cn_run's or its own); it is one more
 * system call on a path that makes one anyway, inside the deadline. */
static void spend_overhead(const struct ini_cn *cn)
{
    if (cn->overhead_sleep) {
        uint64_t until = now_ns() + cn->overhead_ns;
        prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
        ini_sleep_until_ns(until);
    } else {
        uint64_t until = now_ns() + cn->overhead_ns;
        while (now_ns() < until)
            __builtin_ia32_pause();
    }
}

static inline uint64_t rdtsc(void)
{
    return __builtin_ia32_rdtsc();
}

/* The compute nodes' trace, on when the INIs trace (the configuration's
 * trace.mode, or INI_TRACE, which the launcher sets from its --trace) and
 * the run has a directory (INI_RUN_DIR).  INI_CN_TRACE_RECORDS sizes each
 * node's buffer; by default a quarter of the INIs' trace.records, which
 * holds a node's share with room to spare (docs/traces.md). */
static int trace_open(struct ini_cn *cn, char *err, size_t errlen)
{
    const char *mode = getenv("INI_TRACE"), *dir = getenv("INI_RUN_DIR"), *recs = getenv("INI_CN_TRACE_RECORDS");
    int on = mode && *mode ? strcmp(mode, "off") != 0 : cn->cfg.trace.mode != INI_TRACE_OFF;
    if (!on || !dir || !*dir)
        return 0;
    long cap = cn->cfg.trace.records / 4;
    if (recs && *recs) {
        char *end;
        cap = strtol(recs, &end, 10);
        if (*end || cap < 1 || cap > (1L << 26)) {
            snprintf(err, errlen, "INI_CN_TRACE_RECORDS=%s: expected 1..%ld records", recs, 1L << 26);
            return -1;
        }
    }
    if (cap < 1024)
        cap = 1024;
    snprintf(cn->trace_path, sizeof cn->trace_path, "%s/cn%d.trace", dir, cn->cluster);
    cn->traces = calloc((size_t)cn->n_pes, sizeof(*cn->traces));
    for (int p = 0; cn->traces && p < cn->n_pes; p++) {
        if (ini_cn_trace_init(&cn->traces[p], (uint32_t)cap) < 0) {
            snprintf(err, errlen, "cannot allocate the compute nodes' trace (%d x %ld records)", cn->n_pes, cap);
            return -1;
        }
        cn->pes[p].trace = &cn->traces[p];
    }
    if (!cn->traces) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    struct ini_cn_trace_info *in = &cn->trace_info;
    in->cluster = cn->cluster;
    in->n_pes = cn->n_pes;
    ini_trace_host_name(in->host);
    ini_cn_trace_anchor(&in->start_tsc, &in->start_ns);
    return 0;
}

/* Writes the trace (at detach) and frees the buffers. */
static void trace_close(struct ini_cn *cn)
{
    if (!cn->traces)
        return;
    if (!atomic_load(&cn->program_traces)) {
        for (int p = 0; p < cn->n_pes; p++)
            cn_auto_program_end(&cn->pes[p]);
        cn->trace_info.flags |= INI_CN_HDR_NODE_HANDLERS | INI_CN_HDR_LIBRARY;
    }
    ini_cn_trace_anchor(&cn->trace_info.end_tsc, &cn->trace_info.end_ns);
    cn_trace_virtual_anchors(cn);
    if (ini_cn_trace_write(cn->trace_path, &cn->trace_info, cn->traces, cn->n_pes) < 0)
        fprintf(stderr, "ini: cannot write %s: %s\n", cn->trace_path, strerror(errno));
    for (int p = 0; p < cn->n_pes; p++)
        ini_cn_trace_free(&cn->traces[p]);
    free(cn->traces);
    cn->traces = NULL;
}

/* Compute node p of the cluster cl, attached to its rings. */
static void init_pe(struct ini_cn *cn, const struct ini_cluster_cfg *cl, int p)
{
    struct ini_pe *pe = &cn->pes[p];
    pe->cn = cn;
    pe->local = p;
    pe->id = cl->pes[p];
    pe->lb.policy = cn->cfg.pe_policy;
    pe->lb.n_inis = cn->n_inis;
    pe->lb.rr_next = (uint32_t)p;          /* spread PEs' first choices */
    for (int i = 0; i < cn->n_inis; i++) {
        if (cl->inis[i] == cn->cfg.pes[pe->id].static_ini)
            pe->lb.static_local = i;
        pe->lb.submitted[i] = &cn->seg->inis[i].submitted;
        pe->lb.processed[i] = &cn->seg->inis[i].processed;
        pe->lb.inbound[i] = &cn->seg->inis[i].inbound;
        ini_ring_prod_attach(&pe->out[i], ini_segment_ring(cn->seg, p, i, INI_TO_INI));
        ini_ring_cons_attach(&pe->in[i], ini_segment_ring(cn->seg, p, i, INI_TO_PE));
    }
}

struct ini_cn *ini_cn_attach(const char *cfg_path, int cluster, const char *segment,
                             char *err, size_t errlen)
{
    struct ini_cn *cn = calloc(1, sizeof(*cn));
    if (!cn) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    cn->claim_fd = -1;
    if (ini_config_load(cfg_path, &cn->cfg, err, errlen) < 0)
        goto fail;
    if (cluster < 0 || cluster >= cn->cfg.n_clusters) {
        snprintf(err, errlen, "%s: cluster %d does not exist", cfg_path, cluster);
        goto fail;
    }
    cn->seg = ini_segment_attach(segment, cluster, err, errlen);
    if (!cn->seg)
        goto fail;
    /* Two programs on one cluster's rings would break their one-producer,
     * one-consumer rule: the second is refused. */
    cn->claim_fd = ini_segment_claim(segment, err, errlen);
    if (cn->claim_fd < 0)
        goto fail;
    const struct ini_cluster_cfg *cl = &cn->cfg.clusters[cluster];
    if (cn->seg->n_pes != (uint32_t)cl->n_pes || cn->seg->n_inis != (uint32_t)cl->n_inis) {
        snprintf(err, errlen, "segment %s does not match %s", segment, cfg_path);
        goto fail;
    }
    cn->cluster = cluster;
    cn->n_pes = cl->n_pes;
    cn->n_inis = cl->n_inis;
    /* Colocated with its INI, a compute node that spins only keeps the
     * core from the INI it waits for: it hands the core over at once. */
    cn->spin_us = cn->cfg.idle.colocate ? 0 : cn->cfg.idle.spin_us;
    cn->yield_us = cn->cfg.idle.yield_us;
    set_overhead(cn);
    cn->adaptive = cn->cfg.idle.mode != INI_IDLE_POLL;
    for (int i = 0; i < cl->n_inis; i++)
        cn->wake.fd[i] = -1;
    cn->pes = aligned_alloc(64, sizeof(struct ini_pe) * (size_t)cn->n_pes);
    if (!cn->pes) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    memset(cn->pes, 0, sizeof(struct ini_pe) * (size_t)cn->n_pes);
    for (int p = 0; p < cn->n_pes; p++)
        init_pe(cn, cl, p);
    if (trace_open(cn, err, errlen) < 0 || ini_cn_sync_init(&cn->sync, &cn->cfg, cluster, err, errlen) < 0 ||
        cn_vt_attach(&cn->vt, cn->cfg.n_pes, err, errlen) < 0)
        goto fail;
    if (cn->vt.m)
        cn_vt_group(&cn->vt, cl->pes, cl->n_pes, cluster);
    cn->handlers[INI_CN_BARRIER_HANDLER] = (struct handler_slot){ ini_cn_barrier_on_arrive, cn };
    return cn;
fail:
    if (cn->traces) {
        for (int p = 0; p < cn->n_pes; p++)
            ini_cn_trace_free(&cn->traces[p]);
        free(cn->traces);
    }
    if (cn->claim_fd >= 0)
        close(cn->claim_fd);
    ini_segment_detach(cn->seg);
    free(cn->pes);
    free(cn);
    return NULL;
}

int ini_cn_check_config_env(char *err, size_t errlen)
{
    const char *path = getenv("INI_CONFIG");
    if (!path)
        return 0;
    struct ini_config *cfg = malloc(sizeof(*cfg));   /* large: not on the stack */
    if (!cfg) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = ini_config_load(path, cfg, err, errlen);
    free(cfg);
    return rc;
}

struct ini_cn *ini_cn_attach_env(char *err, size_t errlen)
{
    const char *cfg = getenv("INI_CONFIG"), *cl = getenv("INI_CLUSTER"), *seg = getenv("INI_SEGMENT");
    if (!cfg || !cl || !seg) {
        snprintf(err, errlen, "INI_CONFIG, INI_CLUSTER and INI_SEGMENT are not set: "
                              "run this program under ini-cluster run");
        return NULL;
    }
    char *end;
    long c = strtol(cl, &end, 10);
    if (*cl == '\0' || *end != '\0' || c < 0 || c >= INI_MAX_CLUSTERS) {
        snprintf(err, errlen, "INI_CLUSTER: not a cluster number: '%s'", cl);
        return NULL;
    }
    struct ini_cn *cn = ini_cn_attach(cfg, (int)c, seg, err, errlen);
    /* ini-cluster run --knob reaches the compute nodes this way (Δo, and
     * the compute bursts' dilate). */
    const char *knobs = getenv("INI_KNOBS");
    if (cn && knobs && *knobs) {
        if (ini_knobs_parse(knobs, &cn->cfg.knobs, err, errlen) < 0 ||
            ini_cn_sync_dilation(&cn->sync, cn->cfg.knobs.dilate, err, errlen) < 0) {
            ini_cn_detach(cn);
            return NULL;
        }
        set_overhead(cn);
    }
    /* ini-cluster run --policy P reaches every program this way. */
    const char *policy = getenv("INI_POLICY");
    if (cn && policy && *policy) {
        int p = ini_policy_parse(policy);
        if (p < 0) {
            snprintf(err, errlen, "INI_POLICY: unknown policy '%s'", policy);
            ini_cn_detach(cn);
            return NULL;
        }
        ini_cn_set_policy(cn, (enum ini_policy)p);
    }
    /* Under the launcher stdout is RUN_DIR/cluster<C>.out, which the
     * launcher shows as it grows: line-buffered, as on a terminal, so
     * that each line shows when written and a run stopped by a signal
     * loses no complete line (glibc takes the mode after output too). */
    if (cn)
        setvbuf(stdout, NULL, _IOLBF, 0);
    return cn;
}

void ini_cn_detach(struct ini_cn *cn)
{
    if (!cn)
        return;
    trace_close(cn);                       /* first: in virtual time its anchors read the clocks */
    if (cn->vt.m) {
        for (int p = 0; p < cn->n_pes; p++)
            cn_vt_pe_stop(&cn->pes[p]);    /* a node that never ran holds the machine no longer */
        cn_vt_detach(&cn->vt);
    }
    for (int i = 0; i < cn->n_inis; i++)
        if (cn->wake.fd[i] >= 0)
            close(cn->wake.fd[i]);
    if (cn->claim_fd >= 0)
        close(cn->claim_fd);
    ini_segment_detach(cn->seg);
    free(cn->pes);
    free(cn);
}

int ini_cn_register(struct ini_cn *cn, uint16_t id, ini_handler_fn fn, void *arg)
{
    if (id >= INI_MAX_HANDLERS || id == INI_CN_BARRIER_HANDLER || !fn) {
        errno = EINVAL;
        return -1;
    }
    cn->handlers[id].fn = fn;
    cn->handlers[id].arg = arg;
    return 0;
}

const struct ini_config *ini_cn_config(const struct ini_cn *cn) { return &cn->cfg; }
int ini_cn_cluster(const struct ini_cn *cn) { return cn->cluster; }
int ini_cn_n_pes(const struct ini_cn *cn) { return cn->n_pes; }
struct ini_pe *ini_cn_pe(struct ini_cn *cn, int local)
{
    return (local >= 0 && local < cn->n_pes) ? &cn->pes[local] : NULL;
}
void ini_cn_set_policy(struct ini_cn *cn, enum ini_policy policy)
{
    for (int p = 0; p < cn->n_pes; p++)
        cn->pes[p].lb.policy = policy;
}
int ini_pe_id(const struct ini_pe *pe) { return pe->id; }
int ini_pe_local(const struct ini_pe *pe) { return pe->local; }
struct ini_cn *ini_pe_cn(struct ini_pe *pe) { return pe->cn; }
const struct ini_pe_stats *ini_pe_stats(const struct ini_pe *pe) { return &pe->stats; }
/* The program's own records begin: the library's stop (cn_trace.c). */
struct ini_cn_trace *ini_pe_trace(struct ini_pe *pe)
{
    if (pe->trace)
        atomic_store_explicit(&pe->cn->program_traces, 1, memory_order_relaxed);
    return pe->trace;
}
struct ini_cn_trace *cn_pe_trace(struct ini_pe *pe) { return pe->trace; }
struct cn_auto_trace *cn_pe_auto(struct ini_pe *pe)
{
    if (!pe->trace || atomic_load_explicit(&pe->cn->program_traces, memory_order_relaxed))
        return NULL;
    return &pe->at;
}

void ini_cn_trace_model(struct ini_cn *cn, unsigned flags)
{
    cn->trace_info.flags = (uint16_t)flags;
}
uint32_t ini_pe_handling_seq(const struct ini_pe *pe) { return pe->handling_seq; }
struct cn_sync *ini_cn_sync(struct ini_cn *cn) { return &cn->sync; }
struct pe_sync *ini_pe_sync(struct ini_pe *pe) { return &pe->sync; }
uint32_t ini_cn_trace_action_id(struct ini_cn *cn) { return atomic_fetch_add(&cn->sync.next_action, 1); }
uint32_t ini_cn_trace_req_id(struct ini_cn *cn) { return atomic_fetch_add(&cn->sync.next_req, 1); }

void ini_pe_trace_req(struct ini_pe *pe, int kind, uint32_t id, uint32_t done, uint64_t submit)
{
    if (!pe->trace)
        return;
    uint64_t now = cn_trace_now(pe);
    /* the thread: one per node, named by it */
    ini_cn_trace_req(pe->trace, kind, (uint16_t)pe->id, id, done, (uint32_t)pe->id, submit, now, pe->sync.resumed);
    pe->sync.resumed = now;
}

struct run_arg {
    struct ini_pe *pe;
    int (*fn)(struct ini_pe *, void *);
    void *arg;
    int rc;
};

/* idle.colocate: the PE's thread runs on the core of its static INI,
 * so that on shared cores each cluster's daemon and compute node hand one
 * core to each other (yield_us) instead of waking each other across cores
 * through the kernel.  Nothing when that INI has no core. */
static void colocate(struct ini_pe *pe)
{
    const struct ini_config *cfg = &pe->cn->cfg;
    int ini = cfg->pes[pe->id].static_ini;
    if (!cfg->idle.colocate || cfg->idle.mode == INI_IDLE_POLL || ini < 0 || ini >= cfg->n_inis ||
        cfg->inis[ini].core < 0)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cfg->inis[ini].core, &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);   /* best effort */
}

static void *run_thread(void *p)
{
    struct run_arg *ra = p;
    colocate(ra->pe);
    if (ra->pe->cn->vt.m)
        cn_vt_pe_start(ra->pe);
    ra->rc = ra->fn(ra->pe, ra->arg);
    if (ra->pe->cn->vt.m)
        cn_vt_pe_stop(ra->pe);      /* its program's part is over: it sends nothing more */
    return NULL;
}

int ini_cn_run(struct ini_cn *cn, int (*fn)(struct ini_pe *pe, void *arg), void *arg)
{
    pthread_t th[INI_MAX_PES_PER_CLUSTER];
    struct run_arg ra[INI_MAX_PES_PER_CLUSTER];
    int started = 0, failed = 0;
    for (int p = 0; p < cn->n_pes; p++) {
        ra[p] = (struct run_arg){ &cn->pes[p], fn, arg, 0 };
        if (pthread_create(&th[p], NULL, run_thread, &ra[p]) != 0) {
            ra[p].rc = -1;
            break;
        }
        started++;
    }
    for (int p = 0; p < started; p++)
        pthread_join(th[p], NULL);
    for (int p = 0; p < cn->n_pes; p++)
        failed += ra[p].rc != 0;
    return failed;
}

static int poll_pe(struct ini_pe *pe);

static int inis_stopped(const struct ini_cn *cn)
{
    for (int i = 0; i < cn->n_inis; i++)
        if (atomic_load_explicit(&cn->seg->inis[i].state, memory_order_relaxed) == INI_SEG_STOPPED)
            return 1;
    return 0;
}

/* ini_send's writer: the caller's buffer copied into the record. */
static void copy_in(void *dst, uint32_t len, void *buf)
{
    memcpy(dst, buf, len);
}

/* Sends a message of len bytes that write(dst, len, arg) puts into its
 * ring record (flags: the record's, INI_REC_F_INPLACE when that is no
 * copy); the arguments checked by the caller. */
static int send_rec(struct ini_pe *pe, int dst_pe, uint16_t handler, uint32_t len, ini_write_fn write, void *arg,
                    uint16_t flags)
{
    struct ini_cn *cn = pe->cn;
    const int vt = cn->vt.m != NULL, lead = vt && !pe->in_handler;   /* lead: the call's own event */
    if (lead && cn_vt_enter(pe) < 0) {
        errno = EPIPE;
        return -1;
    }
    if (cn->overhead_ns)
        spend_overhead(cn);
    int i = ini_lb_pe_pick(&pe->lb);
    uint32_t rec_len = INI_HEADROOM + (uint32_t)sizeof(struct ini_am_hdr) + len;
    struct ini_rec *rec;
    while (!(rec = ini_fabric_reserve(&pe->out[i], rec_len))) {
        pe->stats.send_waits++;
        if (inis_stopped(cn) || (vt && cn_vt_yield(pe, i) < 0)) {
            if (lead)
                cn_vt_leave(pe);
            errno = EPIPE;
            return -1;
        }
        if (vt)
            continue;       /* the INI took records meanwhile, or time moved on */
        /* Keep draining our own deliveries so that two PEs sending to
         * each other through full rings cannot deadlock. */
        if (!pe->in_handler)
            poll_pe(pe);
        /* The INI that drains this ring may be waiting for our core
         * (idle.yield_us, idle.colocate): give it over, not spin on it. */
        if (cn->yield_us)
            sched_yield();
        else
            __builtin_ia32_pause();
    }
    /* The headroom: when it was submitted (the TSC), or in virtual time
     * when it reaches the INI. */
    uint64_t t = vt ? cn_vt_send_stamp(pe) : rdtsc();
    memcpy(rec->data, &t, sizeof(t));
    struct ini_am_hdr *h = ini_fabric_out_am(rec);
    h->src_pe = (uint16_t)pe->id;
    h->dst_pe = (uint16_t)dst_pe;
    h->handler = handler;
    h->flags = 0;
    h->len = len;
    uint32_t seq = pe->seq++;
    h->pe_seq = seq;
    rec->flags = flags;
    if (len)
        write(h + 1, len, arg);
    ini_fabric_publish(&pe->out[i]);
    if (pe->trace) {
        uint64_t ts = vt ? t + INI_TRACE_VT_ORIGIN : t;     /* a trace stamp (trace.h) */
        cn_auto_send(pe, handler, ts);  /* the library's cause and tag for it (cn_trace.c) */
        ini_cn_trace_send(pe->trace, (uint16_t)pe->id, (uint16_t)dst_pe, seq, len, 0, ts);
    }
    struct ini_seg_ini *ini = &cn->seg->inis[i];
    atomic_fetch_add_explicit(&ini->submitted, 1, memory_order_relaxed);
    if (ini_fabric_consumer_sleeps(&ini->sleeping))
        ini_fabric_ring_fifo(&cn->wake.fd[i], ini->wake_path);

    pe->stats.sent++;
    pe->stats.sent_bytes += len;
    pe->stats.sent_per_ini[i]++;
    if (vt) {
        int rc = cn_vt_post_send(pe, i, t);
        if (lead)
            cn_vt_leave(pe);
        if (rc < 0) {
            errno = EPIPE;
            return -1;
        }
    }
    return 0;
}

int ini_send(struct ini_pe *pe, int dst_pe, uint16_t handler, const void *buf, uint32_t len)
{
    if (dst_pe < 0 || dst_pe >= pe->cn->cfg.n_pes || handler >= INI_MAX_HANDLERS ||
        len > (uint32_t)pe->cn->cfg.stack.max_message || (len && !buf)) {
        errno = EINVAL;
        return -1;
    }
    return send_rec(pe, dst_pe, handler, len, copy_in, (void *)buf, 0);
}

int ini_send_inplace(struct ini_pe *pe, int dst_pe, uint16_t handler, uint32_t len, ini_write_fn write,
                     void *arg)
{
    if (dst_pe < 0 || dst_pe >= pe->cn->cfg.n_pes || handler >= INI_MAX_HANDLERS ||
        len > (uint32_t)pe->cn->cfg.stack.max_message || (len && !write)) {
        errno = EINVAL;
        return -1;
    }
    return send_rec(pe, dst_pe, handler, len, write, arg, INI_REC_F_INPLACE);
}

/* A handler run with its RECV record (trace_cn.h). */
static void run_traced(struct ini_pe *pe, const struct handler_slot *hs, const struct ini_am_hdr *h)
{
    uint64_t t0 = cn_trace_now(pe);
    pe->handling_seq = h->pe_seq;
    struct cn_auto_trace *at = h->handler != INI_CN_BARRIER_HANDLER ? cn_pe_auto(pe) : NULL;
    uint32_t act = at ? cn_auto_handler_begin(pe, at) : 0;
    hs->fn(pe, h->src_pe, h + 1, h->len, hs->arg);
    if (at)
        cn_auto_handler_end(pe, at, act, h->src_pe, h->pe_seq, t0);
    struct ini_cn_trace_rec *r = ini_cn_trace_next(pe->trace, INI_CN_RECV);
    if (!r)
        return;
    r->pe = (uint16_t)pe->id;
    r->peer = h->src_pe;
    r->a = h->pe_seq;
    r->b = h->len;
    r->t[0] = t0;
    r->t[1] = cn_trace_now(pe);
}

void cn_handle_record(struct ini_pe *pe, int ini, struct ini_rec *rec, uint64_t end)
{
    struct ini_cn *cn = pe->cn;
    const struct ini_am_hdr *h = (const struct ini_am_hdr *)rec->data;
    const struct handler_slot *hs = &cn->handlers[h->handler];
    if (cn->overhead_ns)
        spend_overhead(cn);
    if (hs->fn) {
        pe->in_handler++;      /* a held turn (ini_pe_hold) counts as one */
        if (pe->trace)
            run_traced(pe, hs, h);
        else
            hs->fn(pe, h->src_pe, h + 1, h->len, hs->arg);
        pe->in_handler--;
    } else {
        fprintf(stderr, "ini: PE %d: message from PE %u for unregistered handler %u dropped\n",
                pe->id, h->src_pe, h->handler);
    }
    ini_ring_release_to(&pe->in[ini], end);
    pe->stats.received++;
    pe->stats.received_bytes += h->len;
}

static int poll_pe(struct ini_pe *pe)
{
    struct ini_cn *cn = pe->cn;
    int ran = 0;
    for (int k = 0; k < cn->n_inis; k++) {
        int i = (pe->next_in + k) % cn->n_inis;
        struct ini_ring_cons *in = &pe->in[i];
        struct ini_rec *rec;
        uint64_t end;
        /* A bounded batch per ring keeps one busy INI from starving the others. */
        for (int b = 0; b < 32 && (rec = ini_ring_next(in, &end)); b++) {
            cn_handle_record(pe, i, rec, end);
            ran++;
        }
    }
    pe->next_in = (pe->next_in + 1) % cn->n_inis;
    return ran;
}

static int any_unread(struct ini_pe *pe)
{
    for (int i = 0; i < pe->cn->n_inis; i++)
        if (ini_ring_has_unread(&pe->in[i]))
            return 1;
    return 0;
}

void ini_pe_kick(struct ini_pe *pe)
{
    struct ini_segment *seg = pe->cn->seg;
    atomic_store_explicit(&pe->kicked, 1, memory_order_relaxed);
    /* Pairs with the fence in wait_group between announcing the sleep and
     * its last look at `kicked`: one side sees the other.  The PE may
     * sleep on another PE's doorbell (ini_wait_any): the INIs' wake-up
     * rings whichever its `sleeping` word names. */
    ini_fabric_wake_pe(seg, pe->local);
}

/* A group of PEs one thread waits for. */
struct pe_group {
    struct ini_pe **pes;
    int n;
};

/* The last look before sleeping (fabric.h): a message or a kick. */
static int group_pending(void *arg)
{
    const struct pe_group *g = arg;
    for (int k = 0; k < g->n; k++)
        if (any_unread(g->pes[k]) || atomic_load_explicit(&g->pes[k]->kicked, memory_order_relaxed))
            return 1;
    return 0;
}

/* ini_wait for a group of PEs served by one thread (fabric.h: every PE of
 * the group sleeps on the doorbell of the first).  Inlined into ini_wait
 * with n = 1, where the loops over the group fold away. */
static inline __attribute__((always_inline)) int wait_loop(struct ini_pe **pes, int n, uint64_t timeout_us)
{
    struct ini_cn *cn = pes[0]->cn;
    struct ini_seg_pe *bell = &cn->seg->pes[pes[0]->local];
    const uint32_t sleeps_on = ini_fabric_sleeps_on(pes[0]->local);
    uint64_t start = now_us();
    uint64_t spin_until = start + (uint64_t)cn->spin_us;
    for (;;) {
        int ran = 0;
        for (int k = 0; k < n; k++)
            ran += poll_pe(pes[k]);
        if (ran)
            return ran;
        int kicked = 0;
        for (int k = 0; k < n; k++)
            if (atomic_load_explicit(&pes[k]->kicked, memory_order_relaxed) &&
                atomic_exchange_explicit(&pes[k]->kicked, 0, memory_order_acquire))
                kicked = 1;
        if (kicked)
            return 0;
        uint64_t now = now_us();
        if (timeout_us && now - start >= timeout_us)
            return 0;
        if (inis_stopped(cn))
            return -1;
        if (!cn->adaptive || now < spin_until) {
            __builtin_ia32_pause();
            continue;
        }
        /* Then hand the core over (to the INI serving us, when colocated)
         * for up to yield_us before sleeping in the kernel; colocated, a
         * yield the scheduler kept means our INI did not get the core,
         * and only sleeping gives it (fabric.h, "Sharing a core"). */
        if (now < spin_until + (uint64_t)cn->yield_us) {
            if (!cn->cfg.idle.colocate) {
                sched_yield();
                continue;
            }
            if (ini_fabric_yield())
                continue;
            pes[0]->stats.kept_yields++;
        }
        /* Sleep on the group's doorbell; an INI rings it after delivering
         * to one of us while our `sleeping` names it (fabric.h).  Bounded
         * sleeps so that a stopped INI is noticed. */
        _Atomic uint32_t *words[INI_MAX_PES_PER_CLUSTER];
        for (int k = 0; k < n; k++)
            words[k] = &cn->seg->pes[pes[k]->local].sleeping;
        uint64_t left = timeout_us ? timeout_us - (now - start) : 0;
        struct pe_group group = { pes, n };
        ini_fabric_sleep_futex(&bell->doorbell, words, n, sleeps_on, group_pending, &group,
                               (!left || left > 100000) ? 100000 : left);
        spin_until = now_us() + (uint64_t)cn->spin_us;
    }
}

/* Colocated with its INI, a waiting group says so while it waits, so that
 * the INI keeps the core until it has a message for it (fabric.h,
 * "Sharing a core"). */
static inline __attribute__((always_inline)) int wait_group(struct ini_pe **pes, int n, uint64_t timeout_us)
{
    struct ini_cn *cn = pes[0]->cn;
    const int say = cn->adaptive && cn->cfg.idle.colocate;
    for (int k = 0; say && k < n; k++)
        ini_fabric_pe_waits(cn->seg, pes[k]->local, 1);
    int r = wait_loop(pes, n, timeout_us);
    for (int k = 0; say && k < n; k++)
        ini_fabric_pe_waits(cn->seg, pes[k]->local, 0);
    return r;
}

/* Traced, a program's poll or wait that ran handlers is one of its
 * requests (cn_trace.c); the library's own waits (the barrier's) are not. */
/* ini_poll and ini_wait in virtual time: the inputs due by the end of the
 * node's burst; a wait with none waits for the next (its timeout does not
 * apply: nothing but a message ends the wait of an emulated processor). */
static int vt_poll_wait(struct ini_pe *pe, int wait)
{
    int ran = pe->in_handler ? 0 : cn_vt_enter(pe);
    /* Traced, the request starts where the burst ended: the handlers that
     * interrupted the burst belong to it, not to a wait. */
    uint64_t submit = pe->trace ? cn_auto_wait_begin(pe) : 0;
    int waited = ran == 0 && wait ? cn_vt_wait(pe) : 0;
    if (!pe->in_handler)
        cn_vt_leave(pe);
    if (pe->trace)
        cn_auto_wait_end(pe, submit, waited);
    return ran ? ran : waited;
}

int ini_poll(struct ini_pe *pe)
{
    if (pe->cn->vt.m)
        return vt_poll_wait(pe, 0);
    if (!pe->trace)
        return poll_pe(pe);
    uint64_t submit = cn_auto_wait_begin(pe);
    int ran = poll_pe(pe);
    cn_auto_wait_end(pe, submit, ran);
    return ran;
}

int ini_wait(struct ini_pe *pe, uint64_t timeout_us)
{
    if (pe->cn->vt.m)
        return vt_poll_wait(pe, 1);
    if (!pe->trace)
        return wait_group(&pe, 1, timeout_us);
    uint64_t submit = cn_auto_wait_begin(pe);
    int ran = wait_group(&pe, 1, timeout_us);
    cn_auto_wait_end(pe, submit, ran);
    return ran;
}

int ini_wait_any(struct ini_pe **pes, int n, uint64_t timeout_us)
{
    if (n < 1 || n > INI_MAX_PES_PER_CLUSTER || !pes) {
        errno = EINVAL;
        return -1;
    }
    for (int k = 1; k < n; k++)
        if (pes[k]->cn != pes[0]->cn) {
            errno = EINVAL;
            return -1;
        }
    if (pes[0]->cn->vt.m)
        return n == 1 ? vt_poll_wait(pes[0], 1) : (errno = ENOTSUP, -1);
    return wait_group(pes, n, timeout_us);
}
