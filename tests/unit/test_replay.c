/*
 * test_replay.c - `ini-trace whatif`'s replay (tools/replay/replay.c) and
 * `ini-trace critical`'s path (tools/trace/critical_path.c) on hand-built
 * runs with known answers, and the compute-node trace's reader.
 *
 *   one INI, one compute node: a thread computes G, asks (a fault), the
 *   request's message passes the INI in S, and its action completes the
 *   request; N times.  Replayed as it ran, every instant comes back;
 *   with the INI twice as slow each cycle takes G + 2S (closed loop: the
 *   thread waits for the slower reply), and the INI is busy 2NS.
 *
 *   node mode (a program whose nodes run their own handlers, between
 *   their computing: EM3D's message versions): node 0 asks node 1 for a
 *   value at 100; the request reaches node 1 at 200 while it computes
 *   (10 to 2000), so its handler answers at 2000, and the answer reaches
 *   node 0 at 2100.  With both INIs twice as slow the answer still
 *   leaves at 2000 (node 1 still computes when the slower request comes)
 *   and arrives 100 later; read as MGS's model (no header flag), the
 *   handler's 1,800 ns wait would be kept as a lag and the answer would
 *   leave 100 later too.
 *
 *   the transport's window and a turn's own cost (from the counters
 *   files beside the traces): node 0 sends three messages to node 1,
 *   whose handler of the third answers, and the answer completes node
 *   0's request; 50 ns a pass, 401 ns in all.  With a turn costing 10
 *   ns (busy time beyond the services over the turns), 441; with a
 *   window of 2 as well, the third message waits for the first two's
 *   acks and a turn of its own: 471 (worked through at
 *   test_replay_window); with a window of 4 it never waits: 441.
 *
 *   the replay's rules against the transport's (replay_rules.h): two
 *   real INIs of loop_harness with windows of 5, 16, 17 and 64 send
 *   messages one at a time, and the receiver's first bare ACK must come
 *   with the message replay_ack_threshold names, no sooner, no later;
 *   with segments, replay_window_cost must agree with the stack's
 *   ini_swp_window_cost for every message length, at the segment size a
 *   live stack reports (what inid writes in its counters).  Either test
 *   fails when stack/swp*.c changes a rule the replay copies.
 *
 *   two nodes, one chain: node 0 faults, its request crosses both INIs to
 *   node 1, whose reply crosses back; then node 0 reaches the barrier
 *   last.  The critical path is every segment of that chain, summed by
 *   kind, and a third message the receiving INI served while the request
 *   was on the wire counts as queueing.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "critical.h"
#include "ini_cn.h"           /* INI_CN_REQ_MARK */
#include "loop_harness.h"
#include "replay.h"
#include "replay_rules.h"
#include "trace_fixtures/run_fixture.h"

#define N 5
#define G 1000
#define S 400
#define T0 10000

static char *one_node_run(void)
{
    char *dir = fx_mkdir();
    struct ini_trace ini;
    struct ini_cn_trace cn;
    fx_ini_open(&ini, INI_TRACE_SUMMARY, 0, 0, 0, 1, 1);
    assert_int_equal(ini_cn_trace_init(&cn, 256), 0);
    uint64_t resumed = T0;
    for (uint32_t k = 1; k <= N; k++) {
        uint64_t submit = resumed + G, done = submit + S;
        fx_action(&cn, 0, 2 * k - 1, INI_CN_ACT_REQ, 0, k, 0, submit, submit);
        fx_send(&cn, 0, 0, k, 1, 2 * k - 1, 0, submit);
        fx_ini_msg(&ini, INI_TRACE_LOCAL, 0, 0, 0, k, submit, submit, submit, done);
        fx_action(&cn, 0, 2 * k, INI_CN_ACT_MSG, 0, k, 0, done, done);
        fx_req(&cn, 0, k, 2 * k, 0, 0, resumed, submit, done);
        resumed = done;
    }
    assert_int_equal(fx_write(&ini, dir), 0);
    assert_int_equal(fx_cn_write(&cn, dir, 0), 0);
    return dir;
}

