/*
 * cluster_launch.c - segments, network and daemons of a launch (see
 * cluster_launch.h).
 */
#include "cluster_launch.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cluster_net.h"
#include "cluster_reap.h"
#include "cluster_secret.h"
#include "cluster_util.h"

volatile sig_atomic_t launch_stop_signal;

void launch_init(struct launch *L, const struct ini_config *cfg, const char *config_path,
                 const char *run_dir, const char *tag, const char *inid_path, const int *selected)
{
    memset(L, 0, sizeof *L);
    L->cfg = cfg;
    snprintf(L->config_path, sizeof L->config_path, "%s", config_path);
    snprintf(L->run_dir, sizeof L->run_dir, "%s", run_dir);
    snprintf(L->tag, sizeof L->tag, "%s", tag);
    snprintf(L->inid_path, sizeof L->inid_path, "%s", inid_path ? inid_path : "");
    L->af_packet = cfg->net_mode == INI_NET_AF_PACKET;
    for (int c = 0; c < cfg->n_clusters; c++) {
        L->selected[c] = selected ? selected[c] : 1;
        ini_segment_name(L->segs[c].name, sizeof L->segs[c].name, tag, c);
    }
    /* The daemon table lists every INI of the selected clusters, in id
     * order, whether started yet or not. */
    for (int id = 0; id < cfg->n_inis; id++) {
        const struct ini_node_cfg *n = &cfg->inis[id];
        if (!L->selected[n->cluster])
            continue;
        struct daemon *d = &L->daemons[L->n_daemons++];
        d->ini = id;
        d->cluster = n->cluster;
        d->index = n->index;
        snprintf(d->log, sizeof d->log, "%s/ini%d.log", run_dir, id);
    }
}

int launch_create_segments(struct launch *L, char *err, size_t errlen)
{
    for (int c = 0; c < L->cfg->n_clusters; c++) {
        if (!L->selected[c])
            continue;
        L->segs[c].seg = ini_segment_create(L->segs[c].name, L->cfg, c, (uint64_t)L->cfg->ring_bytes);
        if (!L->segs[c].seg) {
            int e = errno;
            uint64_t bytes = ini_segment_bytes(L->cfg, c, (uint64_t)L->cfg->ring_bytes);
            if (e == ENOSPC || e == ENOMEM || e == EFBIG)
                snprintf(err, errlen, "cannot create segment %s of cluster %d: cannot allocate %llu "
                         "bytes (%.1f MiB) in /dev/shm: %s (make /dev/shm larger, or free it)",
                         L->segs[c].name, c, (unsigned long long)bytes, bytes / 1048576.0, strerror(e));
            else
                snprintf(err, errlen, "cannot create segment %s of cluster %d: %s", L->segs[c].name,
                         c, strerror(e));
            return -1;
        }
        L->segs[c].created = 1;
    }
    return 0;
}

int launch_network_up(struct launch *L, char *err, size_t errlen)
{
    if (!L->af_packet)
        return 0;
    char log[PATH_MAX + 16];
    snprintf(log, sizeof log, "%s/network.log", L->run_dir);
    char why[768];
    if (net_setup(L->cfg, L->tag, L->selected, L->link_slack, log, why, sizeof why) < 0) {
        snprintf(err, errlen, "network setup failed: %s (see %s)", why, log);
        return -1;
    }
    L->net_up = 1;
    return 0;
}

/* inid's command line for daemon d into argv (NULL-terminated; room for
 * 40 + 2 * LAUNCH_MAX_FAULTS + INI_MAX_EAL_ARGS entries); `launcher`
 * holds the text of our pid.  Returns the arguments written. */
