/*
 * inid.c - the INI daemon: arguments, EAL, the stack, ports, then the loop.
 *
 *   inid --config FILE --ini ID --tag TAG --run-dir DIR
 *        [--ini-policy P] [--idle poll|adaptive|auto] [--trace MODE]
 *        [-- EXTRA EAL ARGS...]
 *   inid --help | --version
 *
 * The command line follows the tools' skeleton (ini/util/cli.h): bad input is
 * one line "inid: what: why" and exit status 2, before EAL starts; what
 * follows "--" goes to rte_eal_init() untouched.
 * The launcher (ini-cluster) creates the cluster's shared segment before it
 * starts inid, and waits for the INI's state in it to become READY, which
 * inid sets once its links are up.  SIGTERM or SIGINT ends the loop; inid
 * then marks itself STOPPED, writes its counters to DIR/ini<ID>.counters.json
 * and releases its ports.
 */
#include "clock.h"
#include "inid.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "cli.h"
#include "inid_cli.h"

#include "eal_args.h"
#include "inid_clock.h"
#include "fabric.h"
#include "inid_counters.h"
#include "inid_fabric.h"
#include "inid_loop.h"
#include "inid_vtime.h"
#include "inid_port.h"
#include "inid_state.h"
#include "inid_telemetry.h"
#include "stack_config.h"


/* The daemon's state: the one global, so the signal handler can reach it. */
static struct inid inid_state;

static void on_signal(int sig)
{
    inid_state.stop = 1;
}

static const char usage_text[] =
    "usage: inid --config FILE --ini ID --tag TAG --run-dir DIR [--policy P] [--ini-policy P]\n"
    "            [--idle poll|adaptive|auto] [--trace off|summary|detailed] [--fault SPEC]\n"
    "            [--knob SPEC] [--segment on|off] [--launcher-pid PID] [--resume]\n"
    "            [--capture [--capture-limit SIZE] [--capture-ring N] [--capture-snap BYTES]] [-- EAL ARGS...]\n"
    "       inid --help | --version\n"
    "policies: static, round-robin, load-aware.  Started by ini-cluster (docs/launcher.md).\n";

/* The options that change the configuration for this run. */
struct inid_overrides {
    const char *policy, *pe_policy, *idle, *trace, *fault, *knob, *segment;
};

/* A policy option's value into *out (left as it is when not given). */
static void policy_option(const char *flag, const char *value, enum ini_policy *out)
{
    if (!value)
        return;
    int p = ini_policy_parse(value);
    if (p < 0)
        cli_bad_arg("%s: '%s' is not a policy (static, round-robin, load-aware)", flag, value);
    *out = (enum ini_policy)p;
}

static void apply_overrides(struct inid *d, const struct inid_overrides *o)
{
    char err[1024];
    policy_option("--ini-policy", o->policy, &d->cfg.ini_policy);
    policy_option("--policy", o->pe_policy, &d->cfg.pe_policy);   /* the compute nodes': recorded in traces */
    if (o->idle)
        d->cfg.idle.mode = (enum ini_idle_mode)cli_parse_choice("--idle", o->idle, ini_idle_mode_names);
    if (o->trace)
        d->cfg.trace.mode = (enum ini_trace_mode)cli_parse_choice("--trace", o->trace, ini_trace_mode_names);
    if (o->fault) {
        /* --fault overrides the configuration for every INI, on transmit
         * unless it says side=rx. */
        struct ini_fault_cfg f;
        ini_fault_defaults(&f);
        if (ini_fault_parse(o->fault, &f, err, sizeof(err)) < 0)
            cli_bad_arg("--fault: %s", err);
        d->cfg.faults = f;
        for (int i = 0; i < d->cfg.n_inis; i++)
            d->cfg.inis[i].faults = f;
    }
    if (o->segment) {
        /* stack.segmentation for this run (docs/transport.md, "Segments"). */
        static const char *const modes[] = { "off", "on", NULL };
        d->cfg.stack.segmentation = cli_parse_choice("--segment", o->segment, modes);
    }
    if (o->knob && ini_knobs_parse(o->knob, &d->cfg.knobs, err, sizeof(err)) < 0)
        cli_bad_arg("--knob: %s", err);
}

