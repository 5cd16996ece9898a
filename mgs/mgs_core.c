/*
 * mgs_core.c - the frame of MGS in a cluster process: attach, the two views
 * of the shared range, the SIGSEGV handler, the request stack between
 * compute threads and the protocol thread, the protocol thread's loop, and
 * the message channel between clusters.
 *
 * Who runs the protocol (a decision; docs/mgs.md discusses it)
 *   One protocol thread per cluster owns every compute node's endpoint
 *   (struct ini_pe) of the cluster: the compute threads never call ini_*
 *   themselves, so each ring still has one writer and one reader.  All
 *   protocol state belongs to the one thread, so the state machines need no
 *   locks, and requests are served while every compute thread computes.
 *   Each message is nevertheless sent *for* the compute node it belongs to,
 *   from that node's endpoint, as each Alewife node sent its own messages:
 *   a request for the faulting (or locking, releasing, arriving) node, to
 *   the unit's or lock's home node; a reply from the node that received
 *   what it answers, to the node that sent it.  Every node's INI choice
 *   (the scheduling policy) therefore sees that node's own traffic, and
 *   under `static` every INI carries exactly its compute nodes' messages.
 *
 *   The SIGSEGV handler does not run the protocol: ini_send/ini_poll are not
 *   reentrant with the protocol thread's use of the same PE, and a handler
 *   that ran protocol steps would need locks.  It records the fault in the
 *   thread's request (thread-local, no allocation), pushes it on a lock-free
 *   stack, rings the protocol thread's doorbell and sleeps on a futex: only
 *   atomics and the futex system call, which are async-signal-safe.
 *
 *   Waking the protocol thread: it sleeps in ini_wait_any on all the
 *   cluster's nodes, which returns for a message to any of them or when a
 *   compute thread with a request kicks one (ini_pe_kick on node 0).  Standalone (no INIs) it
 *   sleeps on a futex word of its own that compute threads ring.
 *
 * The channel
 *   Messages between two PEs may be reordered when a policy spreads them
 *   over several INIs (round-robin, load-aware).  The protocol relies on
 *   per-pair FIFO order (an INV must not overtake the DATA it follows; a
 *   RECALL must not overtake the SWGRANT), so every message carries a
 *   sequence number per (source, destination) cluster and the receiver holds
 *   early arrivals until the gap is filled.  The INI layer delivers every
 *   message exactly once and intact, so nothing is ever retransmitted here.
 *   The INI handler only copies a message into the protocol thread's queues;
 *   processing happens in the loop, never inside ini_poll, because ini_send
 *   polls when a ring is full and the protocol steps must not nest.
 *   A message to our own cluster (the home is here) skips the INIs and goes
 *   straight onto the ready queue.
 */
#include "mgs_internal.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "fabric.h"
#include "mgs_diff.h"
#include "trace_cn.h"

struct mgs *mgs_g;

static _Thread_local struct mgs_request tls_request;
static _Thread_local int tls_thread = -1;
static _Thread_local bool tls_is_protocol_thread;
/* Traced runs: the TSC when the thread last came back from MGS. */
static _Thread_local uint64_t tls_resumed;
static struct sigaction previous_segv;

#define DEFAULT_BASE 0x3f0000000000ull
#define DEFAULT_SHARED_MB 64

void mgs_fatal(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "mgs: cluster %d: fatal: %s\n", mgs_g ? mgs_g->cluster : -1, line);
    fflush(stderr);
    abort();
}

uint64_t mgs_now_us(void) { return ini_mono_ns() / 1000u; }

static long futex(_Atomic uint32_t *word, int op, uint32_t val)
{
    return syscall(SYS_futex, (uint32_t *)word, op, val, NULL, NULL, 0);
}

/* ---- queues --------------------------------------------------------------- */

static inline bool seq_before(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) < 0;
}

void mgs_queue_push(struct mgs_msg_queue *q, struct mgs_msg *m)
{
    m->next = NULL;
    FIFO_APPEND(q->head, q->tail, m, next);
}

void mgs_queue_push_front(struct mgs_msg_queue *q, struct mgs_msg *m)
{
    m->next = q->head;
    q->head = m;
    if (!q->tail)
        q->tail = m;
}

/* Holds m in *list, sorted by seq (wrapping, as the sequences do), before
 * any held message of the same seq: the remote channel's early arrivals
 * (on_ini_message) and virtual time's local messages (on_local_message)
 * wait there for the ones sent before them.  Returns whether the message
 * after m has m's seq, which the remote channel calls a duplicate. */
bool mgs_hold_by_seq(struct mgs_msg **list, struct mgs_msg *m)
{
    struct mgs_msg **p = list;
    while (*p && seq_before((*p)->h.seq, m->h.seq))
        p = &(*p)->next;
    m->next = *p;
    *p = m;
    return m->next && m->next->h.seq == m->h.seq;
}

