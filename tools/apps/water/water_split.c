/*
 * water_split.c - the static work split of Water (spec 8.1, 8.5, 13).
 *
 * All functions are pure functions of (N, P, thread id), so every thread can
 * compute any thread's share without communication, and the split does not
 * depend on how threads are placed in processes.
 */
#include "water.h"

void water_own_range(long nmol, int nthreads, int p, long *first, long *end)
{
    long per_thread = nmol / nthreads;
    *first = p * per_thread;
    *end = p == nthreads - 1 ? nmol : (p + 1) * per_thread; /* last one takes the remainder */
}

long water_partner_count(long nmol, long a)
{
    long half = nmol / 2;
    if (nmol % 2 == 1)
        return half;
    /* Even N: pairs at distance exactly N/2 would be seen from both sides;
     * this parity rule gives each of them to exactly one molecule. */
    long last = a + half;
    if (a >= half && a % 2 == 0)
        last -= 1;
    if (a < half && (a + half) % 2 == 1)
        last -= 1;
    return last - a;
}

int water_touched_intervals(long nmol, int nthreads, int p, long lo[2], long hi[2])
{
    long first, end;
    water_own_range(nmol, nthreads, p, &first, &end);
    if (end <= first)
        return 0;
    long last_mol = end - 1;
    long last = last_mol + water_partner_count(nmol, last_mol); /* may exceed N-1 */
    if (last < nmol) {
        lo[0] = first;
        hi[0] = last + 1;
        return 1;
    }
    lo[0] = first;
    hi[0] = nmol;
    long wrapped_last = last % nmol;
    if (wrapped_last > first - 1)
        wrapped_last = first - 1;
    if (wrapped_last < 0)
        return 1;
    lo[1] = 0;
    hi[1] = wrapped_last + 1;
    return 2;
}
