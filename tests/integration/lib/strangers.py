#!/usr/bin/env python3
"""strangers.py - frames from a stranger on the emulated LAN, for
tests/integration/strangers_lan.sh.  Sends raw Ethernet frames (AF_PACKET)
on one interface of the test's own namespace, only to the two INIs it
learns from a capture of the run (their MAC and IPv4 addresses), for a
bounded number of frames and time.

  strangers.py forge IFACE CAPTURE COUNT
      COUNT frames of each kind below to each INI, paced, then prints one
      JSON line: {"INI-IP": {"kind": sent, ...}, ...}.  Every frame has a
      right IPv4 header checksum, UDP checksum and (DATA) CRC32C; the
      source address is the other INI's (spoofed), except `stranger_src`:
        data_nomac   DATA with no MAC (header, CRC, message)
        data_badmac  DATA with a 16-byte tag that is not the MAC
        ack_nomac    ACK releasing the next 16 sequence numbers, no MAC
        ack_badmac   the same with a wrong tag
        nak_badmac   NAK with a wrong tag
        replay       a DATA frame of the capture sent again, its IP packet
                     as it was (its MAC is right: a duplicate of the run)
        stranger_src data_nomac from this namespace's own address
  strangers.py flood IFACE CAPTURE SECONDS
      as many frames as it manages for SECONDS (at most 10): 1,000-byte
      UDP datagrams to the transport's port, first fragments, and middle
      fragments, half from a spoofed INI address, half from its own, to
      both INIs; prints {"frames": N, "seconds": S, "rate": N/S}.
The capture (pcap, tcpdump -w) must hold unfragmented UDP frames of the
transport in both directions.  The transport header is the 32-bit one
(docs/transport.md): op, conn, seq(4), ack(4), big-endian; the tag is 16
bytes behind it when the key is on; the CRC32C is little-endian.
"""
import json
import os
import random
import socket
import struct
import sys
import time

PORT = 7400
OWN_IP = "198.18.0.250"        # the stranger's address on the INIs' subnet
DATA, ACK, NAK = 1, 2, 3
HDR, TAG = 10, 16


def crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


CRC_TABLE = crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = CRC_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def ones_sum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def ip_header(src, dst, ip_id, frag, payload_len):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + payload_len, ip_id, frag, 64, 17, 0,
                    socket.inet_aton(src), socket.inet_aton(dst))
    c = ~ones_sum(h) & 0xFFFF
    return h[:10] + struct.pack("!H", c) + h[12:]


def udp_datagram(src, dst, payload):
    n = 8 + len(payload)
    pseudo = socket.inet_aton(src) + socket.inet_aton(dst) + struct.pack("!BBH", 0, 17, n)
    u = struct.pack("!HHHH", PORT, PORT, n, 0) + payload
    c = ~ones_sum(pseudo + u) & 0xFFFF
    return u[:6] + struct.pack("!H", c or 0xFFFF) + u[8:]


def frame(dst_mac, src_mac, ip_pkt):
    return dst_mac + src_mac + b"\x08\x00" + ip_pkt


def read_pcap(path):
    """The Ethernet frames of a classic pcap file."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    off, frames = 24, []
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(endian + "IIII", data[off:off + 16])
        frames.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return frames


def learn(frames):
    """INIs (ip -> mac) and the transport's DATA frames of the capture."""
    inis, datas = {}, []
    for f in frames:
        if len(f) < 14 + 20 + 8 + HDR or f[12:14] != b"\x08\x00" or f[23] != 17:
            continue
        ihl = (f[14] & 15) * 4
        udp = f[14 + ihl:]
        if struct.unpack("!H", udp[2:4])[0] != PORT or struct.unpack("!H", f[20:22])[0] & 0x3FFF:
            continue
        src = socket.inet_ntoa(f[26:30])
        inis[src] = f[6:12]
        if udp[8] == DATA:
            datas.append(f)
    return inis, datas