struct mgs_msg *mgs_queue_pop(struct mgs_msg_queue *q)
{
    struct mgs_msg *m = q->head;
    if (m) {
        q->head = m->next;
        if (!q->head)
            q->tail = NULL;
        m->next = NULL;
    }
    return m;
}

/* ---- requests: compute thread side -------------------------------------- */

/* Wakes the protocol thread if it sleeps.  Standalone, the producer's
 * half of fabric.h's sleeping and waking, with idle_wait the consumer's:
 * one side sees the other.  Async-signal-safe (atomics and a futex). */
static void kick_protocol_thread(struct mgs *g)
{
    if (g->cn) {
        ini_pe_kick(g->pes[0]);
        return;
    }
    if (ini_fabric_consumer_sleeps(&g->own_bell_sleeping))
        ini_doorbell_ring(&g->own_bell);
}

/* Hands r to the protocol thread and sleeps until it is done. */
static void hand_over(struct mgs *g, struct mgs_request *r)
{
    atomic_store_explicit(&r->done, 0, memory_order_relaxed);
    r->error = 0;
    r->thread = tls_thread;
    struct mgs_request *head = atomic_load_explicit(&g->requests, memory_order_relaxed);
    do
        r->next = head;
    while (!atomic_compare_exchange_weak_explicit(&g->requests, &head, r, memory_order_seq_cst,
                                                  memory_order_relaxed));
    kick_protocol_thread(g);
    for (int spin = 0; spin < 64; spin++) {
        if (atomic_load_explicit(&r->done, memory_order_acquire) == 1)
            return;
        __builtin_ia32_pause();
    }
    uint32_t expected = 0;
    if (atomic_compare_exchange_strong_explicit(&r->done, &expected, 2, memory_order_acq_rel,
                                                memory_order_acquire)) {
        while (atomic_load_explicit(&r->done, memory_order_acquire) == 2)
            futex(&r->done, FUTEX_WAIT_PRIVATE, 2);
    }
}

/* A compute thread's request, made and answered.  Used by the signal
 * handler too: atomics, clocks and futex calls only. */
static void submit_and_wait(struct mgs *g, struct mgs_request *r)
{
    if (g->vt.on) {
        r->thread = tls_thread;
        if (g->tr.on) {           /* the node's clock: where its burst ended */
            r->t_submit = mgs_trace_now(g);
            r->t_resumed = tls_resumed;
        }
        mgs_vt_submit(g, r);      /* the node handles it itself (mgs_vtime.c) */
        if (g->tr.on)
            tls_resumed = mgs_trace_now(g);
        return;
    }
    mgs_dilate_compute(g);
    if (g->tr.on) {
        r->t_submit = ini_cn_trace_tsc();
        r->t_resumed = tls_resumed;
    }
    hand_over(g, r);
    if (g->tr.on)
        tls_resumed = ini_cn_trace_tsc();
    mgs_dilate_mark(g, tls_thread);
}

/* Protocol thread: r is finished; the thread may reuse it at once, so r is
 * not touched after the exchange (a late wake on its address is harmless). */
void mgs_complete(struct mgs_request *r)
{
    mgs_trace_req_done(mgs_g, r);
    if (mgs_g->vt.on) {
        mgs_vt_complete(mgs_g, r);
        return;
    }
    if (atomic_exchange_explicit(&r->done, 1, memory_order_acq_rel) == 2)
        futex(&r->done, FUTEX_WAKE_PRIVATE, 1);
}

static struct mgs_request *request(enum mgs_req_kind kind)
{
    struct mgs_request *r = &tls_request;
    memset(r, 0, sizeof *r);
    r->kind = kind;
    return r;
}

/* ---- the fault handler ---------------------------------------------------- */

static void on_segv(int sig, siginfo_t *si, void *context)
{
    struct mgs *g = mgs_g;
    uintptr_t addr = (uintptr_t)si->si_addr;
    if (!g || addr < g->base || addr >= g->base + g->size ||
        !atomic_load_explicit(&g->protocol_mode, memory_order_acquire) || tls_is_protocol_thread) {
        /* Not ours (or a bug in the protocol thread): let the previous
         * disposition handle the re-executed access. */
        sigaction(SIGSEGV, &previous_segv, NULL);
        return;
    }
    int saved_errno = errno;
    const ucontext_t *uc = context;
    /* x86-64: bit 1 of the page-fault error code is set for a write. */
    bool write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
    struct mgs_request *r = &tls_request;
    r->kind = MGS_REQ_FAULT;
    r->unit = (uint32_t)((addr - g->base) / g->unit);
    r->write = write;
    submit_and_wait(g, r);
    errno = saved_errno;
}

/* ---- memory protection ------------------------------------------------ */

