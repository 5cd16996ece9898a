/*
 * water_kernels.h - the numerical kernels of Water, each acting on one
 * molecule or one pair of molecules, with no synchronisation. The parallel
 * driver (water_worker.c) decides who calls them on what; the unit tests call
 * them directly.
 *
 * Every kernel evaluates its formulas in exactly the order written in the
 * spec (left to right, parentheses as shown, compound accumulations adding a
 * fully evaluated right-hand side), because that order is what makes a
 * one-thread run bit-identical to the reference.
 */
#ifndef MGS_WATER_KERNELS_H
#define MGS_WATER_KERNELS_H

#include "water.h"

/* 4.1: Taylor (Pascal matrix) prediction of slots 0..5 for all 9 coordinates. */
void water_predict(water_molecule *m);

/* 4.2: Gear corrector with Y = slot7 - slot2, slots 0..6. */
void water_correct(water_molecule *m);

/* 10: wraps the molecule into [0, BOXL]^3 by its oxygen. */
void water_apply_boundary(water_molecule *m, const water_consts *c);

/* 9: s[d] += [(vH1^2 + vH2^2) HMAS + vO^2 OMAS] for each direction d. */
void water_kinetic_accumulate(const water_molecule *m, double s[3]);

/* VM_d = C1 O_d + C2 (H1_d + H2_d). */
void water_update_vm(water_molecule *m);

/* 7: updates VM and overwrites slot 7 with the intramolecular force. */
void water_intra_force(water_molecule *m);

/* 7: lv += position * force over directions then atoms (slot 0 x slot 7). */
void water_intra_virial_accumulate(const water_molecule *m, double *lv);

/* 11: the two intramolecular energy accumulations into *lpota (uses the
 * current positions; VM is not touched). */
void water_intra_energy_accumulate(const water_molecule *m, double *lpota);

/* 8.2-8.4: pair force between A (molecule a) and B (its partner). Adds the
 * atom force increments into fa (for A) and fb (for B) and the virial into
 * *lvir. Uses slot 0 positions and VM. */
void water_pair_force(const water_consts *c, const water_molecule *a, const water_molecule *b,
                      water_forces fa, water_forces fb, double *lvir);

/* 11: pair energy, accumulating into *lpotr and *lptrf. */
void water_pair_energy(const water_consts *c, const water_molecule *a, const water_molecule *b,
                       double *lpotr, double *lptrf);

#endif /* MGS_WATER_KERNELS_H */
