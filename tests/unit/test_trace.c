/*
 * test_trace.c - the trace writer (ini/trace/trace.c) and the reader's checks
 * (tools/trace/trace_file.c).
 *
 * The writer: off mode records nothing; summary mode keeps only arrival and
 * done; a full buffer counts drops; an uncommitted record is reused; the
 * file's bytes are exactly the layout docs/traces.md documents.  The
 * reader: a round trip, and one test per corruption it must refuse with a
 * one-line error naming the file.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "trace_file.h"
#include "trace_fixtures/trace_fixture.h"

/* ---- writer ---------------------------------------------------------- */

static void test_off_records_nothing(void **state)
{
    struct ini_trace t;
    assert_int_equal(ini_trace_init(&t, INI_TRACE_OFF, 1024, 0, 0, 1000000000), 0);
    struct ini_trace_rec *r = ini_trace_begin(&t, INI_TRACE_OUT, 5, 0);
    assert_null(r);
    ini_trace_set_msg(r, 1, 2, 3, 4);          /* NULL-safe */
    ini_trace_stamp(&t, r, INI_TS_DEQUEUE, 6);
    ini_trace_commit(&t, r, 7);
    assert_int_equal(t.n, 0);
    assert_int_equal(t.dropped, 0);            /* off is not "dropped" */
    char *dir = fx_mkdir();
    char path[1024];
    snprintf(path, sizeof(path), "%s/ini0.trace", dir);
    assert_int_equal(ini_trace_write(&t, path), 0);
    assert_int_equal(access(path, F_OK), -1);  /* no file when off */
    ini_trace_free(&t);
    fx_rmdir(dir);
}