/* A unit of a page or more is protected as its state says.  Units smaller
 * than a page share their page's protection, which must be the most
 * restrictive of theirs: an access the page allowed to one unit could
 * otherwise reach a sibling that has no copy, or no twin to diff against.
 * (PROT_NONE, PROT_READ, PROT_READ | PROT_WRITE: their intersection is the
 * most restrictive.) */
void mgs_protect(uint32_t unit, int prot)
{
    struct mgs *g = mgs_g;
    g->units[unit].prot = (uint8_t)prot;
    uint8_t *addr = g->app + (size_t)unit * g->unit;
    size_t len = g->unit;
    if (g->units_per_page > 1) {
        size_t page = unit / g->units_per_page;
        const struct mgs_unit *first = &g->units[page * g->units_per_page];
        for (uint32_t k = 0; k < g->units_per_page; k++)
            prot &= first[k].prot;
        if (g->page_prot[page] == prot)
            return;
        g->page_prot[page] = (uint8_t)prot;
        addr = g->app + page * g->page;
        len = g->page;
    }
    if (mprotect(addr, len, prot) != 0)
        mgs_fatal("mprotect unit %u: %s (vm.max_map_count too low?)", unit, strerror(errno));
}

/* ---- the channel ------------------------------------------------------------ */

static int process_ready(struct mgs *g);

/* INI handler, on the protocol thread inside ini_poll: copy, restore the
 * per-source order, queue.  No protocol step runs here. */
static void on_ini_message(struct ini_pe *pe, int src_pe, const void *data, uint32_t len, void *arg)
{
    struct mgs *g = arg;
    struct mgs_hdr h;
    if (len < sizeof h)
        mgs_fatal("short message (%u bytes) from PE %d", len, src_pe);
    memcpy(&h, data, sizeof h);
    if (h.src >= g->n_clusters || src_pe < 0 || src_pe >= INI_MAX_PES || g->pe_cluster[src_pe] != h.src ||
        h.type == 0 || h.type >= MGS_M_TYPES)
        mgs_fatal("malformed message from PE %d (type %u, source cluster %u)", src_pe, h.type, h.src);
    struct mgs_msg *m = malloc(sizeof *m + (len - sizeof h));
    if (!m)
        mgs_fatal("out of memory");
    m->h = h;
    m->src_pe = (int16_t)src_pe;
    m->to_local = (int16_t)ini_pe_local(pe);
    m->trace_seq = ini_pe_handling_seq(pe);
    m->len = len - (uint32_t)sizeof h;
    memcpy(m->payload, (const uint8_t *)data + sizeof h, m->len);
    g->stats.msg[h.type].received++;
    g->stats.msg[h.type].received_bytes += len;

    int src = h.src;
    if (h.seq == g->recv_seq[src]) {
        mgs_queue_push(&g->ready, m);
        g->recv_seq[src]++;
        while (g->held[src] && g->held[src]->h.seq == g->recv_seq[src]) {
            struct mgs_msg *next = g->held[src];
            g->held[src] = next->next;
            mgs_queue_push(&g->ready, next);
            g->recv_seq[src]++;
        }
    } else if (seq_before(h.seq, g->recv_seq[src])) {
        mgs_fatal("message %u from cluster %d delivered twice (expected %u)", h.seq, src,
                  g->recv_seq[src]);
    } else {
        if (mgs_hold_by_seq(&g->held[src], m))
            mgs_fatal("message %u from cluster %d delivered twice (held)", h.seq, src);
        g->stats.reorder_held++;
    }
    /* Virtual time: the node it reached runs the protocol's steps now,
     * inside its handler, as Alewife's handlers did. */
    if (g->vt.on)
        process_ready(g);
}

void mgs_send(int from, int to_pe, int type, uint16_t aux, uint32_t arg, const void *p1, uint32_t l1,
              const void *p2, uint32_t l2)
{
    struct mgs *g = mgs_g;
    int dst = g->pe_cluster[to_pe];
    if (g->vt.on)
        from = mgs_vt_self();     /* the node running the step sends it, from its own endpoint */
    struct mgs_hdr h = { .seq = 0, .type = (uint8_t)type, .src = (uint8_t)g->cluster, .aux = aux, .arg = arg };
    if (dst == g->cluster) {
        struct mgs_msg *m = malloc(sizeof *m + l1 + l2);
        if (!m)
            mgs_fatal("out of memory");
        m->h = h;
        m->len = l1 + l2;
        m->src_pe = (int16_t)mgs_node_pe(g, g->cluster, from);
        m->to_local = g->pe_local[to_pe];
        if (l1)
            memcpy(m->payload, p1, l1);
        if (l2)
            memcpy(m->payload + l1, p2, l2);
        m->trace_seq = mgs_trace_local_send(g, from, to_pe, type, arg, l1 + l2);
        if (g->vt.on)
            mgs_vt_send_local(g, m);
        else
            mgs_queue_push(&g->ready, m);
        g->stats.msg[type].local++;
        return;
    }
    uint32_t len = (uint32_t)sizeof h + l1 + l2;
    if (len > g->max_message)
        mgs_fatal("message of %u bytes exceeds stack.max_message %u", len, g->max_message);
    h.seq = g->send_seq[dst]++;
    memcpy(g->sendbuf, &h, sizeof h);
    if (l1)
        memcpy(g->sendbuf + sizeof h, p1, l1);
    if (l2)
        memcpy(g->sendbuf + sizeof h + l1, p2, l2);
    mgs_trace_tag(g, from, type, arg);
    if (ini_send(g->pes[from], to_pe, MGS_HANDLER, g->sendbuf, len) != 0)
        mgs_fatal("ini_send from PE %d to PE %d: %s", mgs_node_pe(g, g->cluster, from), to_pe, strerror(errno));
    g->stats.msg[type].sent++;
    g->stats.msg[type].sent_bytes += len;
}

