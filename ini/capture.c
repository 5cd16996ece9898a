/*
 * capture.c - the pcapng writer (see capture.h).  Block layouts follow the
 * pcapng specification (draft-ietf-opsawg-pcapng): every block is
 * type, total length, body, total length again, padded to 32 bits.
 */
#include "capture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BT_SHB 0x0A0D0D0Au
#define BT_IDB 0x00000001u
#define BT_EPB 0x00000006u
#define LINKTYPE_ETHERNET 1
#define OPT_END 0
#define OPT_SHB_USERAPPL 4
#define OPT_IF_NAME 2
#define OPT_IF_TSRESOL 9
#define OPT_EPB_FLAGS 2

static inline size_t pad4(size_t n) { return (n + 3u) & ~(size_t)3u; }

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }   /* little-endian host */
static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }

/* Appends an option (code, value of len bytes, padded). */
static uint8_t *put_opt(uint8_t *p, uint16_t code, const void *val, uint16_t len)
{
    put16(p, code);
    put16(p + 2, len);
    memset(p + 4, 0, pad4(len));
    memcpy(p + 4, val, len);
    return p + 4 + pad4(len);
}

static int write_all(struct ini_capture *c)
{
    size_t off = 0;
    while (off < c->len) {
        ssize_t n = write(c->fd, c->buf + off, c->len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (!c->failed)
                fprintf(stderr, "capture: write failed: %s; capture stopped\n",
                        n < 0 ? strerror(errno) : "no space");
            c->failed = 1;
            c->len = 0;
            return -1;
        }
        off += (size_t)n;
    }
    c->writes++;
    c->len = 0;
    return 0;
}

int ini_capture_open(struct ini_capture *c, const char *path, uint64_t tsc_now, uint64_t tsc_hz,
                     char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->buf = malloc(INI_CAPTURE_BUF);
    if (!c->buf) {
        snprintf(err, errlen, "capture: no memory for %u bytes", INI_CAPTURE_BUF);
        return -1;
    }
    /* Touched now, not on the first frames. */
    memset(c->buf, 0, INI_CAPTURE_BUF);
    c->cap = INI_CAPTURE_BUF;
    c->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (c->fd < 0) {
        snprintf(err, errlen, "capture: %s: %s", path, strerror(errno));
        free(c->buf);
        c->buf = NULL;
        return -1;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    c->ns_base = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    c->tsc_base = tsc_now;
    c->tsc_hz = tsc_hz;
    c->last_write = tsc_now;

    static const char app[] = "inid (INI)";
    uint8_t *p = c->buf, *b = p;
    put32(p, BT_SHB);
    p += 8;                                 /* total length: below */
    put32(p, 0x1A2B3C4Du);                  /* byte-order magic */
    put16(p + 4, 1);                        /* version 1.0 */
    put16(p + 6, 0);
    memset(p + 8, 0xff, 8);                 /* section length: unknown */
    p += 16;
    p = put_opt(p, OPT_SHB_USERAPPL, app, sizeof app - 1);
    p = put_opt(p, OPT_END, NULL, 0);
    uint32_t total = (uint32_t)(p - b) + 4;
    put32(b + 4, total);
    put32(p, total);
    c->len = total;
    return 0;
}

int ini_capture_add_iface(struct ini_capture *c, const char *name)
{
    if (c->fd < 0)
        return -1;
    size_t nlen = strlen(name);
    if (nlen > 64)
        nlen = 64;
    if (ini_capture_reserve(c, 64 + pad4(nlen)) < 0)
        return -1;
    uint8_t *b = c->buf + c->len, *p = b;
    put32(p, BT_IDB);
    p += 8;
    put16(p, LINKTYPE_ETHERNET);
    put16(p + 2, 0);
    put32(p + 4, 0);                        /* snap length: no limit */
    p += 8;
    p = put_opt(p, OPT_IF_NAME, name, (uint16_t)nlen);
    uint8_t resol = 9;                      /* 10^-9 s */
    p = put_opt(p, OPT_IF_TSRESOL, &resol, 1);
    p = put_opt(p, OPT_END, NULL, 0);
    uint32_t total = (uint32_t)(p - b) + 4;
    put32(b + 4, total);
    put32(p, total);
    c->len += total;
    return (int)c->n_ifaces++;
}

int ini_capture_reserve(struct ini_capture *c, size_t bytes)
{
    if (c->fd < 0 || c->failed || bytes > c->cap)
        return -1;
    if (c->len + bytes > c->cap && write_all(c) < 0)
        return -1;
    return 0;
}

uint8_t *ini_capture_frame(struct ini_capture *c, uint32_t iface, uint32_t flags, uint64_t tsc,
                           uint32_t len)
{
    size_t size = ini_capture_frame_size(len);
    if (c->fd < 0 || c->failed || c->len + size > c->cap)
        return NULL;
    uint64_t ns = c->ns_base + (uint64_t)((unsigned __int128)(tsc - c->tsc_base) * 1000000000u / c->tsc_hz);
    uint8_t *b = c->buf + c->len, *p = b;
    put32(p, BT_EPB);
    put32(p + 4, (uint32_t)size);
    put32(p + 8, iface);
    put32(p + 12, (uint32_t)(ns >> 32));
    put32(p + 16, (uint32_t)ns);
    put32(p + 20, len);                     /* captured */
    put32(p + 24, len);                     /* on the wire */
    uint8_t *data = p + 28;
    p = data + pad4(len);
    memset(p - (pad4(len) - len), 0, pad4(len) - len);
    p = put_opt(p, OPT_EPB_FLAGS, &flags, 4);
    p = put_opt(p, OPT_END, NULL, 0);
    put32(p, (uint32_t)size);
    c->len += size;
    c->frames++;
    c->bytes += len;
    return data;
}

void ini_capture_tick(struct ini_capture *c, uint64_t tsc_now)
{
    if (c->fd < 0 || !c->len || tsc_now - c->last_write < c->tsc_hz)
        return;
    write_all(c);
    c->last_write = tsc_now;
}

void ini_capture_close(struct ini_capture *c)
{
    if (c->fd < 0)
        return;
    if (c->len && !c->failed)
        write_all(c);
    close(c->fd);
    c->fd = -1;
    free(c->buf);
    c->buf = NULL;
}