static void test_replay_as_run(void **state)
{
    char *dir = one_node_run();
    struct run_files rf;
    char err[TRACE_ERR_LEN];
    assert_int_equal(run_files_load(&rf, dir, err, sizeof(err)), 0);
    assert_int_equal(rf.g.n_msgs, N);
    assert_int_equal(rf.g.n_reqs, N);
    struct replay_params p = { 0, -1, 1.0, NAN };
    struct replay_result r;
    assert_int_equal(replay_run(&rf.g, &p, &r, err, sizeof(err)), 0);
    assert_float_equal(r.span_ns, N * (G + S) - G, 0.5);
    assert_float_equal(r.replay_span_ns, r.span_ns, 0.5);
    assert_int_equal(r.passes, N);
    struct report rep;
    assert_int_equal(report_build(&rep, &r.run, err, sizeof(err)), 0);
    assert_float_equal(rep.inis[0].perf.busy_cycles, N * S, 1);
    report_free(&rep);
    replay_free(&r);
    run_files_free(&rf);
    fx_rmdir(dir);
}

static void test_replay_slower_ini(void **state)
{
    char *dir = one_node_run();
    struct run_files rf;
    char err[TRACE_ERR_LEN];
    assert_int_equal(run_files_load(&rf, dir, err, sizeof(err)), 0);
    struct replay_params p = { 0, -1, 2.0, NAN };
    struct replay_result r;
    assert_int_equal(replay_run(&rf.g, &p, &r, err, sizeof(err)), 0);
    assert_float_equal(r.replay_span_ns, N * (G + 2 * S) - G, 0.5);   /* closed loop */
    struct report rep;
    assert_int_equal(report_build(&rep, &r.run, err, sizeof(err)), 0);
    assert_float_equal(rep.inis[0].perf.busy_cycles, 2 * N * S, 1);
    report_free(&rep);
    replay_free(&r);
    /* and with two INIs the node's one stream goes through its static one */
    struct replay_params p2 = { 2, -1, 1.0, NAN };
    assert_int_equal(replay_run(&rf.g, &p2, &r, err, sizeof(err)), 0);
    assert_int_equal(r.run.n_files, 2);
    assert_int_equal(r.run.files[0].n, N);
    assert_int_equal(r.run.files[1].n, 0);
    assert_float_equal(r.replay_span_ns, r.span_ns, 0.5);
    replay_free(&r);
    run_files_free(&rf);
    fx_rmdir(dir);
}

/* ---- node mode ---- */


static char *node_mode_run(unsigned flags)
{
    char *dir = fx_mkdir();
    struct ini_trace i0, i1;
    struct ini_cn_trace c0, c1;
    assert_int_equal(fx_two_clusters(&i0, &i1, &c0, &c1), 0);
    /* node 1 (PE 1): a request done at 10, then computing until 2000 */
    fx_action(&c1, 1, 1, INI_CN_ACT_REQ, 1, 1, 0, 10, 10);
    fx_req(&c1, 1, 1, 1, 1, 3, 0, 10, 10);
    /* node 0 (PE 0) asks at 100; node 1 answers (its action 2) when it
     * stops computing, at 2000; the answer completes node 0's request */
    fx_request_answered(&i0, &i1, &c0, &c1, 2, 2100);
    /* node 1 makes its next request at 2000 (picked up once the answer is out) */
    fx_action(&c1, 1, 3, INI_CN_ACT_REQ, 1, 2, 0, 2002, 2002);
    fx_req(&c1, 1, 2, 3, 1, 3, 10, 2000, 2002);
    assert_int_equal(fx_write(&i0, dir), 0);
    assert_int_equal(fx_write(&i1, dir), 0);
    assert_int_equal(fx_cn_write_flags(&c0, dir, 0, flags), 0);
    assert_int_equal(fx_cn_write_flags(&c1, dir, 1, flags), 0);
    return dir;
}

