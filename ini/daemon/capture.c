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
#define OPT_COMMENT 1
#define OPT_SHB_USERAPPL 4
#define OPT_IF_NAME 2
#define OPT_IF_TSRESOL 9
#define OPT_EPB_FLAGS 2

static inline size_t pad4(size_t n) { return (n + 3u) & ~(size_t)3u; }

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }   /* little-endian host */
static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }

/* ---- the options' values ---- */

/* An unsigned decimal number, all of s; -1 if not. */
static int parse_u64(const char *s, char **end, uint64_t *out)
{
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, end, 10);
    if (errno)
        return -1;
    *out = v;
    return 0;
}

int ini_capture_parse_limit(const char *s, uint64_t *out, char *err, size_t errlen)
{
    char *end;
    uint64_t v;
    if (parse_u64(s, &end, &v) < 0) {
        snprintf(err, errlen, "--capture-limit: '%s' is not a size (bytes, or a number with k, M or G)", s);
        return -1;
    }
    int shift = !*end ? 0 : !strcmp(end, "k") || !strcmp(end, "K") ? 10 : !strcmp(end, "M") ? 20
              : !strcmp(end, "G") ? 30 : -1;
    if (shift < 0 || (v && v > (UINT64_MAX >> shift))) {
        snprintf(err, errlen, "--capture-limit: '%s' is not a size (bytes, or a number with k, M or G)", s);
        return -1;
    }
    v <<= shift;
    if (v && v < INI_CAPTURE_LIMIT_MIN) {
        snprintf(err, errlen, "--capture-limit: %s is below the least limit, 1M (0: no limit)", s);
        return -1;
    }
    *out = v;
    return 0;
}

