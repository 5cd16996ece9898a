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
 *                file (ini/counters.h): transport totals, messages, link
 *   /ini/conns   per connection: window (snd_una, snd_nxt, in flight,
 *                rcv_nxt), timer state (SEND timers running, ACK timer),
 *                and its message and retransmission counters
 *   /ini/queue   the FIFO work queue now: length, stalled, waiting
 *                deliveries, maximum and time average
 *   /ini/util    busy cycles, TSC now and its rate, utilization since start
 *
 * Concurrency.  The callbacks run on DPDK's telemetry thread, never on the
 * INI's lcore, and take no lock: the protocol loop must not wait for a
 * reader.  Every figure is a naturally aligned 64-bit (or narrower)
 * integer that only the loop writes; the reader loads each with a relaxed
 * atomic load (ini_counter_load_relaxed, RELAXED below), which on x86-64
 * is a plain aligned load and can never see half of a store.  Figures read
 * one after another are not one snapshot (a counter may move between two
 * loads); rates over a second do not care.  Nothing here follows a pointer
 * the loop changes (the timer lists are read only through their per-
 * connection head pointer's being NULL or not).
 *
 * The socket and the runtime directory are removed at exit
 * (inid_telemetry_cleanup): inid leaves with _exit(), which skips DPDK's
 * own clean-up (inid.c says why), and nothing may be left in /var/run/dpdk.
 */
#include "inid.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_telemetry.h>

#include "counters.h"

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

/* The INI's transport totals: its own counters plus every connection's,
 * as ini_swp_totals() but with relaxed loads. */
static void transport_totals(const struct inid *d, struct ini_swp_stats *sum)
{
    uint64_t *out = (uint64_t *)sum;
    for (size_t i = 0; i < inid_swp_counters_n; i++) {
        const struct ini_counter *c = &inid_swp_counters[i];
        uint64_t v = ini_counter_load_relaxed(c, &d->swp.stats);
        for (int p = 0; p < d->cfg.n_inis; p++)
            if (d->swp.conns[p].peer >= 0)
                v += ini_counter_load_relaxed(c, &d->swp.conns[p].stats);
        memcpy((char *)out + c->offset, &v, sizeof v);
    }
}

static void add_identity(struct rte_tel_data *info, const struct inid *d)
{
    rte_tel_data_add_dict_int(info, "ini", d->me->id);
    rte_tel_data_add_dict_int(info, "cluster", d->cluster);
    rte_tel_data_add_dict_u64(info, "tsc", rte_rdtsc());
    rte_tel_data_add_dict_u64(info, "tsc_hz", d->tsc_hz);
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
    struct ini_swp_stats tot;
    transport_totals(d, &tot);
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
        add_counters(g, inid_link_counters, inid_link_counters_n, &d->nf.stats);
        rte_tel_data_add_dict_container(info, "link", g, 0);
    }
    return 0;
}

static int cmd_conns(const char *cmd, const char *params, struct rte_tel_data *info)
{
    const struct inid *d = tel_inid;
    rte_tel_data_start_dict(info);
    add_identity(info, d);
    rte_tel_data_add_dict_u64(info, "window", d->swp.window);
    for (int p = 0; p < d->cfg.n_inis; p++) {
        const struct swp_conn *c = &d->swp.conns[p];
        if (c->peer < 0)
            continue;
        struct rte_tel_data *g = group();
        if (!g)
            break;
        uint32_t una = RELAXED(c->snd_una), nxt = RELAXED(c->snd_nxt);
        uint32_t in_flight = (nxt - una) & d->swp.seq_mask;
        rte_tel_data_add_dict_int(g, "peer", c->peer);
        rte_tel_data_add_dict_u64(g, "snd_una", una);
        rte_tel_data_add_dict_u64(g, "snd_nxt", nxt);
        rte_tel_data_add_dict_u64(g, "in_flight", in_flight);
        rte_tel_data_add_dict_int(g, "full", in_flight >= d->swp.window);
        rte_tel_data_add_dict_u64(g, "rcv_nxt", RELAXED(c->rcv_nxt));
        rte_tel_data_add_dict_u64(g, "ack_sent", RELAXED(c->ack_sent));
        /* Every unacknowledged message has its SEND timer running. */
        rte_tel_data_add_dict_u64(g, "send_timers", in_flight);
        rte_tel_data_add_dict_int(g, "ack_timer",
                                  RELAXED(d->swp.ack_timers.conns[c->peer].head) != NULL);
        rte_tel_data_add_dict_int(g, "delivery_blocked", RELAXED(c->delivery_blocked));
        add_counters(g, inid_swp_counters, inid_swp_counters_n, &c->stats);
        char name[32];
        snprintf(name, sizeof name, "peer%d", c->peer);
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
    rte_tel_data_add_dict_u64(info, "run_start", start);
    rte_tel_data_add_dict_u64(info, "busy_cycles", busy);
    /* Since start, in thousandths; a live figure is the ratio of the
     * differences of busy_cycles and tsc between two queries. */
    rte_tel_data_add_dict_u64(info, "utilization_milli",
                              now > start ? (uint64_t)((double)busy * 1000.0 / (double)(now - start)) : 0);
    rte_tel_data_add_dict_u64(info, "loops", RELAXED(d->stats.loops));
    rte_tel_data_add_dict_u64(info, "idle_sleeps", RELAXED(d->stats.idle_sleeps));
    rte_tel_data_add_dict_string(info, "idle_mode", ini_idle_mode_name(d->idle));
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
                                   "Busy cycles, TSC and utilization since start. No parameters") < 0) {
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
