/*
 * mgs-litmus - litmus tests of MGS across clusters, run under the launcher:
 *
 *   ini-cluster run CONFIG [--policy P] [--ini-policy P] [--fault SPEC] -- \
 *       build/bin/mgs-litmus [--test NAME[,NAME...]] [--rounds N]
 *
 * Every test asserts the exact final memory contents (and, where a protocol
 * path is the point, that the counters show it was taken):
 *
 *   counter        every thread increments one counter (and its own slot of
 *                  a tally in the same unit) N times under one lock
 *   mp-lock        message passing through a lock: a writer in cluster 1
 *                  fills data units homed everywhere, then sets a flag under
 *                  the lock; readers take the lock until they see the flag,
 *                  then read the data without it and acknowledge under the
 *                  lock; the writer waits for all acknowledgements before
 *                  the next barrier (waits give up after 30 s: an error)
 *   mp-barrier     message passing through a barrier: a rotating writer
 *                  cluster fills data units, barrier, everyone checks
 *   adjacent       the first thread of every cluster writes its own byte of
 *                  one 8-byte word (and of one unit-wide stripe), each round
 *   single-writer  cluster 1 writes a unit alone for several rounds (it must
 *                  be granted single-writer mode), then cluster 2 reads it
 *                  (the home must recall it) and writes it, cluster 1 reads
 *   home-write     the home cluster writes its own unit; others read it;
 *                  another cluster writes, the home reads; then the home and
 *                  another cluster write different halves in one interval
 *   inv-race       two counters in units of different homes, incremented
 *                  together under a lock by every thread, while one thread
 *                  per cluster keeps re-reading them without the lock, so
 *                  fetches race with the invalidations of the releases
 *   sum            barrier sums in thread order, bit-exact
 *
 * par.h over MGS runs the threads (one per compute node of the
 * configuration); mgs.h tells where threads and homes are.  Output: one line
 * per test per cluster on stdout, errors on stderr; exit status 1 if any
 * cluster found an error (the error count is summed over all threads).
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "clock.h"
#include "ini_cn.h"
#include "mgs.h"
#include "par.h"

enum test_id { T_COUNTER, T_MP_LOCK, T_MP_BARRIER, T_ADJACENT, T_SINGLE_WRITER, T_HOME_WRITE, T_INV_RACE,
               T_SUM, T_COUNT };
static const char *const test_names[T_COUNT] = { "counter", "mp-lock", "mp-barrier", "adjacent",
                                                  "single-writer", "home-write", "inv-race", "sum" };

#define DATA_UNITS 3          /* message-passing data: one unit per home (3 clusters) */

/* Every process computes the same set-up, so these globals hold the same
 * values (addresses in the shared range, lock ids) in every cluster. */
static struct {
    bool selected[T_COUNT];
    int rounds;
    int nthreads, nclusters;
    size_t unit;
    par_lock_t lock_counter, lock_mp, lock_race;
    uint64_t *counter, *tally;              /* counter: one unit */
    uint64_t *mp_data;                      /* DATA_UNITS units */
    size_t mp_words;
    uint64_t *mp_flag;
    uint64_t *bar_data;                     /* DATA_UNITS units */
    uint8_t *adjacent;                      /* one unit */
    uint64_t *sw_unit;                      /* one unit homed at cluster 0 */
    uint64_t *home_unit;                    /* one unit homed at cluster 1 */
    uint64_t *race_a, *race_b;              /* units homed at clusters 0 and 2 */
} L;

static atomic_int errors[T_COUNT];

#define CHECK(test, cond, ...)                                                                      \
    do {                                                                                            \
        if (!(cond)) {                                                                              \
            if (atomic_fetch_add(&errors[test], 1) < 10) {                                         \
                fprintf(stderr, "litmus %s: thread %d (cluster %d): ", test_names[test], par_self(),  \
                        mgs_cluster());                                                             \
                fprintf(stderr, __VA_ARGS__);                                                       \
                fputc('\n', stderr);                                                                \
            }                                                                                       \
        }                                                                                           \
    } while (0)

