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
 * into the mailbox of an INI of the destination cluster (the destination
 * node's INI under the static policy, as inid's static INI policy picks
 * it; a message for the own cluster is delivered directly); the owner of the
 * mailbox copies it into the destination PE's delivery ring.  Idle INIs
 * sleep on a FIFO (the segment's wake path, which compute nodes ring, and
 * which other fake INIs ring after filling the mailbox).
 *
 * INI_FAKE_DELAY_US=N (environment, inherited through the launcher): every
 * inter-cluster message is held N microseconds (may be fractional) after it
 * entered the mailbox before delivery: a fixed added latency per message,
 * with no contention (the thesis's "INI delay" baseline, section 5.2).
 *
 * --knob O=... (O_dist, O_mode) and --trace MODE, as inid takes them: the
 * same O server as inid's in front of this forwarder, and the same trace
 * (fake_service.h): the calibrated mode's INI with no network stack, the
 * ablation of docs/experiments.md.  Without them it only forwards.
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
#include "clock.h"
#include "inid_cli.h"
#include "config.h"
#include "counters.h"
#include "fabric.h"
#include "fake_service.h"

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
static uint64_t now_ns(void) { return ini_mono_ns(); }

/* The counters file, RUN_DIR/ini<ID>.counters.json (ini/util/counters.h). */
struct fake_counters {
    uint64_t frames, processed, forwarded, delivered;
};
static const struct ini_counter fake_counters[] = {
    INI_COUNTER_SAME(struct fake_counters, frames),
    INI_COUNTER_SAME(struct fake_counters, processed),
    INI_COUNTER_SAME(struct fake_counters, forwarded),
    INI_COUNTER_SAME(struct fake_counters, delivered),
};

/* Everything the stand-in owns, its one global. */
struct fake {
    struct ini_config cfg;
    const struct ini_node_cfg *me;
    int id, n;                          /* my INI id; INIs of the machine */
    const char *tag, *run_dir;
    pid_t launcher_pid;
    char seg_name[64], mname[64];
    struct ini_segment *seg;
    struct ini_seg_ini *si;             /* my entry in the segment */
    int wake_fd;                        /* my doorbell FIFO */
    struct mbox *mb;                    /* my mailbox */
    uint64_t delay_ns;                  /* INI_FAKE_DELAY_US */
    /* consumers: the PE -> INI rings and my mailbox; producers: the
     * delivery rings and the other INIs' mailboxes */
    struct ini_ring_cons out_c[INI_MAX_PES_PER_CLUSTER], in_c[INI_MAX_INIS];
    struct ini_ring_prod deliv[INI_MAX_PES_PER_CLUSTER], to_mbox[INI_MAX_INIS];
    struct mbox *peer[INI_MAX_INIS];
    int peer_fd[INI_MAX_INIS];
    /* pending records (taken from a ring, not yet forwarded) */
    struct ini_rec *pend_out[INI_MAX_PES_PER_CLUSTER], *pend_in[INI_MAX_INIS];
    uint64_t pend_out_end[INI_MAX_PES_PER_CLUSTER], pend_in_end[INI_MAX_INIS];
    uint64_t next_due;                  /* the first delayed message is due then (ns; 0: none) */
    struct fake_counters count;
    const char *knob, *trace, *pe_policy, *ini_policy;   /* inid's --knob, --trace, --policy, --ini-policy */
    struct fake_service svc;            /* O and the trace (fake_service.h) */
};
static struct fake fake;

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
    "ignores inid's --idle, --fault, --segment and --resume; --knob O (O_dist, O_mode) and --trace\n"
    "give it inid's O server and trace (--policy, --ini-policy: recorded in the trace).\n";

/* inid's command line (inid_cli.h); loads the configuration.  Bad input
 * exits 2. */
static void parse_args(struct fake *f, int argc, char **argv)
{
    static const struct option opts[] = {
        INID_LONG_OPTIONS,
        CLI_COMMON_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    const char *config = NULL;
    int c;
    f->id = -1;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'c': config = optarg; break;
        case 'i': f->id = (int)cli_parse_long("--ini", optarg, 0, INI_MAX_INIS - 1); break;
        case 't': f->tag = optarg; break;
        case 'r': f->run_dir = optarg; break;
        case 'L': f->launcher_pid = (pid_t)cli_parse_long("--launcher-pid", optarg, 1, INT32_MAX); break;
        case 'k': f->knob = optarg; break;
        case 'T': f->trace = optarg; break;
        case 'P': f->pe_policy = optarg; break;
        case 'p': f->ini_policy = optarg; break;
        case 'I': case 'f': case 'C': case 'S': case 'l': case 'R': case 's':
            break;                                                                  /* inid's; not ours */
        case 'U':
            break;      /* --resume: the stand-in keeps no state; what it held when it died is lost */
        default: cli_common_option(c, argv);
        }
    }
    /* Arguments after "--" are inid's EAL arguments: ignored here. */
    char err[1024];
    if (!config || !f->tag || !f->run_dir || f->id < 0)
        cli_bad_arg("--config, --ini, --tag and --run-dir are required");
    if (ini_config_load(config, &f->cfg, err, sizeof err) < 0)
        cli_bad_arg("%s", err);
    if (f->id >= f->cfg.n_inis)
        cli_bad_arg("--ini %d: %s has INIs 0..%d", f->id, config, f->cfg.n_inis - 1);
    f->me = &f->cfg.inis[f->id];
    f->n = f->cfg.n_inis;
}