/* A whole number in [min, max] for flag; -1 with a reason. */
static int parse_u32_in(const char *flag, const char *s, uint32_t min, uint32_t max, const char *what,
                        uint32_t *out, char *err, size_t errlen)
{
    char *end;
    uint64_t v;
    if (parse_u64(s, &end, &v) < 0 || *end || v < min || v > max) {
        snprintf(err, errlen, "%s: '%s' is not %s", flag, s, what);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

int ini_capture_parse_ring(const char *s, uint32_t *out, char *err, size_t errlen)
{
    return parse_u32_in("--capture-ring", s, 1, INI_CAPTURE_RING_MAX, "a number of files (1..1000)", out, err,
                        errlen);
}

int ini_capture_parse_snap(const char *s, uint32_t *out, char *err, size_t errlen)
{
    if (parse_u32_in("--capture-snap", s, 0, 65535, "a snap length (0 for whole frames, else 14..65535 bytes)",
                     out, err, errlen) < 0)
        return -1;
    if (*out && *out < INI_CAPTURE_SNAP_MIN) {
        snprintf(err, errlen, "--capture-snap: %s bytes do not hold an Ethernet header (0, or 14..65535)", s);
        return -1;
    }
    return 0;
}

/* ---- blocks ---- */

/* Appends an option (code, value of len bytes, padded). */
static uint8_t *put_opt(uint8_t *p, uint16_t code, const void *val, uint16_t len)
{
    put16(p, code);
    put16(p + 2, len);
    memset(p + 4, 0, pad4(len));
    if (len)                                /* opt_endofopt has no value (val NULL) */
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
    c->file_bytes += c->len;
    c->len = 0;
    c->hdr_len = 0;
    return 0;
}

/* Appends the section header block to the (empty) buffer. */
static void put_shb(struct ini_capture *c)
{
    static const char app[] = "inid (INI)";
    uint8_t *b = c->buf + c->len, *p = b;
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
    c->len += total;
}

/* Appends interface k's description block. */
static void put_idb(struct ini_capture *c, uint32_t k)
{
    const char *name = c->iface[k];
    size_t nlen = strlen(name);
    uint8_t *b = c->buf + c->len, *p = b;
    put32(p, BT_IDB);
    p += 8;
    put16(p, LINKTYPE_ETHERNET);
    put16(p + 2, 0);
    put32(p + 4, c->opts.snap);             /* snap length; 0: no limit */
    p += 8;
    p = put_opt(p, OPT_IF_NAME, name, (uint16_t)nlen);
    uint8_t resol = 9;                      /* 10^-9 s */
    p = put_opt(p, OPT_IF_TSRESOL, &resol, 1);
    p = put_opt(p, OPT_END, NULL, 0);
    uint32_t total = (uint32_t)(p - b) + 4;
    put32(b + 4, total);
    put32(p, total);
    c->len += total;
}

/* Opens the current file (the ring's file_no-th), replacing it, and puts
 * its headers in the (empty) buffer: the section, then every interface
 * declared so far. */
static int open_file(struct ini_capture *c, char *err, size_t errlen)
{
    char name[sizeof c->path + 32];
    if (c->opts.ring)
        snprintf(name, sizeof name, "%s-%u.pcapng", c->path, c->file_no);
    else
        snprintf(name, sizeof name, "%s", c->path);
    c->fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (c->fd < 0) {
        snprintf(err, errlen, "capture: %s: %s", name, strerror(errno));
        return -1;
    }
    c->files++;
    c->file_bytes = 0;
    put_shb(c);
    for (uint32_t k = 0; k < c->n_ifaces; k++)
        put_idb(c, k);
    c->hdr_len = c->len;
    return 0;
}

int ini_capture_open(struct ini_capture *c, const char *path, const struct ini_capture_opts *o,
                     uint64_t tsc_now, uint64_t tsc_hz, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->opts = *o;
    if (strlen(path) >= sizeof c->path - 16) {
        snprintf(err, errlen, "capture: %s: path too long", path);
        return -1;
    }
    snprintf(c->path, sizeof c->path, "%s", path);
    c->buf = malloc(INI_CAPTURE_BUF);
    if (!c->buf) {
        snprintf(err, errlen, "capture: no memory for %u bytes", INI_CAPTURE_BUF);
        return -1;
    }
    /* Touched now, not on the first frames. */
    memset(c->buf, 0, INI_CAPTURE_BUF);
    c->cap = INI_CAPTURE_BUF;
    if (open_file(c, err, errlen) < 0) {
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
    return 0;
}

int ini_capture_add_iface(struct ini_capture *c, const char *name)
{
    if (c->fd < 0 || c->n_ifaces == INI_CAPTURE_MAX_IFACES || ini_capture_reserve(c, 64 + 64, 0) < 0)
        return -1;
    snprintf(c->iface[c->n_ifaces], sizeof c->iface[0], "%.64s", name);
    put_idb(c, c->n_ifaces);
    c->hdr_len = c->len;
    return (int)c->n_ifaces++;
}

/* The limit is reached: the ring's next file, or the end of the capture
 * (said once: the daemon's log tells why the file ends early). */
static int at_limit(struct ini_capture *c, uint32_t frames)
{
    if (write_all(c) < 0)
        return -1;
    if (!c->opts.ring) {
        fprintf(stderr, "capture: %s reached --capture-limit (%llu bytes); the frames from now on are not "
                        "recorded (--capture-ring N keeps the last ones instead)\n",
                c->path, (unsigned long long)c->opts.limit);
        c->full = 1;
        c->not_recorded += frames;
        return -1;
    }
    close(c->fd);
    c->file_no = (c->file_no + 1) % c->opts.ring;
    char err[700];
    if (open_file(c, err, sizeof err) < 0) {
        fprintf(stderr, "%s; capture stopped\n", err);
        c->failed = 1;
        return -1;
    }
    return 0;
}

int ini_capture_reserve(struct ini_capture *c, size_t bytes, uint32_t frames)
{
    if (c->full)
        c->not_recorded += frames;
    if (c->fd < 0 || c->failed || c->full || bytes > c->cap)
        return -1;
    /* Past the limit, unless the file holds no frame yet. */
    if (c->opts.limit && c->file_bytes + c->len + bytes > c->opts.limit && c->file_bytes + c->len > c->hdr_len &&
        at_limit(c, frames) < 0)
        return -1;
    if (c->len + bytes > c->cap && write_all(c) < 0)
        return -1;
    return 0;
}

uint8_t *ini_capture_frame(struct ini_capture *c, uint32_t iface, uint32_t flags, uint64_t tsc,
                           uint32_t len)
{
    size_t size = ini_capture_frame_size(c, len, flags);
    uint32_t caplen = ini_capture_caplen(c, len);
    if (c->fd < 0 || c->failed || c->full || c->len + size > c->cap)
        return NULL;
    uint64_t ns = c->ns_base + (uint64_t)((unsigned __int128)(tsc - c->tsc_base) * 1000000000u / c->tsc_hz);
    uint8_t *b = c->buf + c->len, *p = b;
    put32(p, BT_EPB);
    put32(p + 4, (uint32_t)size);
    put32(p + 8, iface);
    put32(p + 12, (uint32_t)(ns >> 32));
    put32(p + 16, (uint32_t)ns);
    put32(p + 20, caplen);                  /* captured */
    put32(p + 24, len);                     /* on the wire */
    uint8_t *data = p + 28;
    p = data + pad4(caplen);
    memset(p - (pad4(caplen) - caplen), 0, pad4(caplen) - caplen);
    uint32_t epb_flags = flags & ~INI_CAPTURE_DROPPED;
    p = put_opt(p, OPT_EPB_FLAGS, &epb_flags, 4);
    if (flags & INI_CAPTURE_DROPPED)
        p = put_opt(p, OPT_COMMENT, INI_CAPTURE_DROPPED_NOTE, sizeof INI_CAPTURE_DROPPED_NOTE - 1);
    p = put_opt(p, OPT_END, NULL, 0);
    put32(p, (uint32_t)size);
    c->len += size;
    c->frames++;
    c->bytes += caplen;
    return data;
}

void ini_capture_set_clock(struct ini_capture *c, uint64_t hz)
{
    c->ns_base = 0;
    c->tsc_base = 0;
    c->tsc_hz = hz;
    c->last_write = 0;
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
