#!/usr/bin/env python3
"""stranger_probe.py - what another local user can reach of a run
(tests/integration/stranger.sh).  Run as that user (uid 65534), given the
targets the test listed as root, one per line "KIND PATH":

  socket PATH    a listening unix socket: connect (stream and seqpacket);
                 PATH "@name" is one in the abstract namespace
  bindsock PATH  a socket path a server may be restarting on: bind it
                 (taking the link) and connect to it
  fifo PATH      a doorbell FIFO: open for writing and for reading
  shm PATH       a shared-memory segment: open read-write and read-only
  file PATH      a secret file (the run key): open read-only

  stranger_probe.py once TARGETS        every target once
  stranger_probe.py loop TARGETS SECS   again and again for SECS seconds
                                        (while an INI restarts)

Prints one JSON object: attempts, refused, reached_n and "reached", the
first 10 of what was reached (kind, path, how); exits 1 when anything
was reached.
Refused means an error (EACCES, EPERM, ENOENT, ECONNREFUSED...): the
target is closed to this user, or invisible.
"""
import errno
import json
import os
import socket
import sys
import time


def try_connect(path, kind):
    s = socket.socket(socket.AF_UNIX, kind)
    try:
        s.settimeout(0.5)
        s.connect("\0" + path[1:] if path.startswith("@") else path)
        return "connected"
    finally:
        s.close()


def try_bind(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        s.bind(path)
        os.unlink(path)
        return "bound"
    finally:
        s.close()


def try_open(path, flags):
    fd = os.open(path, flags | os.O_NONBLOCK)
    os.close(fd)
    return "opened (flags %#o)" % flags


def attempts_of(kind, path):
    """The attempts for one target, each a callable returning how it got in."""
    if kind == "socket":
        return [lambda: try_connect(path, socket.SOCK_STREAM), lambda: try_connect(path, socket.SOCK_SEQPACKET)]
    if kind == "bindsock":
        return [lambda: try_bind(path), lambda: try_connect(path, socket.SOCK_SEQPACKET)]
    if kind == "fifo":
        return [lambda: try_open(path, os.O_WRONLY), lambda: try_open(path, os.O_RDONLY)]
    if kind == "shm":
        return [lambda: try_open(path, os.O_RDWR), lambda: try_open(path, os.O_RDONLY)]
    if kind == "file":
        return [lambda: try_open(path, os.O_RDONLY)]
    raise SystemExit("stranger_probe.py: unknown kind %r" % kind)


def probe(targets, result):
    for kind, path in targets:
        for attempt in attempts_of(kind, path):
            result["attempts"] += 1
            try:
                how = attempt()
            except OSError as e:
                result["refused"] += 1
                name = errno.errorcode.get(e.errno, str(e.errno))
                result["errors"][name] = result["errors"].get(name, 0) + 1
                continue
            except socket.timeout:
                how = "connect timed out (accepted into a backlog)"
            result["reached_n"] += 1
            if len(result["reached"]) < 10:
                result["reached"].append({"kind": kind, "path": path, "how": how})


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("once", "loop"):
        raise SystemExit("usage: stranger_probe.py once|loop TARGETS [SECONDS]")
    targets = []
    with open(sys.argv[2]) as f:
        for line in f:
            if line.strip():
                kind, path = line.rstrip("\n").split(" ", 1)
                targets.append((kind, path))
    result = {"uid": os.getuid(), "targets": len(targets), "attempts": 0, "refused": 0, "errors": {},
              "reached_n": 0, "reached": []}
    end = time.monotonic() + (float(sys.argv[3]) if sys.argv[1] == "loop" else 0)
    probe(targets, result)
    while time.monotonic() < end:
        probe(targets, result)
        time.sleep(0.002)
    print(json.dumps(result))
    sys.exit(1 if result["reached"] else 0)


if __name__ == "__main__":
    main()
