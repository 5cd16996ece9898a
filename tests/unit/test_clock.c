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
 *  - a damaged line is refused naming the file and the line;
 *  - the INIs' measurements over their links (RUN_DIR/ini<ID>.clock)
 *    replace the channel's: every host put on the reference host's clock
 *    (the least channel round trip) by the path of least total round
 *    trip over the links (either way; round a slow direct link), its
 *    uncertainty half that; a host without a path keeps the channel's
 *    offset, uncertain by both channels' errors; an end that moved less
 *    than both errors keeps the start's offset (no drift resolved).
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

static void ini_file(const char *dir, int id, const char *lines)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/ini%d.clock", dir, id);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, CLOCK_INI_FILE_HEADER "%s", lines);
    fclose(f);
}

static void inis_links_replace_channel(void **state)
{
    (void)state;
    char *dir = fx_mkdir(), err[256], note[256];
    struct clock_entry e[5];
    memset(e, 0, sizeof e);
    const char *names[5] = { "h0", "h1", "h2", "h3", "h4" };
    const struct clock_best chan[5] = { { 100000, 80000, 1000000000 }, { -200000, 60000, 1000000000 },
                                        { 50000, 120000, 1000000000 }, { 3000, 90000, 1000000000 },
                                        { 1000, 100000, 1000000000 } };
    for (int i = 0; i < 5; i++) {
        snprintf(e[i].host, sizeof e[i].host, "%s", names[i]);
        e[i].start = chan[i];
        clock_best_init(&e[i].end);
    }
    int host_of_ini[6] = { 0, 1, 2, 2, 3, 4 };
    /* INI 1 (h1) measured h0 (+7 us, +40 us at the end: a drift beyond
     * both errors) and h2 (a round trip of 30 us, beaten below) */
    ini_file(dir, 1, "0\t7000\t20000\t1000000000\t40000\t22000\t3000000000\n"
                     "2\t-3000\t30000\t1000000000\t0\t-1\t0\n");
    /* INI 3 (h2) measured h1 the other way: h2 = h1 + 2.9 us */
    ini_file(dir, 3, "1\t2900\t10000\t1000002900\t3100\t12000\t3000003100\n");
    /* INI 4 (h3): h1 slowly (h3 = h1 - 50 us, a round trip of 400 us),
     * h0 fast (h3 = h0 - 1 us): by way of h0, +8 us to h1, 22 us */
    ini_file(dir, 4, "1\t-50000\t400000\t1000000000\t0\t-1\t0\n"
                     "0\t-1000\t2000\t1000000000\t0\t-1\t0\n");
    assert_int_equal(clock_from_inis(dir, e, 5, host_of_ini, 6, note, sizeof note), 3);
    assert_non_null(strstr(note, "over the INIs' links: 3 hosts against host h1"));
    assert_int_equal(clock_write_note(dir, e, 5, note, err, sizeof err), 0);
    struct clock_table t;
    assert_int_equal(clock_table_load(&t, dir, err, sizeof err), 0);
    assert_int_equal(t.n, 5);
    assert_string_equal(t.how, note);
    const int64_t off[5] = { -193000, -200000, -202900, -192000, 1000 };
    const int64_t unc[5] = { 10000, 0, 5000, 11000, 80000 };
    /* h2's end moved by 0.2 us, within both errors: the start's offset,
     * uncertain by the start's error and twice the end's (5 + 2 x 6 us) */
    const int64_t end_off[5] = { -160000, -200000, -202900, -192000, 1000 };
    const int64_t end_unc[5] = { 11000, 0, 17000, 11000, 80000 };
    for (int i = 0; i < 5; i++) {
        assert_string_equal(t.host[i], names[i]);
        assert_int_equal(t.offset_ns[i], off[i]);
        assert_int_equal(t.uncertainty_ns[i], unc[i]);
        assert_int_equal(t.end_offset_ns[i], end_off[i]);
        assert_int_equal(t.end_uncertainty_ns[i], end_unc[i]);
    }
    /* No file at all: nothing changes. */
    fx_rmdir(dir);
    dir = fx_mkdir();
    e[0].start = chan[0];
    assert_int_equal(clock_from_inis(dir, e, 5, host_of_ini, 6, note, sizeof note), 0);
    assert_int_equal(e[0].start.offset_ns, 100000);
    fx_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(least_delay_kept),
        cmocka_unit_test(written_and_read_back),
        cmocka_unit_test(earlier_form_and_damage),
        cmocka_unit_test(inis_links_replace_channel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
