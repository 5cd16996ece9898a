/*
 * test_ini_cn.c - the compute-node API on a cluster segment made here, with
 * no INI running: ini_pe_kick makes ini_wait return, whether the kick
 * comes before the wait (it is remembered), while it sleeps (from another
 * thread), or not at all (the timeout).  ini_wait tells a kick from the
 * timeout by the time it took: a kick returns long before the 10 s limit.
 *
 * ini_wait_any: one thread waiting for two PEs is woken by a delivery to
 * the second (this test plays the INI: it puts the record into the PE's
 * delivery ring through the fabric, as inid does) and by a kick of the
 * second, and runs the handlers of both PEs' messages.
 *
 * Traced (INI_TRACE, INI_RUN_DIR), the library records for a program that
 * writes nothing itself (ini/cn/cn_trace.c): the handler's ACTION, named
 * by its send and by the wait's request; the program's sends between
 * handlers in one action and request; a mark; the header's flags.  A
 * program that took its buffer (ini_pe_trace) gets no ACTION or REQ from
 * the library.
 *
 * ini_send_inplace: the writer's bytes land in the record the INI reads,
 * marked as written in place; ini_send's copy is not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stdatomic.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "fabric.h"
#include "ini_cn.h"
#include "segment.h"
#include "trace_cn.h"

#define CFG "conf/default.cfg"
#define LIMIT_US 10000000ull            /* ini_wait's limit: a kick is far quicker */

static char seg_name[64];
static struct ini_config cfg;
static struct ini_segment *seg;
static struct ini_cn *cn;

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int setup(void **state)
{
    char err[256];
    if (ini_config_load(CFG, &cfg, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    snprintf(seg_name, sizeof seg_name, "/ini-test-cn-%d", (int)getpid());
    seg = ini_segment_create(seg_name, &cfg, 0, 1 << 16);
    if (!seg)
        return -1;
    cn = ini_cn_attach(CFG, 0, seg_name, err, sizeof err);
    if (!cn) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    ini_cn_detach(cn);
    ini_segment_detach(seg);
    ini_segment_unlink(seg_name);
    return 0;
}

static void test_kick_before_wait_is_remembered(void **state)
{
    struct ini_pe *pe = ini_cn_pe(cn, 0);
    ini_pe_kick(pe);
    uint64_t t0 = now_us();
    assert_int_equal(ini_wait(pe, LIMIT_US), 0);
    assert_true(now_us() - t0 < LIMIT_US / 2);
}

static void *kick_later(void *arg)
{
    usleep(50000);           /* long enough for ini_wait to be asleep */
    ini_pe_kick(arg);
    return NULL;
}

static void test_kick_wakes_a_sleeping_wait(void **state)
{
    struct ini_pe *pe = ini_cn_pe(cn, 1);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, kick_later, pe), 0);
    uint64_t t0 = now_us();
    assert_int_equal(ini_wait(pe, LIMIT_US), 0);
    assert_true(now_us() - t0 < LIMIT_US / 2);
    pthread_join(t, NULL);
    /* The kick was used up: the next wait runs to its timeout. */
    t0 = now_us();
    assert_int_equal(ini_wait(pe, 20000), 0);
    assert_true(now_us() - t0 >= 20000);
}

/* ---- ini_wait_any ---- */

#define H_RECORD 7

struct seen {
    int count;
    int pe[4];
    uint32_t value[4];
};

static void record_handler(struct ini_pe *pe, int src_pe, const void *data, uint32_t len, void *arg)
{
    struct seen *s = arg;
    uint32_t v;
    assert_int_equal(len, sizeof v);
    memcpy(&v, data, sizeof v);
    if (s->count < 4) {
        s->pe[s->count] = ini_pe_id(pe);
        s->value[s->count] = v;
    }
    s->count++;
}

/* Plays the INI: delivers `value` to local PE pe_local from PE 2 for
 * `handler`, through the fabric, and wakes whoever sleeps for that PE. */
static void deliver_to(int pe_local, uint16_t handler, uint32_t value)
{
    struct ini_ring_prod prod;
    ini_ring_prod_attach(&prod, ini_segment_ring(seg, pe_local, 0, INI_TO_PE));
    uint8_t msg[sizeof(struct ini_am_hdr) + sizeof value];
    struct ini_am_hdr h = { .src_pe = 2, .dst_pe = (uint16_t)cfg.clusters[0].pes[pe_local],
                            .handler = handler, .len = sizeof value };
    memcpy(msg, &h, sizeof h);
    memcpy(msg + sizeof h, &value, sizeof value);
    assert_int_equal(ini_fabric_put(&prod, msg, sizeof msg), 0);
    ini_fabric_wake_pe(seg, pe_local);
}

