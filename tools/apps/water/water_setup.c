/*
 * water_setup.c - run constants (spec 2.4), lattice positions (spec 5.1),
 * velocities from the data file (spec 5.2), and the allocation of the shared
 * system through par.h. Runs once, in the initial process, before par_run.
 */
#include <math.h>
#include <string.h>

#include "water_constants.h"
#include "water.h"

void water_compute_consts(const water_input *in, water_consts *c)
{
    memset(c, 0, sizeof *c);
    c->nmol = in->nmol;
    c->tstep = in->tstep / UNITT;
    c->natmo = WATER_NATOMS * in->nmol;
    c->fpot = UNITM * pow(UNITL / UNITT, 2.0) / (BOLTZ * TEMP * (double)c->natmo);
    c->fkin = c->fpot * 0.50 / (c->tstep * c->tstep);
    c->boxl = pow((double)in->nmol * WTMOL * UNITM / RHO, 1.00 / 3.00);
    c->boxl = c->boxl / UNITL;
    c->boxh = c->boxl * 0.50;
    c->cutoff = in->cutoff == 0.0 ? c->boxh : in->cutoff;
    if (c->cutoff > 11.0)
        c->cutoff = 11.0;
    c->ref1 = -QQ / (c->cutoff * c->cutoff * c->cutoff);
    c->ref2 = 2.00 * c->ref1;
    c->ref4 = 2.00 * c->ref2;
    c->cut2 = c->cutoff * c->cutoff;
    c->fhm = (c->tstep * c->tstep * 0.50) / HMAS;
    c->fom = (c->tstep * c->tstep * 0.50) / OMAS;
}

long water_lattice_side(long nmol)
{
    double ns = pow((double)nmol, 1.0 / 3.0) - 0.00001;
    long side = 0;
    while (side < ns)
        side++;
    return side;
}

void water_compute_lattice(const water_consts *c, water_lattice *lat)
{
    lat->ns = pow((double)c->nmol, 1.0 / 3.0) - 0.00001;
    lat->xs = c->boxl / lat->ns; /* divided by NS, not by the integer side */
    lat->zero = lat->xs * 0.50;
    lat->wcos = ROH * cos(ANGLE * 0.5);
    lat->wsin = ROH * sin(ANGLE * 0.5);
    lat->side = water_lattice_side(c->nmol);
}

void water_place_lattice(const water_lattice *lat, water_molecule *mol, long nmol)
{
    long n = lat->side;
    /* Coordinates by repeated addition (c_{m+1} = c_m + XS), as the reference
     * does; multiplication would differ in the last bits. */
    double xo = lat->zero;
    for (long i = 0; i < n; i++, xo = xo + lat->xs) {
        double xh = xo + lat->wcos;
        double yo = lat->zero;
        for (long j = 0; j < n; j++, yo = yo + lat->xs) {
            double yh1 = yo + lat->wsin;
            double yh2 = yo - lat->wsin;
            double z = lat->zero;
            for (long k = 0; k < n; k++, z = z + lat->xs) {
                long m = (i * n + j) * n + k;
                if (m >= nmol)
                    return; /* callers validate N = side^3; never overrun */
                double (*pos)[3] = mol[m].f[WATER_SLOT_POS];
                pos[0][WATER_H1] = xh;
                pos[1][WATER_H1] = yh1;
                pos[2][WATER_H1] = z;
                pos[0][WATER_O] = xo;
                pos[1][WATER_O] = yo;
                pos[2][WATER_O] = z;
                pos[0][WATER_H2] = xh;
                pos[1][WATER_H2] = yh2;
                pos[2][WATER_H2] = z;
            }
        }
    }
}