/* A whole unit whose home is `cluster` (homes go round-robin over units). */
static void *alloc_unit_homed(int cluster)
{
    size_t unit = mgs_unit_size();
    for (int tries = 0; tries <= mgs_n_clusters(); tries++) {
        void *p = mgs_alloc(unit, unit);
        if (!p)
            return NULL;
        if (mgs_home_of(p) == cluster % mgs_n_clusters())
            return p;
    }
    return NULL;
}

static int self_cluster(void) { return mgs_cluster_of_thread(par_self()); }
static bool first_of_cluster(int c) { return par_self() == mgs_thread_base(c); }
static int cluster_index(int c) { return c % L.nclusters; }

/* ---- tests ------------------------------------------------------------------- */

static void test_counter(void)
{
    int n = L.rounds * 10;
    for (int i = 0; i < n; i++) {
        par_lock(L.lock_counter);
        (*L.counter)++;
        L.tally[par_self()]++;
        par_unlock(L.lock_counter);
    }
    par_barrier();
    CHECK(T_COUNTER, *L.counter == (uint64_t)n * (uint64_t)L.nthreads, "counter %llu, expected %llu",
          (unsigned long long)*L.counter, (unsigned long long)n * (uint64_t)L.nthreads);
    for (int t = 0; t < L.nthreads; t++)
        CHECK(T_COUNTER, L.tally[t] == (uint64_t)n, "tally[%d] = %llu, expected %d", t,
              (unsigned long long)L.tally[t], n);
    par_barrier();
}

static uint64_t mp_value(int round, size_t i) { return (uint64_t)round * 1000003u + i; }

static double now_seconds(void) { return (double)ini_mono_ns() * 1e-9; }

#define SPIN_LIMIT_S 30.0   /* a flag that takes longer was never released */

static bool mp_reader(int thread)
{
    return thread != mgs_thread_base(cluster_index(1)) &&
           (thread == mgs_thread_base(mgs_cluster_of_thread(thread)) || thread % 3 == 0);
}

/* Takes the lock until *word == want (or the time limit); returns the last
 * value seen. */
static uint64_t wait_under_lock(volatile uint64_t *word, uint64_t want)
{
    double give_up = now_seconds() + SPIN_LIMIT_S;
    uint64_t seen;
    for (;;) {
        par_lock(L.lock_mp);
        seen = *word;
        par_unlock(L.lock_mp);
        if (seen == want || now_seconds() > give_up)
            return seen;
        sched_yield();
    }
}

static void test_mp_lock(void)
{
    /* The writer does not reach a barrier (which would release everything
     * anyway) before every reader has seen the flag and acknowledged it
     * under the same lock: only the lock's release carries the message. */
    int writer = mgs_thread_base(cluster_index(1));
    uint64_t readers = 0;
    for (int t = 0; t < L.nthreads; t++)
        readers += mp_reader(t);
    for (int r = 1; r <= L.rounds; r++) {
        par_barrier();   /* nobody reads round r-1 data any more */
        if (par_self() == writer) {
            for (size_t i = 0; i < L.mp_words; i++)
                L.mp_data[i] = mp_value(r, i);
            par_lock(L.lock_mp);
            *L.mp_flag = (uint64_t)r;
            par_unlock(L.lock_mp);
            uint64_t acks = wait_under_lock(L.mp_flag + 1, readers * (uint64_t)r);
            CHECK(T_MP_LOCK, acks == readers * (uint64_t)r, "round %d: %llu acknowledgements, expected %llu", r,
                  (unsigned long long)acks, (unsigned long long)(readers * (uint64_t)r));
        } else if (mp_reader(par_self())) {
            uint64_t seen = wait_under_lock(L.mp_flag, (uint64_t)r);
            CHECK(T_MP_LOCK, seen == (uint64_t)r, "round %d: the flag never arrived (still %llu)", r,
                  (unsigned long long)seen);
            size_t bad = 0, first_bad = 0;
            for (size_t i = 0; i < L.mp_words; i++)
                if (L.mp_data[i] != mp_value(r, i) && bad++ == 0)
                    first_bad = i;
            CHECK(T_MP_LOCK, bad == 0, "round %d: %zu stale words, first [%zu] = %llu, expected %llu", r, bad,
                  first_bad, (unsigned long long)L.mp_data[first_bad],
                  (unsigned long long)mp_value(r, first_bad));
            par_lock(L.lock_mp);
            L.mp_flag[1]++;
            par_unlock(L.lock_mp);
        }
    }
    par_barrier();
}

