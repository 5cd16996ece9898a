/*
 * test_timeline.c - `ini-trace timeline` (tools/trace/timeline.c) on a
 * hand-built run of two clusters of one node and one INI each: node 0's
 * request crosses both INIs at 100-200, node 1's handler answers at 2000,
 * and the answer's handler runs at node 0 at 2100, where the action that
 * processes it begins.  Each message gets one flow of five points (the
 * action that sent it, both INI services, the handler, the action that
 * processed it): ten flow events.
 *
 * The same run with node 0's action stamped 1 ns before its handler (the
 * skew of two CPUs' clocks when the thread moved between them, as on this
 * machine's virtual CPUs): the answer's flow would go back in time, so it
 * is left out, and the request's stays: five flow events, one end.
 *
 * The same run as the library records it for any program (header flags
 * INI_CN_HDR_NODE_HANDLERS | INI_CN_HDR_LIBRARY): its messages are named
 * by handler id (types 1 and 2: "h1 out", "h2 in", "on h2"), and its
 * flows are drawn as before.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "commands.h"
#include "trace_fixtures/run_fixture.h"

static char *two_message_run(uint64_t answer_action_t0)
{
    char *dir = fx_mkdir();
    struct ini_trace i0, i1;
    struct ini_cn_trace c0, c1;
    assert_int_equal(fx_two_clusters(&i0, &i1, &c0, &c1), 0);
    /* node 0's request to node 1, answered by node 1's action 1; node 0's
     * action on the answer starts at answer_action_t0 */
    fx_request_answered(&i0, &i1, &c0, &c1, 1, answer_action_t0);
    assert_int_equal(fx_two_write(dir, &i0, &i1, &c0, &c1), 0);
    return dir;
}

/* Runs `ini-trace timeline DIR -o DIR/tl.json`; counts the flow events
 * and the flows' ends in the file. */
static void timeline_flows(const char *dir, int *events, int *ends)
{
    char out[512];
    snprintf(out, sizeof(out), "%s/tl.json", dir);
    char *argv[] = { "ini-trace", "timeline", (char *)dir, "-o", out, NULL };
    assert_int_equal(cmd_timeline(5, argv), 0);
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    char line[1024];
    *events = *ends = 0;
    while (fgets(line, sizeof(line), f))
        if (strstr(line, "\"cat\":\"flow\"")) {
            (*events)++;
            *ends += strstr(line, "\"ph\":\"f\"") != NULL;
        }
    fclose(f);
}

/* The run with the answer's action at `t0`: its flow events and ends. */
static void expect_flows(uint64_t t0, int want_events, int want_ends)
{
    char *dir = two_message_run(t0);
    int events, ends;
    timeline_flows(dir, &events, &ends);
    assert_int_equal(events, want_events);
    assert_int_equal(ends, want_ends);
    fx_rmdir(dir);
}

/* The library's run: messages named by handler id, flows as before. */
static void test_timeline_library_names(void **state)
{
    (void)state;
    char *dir = fx_mkdir();
    struct ini_trace i0, i1;
    struct ini_cn_trace c0, c1;
    assert_int_equal(fx_two_clusters(&i0, &i1, &c0, &c1), 0);
    fx_request_answered(&i0, &i1, &c0, &c1, 1, 2100);
    const unsigned lib = INI_CN_HDR_NODE_HANDLERS | INI_CN_HDR_LIBRARY;
    assert_int_equal(fx_write(&i0, dir), 0);
    assert_int_equal(fx_write(&i1, dir), 0);
    assert_int_equal(fx_cn_write_flags(&c0, dir, 0, lib), 0);
    assert_int_equal(fx_cn_write_flags(&c1, dir, 1, lib), 0);
    int events, ends;
    timeline_flows(dir, &events, &ends);
    assert_int_equal(events, 10);
    char path[512], text[65536];
    snprintf(path, sizeof(path), "%s/tl.json", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *want[] = { "\"h1 out\"", "\"h1 in\"", "\"h2 out\"", "\"h2 in\"", "\"handler h2\"", "\"on h2\"" };
    for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
        if (!strstr(text, want[k]))
            fail_msg("no %s in the timeline", want[k]);
    fx_rmdir(dir);
}

static void test_timeline_flows_in_order(void **state)
{
    (void)state;
    expect_flows(2100, 10, 2);
}

static void test_timeline_skewed_flow_left_out(void **state)
{
    (void)state;
    expect_flows(2099, 5, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timeline_flows_in_order),
        cmocka_unit_test(test_timeline_skewed_flow_left_out),
        cmocka_unit_test(test_timeline_library_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