void water_init_velocities(const water_consts *c, const double *random, water_molecule *mol,
                           long nmol, water_velocity_stats *stats)
{
    static const int atoms[3] = { WATER_H1, WATER_O, WATER_H2 }; /* file order */
    const double *next = random + 1; /* the first number is discarded */
    double mean[3] = { 0.0, 0.0, 0.0 };
    for (long m = 0; m < nmol; m++)
        for (int a = 0; a < 3; a++)
            for (int d = 0; d < 3; d++) {
                double r = *next++;
                mol[m].f[1][d][atoms[a]] = r; /* raw value for now */
                mean[d] += r;
                for (int slot = 2; slot <= 6; slot++)
                    mol[m].f[slot][d][atoms[a]] = 0.0;
            }
    for (int d = 0; d < 3; d++)
        mean[d] = mean[d] / (double)(3 * nmol);

    /* Scale each direction so that sum m v^2 = FAC (kT per atom) and remove
     * the mean so that the total momentum vanishes. */
    double norm[3] = { 0.0, 0.0, 0.0 };
    for (long m = 0; m < nmol; m++) {
        double (*v)[3] = mol[m].f[1];
        for (int d = 0; d < 3; d++)
            norm[d] = norm[d] +
                      (pow(v[d][WATER_H1] - mean[d], 2.0) + pow(v[d][WATER_H2] - mean[d], 2.0)) / HMAS +
                      pow(v[d][WATER_O] - mean[d], 2.0) / OMAS;
    }
    double fac = BOLTZ * TEMP * (double)c->natmo / UNITM * pow(UNITT * c->tstep / UNITL, 2.0);
    double scale[3];
    for (int d = 0; d < 3; d++)
        scale[d] = sqrt(fac / norm[d]);
    for (long m = 0; m < nmol; m++)
        for (int d = 0; d < 3; d++) {
            double *v = mol[m].f[1][d];
            v[WATER_H1] = (v[WATER_H1] - mean[d]) * scale[d] / HMAS;
            v[WATER_O] = (v[WATER_O] - mean[d]) * scale[d] / OMAS;
            v[WATER_H2] = (v[WATER_H2] - mean[d]) * scale[d] / HMAS;
        }
    if (stats) {
        for (int d = 0; d < 3; d++) {
            stats->mean[d] = mean[d];
            stats->scale[d] = scale[d];
        }
        stats->fac = fac;
    }
}

water_system *water_system_create(const water_input *in, const double *random,
                                  const water_options *opt)
{
    int nthreads = (int)in->nprocs;
    long nmol = in->nmol;
    water_system *sys = par_malloc(sizeof *sys);
    if (!sys)
        return NULL;
    sys->in = *in;
    sys->opt = *opt;
    sys->nthreads = nthreads;
    water_compute_consts(in, &sys->c);
    water_compute_lattice(&sys->c, &sys->lattice);

    /* The private force arrays of all threads live in shared memory because
     * the deterministic mode merges them in thread order (see water_worker.c). */
    sys->private_stride = (size_t)nmol;
    sys->mol = par_malloc((size_t)nmol * sizeof *sys->mol);
    sys->private_forces = par_malloc((size_t)nthreads * sys->private_stride * sizeof(water_forces));
    sys->sums = par_malloc(sizeof *sys->sums);
    sys->timing = par_malloc(sizeof *sys->timing);
    sys->final_xtt = par_malloc(sizeof *sys->final_xtt);
    if (!sys->mol || !sys->private_forces || !sys->sums || !sys->timing || !sys->final_xtt)
        return NULL; /* par_finalize releases what was allocated */

    /* One lock per molecule, as the reference (index = molecule mod 65536). */
    sys->nmol_locks = nmol < 65536 ? nmol : 65536;
    if (par_locks_create((unsigned)sys->nmol_locks, &sys->mol_locks) != 0 ||
        par_locks_create(1, &sys->vir_lock) != 0 || par_locks_create(1, &sys->kinetic_lock) != 0 ||
        par_locks_create(1, &sys->potential_lock) != 0)
        return NULL;

    water_place_lattice(&sys->lattice, sys->mol, nmol);
    water_init_velocities(&sys->c, random, sys->mol, nmol, &sys->velocity);
    return sys;
}