static void test_init_rejects_bad_arguments(void **state)
{
    struct ini_trace t;
    errno = 0;
    assert_int_equal(ini_trace_init(&t, INI_TRACE_DETAILED, 0, 0, 0, 1000), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(ini_trace_init(&t, INI_TRACE_DETAILED, 16, 0, 0, 0), -1);
    assert_int_equal(ini_trace_init(&t, (enum ini_trace_mode)7, 16, 0, 0, 1000), -1);
    assert_null(ini_trace_begin(&t, INI_TRACE_OUT, 1, 0));     /* left off */
}

/* INI 3 (cluster 1)'s trace in `mode`, one record of each kind: outbound (stamps
 * t0..t5 = 10..60), inbound (t1..t6 = 70..120), local (t1, t2, t6 = 130,
 * 140, 150). */
static void three_records(struct ini_trace *t, enum ini_trace_mode mode)
{
    assert_int_equal(ini_trace_init(t, mode, 16, 3, 1, 1000000000), 0);
    fx_out(t, 1, 9, 7, 100, 2, 10, 20, 30, 40, 50, 60);
    fx_in(t, 9, 1, 7, 200, 0, 70, 80, 90, 100, 110, 120);
    fx_local(t, 1, 2, 300, 1, 130, 140, 150);
}

static void test_summary_keeps_arrival_and_done(void **state)
{
    struct ini_trace t;
    three_records(&t, INI_TRACE_SUMMARY);
    assert_int_equal(t.n, 3);
    const struct ini_trace_rec *o = &t.recs[0], *i = &t.recs[1], *l = &t.recs[2];
    /* outbound: slot k = t(k); only t1 (slot 1) and t5 (slot 5) kept */
    assert_int_equal(o->kind, INI_TRACE_OUT);
    assert_int_equal(o->src_pe, 1);
    assert_int_equal(o->dst_pe, 9);
    assert_int_equal(o->peer_ini, 7);
    assert_int_equal(o->len, 100);
    assert_int_equal(o->qlen, 2);
    const uint64_t out_slots[6] = { 0, 20, 0, 0, 0, 60 };
    const uint64_t in_slots[6] = { 70, 0, 0, 0, 0, 120 };
    const uint64_t local_slots[6] = { 130, 0, 0, 0, 0, 150 };
    for (int k = 0; k < 6; k++) {
        assert_int_equal(o->slot[k], out_slots[k]);
        assert_int_equal(i->slot[k], in_slots[k]);
        assert_int_equal(l->slot[k], local_slots[k]);
    }
    assert_int_equal(l->peer_ini, INI_TRACE_NO_PEER);
    ini_trace_free(&t);
}

static void test_detailed_slots(void **state)
{
    struct ini_trace t;
    three_records(&t, INI_TRACE_DETAILED);
    struct ini_trace_rec *l = &t.recs[2];
    ini_trace_stamp(&t, l, INI_TS_IN_IP, 999);         /* no protocol stamps on a local message */
    const uint64_t out_slots[6] = { 10, 20, 30, 40, 50, 60 };   /* t0..t5 */
    const uint64_t in_slots[6] = { 70, 80, 90, 100, 110, 120 }; /* t1..t6 */
    const uint64_t local_slots[6] = { 130, 140, 0, 0, 0, 150 }; /* t1, t2, t6 */
    for (int k = 0; k < 6; k++) {
        assert_int_equal(t.recs[0].slot[k], out_slots[k]);
        assert_int_equal(t.recs[1].slot[k], in_slots[k]);
        assert_int_equal(l->slot[k], local_slots[k]);
    }
    ini_trace_free(&t);
}

static void test_full_buffer_counts_drops(void **state)
{
    struct ini_trace t;
    assert_int_equal(ini_trace_init(&t, INI_TRACE_DETAILED, 2, 0, 0, 1000000000), 0);
    fx_local(&t, 0, 1, 8, 0, 10, 11, 12);
    /* begun and not committed (a fragment that completed nothing): reused */
    struct ini_trace_rec *r = ini_trace_begin(&t, INI_TRACE_IN, 13, 4);
    assert_ptr_equal(r, &t.recs[1]);
    fx_local(&t, 0, 1, 8, 0, 20, 21, 22);
    assert_int_equal(t.n, 2);
    assert_int_equal(t.recs[1].slot[0], 20);
    assert_int_equal(t.recs[1].kind, INI_TRACE_LOCAL);
    /* full: begin gives NULL and the commit counts a drop */
    fx_local(&t, 0, 1, 8, 0, 30, 31, 32);
    struct ini_trace_rec kept;
    ini_trace_rec_init(&kept, INI_TRACE_OUT, 40, 0);
    ini_trace_add(&t, &kept, 50);
    assert_int_equal(t.n, 2);
    assert_int_equal(t.dropped, 2);
    ini_trace_free(&t);
}

static void test_add_copies_a_record_built_elsewhere(void **state)
{
    struct ini_trace t;
    assert_int_equal(ini_trace_init(&t, INI_TRACE_DETAILED, 4, 0, 0, 1000000000), 0);
    struct ini_trace_rec stalled;              /* e.g. kept in a stalled work item */
    ini_trace_rec_init(&stalled, INI_TRACE_OUT, 100, 3);
    ini_trace_set_msg(&stalled, 4, 5, 6, 70);
    ini_trace_stamp(&t, &stalled, INI_TS_SUBMIT, 90);
    ini_trace_stamp(&t, &stalled, INI_TS_DEQUEUE, 110);
    fx_local(&t, 0, 1, 8, 0, 105, 120, 130);   /* another message finishes meanwhile */
    ini_trace_stamp(&t, &stalled, INI_TS_OUT_WINDOW, 140);
    ini_trace_stamp(&t, &stalled, INI_TS_OUT_UDP, 150);
    ini_trace_add(&t, &stalled, 160);
    assert_int_equal(t.n, 2);
    const uint64_t want[6] = { 90, 100, 110, 140, 150, 160 };
    for (int k = 0; k < 6; k++)
        assert_int_equal(t.recs[1].slot[k], want[k]);
    assert_int_equal(t.recs[1].len, 70);
    ini_trace_free(&t);
}

/* The file, byte by byte, as docs/traces.md documents it (version 2). */
static void test_file_layout(void **state)
{
    char *dir = fx_mkdir();
    struct ini_trace t;
    assert_int_equal(fx_init(&t, INI_TRACE_DETAILED, 8, 2994375000ull, 5, 2, 1, 3, 4, 1000, 9000), 0);
    fx_out(&t, 0x0102, 0x0304, 0x0506, 0x0708, 0x0b0c0d0e, 1001, 1002, 1003, 1004, 1005, 1006);
    ini_trace_set_seq(&t.recs[0], 0x11223344);
    t.dropped = 7;
    ini_trace_set_knobs(&t, 397.5, 1);
    snprintf(t.info.host, sizeof(t.info.host), "h1");
    t.info.start_ns = 0x0102030405060708ull;
    t.info.clock = INI_TRACE_CLOCK_VIRTUAL;
    assert_int_equal(fx_write(&t, dir), 0);

    char path[1024];
    snprintf(path, sizeof(path), "%s/ini5.trace", dir);
    size_t n;
    uint8_t *b = fx_slurp(path, &n);
    assert_int_equal(n, 128 + 64);
    assert_memory_equal(b, "INITRACE", 8);
    assert_int_equal(ini_trace_get16(b + 8), 2);            /* version */
    assert_int_equal(ini_trace_get16(b + 10), 128);         /* header size */
    assert_int_equal(ini_trace_get16(b + 12), 64);          /* record size */
    assert_int_equal(ini_trace_get16(b + 14), 2);           /* detailed */
    assert_int_equal(ini_trace_get64(b + 16), 2994375000ull);
    assert_int_equal(ini_trace_get32(b + 24), 5);           /* INI id */
    assert_int_equal(ini_trace_get32(b + 28), 2);           /* cluster */
    assert_int_equal(ini_trace_get32(b + 32), 1);           /* index in cluster */
    assert_int_equal(ini_trace_get32(b + 36), 3);           /* INIs in cluster */
    assert_int_equal(ini_trace_get32(b + 40), 4);           /* PEs in cluster */
    assert_int_equal(b[44], INI_POLICY_STATIC);
    assert_int_equal(b[45], INI_POLICY_ROUND_ROBIN);
    assert_int_equal(b[46], 1);                             /* clock: virtual time's */
    assert_int_equal(b[47], 0);
    assert_int_equal(ini_trace_get64(b + 48), 1);           /* records */
    assert_int_equal(ini_trace_get64(b + 56), 7);           /* dropped */
    assert_int_equal(ini_trace_get64(b + 64), 1000);        /* start */
    assert_int_equal(ini_trace_get64(b + 72), 9000);        /* end */
    assert_int_equal(ini_trace_get64(b + 80), 0x0102030405060708ull);   /* start, CLOCK_REALTIME */
    assert_int_equal(ini_trace_get32(b + 88), 397500);      /* O, ns */
    assert_int_equal(b[92], 1);                             /* O exponential */
    for (int i = 93; i < 96; i++)
        assert_int_equal(b[i], 0);
    assert_memory_equal(b + 96, "h1", 3);                   /* host, NUL-padded */
    for (int i = 99; i < 128; i++)
        assert_int_equal(b[i], 0);
    const uint8_t *r = b + 128;
    assert_int_equal(r[0], INI_TRACE_OUT);
    assert_int_equal(r[1], 0);
    assert_int_equal(ini_trace_get16(r + 2), 0x0506);       /* peer */
    assert_int_equal(ini_trace_get16(r + 4), 0x0102);       /* src */
    assert_int_equal(ini_trace_get16(r + 6), 0x0304);       /* dst */
    assert_int_equal(ini_trace_get16(r + 8), 0x0708);       /* len */
    assert_int_equal(ini_trace_get16(r + 10), 0xffff);      /* qlen, saturated */
    assert_int_equal(ini_trace_get32(r + 12), 0x11223344);  /* the source PE's sequence */
    for (int k = 0; k < 6; k++)
        assert_int_equal(ini_trace_get64(r + 16 + 8 * k), 1001 + k);
    assert_int_equal(r[2], 0x06);                /* little-endian on disk */
    free(b);
    /* no temporary file left behind */
    snprintf(path, sizeof(path), "%s/ini5.trace.tmp", dir);
    assert_int_equal(access(path, F_OK), -1);
    fx_rmdir(dir);
}

/* A version-1 file (32-bit length and queue length, no sequence, no clock
 * anchor) is still read. */
static void test_reads_version_1(void **state)
{
    char *dir = fx_mkdir();
    uint8_t b[128 + 64] = { 0 };
    memcpy(b, "INITRACE", 8);
    ini_trace_put16(b + 8, 1);
    ini_trace_put16(b + 10, 128);
    ini_trace_put16(b + 12, 64);
    ini_trace_put16(b + 14, INI_TRACE_SUMMARY);
    ini_trace_put64(b + 16, 1000000000);
    ini_trace_put32(b + 36, 1);                  /* one INI, index 0, cluster 0 */
    ini_trace_put32(b + 40, 2);
    b[44] = b[45] = INI_POLICY_STATIC;
    ini_trace_put64(b + 48, 1);
    ini_trace_put64(b + 64, 100);
    ini_trace_put64(b + 72, 900);
    uint8_t *r = b + 128;
    r[0] = INI_TRACE_OUT;
    ini_trace_put16(r + 2, 1);
    ini_trace_put16(r + 4, 0);
    ini_trace_put16(r + 6, 1);
    ini_trace_put32(r + 8, 70000);               /* longer than version 2 can say */
    ini_trace_put32(r + 12, 70001);
    ini_trace_put64(r + 16 + 8, 200);            /* t1 */
    ini_trace_put64(r + 16 + 40, 300);           /* done */
    char path[1024], err[TRACE_ERR_LEN];
    snprintf(path, sizeof(path), "%s/ini0.trace", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, sizeof(b), 1, f), 1);
    fclose(f);
    struct trace_file tf;
    assert_int_equal(trace_file_load(&tf, path, err, sizeof(err)), 0);
    assert_int_equal(tf.version, 1);
    assert_int_equal(tf.msgs[0].len, 70000);
    assert_int_equal(tf.msgs[0].qlen, 70001);
    assert_int_equal(tf.msgs[0].seq, 0);
    assert_int_equal(tf.info.start_ns, 0);
    assert_int_equal(tf.msgs[0].t[INI_TS_OUT_DONE], 300);
    trace_file_free(&tf);
    fx_rmdir(dir);
}