/* --capture-limit (l), --capture-ring (R), --capture-snap (s). */
static void capture_option(struct ini_capture_opts *o, int c, const char *value)
{
    char err[256];
    int rc = c == 'l' ? ini_capture_parse_limit(value, &o->limit, err, sizeof(err))
           : c == 'R' ? ini_capture_parse_ring(value, &o->ring, err, sizeof(err))
           : ini_capture_parse_snap(value, &o->snap, err, sizeof(err));
    if (rc < 0)
        cli_bad_arg("%s", err);
}

static int parse_args(struct inid *d, int argc, char **argv, int *eal_extra)
{
    static const struct option opts[] = {
        INID_LONG_OPTIONS,
        CLI_COMMON_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    struct inid_overrides o = { 0 };
    const char *config = NULL;
    d->cap_opts.limit = INI_CAPTURE_LIMIT_DEFAULT;
    long id = -1;
    int c;
    char err[1024];
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'c': config = optarg; break;
        case 'i': id = cli_parse_long("--ini", optarg, 0, INI_MAX_INIS - 1); break;
        case 't': snprintf(d->tag, sizeof(d->tag), "%s", optarg); break;
        case 'r': snprintf(d->run_dir, sizeof(d->run_dir), "%s", optarg); break;
        case 'p': o.policy = optarg; break;
        case 'I': o.idle = optarg; break;
        case 'T': o.trace = optarg; break;
        case 'f': o.fault = optarg; break;
        case 'k': o.knob = optarg; break;
        case 'P': o.pe_policy = optarg; break;
        case 'L': d->launcher_pid = (pid_t)cli_parse_long("--launcher-pid", optarg, 1, INT32_MAX); break;
        case 'C': d->capture = 1; break;
        case 'l': case 'R': case 's': capture_option(&d->cap_opts, c, optarg); break;
        case 'S': o.segment = optarg; break;
        case 'U': d->resume = 1; break;
        default: cli_common_option(c, argv);
        }
    }
    *eal_extra = optind;
    if (!config || id < 0 || !d->tag[0] || !d->run_dir[0])
        cli_bad_arg("--config, --ini, --tag and --run-dir are required");
    if (ini_config_load(config, &d->cfg, err, sizeof(err)) < 0)
        cli_bad_arg("%s", err);
    if (id >= d->cfg.n_inis)
        cli_bad_arg("--ini %ld: %s has INIs 0..%d", id, config, d->cfg.n_inis - 1);
    apply_overrides(d, &o);
    d->me = &d->cfg.inis[id];
    d->cluster = d->me->cluster;
    d->local = d->me->index;
    return 0;
}

/* auto: poll only when every daemon and compute node can have a core. */
static enum ini_idle_mode pick_idle_mode(const struct ini_config *cfg)
{
    if (cfg->idle.mode != INI_IDLE_AUTO)
        return cfg->idle.mode;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return (long)(cfg->n_inis + cfg->n_pes) <= cores ? INI_IDLE_POLL : INI_IDLE_ADAPTIVE;
}

