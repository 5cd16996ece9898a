/*
 * water.h - the Water application (SPLASH-2 water-nsquared, as described in
 * tools/apps/water/data/WATER_SPEC.md, "the spec" below): data layout and the
 * entry points used by the program (water_main.c) and by the unit tests.
 *
 * Design. The program is split into pure pieces that can be checked alone
 * (input parsing, run constants, lattice, velocities, per-molecule kernels
 * in water_kernels.h) and one parallel driver (water_worker) that runs the
 * spec's time-step loop on P threads through the portable interface par.h.
 * Everything the threads share (the water_system below and the arrays it
 * points to) is allocated with par_malloc by water_system_create, and the
 * workers receive it as the par_run argument, so the same code can later run
 * over a distributed shared memory. Thread ids and the work split depend only
 * on (N, P, thread id), never on where a thread runs.
 */
#ifndef MGS_WATER_H
#define MGS_WATER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "par.h"

/* Exit status for malformed input or a missing/short data file. */
#define WATER_EXIT_BAD_INPUT 2

/* The ten input fields (spec section 1), as read. */
typedef struct water_input {
    double tstep;  /* TSTEP in seconds */
    long nmol;     /* NMOL, a perfect cube */
    long nstep;    /* NSTEP */
    long norder;   /* NORDER, must be 6 */
    long nsave;    /* NSAVE */
    long nrst;     /* NRST, echoed only */
    long nprint;   /* NPRINT >= 1 */
    long nfmc;     /* NFMC, echoed only */
    long nprocs;   /* NumProcs = P */
    double cutoff; /* CUTOFF as read (0 means half box) */
} water_input;

/* Derived run constants (spec 2.4). */
typedef struct water_consts {
    long nmol;
    long natmo;    /* atoms in the system */
    double tstep;  /* time step in fs */
    double fpot, fkin;
    double boxl, boxh;
    double cutoff, cut2;
    double ref1, ref2, ref4;
    double fhm, fom;
} water_consts;

/* Lattice parameters (spec 5.1). */
typedef struct water_lattice {
    double ns;   /* pow(N, 1/3) - 0.00001 */
    double xs;   /* lattice spacing BOXL / NS */
    double zero; /* first coordinate XS / 2 */
    double wcos, wsin;
    long side;   /* molecules per lattice edge */
} water_lattice;

/* Diagnostics of the velocity normalisation (spec 5.2), for tests. */
typedef struct water_velocity_stats {
    double mean[3];  /* SUMX, SUMY, SUMZ after division */
    double scale[3]; /* SUX, SUY, SUZ after the square root */
    double fac;      /* FAC */
} water_velocity_stats;

enum water_atom { WATER_H1 = 0, WATER_O = 1, WATER_H2 = 2 };

enum {
    WATER_SLOT_POS = 0,   /* slots 0..6: position and scaled derivatives */
    WATER_SLOT_ACC = 2,   /* (dt^2/2) x'' */
    WATER_SLOT_FORCE = 7, /* force, then computed scaled acceleration */
    WATER_NSLOTS = 9
};

/* One molecule: f[slot][direction][atom] (spec section 3) and the M site. */
typedef struct water_molecule {
    double vm[3];
    double f[WATER_NSLOTS][3][3];
} water_molecule;

/* A thread's private force increments for one molecule: [direction][atom]. */
typedef double water_forces[3][3];

/* Shared accumulators of the default (lock-based) mode. In deterministic
 * mode thread 0 stores the reduced values here too, for inspection. */
typedef struct water_sums {
    double vir;    /* VIR: intra- plus intermolecular virial of the step */
    double pot[3]; /* POTA, POTR, POTRF (before the FPOT factor) */
    double sum[3]; /* SUM[d]: kinetic sums per direction */
} water_sums;

/* Wall-clock stamps of thread 0 (spec 12 item 8). */
/* Milliseconds of CLOCK_MONOTONIC (water_now_ms): the runs of a small
 * input last less than a second, which whole seconds showed as 0. */
typedef struct water_timing {
    uint64_t compute_start, compute_end;
    uint64_t measured, intra, inter; /* totals from the 2nd step on */
} water_timing;

/* The quantities of one printed energy block (spec 6 item 10, 12 item 7). */
typedef struct water_energies {
    double ten, pota, potr, potrf, xtt, avgt, xvir;
} water_energies;

/* The computing Water declares to an emulated machine (par_work: MGS's
 * virtual-time mode), per kernel call, in x86-64 instructions of this
 * code as callgrind counts them (gcc -O2; docs/results/vtime-water/README.md
 * says how each was derived); times work_scale they are the emulated
 * machine's cycles. */
