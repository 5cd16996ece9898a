/*
 * inid.h - the INI daemon's top-level state.
 *
 * One inid process runs one INI node.  Like DPDK's l2fwd/l3fwd it keeps
 * initialisation (inid.c: arguments, EAL, the stack), port setup (inid_port.c)
 * and the protocol loop on the INI's lcore (inid_loop.c) apart; everything
 * the loop touches lives in struct inid, the only global state.
 *
 * This header is the bottom of the daemon: the state and its types, no
 * function.  Each file above it declares its own in its own header, and
 * calls go one way, down (docs/architecture.md, "Files"):
 *
 *   inid.c (main)  -> inid_port, inid_state, inid_loop, inid_counters,
 *                     inid_telemetry, inid_knobs, inid_fabric, capture,
 *                     eal_args
 *   inid_loop.c    -> inid_port, inid_state.h (its inline intents),
 *                     inid_fabric, inid_knobs, capture
 *   inid_state.c   -> inid_fabric
 *   inid_telemetry.c, inid_counters.c -> inid_counters' tables
 *   inid_port.c    -> capture
 *
 * The loop is figure 3-1 of the thesis: messages from the cluster's compute
 * nodes (records in the PE -> INI rings) and packets from the network (mbufs
 * from rx bursts) enter one FIFO work queue and are processed to completion
 * in arrival order.  A message that cannot proceed (its connection's send
 * window is full, or the destination PE's ring is full) waits in a stall
 * list and the work behind it goes on (section 3.1).
 */
#ifndef INI_INID_H
#define INI_INID_H

#include <signal.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "config.h"
#include "counters.h"
#include "ring.h"
#include "segment.h"
#include "inid_wedge.h"
#include "fault.h"
#include "stack.h"
#include "clocksync.h"
#include "loadbal.h"
#include "trace.h"
#include "capture.h"
#include "inid_knobs.h"

/* INID_QUEUE_SIZE, INID_RING_INFLIGHT, INID_BACKLOG: shared with the replay. */
#include "inid_limits.h"
#define INID_ARG_LEN        (INI_DEVARGS_LEN + 32)   /* one EAL argument: option + devargs */

enum work_kind { WORK_OUT = 1, WORK_IN = 2 };

struct work {
    uint8_t  kind;
    uint8_t  pe;             /* WORK_OUT: local index of the source PE */
    uint16_t slot;           /* WORK_OUT: slot in that ring's in-flight list */
    int16_t  target;         /* WORK_OUT: peer INI id, or -1 - local PE; INT16_MIN: not chosen */
    uint32_t qlen;           /* queue length at arrival */
    uint64_t t_arrive;       /* TSC */
    union {
        struct ini_rec *rec;     /* WORK_OUT */
        struct rte_mbuf *m;      /* WORK_IN */
    };
};

/* Records taken from one PE -> INI ring, released in ring order. */
struct out_ring {
    struct ini_ring_cons cons;
    uint32_t head, tail;                       /* in-flight slots */
    uint64_t end[INID_RING_INFLIGHT];
    uint8_t  done[INID_RING_INFLIGHT];
    struct ini_rec *rec[INID_RING_INFLIGHT];
};

/* Deliveries to one PE that did not fit in its ring yet. */
struct pe_backlog {
    uint32_t head, tail;
    struct pbuf *p[INID_BACKLOG];
    uint16_t off[INID_BACKLOG];
};

struct inid_stats {
    uint64_t out_msgs, out_bytes, in_msgs, in_bytes, local_msgs;
    uint64_t bad_dst, bad_msg, refused, deferred, stalls;
    uint64_t loops, idle_sleeps, queue_sum, queue_samples, queue_max;
    /* time-weighted number of messages in the INI (queued, stalled or in
     * service): the model's Q_o is queue_area / run length.  In virtual
     * time all four count the INI's clock in emulated cycles (from 0):
     * the area is the sum of its inputs' (event end - arrival), busy the
     * cycles its events were charged (inid_vtime.c) */
    uint64_t queue_area, run_start, run_end;
    uint64_t busy_cycles;     /* TSC cycles of the loop turns that did work */
    uint64_t work_turns;      /* those turns */
    uint64_t pass_cycles;     /* virtual time: of busy_cycles, the passes' own (vt_cost.h per_pass) */
    uint64_t kept_yields;     /* idle.colocate: yields the scheduler kept, so the daemon slept (fabric.h) */
    uint64_t processed;       /* compute-node messages finished (sent, delivered locally, dropped) */
    /* Bytes copied on the compute-node path (docs/performance.md, "Copies
     * of a message"): by the compute nodes into their rings, for the
     * messages this INI took (0 for those written in place, INI_REC_F_INPLACE),
     * and by this INI into the compute nodes' rings. */
    uint64_t cn_copied, ring_copied;
};

struct inid_dur;   /* inid_state.h */
struct inid_vt;    /* inid_vtime.h */

