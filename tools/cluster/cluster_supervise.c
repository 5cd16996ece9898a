/*
 * cluster_supervise.c - see cluster_supervise.h.
 */
#include "cluster_supervise.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cluster_util.h"
#include "inid_cli.h"

/* One line, "ini-cluster: ..." on stderr and "supervisor: ..." in the
 * run's launcher.log (where the daemons' commands are). */
static void say(const struct launch *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct launch *L, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "ini-cluster: %s\n", line);
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/launcher.log", L->run_dir);
    FILE *f = fopen(path, "a");
    if (f) {
        fprintf(f, "supervisor: %s\n", line);
        fclose(f);
    }
}

int supervise_recent(const struct daemon *d, int max, int window_s, int64_t now)
{
    int n = 0;
    int kept = d->restarts < max ? d->restarts : max;
    for (int k = 0; k < kept; k++)
        if (now - d->restart_ms[k] < (int64_t)window_s * 1000)
            n++;
    return n;
}

/* Why d is not started again, or NULL: it may be. */
static const char *no_restart_reason(const struct launch *L, const struct daemon *d, int64_t now)
{
    const struct ini_restart_cfg *r = &L->cfg->restart;
    if (!d->own_child)
        return "not a child of this launcher";
    if (WIFEXITED(d->wstatus) && WEXITSTATUS(d->wstatus) == 0)
        return "it exited by itself";
    if (WIFEXITED(d->wstatus) && WEXITSTATUS(d->wstatus) == INI_EXIT_NO_RESUME)
        return "it could not resume";
    if (r->max == 0)
        return "restarts are off (restart.max = 0)";
    if (supervise_recent(d, r->max, r->window_s, now) >= r->max)
        return "restart.max reached";
    return NULL;
}

/* A restarted daemon that did not come up: ended, so that the caller's
 * report sees a dead daemon. */
static void end_daemon(struct daemon *d)
{
    if (!d->running)
        return;
    kill(d->pid, SIGKILL);
    if (d->own_child)
        waitpid(d->pid, &d->wstatus, 0);
    d->running = 0;
}

int supervise_restart(struct launch *L, struct daemon *d)
{
    const struct ini_restart_cfg *r = &L->cfg->restart;
    int64_t died = now_ms();
    char how[64];
    describe_status(d->wstatus, how, sizeof how);
    const char *why = no_restart_reason(L, d, died);
    if (why) {
        if (d->restarts || r->max)
            say(L, "inid %d (cluster %d) exited with %s: not restarted (%s; %d restart(s) so far, at "
                   "most %d within %d s)", d->ini, d->cluster, how, why, d->restarts, r->max, r->window_s);
        return 0;
    }
    int recent = supervise_recent(d, r->max, r->window_s, died);
    say(L, "inid %d (cluster %d) exited with %s while the programs were running: restarting it "
           "(restart %d, %d of at most %d within %d s); its log so far: %s.%d", d->ini, d->cluster, how,
        d->restarts + 1, recent + 1, r->max, r->window_s, d->log, d->restarts);
    char err[512];
    d->restart_ms[d->restarts % r->max] = died;
    if (launch_restart_daemon(L, d, err, sizeof err) < 0) {
        say(L, "%s", err);
        return 0;
    }
    d->restarts++;
    if (launch_wait_one_ready(L, d, LAUNCH_READY_MS) < 0) {
        int alive = d->running;
        end_daemon(d);
        say(L, "inid %d (cluster %d), restarted, %s", d->ini, d->cluster,
            alive ? "was not ready in time" : "exited before it was ready");
        return 0;
    }
    say(L, "inid %d (cluster %d) is back, %lld ms after it died", d->ini, d->cluster,
        (long long)(now_ms() - died));
    return 1;
}