/* The program span replayed with every INI service times `scale`. */
static double node_mode_span(unsigned flags, double scale, double *measured)
{
    char *dir = node_mode_run(flags);
    struct run_files rf;
    char err[TRACE_ERR_LEN];
    int rc = run_files_load(&rf, dir, err, sizeof(err));
    if (rc != 0)
        fail_msg("%s", err);
    struct replay_params p = { 0, -1, scale, NAN };
    struct replay_result r;
    if (replay_run(&rf.g, &p, &r, err, sizeof(err)) != 0)
        fail_msg("%s", err);
    double span = r.replay_span_ns;
    *measured = r.span_ns;
    replay_free(&r);
    run_files_free(&rf);
    fx_rmdir(dir);
    return span;
}

static void test_replay_node_mode(void **state)
{
    double measured, as_run = node_mode_span(INI_CN_HDR_NODE_HANDLERS, 1.0, &measured);
    assert_float_equal(measured, 2101 - 10, 0.5);
    assert_float_equal(as_run, measured, 0.5);
    /* twice as slow: only the answer's two passes are longer */
    assert_float_equal(node_mode_span(INI_CN_HDR_NODE_HANDLERS, 2.0, &measured), 2201 - 10, 0.5);
    /* MGS's model keeps the handler's wait: the request's passes count too */
    assert_float_equal(node_mode_span(0, 2.0, &measured), 2301 - 10, 0.5);
    /* the library's records for any program (bit 1) replay as the node model */
    assert_float_equal(node_mode_span(INI_CN_HDR_NODE_HANDLERS | INI_CN_HDR_LIBRARY, 2.0, &measured), 2201 - 10,
                       0.5);
}

/* ---- the window and a turn's own cost ---- */

static char *window_run(void)
{
    char *dir = fx_mkdir();
    struct ini_trace i0, i1;
    struct ini_cn_trace c0, c1;
    assert_int_equal(fx_two_clusters(&i0, &i1, &c0, &c1), 0);
    /* node 0's request at 100, picked up by its action 1, which sends
     * three messages; INI 0 serves them in one turn and sends them at its
     * end (no O), INI 1 takes them at 250 */
    fx_action(&c0, 0, 1, INI_CN_ACT_REQ, 0, 1, 0, 100, 100);
    for (uint32_t k = 1; k <= 3; k++) {
        uint64_t out = 100 + 50 * (k - 1), in = 250 + 50 * (k - 1);
        fx_send(&c0, 0, 1, k, 1, 1, 0, 100);
        fx_ini_msg(&i0, INI_TRACE_OUT, 0, 1, 1, k, 100, 100, out, out + 50);
        fx_ini_msg(&i1, INI_TRACE_IN, 0, 1, 0, k, 0, 250, in, in + 50);
        fx_recv(&c1, 1, 0, k, in + 50, in + 51);
        fx_action(&c1, 1, k, INI_CN_ACT_MSG, 0, k, 0, in + 50, in + 51);
    }
    /* the third's handler answers; the answer completes the request */
    fx_send(&c1, 1, 0, 1, 2, 3, 0, 400);
    fx_ini_msg(&i1, INI_TRACE_OUT, 1, 0, 0, 1, 400, 400, 400, 450);
    fx_ini_msg(&i0, INI_TRACE_IN, 1, 0, 1, 1, 0, 450, 450, 500);
    fx_recv(&c0, 0, 1, 1, 500, 501);
    fx_action(&c0, 0, 2, INI_CN_ACT_MSG, 1, 1, 0, 500, 501);
    fx_req(&c0, 0, 1, 2, 0, 1, 0, 100, 501);
    assert_int_equal(fx_two_write(dir, &i0, &i1, &c0, &c1), 0);
    return dir;
}

/* Both INIs' counters, as inid writes them (the groups the replay reads):
 * busy ns over `turns` turns; window 0: no stack group (an older run). */
