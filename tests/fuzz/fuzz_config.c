/*
 * fuzz_config.c - libFuzzer harness of the configuration loader
 * (ini/config.c, ini_config_load): each input is written to a file in a
 * private directory and loaded.  The directory also holds a valid key
 * file, "k.key", that security.key_file can name, and an @include target,
 * "inc.cfg", with a small valid group, so that inputs reach the code
 * behind both.  A load must either succeed or leave one line of error.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

static char dir[64], path[96];
static struct ini_config cfg;

static void put(const char *name, const void *bytes, size_t n, mode_t mode)
{
    char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    if (!f)
        abort();
    fwrite(bytes, 1, n, f);
    fclose(f);
    chmod(p, mode);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(dir, sizeof dir, "/tmp/fuzz_config.%d", (int)getpid());
    mkdir(dir, 0700);
    snprintf(path, sizeof path, "%s/in.cfg", dir);
    uint8_t key[INI_KEY_LEN];
    memset(key, 0x42, sizeof key);
    put("k.key", key, sizeof key, 0600);
    static const char inc[] = "idle = { mode = \"poll\"; };\n";
    put("inc.cfg", inc, sizeof inc - 1, 0644);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
    char err[1024];
    err[0] = 'x';
    int rc = ini_config_load(path, &cfg, err, sizeof err);
    if (rc != 0 && rc != -1)
        abort();
    if (rc < 0 && (err[0] == '\0' || strchr(err, '\n')))
        abort();                         /* an error is one non-empty line */
    return 0;
}