static void test_mp_barrier(void)
{
    for (int r = 1; r <= L.rounds; r++) {
        int writer = mgs_thread_base(r % L.nclusters);
        if (par_self() == writer)
            for (size_t i = 0; i < L.mp_words; i++)
                L.bar_data[i] = mp_value(r, i) ^ (uint64_t)writer;
        par_barrier();
        size_t bad = 0;
        for (size_t i = 0; i < L.mp_words; i++)
            bad += L.bar_data[i] != (mp_value(r, i) ^ (uint64_t)writer);
        CHECK(T_MP_BARRIER, bad == 0, "round %d: %zu stale words", r, bad);
        par_barrier();
    }
}

static void test_adjacent(void)
{
    /* Byte c of word 0 (clusters 0..7) and byte c of every 8-byte word of
     * the unit's second half: adjacent bytes of the same words, written by
     * different clusters in the same interval. */
    int c = self_cluster();
    size_t half = L.unit / 2;
    for (int r = 1; r <= L.rounds; r++) {
        if (first_of_cluster(c)) {
            if (c < 8)
                L.adjacent[c] = (uint8_t)(r * 7 + c);
            for (size_t i = half + (size_t)c; i < L.unit; i += (size_t)L.nclusters)
                L.adjacent[i] = (uint8_t)(r + c + i);
        }
        par_barrier();
        for (int k = 0; k < L.nclusters && k < 8; k++)
            CHECK(T_ADJACENT, L.adjacent[k] == (uint8_t)(r * 7 + k), "round %d: byte %d = %u, expected %u", r,
                  k, L.adjacent[k], (uint8_t)(r * 7 + k));
        size_t bad = 0;
        for (size_t i = half; i < L.unit; i++) {
            int writer = (int)((i - half) % (size_t)L.nclusters);
            bad += L.adjacent[i] != (uint8_t)(r + writer + i);
        }
        CHECK(T_ADJACENT, bad == 0, "round %d: %zu wrong bytes in the striped half", r, bad);
        for (int k = L.nclusters; k < 8; k++)
            CHECK(T_ADJACENT, L.adjacent[k] == 0, "byte %d nobody writes is %u", k, L.adjacent[k]);
        par_barrier();
    }
}

