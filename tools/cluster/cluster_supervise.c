/*
 * cluster_supervise.c - see cluster_supervise.h.
 */
#include "cluster_supervise.h"

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
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
        /* run names the INI in its report; up's supervisor says it here,
         * in launcher.log, where its decisions are read. */
        if (d->restarts || r->max || L->supervisor)
            say(L, "inid %d (cluster %d) exited with %s: not restarted (%s; %d restart(s) so far, at "
                   "most %d within %d s)", d->ini, d->cluster, how, why, d->restarts, r->max, r->window_s);
        return 0;
    }
    int recent = supervise_recent(d, r->max, r->window_s, died);
    say(L, "inid %d (cluster %d) exited with %s %s: restarting it (restart %d, %d of at most %d within "
           "%d s); its log so far: %s.%d", d->ini, d->cluster, how,
        L->supervisor ? "while the machine was up" : "while the programs were running",
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

/* ---- `up`'s supervisor ---- */

#define UP_POLL_MS 20   /* as `run` polls: a death is seen within this */

void supervise_name(char *buf, size_t len, const char *tag)
{
    snprintf(buf, len, "ini-sv-%s", tag);
}

void supervise_up_become(struct launch *L)
{
    setsid();   /* a terminal's Ctrl-C or hang-up is `up`'s, not ours */
    char name[SUPERVISE_NAME_LEN];
    supervise_name(name, sizeof name, L->tag);
    prctl(PR_SET_NAME, name);
    L->supervisor = getpid();
}

void supervise_up_detach_output(const struct launch *L)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/supervisor.log", L->run_dir);
    fflush(NULL);
    int in = open("/dev/null", O_RDONLY);
    int out = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (out < 0)
        out = open("/dev/null", O_WRONLY);
    if (in >= 0) {
        dup2(in, 0);
        close(in);
    }
    if (out >= 0) {
        dup2(out, 1);
        dup2(out, 2);
        close(out);
    }
}

int supervise_up(struct launch *L)
{
    char err[512];
    say(L, "pid %d (ini-sv-%s) supervises the daemons (restart.max %d within %d s)", (int)getpid(), L->tag,
        L->cfg->restart.max, L->cfg->restart.window_s);
    for (;;) {
        if (launch_stop_signal) {
            say(L, "stopped by signal %d; the daemons are left to ini-cluster down", (int)launch_stop_signal);
            return 0;
        }
        struct daemon *dead = launch_poll_daemons(L);
        if (!dead) {
            sleep_ms(UP_POLL_MS);
            continue;
        }
        int back = supervise_restart(L, dead);
        /* The new pid, for status and down (the dead one's, if it did not
         * come back: down reaps what it left). */
        if (launch_write_state(L, err, sizeof err) < 0)
            say(L, "%s", err);
        if (back)
            continue;
        if (launch_stop_signal)
            continue;   /* down came during the restart: it stops the rest */
        launch_report_deaths(L, dead, "while the machine was up");
        say(L, "inid %d (cluster %d) not restarted: stopping every daemon of the machine (ini-cluster down "
               "removes the rest)", dead->ini, dead->cluster);
        launch_stop_daemons(L, LAUNCH_STOP_MS);
        return 1;
    }
}

int supervise_up_alive(const struct launch *L)
{
    char name[SUPERVISE_NAME_LEN];
    supervise_name(name, sizeof name, L->tag);
    return L->supervisor > 0 && process_alive(L->supervisor) && process_comm_is(L->supervisor, name);
}

void supervise_up_stop(const struct launch *L, int grace_ms)
{
    if (!supervise_up_alive(L) || kill(L->supervisor, SIGTERM) < 0)
        return;
    int64_t deadline = now_ms() + grace_ms;
    while (process_alive(L->supervisor) && now_ms() < deadline)
        sleep_ms(10);
    if (process_alive(L->supervisor)) {
        fprintf(stderr, "ini-cluster: the supervisor (pid %d) did not stop within %d s; killed it\n",
                (int)L->supervisor, grace_ms / 1000);
        kill(L->supervisor, SIGKILL);
        for (int i = 0; i < 100 && process_alive(L->supervisor); i++)
            sleep_ms(10);
    }
}
