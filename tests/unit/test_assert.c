/*
 * test_assert.c - the core's assertion (timers/ini_assert.h), built with
 * timers/'s include path alone (-Itimers: the ground floor every core
 * floor sees).
 *
 * On (INI_DEBUG): a true condition passes and is evaluated once; a false
 * one, in a forked child, aborts (SIGABRT) after one line on stderr naming
 * the file, the line, the function and the condition.  Off (the header
 * included again without INI_DEBUG, as the release build compiles it):
 * a false condition does nothing and a condition's side effect never
 * happens, so the per-message path pays nothing.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#define INI_DEBUG 1
#include "ini_assert.h"

static int evaluations;
static int counted(int v)
{
    evaluations++;
    return v;
}

static int holds(int x) { INI_ASSERT(x < 10); return x; }
static void breaks(int x) { INI_ASSERT(x < 10); }
static const int breaks_line = __LINE__ - 1;

/* The "on" macro, kept before the header is included again without
 * INI_DEBUG below. */
static void check_on(int v) { INI_ASSERT(counted(v)); }

#undef INI_DEBUG
#include "ini_assert.h"
static void check_off(int v) { INI_ASSERT(counted(v)); }

static void test_on_true_passes_and_evaluates_once(void **state)
{
    evaluations = 0;
    assert_int_equal(holds(3), 3);
    check_on(1);
    assert_int_equal(evaluations, 1);
}

/* Runs breaks(12) in a child with stderr on a pipe: the child's status
 * and what it wrote. */
static int run_breaking_child(char *out, size_t cap)
{
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fd[1], STDERR_FILENO);
        close(fd[0]);
        signal(SIGABRT, SIG_DFL);
        breaks(12);
        _exit(0);                  /* not reached when the assertion fires */
    }
    close(fd[1]);
    size_t got = 0;
    ssize_t r;
    while (got + 1 < cap && (r = read(fd[0], out + got, cap - 1 - got)) > 0)
        got += (size_t)r;
    out[got] = '\0';
    close(fd[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static void test_on_false_aborts_with_one_line(void **state)
{
    char out[512], want[256];
    int status = run_breaking_child(out, sizeof out);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
    snprintf(want, sizeof want, "%s:%d: breaks: assertion failed: x < 10\n", __FILE__, breaks_line);
    assert_string_equal(out, want);
}

static void test_off_is_not_evaluated(void **state)
{
    evaluations = 0;
    check_off(0);                  /* false, and nothing happens */
    check_off(1);
    assert_int_equal(evaluations, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_on_true_passes_and_evaluates_once),
        cmocka_unit_test(test_on_false_aborts_with_one_line),
        cmocka_unit_test(test_off_is_not_evaluated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