/* ---- the protocol thread -------------------------------------------------- */

static void blob_message(struct mgs *g, struct mgs_msg *m)
{
    if (!g->blob) {
        g->blob_len = m->h.arg;
        g->blob = malloc(g->blob_len + 1);
        if (!g->blob)
            mgs_fatal("out of memory");
    }
    if (g->blob_got + m->len > g->blob_len)
        mgs_fatal("blob longer than announced");
    memcpy(g->blob + g->blob_got, m->payload, m->len);
    g->blob_got += m->len;
    if (g->blob_got == g->blob_len) {
        g->blob[g->blob_len] = 0;
        g->blob_complete = true;
        if (g->blob_waiter) {
            g->blob_waiter->result = g->blob;
            g->blob_waiter->size = g->blob_len;
            mgs_complete(g->blob_waiter);
            g->blob_waiter = NULL;
        }
    }
}

static void blob_send(struct mgs *g, struct mgs_request *r)
{
    uint32_t piece_max = g->max_message - (uint32_t)sizeof(struct mgs_hdr);
    for (int c = 0; c < g->n_clusters; c++) {
        if (c == g->cluster)
            continue;
        size_t off = 0;
        do {
            uint32_t piece = r->size - off > piece_max ? piece_max : (uint32_t)(r->size - off);
            mgs_send(mgs_thread_node(g, r->thread), mgs_node_pe(g, c, 0), MGS_M_BLOB, 0, (uint32_t)r->size,
                     (const uint8_t *)r->data + off, piece, NULL, 0);
            off += piece;
        } while (off < r->size);
    }
    mgs_complete(r);
}

static void serve_request(struct mgs *g, struct mgs_request *r)
{
    switch (r->kind) {
    case MGS_REQ_FAULT:
        mgs_page_fault(r);
        break;
    case MGS_REQ_LOCK:
    case MGS_REQ_UNLOCK:
    case MGS_REQ_BARRIER:
    case MGS_REQ_CLUSTER_BARRIER:
        mgs_sync_request(r);
        break;
    case MGS_REQ_PUBLISH:
        mgs_publish(r);
        break;
    case MGS_REQ_ENTER_PROTOCOL:
        mgs_enter_protocol_mode();
        mgs_complete(r);
        break;
    case MGS_REQ_BLOB_SEND:
        blob_send(g, r);
        break;
    case MGS_REQ_BLOB_WAIT:
        if (g->blob_complete) {
            r->result = g->blob;
            r->size = g->blob_len;
            mgs_complete(r);
        } else {
            g->blob_waiter = r;
        }
        break;
    case MGS_REQ_COUNTERS:
        memcpy(r->result, &g->stats, sizeof g->stats);
        mgs_dilate_counters(g, r->result);
        mgs_complete(r);
        break;
    case MGS_REQ_LOCKS_INIT:
        r->error = mgs_locks_init(r->lock);
        mgs_complete(r);
        break;
    }
}

/* One request's action, on the protocol thread (drain_requests) or, in
 * virtual time, on its node's own (mgs_vt_submit). */
void mgs_handle_request(struct mgs *g, struct mgs_request *r)
{
    struct mgs_trace_act act;
    mgs_trace_begin_req(g, &act, r);
    serve_request(g, r);
    mgs_trace_end(g, &act);
}

static int drain_requests(struct mgs *g)
{
    struct mgs_request *list = atomic_exchange_explicit(&g->requests, NULL, memory_order_acquire);
    if (!list)
        return 0;
    /* The stack is newest first; serve in arrival order. */
    LIST_REVERSE(list, next);
    int n = 0;
    while (list) {
        struct mgs_request *next = list->next;
        list->next = NULL;
        mgs_handle_request(g, list);
        list = next;
        n++;
    }
    return n;
}