static void write_counters(const char *dir, uint64_t busy, uint64_t turns, int window)
{
    for (int i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/ini%d.counters.json", dir, i);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "{\n  \"ini\": %d,\n", i);
        if (window)
            fprintf(f, "  \"stack\": {\"window\": %d, \"ack_timeout_us\": 1000000, \"segment_bytes\": 0},\n", window);
        fprintf(f, "  \"busy\": {\"cycles\": %llu, \"share\": 0.5},\n", (unsigned long long)busy);
        fprintf(f, "  \"loop\": {\"iterations\": 9, \"work_turns\": %llu, \"idle_sleeps\": 0}\n}\n",
                (unsigned long long)turns);
        assert_int_equal(fclose(f), 0);
    }
}

static double window_span(const char *dir, struct replay_result *r)
{
    struct run_files rf;
    char err[TRACE_ERR_LEN];
    if (run_files_load(&rf, dir, err, sizeof(err)) != 0)
        fail_msg("%s", err);
    struct replay_params p = { 0, -1, 1.0, NAN };
    if (replay_run(&rf.g, &p, r, err, sizeof(err)) != 0)
        fail_msg("%s", err);
    run_files_free(&rf);
    return r->replay_span_ns;
}

static void test_replay_window(void **state)
{
    char *dir = window_run();
    struct replay_result r;
    /* no counters: as it ran, nothing of either modelled */
    assert_float_equal(window_span(dir, &r), 401, 0.5);
    assert_float_equal(r.span_ns, 401, 0.5);
    assert_int_equal(r.window, 0);
    assert_true(isnan(r.turn_cost_ns));
    replay_free(&r);
    /* each INI served 200 ns of messages; busy 220 in 2 turns: 10 a turn.
     * INI 0's turn at 100 ends at 260, INI 1's at 260 serves until 420,
     * the answer's turn at 420 leaves at 480, INI 0's at 480 ends at 540:
     * the request completes at 541 */
    write_counters(dir, 220, 2, 0);
    assert_float_equal(window_span(dir, &r), 441, 0.5);
    assert_int_equal(r.window, 0);
    assert_float_equal(r.turn_cost_ns, 10, 1e-9);
    replay_free(&r);
    /* a window of 2, acknowledged at once (half of it): INI 0 serves the
     * first two (110-210), INI 1 takes them at 210 (220-320); their acks
     * leave at that turn's end, 320; INI 0's turn for them ends at 330,
     * the next serves the third (340-390); INI 1 serves it 400-450, the
     * answer 460-510, INI 0 520-570: complete at 571 */
    write_counters(dir, 220, 2, 2);
    assert_float_equal(window_span(dir, &r), 471, 0.5);
    assert_int_equal(r.window, 2);
    replay_free(&r);
    write_counters(dir, 220, 2, 4);
    assert_float_equal(window_span(dir, &r), 441, 0.5);
    replay_free(&r);
    /* busy no more than the services: no cost, as it ran */
    write_counters(dir, 200, 2, 4);
    assert_float_equal(window_span(dir, &r), 401, 0.5);
    replay_free(&r);
    fx_rmdir(dir);
}

/* ---- the critical path ---- */

/* The run of test_critical_chain; last_parent: the parent of node 0's
 * last action (0: none; its own id 3 makes the damaged run of
 * test_critical_refuses_a_cycle); end_kind: the kind of the requests
 * that end the step (3: the barrier). */
