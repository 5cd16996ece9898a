/*
 * cluster_secret.c - the run's epoch and run key (cluster_secret.h).
 */
#include "cluster_secret.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

int secrets_draw(struct run_secrets *s, char *err, size_t errlen)
{
    if (getrandom(s, sizeof *s, 0) != (ssize_t)sizeof *s) {
        snprintf(err, errlen, "cannot draw the run's epoch and key: %s", strerror(errno));
        return -1;
    }
    return 0;
}

static void to_hex(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int from_hex(const char *h, uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int hi = hex_digit(h[2 * i]), lo = hi < 0 ? -1 : hex_digit(h[2 * i + 1]);
        if (lo < 0)
            return -1;
        b[i] = (uint8_t)(16 * hi + lo);
    }
    return 0;
}

/* RUN_DIR/run.key, 0600, through a temporary file renamed into place: a
 * reader never sees half a key, and the hosts of a run that share one run
 * directory (a network file system) each put the same key there. */
static int write_run_key(const uint8_t *key, const char *run_dir, char *path, size_t plen, char *err,
                         size_t errlen)
{
    char tmp[PATH_MAX + 64];
    snprintf(path, plen, "%s/run.key", run_dir);
    snprintf(tmp, sizeof tmp, "%s/.run.key.%d", run_dir, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int ok = fd >= 0 && write(fd, key, INI_KEY_LEN) == INI_KEY_LEN;
    int e = errno;
    if (fd >= 0 && close(fd) < 0)
        ok = 0;
    if (ok && rename(tmp, path) < 0)
        ok = 0, e = errno;
    if (!ok) {
        unlink(tmp);
        snprintf(err, errlen, "run key %s: %s", path, strerror(e));
        return -1;
    }
    return 0;
}

int secrets_apply(const struct run_secrets *s, const struct ini_config *cfg, const char *run_dir, char *err,
                  size_t errlen)
{
    char hex[2 * sizeof s->epoch + 1];
    to_hex(s->epoch, sizeof s->epoch, hex);
    setenv("INI_RUN_EPOCH", hex, 1);
    unsetenv("INI_RUN_KEY");
    if (!ini_config_mac_on(cfg) || cfg->security.key_file[0])
        return 0;
    char path[PATH_MAX + 16];
    if (write_run_key(s->key, run_dir, path, sizeof path, err, errlen) < 0)
        return -1;
    setenv("INI_RUN_KEY", path, 1);
    return 0;
}

#define SECRETS_WORD "secrets "

int secrets_send(int fd, const struct run_secrets *s)
{
    char line[sizeof SECRETS_WORD + 2 * sizeof *s + 4];
    char *p = line + snprintf(line, sizeof line, "%s", SECRETS_WORD);
    to_hex(s->epoch, sizeof s->epoch, p);
    p += 2 * sizeof s->epoch;
    *p++ = ' ';
    to_hex(s->key, sizeof s->key, p);
    p += 2 * sizeof s->key;
    *p++ = '\n';
    ssize_t n = write(fd, line, (size_t)(p - line));
    explicit_bzero(line, sizeof line);
    return n == p - line ? 0 : -1;
}

static int64_t ms_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int secrets_receive(int fd, struct run_secrets *s, int timeout_ms, char *err, size_t errlen)
{
    char line[sizeof SECRETS_WORD + 2 * sizeof *s + 4];
    size_t n = 0;
    int64_t deadline = ms_now() + timeout_ms;
    while (n < sizeof line - 1) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        int left = (int)(deadline - ms_now());
        if (left <= 0 || poll(&pfd, 1, left) <= 0 || read(fd, line + n, 1) != 1) {
            snprintf(err, errlen, "the head's secrets line did not come on stdin");
            return -1;
        }
        if (line[n] == '\n')
            break;
        n++;
    }
    line[n] = 0;
    const char *e = line + strlen(SECRETS_WORD);
    int ok = strncmp(line, SECRETS_WORD, strlen(SECRETS_WORD)) == 0 && strlen(e) == 2 * sizeof *s + 1 &&
             e[2 * sizeof s->epoch] == ' ' && from_hex(e, s->epoch, sizeof s->epoch) == 0 &&
             from_hex(e + 2 * sizeof s->epoch + 1, s->key, sizeof s->key) == 0;
    explicit_bzero(line, sizeof line);
    if (!ok)
        snprintf(err, errlen, "the head's secrets line on stdin is malformed");
    return ok ? 0 : -1;
}

const char *secrets_mac_summary(const struct ini_config *cfg)
{
    if (cfg->security.key_file[0])
        return "MAC: on (security.key_file)";
    if (ini_config_mac_on(cfg))
        return "MAC: on (run key)";
    return cfg->security.mac == INI_MAC_OFF ? "MAC: off (security.mac = \"off\")"
                                            : "MAC: off (memif: links only the run's owner can reach)";
}
