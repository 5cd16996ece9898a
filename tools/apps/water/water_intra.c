/*
 * water_intra.c - the quartic intramolecular force field (spec 7) and its
 * energy (spec 11, intramolecular part), plus the M-site position.
 *
 * The molecule's internal coordinates are the two bond stretches D1, D2 and
 * the angle deviation DT (expressed as a length, times ROH). The force is
 * -grad V through the chain rule: G1, G2, G3 are dV/dD1, dV/dDT, dV/dD2 and
 * e1, e2, t1, t3 are the geometric derivatives of the internal coordinates.
 */
#include <math.h>

#include "water_constants.h"
#include "water_kernels.h"

void water_update_vm(water_molecule *m)
{
    double (*pos)[3] = m->f[WATER_SLOT_POS];
    for (int d = 0; d < 3; d++)
        m->vm[d] = C1 * pos[d][WATER_O] + C2 * (pos[d][WATER_H1] + pos[d][WATER_H2]);
}

void water_intra_force(water_molecule *m)
{
    double (*pos)[3] = m->f[WATER_SLOT_POS];
    double u[3], w[3];
    double r1s = 0.0, r2s = 0.0, uw = 0.0;
    water_update_vm(m);
    for (int d = 0; d < 3; d++) {
        u[d] = pos[d][WATER_O] - pos[d][WATER_H1];
        w[d] = pos[d][WATER_O] - pos[d][WATER_H2];
        r1s = r1s + u[d] * u[d];
        r2s = r2s + w[d] * w[d];
        uw = uw + u[d] * w[d];
    }
    double r1 = sqrt(r1s);
    double r2 = sqrt(r2s);
    double c = uw / (r1 * r2);
    double s = sqrt(1.0 - c * c);
    double dt = (acos(c) - ANGLE) * ROH;
    double d1 = r1 - ROH;
    double d1s = d1 * d1;
    double d2 = r2 - ROH;
    double d2s = d2 * d2;
    double dts = dt * dt;
    double a1 = ROH / (r1 * s);
    double a2 = ROH / (r2 * s);
    double e1[3], e2[3], t1[3], t3[3];
    for (int d = 0; d < 3; d++) {
        e1[d] = u[d] / r1;
        e2[d] = w[d] / r2;
        t1[d] = (-e2[d] + e1[d] * c) * a1;
        t3[d] = (-e1[d] + e2[d] * c) * a2;
    }

    /* harmonic, cubic and quartic contributions, added stage by stage */
    double g1 = FC11 * d1 + FC12 * d2 + FC13 * dt;
    double g2 = FC33 * dt + FC13 * (d1 + d2);
    double g3 = FC11 * d2 + FC12 * d1 + FC13 * dt;

    g1 = g1 + (3.0 * FC111 * d1s + FC112 * (2.0 * d1 + d2) * d2 + 2.0 * FC113 * d1 * dt +
               FC123 * d2 * dt + FC133 * dts) * ROHI;
    g2 = g2 + (3.0 * FC333 * dts + FC113 * (d1s + d2s) + FC123 * d1 * d2 +
               2.0 * FC133 * (d1 + d2) * dt) * ROHI;
    g3 = g3 + (3.0 * FC111 * d2s + FC112 * (2.0 * d2 + d1) * d1 + 2.0 * FC113 * d2 * dt +
               FC123 * d1 * dt + FC133 * dts) * ROHI;

    g1 = g1 + (4.0 * FC1111 * d1s * d1 + FC1112 * (3.0 * d1s + d2s) * d2 +
               2.0 * FC1122 * d1 * d2s + 3.0 * FC1113 * d1s * dt +
               FC1123 * (2.0 * d1 + d2) * d2 * dt +
               (2.0 * FC1133 * d1 + FC1233 * d2 + FC1333 * dt) * dts) * ROHI2;
    g2 = g2 + (4.0 * FC3333 * dts * dt + FC1113 * (d1s * d1 + d2s * d2) +
               FC1123 * (d1 + d2) * d1 * d2 + 2.0 * FC1133 * (d1s + d2s) * dt +
               2.0 * FC1233 * d1 * d2 * dt + 3.0 * FC1333 * (d1 + d2) * dts) * ROHI2;
    g3 = g3 + (4.0 * FC1111 * d2s * d2 + FC1112 * (3.0 * d2s + d1s) * d1 +
               2.0 * FC1122 * d1s * d2 + 3.0 * FC1113 * d2s * dt +
               FC1123 * (2.0 * d2 + d1) * d1 * dt +
               (2.0 * FC1133 * d2 + FC1233 * d1 + FC1333 * dt) * dts) * ROHI2;

    double (*force)[3] = m->f[WATER_SLOT_FORCE];
    for (int d = 0; d < 3; d++) {
        double f_h1 = g1 * e1[d] + g2 * t1[d];
        double f_h2 = g3 * e2[d] + g2 * t3[d];
        force[d][WATER_H1] = f_h1;
        force[d][WATER_O] = -(f_h1 + f_h2);
        force[d][WATER_H2] = f_h2;
    }
}

void water_intra_virial_accumulate(const water_molecule *m, double *lv)
{
    for (int d = 0; d < 3; d++)
        for (int atom = 0; atom < 3; atom++)
            *lv += m->f[WATER_SLOT_POS][d][atom] * m->f[WATER_SLOT_FORCE][d][atom];
}

void water_intra_energy_accumulate(const water_molecule *m, double *lpota)
{
    const double (*pos)[3] = m->f[WATER_SLOT_POS];
    double u[3], w[3];
    for (int d = 0; d < 3; d++) {
        u[d] = pos[d][WATER_O] - pos[d][WATER_H1];
        w[d] = pos[d][WATER_O] - pos[d][WATER_H2];
    }
    double r1s = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    double r2s = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
    double uw = u[0] * w[0] + u[1] * w[1] + u[2] * w[2];
    double r1 = sqrt(r1s);
    double r2 = sqrt(r2s);
    double c = uw / (r1 * r2);
    double dt = (acos(c) - ANGLE) * ROH;
    double d1 = r1 - ROH;
    double d2 = r2 - ROH;
    double d1s = d1 * d1;
    double d2s = d2 * d2;
    double drp = d1 + d2;
    double dts = dt * dt;

    *lpota += (FC11 * (d1s + d2s) + FC33 * dts) * 0.5 + FC12 * d1 * d2 + FC13 * drp * dt +
              (FC111 * (d1s * d1 + d2s * d2) + FC333 * dts * dt + FC112 * drp * d1 * d2 +
               FC113 * (d1s + d2s) * dt + FC123 * d1 * d2 * dt + FC133 * drp * dts) * ROHI;
    *lpota += (FC1111 * (d1s * d1s + d2s * d2s) + FC3333 * dts * dts +
               FC1112 * (d1s + d2s) * d1 * d2 + FC1122 * d1s * d2s +
               FC1113 * (d1s * d1 + d2s * d2) * dt + FC1123 * drp * d1 * d2 * dt +
               FC1133 * (d1s + d2s) * dts + FC1233 * d1 * d2 * dts +
               FC1333 * drp * dts * dt) * ROHI2;
}
