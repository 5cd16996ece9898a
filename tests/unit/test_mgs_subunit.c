/*
 * test_mgs_subunit.c - MGS units smaller than a page (MGS_UNIT_BYTES=1024,
 * four units to a 4 KiB page), standalone (one cluster, homes local), one
 * thread, so every fault and counter is known in advance:
 *   - a read of one unit of an invalid page fetches the unit, then each of
 *     its three siblings (the page opens only when all four are valid):
 *     4 read faults, 3 of them served for a sibling, 4 units fetched;
 *   - a write to one unit of that read-only page upgrades it and then its
 *     three siblings: 4 write faults, 3 for a sibling, 4 upgrades;
 *   - the barrier's flush releases the written unit only (a single-writer
 *     grant: the only holder) and takes the three unchanged siblings back
 *     to read-only with no REL (unchanged_releases 3);
 *   - writing the granted unit again faults for its read-only siblings
 *     only (3 write faults, all for a sibling): a unit whose state already
 *     allows the access is never served again (no livelock);
 *   - the contents: the set-up byte, the written bytes, and the untouched
 *     bytes still zero.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "mgs.h"

#define UNIT 1024

/* What the scenario's steps added to the counters since `before`. */
struct delta {
    uint64_t read_faults, write_faults, sibling_faults, fetched, upgrades, unchanged, releases, grants;
};

static struct delta since(const struct mgs_counters *before)
{
    struct mgs_counters now;
    mgs_get_counters(&now);
    struct delta d = {
        now.read_faults - before->read_faults,       now.write_faults - before->write_faults,
        now.sibling_faults - before->sibling_faults, now.pages_fetched - before->pages_fetched,
        now.upgrades - before->upgrades,             now.unchanged_releases - before->unchanged_releases,
        now.releases - before->releases,             now.sw_grants - before->sw_grants,
    };
    return d;
}

/* The counters moved by exactly `want` since `before`. */
static void expect(const struct mgs_counters *before, struct delta want)
{
    struct delta got = since(before);
    assert_int_equal(got.read_faults, want.read_faults);
    assert_int_equal(got.write_faults, want.write_faults);
    assert_int_equal(got.sibling_faults, want.sibling_faults);
    assert_int_equal(got.fetched, want.fetched);
    assert_int_equal(got.upgrades, want.upgrades);
    assert_int_equal(got.unchanged, want.unchanged);
    assert_int_equal(got.releases, want.releases);
    assert_int_equal(got.grants, want.grants);
}

static void test_subunit(void **state)
{
    (void)state;
    long page = sysconf(_SC_PAGESIZE);
    if (page != 4096)
        skip();     /* the expected counts are for four units to a page */
    char err[256];
    setenv("MGS_UNIT_BYTES", "1024", 1);
    unsetenv("MGS_UNIT_PAGES");
    assert_int_equal(mgs_start_standalone(1, err, sizeof err), 0);
    assert_int_equal(mgs_unit_size(), UNIT);
    volatile uint8_t *p = mgs_alloc(2 * (size_t)page, (size_t)page);
    assert_non_null(p);
    p[UNIT + 5] = 0x11;                        /* set-up data in unit 1 of the page */
    assert_int_equal(mgs_begin_parallel(1, err, sizeof err), 0);
    mgs_thread_enter(0);

    /* Each step's counts, all eight fields checked (the rest 0). */
    struct mgs_counters c0;
    mgs_get_counters(&c0);
    assert_int_equal(p[UNIT + 5], 0x11);
    expect(&c0, (struct delta){ .read_faults = 4, .sibling_faults = 3, .fetched = 4 });

    mgs_get_counters(&c0);
    p[2 * UNIT + 9] = 0x22;
    expect(&c0, (struct delta){ .write_faults = 4, .sibling_faults = 3, .upgrades = 4 });

    mgs_get_counters(&c0);
    mgs_barrier(NULL, 0);
    expect(&c0, (struct delta){ .unchanged = 3, .releases = 1, .grants = 1 });

    mgs_get_counters(&c0);
    p[2 * UNIT + 10] = 0x33;
    expect(&c0, (struct delta){ .write_faults = 3, .sibling_faults = 3, .upgrades = 3 });

    assert_int_equal(p[UNIT + 5], 0x11);
    assert_int_equal(p[2 * UNIT + 9], 0x22);
    assert_int_equal(p[2 * UNIT + 10], 0x33);
    for (int u = 0; u < 4; u++)
        assert_int_equal(p[u * UNIT + 100], 0);
    mgs_stop();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_subunit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
