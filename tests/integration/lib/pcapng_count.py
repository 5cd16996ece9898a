#!/usr/bin/env python3
"""pcapng_count FILE: the Enhanced Packet Blocks of a pcapng file written
by inid's capture (ini/daemon/capture.h: little-endian, one section), by
direction: prints "in N out M other K".  No tshark needed: the tests that
count a capture's frames run where it is not installed."""
import struct
import sys


def epb_direction(body):
    """The direction bits of an EPB's epb_flags option (code 2), 0 if none."""
    caplen = struct.unpack_from("<I", body, 12)[0]
    off = 20 + ((caplen + 3) & ~3)
    while off + 4 <= len(body):
        code, length = struct.unpack_from("<HH", body, off)
        if code == 0:
            break
        if code == 2 and length == 4:
            return struct.unpack_from("<I", body, off + 4)[0] & 3
        off += 4 + ((length + 3) & ~3)
    return 0


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: pcapng_count FILE")
    data = open(sys.argv[1], "rb").read()
    counts = {1: 0, 2: 0, 0: 0}
    off = 0
    while off + 12 <= len(data):
        kind, total = struct.unpack_from("<II", data, off)
        if total < 12 or off + total > len(data):
            sys.exit("pcapng_count: %s: block at %d: bad total length %d" % (sys.argv[1], off, total))
        if kind == 6:
            d = epb_direction(data[off + 8:off + total - 4])
            counts[d if d in counts else 0] += 1
        off += total
    print("in %d out %d other %d" % (counts[1], counts[2], counts[0]))


main()