/* One message's step; m is freed unless the step kept it (deferred). */
void mgs_process_msg(struct mgs *g, struct mgs_msg *m)
{
    bool kept = false;
    struct mgs_trace_act act;
    mgs_trace_begin_msg(g, &act, m);
    if (g->vt.on)     /* inside the action: its length is the handler's cost */
        mgs_vt_charge(g, m->len);
    switch (m->h.type) {
    case MGS_M_LOCK_REQ:
    case MGS_M_LOCK_FWD:
    case MGS_M_TOKEN:
    case MGS_M_ARRIVE:
    case MGS_M_GO:
        mgs_sync_message(m);
        break;
    case MGS_M_BLOB:
        blob_message(g, m);
        break;
    default:
        kept = mgs_page_message(m);
        break;
    }
    mgs_trace_end(g, &act);
    if (!kept)
        free(m);
}

static int process_ready(struct mgs *g)
{
    int n = 0;
    struct mgs_msg *m;
    while ((m = mgs_queue_pop(&g->ready))) {
        mgs_process_msg(g, m);
        n++;
    }
    return n;
}

static int poll_inis(struct mgs *g)
{
    int n = 0;
    for (int i = 0; g->cn && i < g->n_pes; i++)
        n += ini_poll(g->pes[i]);
    return n;
}

/* The standalone protocol thread's last look before sleeping: a request,
 * a message ready, or the stop. */
static int protocol_pending(void *arg)
{
    struct mgs *g = arg;
    return atomic_load_explicit(&g->requests, memory_order_relaxed) || g->ready.head ||
           atomic_load_explicit(&g->stop, memory_order_relaxed);
}

/* Sleep until a message or a request comes.  With INIs, ini_wait spins
 * and sleeps on the PE, and a request or the stop kicks it; standalone, we
 * spin and then sleep on our own word, which compute threads ring. */
static void idle_wait(struct mgs *g)
{
    if (g->cn) {
        if (ini_wait_any(g->pes, g->n_pes, 100000) < 0)
            mgs_fatal("the INIs stopped while MGS was running");
        return;
    }
    uint64_t until = mgs_now_us() + (uint64_t)g->spin_us;
    do {
        if (atomic_load_explicit(&g->requests, memory_order_relaxed) || g->ready.head)
            return;
        __builtin_ia32_pause();
    } while (mgs_now_us() < until);

    _Atomic uint32_t *sleeping = &g->own_bell_sleeping;
    ini_fabric_sleep_futex(&g->own_bell, &sleeping, 1, 1, protocol_pending, g, 100000);
}

static void *protocol_thread(void *arg)
{
    struct mgs *g = arg;
    tls_is_protocol_thread = true;
    mgs_dilate_protocol_thread(g);
    while (!atomic_load_explicit(&g->stop, memory_order_acquire)) {
        struct mgs_dilate_turn turn = { 0, 0 };
        mgs_dilate_protocol_begin(g, &turn);
        int work = poll_inis(g);
        work += drain_requests(g);
        work += process_ready(g);
        if (!work)
            idle_wait(g);
        else
            mgs_dilate_protocol_end(g, &turn);   /* handlers cost K times their CPU time */
    }
    return NULL;
}

/* ---- start-up ------------------------------------------------------------------ */

static long env_long(const char *name, long fallback)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return fallback;
    char *end;
    long x = strtol(v, &end, 0);
    return *end ? fallback : x;
}

/* Reads the machine from the INI configuration and attaches to it. */
static int attach_inis(struct mgs *g, char *err, size_t errlen)
{
    g->cn = ini_cn_attach_env(err, errlen);
    if (!g->cn)
        return -1;
    const struct ini_config *cfg = ini_cn_config(g->cn);
    g->cluster = ini_cn_cluster(g->cn);
    g->n_clusters = cfg->n_clusters;
    if (g->n_clusters > MGS_MAX_CLUSTERS) {
        snprintf(err, errlen, "MGS supports at most %d clusters", MGS_MAX_CLUSTERS);
        return -1;
    }
    for (int c = 0; c < g->n_clusters; c++) {
        g->local_threads[c] = cfg->clusters[c].n_pes;
        g->thread_base[c] = g->total_threads;
        g->total_threads += cfg->clusters[c].n_pes;
        for (int k = 0; k < cfg->clusters[c].n_pes; k++) {
            int pe = cfg->clusters[c].pes[k];
            g->pe_id[c][k] = (int16_t)pe;
            g->pe_cluster[pe] = (int8_t)c;
            g->pe_local[pe] = (int8_t)k;
        }
    }
    g->spin_us = cfg->idle.spin_us;
    g->max_message = (uint32_t)cfg->stack.max_message;
    g->n_pes = ini_cn_n_pes(g->cn);
    for (int k = 0; k < g->n_pes; k++)
        g->pes[k] = ini_cn_pe(g->cn, k);
    g->vt.on = ini_cn_vtime_hz(g->cn) > 0;
    return 0;
}

