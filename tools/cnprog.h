/*
 * cnprog.h - the start shared by the tools that run as a cluster's compute
 * nodes under the launcher (ini-ping, ini-synth).
 *
 * Such a program finds everything it needs in the environment the launcher
 * sets (INI_CONFIG, INI_CLUSTER, INI_SEGMENT, INI_POLICY, ...).  These
 * helpers turn that environment into an attached struct ini_cn, or into one
 * line of the command-line skeleton (cli.h) naming what is wrong: bad input
 * (a configuration that does not load or does not suit the program) exits
 * 2 before anything starts; a cluster that cannot be attached exits 1.
 */
#ifndef INI_CNPROG_H
#define INI_CNPROG_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "ini_cn.h"

/* Checks INI_CONFIG (exit 2 naming its file, line and field) and attaches
 * to the cluster the environment names (exit 1 when it cannot); the
 * launcher's INI_POLICY and INI_KNOBS are applied (ini_cn_attach_env). */
struct ini_cn *cnprog_attach(void);

/* The scheduling policy in the environment variable var (the launcher's
 * override), else dflt (the config's); exit 2 when var names none. */
enum ini_policy cnprog_policy(const char *var, enum ini_policy dflt);

/* Refuses at start (exit 2) a configuration whose stack.max_message is
 * below the `bytes` the program must send in one message, what naming
 * that message ("DONE message"): the run could not end otherwise. */
void cnprog_need_message(const struct ini_config *c, size_t bytes, const char *what);

/* calloc(n, size) for the program's state at start; exit 1 with "out of
 * memory" when it fails. */
void *cnprog_calloc(size_t n, size_t size);
/* ini_cn_register(cn, id, fn, NULL); exit 1 when it fails. */
void cnprog_register(struct ini_cn *cn, uint16_t id, ini_handler_fn fn);

/* One slice of a PE's wait for messages (ini_wait, running their handlers
 * on this thread), in a program whose handlers note in their PE's state
 * when something last arrived (last_progress_ns, CLOCK_MONOTONIC).  0: go
 * on waiting.  -1: the INIs stopped (*fatal set) or nothing progressed for
 * timeout_ms; either is reported as an error of the PE, counted in *errors
 * (cli_pe_error), saying what it was waiting_for. */
int cnprog_wait(struct ini_pe *pe, uint64_t last_progress_ns, long timeout_ms, const char *waiting_for,
                uint64_t *errors, int *fatal);

#endif