static void test_single_writer(void)
{
    int writer_cluster = cluster_index(1), reader_cluster = cluster_index(2);
    size_t words = L.unit / sizeof(uint64_t);
    struct mgs_counters before, after;
    mgs_get_counters(&before);
    par_barrier();
    for (int r = 1; r <= L.rounds; r++) {
        if (first_of_cluster(writer_cluster))
            for (size_t i = 0; i < words; i++)
                L.sw_unit[i] = (uint64_t)r << 32 | i;
        par_barrier();
    }
    /* Another cluster reads: the home recalls the unit from the writer. */
    if (first_of_cluster(reader_cluster)) {
        size_t bad = 0;
        for (size_t i = 0; i < words; i++)
            bad += L.sw_unit[i] != ((uint64_t)L.rounds << 32 | i);
        CHECK(T_SINGLE_WRITER, bad == 0, "reader saw %zu stale words after the writer's rounds", bad);
        for (size_t i = 0; i < words; i += 2)
            L.sw_unit[i] = ~(uint64_t)i;
    }
    par_barrier();
    if (first_of_cluster(writer_cluster)) {
        size_t bad = 0;
        for (size_t i = 0; i < words; i++) {
            uint64_t expect = i % 2 == 0 ? ~(uint64_t)i : ((uint64_t)L.rounds << 32 | i);
            bad += L.sw_unit[i] != expect;
        }
        CHECK(T_SINGLE_WRITER, bad == 0, "writer saw %zu wrong words after the reader wrote", bad);
    }
    par_barrier();
    mgs_get_counters(&after);
    int c = self_cluster();
    if (first_of_cluster(c) && L.nclusters >= 3) {
        if (c == writer_cluster) {
            CHECK(T_SINGLE_WRITER, after.sw_grants > before.sw_grants, "no single-writer grant received");
            CHECK(T_SINGLE_WRITER, after.sw_recalls > before.sw_recalls, "no recall received");
        }
        if (c == mgs_home_of(L.sw_unit)) {
            CHECK(T_SINGLE_WRITER, after.sw_grants_given > before.sw_grants_given, "home granted nothing");
            CHECK(T_SINGLE_WRITER, after.sw_recalls_sent > before.sw_recalls_sent, "home recalled nothing");
        }
    }
    par_barrier();
}

static void test_home_write(void)
{
    int home = mgs_home_of(L.home_unit), other = cluster_index(home + 1);
    size_t words = L.unit / sizeof(uint64_t);
    for (int r = 1; r <= L.rounds; r++) {
        /* The home writes; everyone reads. */
        if (first_of_cluster(home))
            for (size_t i = 0; i < words; i++)
                L.home_unit[i] = (uint64_t)r * 3 + i;
        par_barrier();
        size_t bad = 0;
        for (size_t i = 0; i < words; i++)
            bad += L.home_unit[i] != (uint64_t)r * 3 + i;
        CHECK(T_HOME_WRITE, bad == 0, "round %d: %zu stale words after the home wrote", r, bad);
        par_barrier();
        /* Another cluster writes; the home reads. */
        if (first_of_cluster(other))
            for (size_t i = 0; i < words; i++)
                L.home_unit[i] = (uint64_t)r * 5 + i;
        par_barrier();
        if (self_cluster() == home) {
            bad = 0;
            for (size_t i = 0; i < words; i++)
                bad += L.home_unit[i] != (uint64_t)r * 5 + i;
            CHECK(T_HOME_WRITE, bad == 0, "round %d: home saw %zu stale words", r, bad);
        }
        par_barrier();
        /* Both write, different halves, same interval. */
        if (first_of_cluster(home))
            for (size_t i = 0; i < words / 2; i++)
                L.home_unit[i] = (uint64_t)r * 11 + i;
        if (first_of_cluster(other))
            for (size_t i = words / 2; i < words; i++)
                L.home_unit[i] = (uint64_t)r * 13 + i;
        par_barrier();
        bad = 0;
        for (size_t i = 0; i < words; i++)
            bad += L.home_unit[i] != (uint64_t)r * (i < words / 2 ? 11 : 13) + i;
        CHECK(T_HOME_WRITE, bad == 0, "round %d: %zu wrong words after both wrote", r, bad);
        par_barrier();
    }
}

