/*
 * cluster_input.c - a configuration given as a stream (cluster_input.h).
 */
#include "cluster_input.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster_util.h"

char *read_stream_bounded(const char *path, size_t max, int idle_ms, char *err, size_t errlen)
{
    /* O_NONBLOCK: opening a FIFO for reading would wait for a writer. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        return NULL;
    }
    size_t cap = 64 * 1024, len = 0;
    char *buf = malloc(cap + 1);
    const char *why = buf ? NULL : "out of memory";
    while (!why) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int r = poll(&p, 1, idle_ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0) {
            snprintf(err, errlen, "no data for %d s (a FIFO that nobody writes?)", idle_ms / 1000);
            why = err;
            break;
        }
        if (len == cap) {
            if (cap > max) {
                snprintf(err, errlen, "more than the limit of %zu bytes", max);
                why = err;
                break;
            }
            char *grown = realloc(buf, 2 * cap + 1);
            if (!grown) {
                why = "out of memory";
                break;
            }
            buf = grown;
            cap *= 2;
        }
        ssize_t n = r < 0 ? -1 : read(fd, buf + len, cap - len);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (n < 0) {
            snprintf(err, errlen, "cannot read: %s", strerror(errno));
            why = err;
            break;
        }
        if (n == 0)
            break;
        len += (size_t)n;
        if (len > max) {
            snprintf(err, errlen, "more than the limit of %zu bytes", max);
            why = err;
        }
    }
    close(fd);
    if (!why && memchr(buf, '\0', len)) {
        snprintf(err, errlen, "a NUL byte: not a configuration file");
        why = err;
    }
    if (why) {
        if (why != err)
            snprintf(err, errlen, "%s", why);
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}

int write_run_config(const char *dir, const char *text, char *out, size_t outlen, char *err,
                     size_t errlen)
{
    if ((size_t)snprintf(out, outlen, "%s/config.cfg", dir) >= outlen) {
        snprintf(err, errlen, "%s/config.cfg: path too long", dir);
        return -1;
    }
    int fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", out, strerror(errno));
        return -1;
    }
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            snprintf(err, errlen, "%s: %s", out, n < 0 ? strerror(errno) : "short write");
            close(fd);
            return -1;
        }
        done += (size_t)n;
    }
    if (close(fd) < 0) {
        snprintf(err, errlen, "%s: %s", out, strerror(errno));
        return -1;
    }
    return 0;
}
