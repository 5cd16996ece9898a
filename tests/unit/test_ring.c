/*
 * test_ring.c - the SPSC byte ring: records in order, wrap with pad
 * records, full and empty, release by position, and a two-thread stress
 * run that checks every byte of a million records of varying size.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ring.h"

static struct ini_ring *new_ring(uint64_t size)
{
    struct ini_ring *r = aligned_alloc(64, ini_ring_footprint(size));
    memset(r, 0, ini_ring_footprint(size));
    ini_ring_init(r, size);
    return r;
}

/* A new ring with producer p and consumer c attached. */
static struct ini_ring *new_attached_ring(uint64_t size, struct ini_ring_prod *p, struct ini_ring_cons *c)
{
    struct ini_ring *r = new_ring(size);
    ini_ring_prod_attach(p, r);
    ini_ring_cons_attach(c, r);
    return r;
}

static void test_empty_and_order(void **state)
{
    struct ini_ring_prod p;
    struct ini_ring_cons c;
    struct ini_ring *r = new_attached_ring(4096, &p, &c);
    uint64_t end;
    assert_null(ini_ring_next(&c, &end));
    for (uint32_t i = 0; i < 5; i++) {
        struct ini_rec *rec = ini_ring_reserve(&p, 100 + i);
        assert_non_null(rec);
        memset(rec->data, (int)i, 100 + i);
    }
    assert_null(ini_ring_next(&c, &end));    /* not yet published */
    ini_ring_publish(&p);
    for (uint32_t i = 0; i < 5; i++) {
        struct ini_rec *rec = ini_ring_next(&c, &end);
        assert_non_null(rec);
        assert_int_equal(rec->len, 100 + i);
        assert_int_equal(rec->data[99], i);
        ini_ring_release_to(&c, end);
    }
    assert_null(ini_ring_next(&c, &end));
    free(r);
}

/* ini_ring_peek: the record ini_ring_next would give, across a pad
 * record at the wrap, without taking it. */
static void test_peek(void **state)
{
    struct ini_ring_prod p;
    struct ini_ring_cons c;
    struct ini_ring *r = new_attached_ring(4096, &p, &c);
    uint64_t end;
    assert_null(ini_ring_peek(&c));
    for (int i = 0; i < 3; i++) {                 /* 3 x 1024 bytes, then wrap */
        assert_non_null(ini_ring_reserve(&p, 1000));
        ini_ring_publish(&p);
        assert_non_null(ini_ring_next(&c, &end));
        ini_ring_release_to(&c, end);
    }
    struct ini_rec *rec = ini_ring_reserve(&p, 1500);    /* pad to the end, then this */
    assert_non_null(rec);
    memset(rec->data, 7, 1500);
    ini_ring_publish(&p);
    struct ini_rec *seen = ini_ring_peek(&c);
    assert_ptr_equal(seen, rec);
    assert_ptr_equal(ini_ring_peek(&c), rec);      /* still there */
    assert_ptr_equal(ini_ring_next(&c, &end), rec);
    ini_ring_release_to(&c, end);
    assert_null(ini_ring_peek(&c));
    free(r);
}

static void test_full_and_wrap(void **state)
{
    struct ini_ring_prod p;
    struct ini_ring_cons c;
    struct ini_ring *r = new_attached_ring(4096, &p, &c);
    uint64_t end;
    assert_int_equal(ini_ring_max_message(r), 2048 - 16);
    assert_null(ini_ring_reserve(&p, 2048));      /* larger than guaranteed */
    /* 1000-byte messages take 1024-byte records: four fill the ring. */
    for (int i = 0; i < 4; i++)
        assert_non_null(ini_ring_reserve(&p, 1000));
    assert_null(ini_ring_reserve(&p, 1));
    ini_ring_publish(&p);
    /* Take two but release only the first: room for one record. */
    assert_non_null(ini_ring_next(&c, &end));
    ini_ring_release_to(&c, end);
    assert_non_null(ini_ring_next(&c, &end));
    struct ini_rec *w = ini_ring_reserve(&p, 1000);
    assert_non_null(w);
    assert_ptr_equal((uint8_t *)w, r->data);      /* wrapped to the start */
    /* A 1500-byte message needs 1536 contiguous bytes: the free space is
     * split, so it does not fit. */
    ini_ring_release_to(&c, end);
    assert_null(ini_ring_reserve(&p, 1500));
    ini_ring_publish(&p);
    assert_non_null(ini_ring_next(&c, &end));
    assert_non_null(ini_ring_next(&c, &end));
    struct ini_rec *last = ini_ring_next(&c, &end);
    assert_ptr_equal(last, w);
    ini_ring_release_to(&c, end);
    free(r);
}

#define STRESS_RECORDS 1000000

static void *producer(void *arg)
{
    struct ini_ring_prod p;
    ini_ring_prod_attach(&p, arg);
    uint32_t seed = 1;
    for (uint32_t i = 0; i < STRESS_RECORDS; i++) {
        seed = seed * 1103515245u + 12345u;
        uint32_t len = 4 + (seed >> 16) % 3000;
        struct ini_rec *rec;
        while (!(rec = ini_ring_reserve(&p, len)))
            ;
        memcpy(rec->data, &i, 4);
        memset(rec->data + 4, (int)(i & 0xff), len - 4);
        ini_ring_publish(&p);
    }
    return NULL;
}

static void test_two_threads(void **state)
{
    struct ini_ring *r = new_ring(1 << 16);
    struct ini_ring_cons c;
    ini_ring_cons_attach(&c, r);
    pthread_t th;
    pthread_create(&th, NULL, producer, r);
    uint32_t seed = 1, bad = 0;
    for (uint32_t i = 0; i < STRESS_RECORDS; i++) {
        seed = seed * 1103515245u + 12345u;
        uint32_t len = 4 + (seed >> 16) % 3000;
        struct ini_rec *rec;
        uint64_t end;
        while (!(rec = ini_ring_next(&c, &end)))
            ;
        uint32_t n;
        memcpy(&n, rec->data, 4);
        bad += n != i || rec->len != len || rec->data[len - 1] != (uint8_t)(len > 4 ? i & 0xff : rec->data[len - 1]);
        ini_ring_release_to(&c, end);
    }
    pthread_join(th, NULL);
    assert_int_equal(bad, 0);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_and_order),
        cmocka_unit_test(test_full_and_wrap),
        cmocka_unit_test(test_peek),
        cmocka_unit_test(test_two_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
