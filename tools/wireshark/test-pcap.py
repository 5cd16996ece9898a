#!/usr/bin/env python3
"""test-pcap.py - writes a pcap of INI frames, built by the layout of
stack/swp.c and ini/cn/msg.h, for checking tools/wireshark/ini.lua.

    tools/wireshark/test-pcap.py OUT.pcap

Frames (Ethernet, IPv4, UDP port 7400; INI 0 is 198.18.0.1, INI 1 198.18.0.2):
  1  DATA  32-bit  conn 0 seq 0 ack 0   AM 0->2 handler 1, 64 bytes
  2  ACK   32-bit  conn 1 seq 0 ack 1
  3  DATA  32-bit  conn 0 seq 1 ack 0   AM 1->3 handler 2, 0 bytes
  4  NAK   32-bit  conn 1 seq 1 ack 1
  5  DATA  32-bit  conn 0 seq 1 ack 0   retransmission of 3 (op 0x21: RETX)
  6-8 DATA 32-bit  conn 0 seq 2 ack 1   AM 0->2 handler 1, 4000 bytes, in 3 IPv4 fragments
  9  DATA  32-bit  conn 1 seq 5 ack 3   AM 2->0, 100 bytes, CRC wrong
  10 DATA  32-bit  conn 0 seq 3 ack 1   under EtherType 0x88b5 (the af_packet LAN)
  11 DATA  16-bit  conn 1 seq 300 ack 7, 32 bytes
  12 ACK   16-bit  conn 0 seq 0 ack 301
  13 DATA  8-bit   conn 0 seq 200 ack 9, 10 bytes
  14 NAK   8-bit   conn 1 seq 199 ack 201
  15-17 DATA 32-bit conn 0 seq 10-12 ack 1 AM 0->2 handler 1, 3000 bytes, in 3 transport segments
                                         (first, middle, last: op 0x81, 0xc1, 0x41)
  18 PROBE 32-bit  conn 0 seq 13 ack 1   (everything before 13 sent)
  19 SYNC  32-bit  conn 1 seq 40 ack 17  incarnation 2, answers 0 (a restarted INI 1)
  20 SYNC  32-bit  conn 0 seq 17 ack 40  REPLY (op 0x85), incarnation 1, answers 2
"""
import struct
import sys


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def swp_header(op, conn, seq, ack, bits):
    fmt = {8: ">BBBB", 16: ">BBHH", 32: ">BBII"}[bits]
    return struct.pack(fmt, op, conn, seq, ack)


def am_message(src, dst, handler, payload, pe_seq=0, flags=0):
    return struct.pack("<HHHHII", src, dst, handler, flags, len(payload), pe_seq) + payload


def data(conn, seq, ack, msg, bits=32, bad_crc=False, seg=0):
    crc = crc32c(msg) ^ (1 if bad_crc else 0)
    return swp_header(1 | seg, conn, seq, ack, bits) + struct.pack("<I", crc) + msg


def ip_checksum(hdr):
    s = sum(struct.unpack("!%dH" % (len(hdr) // 2), hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


IP = {0: bytes([198, 18, 0, 1]), 1: bytes([198, 18, 0, 2])}
MAC = {0: bytes.fromhex("0200c6120000"), 1: bytes.fromhex("0200c6120001")}


def frames(src_ini, udp_payload, ident, ethertype=0x0800, mtu=1500):
    """Ethernet frames of one UDP datagram from INI src_ini to the other."""
    dst_ini = 1 - src_ini
    udp = struct.pack("!HHHH", 7400, 7400, 8 + len(udp_payload), 0) + udp_payload   # checksum 0: none
    per_frag = (mtu - 20) // 8 * 8
    out, off = [], 0
    while True:
        piece = udp[off:off + per_frag]
        more = off + len(piece) < len(udp)
        hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(piece), ident, (0x2000 if more else 0) | off // 8,
                          64, 17, 0, IP[src_ini], IP[dst_ini])
        hdr = hdr[:10] + struct.pack("!H", ip_checksum(hdr)) + hdr[12:]
        out.append(MAC[dst_ini] + MAC[src_ini] + struct.pack("!H", ethertype) + hdr + piece)
        off += len(piece)
        if not more:
            return out


def main():
    pattern = bytes((i * 7) & 0xFF for i in range(4000))
    datagrams = [
        (0, data(0, 0, 0, am_message(0, 2, 1, pattern[:64], pe_seq=1)), 0x0800),
        (1, swp_header(2, 1, 0, 1, 32), 0x0800),
        (0, data(0, 1, 0, am_message(1, 3, 2, b"", pe_seq=1)), 0x0800),
        (1, swp_header(3, 1, 1, 1, 32), 0x0800),
        (0, data(0, 1, 0, am_message(1, 3, 2, b"", pe_seq=1), seg=0x20), 0x0800),
        (0, data(0, 2, 1, am_message(0, 2, 1, pattern, pe_seq=2)), 0x0800),
        (1, data(1, 5, 3, am_message(2, 0, 1, pattern[:100]), bad_crc=True), 0x0800),
        (0, data(0, 3, 1, am_message(0, 3, 1, pattern[:48])), 0x88B5),
        (1, data(1, 300, 7, am_message(3, 1, 4, pattern[:32]), bits=16), 0x0800),
        (0, swp_header(2, 0, 0, 301, 16), 0x0800),
        (0, data(0, 200, 9, am_message(0, 2, 5, pattern[:10]), bits=8), 0x0800),
        (1, swp_header(3, 1, 199, 201, 8), 0x0800),
    ]
    # A message in segments of 1,458 bytes (MTU 1500 - 20 - 8 - 10 - 4).
    msg = am_message(0, 2, 1, pattern[:3000])
    for k, seg in enumerate((0x80, 0xC0, 0x40)):
        datagrams.append((0, data(0, 10 + k, 1, msg[k * 1458:(k + 1) * 1458], seg=seg), 0x0800))
    datagrams.append((0, swp_header(4, 0, 13, 1, 32), 0x0800))
    # SYNC after a restart: the body is the sender's incarnation and the one
    # it answers, big-endian (stack/swp.h, INI_SWP_SYNC_BODY).
    datagrams.append((1, swp_header(5, 1, 40, 17, 32) + struct.pack(">II", 2, 0), 0x0800))
    datagrams.append((0, swp_header(5 | 0x80, 0, 17, 40, 32) + struct.pack(">II", 1, 2), 0x0800))
    with open(sys.argv[1], "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))   # pcap, Ethernet
        n = 0
        for ident, (src, payload, ethertype) in enumerate(datagrams, start=1):
            for frame in frames(src, payload, ident, ethertype):
                n += 1
                out.write(struct.pack("<IIII", 1700000000, n * 1000, len(frame), len(frame)) + frame)


if __name__ == "__main__":
    main()
