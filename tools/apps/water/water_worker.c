/*
 * water_worker.c - the parallel part of Water: initial accelerations
 * (spec 5.3) and the time-step loop (spec 6), run by every thread through
 * par_run, with the spec's work split, locks and barriers (spec 13).
 *
 * Each thread owns a contiguous block of molecules (water_own_range) and
 * computes the pair interactions of its molecules with "the next half" of
 * the molecule list into a private force array. Two ways to combine the
 * threads' contributions:
 *
 *  - default (the spec): private forces are added into the shared molecules
 *    under per-molecule locks, and the scalar sums (virial, kinetic and
 *    potential energies) are added into shared variables under locks. The
 *    order of those additions follows lock acquisition, so with P > 1 the
 *    last bits vary from run to run.
 *
 *  - deterministic: nothing is accumulated under locks. After a barrier the
 *    owner of each molecule adds the private arrays of the threads that may
 *    have touched it in thread-id order, and the scalar partials are reduced
 *    with par_sum (thread-id order). For a given P the results are then
 *    bit-identical from run to run and whatever the placement of threads in
 *    processes; for P = 1 both modes perform the same additions.
 *
 * Only thread 0 prints and times; every thread computes the printed
 * quantities (as the reference does) so all keep the same running sums.
 */
#include <string.h>
#include <time.h>

#include "water_constants.h"
#include "clock.h"
#include "water_kernels.h"

/* The timings' clock: milliseconds, monotonic (water.h, water_timing). */
/* In MGS's virtual time it is the node's emulated clock: the timings live
 * in shared memory (water_setup.c), and MGS sends their changed bytes, so
 * a host clock here made the run's bytes, and its cycles, depend on the
 * host's uptime (a 4-byte value above 2^24 ms, 4 h 40 min; 3 below). */
static uint64_t water_now_ms(void)
{
    double v = par_vtime_seconds();
    return v >= 0 ? (uint64_t)(v * 1000.0) : ini_mono_ns() / 1000000u;
}

/* A thread's view of the system: its id, its molecules and its private array. */
typedef struct worker_view {
    water_system *sys;
    water_molecule *mol;
    int self;
    long first, end; /* own molecules [first, end) */
    int ntouched;
    long touched_lo[2], touched_hi[2];
    water_forces *private_forces;
    bool deterministic;
} worker_view;

static water_forces *private_array(const water_system *sys, int p)
{
    return sys->private_forces + (size_t)p * sys->private_stride;
}

static void add_under_lock(par_lock_t lock, double *shared, const double *local, int count)
{
    par_lock(lock);
    for (int i = 0; i < count; i++)
        shared[i] = shared[i] + local[i];
    par_unlock(lock);
}

/* Intramolecular forces of own molecules into slot 7; returns their virial. */
/* Declares `units` calls of a kernel of `per` instructions (water.h). */
static void declare(const worker_view *w, long units, long per)
{
    par_work((uint64_t)((double)units * (double)per * w->sys->opt.work_scale + 0.5));
}

/* Pairs this thread computes: each own molecule with its partners. */
static long own_pairs(const worker_view *w)
{
    long n = 0;
    for (long a = w->first; a < w->end; a++)
        n += water_partner_count(w->sys->c.nmol, a);
    return n;
}

static double intra_phase(const worker_view *w)
{
    declare(w, w->end - w->first, WATER_WORK_MOL_INTRA);
    for (long m = w->first; m < w->end; m++)
        water_intra_force(&w->mol[m]);
    double lv = 0.0;
    for (long m = w->first; m < w->end; m++)
        water_intra_virial_accumulate(&w->mol[m], &lv);
    return lv;
}

static void add_forces(water_forces dest, water_forces add)
{
    for (int d = 0; d < 3; d++)
        for (int atom = 0; atom < 3; atom++)
            dest[d][atom] = dest[d][atom] + add[d][atom];
}

/* Deterministic merge: own molecule m receives every thread's private
 * contribution in thread-id order, skipping threads that cannot have
 * touched it (adding their zeros would not change the sum anyway). */
static void merge_in_thread_order(const worker_view *w, int slot)
{
    const water_system *sys = w->sys;
    int nthreads = sys->nthreads;
    long lo[PAR_MAX_THREADS][2], hi[PAR_MAX_THREADS][2];
    int count[PAR_MAX_THREADS];
    for (int p = 0; p < nthreads; p++)
        count[p] = water_touched_intervals(sys->c.nmol, nthreads, p, lo[p], hi[p]);
    for (long m = w->first; m < w->end; m++)
        for (int p = 0; p < nthreads; p++)
            for (int i = 0; i < count[p]; i++)
                if (m >= lo[p][i] && m < hi[p][i])
                    add_forces(w->mol[m].f[slot], private_array(sys, p)[m]);
}

