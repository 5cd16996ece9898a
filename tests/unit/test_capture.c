/*
 * test_capture.c - the pcapng writer's time stamps (ini/daemon/capture.h):
 * on the host's clock a frame is stamped by its TSC from the open's
 * (CLOCK_REALTIME, TSC) pair; on another clock (ini_capture_set_clock,
 * the virtual-time mode's) by its ticks alone, so two captures of the
 * same frames are the same bytes whenever and wherever they are made.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ini/daemon/capture.h"

#define HOST_HZ 3000000000ull
#define VT_HZ   20000000ull

struct epb {
    uint64_t ns;
    uint32_t flags, caplen;
};

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/test_capture.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

/* The files the tests write, removed, then the directory: rmdir fails
 * if a test left another file behind. */
static int teardown(void **state)
{
    (void)state;
    static const char *const names[] = { "a.pcapng", "b.pcapng", "h.pcapng", "v.pcapng" };
    char path[128];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    return rmdir(dir);
}

/* Writes name: two frames of 60 bytes, out at t0 and in at t1, in the
 * units of the clock (hz: ini_capture_set_clock's; 0: the host's TSC,
 * opened at open_tsc). */
static void write_capture(const char *name, uint64_t open_tsc, uint64_t hz, uint64_t t0, uint64_t t1)
{
    char path[128], err[256];
    struct ini_capture_opts o = { 0, 0, 0 };
    struct ini_capture c;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(ini_capture_open(&c, path, &o, open_tsc, HOST_HZ, err, sizeof err), 0);
    if (hz)
        ini_capture_set_clock(&c, hz);
    assert_int_equal(ini_capture_add_iface(&c, "p0"), 0);
    uint8_t frame[60];
    memset(frame, 0xab, sizeof frame);
    assert_int_equal(ini_capture_reserve(&c, 2 * ini_capture_frame_size(&c, 60, 0), 2), 0);
    memcpy(ini_capture_frame(&c, 0, INI_CAPTURE_OUT, t0, 60), frame, 60);
    memcpy(ini_capture_frame(&c, 0, INI_CAPTURE_IN, t1, 60), frame, 60);
    ini_capture_close(&c);
}

static size_t read_file(const char *name, uint8_t *buf, size_t cap)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

static uint32_t get32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* The file's enhanced packet blocks, at most max; returns how many. */
static int read_epbs(const char *name, struct epb *e, int max)
{
    static uint8_t buf[4096];
    size_t n = read_file(name, buf, sizeof buf), off = 0;
    int k = 0;
    while (off + 12 <= n && k < max) {
        uint32_t type = get32(buf + off), total = get32(buf + off + 4);
        assert_true(total >= 12 && off + total <= n);
        if (type == 6) {
            const uint8_t *b = buf + off;
            e[k].ns = (uint64_t)get32(b + 12) << 32 | get32(b + 16);
            e[k].caplen = get32(b + 20);
            e[k].flags = get32(b + 28 + ((e[k].caplen + 3) & ~3u) + 4);   /* epb_flags, the first option */
            k++;
        }
        off += total;
    }
    return k;
}

/* The emulated clock: cycle c of a 20 MHz machine is c x 50 ns. */
static void test_virtual_stamps(void **state)
{
    (void)state;
    write_capture("v.pcapng", 777, VT_HZ, 2493, 10320);
    struct epb e[4];
    assert_int_equal(read_epbs("v.pcapng", e, 4), 2);
    assert_int_equal(e[0].ns, 124650);
    assert_int_equal(e[1].ns, 516000);
    assert_int_equal(e[0].flags, INI_CAPTURE_OUT);
    assert_int_equal(e[1].flags, INI_CAPTURE_IN);
    assert_int_equal(e[0].caplen, 60);
}

/* Two captures of the same frames on the emulated clock, opened at other
 * host times, are the same bytes. */
static void test_virtual_same_bytes(void **state)
{
    (void)state;
    write_capture("a.pcapng", 1000, VT_HZ, 2493, 10320);
    usleep(2000);
    write_capture("b.pcapng", 987654321, VT_HZ, 2493, 10320);
    static uint8_t a[4096], b[4096];
    size_t na = read_file("a.pcapng", a, sizeof a), nb = read_file("b.pcapng", b, sizeof b);
    assert_true(na > 100);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na);
}

/* The host's clock: stamps follow the TSC from the open, at its rate. */
static void test_host_stamps(void **state)
{
    (void)state;
    uint64_t t = 5000000000ull;
    write_capture("h.pcapng", t, 0, t + HOST_HZ / 1000, t + HOST_HZ);
    struct epb e[4];
    assert_int_equal(read_epbs("h.pcapng", e, 4), 2);
    assert_int_equal(e[1].ns - e[0].ns, 999000000ull);
    assert_true(e[0].ns > 1700000000ull * 1000000000ull);    /* since the epoch, now */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_virtual_stamps),
        cmocka_unit_test(test_virtual_same_bytes),
        cmocka_unit_test(test_host_stamps),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
