/*
 * cluster-fake-inid - a stand-in for inid with the same command line, for
 * testing the launcher without DPDK: it attaches to its cluster's segment,
 * marks its INI READY, sleeps until SIGTERM/SIGINT, marks it STOPPED,
 * writes RUN_DIR/ini<ID>.counters.json and exits 0.  It moves no messages.
 *
 * Misbehaviour on request, to exercise the launcher's error paths:
 *   FAKE_INID_FAIL=ID       INI ID exits with status 3 before READY
 *   FAKE_INID_CRASH=ID:MS   INI ID aborts MS milliseconds after READY
 *   FAKE_INID_STUBBORN=ID   INI ID ignores SIGTERM (the launcher must SIGKILL)
 *   FAKE_INID_NEVER_READY=ID  INI ID never marks itself READY
 * Unknown options are rejected like inid does (exit 2).
 */
#include <getopt.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "segment.h"

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

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "config", required_argument, NULL, 'c' }, { "ini", required_argument, NULL, 'i' },
        { "tag", required_argument, NULL, 't' },    { "run-dir", required_argument, NULL, 'r' },
        { "ini-policy", required_argument, NULL, 'p' }, { "idle", required_argument, NULL, 'I' },
        { "trace", required_argument, NULL, 'T' },  { "fault", required_argument, NULL, 'f' },
        { NULL, 0, NULL, 0 },
    };
    const char *config = NULL, *tag = NULL, *run_dir = NULL;
    int id = -1, c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'c': config = optarg; break;
        case 'i': id = atoi(optarg); break;
        case 't': tag = optarg; break;
        case 'r': run_dir = optarg; break;
        case 'p': case 'I': case 'T': case 'f': break;
        default:
            fprintf(stderr, "fake-inid: unknown option\n");
            return 2;
        }
    }
    static struct ini_config cfg;
    char err[1024];
    if (!config || !tag || !run_dir || id < 0) {
        fprintf(stderr, "fake-inid: --config, --ini, --tag and --run-dir are required\n");
        return 2;
    }
    if (ini_config_load(config, &cfg, err, sizeof err) < 0 || id >= cfg.n_inis) {
        fprintf(stderr, "fake-inid: %s\n", id >= cfg.n_inis ? "no such INI" : err);
        return 2;
    }
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
    printf("fake-inid %d: cluster %d, segment %s\n", id, me->cluster, seg_name);
    fflush(stdout);
    if (fault_for("FAKE_INID_FAIL", id, 0) >= 0) {
        fprintf(stderr, "fake-inid %d: failing before ready, as asked\n", id);
        return 3;
    }
    if (fault_for("FAKE_INID_NEVER_READY", id, 0) < 0) {
        atomic_store(&seg->inis[me->index].pid, (int32_t)getpid());
        atomic_store(&seg->inis[me->index].state, INI_SEG_READY);
        printf("fake-inid %d: ready\n", id);
        fflush(stdout);
    }
    long crash_ms = fault_for("FAKE_INID_CRASH", id, 0);
    long slept_ms = 0;
    while (!stop) {
        usleep(10000);
        slept_ms += 10;
        if (crash_ms >= 0 && slept_ms >= crash_ms) {
            fprintf(stderr, "fake-inid %d: crashing, as asked\n", id);
            abort();
        }
    }
    atomic_store(&seg->inis[me->index].state, INI_SEG_STOPPED);
    for (uint32_t p = 0; p < seg->n_pes; p++)
        ini_doorbell_ring(&seg->pes[p].doorbell);
    char path[INI_PATH_LEN + 64];
    snprintf(path, sizeof path, "%s/ini%d.counters.json", run_dir, id);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "{\n  \"ini\": %d,\n  \"summary\": \"fake daemon, slept %ld ms\",\n"
                   "  \"frames\": 0\n}\n", id, slept_ms);
        fclose(f);
    }
    printf("fake-inid %d: stopped\n", id);
    ini_segment_detach(seg);
    return 0;
}