static char *chain_run_ending(uint32_t last_parent, int end_kind)
{
    char *dir = fx_mkdir();
    struct ini_trace i0, i1;
    struct ini_cn_trace c0, c1;
    assert_int_equal(fx_two_clusters(&i0, &i1, &c0, &c1), 0);
    /* node 0 (PE 0): computes from 0 to 100, faults; the request (RREQ, seq 1) */
    fx_action(&c0, 0, 1, INI_CN_ACT_REQ, 0, 1, 0, 100, 101);
    fx_send(&c0, 0, 1, 1, 1, 1, 0, 101);
    fx_ini_msg(&i0, INI_TRACE_OUT, 0, 1, 1, 1, 101, 103, 105, 115);
    fx_ini_msg(&i1, INI_TRACE_IN, 0, 1, 0, 1, 0, 120, 121, 131);
    fx_ini_msg(&i1, INI_TRACE_LOCAL, 1, 1, 0, 99, 0, 116, 116, 119);  /* something else, meanwhile */
    fx_recv(&c1, 1, 0, 1, 133, 134);
    /* node 1 (PE 1) answers (DATA, seq 1) */
    fx_action(&c1, 1, 1, INI_CN_ACT_MSG, 0, 1, 0, 135, 137);
    fx_send(&c1, 1, 0, 1, 3, 1, 0, 136);
    fx_ini_msg(&i1, INI_TRACE_OUT, 1, 0, 0, 1, 136, 138, 140, 160);
    fx_ini_msg(&i0, INI_TRACE_IN, 1, 0, 1, 1, 0, 163, 163, 183);
    fx_recv(&c0, 0, 1, 1, 184, 185);
    fx_action(&c0, 0, 2, INI_CN_ACT_MSG, 1, 1, 0, 186, 188);
    fx_req(&c0, 0, 1, 2, 0, 0, 0, 100, 187);               /* the fault, done at 187 */
    /* node 0 resumes at 190, computes to 240, reaches the barrier last */
    fx_action(&c0, 0, 3, INI_CN_ACT_REQ, 0, 2, last_parent, 242, 243);
    fx_req(&c0, 0, 2, 3, 0, end_kind, 190, 240, 243);
    /* node 1 reached it at 50 */
    fx_action(&c1, 1, 2, INI_CN_ACT_REQ, 1, 1, 0, 51, 52);
    fx_req(&c1, 1, 1, 2, 1, end_kind, 0, 50, 230);
    assert_int_equal(fx_two_write(dir, &i0, &i1, &c0, &c1), 0);
    return dir;
}

static char *chain_run_with(uint32_t last_parent)
{
    return chain_run_ending(last_parent, 3);
}

static char *chain_run(void)
{
    return chain_run_with(0);
}

/* The chain of chain_run_ending(0, end_kind), whose step end `ends` finds. */
static void expect_chain(int end_kind, enum crit_ends ends)
{
    char *dir = chain_run_ending(0, end_kind);
    struct run_files rf;
    char err[TRACE_ERR_LEN];
    assert_int_equal(run_files_load(&rf, dir, err, sizeof(err)), 0);
    struct crit_result r;
    assert_int_equal(critical_run(&rf.g, &r, err, sizeof(err)), 0);
    assert_int_equal(r.ends, ends);
    assert_int_equal(r.n_steps, 1);
    const struct crit_step *s = &r.steps[0];
    assert_float_equal(s->start, 50 - 1, 1e-6);     /* the clock's origin is tick 1 */
    assert_float_equal(s->end, 243 - 1, 1e-6);
    const double want[CRIT_KINDS] = {
        [CRIT_COMPUTE] = 50 + 50,                   /* [50, 100] and [190, 240] */
        [CRIT_WAKE] = 0 + 3 + 2,                    /* pickup at once; 187 -> 190; 240 -> 242 */
        [CRIT_PROTOCOL] = 1 + 1 + 1 + 1,
        [CRIT_HANDOVER] = 2 + 2,
        [CRIT_QUEUE] = 2 + 1 + 3 + 2 + 0,           /* 3: INI 1 served another message on the wire's time */
        [CRIT_SERVICE] = 10 + 10 + 20 + 20,
        [CRIT_WIRE] = 2 + 3,
        [CRIT_RECEIVE] = 4 + 3,
    };
    double sum = 0;
    for (int k = 0; k < CRIT_KINDS; k++) {
        assert_float_equal(s->seg[k], want[k], 1e-6);
        sum += s->seg[k];
    }
    assert_float_equal(sum, s->end - s->start, 1e-6);
    assert_int_equal(s->messages, 2);
    critical_free(&r);
    run_files_free(&rf);
    fx_rmdir(dir);
}

static void test_critical_chain(void **state)
{
    expect_chain(3, CRIT_BY_BARRIERS);
}

