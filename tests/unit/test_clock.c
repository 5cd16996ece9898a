/*
 * test_clock.c - the run's one clock across hosts (issue 46, point 1):
 * the launcher's least-delay sample (tools/cluster/cluster_clock.c) and
 * clocks.tsv read back by the trace tools (tools/trace/cn_file.c).
 *
 *  - of several rounds the one with the least round trip gives the offset,
 *    and half that round trip is its uncertainty; a round trip < 0 (the
 *    head's clock stepped back) is passed over;
 *  - a file written by the launcher reads back with both measurements;
 *    the offset between them is interpolated (drift), and before the
 *    first or after the last extrapolated on the same line;
 *  - the earlier form "host offset_ns rtt_ns" reads with uncertainty
 *    RTT / 2 and no drift;
 *  - a damaged line is refused naming the file and the line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cluster/cluster_clock.h"
#include "trace/cn_file.h"
#include "trace_fixtures/trace_fixture.h"

static void least_delay_kept(void **state)
{
    (void)state;
    struct clock_best b;
    clock_best_init(&b);
    clock_sample(&b, 1000, 1500 - 7, 2000);     /* rtt 1000: offset +7 */
    clock_sample(&b, 3000, 3100 + 2, 3200);     /* rtt 200: offset -2, kept */
    clock_sample(&b, 4000, 4500, 5000);         /* rtt 1000 again: passed over */
    clock_sample(&b, 6000, 5000, 5900);         /* rtt < 0: passed over */
    assert_int_equal(b.rtt_ns, 200);
    assert_int_equal(b.offset_ns, -2);
    assert_int_equal(b.at_ns, 3100);
    assert_int_equal(clock_uncertainty_ns(&b), 100);
}

static void written_and_read_back(void **state)
{
    (void)state;
    char *dir = fx_mkdir();
    struct clock_entry e[2];
    memset(e, 0, sizeof e);
    snprintf(e[0].host, sizeof e[0].host, "h0");
    e[0].start = (struct clock_best){ 1000, 60, 1000000000 };
    e[0].end = (struct clock_best){ 3000, 80, 3000000000 };
    snprintf(e[1].host, sizeof e[1].host, "h1");
    e[1].start = (struct clock_best){ -500, 40, 1000000000 };
    clock_best_init(&e[1].end);                  /* not measured at the end */
    char err[256];
    assert_int_equal(clock_write(dir, e, 2, err, sizeof err), 0);
    struct clock_table t;
    assert_int_equal(clock_table_load(&t, dir, err, sizeof err), 0);
    assert_int_equal(t.n, 2);
    int64_t off;
    /* h0: +1 us at (host clock) 1e9 - 1000, +3 us at 3e9 - 3000 */
    assert_int_equal(clock_table_offset(&t, "h0", 1e9 - 1000, &off), 0);
    assert_int_equal(off, 1000);
    assert_int_equal(clock_table_offset(&t, "h0", 2e9 - 2000, &off), 0);
    assert_int_equal(off, 2000);
    assert_int_equal(clock_table_offset(&t, "h1", 5e9, &off), 0);
    assert_int_equal(off, -500);
    assert_int_equal(clock_table_offset(&t, "h2", 1e9, &off), -1);
    int which;
    assert_int_equal(clock_table_uncertainty(&t, &which), 40);
    assert_string_equal(t.host[which], "h0");
    fx_rmdir(dir);
}

static void earlier_form_and_damage(void **state)
{
    (void)state;
    char *dir = fx_mkdir(), path[4096], err[512];
    snprintf(path, sizeof path, "%s/clocks.tsv", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "host\toffset_ns\trtt_ns\nvm\t-250\t1001\n");
    fclose(f);
    struct clock_table t;
    assert_int_equal(clock_table_load(&t, dir, err, sizeof err), 0);
    int64_t off;
    int which;
    assert_int_equal(clock_table_offset(&t, "vm", 7e9, &off), 0);
    assert_int_equal(off, -250);
    assert_int_equal(clock_table_uncertainty(&t, &which), 501);
    f = fopen(path, "w");
    fprintf(f, "host\toffset_ns\tuncertainty_ns\tat_ns\tend_offset_ns\tend_uncertainty_ns\tend_at_ns\n"
               "h0\t1\t2\t3\t4\t5\t6\nh1\t1\t2\t3\n");
    fclose(f);
    assert_int_equal(clock_table_load(&t, dir, err, sizeof err), -1);
    assert_non_null(strstr(err, "clocks.tsv:3: expected HOST OFFSET_NS UNCERTAINTY_NS"));
    fx_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(least_delay_kept),
        cmocka_unit_test(written_and_read_back),
        cmocka_unit_test(earlier_form_and_damage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