static void test_write_to_missing_directory_fails(void **state)
{
    struct ini_trace t;
    assert_int_equal(fx_init(&t, INI_TRACE_SUMMARY, 8, 1000, 0, 0, 0, 1, 1, 10, 20), 0);
    errno = 0;
    assert_int_equal(ini_trace_write(&t, "/nonexistent-dir/ini0.trace"), -1);
    assert_int_equal(errno, ENOENT);
    ini_trace_free(&t);
}

/* ---- reader ---------------------------------------------------------- */

static void test_round_trip(void **state)
{
    char *dir = fx_mkdir();
    struct ini_trace t;
    assert_int_equal(fx_init(&t, INI_TRACE_DETAILED, 8, 2000000000, 0, 0, 0, 1, 2, 1000, 9000), 0);
    fx_one_of_each(&t);
    assert_int_equal(fx_write(&t, dir), 0);
    char path[1024], err[TRACE_ERR_LEN];
    snprintf(path, sizeof(path), "%s/ini0.trace", dir);
    struct trace_file f;
    assert_int_equal(trace_file_load(&f, path, err, sizeof(err)), 0);
    assert_int_equal(f.mode, INI_TRACE_DETAILED);
    assert_int_equal(f.n, 3);
    assert_int_equal(f.info.tsc_hz, 2000000000);
    assert_int_equal(f.info.cluster_inis, 1);
    assert_int_equal(f.info.cluster_pes, 2);
    assert_int_equal(f.info.pe_policy, INI_POLICY_STATIC);
    assert_int_equal(f.info.ini_policy, INI_POLICY_ROUND_ROBIN);
    assert_string_equal(f.name, "ini0.trace");
    const uint64_t out_t[8] = { 900, 1100, 1150, 1200, 1300, 1500, 0, 0 };
    const uint64_t in_t[8] = { 0, 2000, 2010, 2100, 2200, 2250, 2300, 0 };
    const uint64_t local_t[8] = { 0, 3000, 3005, 0, 0, 0, 3050, 0 };
    for (int k = 0; k < 8; k++) {
        assert_int_equal(f.msgs[0].t[k], out_t[k]);
        assert_int_equal(f.msgs[1].t[k], in_t[k]);
        assert_int_equal(f.msgs[2].t[k], local_t[k]);
    }
    assert_int_equal(f.msgs[1].len, 50);
    assert_int_equal(f.msgs[1].src_pe, 2);
    assert_int_equal(f.msgs[2].qlen, 3);
    trace_file_free(&f);

    struct trace_run run;
    assert_int_equal(trace_run_load(&run, dir, err, sizeof(err)), 0);
    assert_int_equal(run.n_files, 1);
    trace_run_free(&run);
    fx_rmdir(dir);
}

