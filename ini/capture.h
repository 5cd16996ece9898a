/*
 * capture.h - a pcapng writer for an INI's frames (`ini-cluster run
 * --capture`: RUN_DIR/ini<ID>.pcapng, read by tcpdump, tshark, Wireshark).
 *
 * File: one Section Header Block, one Interface Description Block per
 * port (Ethernet, nanosecond time stamps, the port's name), then one
 * Enhanced Packet Block per frame with its direction in epb_flags
 * (inbound or outbound), all little-endian (pcapng lets the writer pick;
 * the byte-order magic tells readers).
 *
 * Hot path.  Recording a frame is a copy into a buffer allocated once at
 * open (ini_capture_frame hands out the room, the caller copies the bytes
 * in); the buffer goes to the file with one write() when the next batch
 * would not fit (ini_capture_reserve), when it is a second old
 * (ini_capture_tick, from the loop's timer turn) and at close.  So the loop
 * makes no allocation and no system call per frame: one write per buffer
 * fill (INI_CAPTURE_BUF, 4 MiB: about 2,700 full-size frames) or per
 * second.  A failed write stops the capture (counted, said once on
 * stderr); the INI goes on.
 *
 * Time stamps come from the TSC, turned into nanoseconds since the epoch
 * from one (CLOCK_REALTIME, TSC) pair taken at open.
 *
 * Ownership: struct ini_capture is the caller's (in struct inid); the
 * buffer and the file descriptor are the capture's, freed by close.
 */
#ifndef INI_CAPTURE_H
#define INI_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#define INI_CAPTURE_BUF  (4u << 20)
#define INI_CAPTURE_IN   1u    /* epb_flags direction: inbound */
#define INI_CAPTURE_OUT  2u    /* outbound */

struct ini_capture {
    int fd;                   /* -1: not capturing */
    uint8_t *buf;
    size_t len, cap;
    uint64_t tsc_base, ns_base, tsc_hz;
    uint64_t last_write;      /* TSC */
    uint32_t n_ifaces;
    uint64_t frames, bytes, writes;
    int failed;               /* a write failed: capture stopped */
};

/* Creates path (replacing it) and writes the section header.  0, or -1
 * with a one-line reason in err (and c->fd = -1). */
int ini_capture_open(struct ini_capture *c, const char *path, uint64_t tsc_now, uint64_t tsc_hz,
                     char *err, size_t errlen);
/* Declares an Ethernet interface named name; returns its id (0, 1, ...
 * in call order).  All interfaces before the first frame. */
int ini_capture_add_iface(struct ini_capture *c, const char *name);

/* Bytes a frame of len bytes takes in the file. */
static inline size_t ini_capture_frame_size(uint32_t len)
{
    return 32 + ((len + 3u) & ~3u) + 12;
}
/* Makes sure `bytes` more fit in the buffer, writing it out first if
 * not.  0, or -1 if they cannot (capture stopped or bytes > the buffer). */
int ini_capture_reserve(struct ini_capture *c, size_t bytes);
/* Appends one frame's block and returns where its len bytes go (the
 * caller copies them there before the next call), or NULL when it does
 * not fit (call ini_capture_reserve first for a batch). */
uint8_t *ini_capture_frame(struct ini_capture *c, uint32_t iface, uint32_t flags, uint64_t tsc,
                           uint32_t len);
/* Forgets the frames appended since the buffer length was `mark`
 * (c->len before them): frames a port refused and that will be offered
 * again, to be recorded when they leave. */
static inline void ini_capture_truncate(struct ini_capture *c, size_t mark)
{
    if (mark < c->len)
        c->len = mark;
}
/* Writes the buffer out if it holds data older than a second. */
void ini_capture_tick(struct ini_capture *c, uint64_t tsc_now);
/* Writes what is left and closes the file. */
void ini_capture_close(struct ini_capture *c);

#endif