/* Attaches the rings of my cluster's segment (ini_segment_attach first);
 * makes my doorbell FIFO and my mailbox.  0, or -1 after saying why. */
static int fabric_init(struct fake *f)
{
    int my_local = f->me->index;
    for (uint32_t p = 0; p < f->seg->n_pes; p++) {
        ini_ring_cons_attach(&f->out_c[p], ini_segment_ring(f->seg, (int)p, my_local, INI_TO_INI));
        ini_ring_prod_attach(&f->deliv[p], ini_segment_ring(f->seg, (int)p, my_local, INI_TO_PE));
    }
    for (int i = 0; i < f->n; i++)
        f->peer_fd[i] = -1;
    f->si = &f->seg->inis[my_local];
    snprintf(f->si->wake_path, sizeof f->si->wake_path, "/tmp/ini-%s-%d.wake", f->tag, f->id);
    unlink(f->si->wake_path);
    f->wake_fd = -1;
    if (mkfifo(f->si->wake_path, 0600) == 0)
        f->wake_fd = open(f->si->wake_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    mbox_name(f->mname, sizeof f->mname, f->tag, f->id);
    f->mb = mbox_map(f->mname, f->n, 1);
    if (!f->mb || f->wake_fd < 0) {
        fprintf(stderr, "fake-inid %d: mailbox/doorbell: %s\n", f->id, strerror(errno));
        return -1;
    }
    f->mb->n_src = (uint32_t)f->n;
    f->mb->ring_off = 4096;
    snprintf(f->mb->wake_path, sizeof f->mb->wake_path, "%s", f->si->wake_path);
    for (int i = 0; i < f->n; i++) {
        ini_ring_init(mbox_ring(f->mb, i), MBOX_RING);
        ini_ring_cons_attach(&f->in_c[i], mbox_ring(f->mb, i));
    }
    return 0;
}

/* A compute node's message h (mlen bytes) for another cluster: into the
 * mailbox of the destination node's INI under the static policy (as
 * inid's static INI policy picks it), behind its send time; the INI rung
 * if it sleeps.  0, or -1 when it cannot go now (its mailbox is full, or
 * not there yet). */
static int forward(struct fake *f, const struct ini_am_hdr *h, uint32_t mlen)
{
    int di = f->cfg.pes[h->dst_pe].static_ini;
    if (!f->peer[di]) {
        char pn[64];
        mbox_name(pn, sizeof pn, f->tag, di);
        if (!(f->peer[di] = mbox_map(pn, f->n, 0)))
            return -1;   /* not up yet */
        ini_ring_prod_attach(&f->to_mbox[di], mbox_ring(f->peer[di], f->id));
    }
    struct ini_rec *w = ini_fabric_reserve(&f->to_mbox[di], mlen + 8);
    if (!w)
        return -1;
    uint64_t t = now_ns();
    memcpy(w->data, &t, 8);
    memcpy(w->data + 8, h, mlen);
    ini_fabric_publish(&f->to_mbox[di]);
    if (ini_fabric_consumer_sleeps(&f->peer[di]->sleeping) &&
        ini_fabric_ring_fifo(&f->peer_fd[di], f->peer[di]->wake_path) < 0) {
        close(f->peer_fd[di]);
        f->peer_fd[di] = -1;
    }
    f->count.forwarded++;
    return 0;
}

/* 1. outbound: the PE -> INI rings, up to 32 records each.  Returns 1 if
 * it did work. */
static int poll_pes(struct fake *f)
{
    int work = 0;
    uint64_t turn = fake_service_turn();      /* what this turn takes arrived then */
    uint32_t taken = 0;
    for (uint32_t p = 0; p < f->seg->n_pes; p++) {
        uint64_t limit = fake_service_limit(&f->out_c[p]);
        for (int b = 0; b < 32; b++) {
            if (!f->pend_out[p] && (f->out_c[p].cursor >= limit ||
                                    !(f->pend_out[p] = ini_ring_next(&f->out_c[p], &f->pend_out_end[p]))))
                break;
            struct ini_am_hdr *h = ini_fabric_out_am(f->pend_out[p]);
            uint32_t mlen = (uint32_t)sizeof *h + h->len;
            int dc = f->cfg.pes[h->dst_pe].cluster;
            uint64_t begun = fake_service_serve(&f->svc, turn, dc != f->me->cluster);
            if (dc == f->me->cluster) {
                int dl = f->cfg.pes[h->dst_pe].local;
                if (ini_fabric_put(&f->deliv[dl], h, mlen) < 0)
                    break;
                ini_fabric_wake_pe(f->seg, dl);
                f->count.delivered++;
                fake_service_record(&f->svc, INI_TRACE_LOCAL, h, INI_TRACE_NO_PEER, turn, begun, taken++);
            } else if (forward(f, h, mlen) < 0) {
                break;
            } else {
                fake_service_record(&f->svc, INI_TRACE_OUT, h, f->cfg.pes[h->dst_pe].static_ini, turn, begun, taken++);
            }
            ini_ring_release_to(&f->out_c[p], f->pend_out_end[p]);
            f->pend_out[p] = NULL;
            f->count.processed++;
            work = 1;
        }
    }
    atomic_store_explicit(&f->si->processed, f->count.processed, memory_order_relaxed);
    return work;
}

/* 2. inbound: my mailbox -> the PEs' delivery rings, each message after
 * its delay (f->next_due: when the first one held back is due).  Returns
 * 1 if it did work. */
static int poll_mailbox(struct fake *f)
{
    int work = 0;
    uint64_t now = f->delay_ns ? now_ns() : 0, turn = fake_service_turn();
    uint32_t taken = 0;
    f->next_due = 0;
    for (int i = 0; i < f->n; i++) {
        uint64_t limit = fake_service_limit(&f->in_c[i]);
        for (int b = 0; b < 32; b++) {
            if (!f->pend_in[i] && (f->in_c[i].cursor >= limit ||
                                   !(f->pend_in[i] = ini_ring_next(&f->in_c[i], &f->pend_in_end[i]))))
                break;
            struct ini_rec *r = f->pend_in[i];
            if (f->delay_ns) {
                uint64_t t;
                memcpy(&t, r->data, 8);
                if (now < t + f->delay_ns) {
                    if (!f->next_due || t + f->delay_ns < f->next_due)
                        f->next_due = t + f->delay_ns;
                    break;
                }
            }
            struct ini_am_hdr *h = (struct ini_am_hdr *)(r->data + 8);
            int dl = f->cfg.pes[h->dst_pe].local;
            uint64_t begun = fake_service_serve(&f->svc, turn, 1);
            if (ini_fabric_put(&f->deliv[dl], h, (uint32_t)sizeof *h + h->len) < 0)
                break;
            ini_fabric_wake_pe(f->seg, dl);
            fake_service_record(&f->svc, INI_TRACE_IN, h, i, turn, begun, taken++);
            ini_ring_release_to(&f->in_c[i], f->pend_in_end[i]);
            f->pend_in[i] = NULL;
            f->count.delivered++;
            work = 1;
        }
    }
    return work;
}

/* 3. idle: the consumer's half of fabric.h, announced in the segment
 * (compute nodes ring) and in my mailbox (other stand-ins ring).  The
 * last look: records in a ring, or, unless a delayed message is due
 * first, in my mailbox. */
static int fake_pending(void *arg)
{
    struct fake *f = arg;
    for (uint32_t p = 0; p < f->seg->n_pes; p++)
        if (f->pend_out[p] || ini_ring_has_unread(&f->out_c[p]))
            return 1;
    for (int i = 0; i < f->n && !f->next_due; i++)
        if (f->pend_in[i] || ini_ring_has_unread(&f->in_c[i]))
            return 1;
    return 0;
}

/* Sleeps on the FIFO until rung, the next delayed message is due, or
 * 10 ms (to notice a crash request); spins for a delay under 20 us. */
static void fake_sleep(void *arg)
{
    struct fake *f = arg;
    uint64_t ns = 10000000;
    if (f->next_due) {
        uint64_t t = now_ns();
        ns = f->next_due > t ? f->next_due - t : 0;
    }
    if (ns > 20000 || !f->next_due) {
        struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
        struct pollfd pfd = { f->wake_fd, POLLIN, 0 };
        if (ppoll(&pfd, 1, &ts, NULL) > 0) {
            char junk[256];
            while (read(f->wake_fd, junk, sizeof junk) > 0)
                ;
        }
    } else {
        while (now_ns() < f->next_due && !stop)
            _mm_pause();
    }
}

static void write_counters(struct fake *f, long slept_ms)
{
    char path[INI_PATH_LEN + 64];
    snprintf(path, sizeof path, "%s/ini%d.counters.json", f->run_dir, f->id);
    FILE *out = fopen(path, "w");
    if (!out)
        return;
    /* No network: no frames. */
    fprintf(out, "{\n  \"ini\": %d,\n  \"summary\": \"fake daemon, slept %ld ms\",\n  ", f->id, slept_ms);
    ini_counters_json(out, fake_counters, INI_COUNTERS_N(fake_counters), &f->count, ",\n  ");
    fprintf(out, "\n}\n");
    fclose(out);
}

int main(int argc, char **argv)
{
    struct fake *f = &fake;
    cli_init("cluster-fake-inid", usage_text);
    parse_args(f, argc, argv);
    char err[1024];
    ini_segment_name(f->seg_name, sizeof f->seg_name, f->tag, f->me->cluster);
    f->seg = ini_segment_attach(f->seg_name, f->me->cluster, err, sizeof err);
    if (!f->seg) {
        fprintf(stderr, "fake-inid %d: %s\n", f->id, err);
        return 1;
    }
    signal(SIGTERM, fault_for("FAKE_INID_STUBBORN", f->id, 0) >= 0 ? SIG_IGN : on_signal);
    signal(SIGINT, on_signal);
    signal(SIGPIPE, SIG_IGN);   /* as inid: a dead peer's doorbell is not fatal */
    printf("fake-inid %d: cluster %d, segment %s\n", f->id, f->me->cluster, f->seg_name);
    fflush(stdout);
    if (fault_for("FAKE_INID_FAIL", f->id, 0) >= 0) {
        fprintf(stderr, "fake-inid %d: failing before ready, as asked\n", f->id);
        return 3;
    }
    if (fabric_init(f) < 0 ||
        fake_service_init(&f->svc, &f->cfg, f->me, f->knob, f->trace, f->pe_policy, f->ini_policy) < 0)
        return 1;
    long crash_ms = fault_for("FAKE_INID_CRASH", f->id, 0);
    uint64_t t_start = now_ns();
    const char *dly = getenv("INI_FAKE_DELAY_US");
    f->delay_ns = dly ? (uint64_t)(atof(dly) * 1000.0) : 0;
    if (fault_for("FAKE_INID_NEVER_READY", f->id, 0) < 0) {
        atomic_store(&f->si->pid, (int32_t)getpid());
        atomic_store(&f->si->state, INI_SEG_READY);
        printf("fake-inid %d: ready\n", f->id);
        fflush(stdout);
    }

    _Atomic uint32_t *sleeping[2] = { &f->si->sleeping, &f->mb->sleeping };
    while (!stop) {
        int work = poll_pes(f);
        work |= poll_mailbox(f);
        if (crash_ms >= 0 && (long)((now_ns() - t_start) / 1000000) >= crash_ms) {
            fprintf(stderr, "fake-inid %d: crashing, as asked\n", f->id);
            abort();
        }
        if (!work)
            ini_fabric_sleep(sleeping, 2, 1, fake_pending, fake_sleep, f);
    }
    long slept_ms = (long)((now_ns() - t_start) / 1000000);
    atomic_store(&f->si->state, INI_SEG_STOPPED);
    ini_fabric_wake_all_pes(f->seg);
    write_counters(f, slept_ms);
    fake_service_end(&f->svc, f->run_dir, f->id);
    printf("fake-inid %d: stopped\n", f->id);
    unlink(f->si->wake_path);          /* si lies in the segment: before detaching it */
    ini_segment_detach(f->seg);
    shm_unlink(f->mname);
    if (f->launcher_pid && getppid() != f->launcher_pid)   /* as inid: the launcher died */
        ini_segment_unlink(f->seg_name);
    return 0;
}