/* A new run directory and *t ready for INI 0 alone in cluster 0, at
 * `level`, its run from `start` to `end`: the test adds the records. */
static char *one_ini_run(struct ini_trace *t, int level, uint64_t start, uint64_t end)
{
    char *dir = fx_mkdir();
    assert_int_equal(fx_init(t, level, 8, 1000000000, 0, 0, 0, 1, 2, start, end), 0);
    return dir;
}

/* A run directory with one valid detailed trace of INI 0 (cluster 0, one
 * INI); returns the directory, the trace's path in path. */
static char *one_valid_run(char *path, size_t n)
{
    struct ini_trace t;
    char *dir = one_ini_run(&t, INI_TRACE_DETAILED, 1000, 9000);
    fx_out(&t, 0, 2, 1, 100, 1, 900, 1100, 1150, 1200, 1300, 1500);
    fx_out(&t, 0, 2, 1, 100, 1, 900, 2100, 2150, 2200, 2300, 2500);
    assert_int_equal(fx_write(&t, dir), 0);
    snprintf(path, n, "%s/ini0.trace", dir);
    return dir;
}

/* Loading the run fails and the message names the file and says what. */
static void expect_run_error(const char *dir, const char *names, const char *says)
{
    char err[TRACE_ERR_LEN];
    struct trace_run run;
    assert_int_equal(trace_run_load(&run, dir, err, sizeof(err)), -1);
    if (!strstr(err, names) || !strstr(err, says))
        fail_msg("error \"%s\" should name \"%s\" and say \"%s\"", err, names, says);
    assert_null(strchr(err, '\n'));
}

