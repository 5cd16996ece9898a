/*
 * water_report.c - everything Water prints on stdout, with the exact formats
 * of spec section 12 (the reference's spacing, including trailing spaces, is
 * part of the output that the tests compare).
 */
#include "water_constants.h"
#include "water.h"

void water_print_parameters(FILE *out, const water_input *in)
{
    fprintf(out, "Using %ld procs on %ld steps of %ld mols\n", in->nprocs, in->nstep, in->nmol);
    fprintf(out, "Other parameters:\n\tTSTEP = %8.2e\n\tNORDER = %ld\n\tNSAVE = %ld\n", in->tstep,
            in->norder, in->nsave);
    fprintf(out, "\tNRST = %ld\n\tNPRINT = %ld\n\tNFMC = %ld\n\tCUTOFF = %lf\n\n", in->nrst,
            in->nprint, in->nfmc, in->cutoff);
}

void water_print_constants(FILE *out, const water_system *sys)
{
    const water_input *in = &sys->in;
    fprintf(out, "\nTEMPERATURE                = %8.2f K\n", TEMP);
    fprintf(out, "DENSITY                    = %8.5f G/C.C.\n", RHO);
    fprintf(out, "NUMBER OF MOLECULES        = %8ld\n", in->nmol);
    fprintf(out, "NUMBER OF PROCESSORS       = %8ld\n", in->nprocs);
    fprintf(out, "TIME STEP                  = %8.2e SEC\n", sys->c.tstep);
    fprintf(out, "ORDER USED TO SOLVE F=MA   = %8ld \n", in->norder);
    fprintf(out, "NO. OF TIME STEPS          = %8ld \n", in->nstep);
    fprintf(out, "FREQUENCY OF DATA SAVING   = %8ld \n", in->nsave);
    fprintf(out, "FREQUENCY TO WRITE RST FILE= %8ld \n", in->nrst);
    fprintf(out, "SPHERICAL CUTOFF RADIUS    = %8.4f ANGSTROM\n", sys->c.cutoff);
}

void water_print_lattice(FILE *out, const water_system *sys)
{
    const water_lattice *lat = &sys->lattice;
    fprintf(out, "\nNS = %.16f\n", lat->ns);
    fprintf(out, "BOXL = %10f\n", sys->c.boxl);
    fprintf(out, "CUTOFF = %10f\n", sys->c.cutoff);
    fprintf(out, "XS = %10f\n", lat->xs);
    fprintf(out, "ZERO = %g\n", lat->zero);
    fprintf(out, "WCOS = %f\n", lat->wcos);
    fprintf(out, "WSIN = %f\n", lat->wsin);
    fprintf(out, "***** NEW RUN STARTING FROM REGULAR LATTICE *****\n");
    if (sys->in.nsave > 0)
        fprintf(out, "COLLECTING X AND V DATA AT EVERY %4ld TIME STEPS \n", sys->in.nsave);
}

void water_print_step(FILE *out, long step, const water_energies *e, bool full)
{
    fprintf(out, "     %5ld %14.5lf %12.5lf %12.5lf                  %12.5lf\n %16.3lf %16.5lf %16.5lf\n",
            step, e->ten, e->pota, e->potr, e->potrf, e->xtt, e->avgt, e->xvir);
    if (full)
        fprintf(out, "FULL %ld %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", step, e->ten, e->pota,
                e->potr, e->potrf, e->xtt, e->avgt, e->xvir);
}

void water_print_footer(FILE *out, const water_system *sys)
{
    const water_timing *t = sys->timing;
    unsigned long measured = (unsigned long)t->measured;
    unsigned long intra = (unsigned long)t->intra;
    unsigned long inter = (unsigned long)t->inter;
    /* milliseconds (water.h): the parts may round above the total */
    unsigned long other = measured > intra + inter ? measured - intra - inter : 0;
    fprintf(out, "COMPUTESTART (after initialization) = %lu\n", (unsigned long)t->compute_start);
    fprintf(out, "COMPUTEEND = %lu\n", (unsigned long)t->compute_end);
    fprintf(out, "COMPUTETIME (after initialization) = %lu\n",
            (unsigned long)(t->compute_end - t->compute_start));
    fprintf(out, "Measured Time (2nd timestep onward) = %lu\n", measured);
    fprintf(out, "Intramolecular time only (2nd timestep onward) = %lu\n", intra);
    fprintf(out, "Intermolecular time only (2nd timestep onward) = %lu\n", inter);
    fprintf(out, "Other time (2nd timestep onward) = %lu\n", other);
    fprintf(out, "\nExited Happily with XTT = %g (note: XTT value is garbage if NPRINT > NSTEP)\n",
            *sys->final_xtt);
}