static void deliver(int pe_local, uint32_t value)
{
    deliver_to(pe_local, H_RECORD, value);
}

/* Waits (without a time limit) until the group's thread sleeps: PE 1's
 * sleep word names PE 0's doorbell. */
static void wait_until_group_sleeps(void)
{
    while (atomic_load(&seg->pes[1].sleeping) != ini_fabric_sleeps_on(0))
        usleep(1000);
    assert_int_equal(atomic_load(&seg->pes[0].sleeping), ini_fabric_sleeps_on(0));
}

/* ini_wait_any on the group of two while a thread running `later` wakes
 * it once both sleep: what ini_wait_any returned, which must be long
 * before its limit (woken, not timed out). */
static int wait_any_woken_by(struct ini_pe *group[2], void *(*later)(void *))
{
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, later, NULL), 0);
    uint64_t t0 = now_us();
    int rc = ini_wait_any(group, 2, LIMIT_US);
    assert_true(now_us() - t0 < LIMIT_US / 2);
    pthread_join(t, NULL);
    return rc;
}

static void *deliver_to_second_later(void *arg)
{
    wait_until_group_sleeps();
    deliver(1, 0xabcd);
    return NULL;
}

static void test_wait_any_woken_by_delivery_to_second_pe(void **state)
{
    struct seen seen = { 0 };
    assert_int_equal(ini_cn_register(cn, H_RECORD, record_handler, &seen), 0);
    struct ini_pe *group[2] = { ini_cn_pe(cn, 0), ini_cn_pe(cn, 1) };
    uint32_t bell0 = atomic_load(&seg->pes[0].doorbell), bell1 = atomic_load(&seg->pes[1].doorbell);
    assert_int_equal(wait_any_woken_by(group, deliver_to_second_later), 1);
    assert_int_equal(seen.count, 1);
    assert_int_equal(seen.pe[0], cfg.clusters[0].pes[1]);
    assert_int_equal(seen.value[0], 0xabcd);
    /* The delivery to PE 1 rang the group's doorbell (PE 0's), not PE 1's. */
    assert_int_equal(atomic_load(&seg->pes[0].doorbell), bell0 + 1);
    assert_int_equal(atomic_load(&seg->pes[1].doorbell), bell1);
    /* Awake again: both PEs' words say so. */
    assert_int_equal(atomic_load(&seg->pes[0].sleeping), INI_PE_AWAKE);
    assert_int_equal(atomic_load(&seg->pes[1].sleeping), INI_PE_AWAKE);
}

static void test_wait_any_runs_every_pes_handlers(void **state)
{
    struct seen seen = { 0 };
    assert_int_equal(ini_cn_register(cn, H_RECORD, record_handler, &seen), 0);
    deliver(0, 10);
    deliver(1, 11);
    deliver(1, 12);
    struct ini_pe *group[2] = { ini_cn_pe(cn, 0), ini_cn_pe(cn, 1) };
    assert_int_equal(ini_wait_any(group, 2, LIMIT_US), 3);
    assert_int_equal(seen.count, 3);
    assert_int_equal(seen.pe[0], cfg.clusters[0].pes[0]);
    assert_int_equal(seen.value[0], 10);
    assert_int_equal(seen.pe[1], cfg.clusters[0].pes[1]);
    assert_int_equal(seen.value[1], 11);
    assert_int_equal(seen.value[2], 12);
}

static void *kick_second_later(void *arg)
{
    wait_until_group_sleeps();
    ini_pe_kick(ini_cn_pe(cn, 1));
    return NULL;
}

static void test_wait_any_woken_by_kick_of_second_pe(void **state)
{
    struct ini_pe *group[2] = { ini_cn_pe(cn, 0), ini_cn_pe(cn, 1) };
    assert_int_equal(wait_any_woken_by(group, kick_second_later), 0);
    /* The kick was used up. */
    uint64_t t0 = now_us();
    assert_int_equal(ini_wait_any(group, 2, 20000), 0);
    assert_true(now_us() - t0 >= 20000);
}

