/*
 * bench_logp.h - ini-bench --logp: the LogP parameters of the compute-node
 * path, measured from a compute node under the launcher:
 *
 *   ini-cluster run CFG [--knob SPEC] -- ini-bench --logp [options]
 *
 * seed 000's calibration (section 3.3: o, g, G and L from the "LogP
 * signature", the average initiation interval of bursts of m requests
 * with a computational delay Δ between them) and seed 003's CPU overlap
 * test (section 4.3: o_s and o_r from computation inserted in a flood)
 * with the end-to-end latency beside them.  bench_logp.c is the program
 * (options, the two compute nodes, the report); bench_logp_tests.c the
 * measurements, over bench_logp_internal.h.  tools/bench/logp.sh runs it
 * for every knob setting (docs/logp.md).
 */
#ifndef INI_BENCH_LOGP_H
#define INI_BENCH_LOGP_H

/* argv[1] is "--logp"; the exit status of the program. */
int bench_logp_main(int argc, char **argv);

#endif
