/*
 * bench.h - ini-bench's shared pieces: the measuring engine, the interface
 * a layer implements for it, and the results it produces.
 *
 * Every layer (raw DPDK, lwIP UDP/IP, the reliable transport, compute node
 * to compute node, kernel UDP) is measured by the same engine with the
 * seed's three tests (seed 003 section 4): ping-pong, flood at a queue
 * depth, CPU overlap.  A layer only provides send / flush / poll; the
 * engine speaks an 8-byte message header over it:
 *
 *   byte 0  kind (DATA, PING, PONG, CREDIT, END, STOP)
 *   byte 1  flags (F_RESET: first DATA of a flood run; F_REPLY: answer END)
 *   2..3    DATA: send a CREDIT after every this many DATA (0: none)
 *   4..7    DATA: compute this many ns after receiving it (CPU-overlap o_r);
 *           CREDIT: DATA messages received since F_RESET
 *
 * A minimum message (8 bytes, as in the seed) is just the header.
 *
 * "Messages in flight": a layer whose sends complete only when the peer
 * has the message (the reliable transport: the release callback, i.e. the
 * acknowledgement) runs with its window set to hold q messages of the
 * test's size (q frames of one frame each; a message in transport segments
 * counts its segments) and is acknowledged every q/2 messages; the others get the same pattern from
 * the receiver, which returns a CREDIT every q/2 DATA messages.  The
 * sender keeps at most q messages outstanding: it issues q, waits until
 * q/2 have completed, issues q/2 more (the seed's flood), and at the end
 * waits for the END reply to the last one.
 */
#ifndef INI_BENCH_H
#define INI_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum bench_kind { BK_DATA = 1, BK_PING, BK_PONG, BK_CREDIT, BK_END, BK_STOP };
enum { BF_RESET = 1, BF_REPLY = 2 };

#define BENCH_HDR      8
#define BENCH_MAX_MSG  65000          /* the INI's max_message: "64 KB" */
#define BENCH_MTU      1500           /* every layer's frames unless --mtu */
#define BENCH_BUSY_PREEMPT 50         /* preemptions/s: the cores were not ours */

enum bench_layer { L_RAW, L_UDP, L_REL, L_CN, L_KERNEL,
                   /* peers: what a user could pick instead (bench_ucx.c, bench_ofi.c) */
                   L_UCX_TCP, L_UCX_SM, L_OFI_RXD, L_COUNT };
#define L_FIRST_PEER L_UCX_TCP
extern const char *const bench_layer_names[L_COUNT];

#define BENCH_MAX_DEPTHS 16
#define BENCH_MAX_SIZES  24

/* What a run measures; the same for every layer. */
struct bench_params {
    int runs;                 /* repetitions of every test (min and median) */
    int count;                /* messages per run, at most */
    uint64_t run_budget_ns;   /* ... and at most about this long per run */
    int n_depths;
    int depths[BENCH_MAX_DEPTHS];
    int n_sizes;
    uint32_t sizes[BENCH_MAX_SIZES];
    int bw_depth;             /* queue depth of the size sweep */
    int window;               /* reliable layer: window of ping-pong tests */
    uint32_t rtt_bytes;       /* message of the round trips (--rtt-bytes; 8) */
    int verbose;
};

struct stat2 { double min, med; };

/* The copies of the compute-node path, in the order a message meets them
 * (docs/performance.md, "Copies of a message"). */
enum { BENCH_COPY_CN, BENCH_COPY_FRAMES, BENCH_COPY_LINK_OUT, BENCH_COPY_LINK_IN, BENCH_COPY_RINGS, BENCH_COPY_N };
extern const char *const bench_copy_names[BENCH_COPY_N];

