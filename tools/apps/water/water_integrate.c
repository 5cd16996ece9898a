/*
 * water_integrate.c - the 6th-order Gear predictor-corrector on the scaled
 * Nordsieck vector (spec 4), periodic wrapping (spec 10) and the kinetic
 * energy sums (spec 9), one molecule at a time.
 */
#include "water_constants.h"
#include "water_kernels.h"

/* binom(j, k): the Taylor shift of a scaled Nordsieck vector by one step. */
static const double PASCAL[7][7] = {
    { 1, 1, 1, 1, 1, 1, 1 },
    { 0, 1, 2, 3, 4, 5, 6 },
    { 0, 0, 1, 3, 6, 10, 15 },
    { 0, 0, 0, 1, 4, 10, 20 },
    { 0, 0, 0, 0, 1, 5, 15 },
    { 0, 0, 0, 0, 0, 1, 6 },
    { 0, 0, 0, 0, 0, 0, 1 },
};

/* Corrector weights of the 6th-order Gear method for x'' = F/m. */
static const double PCC[7] = {
    863.0 / 6048.0, 665.0 / 1008.0, 1.0, 25.0 / 36.0, 35.0 / 144.0, 1.0 / 24.0, 1.0 / 360.0,
};

void water_predict(water_molecule *m)
{
    /* k ascending: slot k only reads slots > k, which still hold old values. */
    for (int k = 0; k < 6; k++)
        for (int d = 0; d < 3; d++)
            for (int atom = 0; atom < 3; atom++) {
                double s = 0.0;
                for (int j = k + 1; j <= 6; j++)
                    s += PASCAL[k][j] * m->f[j][d][atom];
                m->f[k][d][atom] = m->f[k][d][atom] + s;
            }
}

void water_correct(water_molecule *m)
{
    for (int d = 0; d < 3; d++)
        for (int atom = 0; atom < 3; atom++) {
            double y = m->f[WATER_SLOT_FORCE][d][atom] - m->f[WATER_SLOT_ACC][d][atom];
            for (int k = 0; k <= 6; k++)
                m->f[k][d][atom] = m->f[k][d][atom] + PCC[k] * y;
        }
}

void water_apply_boundary(water_molecule *m, const water_consts *c)
{
    double (*pos)[3] = m->f[WATER_SLOT_POS];
    for (int d = 0; d < 3; d++) {
        double shift;
        if (pos[d][WATER_O] > c->boxl)
            shift = -c->boxl;
        else if (pos[d][WATER_O] < 0.0)
            shift = c->boxl;
        else
            continue;
        /* x + (-BOXL) == x - BOXL exactly, so one code path serves both. */
        pos[d][WATER_H1] = pos[d][WATER_H1] + shift;
        pos[d][WATER_O] = pos[d][WATER_O] + shift;
        pos[d][WATER_H2] = pos[d][WATER_H2] + shift;
    }
}

void water_kinetic_accumulate(const water_molecule *m, double s[3])
{
    const double (*v)[3] = m->f[1];
    for (int d = 0; d < 3; d++)
        s[d] += (v[d][WATER_H1] * v[d][WATER_H1] + v[d][WATER_H2] * v[d][WATER_H2]) * HMAS +
                (v[d][WATER_O] * v[d][WATER_O]) * OMAS;
}