static void test_wait_any_rejects_bad_groups(void **state)
{
    struct ini_pe *group[1] = { ini_cn_pe(cn, 0) };
    assert_int_equal(ini_wait_any(group, 0, 1000), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(ini_wait_any(NULL, 1, 1000), -1);
    assert_int_equal(errno, EINVAL);
}

/* Issue 17, item 3: ringing the doorbell of an INI that died (its FIFO
 * has no reader any more) must fail with -1, not kill the ringer with
 * SIGPIPE - in a process that left SIGPIPE at its default, as a program
 * using the compute-node API does.  Checked in a child process. */
static void test_ring_fifo_of_dead_reader_is_not_fatal(void **state)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/ini-test-cn-%d.wake", (int)getpid());
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGPIPE, SIG_DFL);
        int reader = open(path, O_RDONLY | O_NONBLOCK);
        int fd = -1;
        if (reader < 0 || ini_fabric_ring_fifo(&fd, path) != 0 || fd < 0)
            _exit(10);
        close(reader);                       /* the INI dies */
        if (ini_fabric_ring_fifo(&fd, path) != -1)
            _exit(11);
        sigset_t pending;
        sigpending(&pending);
        _exit(sigismember(&pending, SIGPIPE) ? 12 : 0);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    unlink(path);
    if (WIFSIGNALED(st))
        fail_msg("the ringer died of signal %d", WTERMSIG(st));
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

/* Issue 34: the INI died and the launcher restarted it, which made a new
 * FIFO at the same path.  The compute node's descriptor, opened on the
 * old one, must ring the new reader (under the same descriptor number,
 * which other threads may be using); a ringer that kept the old one rang
 * nobody, and the restarted INI slept up to 100 ms over every message. */
static void test_ring_fifo_follows_a_restarted_reader(void **state)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/ini-test-cn-%d.wake", (int)getpid());
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    int reader = open(path, O_RDONLY | O_NONBLOCK);
    assert_true(reader >= 0);
    int fd = -1;
    assert_int_equal(ini_fabric_ring_fifo(&fd, path), 0);
    int first = fd;
    char b[8];
    assert_int_equal(read(reader, b, sizeof b), 1);
    close(reader);                               /* the INI dies */
    assert_int_equal(ini_fabric_ring_fifo(&fd, path), -1);   /* and is not back */
    unlink(path);                                /* the restarted INI's FIFO */
    assert_int_equal(mkfifo(path, 0600), 0);
    reader = open(path, O_RDONLY | O_NONBLOCK);
    assert_true(reader >= 0);
    assert_int_equal(ini_fabric_ring_fifo(&fd, path), 0);
    assert_int_equal(fd, first);
    assert_int_equal(read(reader, b, sizeof b), 1);
    assert_int_equal(ini_fabric_ring_fifo(&fd, path), 0);
    assert_int_equal(read(reader, b, sizeof b), 1);
    assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
    close(reader);
    close(fd);
    unlink(path);
}

/* Issue 17, item 6: one program per cluster.  A second attach to a
 * segment that a live process has attached is refused with a message
 * naming the segment and the process holding it (here: this one, from
 * /proc/locks); once the first detaches, attaching works again. */
static void test_second_attach_is_refused(void **state)
{
    char err[256] = "";
    struct ini_cn *second = ini_cn_attach(CFG, 0, seg_name, err, sizeof err);
    if (second) {
        ini_cn_detach(second);
        fail_msg("a second program attached to %s", seg_name);
    }
    assert_non_null(strstr(err, seg_name));
    assert_non_null(strstr(err, "already attached"));
    char holder[32];
    snprintf(holder, sizeof holder, "pid %d (", (int)getpid());
    if (!strstr(err, holder))
        fail_msg("the refusal does not name the holder (%s): %s", holder, err);
    ini_cn_detach(cn);
    cn = ini_cn_attach(CFG, 0, seg_name, err, sizeof err);
    if (!cn)
        fail_msg("attach after detach: %s", err);
}

/* ---- the library's trace records (cn_trace.c) ---- */

#define H_ECHO 8
#define H_REPLY 9

/* Sends the value back to PE 2 (another cluster's), from the handler. */
static void echo_handler(struct ini_pe *pe, int src_pe, const void *data, uint32_t len, void *arg)
{
    (void)arg;
    assert_int_equal(ini_send(pe, src_pe, H_REPLY, data, len), 0);
}

/* Re-attaches the cluster traced into a fresh directory (returned). */
static void attach_traced(char dir[64])
{
    char err[256];
    snprintf(dir, 64, "/tmp/ini-test-cn-trace-%d", (int)getpid());
    mkdir(dir, 0700);
    ini_cn_detach(cn);
    setenv("INI_TRACE", "detailed", 1);
    setenv("INI_RUN_DIR", dir, 1);
    cn = ini_cn_attach(CFG, 0, seg_name, err, sizeof err);
    unsetenv("INI_TRACE");
    unsetenv("INI_RUN_DIR");
    if (!cn)
        fail_msg("traced attach: %s", err);
    assert_int_equal(ini_cn_register(cn, H_ECHO, echo_handler, NULL), 0);
}

