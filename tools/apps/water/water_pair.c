/*
 * water_pair.c - the MCY water-water interaction with reaction field,
 * spherical cut-off and per-site minimum image: the force (spec 8.2-8.4) and
 * the energy (spec 11, intermolecular part) of one pair of molecules A, B.
 *
 * Sites: M (charge -2q), H1 and H2 (charge +q), O (no charge, short-range
 * terms only). The 14 site pairs are numbered as in the spec's table; pairs
 * 0..8 are the charge-charge ones compared against the cut-off.
 */
#include <math.h>

#include "water_constants.h"
#include "water_kernels.h"

enum { NPAIRS = 14, NCHARGE_PAIRS = 9 };

/* sep[d][K]: A-site minus B-site of site pair K along direction d, each
 * minimum-imaged on its own (different site pairs may use different images). */
static void site_separations(const water_consts *c, const water_molecule *a,
                             const water_molecule *b, double sep[3][NPAIRS])
{
    for (int d = 0; d < 3; d++) {
        const double *pa = a->f[WATER_SLOT_POS][d];
        const double *pb = b->f[WATER_SLOT_POS][d];
        double *x = sep[d];
        x[0] = a->vm[d] - b->vm[d];
        x[1] = a->vm[d] - pb[WATER_H1];
        x[2] = a->vm[d] - pb[WATER_H2];
        x[3] = pa[WATER_H1] - b->vm[d];
        x[4] = pa[WATER_H2] - b->vm[d];
        x[5] = pa[WATER_H1] - pb[WATER_H1];
        x[6] = pa[WATER_H1] - pb[WATER_H2];
        x[7] = pa[WATER_H2] - pb[WATER_H1];
        x[8] = pa[WATER_H2] - pb[WATER_H2];
        x[9] = pa[WATER_O] - pb[WATER_O];
        x[10] = pa[WATER_O] - pb[WATER_H1];
        x[11] = pa[WATER_O] - pb[WATER_H2];
        x[12] = pa[WATER_H1] - pb[WATER_O];
        x[13] = pa[WATER_H2] - pb[WATER_O];
        for (int k = 0; k < NPAIRS; k++)
            if (fabs(x[k]) > c->boxh)
                x[k] = x[k] >= 0.0 ? x[k] - c->boxl : x[k] + c->boxl;
    }
}

static double squared_distance(double sep[3][NPAIRS], int k)
{
    return sep[0][k] * sep[0][k] + sep[1][k] * sep[1][k] + sep[2][k] * sep[2][k];
}

/* Fills rs[0..8] and returns KC, the number of charge pairs beyond the cut-off. */
static int charge_pair_distances(const water_consts *c, double sep[3][NPAIRS], double rs[NPAIRS])
{
    int beyond = 0;
    for (int k = 0; k < NCHARGE_PAIRS; k++) {
        rs[k] = squared_distance(sep, k);
        if (rs[k] > c->cut2)
            beyond++;
    }
    return beyond;
}

