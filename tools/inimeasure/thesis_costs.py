#!/usr/bin/env python3
"""Derives the virtual-time mode's `thesis` cost set from the thesis's
tables 5.1 and 5.2 (seed 002: an INI's send and receive path on a 20 MHz
Alewife, in cycles, for messages of 0 to 65,000 bytes).

Each side's cost is modelled as
    cycles = per_message + per_byte * length + per_frame * (frames - 1)
where frames = ceil((length + 8) / 1480), the IP fragments of a UDP
datagram at an MTU of 1500 (one frame up to 1,472 bytes).  The three
parameters are fitted by least squares on the relative error (a 65,000-byte
message should not outweigh the small ones), with the normal equations
solved by hand: the script needs nothing beyond Python.

Prints the parameters (what ini/vtime/vt_cost.c holds) and each table
row's fit with its error; the output is committed as
docs/results/vtime-thesis-costs.txt (PYTHONPATH=tools python3 -m
inimeasure.thesis_costs).
"""
import math

LENGTHS = [0, 100, 200, 1400, 1600, 65000]
SEND = [2318, 2557, 2875, 5865, 13002, 421733]      # table 5.1, total
RECV = [2513, 2794, 3005, 6125, 16153, 688080]      # table 5.2, total


def frames(length):
    """IP fragments of a UDP datagram of `length` payload bytes at MTU 1500."""
    return max(1, math.ceil((length + 8) / 1480))


def solve(a, b):
    """Solves the n x n system a x = b by Gaussian elimination with pivoting."""
    n = len(b)
    m = [row[:] + [v] for row, v in zip(a, b)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(totals, lengths=LENGTHS, nframes=frames, cols=(0, 1, 2)):
    """Least squares on relative error: rows scaled by 1/total.  `lengths`
    are the totals' message lengths, `nframes(length)` their frames; only
    the parameters in `cols` (0 per_message, 1 per_byte, 2 per_frame) are
    fitted, the others are 0."""
    rows = [[[1.0, float(n), float(nframes(n) - 1)][i] for i in cols] for n in lengths]
    k = len(cols)
    ata = [[0.0] * k for _ in range(k)]
    atb = [0.0] * k
    for row, y in zip(rows, totals):
        w = 1.0 / y
        for i in range(k):
            atb[i] += row[i] * w * y * w
            for j in range(k):
                ata[i][j] += row[i] * w * row[j] * w
    x = solve(ata, atb)
    return [x[cols.index(i)] if i in cols else 0.0 for i in range(3)]


def report(name, totals):
    per_message, per_byte, per_frame = fit(totals)
    print(f"{name}: per_message {per_message:.1f}  per_byte {per_byte:.4f}  per_frame {per_frame:.1f}")
    for n, y in zip(LENGTHS, totals):
        model = per_message + per_byte * n + per_frame * (frames(n) - 1)
        print(f"  {n:6d} B  {frames(n):2d} frames  table {y:7d}  model {model:9.0f}  error {100 * (model - y) / y:+6.1f}%")


def main():
    print("thesis cost set: tables 5.1 (send) and 5.2 (receive) of seed 002, 20 MHz cycles")
    print("model: per_message + per_byte * length + per_frame * (frames - 1), frames = ceil((length + 8) / 1480)")
    report("send", SEND)
    report("recv", RECV)


if __name__ == "__main__":
    main()
