/*
 * test_trace_mem.c - trace_run_load_mem (tools/trace/trace_file.c), the
 * in-memory reader the fuzz harness uses, against trace_run_load, the one
 * ini-trace uses on a directory: for a valid two-INI run and for every
 * single-byte damage of either file (each byte of the header and of the
 * records, three ways), both give the same result, the same error line
 * or the same decoded records.  So what the harness finds in the memory
 * path holds for the file path.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "trace_file.h"
#include "trace_fixtures/trace_fixture.h"

/* Loads dir both ways, the images in the directory's own order, and
 * checks that the results agree; returns the result. */
static int load_both(const char *dir, uint8_t *const bytes[2], const size_t sizes[2])
{
    struct trace_image img[2];
    int n = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int id = strcmp(e->d_name, "ini0.trace") == 0 ? 0 : strcmp(e->d_name, "ini1.trace") == 0 ? 1 : -1;
        if (id >= 0)
            img[n++] = (struct trace_image){ id ? "ini1.trace" : "ini0.trace", bytes[id], sizes[id] };
    }
    closedir(d);
    assert_int_equal(n, 2);

    char err_file[TRACE_ERR_LEN] = "", err_mem[TRACE_ERR_LEN] = "";
    struct trace_run a, b;
    int ra = trace_run_load(&a, dir, err_file, sizeof err_file);
    int rb = trace_run_load_mem(&b, dir, img, n, err_mem, sizeof err_mem);
    assert_int_equal(ra, rb);
    if (ra < 0) {
        assert_string_equal(err_file, err_mem);
        return ra;
    }
    assert_int_equal(a.n_files, b.n_files);
    for (int i = 0; i < a.n_files; i++) {
        assert_string_equal(a.files[i].path, b.files[i].path);
        assert_int_equal(a.files[i].mode, b.files[i].mode);
        assert_int_equal(a.files[i].n, b.files[i].n);
        assert_int_equal(a.files[i].dropped, b.files[i].dropped);
        assert_memory_equal(&a.files[i].info, &b.files[i].info, sizeof a.files[i].info);
        if (a.files[i].n)
            assert_memory_equal(a.files[i].msgs, b.files[i].msgs, a.files[i].n * sizeof *a.files[i].msgs);
    }
    trace_run_free(&a);
    trace_run_free(&b);
    return 0;
}

static void test_file_and_memory_agree(void **state)
{
    (void)state;
    char *dir = fx_mkdir();
    struct ini_trace t;
    assert_int_equal(fx_init(&t, INI_TRACE_DETAILED, 8, 2000000000, 0, 0, 0, 2, 2, 1000, 9000), 0);
    fx_one_of_each(&t);
    assert_int_equal(fx_write(&t, dir), 0);
    assert_int_equal(fx_init(&t, INI_TRACE_SUMMARY, 8, 2000000000, 1, 0, 1, 2, 2, 1000, 9000), 0);
    fx_out(&t, 1, 3, 2, 64, 0, 1900, 2000, 2050, 2100, 2150, 2200);
    assert_int_equal(fx_write(&t, dir), 0);

    char path[2][1024];
    uint8_t *good[2], *bytes[2];
    size_t sizes[2];
    for (int i = 0; i < 2; i++) {
        snprintf(path[i], sizeof path[i], "%s/ini%d.trace", dir, i);
        good[i] = fx_slurp(path[i], &sizes[i]);
        bytes[i] = malloc(sizes[i]);
        assert_non_null(bytes[i]);
        memcpy(bytes[i], good[i], sizes[i]);
    }
    assert_int_equal(load_both(dir, bytes, sizes), 0);

    /* Every byte of each file damaged three ways, one at a time. */
    int refused = 0, loaded = 0;
    for (int i = 0; i < 2; i++) {
        for (size_t k = 0; k < sizes[i]; k++)
            for (int how = 0; how < 3; how++) {
                static const uint8_t flip[3] = { 0x01, 0x80, 0xff };
                bytes[i][k] = (uint8_t)(good[i][k] ^ flip[how]);
                fx_spill(path[i], bytes[i], sizes[i]);
                if (load_both(dir, bytes, sizes) < 0)
                    refused++;
                else
                    loaded++;
                bytes[i][k] = good[i][k];
            }
        fx_spill(path[i], good[i], sizes[i]);
    }
    /* And cut short at every length. */
    for (int i = 0; i < 2; i++) {
        size_t full = sizes[i];
        for (sizes[i] = 0; sizes[i] < full; sizes[i]++) {
            fx_spill(path[i], bytes[i], sizes[i]);
            assert_int_equal(load_both(dir, bytes, sizes), -1);
            refused++;
        }
        fx_spill(path[i], bytes[i], full);
    }
    assert_true(refused > 0 && loaded > 0);     /* both outcomes were compared */
    for (int i = 0; i < 2; i++) {
        free(good[i]);
        free(bytes[i]);
    }
    fx_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_and_memory_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
