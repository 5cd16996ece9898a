/*
 * capture.h - a pcapng writer for an INI's frames (`ini-cluster run
 * --capture`: RUN_DIR/ini<ID>.pcapng, read by tcpdump, tshark, Wireshark).
 *
 * File: one Section Header Block, one Interface Description Block per
 * port (Ethernet, nanosecond time stamps, the port's name, the snap
 * length), then one Enhanced Packet Block per frame with its direction in
 * epb_flags (inbound or outbound), all little-endian (pcapng lets the
 * writer pick; the byte-order magic tells readers).
 *
 * A frame the sending side's fault injector dropped (--fault, side tx:
 * stack/fault.c decides before the frame reaches the port) is recorded
 * all the same, outbound, with the comment INI_CAPTURE_DROPPED_NOTE
 * (pcapng opt_comment; Wireshark's frame.comment): pcapng has no flag
 * for "not sent".  So the capture holds the original of every
 * retransmission, and tools/wireshark/ini.lua marks the resend as one
 * (ini_swp.retransmission) and the original as dropped.
 *
 * Bounds, as tcpdump's -C, -W and -s (struct ini_capture_opts):
 *   limit  a file never grows past this many bytes.  At the limit the
 *          capture stops (the frames after it are counted, not recorded)
 *          unless
 *   ring   names a number of files: then the capture goes on in the next
 *          file, RUN_DIR/ini<ID>-<k>.pcapng for k = 0..ring-1, each a
 *          complete pcapng file with its own headers, and after the last
 *          starts over at the first, so the files hold the last
 *          ring x limit bytes of the run;
 *   snap   the bytes kept of each frame (its original length is kept
 *          too, as pcapng's original length), 0 for all.
 *
 * Hot path.  Recording a frame is a copy into a buffer allocated once at
 * open (ini_capture_frame hands out the room, the caller copies the bytes
 * in); the buffer goes to the file with one write() when the next batch
 * would not fit (ini_capture_reserve), when it is a second old
 * (ini_capture_tick, from the loop's timer turn) and at close.  So the loop
 * makes no allocation and no system call per frame: one write per buffer
 * fill (INI_CAPTURE_BUF, 4 MiB: about 2,700 full-size frames) or per
 * second, and in a ring one open() per file.  A failed write stops the
 * capture (counted, said once on stderr); the INI goes on.
 *
 * Time stamps come from the TSC, turned into nanoseconds since the epoch
 * from one (CLOCK_REALTIME, TSC) pair taken at open; or, in virtual time,
 * from the emulated machine's clock (ini_capture_set_clock).
 *
 * Ownership: struct ini_capture is the caller's (in struct inid); the
 * buffer and the file descriptor are the capture's, freed by close.
 */
#ifndef INI_CAPTURE_H
#define INI_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#define INI_CAPTURE_BUF        (4u << 20)
#define INI_CAPTURE_IN         1u    /* epb_flags direction: inbound */
#define INI_CAPTURE_OUT        2u    /* outbound */
/* Not a pcapng bit (cleared before epb_flags are written): the frame was
 * dropped by fault injection, and gets the comment below. */
#define INI_CAPTURE_DROPPED    (1u << 31)
#define INI_CAPTURE_DROPPED_NOTE "dropped by fault injection (not sent)"
/* The comment option's bytes: code, length, text padded to 32 bits. */
#define INI_CAPTURE_NOTE_BYTES (4u + ((sizeof INI_CAPTURE_DROPPED_NOTE - 1 + 3u) & ~3u))
#define INI_CAPTURE_MAX_IFACES 16
#define INI_CAPTURE_LIMIT_DEFAULT (256ull << 20)   /* bytes per file: 256 MiB */
#define INI_CAPTURE_LIMIT_MIN     (1ull << 20)     /* as tcpdump -C's unit */
#define INI_CAPTURE_RING_MAX      1000
#define INI_CAPTURE_SNAP_MIN      14               /* an Ethernet header */

struct ini_capture_opts {
    uint64_t limit;           /* bytes per file; 0: none */
    uint32_t ring;            /* files in the ring; 0: one file, stop at the limit */
    uint32_t snap;            /* bytes kept of each frame; 0: all */
};