/* Standalone (no INIs): one cluster of n threads. */
static void standalone_machine(struct mgs *g, int n)
{
    g->n_clusters = 1;
    g->total_threads = g->local_threads[0] = n;
    for (int k = 0; k < n && k < INI_MAX_PES_PER_CLUSTER; k++) {
        g->pe_id[0][k] = (int16_t)k;
        g->pe_local[k] = (int8_t)k;
    }
    g->spin_us = 5;
    g->max_message = 65000;
}

/* The coherence unit: MGS_UNIT_BYTES (a power of two, 256 bytes to the
 * diff's limit; below a page, units share pages), else MGS_UNIT_PAGES
 * pages (default 1). */
static int read_unit(struct mgs *g, char *err, size_t errlen)
{
    long page = sysconf(_SC_PAGESIZE);
    const char *bytes = getenv("MGS_UNIT_BYTES"), *pages = getenv("MGS_UNIT_PAGES");
    g->page = (size_t)page;
    if (bytes && *bytes) {
        char *end;
        unsigned long long v = strtoull(bytes, &end, 0);
        if (*end || v < 256 || v > MGS_DIFF_MAX_UNIT || (v & (v - 1))) {
            snprintf(err, errlen, "MGS_UNIT_BYTES=%s: a unit is a power of two from 256 to %u bytes", bytes,
                     MGS_DIFF_MAX_UNIT);
            return -1;
        }
        if (pages && *pages) {
            snprintf(err, errlen, "MGS_UNIT_BYTES=%s: set MGS_UNIT_BYTES or MGS_UNIT_PAGES, not both", bytes);
            return -1;
        }
        g->unit = (size_t)v;
    } else {
        long unit_pages = env_long("MGS_UNIT_PAGES", 1);
        g->unit = (size_t)(unit_pages * page);
        if (unit_pages < 1 || g->unit > MGS_DIFF_MAX_UNIT) {
            snprintf(err, errlen, "MGS_UNIT_PAGES=%ld: a unit must be 1..%u bytes of whole pages", unit_pages,
                     MGS_DIFF_MAX_UNIT);
            return -1;
        }
    }
    g->units_per_page = g->unit < g->page ? (uint32_t)(g->page / g->unit) : 1;
    return 0;
}

/* The run directory and the MGS_* settings of the environment
 * (docs/mgs.md), checked. */
static int read_env(struct mgs *g, char *err, size_t errlen)
{
    const char *run_dir = getenv("INI_RUN_DIR");
    if (!run_dir)
        run_dir = getenv("MGS_RUN_DIR");
    snprintf(g->run_dir, sizeof g->run_dir, "%s", run_dir ? run_dir : "");

    long shared_mb = env_long("MGS_SHARED_MB", DEFAULT_SHARED_MB);
    if (read_unit(g, err, errlen) != 0)
        return -1;
    if (g->max_message < sizeof(struct mgs_hdr) + g->unit) {
        snprintf(err, errlen, "stack.max_message %u is smaller than an MGS unit message (%zu)",
                 g->max_message, sizeof(struct mgs_hdr) + g->unit);
        return -1;
    }
    if (shared_mb < 1 || shared_mb > 65536) {
        snprintf(err, errlen, "MGS_SHARED_MB=%ld out of range", shared_mb);
        return -1;
    }
    g->size = (size_t)shared_mb << 20;
    g->size = (g->size + g->unit - 1) / g->unit * g->unit;
    g->n_units = g->size / g->unit;
    g->base = (uintptr_t)env_long("MGS_BASE", (long)DEFAULT_BASE);
    if (mgs_dilate_read_env(g, err, errlen) < 0)
        return -1;
    return 0;
}

/* The shared range: its memory (a memfd), the application view at
 * g->base, the protocol's view and the master copies; the per-unit state
 * and the buffers. */