void water_pair_force(const water_consts *c, const water_molecule *a, const water_molecule *b,
                      water_forces fa, water_forces fb, double *lvir)
{
    double sep[3][NPAIRS], rs[NPAIRS], rl[NPAIRS], ff[NPAIRS] = { 0 };
    site_separations(c, a, b, sep);
    int kc = charge_pair_distances(c, sep, rs);
    if (kc == NCHARGE_PAIRS)
        return;

    /* ff[K] = -(dU/dr)/r, so the force on the A site is ff[K] * sep[.][K]. */
    if (rs[0] < c->cut2) {
        ff[0] = QQ4 / (rs[0] * sqrt(rs[0])) + c->ref4;
        *lvir = *lvir + ff[0] * rs[0];
    }
    for (int k = 1; k <= 4; k++) {
        if (rs[k] < c->cut2) {
            ff[k] = -QQ2 / (rs[k] * sqrt(rs[k])) - c->ref2;
            *lvir = *lvir + ff[k] * rs[k];
        }
        if (rs[k + 4] <= c->cut2) {
            rl[k + 4] = sqrt(rs[k + 4]);
            ff[k + 4] = QQ / (rs[k + 4] * rl[k + 4]) + c->ref1;
            *lvir = *lvir + ff[k + 4] * rs[k + 4];
        }
    }
    if (kc == 0) { /* short-range terms only if all charge pairs are inside */
        rs[9] = squared_distance(sep, 9);
        rl[9] = sqrt(rs[9]);
        ff[9] = AB1 * exp(-B1 * rl[9]) / rl[9];
        *lvir = *lvir + ff[9] * rs[9];
        for (int k = 10; k <= 13; k++) {
            double hh = AB2 * exp(-B2 * rl[k - 5]) / rl[k - 5];
            ff[k - 5] = ff[k - 5] + hh;
            *lvir = *lvir + hh * rs[k - 5];
            rs[k] = squared_distance(sep, k);
            rl[k] = sqrt(rs[k]);
            ff[k] = (AB3 * exp(-B3 * rl[k]) - AB4 * exp(-B4 * rl[k])) / rl[k];
            *lvir = *lvir + ff[k] * rs[k];
        }
    }

    /* Site forces onto atoms; the M-site share goes C1 to O and C2 to each H. */
    for (int d = 0; d < 3; d++) {
        double g[NPAIRS];
        for (int k = 0; k < NPAIRS; k++)
            g[k] = ff[k] * sep[d][k];
        double g110 = g[9] + g[0] * C1;
        double g23 = g[1] + g[2];
        double g45 = g[3] + g[4];
        double tt1 = g[0] * C2;
        double tt = g23 * C2 + tt1;
        double tt2 = g45 * C2 + tt1;
        fa[d][WATER_H1] += g[5] + g[6] + g[12] + tt + g[3];
        fa[d][WATER_O] += g110 + g[10] + g[11] + C1 * g23;
        fa[d][WATER_H2] += g[7] + g[8] + g[13] + tt + g[4];
        fb[d][WATER_H1] += -g[5] - g[7] - g[10] - tt2 - g[1];
        fb[d][WATER_O] += -g110 - g[12] - g[13] - C1 * g45;
        fb[d][WATER_H2] += -g[6] - g[8] - g[11] - tt2 - g[2];
    }
}

void water_pair_energy(const water_consts *c, const water_molecule *a, const water_molecule *b,
                       double *lpotr, double *lptrf)
{
    double sep[3][NPAIRS], rs[NPAIRS], rl[NPAIRS];
    site_separations(c, a, b, sep);
    int kc = charge_pair_distances(c, sep, rs);
    if (kc == NCHARGE_PAIRS)
        return;

    /* Charge pairs beyond the cut-off count as if exactly at the cut-off. */
    for (int k = 0; k < NCHARGE_PAIRS; k++) {
        if (rs[k] <= c->cut2) {
            rl[k] = sqrt(rs[k]);
        } else {
            rl[k] = c->cutoff;
            rs[k] = c->cut2;
        }
    }
    *lpotr = *lpotr - QQ2 / rl[1] - QQ2 / rl[2] - QQ2 / rl[3] - QQ2 / rl[4] + QQ / rl[5] +
             QQ / rl[6] + QQ / rl[7] + QQ / rl[8] + QQ4 / rl[0];
    *lptrf = *lptrf - c->ref2 * rs[0] -
             c->ref1 * ((rs[5] + rs[6] + rs[7] + rs[8]) * 0.5 - rs[1] - rs[2] - rs[3] - rs[4]);
    if (kc == 0) {
        for (int k = 9; k < NPAIRS; k++)
            rl[k] = sqrt(squared_distance(sep, k));
        *lpotr = *lpotr + A1 * exp(-B1 * rl[9]) +
                 A2 * (exp(-B2 * rl[5]) + exp(-B2 * rl[6]) + exp(-B2 * rl[7]) + exp(-B2 * rl[8])) +
                 A3 * (exp(-B3 * rl[10]) + exp(-B3 * rl[11]) + exp(-B3 * rl[12]) +
                       exp(-B3 * rl[13])) -
                 A4 * (exp(-B4 * rl[10]) + exp(-B4 * rl[11]) + exp(-B4 * rl[12]) +
                       exp(-B4 * rl[13]));
    }
}