static void test_missing_directory(void **state)
{
    expect_run_error("/nonexistent-run-dir", "/nonexistent-run-dir", "No such file");
}

static void test_no_trace_files(void **state)
{
    char *dir = fx_mkdir();
    char path[1024];
    snprintf(path, sizeof(path), "%s/ini0.counters.json", dir);
    fx_spill(path, (const uint8_t *)"{}", 2);
    expect_run_error(dir, dir, "no ini<ID>.trace files");
    fx_rmdir(dir);
}

static void test_truncated_header(void **state)
{
    char path[1024];
    char *dir = one_valid_run(path, sizeof(path));
    assert_int_equal(truncate(path, 50), 0);
    expect_run_error(dir, "ini0.trace", "truncated");
    fx_rmdir(dir);
}

static void test_truncated_records(void **state)
{
    char path[1024];
    char *dir = one_valid_run(path, sizeof(path));
    assert_int_equal(truncate(path, 128 + 64 + 10), 0);
    expect_run_error(dir, "ini0.trace", "header says 2 records");
    fx_rmdir(dir);
}

static void test_extra_bytes(void **state)
{
    char path[1024];
    char *dir = one_valid_run(path, sizeof(path));
    FILE *f = fopen(path, "ab");
    fputs("junk", f);
    fclose(f);
    expect_run_error(dir, "ini0.trace", "header says 2 records");
    fx_rmdir(dir);
}