#define WATER_WORK_PAIR_FORCE  1332   /* water_pair_force, one pair */
#define WATER_WORK_PAIR_ENERGY 1196   /* water_pair_energy, one pair */
#define WATER_WORK_MOL_INTRA    540   /* intra_phase, one molecule */
#define WATER_WORK_MOL_STEP    1000   /* predict, correct, boundary, kinetic: one molecule */
#define WATER_WORK_SCALE_DEFAULT 1.0  /* emulated cycles per instruction */

typedef struct water_options {
    bool deterministic; /* fixed-order reductions (see water_worker) */
    double work_scale;  /* --work-scale: emulated cycles per declared instruction */
    bool full;          /* also print energies with %.17g */
    FILE *out;          /* used by thread 0 only (it runs in the initial process) */
} water_options;

/* Everything the workers share; allocated with par_malloc. */
typedef struct water_system {
    water_input in;
    water_consts c;
    water_lattice lattice;
    water_velocity_stats velocity;
    water_options opt;
    int nthreads;
    water_molecule *mol;     /* [N] */
    water_forces *private_forces; /* [P][stride]: thread p's array at p*stride */
    size_t private_stride;
    water_sums *sums;
    par_lock_t mol_locks;    /* first of nmol_locks locks; molecule m uses m % nmol_locks */
    long nmol_locks;
    par_lock_t vir_lock, kinetic_lock, potential_lock;
    /* written by thread 0, read after par_run */
    water_timing *timing;
    double *final_xtt;       /* XTT of the last energy step (0 if none) */
} water_system;

/* ---- input (water_input.c) ---- */

/* Parses the ten fields from text and validates them. Returns 0, or -1 with
 * a one-line message (no newline) in err. */
int water_parse_input(const char *text, water_input *in, char *err, size_t errlen);

/* Reads the velocity data file and checks that it holds the 1 + 9*nmol
 * numbers needed. On success returns 0 and a malloc'ed array of exactly
 * that many numbers in *numbers; else -1 with a message naming path. */
int water_load_random(const char *path, long nmol, double **numbers, char *err, size_t errlen);

/* Molecules per lattice edge as the spec's lattice loop produces them:
 * the count of integers i >= 0 below pow(N, 1/3) - 0.00001. */
long water_lattice_side(long nmol);

/* ---- set-up (water_setup.c) ---- */

void water_compute_consts(const water_input *in, water_consts *c);
void water_compute_lattice(const water_consts *c, water_lattice *lat);
/* Places molecules 0..N-1 on the lattice (slot 0). */
void water_place_lattice(const water_lattice *lat, water_molecule *mol, long nmol);
/* Sets slot 1 from the data file numbers (random[0] is discarded), slots 2..6 to 0. */
void water_init_velocities(const water_consts *c, const double *random, water_molecule *mol,
                           long nmol, water_velocity_stats *stats);

/* Allocates the shared system (par_init(P) must have been called), computes
 * the constants, lattice and velocities. Returns NULL on allocation failure. */
water_system *water_system_create(const water_input *in, const double *random,
                                  const water_options *opt);

/* ---- work split (water_split.c) ---- */

/* Molecules [*first, *end) owned by thread p of nthreads (spec 13). */
void water_own_range(long nmol, int nthreads, int p, long *first, long *end);
/* Number of partners of molecule a (spec 8.1). */
long water_partner_count(long nmol, long a);
/* The molecules whose private forces thread p may have touched, as up to two
 * half-open intervals [lo[i], hi[i]); returns the number of intervals. */
int water_touched_intervals(long nmol, int nthreads, int p, long lo[2], long hi[2]);

/* ---- the parallel run (water_worker.c) ---- */

/* par_run worker: initial forces and the time-step loop (spec 5.3, 6). */
void water_worker(void *system);

/* ---- output (water_report.c) ---- */

void water_print_parameters(FILE *out, const water_input *in);
void water_print_constants(FILE *out, const water_system *sys);
void water_print_lattice(FILE *out, const water_system *sys);
/* The two-line block of step i; with full, also a line
 * "FULL i TEN POTA POTR POTRF XTT AVGT XVIR" in %.17g. */
void water_print_step(FILE *out, long step, const water_energies *e, bool full);
/* Timing lines and the closing "Exited Happily" line. */
void water_print_footer(FILE *out, const water_system *sys);

#endif /* MGS_WATER_H */
