/*
 * file_util.c - see file_util.h.
 */
#include "file_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ini_open_regular(const char *path, long long max_bytes, char *why, size_t whylen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(why, whylen, "cannot open: %s", strerror(errno));
        return -1;
    }
    struct stat st;
    const char *kind = NULL;
    if (fstat(fd, &st) < 0) {
        snprintf(why, whylen, "cannot open: %s", strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
        snprintf(why, whylen, "cannot read: %s", strerror(EISDIR));
    } else if (!S_ISREG(st.st_mode)) {
        kind = S_ISFIFO(st.st_mode) ? "a FIFO or pipe" : S_ISCHR(st.st_mode) ? "a character device"
             : S_ISBLK(st.st_mode) ? "a block device" : S_ISSOCK(st.st_mode) ? "a socket" : "not a file";
        snprintf(why, whylen, "not a regular file (%s)", kind);
    } else if (max_bytes >= 0 && st.st_size > max_bytes) {
        snprintf(why, whylen, "%lld bytes, more than the limit of %lld", (long long)st.st_size, max_bytes);
    } else {
        int flags = fcntl(fd, F_GETFL);
        if (flags >= 0)
            fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
        return fd;
    }
    close(fd);
    return -1;
}

char *ini_read_regular(const char *path, long long max_bytes, size_t *len, char *why, size_t whylen)
{
    int fd = ini_open_regular(path, max_bytes, why, whylen);
    if (fd < 0)
        return NULL;
    struct stat st;
    char *buf = NULL;
    size_t size = 0, got = 0;
    if (fstat(fd, &st) != 0)
        snprintf(why, whylen, "cannot open: %s", strerror(errno));
    else if (!(buf = malloc((size = (size_t)st.st_size) + 1)))
        snprintf(why, whylen, "out of memory");
    while (buf && got < size) {
        ssize_t k = read(fd, buf + got, size - got);
        if (k <= 0) {
            snprintf(why, whylen, "read error after %zu bytes", got);
            free(buf);
            buf = NULL;
        } else {
            got += (size_t)k;
        }
    }
    close(fd);
    if (buf) {
        buf[size] = '\0';
        *len = size;
    }
    return buf;
}

size_t ini_read_fd(int fd, char *buf, size_t cap)
{
    char sink[256];
    size_t got = 0;
    for (;;) {
        bool full = got + 1 >= cap;
        ssize_t k = full ? read(fd, sink, sizeof sink) : read(fd, buf + got, cap - 1 - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        if (!full)
            got += (size_t)k;
    }
    buf[got] = '\0';
    return got;
}

void ini_free_each(void *const *ptrs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(ptrs[i]);
}

const char *ini_path_for_message(const char *path, char *buf, size_t buflen)
{
    size_t n = strlen(path);
    if (buflen == 0)
        return "";
    if (n < buflen) {
        memcpy(buf, path, n + 1);
        return buf;
    }
    if (buflen < 8) {              /* no room for both ends: just the start */
        snprintf(buf, buflen, "%s", path);
        return buf;
    }
    size_t keep = buflen - 1 - 3;  /* characters of path kept, around "..." */
    size_t head = keep / 3, tail = keep - head;   /* the end names the file: keep more of it */
    memcpy(buf, path, head);
    memcpy(buf + head, "...", 3);
    memcpy(buf + head + 3, path + n - tail, tail + 1);
    return buf;
}

int ini_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}
