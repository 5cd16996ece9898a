/*
 * inid_telemetry.c - live figures of a running INI through DPDK's telemetry
 * socket (rte_telemetry), RUNTIME_DIR/dpdk_telemetry.v2, where RUNTIME_DIR
 * is /var/run/dpdk/<file prefix> for root and the file prefix is
 * ini-<TAG>-<ID> (inid.c).  DPDK's own client connects to it:
 *
 *   dpdk-telemetry.py -f ini-<TAG>-<ID>      then   /ini/stats
 *
 * Commands (each reply one JSON object, as every telemetry command's):
 *   /ini/stats   the counters, by the name/offset tables of the counters
 *                file (ini/util/counters.h): transport totals, messages, link
 *   /ini/conns   per connection: window (snd_una, snd_nxt, in flight,
 *                rcv_nxt), timer state (SEND timers running, ACK timer),
 *                and its message and retransmission counters
 *   /ini/queue   the FIFO work queue now: length, stalled, waiting
 *                deliveries, maximum and time average
 *   /ini/util    busy cycles, TSC now and its rate, the loop's busy share
 *                since start
 *   /ini/resources  what a leak would grow (tools/soak/ini-soak samples
 *                it): mbufs in use and in the pool, the transport's
 *                running SEND and ACK timers, and the elements in use of
 *                every lwIP pool, by name
 *
 * The commands are registered once the daemon has started (inid.c, just
 * before ready): the socket itself answers from EAL's start, and a
 * command asked earlier would read a transport and a pool not yet made.
 * Until then telemetry replies null for them (ini-soak counts a sample
 * without figures).
 *
 * Concurrency.  The callbacks run on DPDK's telemetry thread, never on the
 * INI's lcore, and take no lock: the protocol loop must not wait for a
 * reader.  Every figure is a naturally aligned 64-bit (or narrower)
 * integer that only the loop writes; the reader loads each with a relaxed
 * atomic load (ini_counter_load_relaxed, RELAXED below), which on x86-64
 * is a plain aligned load and can never see half of a store.  Figures read
 * one after another are not one snapshot (a counter may move between two
 * loads); rates over a second do not care.  The transport is read only
 * through its accessors (stack/swp.h), which load the same way and follow
 * no pointer the loop changes.
 *
 * The socket and the runtime directory are removed at exit
 * (inid_telemetry_cleanup): inid leaves with _exit(), which skips DPDK's
 * own clean-up (inid.c says why), and nothing may be left in /var/run/dpdk.
 */
#include "inid_telemetry.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_mempool.h>
#include <rte_telemetry.h>

#include "counters.h"
#include "inid_counters.h"

#define RELAXED(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/* The daemon's state (inid.c's one global): telemetry callbacks take no
 * context argument in DPDK 22.11. */
static const struct inid *tel_inid;

/* Adds the n counters of table, read from stats, to the dict d. */
static void add_counters(struct rte_tel_data *d, const struct ini_counter *table, size_t n,
                         const void *stats)
{
    for (size_t i = 0; i < n; i++)
        rte_tel_data_add_dict_u64(d, table[i].name, ini_counter_load_relaxed(&table[i], stats));
}

static void add_identity(struct rte_tel_data *info, const struct inid *d)
{
    rte_tel_data_add_dict_int(info, "ini", d->me->id);
    rte_tel_data_add_dict_int(info, "cluster", d->cluster);
    /* In virtual time the clock is the INI's own, in the emulated
     * machine's cycles (its trace's, trace.h), so rates between two
     * queries are per emulated second. */
    uint64_t vt_hz = d->vt_hz;
    rte_tel_data_add_dict_u64(info, "tsc", vt_hz ? RELAXED(d->vt_clock) + INI_TRACE_VT_ORIGIN : rte_rdtsc());
    rte_tel_data_add_dict_u64(info, "tsc_hz", vt_hz ? vt_hz : d->tsc_hz);
    rte_tel_data_add_dict_string(info, "clock", vt_hz ? "virtual" : "host");
    /* this INI's incarnation: restarts so far (docs/transport.md) */
    rte_tel_data_add_dict_u64(info, "restarts", ini_swp_incarnation(d->stack.swp));
}

/* A container dict for add_dict_container, or NULL (then the group is
 * left out: the reply stays valid). */
static struct rte_tel_data *group(void)
{
    struct rte_tel_data *g = rte_tel_data_alloc();
    if (g)
        rte_tel_data_start_dict(g);
    return g;
}