/* Detaches (which writes DIR/cn0.trace), reads PE 0's records into recs
 * (at most max), re-attaches untraced; returns how many, flags in *flags. */
static int detach_and_read(const char *dir, struct ini_cn_trace_rec *recs, int max, unsigned *flags)
{
    char path[128], err[256];
    ini_cn_detach(cn);
    snprintf(path, sizeof path, "%s/cn0.trace", dir);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t head[INI_CN_TRACE_HEADER_SIZE], rec[INI_CN_TRACE_RECORD_SIZE];
    assert_int_equal(fread(head, sizeof head, 1, f), 1);
    struct ini_cn_trace_header h;
    ini_cn_trace_decode_header(head, &h);
    *flags = h.info.flags;
    int n = 0;
    while (n < max && fread(rec, sizeof rec, 1, f) == 1) {
        ini_cn_trace_decode_rec(rec, &recs[n]);
        n += recs[n].pe == cfg.clusters[0].pes[0];
    }
    fclose(f);
    unlink(path);
    rmdir(dir);
    cn = ini_cn_attach(CFG, 0, seg_name, err, sizeof err);
    if (!cn)
        fail_msg("attach after the traced one: %s", err);
    return n;
}

/* The first record of `kind` (and tag, when tag >= 0) whose word (a, b,
 * c or d by index) is v; NULL if none.  word < 0: any. */
static const struct ini_cn_trace_rec *find(const struct ini_cn_trace_rec *r, int n, int kind, int tag, int word,
                                           uint32_t v)
{
    for (int i = 0; i < n; i++) {
        const uint32_t w[4] = { r[i].a, r[i].b, r[i].c, r[i].d };
        if (r[i].kind == kind && (tag < 0 || r[i].tag == tag) && (word < 0 || w[word] == v))
            return &r[i];
    }
    return NULL;
}

static int count(const struct ini_cn_trace_rec *r, int n, int kind)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += r[i].kind == kind;
    return k;
}

static void test_library_records_any_program(void **state)
{
    (void)state;
    char dir[64];
    attach_traced(dir);
    struct ini_pe *pe = ini_cn_pe(cn, 0);
    uint32_t v = 41;
    deliver_to(0, H_ECHO, 40);
    assert_int_equal(ini_wait(pe, LIMIT_US), 1);
    assert_int_equal(ini_send(pe, 2, H_REPLY, &v, sizeof v), 0);
    assert_int_equal(ini_send(pe, 3, H_REPLY, &v, sizeof v), 0);
    ini_pe_trace_mark(pe, 7);
    struct ini_cn_trace_rec r[64];
    unsigned flags;
    int n = detach_and_read(dir, r, 64, &flags);
    assert_int_equal(flags, INI_CN_HDR_NODE_HANDLERS | INI_CN_HDR_LIBRARY);
    /* the handler: its action on PE 2's message 0, its send, the wait it completed */
    const struct ini_cn_trace_rec *h = find(r, n, INI_CN_ACTION, INI_CN_ACT_MSG, -1, 0);
    assert_non_null(h);
    assert_int_equal(h->peer, 2);
    assert_int_equal(h->b, 0);
    const struct ini_cn_trace_rec *s = find(r, n, INI_CN_SEND, H_REPLY, 2, h->a);
    assert_non_null(s);
    assert_int_equal(s->peer, 2);
    assert_non_null(find(r, n, INI_CN_REQ, INI_CN_REQ_WAIT, 1, h->a));
    /* the program's two sends: one action, picked up by a SEND request */
    const struct ini_cn_trace_rec *p = find(r, n, INI_CN_ACTION, INI_CN_ACT_REQ, -1, 0);
    assert_non_null(p);
    assert_int_not_equal(p->a, h->a);
    const struct ini_cn_trace_rec *q = find(r, n, INI_CN_REQ, INI_CN_REQ_SEND, 1, p->a);
    assert_non_null(q);
    assert_int_equal(q->a, p->b);
    int sends = 0;
    for (int i = 0; i < n; i++)
        sends += r[i].kind == INI_CN_SEND && r[i].c == p->a;
    assert_int_equal(sends, 2);
    /* the mark, with the program's number */
    const struct ini_cn_trace_rec *m = find(r, n, INI_CN_REQ, INI_CN_REQ_MARK, 3, 7);
    assert_non_null(m);
    assert_non_null(find(r, n, INI_CN_ACTION, INI_CN_ACT_REQ, 0, m->b));
    /* once each: handler, program, mark; wait, sends, mark */
    assert_int_equal(count(r, n, INI_CN_ACTION), 3);
    assert_int_equal(count(r, n, INI_CN_REQ), 3);
    assert_int_equal(count(r, n, INI_CN_SEND), 3);
    assert_int_equal(count(r, n, INI_CN_RECV), 1);
}