/* Intermolecular forces (spec 8) added into slot `slot` of every molecule,
 * then own molecules scaled to (dt^2/2) F/m. Returns this thread's virial;
 * in the default mode it has also been added to the shared VIR. */
static double force_phase(const worker_view *w, int slot)
{
    water_system *sys = w->sys;
    const water_consts *c = &sys->c;
    long nmol = c->nmol;
    water_forces *mine = w->private_forces;
    for (int i = 0; i < w->ntouched; i++)
        memset(mine[w->touched_lo[i]], 0,
               (size_t)(w->touched_hi[i] - w->touched_lo[i]) * sizeof(water_forces));

    double lvir = 0.0;
    for (long a = w->first; a < w->end; a++) {
        long partners = water_partner_count(nmol, a);
        for (long t = 1; t <= partners; t++) {
            long b = (a + t) % nmol;
            water_pair_force(c, &w->mol[a], &w->mol[b], mine[a], mine[b], &lvir);
        }
    }
    declare(w, own_pairs(w), WATER_WORK_PAIR_FORCE);

    if (w->deterministic) {
        par_barrier(); /* all private arrays complete */
        merge_in_thread_order(w, slot);
    } else {
        add_under_lock(sys->vir_lock, &sys->sums->vir, &lvir, 1);
        for (int i = 0; i < w->ntouched; i++)
            for (long m = w->touched_lo[i]; m < w->touched_hi[i]; m++) {
                par_lock_t lock = sys->mol_locks + (par_lock_t)(m % sys->nmol_locks);
                par_lock(lock);
                add_forces(w->mol[m].f[slot], mine[m]);
                par_unlock(lock);
            }
        par_barrier(); /* all contributions in */
    }

    for (long m = w->first; m < w->end; m++) {
        double (*f)[3] = w->mol[m].f[slot];
        for (int d = 0; d < 3; d++) {
            f[d][WATER_H1] = f[d][WATER_H1] * c->fhm;
            f[d][WATER_O] = f[d][WATER_O] * c->fom;
            f[d][WATER_H2] = f[d][WATER_H2] * c->fhm;
        }
    }
    return lvir;
}

/* Potential energy (spec 11) from the current positions: pot = POTA, POTR,
 * POTRF summed over all threads (not yet multiplied by FPOT). */
static void potential_energy(const worker_view *w, double pot[3])
{
    water_system *sys = w->sys;
    const water_consts *c = &sys->c;
    double local[3] = { 0.0, 0.0, 0.0 }; /* LPOTA, LPOTR, LPTRF */
    for (long m = w->first; m < w->end; m++) {
        water_update_vm(&w->mol[m]);
        water_intra_energy_accumulate(&w->mol[m], &local[0]);
    }
    par_barrier(); /* every VM updated */
    for (long a = w->first; a < w->end; a++) {
        long partners = water_partner_count(c->nmol, a);
        for (long t = 1; t <= partners; t++)
            water_pair_energy(c, &w->mol[a], &w->mol[(a + t) % c->nmol], &local[1], &local[2]);
    }
    declare(w, own_pairs(w), WATER_WORK_PAIR_ENERGY);
    if (w->deterministic) {
        par_sum(local, 3);
        for (int i = 0; i < 3; i++)
            pot[i] = 0.0 + local[i];
        if (w->self == 0)
            memcpy(sys->sums->pot, pot, sizeof sys->sums->pot);
    } else {
        add_under_lock(sys->potential_lock, sys->sums->pot, local, 3);
        par_barrier();
        memcpy(pot, sys->sums->pot, sizeof sys->sums->pot);
    }
}

static worker_view make_view(water_system *sys)
{
    worker_view w = {
        .sys = sys,
        .mol = sys->mol,
        .self = par_self(),
        .deterministic = sys->opt.deterministic,
    };
    water_own_range(sys->c.nmol, sys->nthreads, w.self, &w.first, &w.end);
    w.ntouched = water_touched_intervals(sys->c.nmol, sys->nthreads, w.self, w.touched_lo,
                                         w.touched_hi);
    w.private_forces = private_array(sys, w.self);
    return w;
}

/* The locked (non-deterministic) mode sums into shared totals: zeroed by
 * thread 0 at the start of each step. */
static void reset_sums(const worker_view *w)
{
    water_system *sys = w->sys;
    if (w->self == 0) {
        sys->sums->vir = 0.0;
        sys->sums->pot[0] = sys->sums->pot[1] = sys->sums->pot[2] = 0.0;
        sys->sums->sum[0] = sys->sums->sum[1] = sys->sums->sum[2] = 0.0;
    }
    par_barrier();
}