static int cmd_stats(const char *cmd, const char *params, struct rte_tel_data *info)
{
    const struct inid *d = tel_inid;
    rte_tel_data_start_dict(info);
    add_identity(info, d);
    struct ini_swp_stats tot = ini_swp_totals(d->stack.swp);     /* relaxed loads (swp.h) */
    struct rte_tel_data *g;
    if ((g = group())) {
        add_counters(g, inid_swp_counters, inid_swp_counters_n, &tot);
        rte_tel_data_add_dict_container(info, "transport", g, 0);
    }
    if ((g = group())) {
        add_counters(g, inid_message_counters, inid_message_counters_n, &d->stats);
        rte_tel_data_add_dict_container(info, "messages", g, 0);
    }
    if ((g = group())) {
        add_counters(g, inid_link_counters, inid_link_counters_n, &d->stack.nf.stats);
        rte_tel_data_add_dict_container(info, "link", g, 0);
    }
    if ((g = group())) {
        struct inid_port_rx port;
        inid_port_rx(d, &port);
        add_counters(g, inid_port_counters, inid_port_counters_n, &port);
        rte_tel_data_add_dict_container(info, "port", g, 0);
    }
    return 0;
}

static int cmd_conns(const char *cmd, const char *params, struct rte_tel_data *info)
{
    const struct inid *d = tel_inid;
    rte_tel_data_start_dict(info);
    add_identity(info, d);
    uint32_t window = ini_swp_window(d->stack.swp);
    rte_tel_data_add_dict_u64(info, "window", window);
    struct ini_swp_conn_info c;
    for (int p = 0; p < d->cfg.n_inis; p++) {
        if (ini_swp_conn(d->stack.swp, p, &c) < 0)
            continue;
        struct rte_tel_data *g = group();
        if (!g)
            break;
        rte_tel_data_add_dict_int(g, "peer", c.peer);
        rte_tel_data_add_dict_u64(g, "snd_una", c.snd_una);
        rte_tel_data_add_dict_u64(g, "snd_nxt", c.snd_nxt);
        rte_tel_data_add_dict_u64(g, "in_flight", c.in_flight);
        rte_tel_data_add_dict_int(g, "full", c.in_flight >= (c.cwnd < c.grant ? c.cwnd : c.grant));
        rte_tel_data_add_dict_u64(g, "cwnd", c.cwnd);
        rte_tel_data_add_dict_u64(g, "grant", c.grant);
        rte_tel_data_add_dict_u64(g, "srtt_us", c.srtt_ticks * 1000000 / (d->tsc_hz ? d->tsc_hz : 1));
        rte_tel_data_add_dict_u64(g, "rx_srtt_us", c.rx_srtt_ticks * 1000000 / (d->tsc_hz ? d->tsc_hz : 1));
        rte_tel_data_add_dict_u64(g, "quiet", c.quiet);
        rte_tel_data_add_dict_u64(g, "rcv_nxt", c.rcv_nxt);
        rte_tel_data_add_dict_u64(g, "ack_sent", c.ack_sent);
        /* Every unacknowledged message has its SEND timer running. */
        rte_tel_data_add_dict_u64(g, "send_timers", c.in_flight);
        rte_tel_data_add_dict_int(g, "ack_timer", c.ack_timer);
        rte_tel_data_add_dict_int(g, "delivery_blocked", c.delivery_blocked);
        add_counters(g, inid_swp_counters, inid_swp_counters_n, c.stats);
        char name[32];
        snprintf(name, sizeof name, "peer%d", c.peer);
        rte_tel_data_add_dict_container(info, name, g, 0);
    }
    return 0;
}

static int cmd_queue(const char *cmd, const char *params, struct rte_tel_data *info)
{
    const struct inid *d = tel_inid;
    rte_tel_data_start_dict(info);
    add_identity(info, d);
    uint32_t head = RELAXED(d->q_head), tail = RELAXED(d->q_tail);
    rte_tel_data_add_dict_u64(info, "queue", tail - head);
    rte_tel_data_add_dict_u64(info, "stalled", RELAXED(d->n_stalled));
    uint64_t waiting = 0;
    for (int pe = 0; pe < d->n_pes; pe++)
        waiting += (uint32_t)(RELAXED(d->backlog[pe].tail) - RELAXED(d->backlog[pe].head));
    rte_tel_data_add_dict_u64(info, "deliveries_waiting", waiting);
    rte_tel_data_add_dict_u64(info, "delayed", (uint32_t)(RELAXED(d->knobs.tail) - RELAXED(d->knobs.head)));
    rte_tel_data_add_dict_u64(info, "queue_max", RELAXED(d->stats.queue_max));
    uint64_t now = rte_rdtsc(), start = RELAXED(d->stats.run_start);
    uint64_t area = RELAXED(d->stats.queue_area);
    if (d->vt_hz)               /* the area is in the INI's cycles, from cycle 0 (inid_vtime.c) */
        now = RELAXED(d->vt_clock);
    /* Time average of queued + stalled since start, in thousandths. */
    rte_tel_data_add_dict_u64(info, "queue_avg_milli",
                              now > start ? (uint64_t)((double)area * 1000.0 / (double)(now - start)) : 0);
    return 0;
}