static int daemon_argv(struct launch *L, const struct daemon_opts *o, struct daemon *d, int detach, int resume,
                       char *id, char *launcher, char **argv)
{
    sprintf(id, "%d", d->ini);
    sprintf(launcher, "%d", (int)getpid());
    int n = 0;
    argv[n++] = L->inid_path;
    /* Under `run` the daemons die with the launcher and, if it was
     * killed, unlink the segments themselves.  Before --config ... --tag
     * T --run-dir DIR, which stay together in that order: tests find a
     * daemon by "--ini N --tag T --run-dir DIR" followed by a space or
     * the end (the options of the run, when given, come after). */
    if (!detach) {
        argv[n++] = "--launcher-pid";
        argv[n++] = launcher;
    }
    /* A restarted daemon resumes its connections from its state region
     * (docs/transport.md, "An INI that restarts"). */
    if (resume)
        argv[n++] = "--resume";
    argv[n++] = "--config";   argv[n++] = L->config_path;
    argv[n++] = "--ini";      argv[n++] = id;
    argv[n++] = "--tag";      argv[n++] = L->tag;
    argv[n++] = "--run-dir";  argv[n++] = L->run_dir;
    const char *opt[] = { "--policy", o->policy, "--ini-policy", o->ini_policy, "--idle", o->idle,
                          "--trace", o->trace, "--segment", o->segment, "--knob", o->knobs };
    for (size_t k = 0; k < sizeof opt / sizeof opt[0]; k += 2)
        if (opt[k + 1]) {
            argv[n++] = (char *)opt[k];
            argv[n++] = (char *)opt[k + 1];
        }
    if (o->capture)
        argv[n++] = "--capture";
    const char *cap[] = { "--capture-limit", o->capture_limit, "--capture-ring", o->capture_ring,
                          "--capture-snap", o->capture_snap };
    for (size_t c = 0; c < sizeof cap / sizeof cap[0]; c += 2)
        if (cap[c + 1]) {
            argv[n++] = (char *)cap[c];
            argv[n++] = (char *)cap[c + 1];
        }
    for (int f = 0; f < o->n_faults; f++) {
        argv[n++] = "--fault";
        argv[n++] = (char *)o->faults[f];
    }
    if (o->n_eal_args) {
        argv[n++] = "--";
        for (int a = 0; a < o->n_eal_args; a++)
            argv[n++] = o->eal_args[a];
    }
    argv[n] = NULL;
    return n;
}

/* Starts daemon d (again, with resume), its output to its log, its
 * command recorded in log (may be NULL).  0, or -1 with a reason in err. */
static int start_daemon(struct launch *L, const struct daemon_opts *o, struct daemon *d, int detach, int resume,
                        FILE *log, char *err, size_t errlen)
{
    char id[16], launcher[16];
    char *argv[40 + 2 * LAUNCH_MAX_FAULTS + INI_MAX_EAL_ARGS + 1];
    int n = daemon_argv(L, o, d, detach, resume, id, launcher, argv);
    char ns[64], ns_path[256];
    if (L->af_packet) {
        net_cluster_name(ns, sizeof ns, L->tag, d->cluster);
        net_ns_path(ns_path, sizeof ns_path, ns);
    }
    if (log) {
        fprintf(log, "inid %d (cluster %d)%s%s:", d->ini, d->cluster,
                L->af_packet ? " in netns " : "", L->af_packet ? ns : "");
        for (int a = 0; a < n; a++)
            fprintf(log, " %s", argv[a]);
        fprintf(log, "\n");
        fflush(log);
    }
    struct spawn_opts so = {
        .out_path = d->log,
        .netns_path = L->af_packet ? ns_path : NULL,
        .detach = detach,
        .die_with_parent = !detach,
    };
    char why[512];
    pid_t pid = spawn_process(argv, &so, why, sizeof why);
    if (pid < 0) {
        snprintf(err, errlen, "cannot start inid %d (cluster %d): %s", d->ini, d->cluster, why);
        return -1;
    }
    d->pid = pid;
    d->own_child = 1;
    d->running = 1;
    return 0;
}

/* The launcher's log of commands and restarts, for appending; NULL if it
 * cannot be opened (nothing is recorded then). */
static FILE *open_launcher_log(const struct launch *L)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/launcher.log", L->run_dir);
    return fopen(path, "a");
}

int launch_start_daemons(struct launch *L, const struct daemon_opts *o, int detach,
                         char *err, size_t errlen)
{
    L->opts = o;
    L->detach = detach;
    FILE *log = open_launcher_log(L);
    int rc = 0;
    for (int k = 0; k < L->n_daemons && rc == 0; k++)
        rc = start_daemon(L, o, &L->daemons[k], detach, 0, log, err, errlen);
    if (log)
        fclose(log);
    return rc;
}

static int daemon_ready(const struct launch *L, const struct daemon *d)
{
    const struct ini_segment *seg = L->segs[d->cluster].seg;
    return seg && atomic_load_explicit(&((struct ini_segment *)seg)->inis[d->index].state,
                                       memory_order_acquire) == INI_SEG_READY;
}