static int map_range(struct mgs *g, char *err, size_t errlen)
{
    g->memfd = memfd_create("mgs-shared", MFD_CLOEXEC);
    if (g->memfd < 0 || ftruncate(g->memfd, (off_t)g->size) != 0) {
        snprintf(err, errlen, "memfd: %s", strerror(errno));
        return -1;
    }
    /* Set-up mode: the application view is plain read-write memory. */
    void *app = mmap((void *)g->base, g->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE,
                     g->memfd, 0);
    if (app == MAP_FAILED || app != (void *)g->base) {
        snprintf(err, errlen, "cannot map the shared range at %#lx (%zu MiB): %s", (unsigned long)g->base,
                 g->size >> 20, app == MAP_FAILED ? strerror(errno) : "placed elsewhere");
        if (app != MAP_FAILED)
            munmap(app, g->size);
        return -1;
    }
    g->app = app;
    g->sys = mmap(NULL, g->size, PROT_READ | PROT_WRITE, MAP_SHARED, g->memfd, 0);
    g->master = mmap(NULL, g->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
    g->units = calloc(g->n_units, sizeof *g->units);
    g->sendbuf = malloc(g->max_message);
    g->diffbuf = malloc(mgs_diff_max_size(g->unit));
    if (g->units_per_page > 1)
        g->page_prot = calloc(g->size / g->page, 1);   /* PROT_NONE once the protocol starts */
    if (g->sys == MAP_FAILED || g->master == MAP_FAILED || !g->units || !g->sendbuf || !g->diffbuf ||
        (g->units_per_page > 1 && !g->page_prot) || mgs_page_init(g) != 0) {
        snprintf(err, errlen, "out of memory for the MGS state");
        return -1;
    }
    return 0;
}

/* The INI handler, the SIGSEGV handler and the protocol thread; mgs_g is
 * set once they run. */
static int start_protocol(struct mgs *g, char *err, size_t errlen)
{
    if (g->cn && ini_cn_register(g->cn, MGS_HANDLER, on_ini_message, g) != 0) {
        snprintf(err, errlen, "cannot register the MGS handler");
        return -1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, &previous_segv) != 0) {
        snprintf(err, errlen, "sigaction: %s", strerror(errno));
        return -1;
    }
    mgs_g = g;
    mgs_trace_init(g);
    if (g->vt.on)
        return mgs_vt_start(g, err, errlen);   /* every node runs the protocol: no thread of its own */
    if (pthread_create(&g->server, NULL, protocol_thread, g) != 0) {
        mgs_g = NULL;
        sigaction(SIGSEGV, &previous_segv, NULL);
        snprintf(err, errlen, "cannot start the protocol thread");
        return -1;
    }
    return 0;
}

/* Undoes what start did before it failed. */
static void free_state(struct mgs *g)
{
    if (g->app)
        munmap(g->app, g->size);
    if (g->sys && g->sys != MAP_FAILED)
        munmap(g->sys, g->size);
    if (g->master && g->master != MAP_FAILED)
        munmap(g->master, g->size);
    if (g->memfd >= 0)
        close(g->memfd);
    if (g->cn)
        ini_cn_detach(g->cn);
    free(g->units);
    free(g->sendbuf);
    free(g->diffbuf);
    free(g->page_prot);
    free(g);
}

static int start(int standalone_threads, char *err, size_t errlen)
{
    if (mgs_g)
        return 0;
    struct mgs *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    g->memfd = -1;
    if (standalone_threads > 0)
        standalone_machine(g, standalone_threads);
    if ((standalone_threads <= 0 && attach_inis(g, err, errlen) != 0) || read_env(g, err, errlen) != 0 ||
        map_range(g, err, errlen) != 0 || start_protocol(g, err, errlen) != 0) {
        free_state(g);
        return -1;
    }
    return 0;
}

int mgs_start(char *err, size_t errlen) { return start(0, err, errlen); }

int mgs_start_standalone(int nthreads, char *err, size_t errlen)
{
    if (nthreads < 1 || nthreads > INI_MAX_PES_PER_CLUSTER) {
        snprintf(err, errlen, "a standalone MGS run has 1..%d threads", INI_MAX_PES_PER_CLUSTER);
        return -1;
    }
    return start(nthreads, err, errlen);
}

int mgs_started(void) { return mgs_g != NULL; }

/* ---- the machine and the range ------------------------------------------- */

int mgs_cluster(void) { return mgs_g->cluster; }
int mgs_n_clusters(void) { return mgs_g->n_clusters; }
int mgs_total_threads(void) { return mgs_g->total_threads; }
int mgs_local_threads(int cluster) { return mgs_g->local_threads[cluster]; }
int mgs_thread_base(int cluster) { return mgs_g->thread_base[cluster]; }
int mgs_cluster_of_thread(int thread)
{
    for (int c = 0; c < mgs_g->n_clusters; c++)
        if (thread >= mgs_g->thread_base[c] && thread < mgs_g->thread_base[c] + mgs_g->local_threads[c])
            return c;
    return -1;
}
void *mgs_base(void) { return (void *)mgs_g->base; }
size_t mgs_size(void) { return mgs_g->size; }
size_t mgs_unit_size(void) { return mgs_g->unit; }
int mgs_home_of(const void *addr)
{
    return mgs_unit_home(mgs_g, (uint32_t)(((uintptr_t)addr - mgs_g->base) / mgs_g->unit));
}

void *mgs_alloc(size_t size, size_t align)
{
    struct mgs *g = mgs_g;
    if (!g || atomic_load(&g->protocol_mode) || align == 0 || (align & (align - 1)))
        return NULL;
    size_t start = (g->bump + align - 1) & ~(align - 1);
    if (start > g->size || size > g->size - start)
        return NULL;
    g->bump = start + size;
    return g->app + start;
}

size_t mgs_allocated(void) { return mgs_g->bump; }

/* ---- requests: the API ------------------------------------------------------ */

