/*
 * cluster_program.c - the programs a launcher runs, one per cluster
 * (cluster_program.h): their environment, start, end and stop.
 */
#include "cluster_program.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "cli.h"
#include "cluster_util.h"

void program_env(struct program_env *e, const struct launch *L, const struct daemon_opts *d, int c)
{
    char cluster[16];
    snprintf(cluster, sizeof cluster, "%d", c);
    /* The table of the contract, in the order `up` prints it. */
    const struct { const char *name, *value; int number; } vars[PROGRAM_ENV_MAX] = {
        { "INI_CLUSTER", cluster, 1 }, { "INI_CONFIG", L->config_path, 0 },
        { "INI_SEGMENT", L->segs[c].name, 0 }, { "INI_RUN_DIR", L->run_dir, 0 }, { "INI_TAG", L->tag, 0 },
        { "INI_POLICY", d->policy, 0 }, { "INI_INI_POLICY", d->ini_policy, 0 }, { "INI_KNOBS", d->knobs, 0 },
        { "INI_TRACE", d->trace, 0 },
    };
    e->n = 0;
    for (int k = 0; k < PROGRAM_ENV_MAX; k++) {
        if (!vars[k].value)
            continue;
        snprintf(e->entry[e->n], sizeof e->entry[e->n], "%s=%s", vars[k].name, vars[k].value);
        e->envp[e->n] = e->entry[e->n];
        e->number[e->n] = vars[k].number;
        e->n++;
    }
    e->envp[e->n] = NULL;
}

void program_env_line(const struct program_env *e, char *buf, size_t len)
{
    snprintf(buf, len, "export");
    for (int k = 0; k < e->n; k++) {
        const char *eq = strchr(e->entry[k], '=');
        const char *value = eq + 1;
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, " %.*s=", (int)(eq - e->entry[k]), e->entry[k]);
        if (e->number[k]) {
            used = strlen(buf);
            snprintf(buf + used, len - used, "%s", value);
        } else {
            shell_quote(buf, len, value);
        }
    }
}

int program_start(struct program *p, const struct launch *L, const struct daemon_opts *d, int c,
                  char *const *argv, int keep_stdin, char *err, size_t errlen)
{
    p->cluster = c;
    snprintf(p->out, sizeof p->out, "%s/cluster%d.out", L->run_dir, c);
    snprintf(p->err, sizeof p->err, "%s/cluster%d.err", L->run_dir, c);
    /* Static: the entries must live until the child has exec'd, which
     * spawn_process waits for. */
    static struct program_env env;
    program_env(&env, L, d, c);
    struct spawn_opts so = { .out_path = p->out, .err_path = p->err, .env = env.envp,
                             .die_with_parent = 1, .keep_stdin = keep_stdin };
    p->pid = spawn_process(argv, &so, err, errlen);
    if (p->pid < 0)
        return -1;
    p->running = 1;
    return 0;
}

int programs_poll(struct program *p, int n, int *exit_code, int64_t *others_deadline)
{
    int ended = 0;
    for (int i = 0; i < n; i++) {
        if (!p[i].running || waitpid(p[i].pid, &p[i].wstatus, WNOHANG) != p[i].pid)
            continue;
        p[i].running = 0;
        ended++;
        int code = status_to_exit_code(p[i].wstatus);
        if (!code)
            continue;
        char how[64];
        cli_error("the program of cluster %d exited with %s", p[i].cluster,
                  describe_status(p[i].wstatus, how, sizeof how));
        if (!*exit_code) {
            *exit_code = code;
            *others_deadline = now_ms() + OTHERS_GRACE_MS;
        }
    }
    return ended;
}

void programs_stop(struct program *p, int n)
{
    for (int i = 0; i < n; i++)
        if (p[i].running)
            kill(-p[i].pid, SIGTERM);
    int64_t deadline = now_ms() + PROGRAM_STOP_MS;
    for (;;) {
        int left = 0;
        for (int i = 0; i < n; i++)
            if (p[i].running) {
                if (waitpid(p[i].pid, &p[i].wstatus, WNOHANG) == p[i].pid)
                    p[i].running = 0;
                else
                    left++;
            }
        if (!left)
            return;
        if (now_ms() > deadline)
            break;
        sleep_ms(10);
    }
    for (int i = 0; i < n; i++)
        if (p[i].running) {
            kill(-p[i].pid, SIGKILL);
            while (waitpid(p[i].pid, &p[i].wstatus, 0) < 0 && errno == EINTR)
                ;
            p[i].running = 0;
        }
}

void programs_end_groups(const struct program *p, int n)
{
    int left = 0;
    for (int i = 0; i < n; i++)
        if (p[i].pid > 0 && kill(-p[i].pid, SIGTERM) == 0)
            left++;
    int64_t deadline = now_ms() + PROGRAM_STOP_MS;
    while (left && now_ms() < deadline) {
        sleep_ms(10);
        left = 0;
        for (int i = 0; i < n; i++)
            left += p[i].pid > 0 && kill(-p[i].pid, 0) == 0;
    }
    for (int i = 0; i < n; i++)
        if (p[i].pid > 0 && kill(-p[i].pid, SIGKILL) == 0)
            cli_error("the program of cluster %d left processes that ignored SIGTERM; killed them", p[i].cluster);
}
