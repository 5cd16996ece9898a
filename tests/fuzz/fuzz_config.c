/*
 * fuzz_config.c - libFuzzer harness of the configuration loader
 * (ini/config_*.c).  An input is loaded from memory with
 * ini_config_load_text, the path `ini-cluster run <(...)` takes, under the
 * name of a file in a private directory; no file is written per input.
 * The directory holds a valid key file, "k.key", that security.key_file
 * can name, and an @include target, "inc.cfg", with a small valid group,
 * so that inputs reach the code behind both.
 *
 * The text is NUL-terminated, so an input with a NUL byte would be cut
 * there: such an input is written to the file and loaded with
 * ini_config_load instead, as a file holding that byte would be (the
 * directory is on tmpfs when /dev/shm exists, so this costs no disk
 * write-back).  Either way a load must succeed or leave one line of error.
 * The directory goes at exit (atexit: libFuzzer ends by exit), so a run
 * leaves nothing in /dev/shm.
 *
 * Leaks: libconfig 1.5 leaks a few bytes on some syntax errors (at most
 * the text of an unterminated string; tests/fuzz/lsan.supp), so after
 * 1,000 such inputs libFuzzer stops its leak check per input.  The harness
 * therefore also counts the bytes the sanitizer's allocator holds before
 * and after each load: more than twice the input plus 4 KiB still held
 * is a leak of the loader's own (its state alone is hundreds of KiB).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sanitizer/allocator_interface.h>

#include "config.h"

static char dir[64], path[96];
static char *text;                       /* the input, NUL-terminated */
static struct ini_config cfg;

static void put(const char *name, const void *bytes, size_t n, mode_t mode)
{
    char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    if (!f)
        abort();
    if (n && fwrite(bytes, 1, n, f) != n)
        abort();
    fclose(f);
    chmod(p, mode);
}

/* Removes the private directory and the files put() made in it. */
static void remove_dir(void)
{
    static const char *const names[] = { "k.key", "inc.cfg", "in.cfg" };
    char p[128];
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[k]);
        unlink(p);
    }
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    struct stat st;
    const char *base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
    snprintf(dir, sizeof dir, "%s/fuzz_config.%d", base, (int)getpid());
    mkdir(dir, 0700);
    atexit(remove_dir);
    snprintf(path, sizeof path, "%s/in.cfg", dir);
    uint8_t key[INI_KEY_LEN];
    memset(key, 0x42, sizeof key);
    put("k.key", key, sizeof key, 0600);
    static const char inc[] = "idle = { mode = \"poll\"; };\n";
    put("inc.cfg", inc, sizeof inc - 1, 0644);
    /* The loader refuses text over INI_CONFIG_MAX_BYTES; libFuzzer's
     * inputs are far shorter, but keep one byte more than any. */
    text = malloc(INI_CONFIG_MAX_BYTES + 2);
    return text ? 0 : 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[1024];
    err[0] = 'x';
    int rc;
    if (size > INI_CONFIG_MAX_BYTES + 1)
        return 0;
    size_t held = __sanitizer_get_current_allocated_bytes();
    if (memchr(data, 0, size)) {
        put("in.cfg", data, size, 0644);
        rc = ini_config_load(path, &cfg, err, sizeof err);
    } else {
        memcpy(text, data, size);
        text[size] = '\0';
        rc = ini_config_load_text(text, path, &cfg, err, sizeof err);
    }
    if (rc != 0 && rc != -1)
        abort();
    if (rc < 0 && (err[0] == '\0' || strchr(err, '\n')))
        abort();                         /* an error is one non-empty line */
    if (__sanitizer_get_current_allocated_bytes() > held + 2 * size + 4096)
        abort();                         /* the load kept memory: a leak */
    return 0;
}