/* Rewrites byte `off` of the run's trace, then expects `says`. */
static void corrupt_byte(size_t off, uint8_t value, const char *says)
{
    char path[1024];
    char *dir = one_valid_run(path, sizeof(path));
    size_t n;
    uint8_t *b = fx_slurp(path, &n);
    b[off] = value;
    fx_spill(path, b, n);
    free(b);
    expect_run_error(dir, "ini0.trace", says);
    fx_rmdir(dir);
}

static void test_bad_magic(void **state)
{
    corrupt_byte(0, 'X', "bad magic");
}

static void test_unknown_version(void **state)
{
    corrupt_byte(8, 3, "unknown format version 3");
}

static void test_unknown_mode(void **state)
{
    corrupt_byte(14, 9, "unknown trace mode 9");
}

static void test_huge_record_count(void **state)
{
    corrupt_byte(48 + 7, 0x80, "records");      /* n * 64 would overflow */
}

/* Ids and sizes the readers size their tables by, beyond the system's
 * limits (config.h): a fuzzed cluster id of millions had the replay ask
 * for 3.5 GB (tests/fuzz/regress/trace/cluster_id_of_millions). */
static void test_ids_beyond_the_limits(void **state)
{
    corrupt_byte(28 + 2, 0x98, "beyond the system's 128 INIs and 64 clusters");   /* cluster id */
    corrupt_byte(24 + 1, 0x01, "beyond the system's");                           /* INI id 256 */
    corrupt_byte(36 + 1, 0x01, "a cluster of 257 INIs");
    corrupt_byte(40 + 1, 0x01, "(at most 16 and 64)");                            /* compute nodes */
}

/* A clock no machine has: the replay turns stamps into ns and back, and a
 * fuzzed span of 1.8e19 ticks overflowed that (UBSan, replay.c to_tsc). */
static void test_clock_beyond_the_limits(void **state)
{
    corrupt_byte(16 + 7, 0x01, "a TSC of");                  /* 7.2e16 Hz */
    corrupt_byte(72 + 7, 0x01, "at most 1000000 s");         /* a span of 7.2e16 ticks */
}

static void test_unknown_kind(void **state)
{
    corrupt_byte(128 + 64, 9, "record 1: unknown kind 9");
}

/* The damaged one-INI run: the test has added its records to *t (from
 * one_ini_run); writing it succeeds and loading the run refuses
 * ini0.trace saying `says`. */
static void expect_one_ini_error(struct ini_trace *t, char *dir, const char *says)
{
    assert_int_equal(fx_write(t, dir), 0);
    expect_run_error(dir, "ini0.trace", says);
    fx_rmdir(dir);
}

static void test_stamps_out_of_order(void **state)
{
    struct ini_trace t;
    char *dir = one_ini_run(&t, INI_TRACE_DETAILED, 1000, 9000);
    fx_out(&t, 0, 2, 1, 100, 1, 900, 1100, 1150, 1200, 1300, 1500);
    fx_in(&t, 2, 0, 1, 100, 0, 2000, 2010, 2300, 2200, 2400, 2500);   /* t3 > t4 */
    expect_one_ini_error(&t, dir, "record 1 (inbound): stamps out of order: t4 = 2200 < t3 = 2300");
}

static void test_missing_stamp(void **state)
{
    struct ini_trace t;
    char *dir = one_ini_run(&t, INI_TRACE_DETAILED, 1000, 9000);
    fx_out(&t, 0, 2, 1, 100, 1, 0, 1100, 1150, 1200, 1300, 1500);     /* no t0 */
    expect_one_ini_error(&t, dir, "stamp t0 missing in a detailed trace");
}

static void test_record_outside_run(void **state)
{
    struct ini_trace t;
    char *dir = one_ini_run(&t, INI_TRACE_SUMMARY, 1000, 2000);
    fx_local(&t, 0, 1, 8, 0, 1500, 1600, 2500);
    expect_one_ini_error(&t, dir, "outside the run");
}

/* An empty summary trace of INI ini, index `index` in cluster 0 of
 * `inis` INIs (2 compute nodes), written into dir. */
static void write_empty(const char *dir, int ini, int index, int inis)
{
    struct ini_trace t;
    assert_int_equal(fx_init(&t, INI_TRACE_SUMMARY, 8, 1000000000, ini, 0, index, inis, 2, 1000, 2000), 0);
    assert_int_equal(fx_write(&t, dir), 0);
}