static int eal_init(struct inid *d, int argc, char **argv, int extra)
{
    static char store[64 + INI_MAX_EAL_ARGS + INI_NETIF_MAX_PORTS][INID_ARG_LEN];
    char *eal_argv[64 + INI_MAX_EAL_ARGS + INI_NETIF_MAX_PORTS + 64];
    int n = 0, s = 0;
#define ADD(...) do { snprintf(store[s], INID_ARG_LEN, __VA_ARGS__); eal_argv[n++] = store[s++]; } while (0)
    ADD("inid%d", d->me->id);
    ADD("--file-prefix=ini-%s-%d", d->tag, d->me->id);
    int huge = ini_eal_use_hugepages(&d->cfg, argv + extra, argc - extra, "/proc/meminfo");
    ADD("%s", huge ? "--in-memory" : "--no-huge");    /* --in-memory: no shared config either */
    ADD("-m");
    ADD("%d", d->cfg.eal_memory_mb);
    /* Without hugepages the shared config stays on (no --no-shconf): the
     * memif driver registers a multi-process action at probe, and with
     * the multi-process channel off every daemon's log said "Failed to
     * register mp action callback: Operation not supported" (issue 46).
     * What it adds (the config, its lock, mp_socket, the memory segment
     * lists' files) lives in the daemon's own runtime directory, named by
     * its file prefix, which inid and the launcher remove as before. */
    /* Telemetry stays on: inid serves /ini/... commands on its socket in
     * /var/run/dpdk/ini-TAG-ID (inid_telemetry.c). */
    /* memif's connection messages (connected, disconnect received and its
     * reason): a link that never comes up says why in the daemon's log.
     * Given before the catch-all: given after it, the catch-all's level
     * won for the memif driver (measured with DPDK 22.11). */
    if (d->cfg.net_mode == INI_NET_MEMIF)
        ADD("--log-level=pmd.net.memif:info");
    ADD("--log-level=*:warning");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (d->me->core >= 0 && d->me->core < cores)
        ADD("--lcores=0@%d", d->me->core);
    else
        ADD("--lcores=0@(0-%ld)", cores - 1);
    int vdevs = inid_ports_eal_args(d, store + s, INI_NETIF_MAX_PORTS);
    if (vdevs < 0)
        return -1;
    for (int k = 0; k < vdevs; k++)
        eal_argv[n++] = store[s++];
    /* Only the devices named are probed: never the host's own NIC. */
    int pci = ini_eal_allows_pci(eal_argv + n - vdevs, vdevs) || ini_eal_allows_pci(argv + extra, argc - extra);
    if (!pci)
        ADD("--no-pci");
    else if (!huge)
        /* Not silently: a NIC's driver (vfio-pci) wants hugepages for its
         * DMA memory, and the start may fail or run slowly without them. */
        fprintf(stderr, "inid %d: warning: a PCI device without hugepages (%ld MiB free, eal.memory_mb %d; "
                "eal.hugepages or --no-huge chose): a NIC bound to vfio-pci needs them; reserve them "
                "(docs/deploy.md) or set eal.hugepages = \"yes\" to refuse to start without\n", d->me->id,
                ini_eal_hugepages_free_mb("/proc/meminfo"), d->cfg.eal_memory_mb);
    for (int k = 0; k < d->cfg.n_eal_args; k++)
        eal_argv[n++] = d->cfg.eal_args[k];
    for (int k = extra; k < argc && n < (int)(sizeof(eal_argv) / sizeof(eal_argv[0])) - 1; k++)
        eal_argv[n++] = argv[k];
    eal_argv[n] = NULL;
#undef ADD
    printf("inid %d: EAL", d->me->id);
    for (int k = 1; k < n; k++) {
        /* memif's secret stays out of the log */
        const char *secret = strstr(eal_argv[k], ",secret=");
        const char *rest = secret ? strchr(secret + 1, ',') : NULL;
        if (secret)
            printf(" %.*s,secret=(hidden)%s", (int)(secret - eal_argv[k]), eal_argv[k], rest ? rest : "");
        else
            printf(" %s", eal_argv[k]);
    }
    printf("\n");
    int rc = rte_eal_init(n, eal_argv);
    if (rc < 0) {
        fprintf(stderr, "inid %d: EAL init failed: %s\n", d->me->id, rte_strerror(rte_errno));
        return -1;
    }
    return 0;
}

/* INI_TEST_LEAK_MBUFS=N (0-1000): the daemon leaks N mbufs a second, a
 * leak planted for tests/integration/soak_quick.sh, which must see
 * ini-soak fail on it.  Unset or empty: no leak.  0, or -1 after one line. */
static int test_leak_init(struct inid *d)
{
    const char *e = getenv("INI_TEST_LEAK_MBUFS");
    if (!e || !e[0])
        return 0;
    char *end;
    long n = strtol(e, &end, 10);
    if (*end || n < 0 || n > 1000) {
        fprintf(stderr, "inid %d: INI_TEST_LEAK_MBUFS: '%s' is not a count of mbufs a second (0-1000)\n",
                d->me->id, e);
        return -1;
    }
    d->test_leak_per_s = (uint64_t)n;
    if (n)
        fprintf(stderr, "inid %d: INI_TEST_LEAK_MBUFS: leaking %ld mbuf(s) a second (a test)\n", d->me->id, n);
    return 0;
}