struct layer_result {
    int ok;
    int skipped;              /* a peer not available here: err says why; not a failure */
    char err[160];
    struct stat2 rtt;                     /* ns per round trip, 8 bytes */
    struct stat2 o_s, o_r;                /* CPU-overlap overheads, ns */
    struct stat2 o_s_call;                /* time inside send + flush, ns (q = 1) */
    struct stat2 g1;                      /* flood gap at q = 1, ns */
    struct stat2 flood[BENCH_MAX_DEPTHS]; /* ns per 8-byte message at depths[i] */
    struct stat2 size_ns[BENCH_MAX_SIZES];/* ns per message at sizes[i], bw_depth */
    uint64_t retransmissions;             /* reliable layers: should be 0 */
    /* compute-to-compute: bytes copied per byte of payload delivered, on
     * each copy of the path (BENCH_COPY_*: from both INIs' counters), and
     * bytes read by the receive checks in a pass of their own; 0 elsewhere */
    double copies[BENCH_COPY_N], checked;
    double seconds;                       /* the layer's measuring time */
    double preempt_per_s;                 /* involuntary context switches of the
                                           * measuring process: another task took
                                           * its core (0 on a quiet machine) */
    /* Round trips measured in turns with the other memif layers (raw,
     * udp-ip, reliable, raw, ...), a few ms apart, so that a change of
     * the machine's speed during the run hits all of them alike; the
     * ratio is the median of the per-turn ratios to raw-dpdk. */
    struct stat2 rtt_turns;
    double rtt_turns_ratio;
    /* With --split, the same turns on the measuring side: ns per received
     * frame in the poll that took it (receive burst, stack, delivery,
     * buffers freed) and ns per send call (the frame built and queued;
     * the transmit burst, the same memif call for every layer, apart).
     * Medians over the turns; 0 when not measured. */
    double split_rx_ns, split_tx_ns;
    /* derived (medians) */
    double g_ns, rate_mps, G_ns_per_byte, M_bytes, gbps_max;
    int best_depth;
};

/* ---- the layer interface ---- */
struct bench_eng;
struct bench_ops {
    /* Queues one message of len (>= 8) bytes starting with header h.
     * 0, or -1 when there is no room now (the engine polls and retries). */
    int  (*send)(void *ctx, const uint8_t h[BENCH_HDR], uint32_t len);
    void (*flush)(void *ctx);
    /* Receives what has arrived, calling bench_deliver() per message and
     * bench_complete() for sends that completed; returns the work done.
     * May block briefly (kernel sockets, sleeping compute nodes). */
    int  (*poll)(void *ctx);
    /* Sets the window of a reliable layer, at a quiet point, so that
     * `depth` messages of len bytes fit in flight and no more: a transport
     * whose window counts frames (segments) gives a message of several
     * frames as many; NULL: no window. */
    int  (*set_window)(void *ctx, int depth, uint32_t len);
    int completes;            /* sends complete through bench_complete() */
};

struct bench_eng {
    const struct bench_ops *ops;
    void *ctx;
    uint64_t hz;
    /* receiver state */
    uint32_t rx_data;
    uint32_t pend_pong, pong_len, pend_credit, credit_val, pend_end;
    uint64_t pend_delta_ns;
    int stop;
    /* sender state: counters the engine waits on */
    uint64_t rx_pong, rx_end, credit, completed;
    int window;               /* current window of a reliable layer: depth ... */
    uint32_t window_len;      /* ... for messages of this many bytes */
    uint64_t stall_ns;        /* give up a wait after this long without progress */
    int failed;
    char err[160];
};

void bench_eng_init(struct bench_eng *e, const struct bench_ops *ops, void *ctx);
/* Called by layers from poll(). */
void bench_deliver(struct bench_eng *e, const uint8_t h[BENCH_HDR], uint32_t len);
static inline void bench_complete(struct bench_eng *e, uint32_t n) { e->completed += n; }

/* Client: runs the whole suite over the layer into r; 0 or -1 (r->err).
 * Also records its duration and how often the measuring process lost its
 * core to another task (getrusage: involuntary context switches).
 * Ends by sending STOP.  Server: answers until STOP arrives. */
int  bench_run_suite(struct bench_eng *e, const struct bench_params *p, struct layer_result *r);
/* ns per round trip of `bytes`-byte messages (both ways) over n round
 * trips, after `warmup` untimed ones; -1 on failure. */
double bench_pingpong(struct bench_eng *e, uint32_t bytes, int warmup, int n);
void bench_serve(struct bench_eng *e);
/* Polls for ms milliseconds, answering what arrives (quiescing a layer). */
void bench_drain(struct bench_eng *e, unsigned ms);
/* Sends one engine message with the given kind (STOP at the end). */
void bench_send_kind(struct bench_eng *e, uint8_t kind);