class Stranger:
    """A raw socket on IFACE and what the capture taught about the two INIs:
    their MACs (inis), who each one's peer is, and per destination the
    connection id and sequence numbers in use, so that forged numbers are
    plausible ones.  Seeded: the same frames every time."""

    def __init__(self, iface, capture):
        self.inis, self.datas = learn(read_pcap(capture))
        if len(self.inis) != 2 or not self.datas:
            sys.exit("strangers.py: the capture does not show two INIs exchanging DATA frames")
        self.ips = sorted(self.inis)
        self.peer_of = {self.ips[0]: self.ips[1], self.ips[1]: self.ips[0]}
        with open("/sys/class/net/%s/address" % iface) as f:
            self.own_mac = bytes.fromhex(f.read().strip().replace(":", ""))
        self.s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self.s.bind((iface, 0))
        self.rnd = random.Random(17)
        self.last = {}
        for f in self.datas:
            dst = socket.inet_ntoa(f[30:34])
            udp = f[14 + (f[14] & 15) * 4:]
            conn, seq, ack = udp[9], *struct.unpack("!II", udp[10:18])
            self.last[dst] = (conn, max(seq, self.last.get(dst, (0, 0, 0))[1]), ack)

    def transport(self, dst, src, payload, ip_id=None):
        """A frame to INI DST carrying PAYLOAD as UDP from SRC."""
        ip_id = self.rnd.randrange(65536) if ip_id is None else ip_id
        return frame(self.inis[dst], self.own_mac, ip_header(src, dst, ip_id, 0, 8 + len(payload)) +
                     udp_datagram(src, dst, payload))

    def data_payload(self, dst, tag):
        """A DATA datagram with a plausible sequence number and TAG as its MAC."""
        conn, seq, ack = self.last.get(dst, (0, 0, 0))
        msg = bytes(self.rnd.randrange(256) for _ in range(80))
        hdr = struct.pack("!BBII", DATA, conn, (seq + 1 + self.rnd.randrange(16)) & 0xFFFFFFFF, ack)
        return hdr + tag + struct.pack("<I", crc32c(msg)) + msg

    def ack_payload(self, dst, op, tag):
        """An ACK or NAK (OP) acknowledging ahead, TAG as its MAC."""
        conn, seq, ack = self.last.get(dst, (0, 0, 0))
        return struct.pack("!BBII", op, conn, 0, (ack + 16) & 0xFFFFFFFF) + tag

    def forged(self, kind, dst, i, bad, replays):
        """The frame of KIND for INI DST (round I), or None (no replay)."""
        src = self.peer_of[dst]
        if kind == "data_nomac":
            return self.transport(dst, src, self.data_payload(dst, b""))
        if kind == "data_badmac":
            return self.transport(dst, src, self.data_payload(dst, bad))
        if kind == "ack_nomac":
            return self.transport(dst, src, self.ack_payload(dst, ACK, b""))
        if kind == "ack_badmac":
            return self.transport(dst, src, self.ack_payload(dst, ACK, bad))
        if kind == "nak_badmac":
            return self.transport(dst, src, self.ack_payload(dst, NAK, bad))
        if kind == "replay":
            if not replays[dst]:
                return None
            # The datagram as captured, from this port's MAC: with the
            # INI's own, the bridge would learn that INI here and send its
            # traffic to us.
            f = replays[dst][i % len(replays[dst])]
            return f[:6] + self.own_mac + f[12:]
        return self.transport(dst, OWN_IP, self.data_payload(dst, b""))

    def forge(self, amount):
        """COUNT rounds of every kind of forged frame to each INI, paced;
        prints the frames sent per INI and kind (JSON)."""
        count = min(int(amount), 2000)
        sent = {ip: {} for ip in self.ips}
        kinds = ["data_nomac", "data_badmac", "ack_nomac", "ack_badmac", "nak_badmac", "replay",
                 "stranger_src"]
        replays = {ip: [f for f in self.datas if socket.inet_ntoa(f[30:34]) == ip] for ip in self.ips}
        for i in range(count):
            for dst in self.ips:
                bad = bytes(self.rnd.randrange(256) for _ in range(TAG))
                for kind in kinds:
                    f = self.forged(kind, dst, i, bad, replays)
                    if f is None:
                        continue
                    self.s.send(f)
                    sent[dst][kind] = sent[dst].get(kind, 0) + 1
            time.sleep(0.002)       # paced: every frame must arrive to be counted
        print(json.dumps(sent))

    def flood_frames(self):
        """8192 frames: whole datagrams failing the MAC, first fragments and
        middle fragments, to both INIs, from the peer's address or ours."""
        frames = []
        for k in range(8192):
            dst = self.ips[k & 1]
            src = self.peer_of[dst] if k & 2 else OWN_IP
            kind = (k >> 2) % 3
            ip_id = self.rnd.randrange(65536)
            body = bytes(self.rnd.randrange(256) for _ in range(8))
            if kind == 0:               # a whole datagram (fails the MAC)
                frames.append(self.transport(dst, src, body * 125, ip_id))
                continue
            udp = udp_datagram(src, dst, body * 375)       # 3,008 bytes: 3 fragments
            if kind == 1:               # the first fragment only
                piece, frag = udp[:1000], 0x2000
            else:                       # a middle fragment
                piece, frag = udp[1000:2000], 0x2000 | 125
            frames.append(frame(self.inis[dst], self.own_mac, ip_header(src, dst, ip_id, frag, len(piece)) + piece))
        return frames

    def flood(self, amount):
        """The flood frames as fast as the interface takes them for SECONDS
        (at most 10); prints frames, seconds and rate (JSON)."""
        seconds = min(amount, 10.0)
        frames = self.flood_frames()
        n, start = 0, time.monotonic()
        end = start + seconds
        while time.monotonic() < end:
            for k in range(0, len(frames), 1024):
                for f in frames[k:k + 1024]:
                    try:
                        self.s.send(f)
                        n += 1
                    except OSError:     # the interface's queue is full: go on
                        pass
                if time.monotonic() >= end:
                    break
        took = time.monotonic() - start
        print(json.dumps({"frames": n, "seconds": round(took, 3), "rate": round(n / took)}))


def main():
    """strangers.py forge|flood IFACE CAPTURE AMOUNT."""
    mode, iface, capture, amount = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    if mode not in ("forge", "flood"):
        sys.exit("strangers.py: mode is forge or flood")
    stranger = Stranger(iface, capture)
    if mode == "forge":
        stranger.forge(amount)
    else:
        stranger.flood(amount)


if __name__ == "__main__":
    main()