/* The process's settings: signals, and the knobs in TSC cycles. */
static void process_init(struct inid *d)
{
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    /* A peer's doorbell FIFO whose reader died must not kill this INI
     * (fabric.c turns the write's SIGPIPE into EPIPE; any other write to a
     * dead reader gets EPIPE too). */
    signal(SIGPIPE, SIG_IGN);
    /* In virtual time the TSC is the machine's, at a rate of its own
     * (inid_vtime.h, INID_VT_TSC_HZ); else the host's. */
    d->tsc_hz = inid_vt_requested() ? INID_VT_TSC_HZ : rte_get_tsc_hz();
    inid_knobs_init(&d->knobs, &d->cfg.knobs, d->tsc_hz, d->me->id);
    /* Sleeps (adaptive idle, the O knob in sleep mode) end when asked, not
     * up to the default 50 us later. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    /* O in sleep mode emulates a dedicated INI processor on shared cores:
     * the daemon's own work must not wait behind compute threads for a
     * core, or every message's service grows by the machine's scheduling
     * latency (measured with Water on 2 cores: 25-126 us more per pass with
     * 2-16 daemons and 16 compute threads).  So the daemon takes a much
     * larger share of the scheduler (nice -15), which makes a waking daemon
     * preempt a compute thread at once.  Not real-time priority: daemons of
     * one priority under SCHED_FIFO do not preempt each other, and one
     * waiting awake for a peer on its core starved the machine (a 3 s run
     * took 91 s). */
    int dedicated = (d->knobs.O && d->knobs.O_sleep) || d->knobs.dil.factor > 0;   /* uniform dilation sleeps too */
    if (dedicated && d->idle == INI_IDLE_ADAPTIVE && setpriority(PRIO_PROCESS, 0, -15) != 0)
        fprintf(stderr, "inid %d: O in sleep mode or dilation at normal priority (%s): service times include the "
                "wait for a core\n", d->me->id, strerror(errno));
}

/* The run's epoch, 16 bytes the launcher draws at random and gives every
 * daemon of the run in INI_RUN_EPOCH (32 hex digits): 0, or -1 when it is
 * missing or malformed. */
static int run_epoch(uint8_t epoch[INI_SWP_EPOCH_LEN])
{
    const char *e = getenv("INI_RUN_EPOCH");
    int ok = e && strlen(e) == 2 * INI_SWP_EPOCH_LEN;
    for (int i = 0; ok && i < INI_SWP_EPOCH_LEN; i++) {
        unsigned v = 0;
        ok = sscanf(e + 2 * i, "%2x", &v) == 1 && isxdigit((unsigned char)e[2 * i]) &&
             isxdigit((unsigned char)e[2 * i + 1]);
        epoch[i] = (uint8_t)v;
    }
    return ok ? 0 : -1;
}

/* The MAC's key: security.key_file, the machine's; else, with the MAC on
 * (security.mac, ini_config_mac_on), the run key the launcher drew and
 * wrote 0600 in the run directory, named by INI_RUN_KEY.  And the run's
 * epoch, which the launcher draws at random and gives every daemon of the
 * run in INI_RUN_EPOCH (32 hex digits): frames recorded in another run
 * with the same key fail the MAC (docs/transport.md). */
static int auth_params(struct inid *d, struct ini_swp_params *prm)
{
    char why[INI_PATH_LEN + 160];
    const char *run_key = getenv("INI_RUN_KEY");
    const char *path = d->cfg.security.key_file[0] ? d->cfg.security.key_file : run_key;
    const char *what = d->cfg.security.key_file[0] ? "security.key_file" : "INI_RUN_KEY (the run key)";
    if (!path || !*path) {
        fprintf(stderr, "inid %d: %s: the MAC is on (security.mac) but INI_RUN_KEY, the run key's file that "
                "ini-cluster draws, is not set; set security.mac = \"off\" or start inid through ini-cluster\n",
                d->me->id, d->cfg.path);
        return -1;
    }
    if (ini_key_file_read(path, prm->key, why, sizeof(why)) < 0) {
        fprintf(stderr, "inid %d: %s: %s: %s\n", d->me->id, d->cfg.path, what, why);
        return -1;
    }
    const char *e = getenv("INI_RUN_EPOCH");
    if (run_epoch(prm->epoch) < 0) {
        fprintf(stderr, "inid %d: INI_RUN_EPOCH: %s (the run's epoch, %d hex digits, which ini-cluster sets; "
                        "the MAC needs it)\n",
                d->me->id, e ? "malformed" : "not set", 2 * INI_SWP_EPOCH_LEN);
        explicit_bzero(prm->key, sizeof(prm->key));
        return -1;
    }
    prm->auth = 1;
    return 0;
}