/* ---- clock ---- */
uint64_t bench_tsc_hz(void);                 /* calibrated once */
static inline uint64_t bench_rdtsc(void) { return __builtin_ia32_rdtsc(); }
void bench_spin_ns(uint64_t ns);
int  bench_pin_cpu(int cpu);                 /* sched_setaffinity; 0 or -1 */

/* ---- statistics ---- */
struct stat2 bench_stat(double *v, int n);   /* sorts v */
void bench_derive(const struct bench_params *p, struct layer_result *r);

/* ---- the layers' drivers (each in its own process(es)) ---- */
struct bench_setup {
    struct bench_params p;
    int cores[2];             /* CPUs of the client (measuring) and the server side */
    int layers_on[L_COUNT];
    const char *self;         /* path of this program, for the cluster run */
    int cn_idle;              /* -1: auto (config), 0 poll, 1 adaptive */
    int cn_window;            /* INI window of the cluster run */
    int cn_yield_us;          /* idle.yield_us of the cluster run, -1: the configuration's default */
    int cn_colocate;          /* idle.colocate of the cluster run, -1: default */
    int cn_inplace;           /* 1: the compute nodes write messages in place (ini_send_inplace), 0: ini_send */
    int cn_ring_bytes;        /* rings.bytes of the cluster run, 0: the default */
    int segment;              /* stack.segmentation of the reliable and compute-to-compute layers */
    int mtu;                  /* the frames every memif layer moves (--mtu; BENCH_MTU) */
    int split;                /* --split: time the ping-pong's receive polls and send calls */
    const char *cn_trace;     /* --cn-trace DIR: the cluster run traced in detail, kept there; NULL */
    int quick;
    double loadavg;           /* 1-minute load average when the run began */
};

/* Raw DPDK, UDP/IP and reliable layers in two forked processes over one
 * memif link; fills res[L_RAW], res[L_UDP], res[L_REL] for the layers on. */
int bench_dpdk_layers(const struct bench_setup *s, struct layer_result *res);
int bench_kernel_layer(const struct bench_setup *s, struct layer_result *r);
/* UCX active messages with UCX_TLS=tls ("tcp" or "sm"); libfabric's
 * udp;ofi_rxd.  A layer that cannot run here sets r->skipped. */
int bench_ucx_layer(const struct bench_setup *s, const char *tls, struct layer_result *r);
int bench_ofi_layer(const struct bench_setup *s, struct layer_result *r);

/* The two-process frame of the peer layers (bench_pair.c).  up() runs in
 * each forked side (role 0 client, 1 server) with its end of a socket pair
 * to the other side, and returns NULL or why the layer cannot run here (the
 * client then reports the layer skipped).  The server drains drain_ms after
 * STOP, the client after sending it (0: no drain). */
struct bench_peer {
    const char *name;                       /* in messages: "UCX (UCX_TLS=tcp)" */
    const char *(*up)(int role, int ctl);
    struct bench_eng *eng;
    const struct bench_ops *ops;
    unsigned drain_ms;
};
int bench_run_pair(const struct bench_setup *s, const struct bench_peer *peer, struct layer_result *r);
int bench_write_full(int fd, const void *buf, size_t len);   /* 0 or -1 */
int bench_read_full(int fd, void *buf, size_t len);          /* 0 or -1 (EOF too) */
int bench_cn_layer(const struct bench_setup *s, struct layer_result *r);
/* The program the cluster run starts in each cluster (hidden mode). */
int bench_cn_agent(int argc, char **argv);
/* In-process stack path (callgrind mode). */
int bench_inproc_main(int argc, char **argv);
/* The CRC and sum pass on each path (ini-bench --checksum). */
int bench_checksum_main(int argc, char **argv);
/* The machine's state before a run (ini-bench --probe, bench_probe.c). */
int bench_probe_main(int argc, char **argv);
int bench_handover_main(int argc, char **argv);   /* bench_handover.c */

/* ---- output ---- */
enum bench_format { FMT_TABLE, FMT_CSV, FMT_JSON };
void bench_report(FILE *f, enum bench_format fmt, const struct bench_setup *s,
                  const struct layer_result *res);
int  bench_plot(const char *png, const struct bench_setup *s, const struct layer_result *res);

/* Parses a comma list of positive integers; count or -1. */
int bench_parse_list(const char *s, long *out, int max, long lo, long hi);

#endif