int mgs_broadcast_blob(const void *data, size_t len)
{
    struct mgs_request *r = request(MGS_REQ_BLOB_SEND);
    r->data = data;
    r->size = len;
    submit_and_wait(mgs_g, r);
    return 0;
}

void *mgs_receive_blob(size_t *len)
{
    struct mgs_request *r = request(MGS_REQ_BLOB_WAIT);
    submit_and_wait(mgs_g, r);
    *len = r->size;
    void *copy = malloc(r->size + 1);
    if (copy)
        memcpy(copy, r->result, r->size + 1);
    return copy;
}

int mgs_begin_parallel(unsigned nlocks, char *err, size_t errlen)
{
    struct mgs *g = mgs_g;
    struct mgs_request *r;
    if (g->cluster == 0) {
        r = request(MGS_REQ_PUBLISH);
        submit_and_wait(g, r);
    }
    r = request(MGS_REQ_LOCKS_INIT);
    r->lock = nlocks;
    submit_and_wait(g, r);
    if (r->error) {
        snprintf(err, errlen, "out of memory for %u locks", nlocks);
        return -1;
    }
    r = request(MGS_REQ_ENTER_PROTOCOL);
    submit_and_wait(g, r);
    /* Every cluster must have made the same allocations (the program's
     * set-up is deterministic): compare through a summing barrier. */
    double mine[2] = { (double)g->bump, (double)nlocks };
    double all[2] = { mine[0], mine[1] };
    mgs_cluster_barrier(all, 2);
    if (all[0] != mine[0] * g->n_clusters || all[1] != mine[1] * g->n_clusters) {
        snprintf(err, errlen, "clusters disagree on the set-up (allocated %zu bytes and %u locks here)",
                 g->bump, nlocks);
        return -1;
    }
    return 0;
}

void mgs_thread_enter(int global_id)
{
    tls_thread = global_id;
    if (mgs_g->tr.on)
        tls_resumed = mgs_trace_now(mgs_g);
    mgs_dilate_compute_thread(mgs_g, tls_thread);
}

/* A lock or unlock request for lock id, made and answered. */
static struct mgs_request *lock_request(enum mgs_req_kind kind, unsigned id)
{
    if (id >= mgs_g->nlocks)
        mgs_fatal("lock %u does not exist (%u locks)", id, mgs_g->nlocks);
    struct mgs_request *r = request(kind);
    r->lock = id;
    submit_and_wait(mgs_g, r);
    return r;
}

void mgs_lock(unsigned id)
{
    lock_request(MGS_REQ_LOCK, id);
}

void mgs_unlock(unsigned id)
{
    struct mgs_request *r = lock_request(MGS_REQ_UNLOCK, id);
    if (r->error)
        mgs_fatal("thread %d released lock %u it does not hold", tls_thread, id);
}

/* Both barriers: every compute thread, or one thread per cluster (`who`
 * names them in the error). */
static void barrier(enum mgs_req_kind kind, double *values, int count, const char *who)
{
    if (count < 0 || count > MGS_SUM_MAX)
        mgs_fatal("barrier sum of %d values", count);
    struct mgs_request *r = request(kind);
    r->values = values;
    r->count = count;
    submit_and_wait(mgs_g, r);
    if (r->error)
        mgs_fatal("%s called the barrier with different sum lengths", who);
}

void mgs_barrier(double *values, int count)
{
    barrier(MGS_REQ_BARRIER, values, count, "threads");
}

void mgs_cluster_barrier(double *values, int count)
{
    barrier(MGS_REQ_CLUSTER_BARRIER, values, count, "clusters");
}

void mgs_get_counters(struct mgs_counters *out)
{
    struct mgs *g = mgs_g;
    if (g->stopped) {
        *out = g->stats;
        mgs_dilate_counters(g, out);
        return;
    }
    struct mgs_request *r = request(MGS_REQ_COUNTERS);
    r->result = out;
    submit_and_wait(g, r);
}

void mgs_stop(void)
{
    struct mgs *g = mgs_g;
    if (!g || g->stopped)
        return;
    /* Nobody needs this cluster's homes, locks or copies after this
     * barrier; it also sums the counters of all clusters. */
    struct mgs_counters now;
    mgs_get_counters(&now);
    mgs_stats_totals(&now, g->machine);
    mgs_cluster_barrier(g->machine, MGS_T_COUNT);
    atomic_store(&g->protocol_mode, false);
    atomic_store_explicit(&g->stop, true, memory_order_release);
    if (g->vt.on) {
        mgs_vt_stop(g);
    } else {
        kick_protocol_thread(g);
        pthread_join(g->server, NULL);
    }
    g->stopped = true;
    mgs_stats_write(g);
    if (g->cluster == 0)
        mgs_stats_print_machine(g);
    sigaction(SIGSEGV, &previous_segv, NULL);
    if (g->cn)
        ini_cn_detach(g->cn);
    g->cn = NULL;
    g->n_pes = 0;
}