static void test_inv_race(void)
{
    int c = self_cluster();
    /* In clusters with several threads the last one races; the others lock. */
    bool racer = mgs_local_threads(c) > 1 && par_self() == mgs_thread_base(c) + mgs_local_threads(c) - 1;
    int n = L.rounds * 5;
    int lockers = 0;
    for (int k = 0; k < L.nclusters; k++)
        lockers += mgs_local_threads(k) > 1 ? mgs_local_threads(k) - 1 : 1;
    if (racer) {
        /* Unsynchronised reads (deliberately outside the par.h rules): each
         * read after an invalidation fetches, racing with the next release. */
        volatile uint64_t *a = L.race_a, *b = L.race_b;
        uint64_t last_a = 0;
        for (int i = 0; i < n * 4; i++) {
            uint64_t va = *a;
            (void)*b;
            CHECK(T_INV_RACE, va >= last_a, "racy reads went backwards: %llu after %llu",
                  (unsigned long long)va, (unsigned long long)last_a);
            last_a = va;
            sched_yield();
        }
    } else {
        for (int i = 0; i < n; i++) {
            par_lock(L.lock_race);
            uint64_t a = *L.race_a, b = *L.race_b;
            CHECK(T_INV_RACE, a == b, "under the lock a = %llu, b = %llu", (unsigned long long)a,
                  (unsigned long long)b);
            *L.race_a = a + 1;
            *L.race_b = b + 1;
            par_unlock(L.lock_race);
        }
    }
    par_barrier();
    uint64_t expect = (uint64_t)n * (uint64_t)lockers;
    CHECK(T_INV_RACE, *L.race_a == expect && *L.race_b == expect, "final a = %llu, b = %llu, expected %llu",
          (unsigned long long)*L.race_a, (unsigned long long)*L.race_b, (unsigned long long)expect);
    par_barrier();
}

static void test_sum(void)
{
    for (int r = 1; r <= L.rounds; r++) {
        /* Values whose sum depends on the order of the additions. */
        double v[3] = { par_self() % 2 ? 1e16 : 1.0, (double)par_self() * r, par_self() == 0 ? -1e16 : 0.5 };
        par_sum(v, 3);
        double expect[3];
        for (int k = 0; k < 3; k++) {
            double total = 0;
            for (int t = 0; t < L.nthreads; t++) {
                double x = k == 0 ? (t % 2 ? 1e16 : 1.0) : k == 1 ? (double)t * r : (t == 0 ? -1e16 : 0.5);
                total = t == 0 ? x : total + x;
            }
            expect[k] = total;
        }
        CHECK(T_SUM, memcmp(v, expect, sizeof v) == 0, "round %d: sum %.17g %.17g %.17g, expected %.17g %.17g %.17g",
              r, v[0], v[1], v[2], expect[0], expect[1], expect[2]);
    }
    par_barrier();
}

static void worker(void *arg)
{
    (void)arg;
    static void (*const tests[T_COUNT])(void) = { test_counter, test_mp_lock, test_mp_barrier, test_adjacent,
                                                  test_single_writer, test_home_write, test_inv_race, test_sum };
    for (int t = 0; t < T_COUNT; t++)
        if (L.selected[t]) {
            tests[t]();
            if (par_self() == mgs_thread_base(self_cluster()))
                printf("litmus cluster %d: %-13s done\n", mgs_cluster(), test_names[t]);
        }
    /* Everyone learns the total error count. */
    double e[T_COUNT];
    for (int t = 0; t < T_COUNT; t++)
        e[t] = par_self() == mgs_thread_base(self_cluster()) ? (double)atomic_load(&errors[t]) : 0.0;
    par_sum(e, T_COUNT);
    if (par_self() == mgs_thread_base(self_cluster()))
        for (int t = 0; t < T_COUNT; t++)
            if (L.selected[t]) {
                printf("litmus %-13s %s (%.0f errors in all clusters)\n", test_names[t], e[t] == 0 ? "ok" : "FAIL",
                       e[t]);
                if (e[t] != 0)
                    atomic_fetch_add(&errors[t], 1000000);   /* make the exit status reflect others' errors */
            }
}

/* The usage text, with the tests' names from test_names[]. */
static const char *usage_text(void)
{
    static char text[512];
    int n = snprintf(text, sizeof text,
                     "usage: mgs-litmus [--test all|NAME[,NAME...]] [--rounds N]\n"
                     "       mgs-litmus --help | --version\n"
                     "tests:");
    for (int t = 0; t < T_COUNT && n > 0 && (size_t)n < sizeof text; t++)
        n += snprintf(text + n, sizeof text - (size_t)n, " %s", test_names[t]);
    if (n > 0 && (size_t)n < sizeof text)
        snprintf(text + n, sizeof text - (size_t)n, "\n(run under ini-cluster run CONFIG -- mgs-litmus ...)\n");
    return text;
}