void launch_show_warnings(const struct launch *L)
{
    for (int k = 0; k < L->n_daemons; k++) {
        FILE *f = fopen(L->daemons[k].log, "r");
        if (!f)
            continue;
        char line[1024];
        while (fgets(line, sizeof line, f))
            if (strstr(line, ": warning: "))
                fprintf(stderr, "ini-cluster: %s%s", line, strchr(line, '\n') ? "" : "\n");
        fclose(f);
    }
}

struct daemon *launch_poll_daemons(struct launch *L)
{
    for (int k = 0; k < L->n_daemons; k++) {
        struct daemon *d = &L->daemons[k];
        if (!d->running)
            continue;
        if (d->own_child) {
            int st;
            pid_t r = waitpid(d->pid, &st, WNOHANG);
            if (r == d->pid || (r < 0 && errno == ECHILD)) {
                d->running = 0;
                d->wstatus = r == d->pid ? st : 0;
                return d;
            }
        } else if (!process_alive(d->pid)) {
            d->running = 0;
            return d;
        }
    }
    return NULL;
}

void launch_report_daemon(const struct launch *L, const struct daemon *d, const char *what)
{
    fprintf(stderr, "ini-cluster: inid %d (cluster %d) %s; see %s\n", d->ini, d->cluster, what,
            d->log);
    print_tail(stderr, d->log, LAUNCH_LOG_TAIL, "  | ");
}

/* Did the daemon end on its own accord, badly? */
static int died_badly(const struct daemon *d)
{
    return d->own_child && !(WIFEXITED(d->wstatus) && WEXITSTATUS(d->wstatus) == 0);
}

void launch_report_deaths(struct launch *L, struct daemon *first, const char *when)
{
    /* One daemon going down often takes its peers with it (their links
     * drop); collect those too and name the ones that crashed or failed
     * first: they are the likely cause. */
    struct daemon *dead[INI_MAX_INIS];
    int n = 0;
    dead[n++] = first;
    sleep_ms(200);
    for (struct daemon *d; n < INI_MAX_INIS && (d = launch_poll_daemons(L));)
        dead[n++] = d;
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < n; k++) {
            if (died_badly(dead[k]) != (pass == 0))
                continue;
            char how[64], what[160];
            if (dead[k]->own_child)
                snprintf(what, sizeof what, "exited with %s %s",
                         describe_status(dead[k]->wstatus, how, sizeof how), when);
            else
                snprintf(what, sizeof what, "exited %s", when);
            launch_report_daemon(L, dead[k], what);
        }
}

int launch_wait_ready(struct launch *L, int timeout_ms)
{
    /* 64 daemons starting at once on 2 cores need about 30 s for their
     * EALs alone: the wait grows with how many start. */
    timeout_ms += LAUNCH_READY_PER_DAEMON_MS * L->n_daemons;
    int64_t deadline = now_ms() + timeout_ms;
    for (;;) {
        struct daemon *dead = launch_poll_daemons(L);
        if (dead) {
            launch_report_deaths(L, dead, "before ready");
            return -1;
        }
        int all = 1;
        for (int k = 0; k < L->n_daemons && all; k++)
            all = daemon_ready(L, &L->daemons[k]);
        if (all)
            return 0;
        if (launch_stop_signal)
            return launch_stop_signal;
        if (now_ms() > deadline) {
            for (int k = 0; k < L->n_daemons; k++)
                if (!daemon_ready(L, &L->daemons[k])) {
                    char what[64];
                    snprintf(what, sizeof what, "not ready after %d s", timeout_ms / 1000);
                    launch_report_daemon(L, &L->daemons[k], what);
                }
            return -1;
        }
        sleep_ms(10);
    }
}

int launch_restart_daemon(struct launch *L, struct daemon *d, char *err, size_t errlen)
{
    struct ini_segment *seg = L->segs[d->cluster].seg;
    if (seg) {
        atomic_store_explicit(&seg->inis[d->index].state, INI_SEG_ABSENT, memory_order_release);
        atomic_store_explicit(&seg->inis[d->index].pid, 0, memory_order_relaxed);
    }
    char old[PATH_MAX + 16];
    snprintf(old, sizeof old, "%s.%d", d->log, d->restarts);
    if (rename(d->log, old) < 0 && errno != ENOENT) {
        snprintf(err, errlen, "cannot keep %s as %s: %s", d->log, old, strerror(errno));
        return -1;
    }
    reap_runtime_dir(L->tag, d->ini);
    FILE *log = open_launcher_log(L);
    int rc = start_daemon(L, L->opts, d, L->detach, 1, log, err, errlen);
    if (log)
        fclose(log);
    return rc;
}

