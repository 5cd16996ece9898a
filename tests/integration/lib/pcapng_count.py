#!/usr/bin/env python3
"""pcapng_count FILE: the Enhanced Packet Blocks of a pcapng file written
by inid's capture (ini/daemon/capture.h: little-endian, one section), by
direction: prints "in N out M other K dropped D", D the frames with a
comment (the sending side's fault injector dropped them, capture.h).  No tshark needed: the tests that
count a capture's frames run where it is not installed."""
import struct
import sys


def epb_options(body):
    """An EPB's direction bits (epb_flags, code 2; 0 if none) and whether
    it has a comment (code 1)."""
    caplen = struct.unpack_from("<I", body, 12)[0]
    off = 20 + ((caplen + 3) & ~3)
    direction, comment = 0, False
    while off + 4 <= len(body):
        code, length = struct.unpack_from("<HH", body, off)
        if code == 0:
            break
        if code == 2 and length == 4:
            direction = struct.unpack_from("<I", body, off + 4)[0] & 3
        comment = comment or code == 1
        off += 4 + ((length + 3) & ~3)
    return direction, comment


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: pcapng_count FILE")
    data = open(sys.argv[1], "rb").read()
    counts = {1: 0, 2: 0, 0: 0}
    dropped = 0
    off = 0
    while off + 12 <= len(data):
        kind, total = struct.unpack_from("<II", data, off)
        if total < 12 or off + total > len(data):
            sys.exit("pcapng_count: %s: block at %d: bad total length %d" % (sys.argv[1], off, total))
        if kind == 6:
            d, note = epb_options(data[off + 8:off + total - 4])
            counts[d if d in counts else 0] += 1
            dropped += note
        off += total
    print("in %d out %d other %d dropped %d" % (counts[1], counts[2], counts[0], dropped))


main()