/* The same run with the program's marks (ini_pe_trace_mark) where the
 * barrier was, and with neither (the last requests a fault, MGS's kind
 * 0): the same step, ended by the marks, or the whole run as one step
 * ending at the latest completion, node 0's at 243. */
static void test_critical_without_barriers(void **state)
{
    expect_chain(INI_CN_REQ_MARK, CRIT_BY_MARKS);
    expect_chain(0, CRIT_WHOLE_RUN);
}

/* A chain of causes that comes back to itself (an action its own parent,
 * as fuzzing made one: tests/fuzz/regress/trace/critical_chain_cycle)
 * once walked for ever; now the walk stops and says why in one line. */
static void test_critical_refuses_a_cycle(void **state)
{
    char *dir = chain_run_with(3);
    struct run_files rf;
    char err[TRACE_ERR_LEN] = "";
    assert_int_equal(run_files_load(&rf, dir, err, sizeof(err)), 0);
    struct crit_result r;
    assert_int_equal(critical_run(&rf.g, &r, err, sizeof(err)), -1);
    if (!strstr(err, "step 1: its chain of causes comes back to itself") || strchr(err, '\n'))
        fail_msg("unexpected error: '%s'", err);
    run_files_free(&rf);
    fx_rmdir(dir);
}

/* ---- the compute-node trace's reader ---- */

static void expect_refused(const char *name, uint8_t *b, size_t n, const char *what)
{
    struct cn_file f;
    char err[TRACE_ERR_LEN] = "";
    assert_int_equal(cn_file_load_mem(&f, name, b, n, err, sizeof(err)), -1);
    if (!strstr(err, what) || strchr(err, '\n'))
        fail_msg("expected '%s' in the one-line error, got '%s'", what, err);
}

static void test_cn_reader_refuses(void **state)
{
    char *dir = chain_run();
    char path[1024];
    snprintf(path, sizeof(path), "%s/cn0.trace", dir);
    size_t n;
    uint8_t *b = fx_slurp(path, &n);
    struct cn_file f;
    char err[TRACE_ERR_LEN];
    assert_int_equal(cn_file_load_mem(&f, path, b, n, err, sizeof(err)), 0);
    assert_int_equal(f.info.cluster, 0);
    cn_file_free(&f);
    expect_refused(path, b, 64, "truncated");
    expect_refused(path, b, n - 1, "records");
    uint8_t save = b[0];
    b[0] = 'X';
    expect_refused(path, b, n, "bad magic");
    b[0] = save;
    b[8] = 9;
    expect_refused(path, b, n, "unknown format version 9");
    b[8] = 1;
    ini_trace_put16(b + 14, INI_CN_HDR_NODE_HANDLERS | INI_CN_HDR_LIBRARY);   /* the library's: read */
    assert_int_equal(cn_file_load_mem(&f, path, b, n, err, sizeof(err)), 0);
    assert_int_equal(f.info.flags, INI_CN_HDR_NODE_HANDLERS | INI_CN_HDR_LIBRARY);
    cn_file_free(&f);
    ini_trace_put16(b + 14, 8);         /* the first flag no release writes (4: virtual time) */
    expect_refused(path, b, n, "unknown header flags 0x8");
    ini_trace_put16(b + 14, 0);
    b[128] = 77;
    expect_refused(path, b, n, "record 0: unknown kind 77");
    b[128] = INI_CN_ACTION;
    uint64_t t0 = ini_trace_get64(b + 128 + 24);
    ini_trace_put64(b + 128 + 32, t0 - 1);        /* ends before it starts */
    expect_refused(path, b, n, "ends before it starts");
    ini_trace_put64(b + 128 + 32, FX_END + 5);    /* outside the file's clock */
    expect_refused(path, b, n, "outside");
    ini_trace_put64(b + 128 + 32, t0);
    /* Ids the readers size tables by, beyond the system's limits (a
     * fuzzed INI trace's cluster id of millions had the replay ask for
     * 3.5 GB): refused at the header. */
    ini_trace_put32(b + 16, 10000000);
    expect_refused(path, b, n, "cluster 10000000 with");
    ini_trace_put32(b + 16, 0);
    ini_trace_put32(b + 20, INI_MAX_PES_PER_CLUSTER + 1);
    expect_refused(path, b, n, "at most 64 clusters of 64");
    free(b);
    fx_rmdir(dir);
}

