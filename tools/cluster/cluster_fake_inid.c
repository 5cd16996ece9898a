/*
 * cluster-fake-inid - a stand-in for inid with the same command line, for
 * testing the launcher without DPDK and as the thesis's "no INI" baseline:
 * it attaches to its cluster's segment, marks its INI READY, forwards
 * messages until SIGTERM/SIGINT, marks it STOPPED, writes
 * RUN_DIR/ini<ID>.counters.json and exits 0.
 *
 * Forwarding (no network, no protocol stack): each fake INI owns a mailbox,
 * a shared-memory object /ini-TAG-fake<ID> holding one single-producer
 * ring per INI of the machine.  A message a compute node hands it is copied
 * into the mailbox of an INI of the destination cluster (the one whose index
 * in its cluster is this INI's index modulo that cluster's INI count; a
 * message for the own cluster is delivered directly); the owner of the
 * mailbox copies it into the destination PE's delivery ring.  Idle INIs
 * sleep on a FIFO (the segment's wake path, which compute nodes ring, and
 * which other fake INIs ring after filling the mailbox).
 *
 * INI_FAKE_DELAY_US=N (environment, inherited through the launcher): every
 * inter-cluster message is held N microseconds (may be fractional) after it
 * entered the mailbox before delivery: a fixed added latency per message,
 * with no contention (the thesis's "INI delay" baseline, section 5.2).
 *
 * Misbehaviour on request, to exercise the launcher's error paths:
 *   FAKE_INID_FAIL=ID       INI ID exits with status 3 before READY
 *   FAKE_INID_CRASH=ID:MS   INI ID aborts MS milliseconds after READY
 *   FAKE_INID_STUBBORN=ID   INI ID ignores SIGTERM (the launcher must SIGKILL)
 *   FAKE_INID_NEVER_READY=ID  INI ID never marks itself READY
 * Unknown options are rejected like inid does (exit 2).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <x86intrin.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "inid_cli.h"
#include "config.h"
#include "counters.h"
#include "fabric.h"

#define MBOX_RING (1u << 20)
struct mbox {
    _Atomic uint32_t sleeping;
    uint32_t n_src;
    char wake_path[108];
    uint64_t ring_off;
};
static size_t mbox_bytes(int n) { return 4096 + (size_t)n * (sizeof(struct ini_ring) + MBOX_RING); }
static struct ini_ring *mbox_ring(struct mbox *m, int src)
{
    return (struct ini_ring *)((uint8_t *)m + m->ring_off + (size_t)src * (sizeof(struct ini_ring) + MBOX_RING));
}
static void mbox_name(char *b, size_t n, const char *tag, int id) { snprintf(b, n, "/ini-%s-fake%d", tag, id); }
static struct mbox *mbox_map(const char *name, int n, int create)
{
    int fd = shm_open(name, create ? O_RDWR | O_CREAT | O_TRUNC : O_RDWR, 0600);
    if (fd < 0)
        return NULL;
    if (create && ftruncate(fd, (off_t)mbox_bytes(n)) < 0) {
        close(fd);
        return NULL;
    }
    void *m = mmap(NULL, mbox_bytes(n), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return m == MAP_FAILED ? NULL : m;
}
static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The counters file, RUN_DIR/ini<ID>.counters.json (ini/counters.h). */
struct fake_counters {
    uint64_t frames, processed, forwarded, delivered;
};
static const struct ini_counter fake_counters[] = {
    INI_COUNTER_SAME(struct fake_counters, frames),
    INI_COUNTER_SAME(struct fake_counters, processed),
    INI_COUNTER_SAME(struct fake_counters, forwarded),
    INI_COUNTER_SAME(struct fake_counters, delivered),
};

static volatile sig_atomic_t stop;
static void on_signal(int sig) { stop = sig; }

/* Value of env NAME as "ID" or "ID:NUMBER" when ID matches; -1 otherwise. */
static long fault_for(const char *name, int id, long dflt)
{
    const char *v = getenv(name);
    if (!v || atoi(v) != id)
        return -1;
    const char *colon = strchr(v, ':');
    return colon ? atol(colon + 1) : dflt;
}

