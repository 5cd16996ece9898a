/*
 * test_cn_barrier.c - the compute-node library's barrier and compute
 * bursts (ini_cn.h: ini_cn_barrier, ini_work_begin, ini_work_end).
 *
 * The barrier, over real daemons: the test runs itself under the
 * launcher beside it (BIN/ini-cluster run CONFIG -- BIN/test_cn_barrier
 * --node BOARD ROUNDS, BIN being build/bin or SAN=1's build-san/bin),
 * one process per cluster, every node making ROUNDS
 * barriers.  The nodes of all clusters share a board, a POSIX
 * shared-memory object the test creates: before barrier k a node counts
 * its arrival at k (after a sleep that differs by node and round, so
 * that some come late); after it, it reads the count, which must be every
 * node of the machine: a node that left before all arrived is counted as
 * early.  The test asserts the launcher's exit 0, ROUNDS x nodes arrivals
 * and departures, and no early departure, on conf/default.cfg (2
 * clusters of 2 nodes) and on conf/4x2.cfg under round-robin (4 clusters,
 * 2 INIs each: the arrival messages of one pair overtake each other).
 *
 * The compute burst, in this process on a segment made here (no INI):
 * MGS_DILATE=5 makes a burst of about 20 ms of CPU last 5 times its CPU
 * time; without it the burst is not stretched; MGS_DILATE=abc is refused
 * at attach with one line naming it; INI_CN_BARRIER_HANDLER cannot be
 * registered by the program.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "config.h"
#include "ini_cn.h"
#include "segment.h"

#define MAX_ROUNDS 64
#define STALL_US 60000000ull       /* a barrier stalled a minute is a failure */

/* What every node of every cluster writes, in shared memory. */
struct board {
    atomic_uint arrived[MAX_ROUNDS];   /* nodes that began barrier k */
    atomic_uint left[MAX_ROUNDS];      /* nodes that returned from it */
    atomic_uint early;                 /* returned before every node arrived */
    atomic_uint failed;                /* ini_cn_barrier returned -1 */
    unsigned nodes;                    /* of the machine */
};