int launch_wait_one_ready(struct launch *L, struct daemon *d, int timeout_ms)
{
    int64_t deadline = now_ms() + timeout_ms;
    while (!daemon_ready(L, d)) {
        int st;
        pid_t r = d->own_child ? waitpid(d->pid, &st, WNOHANG) : (process_alive(d->pid) ? 0 : d->pid);
        if (r == d->pid || (r < 0 && errno == ECHILD)) {
            d->running = 0;
            d->wstatus = r == d->pid && d->own_child ? st : 0;
            return -1;
        }
        if (launch_stop_signal || now_ms() > deadline)
            return -1;
        sleep_ms(10);
    }
    return 0;
}

static int any_running(struct launch *L)
{
    while (launch_poll_daemons(L))
        ;
    for (int k = 0; k < L->n_daemons; k++)
        if (L->daemons[k].running)
            return 1;
    return 0;
}

/* Judges one daemon's end after SIGTERM: 0 if it stopped as asked. */
static int judge_stopped(const struct launch *L, const struct daemon *d, int quiet)
{
    if (!d->own_child)
        return 0;   /* not our child: its status is not ours to know */
    int st = d->wstatus;
    if ((WIFEXITED(st) && WEXITSTATUS(st) == 0) ||
        (WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM))   /* did not catch it: still stopped */
        return 0;
    if (!quiet) {
        char how[64], what[128];
        snprintf(what, sizeof what, "ended with %s at shutdown", describe_status(st, how, sizeof how));
        launch_report_daemon(L, d, what);
    }
    return 1;
}

static int stop_daemons(struct launch *L, int grace_ms, int quiet)
{
    int bad = 0;
    int signalled[INI_MAX_INIS] = { 0 };
    /* A daemon must run until told to stop: one that is gone already
     * failed, whatever its status. */
    for (struct daemon *d; (d = launch_poll_daemons(L));) {
        if (!d->own_child)
            continue;
        if (!quiet) {
            char how[64], what[128];
            snprintf(what, sizeof what, "exited with %s before it was asked to stop",
                     describe_status(d->wstatus, how, sizeof how));
            launch_report_daemon(L, d, what);
        }
        bad++;
    }
    for (int k = 0; k < L->n_daemons; k++) {
        struct daemon *d = &L->daemons[k];
        if (d->running && kill(d->pid, SIGTERM) == 0)
            signalled[k] = 1;
    }
    int64_t deadline = now_ms() + grace_ms;
    while (any_running(L) && now_ms() < deadline)
        sleep_ms(10);
    for (int k = 0; k < L->n_daemons; k++) {
        struct daemon *d = &L->daemons[k];
        if (!d->running)
            continue;
        kill(d->pid, SIGKILL);
        if (d->own_child)
            while (waitpid(d->pid, &d->wstatus, 0) < 0 && errno == EINTR)
                ;
        else
            for (int i = 0; i < 100 && process_alive(d->pid); i++)
                sleep_ms(10);
        d->running = 0;
        if (!quiet)
            fprintf(stderr, "ini-cluster: inid %d (cluster %d) did not stop within %d s; killed it\n",
                    d->ini, d->cluster, grace_ms / 1000);
        bad++;
        signalled[k] = 0;   /* judged already */
    }
    for (int k = 0; k < L->n_daemons; k++)
        if (signalled[k])
            bad += judge_stopped(L, &L->daemons[k], quiet);
    return bad;
}

int launch_stop_daemons(struct launch *L, int grace_ms)
{
    return stop_daemons(L, grace_ms, 0);
}

