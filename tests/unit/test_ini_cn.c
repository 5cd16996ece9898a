/*
 * test_ini_cn.c - the compute-node API on a cluster segment made here, with
 * no INI running: ini_pe_kick makes ini_wait return, whether the kick
 * comes before the wait (it is remembered), while it sleeps (from another
 * thread), or not at all (the timeout).  ini_wait tells a kick from the
 * timeout by the time it took: a kick returns long before the 10 s limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "ini_cn.h"
#include "segment.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kick_before_wait_is_remembered),
        cmocka_unit_test(test_kick_wakes_a_sleeping_wait),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