static void test_graph_needs_version_2(void **state)
{
    char *dir = one_node_run();
    char path[1024];
    snprintf(path, sizeof(path), "%s/ini0.trace", dir);
    size_t n;
    uint8_t *b = fx_slurp(path, &n);
    b[8] = 1;                                     /* call it version 1 */
    fx_spill(path, b, n);
    free(b);
    struct run_files rf;
    char err[TRACE_ERR_LEN];
    assert_int_equal(run_files_load(&rf, dir, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "version-2"));
    fx_rmdir(dir);
}

/* ---- the replay's rules against the transport's ---- */

/* The receiver's bare ACK comes with the message the replay's threshold
 * names, for odd and even windows and the default. */
static void test_replay_ack_threshold_matches_the_stack(void **state)
{
    static const int windows[] = { 5, 16, 17, 64 };
    for (size_t k = 0; k < sizeof(windows) / sizeof(windows[0]); k++) {
        int w = windows[k], at = replay_ack_threshold(w);
        assert_true(at >= 1 && at <= w);
        loop_setup(w, 32, 1);
        for (int i = 0; i < at - 1; i++)
            assert_int_equal(loop_send(&loop_a, (uint32_t)i, 64), 0);
        if (ini_swp_totals(loop_b.st.swp).acks_bare != 0)
            fail_msg("window %d: the stack acknowledged before %d messages (replay_rules.h)", w, at);
        assert_int_equal(loop_send(&loop_a, (uint32_t)at - 1, 64), 0);
        if (ini_swp_totals(loop_b.st.swp).acks_bare != 1)
            fail_msg("window %d: the stack did not acknowledge at %d messages (replay_rules.h)", w, at);
        assert_int_equal(loop_a.released, (uint32_t)at);
        loop_run(1000000, 5);
        assert_null(loop_check_delivered((uint32_t)at));
        assert_int_equal(loop_teardown(), 0);
    }
}

/* With segments, a message takes as many of the window's slots in the
 * replay as the stack says, at the segment size a live stack reports. */
static void test_replay_window_cost_matches_the_stack(void **state)
{
    loop_segmentation = 1;
    loop_setup(16, 32, 1);
    uint32_t seg = ini_swp_segment_bytes(loop_a.st.swp);
    struct ini_swp_params p;
    ini_swp_params_default(&p);
    p.mtu = loop_cfg.stack.mtu;
    p.seq_bits = 32;
    p.segment = 1;
    assert_true(seg > 0);
    for (uint32_t len = 16; len <= 65000; len++)
        if ((uint32_t)replay_window_cost(seg, len) != ini_swp_window_cost(&p, len))
            fail_msg("%u bytes: the replay takes %d slots, the stack %u (segment %u bytes)", len,
                     replay_window_cost(seg, len), ini_swp_window_cost(&p, len), seg);
    p.segment = 0;
    assert_int_equal(replay_window_cost(0, 65000), (int)ini_swp_window_cost(&p, 65000));
    assert_int_equal(loop_teardown(), 0);
    loop_segmentation = 0;
}

int main(void)
{
    if (loop_global_init("test_replay") < 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_as_run),
        cmocka_unit_test(test_replay_slower_ini),
        cmocka_unit_test(test_replay_node_mode),
        cmocka_unit_test(test_replay_window),
        cmocka_unit_test(test_critical_chain),
        cmocka_unit_test(test_critical_without_barriers),
        cmocka_unit_test(test_critical_refuses_a_cycle),
        cmocka_unit_test(test_cn_reader_refuses),
        cmocka_unit_test(test_graph_needs_version_2),
        cmocka_unit_test(test_replay_ack_threshold_matches_the_stack),
        cmocka_unit_test(test_replay_window_cost_matches_the_stack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