void launch_teardown(struct launch *L)
{
    stop_daemons(L, 3000, 1);
    /* A daemon removes its DPDK runtime directory when it exits by
     * itself; one killed (SIGKILL, a crash) leaves it. */
    for (int k = 0; k < L->n_daemons; k++)
        if (L->daemons[k].pid > 0 && !L->daemons[k].running)
            reap_runtime_dir(L->tag, L->daemons[k].ini);
    /* A daemon unlinks its state region and its doorbell when it stops
     * cleanly; one killed leaves them (docs/restart.md). */
    for (int k = 0; k < L->n_daemons; k++) {
        char name[PATH_MAX + 32];
        if (L->daemons[k].pid <= 0 || L->daemons[k].running)
            continue;
        snprintf(name, sizeof name, "/ini-%s-i%d", L->tag, L->daemons[k].ini);
        shm_unlink(name);
        /* and its doorbell FIFO (inid_port.c), in the run directory */
        snprintf(name, sizeof name, "%s/ini%d.wake", L->run_dir, L->daemons[k].ini);
        unlink(name);
    }
    for (int c = 0; c < L->cfg->n_clusters; c++) {
        if (L->segs[c].seg) {
            ini_segment_detach(L->segs[c].seg);
            L->segs[c].seg = NULL;
        }
        if (L->segs[c].created) {
            ini_segment_unlink(L->segs[c].name);
            L->segs[c].created = 0;
        }
    }
    if (L->net_up) {
        char log[PATH_MAX + 16], why[768];
        snprintf(log, sizeof log, "%s/network.log", L->run_dir);
        if (net_teardown(L->cfg, L->tag, L->selected, log, why, sizeof why) < 0)
            fprintf(stderr, "ini-cluster: network teardown: %s\n", why);
        L->net_up = 0;
    }
}

/* The value of a top-level "summary" string in a JSON text, unescaped
 * enough for a terminal; 0 if absent. */
static int json_summary(const char *text, char *out, size_t len)
{
    const char *p = strstr(text, "\"summary\"");
    if (!p)
        return 0;
    p += strlen("\"summary\"");
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ':')
        p++;
    if (*p != '"')
        return 0;
    p++;
    size_t n = 0;
    while (*p && *p != '"' && n + 1 < len) {
        if (*p == '\\' && p[1]) {
            p++;
            out[n++] = *p == 'n' ? ' ' : *p == 't' ? ' ' : *p;
        } else {
            out[n++] = *p;
        }
        p++;
    }
    out[n] = 0;
    return 1;
}

/* JSON text without the whitespace outside strings, cut at len - 1. */
static void json_compact(const char *text, char *out, size_t len)
{
    size_t n = 0;
    int in_string = 0;
    for (const char *p = text; *p && n + 1 < len; p++) {
        if (in_string) {
            out[n++] = *p;
            if (*p == '\\' && p[1] && n + 1 < len)
                out[n++] = *++p;
            else if (*p == '"')
                in_string = 0;
        } else if (*p == '"') {
            in_string = 1;
            out[n++] = *p;
        } else if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
            out[n++] = *p;
        }
    }
    out[n] = 0;
}