static struct board *board_map(const char *name, int create)
{
    int fd = shm_open(name, create ? O_RDWR | O_CREAT | O_EXCL : O_RDWR, 0600);
    if (fd < 0)
        return NULL;
    if (create && ftruncate(fd, sizeof(struct board)) != 0) {
        close(fd);
        return NULL;
    }
    void *p = mmap(NULL, sizeof(struct board), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

/* ---- the program each cluster runs (--node) ---- */

struct node_run {
    struct board *b;
    int rounds;
};

static int node_main(struct ini_pe *pe, void *arg)
{
    const struct node_run *nr = arg;
    int id = ini_pe_id(pe);
    for (int k = 0; k < nr->rounds; k++) {
        /* A different lateness per node and round, up to 2 ms. */
        usleep((useconds_t)((id * 397 + k * 151) % 2000));
        atomic_fetch_add(&nr->b->arrived[k], 1);
        if (ini_cn_barrier(pe, STALL_US) != 0) {
            fprintf(stderr, "test_cn_barrier: PE %d: barrier %d: %s\n", id, k, strerror(errno));
            atomic_fetch_add(&nr->b->failed, 1);
            return 1;
        }
        if (atomic_load(&nr->b->arrived[k]) != nr->b->nodes)
            atomic_fetch_add(&nr->b->early, 1);
        atomic_fetch_add(&nr->b->left[k], 1);
    }
    return 0;
}

static int node(const char *board_name, const char *rounds)
{
    char err[256];
    struct node_run nr = { board_map(board_name, 0), atoi(rounds) };
    if (!nr.b || nr.rounds < 1 || nr.rounds > MAX_ROUNDS) {
        fprintf(stderr, "test_cn_barrier: --node %s %s: no board or bad rounds\n", board_name, rounds);
        return 2;
    }
    struct ini_cn *cn = ini_cn_attach_env(err, sizeof err);
    if (!cn) {
        fprintf(stderr, "test_cn_barrier: %s\n", err);
        return 1;
    }
    int failed = ini_cn_run(cn, node_main, &nr);
    printf("test_cn_barrier: cluster %d: %d barriers, %d failed nodes\n", ini_cn_cluster(cn), nr.rounds, failed);
    ini_cn_detach(cn);
    return failed != 0;
}

/* ---- the barrier over real daemons ---- */

/* Runs ROUNDS barriers on cfg_path under the launcher; the board's counts
 * are asserted. */
static void barrier_run(const char *cfg_path, const char *policy, int rounds)
{
    char err[256], board_name[64], run_dir[128], rounds_s[16], self[4096], launcher[4200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    assert_non_null(slash);
    snprintf(launcher, sizeof launcher, "%.*s/ini-cluster", (int)(slash - self), self);
    struct ini_config *cfg = malloc(sizeof *cfg);
    assert_non_null(cfg);
    assert_int_equal(ini_config_load(cfg_path, cfg, err, sizeof err), 0);
    snprintf(board_name, sizeof board_name, "/ini-test-barrier-%d", (int)getpid());
    snprintf(run_dir, sizeof run_dir, "/tmp/ini-test-barrier-%d", (int)getpid());
    snprintf(rounds_s, sizeof rounds_s, "%d", rounds);
    shm_unlink(board_name);
    struct board *b = board_map(board_name, 1);
    assert_non_null(b);
    b->nodes = (unsigned)cfg->n_pes;
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        int out = open("/dev/null", O_WRONLY);
        dup2(out, 1);
        execl(launcher, "ini-cluster", "run", cfg_path, "--run-dir", run_dir, "--timeout", "120", "--policy", policy,
              "--ini-policy", policy, "--", self, "--node", board_name, rounds_s, (char *)NULL);
        _exit(127);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    char rm[160];
    snprintf(rm, sizeof rm, "rm -rf %s", run_dir);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && system(rm) != 0)
        fprintf(stderr, "cannot remove %s\n", run_dir);
    shm_unlink(board_name);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(atomic_load(&b->failed), 0);
    assert_int_equal(atomic_load(&b->early), 0);
    for (int k = 0; k < rounds; k++) {
        assert_int_equal(atomic_load(&b->arrived[k]), cfg->n_pes);
        assert_int_equal(atomic_load(&b->left[k]), cfg->n_pes);
    }
    munmap(b, sizeof *b);
    free(cfg);
}

static void test_barrier_two_clusters(void **state)
{
    (void)state;
    barrier_run("conf/default.cfg", "static", 40);
}

static void test_barrier_four_clusters_round_robin(void **state)
{
    (void)state;
    barrier_run("conf/4x2.cfg", "round-robin", 40);
}

/* ---- compute bursts, on a segment made here ---- */

#define CFG "conf/default.cfg"

static char seg_name[64];
static struct ini_segment *seg;

static int seg_setup(void **state)
{
    (void)state;
    char err[256];
    static struct ini_config cfg;
    if (ini_config_load(CFG, &cfg, err, sizeof err) < 0)
        return -1;
    snprintf(seg_name, sizeof seg_name, "/ini-test-work-%d", (int)getpid());
    seg = ini_segment_create(seg_name, &cfg, 0, 1 << 16);
    return seg ? 0 : -1;
}

static int seg_teardown(void **state)
{
    (void)state;
    ini_segment_detach(seg);
    ini_segment_unlink(seg_name);
    return 0;
}

/* One burst of about cpu_ms of the thread's CPU: its wall time, CPU
 * time and the wall time ini_work_end took, ns. */
static void burst(struct ini_pe *pe, uint64_t cpu_ms, uint64_t *wall, uint64_t *cpu, uint64_t *end)
{
    uint64_t w0 = ini_mono_ns(), c0 = ini_thread_cpu_ns();
    ini_work_begin(pe);
    volatile uint64_t x = 0;
    while (ini_thread_cpu_ns() - c0 < cpu_ms * 1000000u)
        for (int i = 0; i < 1000; i++)
            x += (uint64_t)i;
    uint64_t c1 = ini_thread_cpu_ns(), e0 = ini_mono_ns();
    ini_work_end(pe);
    uint64_t e1 = ini_mono_ns();
    *end = e1 - e0;
    *wall = e1 - w0;
    *cpu = c1 - c0;
}

static struct ini_cn *attach_with(const char *dilate, char *err, size_t errlen)
{
    if (dilate)
        setenv("MGS_DILATE", dilate, 1);
    else
        unsetenv("MGS_DILATE");
    struct ini_cn *cn = ini_cn_attach(CFG, 0, seg_name, err, errlen);
    unsetenv("MGS_DILATE");
    return cn;
}

static void test_work_dilated(void **state)
{
    (void)state;
    char err[256];
    struct ini_cn *cn = attach_with("5", err, sizeof err);
    assert_non_null(cn);
    assert_true(ini_cn_dilation(cn) == 5.0);
    uint64_t wall, cpu, end;
    burst(ini_cn_pe(cn, 0), 20, &wall, &cpu, &end);
    /* K times the CPU, less the clock reads' small share; the sleep ends
     * late by at most a scheduling delay. */
    assert_true(wall >= 5 * cpu * 95 / 100);
    assert_true(wall < 5 * cpu + 200000000u);
    ini_cn_detach(cn);
}

static void test_work_undilated(void **state)
{
    (void)state;
    char err[256];
    struct ini_cn *cn = attach_with(NULL, err, sizeof err);
    assert_non_null(cn);
    assert_true(ini_cn_dilation(cn) == 1.0);   /* the knob is 0 in conf/default.cfg */
    uint64_t wall, cpu, end;
    burst(ini_cn_pe(cn, 0), 20, &wall, &cpu, &end);
    /* Not stretched: ini_work_end returns at once (dilated by 5 it would
     * sleep about 4 times the burst's 20 ms); the bound leaves room for
     * a preemption on this shared machine. */
    assert_true(end < cpu);
    ini_cn_detach(cn);
}

static void test_bad_dilation_refused(void **state)
{
    (void)state;
    char err[256] = "";
    assert_null(attach_with("abc", err, sizeof err));
    assert_string_equal(err, "MGS_DILATE=abc: expected a factor from 1 to 1000");
    assert_null(attach_with("0.5", err, sizeof err));
    assert_string_equal(err, "MGS_DILATE=0.5: expected a factor from 1 to 1000");
}

static void on_any(struct ini_pe *pe, int src_pe, const void *data, uint32_t len, void *arg)
{
    (void)pe, (void)src_pe, (void)data, (void)len, (void)arg;
}

static void test_barrier_handler_is_reserved(void **state)
{
    (void)state;
    char err[256];
    struct ini_cn *cn = attach_with(NULL, err, sizeof err);
    assert_non_null(cn);
    errno = 0;
    assert_int_equal(ini_cn_register(cn, INI_CN_BARRIER_HANDLER, on_any, NULL), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(ini_cn_register(cn, INI_CN_BARRIER_HANDLER - 1, on_any, NULL), 0);
    ini_cn_detach(cn);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--node") == 0)
        return node(argv[2], argv[3]);
    const struct CMUnitTest work[] = {
        cmocka_unit_test(test_work_dilated),
        cmocka_unit_test(test_work_undilated),
        cmocka_unit_test(test_bad_dilation_refused),
        cmocka_unit_test(test_barrier_handler_is_reserved),
    };
    const struct CMUnitTest barrier[] = {
        cmocka_unit_test(test_barrier_two_clusters),
        cmocka_unit_test(test_barrier_four_clusters_round_robin),
    };
    int failed = cmocka_run_group_tests_name("compute bursts", work, seg_setup, seg_teardown);
    /* INI_TEST_NO_DAEMONS=1: the in-process tests only */
    const char *no = getenv("INI_TEST_NO_DAEMONS");
    if (!(no && *no == '1'))
        failed += cmocka_run_group_tests_name("barrier over real daemons", barrier, NULL, NULL);
    return failed != 0;
}