struct inid {
    /* identity */
    struct ini_config cfg;
    const struct ini_node_cfg *me;
    int cluster, local;                        /* my cluster, my index in it */
    char tag[64], run_dir[INI_PATH_LEN], seg_name[128];
    /* --launcher-pid: the `run` that started this daemon.  If it is gone
     * when the daemon stops (killed: its death sent us SIGTERM), nobody
     * else will unlink the cluster's segment, so the daemon does. */
    pid_t launcher_pid;
    /* --resume: started again by the launcher after this INI died. */
    int resume;
    /* The state region (inid_state.c): the transport's part, then ours. */
    void *region;
    size_t region_bytes;
    char region_name[128];
    struct inid_dur *dur;
    struct ini_swp_intent *swp_intent;    /* the transport's, armed by the deliver callback */
    enum ini_idle_mode idle;

    /* resources */
    struct ini_segment *seg;
    int n_ports;
    uint16_t ports[INI_NETIF_MAX_PORTS];
    int port_peer[INI_NETIF_MAX_PORTS];        /* memif: peer INI of each port */
    struct ini_stack stack;                    /* link, UDP/IP, transport (stack/stack.h) */
    struct ini_lb_conn lb;
    struct ini_fault tx_fault[INI_NETIF_MAX_PORTS];
    struct ini_fault rx_fault[INI_NETIF_MAX_PORTS];
    int rx_faults;                             /* faults injected on receive */

    /* intra-cluster fabric */
    int n_pes;
    struct out_ring out[INI_MAX_PES_PER_CLUSTER];
    struct ini_ring_prod deliver[INI_MAX_PES_PER_CLUSTER];
    struct pe_backlog backlog[INI_MAX_PES_PER_CLUSTER];

    /* FIFO work queue and stall list */
    uint32_t q_head, q_tail;
    struct work queue[INID_QUEUE_SIZE];
    uint32_t n_stalled;
    struct work stalled[INID_QUEUE_SIZE];
    /* this turn, a port gave a whole burst: more frames are waiting, and
     * a colocated compute node is handed the core after they are taken
     * (inid_loop.c, end_turn) */
    int rx_burst_full;

    /* adaptive idle: the INI sleeps in epoll on its doorbell FIFO and on
     * the receive interrupts of the ports that have them */
    int epfd, wake_fd;
    int n_intr;                                /* ports with rx interrupts */
    uint8_t port_intr[INI_NETIF_MAX_PORTS];
    /* memif links join INIs of one host: in place of the link interrupt
     * that DPDK's memif driver does not expose, a sender rings the
     * doorbell of a peer that is asleep, found in the peer's segment. */
    struct ini_segment *peer_seg[INI_MAX_CLUSTERS];
    int peer_wake_fd[INI_NETIF_MAX_PORTS];
    /* A memif client's link that went down (its server restarted):
     * restarted at once when the server's segment entry shows a pid other
     * than relink_pid (the one it had while the link was up, or the last
     * one tried), else after relink_wait lwIP timer periods (100 ms), the
     * wait doubling to 4.8 s while it stays down (inid_ports_relink). */
    uint8_t relink_wait[INI_NETIF_MAX_PORTS], relink_gap[INI_NETIF_MAX_PORTS];
    int32_t relink_pid[INI_NETIF_MAX_PORTS];
    /* A memif client's last start: whether it connected (the server may
     * not have accepted yet) and when.  Such a connection is not closed by
     * a restart before MEMIF_HANDSHAKE_GRACE_MS (inid_port.c: why). */
    uint8_t client_connected[INI_NETIF_MAX_PORTS];
    uint64_t client_started_ms[INI_NETIF_MAX_PORTS];

    /* the emulation knobs, a stage of the loop (inid_knobs.h) */
    struct inid_knobs knobs;

    /* traces (ini/trace/trace.h) */
    struct ini_trace trace;

    /* --capture: every frame sent and received, RUN_DIR/ini<ID>.pcapng
     * (ini/daemon/capture.h), within --capture-limit/-ring/-snap (cap_opts);
     * cap.fd < 0 when off */
    int capture;
    struct ini_capture_opts cap_opts;
    struct ini_capture cap;
    /* The capture's clock (ini_capture_set_clock's units) when not NULL:
     * the virtual-time loop points it at the emulated time of the frames
     * it records; NULL: the TSC */
    const uint64_t *cap_clock;

    /* across hosts: the clock exchange with the other clusters' INIs
     * (inid_clock.h); clk_on 0 otherwise; clk_stop_at, the end's window */
    int clk_on;
    int64_t clk_stop_at;
    struct ini_clocksync clk;

    uint64_t tsc_hz;
    volatile sig_atomic_t stop;
    /* the virtual-time mode (inid_vtime.h), or NULL; vt_extra: the bytes
     * a delivery reserves for its stamp (0 when not virtual) */
    struct inid_vt *vt;
    uint32_t vt_extra;
    /* Telemetry's clock in virtual time (inid_telemetry.c): the machine's
     * rate (0: not a virtual run), the INI's clock and its charged cycles,
     * stored by the virtual loop after each event (plain stores, read
     * relaxed: they outlive d->vt) */
    uint64_t vt_hz, vt_clock, vt_busy;
    struct inid_stats stats;
    /* A planted leak for the soak's own test (INI_TEST_LEAK_MBUFS, inid.c):
     * mbufs taken from the pool and never given back, each second; 0. */
    uint64_t test_leak_per_s, test_leak_next;
    /* The af_xdp port's wedge check and its resets (inid_wedge.h). */
    struct inid_wedge wedge;
};

#endif
