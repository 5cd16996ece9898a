/*
 * inid.h - the INI daemon's top-level state.
 *
 * One inid process runs one INI node.  Like DPDK's l2fwd/l3fwd it keeps
 * initialisation (inid.c: arguments, EAL, the stack), port setup (inid_port.c)
 * and the protocol loop on the INI's lcore (inid_loop.c) apart; everything
 * the loop touches lives in struct inid, the only global state.
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
#include "fault.h"
#include "stack.h"
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

/* The INI's mark in the header of a record it took (ring.h: the consumer
 * owns a record until it releases it): its message is done (sent and
 * acknowledged, delivered in the cluster, or dropped).  In the segment,
 * so a restarted INI knows it (inid_state.c). */
#define INID_REC_DONE 0x8000u

/* A message's release cookie (swp.h ini_swp_send): its PE, its in-flight
 * slot and its record's place in the ring (bytes ever published before
 * it, / 64: records are 64-byte aligned), which tells a restarted INI
 * which record a logged message is (inid_state.c). */
static inline uint64_t inid_cookie(int pe, uint32_t slot, uint64_t pos)
{
    return (pos >> 6) << 24 | (uint64_t)pe << 16 | slot;
}

/* inid's part of the state region (inid_state.c), behind the
 * transport's: a delivery to a compute node of this cluster in progress
 * (the record at local_pos of PE local_src's ring, published into PE
 * local_pe's ring once its tail reaches local_mark). */
struct inid_dur {
    uint64_t magic;
    uint32_t version, local_armed;
    uint32_t local_pe, local_src;
    uint64_t local_mark, local_pos;
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
     * service): the model's Q_o is queue_area / run length */
    uint64_t queue_area, run_start, run_end;
    uint64_t busy_cycles;     /* TSC cycles of the loop turns that did work */
    uint64_t work_turns;      /* those turns */
    uint64_t kept_yields;     /* idle.colocate: yields the scheduler kept, so the daemon slept (fabric.h) */
    uint64_t processed;       /* compute-node messages finished (sent, delivered locally, dropped) */
};

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

    uint64_t tsc_hz;
    volatile sig_atomic_t stop;
    struct inid_stats stats;
};

/* inid_port.c: creates and starts the DPDK ports of this INI and tells the
 * netif which peer each reaches.  0 or -1 after printing why. */
int inid_ports_init(struct inid *d);
/* Waits until every port's link is up (restarting memif clients whose
 * server was not there yet); 0, or -1 on timeout. */
int inid_ports_wait_up(struct inid *d, int timeout_ms);
void inid_ports_close(struct inid *d);
/* memif: restarts the ports of this INI's client side whose server went
 * away (a restarted INI's: docs/transport.md, "An INI that restarts"),
 * which do not reconnect by themselves; called every lwIP timer period. */
void inid_ports_relink(struct inid *d);
/* Sets up fault injection on the ports from the INI's configuration. */
void inid_faults_init(struct inid *d);
/* Sets up the adaptive idle mode: doorbell FIFO and receive interrupts. */
int inid_idle_init(struct inid *d);
/* Rings the doorbells of sleeping memif peers that were sent frames. */
void inid_wake_peers(struct inid *d);
/* --capture: opens RUN_DIR/ini<ID>.pcapng, one interface per port, and
 * records what the ports send (a wrapper around the netif's xmit);
 * inid_capture_rx records received bursts.  0, or -1 after saying why. */
int  inid_capture_init(struct inid *d);
void inid_capture_rx(struct inid *d, int k, struct rte_mbuf **pkts, uint16_t n);
void inid_capture_close(struct inid *d);
/* The EAL argument that opens kernel interface me->device (default i<ID>)
 * as this INI's port; returns 1 (the number of arguments written). */
int inid_kernel_iface_vdev(const struct ini_node_cfg *me, char arg[INID_ARG_LEN]);
/* pci mode without devargs: the EAL argument for me->device; returns 1. */
int inid_device_eal_arg(const struct ini_node_cfg *me, char arg[INID_ARG_LEN]);
/* Builds the vdev argument of each port of this INI into args (EAL form). */
int inid_ports_eal_args(const struct inid *d, char args[][INID_ARG_LEN], int max);

/* inid_state.c: the state region (docs/transport.md, "An INI that
 * restarts"), after the stack is open: created clean, or with --resume
 * found and checked (0; -1 after saying why: exit INI_EXIT_NO_RESUME);
 * after inid_fabric_init, a resumed INI's rings walked again
 * (inid_state_rebuild); unlinked at a clean stop. */
int  inid_state_open(struct inid *d, const struct ini_swp_params *swp);
void inid_state_rebuild(struct inid *d);
void inid_state_unlink(struct inid *d);

/* inid_loop.c */
void inid_fabric_init(struct inid *d);
/* A record's message is done: marked, and the prefix of done records
 * given back to the compute node. */
void inid_record_done(struct inid *d, int pe, uint32_t slot);
int  inid_loop(void *arg);
void inid_write_counters(struct inid *d);
/* Transport callbacks (swp.h): a message for one of this cluster's PEs
 * (0: taken, -1: not now); a compute node's record that may be released. */
int  inid_transport_deliver(void *ctx, int src_ini, struct pbuf *p, uint16_t off, struct ini_rx_meta *rx);
void inid_transport_release(void *ctx, void *cookie);

/* The counters' names (inid_loop.c), one table per group, for the
 * counters file and the telemetry alike. */
extern const struct ini_counter inid_swp_counters[], inid_message_counters[], inid_link_counters[];
extern const size_t inid_swp_counters_n, inid_message_counters_n, inid_link_counters_n;

/* inid_telemetry.c: registers the /ini/... telemetry commands (after EAL
 * init); removes this run's DPDK runtime directory (at exit). */
int  inid_telemetry_init(const struct inid *d);
void inid_telemetry_cleanup(void);

#endif