/* The step's virial (returned) and kinetic sums (sum) over all threads:
 * in a fixed order (deterministic) or added under a lock. */
static double step_sums(const worker_view *w, double intra_virial, double inter_virial, const double kinetic[3],
                        double sum[3])
{
    water_system *sys = w->sys;
    double vir;
    if (w->deterministic) {
        double partial[5] = { intra_virial, inter_virial, kinetic[0], kinetic[1], kinetic[2] };
        par_sum(partial, 5);
        vir = 0.0 + partial[0] + partial[1];
        for (int d = 0; d < 3; d++)
            sum[d] = 0.0 + partial[2 + d];
        if (w->self == 0) {
            sys->sums->vir = vir;
            memcpy(sys->sums->sum, sum, 3 * sizeof sum[0]);
        }
    } else {
        add_under_lock(sys->kinetic_lock, sys->sums->sum, kinetic, 3);
        par_barrier();
        vir = sys->sums->vir;
        memcpy(sum, sys->sums->sum, 3 * sizeof sum[0]);
    }
    return vir;
}

/* The energies of a step that prints or saves them (spec 11), from the
 * running totals over ttmv steps and this step's kinetic sums. */
static void step_energies(const worker_view *w, long step, bool print, double ttmv, double tkin, double tvir,
                          const double sum[3])
{
    water_system *sys = w->sys;
    const water_consts *c = &sys->c;
    double pot[3];
    potential_energy(w, pot);
    water_energies e;
    e.pota = pot[0] * c->fpot;
    e.potr = pot[1] * c->fpot;
    e.potrf = pot[2] * c->fpot;
    e.xvir = tvir * c->fpot * 0.50 / ttmv;
    e.avgt = tkin * c->fkin * TEMP * 2.00 / (3.00 * ttmv);
    e.ten = (sum[0] + sum[1] + sum[2]) * c->fkin;
    e.xtt = e.pota + e.potr + e.potrf + e.ten;
    if (w->self == 0) {
        *sys->final_xtt = e.xtt;
        if (print)
            water_print_step(sys->opt.out, step, &e, sys->opt.full);
    }
}

void water_worker(void *system)
{
    water_system *sys = system;
    worker_view w = make_view(sys);
    const water_consts *c = &sys->c;
    const water_input *in = &sys->in;
    bool timer = w.self == 0;

    /* Initial accelerations: intermolecular forces only, into slot 2. The
     * intramolecular pass is needed for VM; its virial is discarded. */
    double lv = intra_phase(&w);
    if (!w.deterministic)
        add_under_lock(sys->vir_lock, &sys->sums->vir, &lv, 1);
    par_barrier();
    force_phase(&w, WATER_SLOT_ACC);
    par_barrier();

    if (timer)
        sys->timing->compute_start = water_now_ms();
    double ttmv = 0.0, tkin = 0.0, tvir = 0.0;
    for (long step = 1; step <= in->nstep; step++) {
        ttmv = ttmv + 1.0;
        if (!w.deterministic)
            reset_sums(&w);
        bool timed = timer && step >= 2;
        uint64_t t_start = timed ? water_now_ms() : 0;

        for (long m = w.first; m < w.end; m++)
            water_predict(&w.mol[m]);
        declare(&w, w.end - w.first, WATER_WORK_MOL_STEP);
        double intra_virial = intra_phase(&w);
        if (!w.deterministic)
            add_under_lock(sys->vir_lock, &sys->sums->vir, &intra_virial, 1);
        par_barrier();
        uint64_t t_intra = timed ? water_now_ms() : 0;

        double inter_virial = force_phase(&w, WATER_SLOT_FORCE);
        uint64_t t_inter = timed ? water_now_ms() : 0;

        double kinetic[3] = { 0.0, 0.0, 0.0 };
        for (long m = w.first; m < w.end; m++) {
            water_correct(&w.mol[m]);
            water_apply_boundary(&w.mol[m], c);
            water_kinetic_accumulate(&w.mol[m], kinetic);
        }
        double sum[3];
        double vir = step_sums(&w, intra_virial, inter_virial, kinetic, sum);
        tkin = tkin + sum[0] + sum[1] + sum[2];
        tvir = tvir - vir;

        bool print = step % in->nprint == 0;
        if (print || (in->nsave > 0 && step % in->nsave == 0))
            step_energies(&w, step, print, ttmv, tkin, tvir, sum);
        par_barrier(); /* end of step */
        if (timed) {
            uint64_t t_end = water_now_ms();
            sys->timing->measured += t_end - t_start;
            sys->timing->intra += t_intra - t_start;
            sys->timing->inter += t_inter - t_intra;
        }
    }
    if (timer)
        sys->timing->compute_end = water_now_ms();
}