void launch_print_counters(const struct launch *L, FILE *out)
{
    fprintf(out, "%s\n", secrets_mac_summary(L->cfg));
    for (int k = 0; k < L->n_daemons; k++) {
        const struct daemon *d = &L->daemons[k];
        char path[PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/ini%d.counters.json", L->run_dir, d->ini);
        FILE *f = fopen(path, "r");
        /* A daemon killed past restart.max wrote no counters in its last run. */
        if (d->restarts)
            fprintf(out, "ini %d (cluster %d): restarted %d time%s (%s)\n", d->ini, d->cluster, d->restarts,
                    d->restarts == 1 ? "" : "s",
                    f ? "the counters below are its last run's" : "its last run wrote no counters");
        if (!f)
            continue;
        static char text[1 << 16];
        size_t n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[n] = 0;
        char line[600];
        if (json_summary(text, line, sizeof line)) {
            fprintf(out, "%s\n", line);   /* the daemon's own words name it */
            continue;
        }
        json_compact(text, line, sizeof line);
        if (strlen(line) == sizeof line - 1)
            memcpy(line + sizeof line - 4, "...", 4);
        fprintf(out, "ini %d (cluster %d): %s\n", d->ini, d->cluster, line);
    }
}

int launch_write_state(const struct launch *L, char *err, size_t errlen)
{
    char path[PATH_MAX + 16], tmp[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/state", L->run_dir);
    snprintf(tmp, sizeof tmp, "%s/state.tmp", L->run_dir);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        return -1;
    }
    fprintf(f, "# written by ini-cluster up; read by ini-cluster status/down\n");
    fprintf(f, "tag %s\n", L->tag);
    fprintf(f, "config %s\n", L->config_path);
    fprintf(f, "inid %s\n", L->inid_path);
    fprintf(f, "net %s\n", L->net_up ? "namespaces" : "none");
    for (int c = 0; c < L->cfg->n_clusters; c++)
        if (L->selected[c])
            fprintf(f, "cluster %d %s\n", c, L->segs[c].name);
    for (int k = 0; k < L->n_daemons; k++)
        fprintf(f, "daemon %d %d\n", L->daemons[k].ini, (int)L->daemons[k].pid);
    /* down's summary says them, as run's does: a daemon the supervisor
     * gave up on past restart.max has no counters of its last run. */
    for (int k = 0; k < L->n_daemons; k++)
        if (L->daemons[k].restarts)
            fprintf(f, "restarts %d %d\n", L->daemons[k].ini, L->daemons[k].restarts);
    if (L->supervisor)
        fprintf(f, "supervisor %d\n", (int)L->supervisor);
    if (fclose(f) != 0 || rename(tmp, path) < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int launch_read_state(struct launch *L, const struct ini_config *cfg, const char *run_dir,
                      char *err, size_t errlen)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/state", run_dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        int e = errno;
        snprintf(err, errlen, "%s: %s", path, strerror(e));
        errno = e;
        return -1;
    }
    char line[PATH_MAX + 64], tag[LAUNCH_TAG_LEN] = "", config[PATH_MAX] = "", inid[PATH_MAX] = "";
    int selected[INI_MAX_CLUSTERS] = { 0 }, net = 0, lineno = 0, supervisor = 0;
    pid_t pids[INI_MAX_INIS] = { 0 };
    int restarts[INI_MAX_INIS] = { 0 };
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\n")] = 0;
        char word[32];
        int off = 0, a, b;
        if (line[0] == '#' || line[0] == 0 || sscanf(line, "%31s %n", word, &off) < 1)
            continue;
        const char *rest = line + off;
        if (!strcmp(word, "tag"))
            snprintf(tag, sizeof tag, "%s", rest);
        else if (!strcmp(word, "config"))
            snprintf(config, sizeof config, "%s", rest);
        else if (!strcmp(word, "inid"))
            snprintf(inid, sizeof inid, "%s", rest);
        else if (!strcmp(word, "net"))
            net = !strcmp(rest, "namespaces");
        else if (!strcmp(word, "cluster") && sscanf(rest, "%d", &a) == 1 && a >= 0 &&
                 a < cfg->n_clusters)
            selected[a] = 1;
        else if (!strcmp(word, "daemon") && sscanf(rest, "%d %d", &a, &b) == 2 && a >= 0 &&
                 a < cfg->n_inis)
            pids[a] = b;
        else if (!strcmp(word, "restarts") && sscanf(rest, "%d %d", &a, &b) == 2 && a >= 0 &&
                 a < cfg->n_inis && b >= 0)
            restarts[a] = b;
        else if (!strcmp(word, "supervisor") && sscanf(rest, "%d", &a) == 1 && a > 0)
            supervisor = a;
        else {
            snprintf(err, errlen, "%s:%d: unexpected line (written for another configuration?)",
                     path, lineno);
            fclose(f);
            errno = EINVAL;
            return -1;
        }
    }
    fclose(f);
    if (!tag[0]) {
        snprintf(err, errlen, "%s: no tag line", path);
        errno = EINVAL;
        return -1;
    }
    launch_init(L, cfg, config, run_dir, tag, inid, selected);
    L->net_up = net;
    L->supervisor = supervisor;   /* as written: supervise_up_alive() checks it is ours */
    for (int k = 0; k < L->n_daemons; k++) {
        struct daemon *d = &L->daemons[k];
        d->pid = pids[d->ini];
        d->restarts = restarts[d->ini];
        d->own_child = 0;
        /* A recycled pid must not be mistaken for our daemon. */
        d->running = d->pid > 0 && process_alive(d->pid) && process_has_arg(d->pid, tag);
    }
    for (int c = 0; c < cfg->n_clusters; c++)
        L->segs[c].created = selected[c];   /* down unlinks them */
    return 0;
}