static void test_program_that_traces_itself_gets_no_library_records(void **state)
{
    (void)state;
    char dir[64];
    attach_traced(dir);
    struct ini_pe *pe = ini_cn_pe(cn, 0);
    assert_non_null(ini_pe_trace(pe));          /* the program takes the trace over */
    uint32_t v = 41;
    deliver_to(0, H_ECHO, 40);
    assert_int_equal(ini_wait(pe, LIMIT_US), 1);
    assert_int_equal(ini_send(pe, 2, H_REPLY, &v, sizeof v), 0);
    struct ini_cn_trace_rec r[64];
    unsigned flags;
    int n = detach_and_read(dir, r, 64, &flags);
    assert_int_equal(flags, 0);
    assert_int_equal(count(r, n, INI_CN_ACTION), 0);
    assert_int_equal(count(r, n, INI_CN_REQ), 0);
    assert_int_equal(count(r, n, INI_CN_SEND), 2);
    assert_int_equal(count(r, n, INI_CN_RECV), 1);
}

/* ini_send_inplace's writer: a pattern from the byte at arg. */
static void write_pattern(void *dst, uint32_t len, void *arg)
{
    uint8_t *d = dst, first = *(const uint8_t *)arg;
    for (uint32_t i = 0; i < len; i++)
        d[i] = (uint8_t)(first + i);
}

/* Plays the INI: the next record PE 0 sent to the cluster's INI, its
 * header and payload checked against handler 9, PE 2, len bytes of the
 * pattern from `first`; returns its flags. */
static uint16_t take_sent(struct ini_ring_cons *c, uint32_t len, uint8_t first)
{
    uint64_t end;
    struct ini_rec *rec = ini_ring_next(c, &end);
    assert_non_null(rec);
    assert_int_equal(rec->len, INI_HEADROOM + sizeof(struct ini_am_hdr) + len);
    const struct ini_am_hdr *h = ini_fabric_out_am(rec);
    assert_int_equal(h->dst_pe, 2);
    assert_int_equal(h->handler, 9);
    assert_int_equal(h->len, len);
    uint8_t want[4096];
    write_pattern(want, len, &first);
    assert_memory_equal(h + 1, want, len);
    ini_ring_release_to(c, end);
    return rec->flags;
}

/* ini_send copies the caller's buffer into the ring; ini_send_inplace has
 * the writer put the same bytes there itself, and marks the record so
 * (the INI's cn_copied counts only the first); a NULL writer is refused
 * and publishes nothing. */
static void test_send_inplace_writes_the_record(void **state)
{
    (void)state;
    struct ini_pe *pe = ini_cn_pe(cn, 0);
    struct ini_ring_cons c;
    ini_ring_cons_attach(&c, ini_segment_ring(seg, 0, 0, INI_TO_INI));
    uint8_t buf[3000], first = 7;
    write_pattern(buf, sizeof buf, &first);
    assert_int_equal(ini_send(pe, 2, 9, buf, sizeof buf), 0);
    assert_int_equal(ini_send_inplace(pe, 2, 9, sizeof buf, write_pattern, &first), 0);
    errno = 0;
    assert_int_equal(ini_send_inplace(pe, 2, 9, 10, NULL, NULL), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(take_sent(&c, sizeof buf, 7) & INI_REC_F_INPLACE, 0);
    assert_int_equal(take_sent(&c, sizeof buf, 7) & INI_REC_F_INPLACE, INI_REC_F_INPLACE);
    assert_false(ini_ring_has_unread(&c));
    assert_int_equal(ini_pe_stats(pe)->sent, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kick_before_wait_is_remembered),
        cmocka_unit_test(test_kick_wakes_a_sleeping_wait),
        cmocka_unit_test(test_wait_any_woken_by_delivery_to_second_pe),
        cmocka_unit_test(test_wait_any_runs_every_pes_handlers),
        cmocka_unit_test(test_wait_any_woken_by_kick_of_second_pe),
        cmocka_unit_test(test_wait_any_rejects_bad_groups),
        cmocka_unit_test(test_ring_fifo_of_dead_reader_is_not_fatal),
        cmocka_unit_test(test_ring_fifo_follows_a_restarted_reader),
        cmocka_unit_test(test_second_attach_is_refused),
        cmocka_unit_test(test_send_inplace_writes_the_record),
        cmocka_unit_test(test_library_records_any_program),
        cmocka_unit_test(test_program_that_traces_itself_gets_no_library_records),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