static int cmd_util(const char *cmd, const char *params, struct rte_tel_data *info)
{
    const struct inid *d = tel_inid;
    rte_tel_data_start_dict(info);
    add_identity(info, d);
    uint64_t now = rte_rdtsc(), start = RELAXED(d->stats.run_start);
    uint64_t busy = RELAXED(d->stats.busy_cycles);
    if (d->vt_hz) {             /* the cycles its events were charged, over its clock */
        now = RELAXED(d->vt_clock) + INI_TRACE_VT_ORIGIN;
        start = INI_TRACE_VT_ORIGIN;
        busy = RELAXED(d->vt_busy);
    }
    rte_tel_data_add_dict_u64(info, "run_start", start);
    rte_tel_data_add_dict_u64(info, "busy_cycles", busy);
    /* The loop's busy share since start, in thousandths (not the report's
     * utilization: docs/traces.md); a live figure is the ratio of the
     * differences of busy_cycles and tsc between two queries. */
    rte_tel_data_add_dict_u64(info, "busy_milli",
                              now > start ? (uint64_t)((double)busy * 1000.0 / (double)(now - start)) : 0);
    rte_tel_data_add_dict_u64(info, "loops", RELAXED(d->stats.loops));
    rte_tel_data_add_dict_u64(info, "idle_sleeps", RELAXED(d->stats.idle_sleeps));
    rte_tel_data_add_dict_string(info, "idle_mode", ini_idle_mode_name(d->idle));
    return 0;
}

/* The mempool's count reads the per-lcore caches of a loop that may be
 * moving mbufs: a figure off by a few in flight, never torn. */
static int cmd_resources(const char *cmd, const char *params, struct rte_tel_data *info)
{
    const struct inid *d = tel_inid;
    rte_tel_data_start_dict(info);
    add_identity(info, d);
    rte_tel_data_add_dict_u64(info, "mbufs_in_use", rte_mempool_in_use_count(d->stack.pool));
    rte_tel_data_add_dict_u64(info, "mbufs_total", d->stack.pool->size);
    uint64_t send = 0, ack = 0;
    struct ini_swp_conn_info c;
    for (int p = 0; p < d->cfg.n_inis; p++) {
        if (ini_swp_conn(d->stack.swp, p, &c) < 0)
            continue;
        send += c.in_flight;            /* every unacknowledged message has one */
        ack += c.ack_timer != 0;
    }
    rte_tel_data_add_dict_u64(info, "send_timers", send);
    rte_tel_data_add_dict_u64(info, "ack_timers", ack);
    struct rte_tel_data *g = group();
    if (g) {
        const char *name;
        unsigned used;
        for (int i = 0; ini_dgram_pool_used(i, &name, &used) >= 0; i++)
            rte_tel_data_add_dict_u64(g, name, used);
        rte_tel_data_add_dict_container(info, "lwip_pools", g, 0);
    }
    return 0;
}

int inid_telemetry_init(const struct inid *d)
{
    tel_inid = d;
    if (rte_telemetry_register_cmd("/ini/stats", cmd_stats,
                                   "INI counters: transport totals, messages, link. No parameters") < 0 ||
        rte_telemetry_register_cmd("/ini/conns", cmd_conns,
                                   "Per connection: window, timers, counters. No parameters") < 0 ||
        rte_telemetry_register_cmd("/ini/queue", cmd_queue,
                                   "The INI's work queue: length, stalled, maximum, average. No parameters") < 0 ||
        rte_telemetry_register_cmd("/ini/util", cmd_util,
                                   "Busy cycles, TSC and utilization since start. No parameters") < 0 ||
        rte_telemetry_register_cmd("/ini/resources", cmd_resources,
                                   "mbufs, timers and lwIP pool elements in use. No parameters") < 0) {
        fprintf(stderr, "inid %d: cannot register the telemetry commands\n", d->me->id);
        return -1;
    }
    return 0;
}

void inid_telemetry_cleanup(void)
{
    const char *dir = rte_eal_get_runtime_dir();
    if (!dir || !dir[0])
        return;
    /* Only what EAL and telemetry put there: this run's own directory,
     * named by its file prefix. */
    DIR *dh = opendir(dir);
    if (dh) {
        struct dirent *e;
        char path[PATH_MAX];
        while ((e = readdir(dh))) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(dh);
    }
    rmdir(dir);
}