struct ini_capture {
    int fd;                   /* -1: not capturing */
    uint8_t *buf;
    size_t len, cap;
    uint64_t tsc_base, ns_base, tsc_hz;
    uint64_t last_write;      /* TSC */
    struct ini_capture_opts opts;
    char path[600];           /* the file, or the ring's RUN_DIR/ini<ID> (-k.pcapng added) */
    uint32_t n_ifaces;
    char iface[INI_CAPTURE_MAX_IFACES][65];   /* names, for each new file of a ring */
    uint32_t file_no;         /* the ring's current file */
    uint64_t file_bytes;      /* written to the current file */
    size_t hdr_len;           /* its headers' bytes, while still in the buffer */
    uint64_t frames, bytes, writes, files;
    uint64_t not_recorded;    /* frames after the limit (no ring) */
    int full;                 /* the limit stopped the capture */
    int failed;               /* a write failed: capture stopped */
};

/* "SIZE" for --capture-limit: a number of bytes, with k, M or G for KiB,
 * MiB or GiB; 0 for no limit, else at least INI_CAPTURE_LIMIT_MIN.
 * 0, or -1 with a one-line reason in err. */
int ini_capture_parse_limit(const char *s, uint64_t *out, char *err, size_t errlen);
/* --capture-ring N (1..INI_CAPTURE_RING_MAX) and --capture-snap BYTES
 * (0, or INI_CAPTURE_SNAP_MIN..65535).  0, or -1 with a reason. */
int ini_capture_parse_ring(const char *s, uint32_t *out, char *err, size_t errlen);
int ini_capture_parse_snap(const char *s, uint32_t *out, char *err, size_t errlen);

/* Starts a capture: path is the file (ini<ID>.pcapng) or, with a ring,
 * the files' common start (ini<ID>: ini<ID>-0.pcapng ...).  Creates the
 * (first) file, replacing it, and writes the section header.  0, or -1
 * with a one-line reason in err (and c->fd = -1). */
int ini_capture_open(struct ini_capture *c, const char *path, const struct ini_capture_opts *o,
                     uint64_t tsc_now, uint64_t tsc_hz, char *err, size_t errlen);
/* The capture's time stamps from another clock: a frame's `tsc` is then
 * ticks of `hz` since that clock's zero, and its stamp ns = tsc * 10^9 /
 * hz since the epoch.  The virtual-time mode (inid_vtime.c) gives the
 * machine's cycles: a capture of a virtual run holds emulated time, the
 * same bytes in every run.  Before the first frame. */
void ini_capture_set_clock(struct ini_capture *c, uint64_t hz);
/* Declares an Ethernet interface named name; returns its id (0, 1, ...
 * in call order).  All interfaces before the first frame. */
int ini_capture_add_iface(struct ini_capture *c, const char *name);

/* The bytes of a frame of len bytes that are recorded (the snap length). */
static inline uint32_t ini_capture_caplen(const struct ini_capture *c, uint32_t len)
{
    return c->opts.snap && len > c->opts.snap ? c->opts.snap : len;
}
/* Bytes a frame of len bytes with these flags takes in the file. */
static inline size_t ini_capture_frame_size(const struct ini_capture *c, uint32_t len, uint32_t flags)
{
    return 32 + ((ini_capture_caplen(c, len) + 3u) & ~3u) + 12 +
           (flags & INI_CAPTURE_DROPPED ? INI_CAPTURE_NOTE_BYTES : 0);
}
/* Makes sure `bytes` more, for `frames` frames, fit in the buffer and in
 * the file (its limit), writing the buffer out, or going on to the ring's
 * next file, if not; a file takes at least one such batch whatever its
 * limit.  0, or -1 if they cannot (capture stopped, limit reached without
 * a ring: the frames are counted in not_recorded, or bytes > the
 * buffer). */
int ini_capture_reserve(struct ini_capture *c, size_t bytes, uint32_t frames);
/* Appends one frame's block (flags: a direction, INI_CAPTURE_DROPPED)
 * and returns where its ini_capture_caplen
 * bytes go (the caller copies them there before the next call), or NULL
 * when it does not fit (call ini_capture_reserve first for a batch). */
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