/* The INI's stack (stack/stack.h): its mbuf pool, lwIP, the link, the
 * transport, from the configuration. */
static int stack_open(struct inid *d)
{
    struct ini_stack_params prm;
    char name[64], err[256];
    ini_stack_params_from_config(&prm, &d->cfg, d->me->id, d->tsc_hz);
    /* Uniform dilation: the transport's timers run on the INI's own clock,
     * K*beta times slower, as its work does (docs/config.md). */
    double slow = d->knobs.dil.factor;
    if (slow > 1) {
        prm.swp.send_timeout_us = (int)fmin(prm.swp.send_timeout_us * slow, 60e6);
        prm.swp.ack_timeout_us = (int)fmin(prm.swp.ack_timeout_us * slow, 30e6);
    }
    /* A pool of the size the configuration's memory check counts. */
    snprintf(name, sizeof(name), "ini%d_mbufs", d->me->id);
    prm.pool_name = name;
    prm.n_mbufs = INI_STACK_MBUFS;
    prm.mbuf_room = (uint16_t)ini_config_mbuf_room(d->cfg.stack.mtu);
    prm.deliver = inid_transport_deliver;
    prm.release = inid_transport_release;
    prm.ctx = d;
    if (ini_config_mac_on(&d->cfg) && auth_params(d, &prm.swp) < 0)
        return -1;
    /* The state region belongs to this run: its epoch (the launcher's),
     * with a key or without (docs/transport.md, "An INI that restarts"). */
    run_epoch(prm.swp.epoch);
    int rc = ini_stack_open(&d->stack, &prm, err, sizeof(err));
    explicit_bzero(prm.swp.key, sizeof(prm.swp.key));
    if (rc < 0) {
        fprintf(stderr, "inid %d: stack: %s\n", d->me->id, err);
        return -1;
    }
    return inid_state_open(d, &prm.swp) < 0 ? -2 : 0;
}

/* The trace buffer, and the run's start. */
static int trace_init(struct inid *d)
{
    if (ini_trace_init(&d->trace, d->cfg.trace.mode, (uint32_t)d->cfg.trace.records, d->me->id,
                       d->cluster, d->tsc_hz) < 0) {
        fprintf(stderr, "inid %d: cannot allocate %d trace records\n", d->me->id, d->cfg.trace.records);
        return -1;
    }
    ini_trace_set_cluster(&d->trace, d->local, d->cfg.clusters[d->cluster].n_inis,
                          d->cfg.clusters[d->cluster].n_pes);
    ini_trace_set_policies(&d->trace, d->cfg.pe_policy, d->cfg.ini_policy);
    ini_trace_set_knobs(&d->trace, d->cfg.knobs.O_us, d->cfg.knobs.O_exp);
    d->stats.run_start = rte_rdtsc();
    ini_trace_run_start(&d->trace, d->stats.run_start);
    return 0;
}

/* After the loop: the clocks' end (across hosts), the INI stopped, its
 * trace and counters written, its ports' side released. */
static void shut_down(struct inid *d)
{
    inid_clock_end(d, inid_loop);   /* across hosts: the clocks measured again, the loop still answering */
    atomic_store(&d->seg->inis[d->local].state, INI_SEG_STOPPED);
    if (!d->vt_hz)                  /* virtual: inid_vt_close set it in cycles */
        d->stats.run_end = rte_rdtsc();
    if (d->trace.info.clock != INI_TRACE_CLOCK_VIRTUAL)     /* virtual: inid_vt_close ended it */
        ini_trace_run_end(&d->trace, d->stats.run_end);
    if (d->trace.mode != INI_TRACE_OFF) {
        char path[INI_PATH_LEN + 32];
        snprintf(path, sizeof(path), "%.*s/ini%d.trace", INI_PATH_LEN - 1, d->run_dir, d->me->id);
        if (ini_trace_write(&d->trace, path) < 0)
            fprintf(stderr, "inid %d: cannot write %s: %s\n", d->me->id, path, strerror(errno));
    }
    ini_fabric_wake_all_pes(d->seg);
    inid_write_counters(d);
    inid_state_unlink(d);           /* a clean stop: nothing to resume */
    /* The launcher died (SIGKILL): its segments would stay in /dev/shm.
     * Every INI of the cluster may unlink it; the first one does. */
    if (d->launcher_pid && getppid() != d->launcher_pid)
        ini_segment_unlink(d->seg_name);
    inid_ports_close(d);
    inid_capture_close(d);
    inid_telemetry_cleanup();
    printf("inid %d: stopped\n", d->me->id);
    fflush(NULL);
}

