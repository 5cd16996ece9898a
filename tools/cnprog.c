/*
 * cnprog.c - the start shared by the compute-node tools (cnprog.h).
 */
#include <stdlib.h>
#include <time.h>

#include "cli.h"
#include "clock.h"
#include "cnprog.h"

/* ini_wait's granularity: how often a waiting PE checks its timeout. */
#define WAIT_SLICE_US 50000

struct ini_cn *cnprog_attach(void)
{
    char err[1024];
    if (ini_cn_check_config_env(err, sizeof err) < 0)
        cli_bad_arg("%s", err);
    struct ini_cn *cn = ini_cn_attach_env(err, sizeof err);
    if (!cn) {
        cli_error("%s", err);
        exit(1);
    }
    return cn;
}

enum ini_policy cnprog_policy(const char *var, enum ini_policy dflt)
{
    const char *v = getenv(var);
    if (!v || !*v)
        return dflt;
    int p = ini_policy_parse(v);
    if (p < 0)
        cli_bad_arg("%s=%s: not a policy", var, v);
    return (enum ini_policy)p;
}

void cnprog_need_message(const struct ini_config *c, size_t bytes, const char *what)
{
    if ((size_t)c->stack.max_message < bytes)
        cli_bad_arg("%s: stack.max_message = %d is below the %zu bytes of %s's %s: "
                    "set stack.max_message to %zu or more", c->path, c->stack.max_message, bytes,
                    cli_program(), what, bytes);
}

void *cnprog_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        cli_error("out of memory");
        exit(1);
    }
    return p;
}

void cnprog_register(struct ini_cn *cn, uint16_t id, ini_handler_fn fn)
{
    if (ini_cn_register(cn, id, fn, NULL) < 0) {
        cli_error("cannot register handler %u", id);
        exit(1);
    }
}

uint64_t cnprog_now_ns(void) { return ini_mono_ns(); }

uint64_t cnprog_pe_now_ns(const struct cnprog_pe *c)
{
    uint64_t hz = ini_cn_vtime_hz(ini_pe_cn(c->pe));
    if (!hz)
        return ini_mono_ns();
    return (uint64_t)((unsigned __int128)ini_pe_vtime(c->pe) * 1000000000u / hz);
}

void cnprog_pe_init(struct cnprog_pe *c, struct ini_cn *cn, const struct ini_config *cfg, int local)
{
    c->pe = ini_cn_pe(cn, local);
    c->id = ini_pe_id(c->pe);
    c->local = local;
    c->n_others = cfg->n_pes - cfg->clusters[ini_cn_cluster(cn)].n_pes;
}

int cnprog_wait(struct cnprog_pe *c, long timeout_ms, const char *waiting_for)
{
    if (ini_wait(c->pe, WAIT_SLICE_US) < 0) {
        cli_pe_error(c->id, &c->errors, "the INIs stopped while %s", waiting_for);
        c->fatal = 1;
        return -1;
    }
    if (cnprog_now_ns() - c->last_progress_ns > (uint64_t)timeout_ms * 1000000u) {
        cli_pe_error(c->id, &c->errors, "nothing for %ld ms while %s", timeout_ms, waiting_for);
        return -1;
    }
    return 0;
}
