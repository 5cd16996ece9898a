"""initrace.py - the one Python reader of an INI's detailed trace
(RUN_DIR/ini<ID>.trace; the layout of ini/trace/trace.h, read in C by
tools/trace/trace_file.c).

It reads only what the C tools do not print: each message's interval in
its INI's hands, from its first stamp (outbound: the compute node's
submission; inbound and local: entering the INI's queue) to its done stamp.
On disk a record keeps its stamps from its kind's first one, so these are
its slots 0 and 5 whatever the kind (ini_trace_first_stamp,
trace_done_index).  Everything else about a run (clusters, INIs, records
dropped, messages per compute node) comes from `ini-trace report --format
json`.  A file that is not a trace stops the script with one line naming
it (inimeasure.dier).
"""
import glob
import os
import struct
import sys

if not __package__:
    sys.exit("initrace.py: a module of inimeasure, for `from inimeasure import initrace` with tools/ on PYTHONPATH")
from inimeasure import dier  # noqa: E402

MAGIC = b"INITRACE"
HEADER_SIZE, RECORD_SIZE = 128, 64
OUT, IN, LOCAL = 1, 2, 3            # enum ini_trace_kind

die = dier("initrace.py", 1)


def read(path, arrival=False):
    """(INI id, [(kind, first stamp, done stamp)]) of one trace file: its
    header checked against trace.h's sizes, so that a file of another
    layout is refused rather than misread.  With arrival, the first stamp
    is the arrival t1 instead (slot 1 of an outbound record: a summary
    trace leaves its slot 0, the submission, empty)."""
    with open(path, "rb") as f:
        b = f.read()
    if len(b) < HEADER_SIZE or b[:8] != MAGIC:
        die("%s: not an INI trace (no INITRACE header)" % path)
    header, record = struct.unpack_from("<HH", b, 10)
    if (header, record) != (HEADER_SIZE, RECORD_SIZE):
        die("%s: header of %d and records of %d bytes, expected %d and %d"
            % (path, header, record, HEADER_SIZE, RECORD_SIZE))
    ini, = struct.unpack_from("<i", b, 24)
    n, = struct.unpack_from("<Q", b, 48)
    if len(b) != HEADER_SIZE + RECORD_SIZE * n:
        die("%s: %d bytes, but its header says %d records" % (path, len(b), n))
    recs = []
    for k in range(n):
        off = HEADER_SIZE + RECORD_SIZE * k
        kind = b[off]
        first, t1, done = struct.unpack_from("<QQ24xQ", b, off + 16)
        recs.append((kind, t1 if arrival and kind == OUT else first, done))
    return ini, recs


def hands(run, arrival=False):
    """{INI id: [(kind, first, done)]} of every ini*.trace in RUN (read's
    arrival: t1 for first)."""
    out = {}
    for path in sorted(glob.glob(os.path.join(run, "ini*.trace"))):
        ini, recs = read(path, arrival)
        out[ini] = recs
    return out