int main(int argc, char **argv)
{
    struct inid *d = &inid_state;
    int extra;
    char err[512];

    /* Where a start's time goes (issue 48: a restart of 3.1 s under load):
     * the end of each phase, printed once ready. */
    uint64_t t_phase[5];
    t_phase[0] = ini_mono_ns();
    cli_init("inid", usage_text);
    setvbuf(stdout, NULL, _IOLBF, 0);
    parse_args(d, argc, argv, &extra);
    d->idle = pick_idle_mode(&d->cfg);
    d->lb.policy = d->cfg.ini_policy;

    ini_segment_name(d->seg_name, sizeof(d->seg_name), d->tag, d->cluster);
    d->seg = ini_segment_attach(d->seg_name, d->cluster, err, sizeof(err));
    if (!d->seg) {
        fprintf(stderr, "inid %d: %s\n", d->me->id, err);
        return 1;
    }
    if (eal_init(d, argc, argv, extra) < 0)
        return 1;
    t_phase[1] = ini_mono_ns();
    /* Whichever way inid leaves, it removes its DPDK runtime directory:
     * atexit for the error paths, by hand before the final _exit. */
    atexit(inid_telemetry_cleanup);
    process_init(d);
    if (test_leak_init(d) < 0)
        return 1;
    int st = stack_open(d);
    if (st < 0)
        return st == -2 && d->resume ? INI_EXIT_NO_RESUME : 1;
    t_phase[2] = ini_mono_ns();
    if (inid_ports_init(d) < 0)
        return 1;
    t_phase[3] = ini_mono_ns();
    /* The pid now, the state once ready: a memif client whose server this
     * daemon restarted reconnects when it sees the new pid
     * (inid_ports_relink), and the links come up only once it has. */
    atomic_store(&d->seg->inis[d->local].pid, (int32_t)getpid());
    inid_faults_init(d);
    inid_fabric_init(d);
    inid_state_rebuild(d);
    if (inid_ports_wait_up(d, 20000) < 0 || inid_idle_init(d) < 0 || inid_capture_init(d) < 0 ||
        trace_init(d) < 0)
        return 1;
    if (inid_vt_setup(d, err, sizeof err) < 0) {
        fprintf(stderr, "inid %d: %s\n", d->me->id, err);
        return 1;
    }
    /* The /ini/... commands only now: the socket answers from EAL's start,
     * and one read the transport before stack_open made it (a SIGSEGV as
     * ini-soak sampled a restarting daemon); until now, a null reply. */
    if (inid_telemetry_init(d) < 0 || inid_clock_init(d) < 0 || inid_wedge_init(d) < 0)
        return 1;
    t_phase[4] = ini_mono_ns();
    printf("inid %d: start: EAL %.0f ms, stack %.0f ms, ports %.0f ms, links up %.0f ms\n", d->me->id,
           (double)(t_phase[1] - t_phase[0]) / 1e6, (double)(t_phase[2] - t_phase[1]) / 1e6,
           (double)(t_phase[3] - t_phase[2]) / 1e6, (double)(t_phase[4] - t_phase[3]) / 1e6);
    atomic_store(&d->seg->inis[d->local].state, INI_SEG_READY);
    printf("inid %d: cluster %d, %d port(s) (%d with rx interrupts), %s mode, idle %s: ready\n",
           d->me->id, d->cluster, d->n_ports, d->n_intr, ini_net_mode_name(d->cfg.net_mode),
           ini_idle_mode_name(d->idle));

    if (d->vt)
        inid_vt_loop(d);
    else
        inid_loop(d);
    inid_vt_close(d);

    shut_down(d);
    /* Everything the run produced is written.  Tearing DPDK down from
     * here (closing ports, rte_eal_cleanup) races with its interrupt
     * thread handling the memif peer's own disconnect, a crash inside
     * rte_intr_fd_get in DPDK 22.11 in a few percent of runs; the process
     * leaves instead, and the kernel frees what it held. */
    _exit(0);
}
