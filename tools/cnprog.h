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

/* What every such program keeps of each of its PEs, first in its own
 * per-PE state: cnprog_pe_init fills the PE's place, the program's
 * handlers and sends the rest, cnprog_wait reads it. */
struct cnprog_pe {
    struct ini_pe *pe;
    int id;                      /* the PE's id in the configuration */
    int local;                   /* its index in this cluster (ini_cn_pe) */
    int n_others;                /* the PEs of the other clusters */
    uint64_t last_progress_ns;   /* something last arrived (cnprog_now_ns) */
    uint64_t errors;             /* the PE's errors (cli_pe_error) */
    int fatal;                   /* the INIs stopped: stop waiting */
};

/* c for the local-th PE of the cluster cn attaches to, configuration cfg. */
void cnprog_pe_init(struct cnprog_pe *c, struct ini_cn *cn, const struct ini_config *cfg, int local);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t cnprog_now_ns(void);
/* The node's own time in ns: its virtual clock in the virtual-time mode
 * (ini_pe_vtime), else cnprog_now_ns. */
uint64_t cnprog_pe_now_ns(const struct cnprog_pe *c);

/* One slice of PE c's wait for messages (ini_wait, running their handlers
 * on this thread).  0: go on waiting.  -1: the INIs stopped (c->fatal set)
 * or nothing progressed for timeout_ms since c->last_progress_ns; either
 * is reported as an error of the PE, counted in c->errors (cli_pe_error),
 * saying what it was waiting_for. */
int cnprog_wait(struct cnprog_pe *c, long timeout_ms, const char *waiting_for);

#endif
