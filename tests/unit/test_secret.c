/*
 * test_secret.c - the run's secrets (tools/cluster/cluster_secret.h): the
 * line the head writes on a host part's stdin read back exactly, every
 * malformed or missing line refused with one line of error, and the run
 * key written 0600 and named by INI_RUN_KEY only when the MAC is on
 * without a key_file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cluster/cluster_secret.h"

static int pipe_with(const char *text)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    if (text)
        assert_int_equal(write(p[1], text, strlen(text)), (ssize_t)strlen(text));
    close(p[1]);
    return p[0];
}

static void test_round_trip(void **state)
{
    struct run_secrets a, b;
    char err[256];
    int p[2];
    assert_int_equal(secrets_draw(&a, err, sizeof err), 0);
    assert_int_equal(pipe(p), 0);
    assert_int_equal(secrets_send(p[1], &a), 0);
    assert_int_equal(write(p[1], "go\n", 3), 3);   /* what follows stays unread */
    close(p[1]);
    assert_int_equal(secrets_receive(p[0], &b, 1000, err, sizeof err), 0);
    assert_memory_equal(&a, &b, sizeof a);
    char rest[8] = "";
    assert_int_equal(read(p[0], rest, sizeof rest), 3);
    assert_memory_equal(rest, "go\n", 3);
    close(p[0]);
}

static void test_bad_lines(void **state)
{
    static const char *const bad[] = {
        NULL,                                   /* end of file at once */
        "go\n",
        "secrets 00\n",
        "secrets 000102030405060708090a0b0c0d0e0f 000102030405060708090a0b0c0d0e0f"
        "101112131415161718191a1b1c1d1e1\n",    /* the key one digit short */
        "secrets 000102030405060708090a0b0c0d0e0F 000102030405060708090a0b0c0d0e0f"
        "101112131415161718191a1b1c1d1e1f\n",   /* upper case */
        "secrets 000102030405060708090a0b0c0d0e0f-000102030405060708090a0b0c0d0e0f"
        "101112131415161718191a1b1c1d1e1f\n",   /* no space */
        "secrets 000102030405060708090a0b0c0d0e0f 000102030405060708090a0b0c0d0e0f"
        "101112131415161718191a1b1c1d1e1f",     /* no end of line */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct run_secrets s;
        char err[256] = "";
        int fd = pipe_with(bad[i]);
        assert_int_equal(secrets_receive(fd, &s, 1000, err, sizeof err), -1);
        assert_non_null(strstr(err, "secrets line"));
        assert_null(strchr(err, '\n'));
        close(fd);
    }
}

static void test_silence_times_out(void **state)
{
    int p[2];
    struct run_secrets s;
    char err[256];
    assert_int_equal(pipe(p), 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(secrets_receive(p[0], &s, 200, err, sizeof err), -1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s_waited = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    assert_true(s_waited >= 0.19 && s_waited < 5);
    close(p[0]);
    close(p[1]);
}

#define CLUSTERS \
    "clusters = ( { id = 0; pes = [0]; inis = ( { id = 0; ip = \"198.18.0.1\"; } ); },\n" \
    "             { id = 1; pes = [1]; inis = ( { id = 1; ip = \"198.18.0.2\"; } ); } );\n"

static void apply_in(const char *mode, const char *mac, int want_key)
{
    static struct ini_config cfg;
    char text[1024], err[512], dir[] = "/tmp/test_secret.XXXXXX", key_path[64];
    snprintf(text, sizeof text, "version = 1;\nnetwork = { mode = \"%s\"; };\nsecurity = { mac = \"%s\"; };\n%s",
             mode, mac, CLUSTERS);
    assert_int_equal(ini_config_load_text(text, "secret.cfg", &cfg, err, sizeof err), 0);
    assert_non_null(mkdtemp(dir));
    struct run_secrets s;
    assert_int_equal(secrets_draw(&s, err, sizeof err), 0);
    setenv("INI_RUN_KEY", "stale", 1);
    assert_int_equal(secrets_apply(&s, &cfg, dir, err, sizeof err), 0);
    assert_non_null(getenv("INI_RUN_EPOCH"));
    assert_int_equal(strlen(getenv("INI_RUN_EPOCH")), 32);
    snprintf(key_path, sizeof key_path, "%s/run.key", dir);
    struct stat st;
    if (want_key) {
        assert_string_equal(getenv("INI_RUN_KEY"), key_path);
        assert_int_equal(stat(key_path, &st), 0);
        assert_int_equal(st.st_mode & 0777, 0600);
        assert_int_equal(st.st_size, INI_KEY_LEN);
        uint8_t key[INI_KEY_LEN];
        assert_int_equal(ini_key_file_read(key_path, key, err, sizeof err), 0);
        assert_memory_equal(key, s.key, INI_KEY_LEN);
        unlink(key_path);
    } else {
        assert_null(getenv("INI_RUN_KEY"));
        assert_int_equal(stat(key_path, &st), -1);
    }
    assert_int_equal(rmdir(dir), 0);   /* no temporary file left either */
}

static void test_apply(void **state)
{
    apply_in("af_packet", "auto", 1);
    apply_in("memif", "auto", 0);
    apply_in("memif", "on", 1);
    apply_in("af_packet", "off", 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_bad_lines),
        cmocka_unit_test(test_silence_times_out),
        cmocka_unit_test(test_apply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