/* --test and --rounds into L; a bad one exits 2. */
static void parse_args(int argc, char **argv)
{
    const char *which = "all";
    const char *a;
    for (int i = 0; (a = cli_next_arg(argc, argv, &i));) {
        if (!strcmp(a, "--test"))
            which = cli_value(argc, argv, &i);
        else if (!strcmp(a, "--rounds"))
            L.rounds = (int)cli_parse_long(a, cli_value(argc, argv, &i), 1, 1000000);
        else if (a[0] == '-')
            cli_unknown_option(a);
        else
            cli_bad_arg("%s: unexpected argument", a);
    }
    if (!strcmp(which, "all")) {
        for (int t = 0; t < T_COUNT; t++)
            L.selected[t] = true;
        return;
    }
    char list[256];
    snprintf(list, sizeof list, "%s", which);
    for (char *name = strtok(list, ","); name; name = strtok(NULL, ",")) {
        int t = 0;
        while (t < T_COUNT && strcmp(name, test_names[t]))
            t++;
        if (t == T_COUNT)
            cli_bad_arg("--test: '%s' is not a test (mgs-litmus --help lists them)", name);
        L.selected[t] = true;
    }
}

/* DATA_UNITS units in a row, the first homed at cluster, the next at the
 * next homes; NULL if one could not be had. */
static void *alloc_units_homed(int cluster)
{
    void *first = alloc_unit_homed(cluster);
    for (int k = 1; k < DATA_UNITS; k++)
        if (!mgs_alloc(L.unit, L.unit))
            first = NULL;
    return first;
}

/* The tests' shared data, in units with chosen homes; 0, or -1 said. */
static int alloc_shared(void)
{
    L.counter = alloc_unit_homed(1);
    L.tally = L.counter + 8;
    L.mp_words = DATA_UNITS * L.unit / sizeof(uint64_t);
    L.mp_data = alloc_units_homed(0);
    L.mp_flag = alloc_unit_homed(2);
    L.bar_data = alloc_units_homed(1);
    L.adjacent = alloc_unit_homed(2);
    L.sw_unit = alloc_unit_homed(0);
    L.home_unit = alloc_unit_homed(1);
    L.race_a = alloc_unit_homed(0);
    L.race_b = alloc_unit_homed(2);
    if (!L.counter || !L.mp_data || !L.mp_flag || !L.bar_data || !L.adjacent || !L.sw_unit || !L.home_unit ||
        !L.race_a || !L.race_b || (size_t)L.nthreads + 8 > L.unit / sizeof(uint64_t)) {
        cli_error("shared range too small");
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    cli_init("mgs-litmus", usage_text());
    L.rounds = 5;
    parse_args(argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0);

    char err[512];
    if (ini_cn_check_config_env(err, sizeof err) < 0)
        cli_bad_arg("%s", err);
    if (mgs_start(err, sizeof err) != 0) {
        cli_error("%s", err);
        return 1;
    }
    par_use_mgs();
    L.nthreads = mgs_total_threads();
    L.nclusters = mgs_n_clusters();
    L.unit = mgs_unit_size();
    if (par_init(L.nthreads) != 0)
        return 1;
    if (par_locks_create(1, &L.lock_counter) || par_locks_create(1, &L.lock_mp) ||
        par_locks_create(1, &L.lock_race)) {
        cli_error("cannot create locks");
        return 1;
    }
    if (alloc_shared() < 0)
        return 1;
    if (mgs_cluster() == 0)
        printf("mgs-litmus: %d clusters, %d threads, unit %zu bytes, %d rounds\n", L.nclusters, L.nthreads,
               L.unit, L.rounds);
    if (par_run(worker, NULL) != 0) {
        cli_error("cannot run the threads");
        return 1;
    }
    int total = 0;
    for (int t = 0; t < T_COUNT; t++)
        total += atomic_load(&errors[t]);
    par_finalize();
    return total ? 1 : 0;
}