static const char usage_text[] =
    "usage: cluster-fake-inid --config FILE --ini ID --tag TAG --run-dir DIR [inid's other options]\n"
    "       cluster-fake-inid --help | --version\n"
    "A stand-in for inid, started by ini-cluster run --inid PATH; it accepts and\n"
    "ignores inid's --policy, --ini-policy, --idle, --trace, --fault, --knob and --segment.\n";

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        INID_LONG_OPTIONS,
        CLI_COMMON_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    cli_init("cluster-fake-inid", usage_text);
    const char *config = NULL, *tag = NULL, *run_dir = NULL;
    int id = -1, c;
    pid_t launcher_pid = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'c': config = optarg; break;
        case 'i': id = (int)cli_parse_long("--ini", optarg, 0, INI_MAX_INIS - 1); break;
        case 't': tag = optarg; break;
        case 'r': run_dir = optarg; break;
        case 'L': launcher_pid = (pid_t)cli_parse_long("--launcher-pid", optarg, 1, INT32_MAX); break;
        case 'p': case 'I': case 'T': case 'f': case 'P': case 'k': case 'C': case 'S':
            break;                                                                  /* inid's; not ours */
        default: cli_common_option(c, argv);
        }
    }
    /* Arguments after "--" are inid's EAL arguments: ignored here. */
    static struct ini_config cfg;
    char err[1024];
    if (!config || !tag || !run_dir || id < 0)
        cli_bad_arg("--config, --ini, --tag and --run-dir are required");
    if (ini_config_load(config, &cfg, err, sizeof err) < 0)
        cli_bad_arg("%s", err);
    if (id >= cfg.n_inis)
        cli_bad_arg("--ini %d: %s has INIs 0..%d", id, config, cfg.n_inis - 1);
    const struct ini_node_cfg *me = &cfg.inis[id];
    char seg_name[64];
    ini_segment_name(seg_name, sizeof seg_name, tag, me->cluster);
    struct ini_segment *seg = ini_segment_attach(seg_name, me->cluster, err, sizeof err);
    if (!seg) {
        fprintf(stderr, "fake-inid %d: %s\n", id, err);
        return 1;
    }
    signal(SIGTERM, fault_for("FAKE_INID_STUBBORN", id, 0) >= 0 ? SIG_IGN : on_signal);
    signal(SIGINT, on_signal);
    signal(SIGPIPE, SIG_IGN);   /* as inid: a dead peer's doorbell is not fatal */
    printf("fake-inid %d: cluster %d, segment %s\n", id, me->cluster, seg_name);
    fflush(stdout);
    if (fault_for("FAKE_INID_FAIL", id, 0) >= 0) {
        fprintf(stderr, "fake-inid %d: failing before ready, as asked\n", id);
        return 3;
    }
    long crash_ms = fault_for("FAKE_INID_CRASH", id, 0);
    uint64_t t_start = now_ns();
    const char *dly = getenv("INI_FAKE_DELAY_US");
    uint64_t delay_ns = dly ? (uint64_t)(atof(dly) * 1000.0) : 0;
    int n = cfg.n_inis, my_local = me->index;
    const struct ini_cluster_cfg *mc = &cfg.clusters[me->cluster];
    /* consumers: the PE -> INI rings; producers: delivery rings */
    struct ini_ring_cons out_c[INI_MAX_PES_PER_CLUSTER], in_c[INI_MAX_INIS];
    struct ini_ring_prod deliv[INI_MAX_PES_PER_CLUSTER], to_mbox[INI_MAX_INIS];
    struct mbox *peer[INI_MAX_INIS] = { 0 };
    int peer_fd[INI_MAX_INIS];
    for (uint32_t p = 0; p < seg->n_pes; p++) {
        ini_ring_cons_attach(&out_c[p], ini_segment_ring(seg, (int)p, my_local, INI_TO_INI));
        ini_ring_prod_attach(&deliv[p], ini_segment_ring(seg, (int)p, my_local, INI_TO_PE));
    }
    for (int i = 0; i < n; i++)
        peer_fd[i] = -1;
    (void)mc;
    /* wake FIFO and mailbox */
    struct ini_seg_ini *si = &seg->inis[me->index];
    snprintf(si->wake_path, sizeof si->wake_path, "/tmp/ini-%s-%d.wake", tag, id);
    unlink(si->wake_path);
    int wake_fd = -1;
    if (mkfifo(si->wake_path, 0600) == 0)
        wake_fd = open(si->wake_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    char mname[64];
    mbox_name(mname, sizeof mname, tag, id);
    struct mbox *mb = mbox_map(mname, n, 1);
    if (!mb || wake_fd < 0) {
        fprintf(stderr, "fake-inid %d: mailbox/doorbell: %s\n", id, strerror(errno));
        return 1;
    }
    mb->n_src = (uint32_t)n;
    mb->ring_off = 4096;
    snprintf(mb->wake_path, sizeof mb->wake_path, "%s", si->wake_path);
    for (int i = 0; i < n; i++) {
        ini_ring_init(mbox_ring(mb, i), MBOX_RING);
        ini_ring_cons_attach(&in_c[i], mbox_ring(mb, i));
    }
    /* pending records (taken from a ring, not yet forwarded) */
    struct ini_rec *pend_out[INI_MAX_PES_PER_CLUSTER] = { 0 }, *pend_in[INI_MAX_INIS] = { 0 };
    uint64_t pend_out_end[INI_MAX_PES_PER_CLUSTER], pend_in_end[INI_MAX_INIS];
    uint64_t processed = 0, forwarded = 0, delivered = 0;
    if (fault_for("FAKE_INID_NEVER_READY", id, 0) < 0) {
        atomic_store(&seg->inis[me->index].pid, (int32_t)getpid());
        atomic_store(&seg->inis[me->index].state, INI_SEG_READY);
        printf("fake-inid %d: ready\n", id);
        fflush(stdout);
    }

    while (!stop) {
        int work = 0;
        uint64_t next_due = 0;
        /* 1. outbound: PE -> INI rings */
        for (uint32_t p = 0; p < seg->n_pes; p++) {
            for (int b = 0; b < 32; b++) {
                if (!pend_out[p] && !(pend_out[p] = ini_ring_next(&out_c[p], &pend_out_end[p])))
                    break;
                struct ini_rec *r = pend_out[p];
                struct ini_am_hdr *h = ini_fabric_out_am(r);
                uint32_t mlen = (uint32_t)sizeof *h + h->len;
                int dc = cfg.pes[h->dst_pe].cluster;
                struct ini_rec *w;
                if (dc == me->cluster) {
                    int dl = cfg.pes[h->dst_pe].local;
                    if (ini_fabric_put(&deliv[dl], h, mlen) < 0)
                        break;
                    ini_fabric_wake_pe(seg, dl);
                    delivered++;
                } else {
                    const struct ini_cluster_cfg *dcc = &cfg.clusters[dc];
                    int di = dcc->inis[my_local % dcc->n_inis];
                    if (!peer[di]) {
                        char pn[64];
                        mbox_name(pn, sizeof pn, tag, di);
                        if (!(peer[di] = mbox_map(pn, n, 0)))
                            break;   /* not up yet */
                        ini_ring_prod_attach(&to_mbox[di], mbox_ring(peer[di], id));
                    }
                    if (!(w = ini_fabric_reserve(&to_mbox[di], mlen + 8)))
                        break;
                    uint64_t t = now_ns();
                    memcpy(w->data, &t, 8);
                    memcpy(w->data + 8, h, mlen);
                    ini_fabric_publish(&to_mbox[di]);
                    if (ini_fabric_ini_sleeps(&peer[di]->sleeping) &&
                        ini_fabric_ring_fifo(&peer_fd[di], peer[di]->wake_path) < 0) {
                        close(peer_fd[di]);
                        peer_fd[di] = -1;
                    }
                    forwarded++;
                }
                ini_ring_release_to(&out_c[p], pend_out_end[p]);
                pend_out[p] = NULL;
                processed++;
                work = 1;
            }
        }
        atomic_store_explicit(&si->processed, processed, memory_order_relaxed);
        /* 2. inbound: mailbox -> PE delivery rings, after the delay */
        uint64_t now = delay_ns ? now_ns() : 0;
        for (int i = 0; i < n; i++) {
            for (int b = 0; b < 32; b++) {
                if (!pend_in[i] && !(pend_in[i] = ini_ring_next(&in_c[i], &pend_in_end[i])))
                    break;
                struct ini_rec *r = pend_in[i];
                if (delay_ns) {
                    uint64_t t;
                    memcpy(&t, r->data, 8);
                    if (now < t + delay_ns) {
                        if (!next_due || t + delay_ns < next_due)
                            next_due = t + delay_ns;
                        break;
                    }
                }
                struct ini_am_hdr *h = (struct ini_am_hdr *)(r->data + 8);
                uint32_t mlen = (uint32_t)sizeof *h + h->len;
                int dl = cfg.pes[h->dst_pe].local;
                if (ini_fabric_put(&deliv[dl], h, mlen) < 0)
                    break;
                ini_fabric_wake_pe(seg, dl);
                ini_ring_release_to(&in_c[i], pend_in_end[i]);
                pend_in[i] = NULL;
                delivered++;
                work = 1;
            }
        }
        if (crash_ms >= 0 && (long)((now_ns() - t_start) / 1000000) >= crash_ms) {
            fprintf(stderr, "fake-inid %d: crashing, as asked\n", id);
            abort();
        }
        if (work)
            continue;
        /* 3. idle: sleep on the FIFO until rung, the next delayed message
         * is due, or 10 ms (to notice a crash request). */
        atomic_store_explicit(&si->sleeping, 1, memory_order_relaxed);
        atomic_store_explicit(&mb->sleeping, 1, memory_order_relaxed);
        atomic_thread_fence(memory_order_seq_cst);
        int pending = 0;
        for (uint32_t p = 0; p < seg->n_pes && !pending; p++)
            pending = pend_out[p] || ini_ring_has_unread(&out_c[p]);
        for (int i = 0; i < n && !pending && !next_due; i++)
            pending = pend_in[i] || ini_ring_has_unread(&in_c[i]);
        if (!pending) {
            uint64_t ns = 10000000;
            if (next_due) {
                uint64_t t = now_ns();
                ns = next_due > t ? next_due - t : 0;
            }
            if (ns > 20000 || !next_due) {
                struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
                struct pollfd pfd = { wake_fd, POLLIN, 0 };
                if (ppoll(&pfd, 1, &ts, NULL) > 0) {
                    char junk[256];
                    while (read(wake_fd, junk, sizeof junk) > 0)
                        ;
                }
            } else {
                while (now_ns() < next_due && !stop)
                    _mm_pause();
            }
        }
        atomic_store_explicit(&si->sleeping, 0, memory_order_relaxed);
        atomic_store_explicit(&mb->sleeping, 0, memory_order_relaxed);
    }
    long slept_ms = (long)((now_ns() - t_start) / 1000000);
    atomic_store(&seg->inis[me->index].state, INI_SEG_STOPPED);
    ini_fabric_wake_all_pes(seg);
    char path[INI_PATH_LEN + 64];
    snprintf(path, sizeof path, "%s/ini%d.counters.json", run_dir, id);
    FILE *f = fopen(path, "w");
    if (f) {
        /* No network: no frames. */
        struct fake_counters fc = { 0, processed, forwarded, delivered };
        fprintf(f, "{\n  \"ini\": %d,\n  \"summary\": \"fake daemon, slept %ld ms\",\n  ", id, slept_ms);
        ini_counters_json(f, fake_counters, INI_COUNTERS_N(fake_counters), &fc, ",\n  ");
        fprintf(f, "\n}\n");
        fclose(f);
    }
    printf("fake-inid %d: stopped\n", id);
    unlink(si->wake_path);          /* si lies in the segment: before detaching it */
    ini_segment_detach(seg);
    shm_unlink(mname);
    if (launcher_pid && getppid() != launcher_pid)   /* as inid: the launcher died */
        ini_segment_unlink(seg_name);
    return 0;
}