/* Runs whose cluster 0 is not one consistent set of INIs: the empty
 * traces written (INI, index, INIs in the cluster), the file the refusal
 * names and what it says. */
static const struct {
    int n_traces;
    int trace[2][3];
    const char *names, *says;
} shape_cases[] = {
    { 2, { { 0, 0, 2 }, { 1, 1, 3 } }, "ini1.trace", "says cluster 0 has 3 INIs, but ini0.trace (INI 0) says 2" },
    { 1, { { 0, 0, 2 } }, "ini0.trace", "cluster 0 has 2 INIs but 1 trace files" },   /* a missing sibling */
    { 2, { { 0, 1, 2 }, { 1, 1, 2 } }, "ini1.trace", "same index 1" },
};

static void test_cluster_shape_refusals(void **state)
{
    for (size_t i = 0; i < sizeof(shape_cases) / sizeof(shape_cases[0]); i++) {
        char *dir = fx_mkdir();
        for (int k = 0; k < shape_cases[i].n_traces; k++)
            write_empty(dir, shape_cases[i].trace[k][0], shape_cases[i].trace[k][1], shape_cases[i].trace[k][2]);
        expect_run_error(dir, shape_cases[i].names, shape_cases[i].says);
        fx_rmdir(dir);
    }
}

static void test_name_and_header_disagree(void **state)
{
    char path[1024], other[1024];
    char *dir = one_valid_run(path, sizeof(path));
    snprintf(other, sizeof(other), "%s/ini7.trace", dir);
    assert_int_equal(rename(path, other), 0);
    expect_run_error(dir, "ini7.trace", "the header says INI 0");
    fx_rmdir(dir);
}

static void test_cluster_size_not_recorded(void **state)
{
    char *dir = fx_mkdir();
    struct ini_trace t;
    assert_int_equal(ini_trace_init(&t, INI_TRACE_SUMMARY, 8, 0, 0, 1000000000), 0);
    ini_trace_run_start(&t, 10);
    ini_trace_run_end(&t, 20);                  /* set_cluster never called */
    expect_one_ini_error(&t, dir, "number of INIs in the cluster was not recorded");
}

static void test_run_span_not_recorded(void **state)
{
    struct ini_trace t;
    char *dir = one_ini_run(&t, INI_TRACE_SUMMARY, 0, 0);
    expect_one_ini_error(&t, dir, "run span");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_off_records_nothing),
        cmocka_unit_test(test_init_rejects_bad_arguments),
        cmocka_unit_test(test_summary_keeps_arrival_and_done),
        cmocka_unit_test(test_detailed_slots),
        cmocka_unit_test(test_full_buffer_counts_drops),
        cmocka_unit_test(test_add_copies_a_record_built_elsewhere),
        cmocka_unit_test(test_file_layout),
        cmocka_unit_test(test_reads_version_1),
        cmocka_unit_test(test_write_to_missing_directory_fails),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_missing_directory),
        cmocka_unit_test(test_no_trace_files),
        cmocka_unit_test(test_truncated_header),
        cmocka_unit_test(test_truncated_records),
        cmocka_unit_test(test_extra_bytes),
        cmocka_unit_test(test_bad_magic),
        cmocka_unit_test(test_unknown_version),
        cmocka_unit_test(test_unknown_mode),
        cmocka_unit_test(test_huge_record_count),
        cmocka_unit_test(test_ids_beyond_the_limits),
        cmocka_unit_test(test_clock_beyond_the_limits),
        cmocka_unit_test(test_unknown_kind),
        cmocka_unit_test(test_stamps_out_of_order),
        cmocka_unit_test(test_missing_stamp),
        cmocka_unit_test(test_record_outside_run),
        cmocka_unit_test(test_cluster_shape_refusals),
        cmocka_unit_test(test_name_and_header_disagree),
        cmocka_unit_test(test_cluster_size_not_recorded),
        cmocka_unit_test(test_run_span_not_recorded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
