/*
 * cluster_remote.c - running a machine across hosts over ssh or Slurm
 * (see cluster_remote.h for the protocol between head and host parts).
 *
 * Design.  The head is the same one-thread poller as the single-host
 * launcher: every part is a child process (ssh, srun, or ini-cluster
 * itself for the head's own host) with three pipes, polled every 20 ms.
 * Lines are relayed whole, so that the output of several hosts never
 * interleaves inside a line.  A part is the single-host launcher cut to
 * its clusters: the same segments, daemons, READY wait and teardown
 * (cluster_launch.h), no emulated network (the hosts are on a real LAN),
 * and its programs' output sent up the pipes instead of the terminal.
 */
#include "cluster_remote.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cluster_clock.h"
#include "cluster_program.h"
#include "cluster_secret.h"
#include "cluster_supervise.h"
#include "cluster_util.h"

#define READY_EXTRA_MS   30000   /* ssh or srun start-up, on top of LAUNCH_READY_MS */
#define PART_STOP_MS     (LAUNCH_STOP_MS + 10000)
#define CTL_READY        "@@ini ready"
#define CTL_END          "@@ini end"     /* the part's programs are done: its clock again, then EOF */
#define END_WAIT_MS      10000           /* how long a part waits for the head's end measurement */
#define LINE_MAX_LEN     8192
#define HELD_LINES       8               /* ssh's or srun's own lines kept until the part is up */
#define GRACE_MS         3000            /* after one part failed to start, for the others' verdicts */

/* ---- the parts, seen from the head ---- */

struct stream {
    int fd;                      /* -1 once closed */
    size_t len;
    char buf[LINE_MAX_LEN];
};

struct part {
    char host[INI_HOST_LEN];     /* "" for the head's own host */
    char clusters[512];          /* "0,2" */
    pid_t pid;
    int in_fd;                   /* its stdin; -1 once closed */
    struct stream out, err;
    int ready, running, wstatus;
    int ended, end_done;         /* said CTL_END; measured again and told to stop */
    int clk_got;                 /* an answer to the last clock request came */
    int64_t clk_theirs, clk_t1;  /* its clock, and ours when the answer came */
    struct clock_best clk_start, clk_end;
    int n_held;                  /* stderr lines not the part's own, held while it starts */
    char held[HELD_LINES][256];
    int table;                   /* its stdout is a `status` table to merge (status_line) */
};

static const char *part_name(const struct part *p)
{
    return p->host[0] ? p->host : "local";
}

enum remote_engine remote_pick_engine(const struct ini_config *cfg, const char *launch)
{
    static const char *const names[] = { "local", "ssh", "slurm", NULL };
    if (launch)
        return (enum remote_engine)cli_parse_choice("--launch", launch, names);
    const char *nodes = getenv("SLURM_JOB_NODELIST") ? getenv("SLURM_JOB_NODELIST") : getenv("SLURM_NODELIST");
    const char *n_nodes = getenv("SLURM_JOB_NUM_NODES") ? getenv("SLURM_JOB_NUM_NODES") : getenv("SLURM_NNODES");
    if (nodes && n_nodes && atoi(n_nodes) >= 2 && cfg->net_mode != INI_NET_MEMIF)
        return ENGINE_SLURM;
    return ini_config_has_hosts(cfg) ? ENGINE_SSH : ENGINE_LOCAL;
}

/* Appends ARG to the shell command in cmd, after a blank, single-quoted. */
static void append_word(char *cmd, size_t len, const char *arg)
{
    size_t n = strlen(cmd);
    if (n && n < len - 1) {
        cmd[n++] = ' ';
        cmd[n] = 0;
    }
    shell_quote(cmd, len, arg);
}

/* Splits "a b  c" into words (in buf); returns how many, at most max. */
static int split_words(const char *s, char *buf, size_t len, char **words, int max)
{
    snprintf(buf, len, "%s", s ? s : "");
    int n = 0;
    for (char *save = NULL, *w = strtok_r(buf, " \t", &save); w && n < max; w = strtok_r(NULL, " \t", &save))
        words[n++] = w;
    return n;
}

/* The daemons' options, and --inid and --eal, as the flags of the
 * launcher on another host: appended to argv[*n], up to max - 1 entries. */
static void daemon_flags(const struct remote_opts *o, char **argv, int *n, int max)
{
    const struct daemon_opts *d = o->daemon;
    const char *flags[] = { "--policy", d->policy, "--ini-policy", d->ini_policy, "--idle", d->idle,
                            "--trace", d->trace, "--knob", d->knobs, "--segment", d->segment };
    for (size_t f = 0; f + 1 < sizeof flags / sizeof flags[0] && *n < max - 2; f += 2)
        if (flags[f + 1]) {
            argv[(*n)++] = (char *)flags[f];
            argv[(*n)++] = (char *)flags[f + 1];
        }
    for (int f = 0; f < d->n_faults && *n < max - 2; f++) {
        argv[(*n)++] = "--fault";
        argv[(*n)++] = (char *)d->faults[f];
    }
    const char *capture[] = { "--capture-limit", d->capture_limit, "--capture-ring", d->capture_ring,
                              "--capture-snap", d->capture_snap };
    if (d->capture && *n < max - 1)
        argv[(*n)++] = "--capture";
    for (size_t f = 0; f + 1 < sizeof capture / sizeof capture[0] && *n < max - 2; f += 2)
        if (capture[f + 1]) {
            argv[(*n)++] = (char *)capture[f];
            argv[(*n)++] = (char *)capture[f + 1];
        }
    const char *last[] = { "--inid", o->inid, "--eal", o->eal };
    for (size_t f = 0; f < 4 && *n < max - 2; f += 2)
        if (last[f + 1]) {
            argv[(*n)++] = (char *)last[f];
            argv[(*n)++] = (char *)last[f + 1];
        }
}

/* The host part's command line: ini-cluster host-run ... -- PROGRAM. */
static int part_argv(const struct remote_opts *o, const char *launcher, const struct part *p,
                     const char *tag, char **argv, int max)
{
    int n = 0;
#define ARG(x) do { if (n < max - 1) argv[n++] = (char *)(x); } while (0)
    ARG(launcher);
    ARG("host-run");
    ARG(o->config);
    ARG("--cluster"); ARG(p->clusters);
    ARG("--tag"); ARG(tag);
    ARG("--host"); ARG(part_name(p));
    ARG("--run-dir"); ARG(o->run_dir);
    daemon_flags(o, argv, &n, max);
    ARG("--");
    for (char **a = o->program; *a; a++)
        ARG(*a);
#undef ARG
    argv[n] = NULL;
    return n;
}

/* Starts argv with three pipes; the child leads its own process group and
 * gets SIGTERM if the head dies. */
static int start_part(struct part *p, char *const *argv, char *err, size_t errlen)
{
    int in[2], out[2], er[2];
    if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(er, O_CLOEXEC) < 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        signal(SIGPIPE, SIG_DFL);
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(er[1], 2);
        execvp(argv[0], argv);
        fprintf(stderr, "ini-cluster: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(er[1]);
    p->pid = pid;
    p->running = 1;
    p->in_fd = in[1];
    p->out.fd = out[0];
    p->err.fd = er[0];
    fcntl(p->out.fd, F_SETFL, O_NONBLOCK);
    fcntl(p->err.fd, F_SETFL, O_NONBLOCK);
    return 0;
}

/* A stderr line of a part that is not up yet and not the part's own
 * ("ini-cluster: ..."): ssh's, srun's or the remote shell's.  Held, to be
 * said in one line naming the host if the part fails (part_failed), or
 * passed on once it is up. */
static void hold_line(struct part *p, const char *line)
{
    if (p->n_held == HELD_LINES) {
        memmove(p->held[0], p->held[1], sizeof p->held[0] * (HELD_LINES - 1));
        p->n_held--;
    }
    snprintf(p->held[p->n_held++], sizeof p->held[0], "%s", line);
}

static void release_held(struct part *p)
{
    for (int i = 0; i < p->n_held; i++)
        fprintf(stderr, "%s\n", p->held[i]);
    p->n_held = 0;
}

static void status_line(const struct part *p, const char *line);

/* One complete line from a part. */
static void part_line(struct part *p, int is_err, const char *line)
{
    if (!is_err) {
        if (!strcmp(line, CTL_READY)) {
            p->ready = 1;
            release_held(p);
            return;
        }
        if (p->table) {
            status_line(p, line);
            return;
        }
        if (!strncmp(line, CLOCK_REPLY, strlen(CLOCK_REPLY))) {
            p->clk_t1 = clock_realtime_ns();
            p->clk_theirs = strtoll(line + strlen(CLOCK_REPLY), NULL, 10);
            p->clk_got = 1;
            return;
        }
        if (!strcmp(line, CTL_END)) {
            p->ended = 1;
            return;
        }
        printf("%s\n", line);
        return;
    }
    /* The part's own messages name the host they come from. */
    if (!strncmp(line, "ini-cluster: ", 13))
        fprintf(stderr, "ini-cluster: host %s: %s\n", part_name(p), line + 13);
    else if (!p->ready && line[0])
        hold_line(p, line);
    else
        fprintf(stderr, "%s\n", line);
}

static void pump_stream(struct part *p, struct stream *s, int is_err, int final)
{
    for (;;) {
        if (s->fd < 0)
            break;
        ssize_t r = read(s->fd, s->buf + s->len, sizeof s->buf - 1 - s->len);
        if (r < 0 && (errno == EAGAIN || errno == EINTR))
            break;
        if (r <= 0) {
            close(s->fd);
            s->fd = -1;
            final = 1;
            break;
        }
        s->len += (size_t)r;
        char *start = s->buf, *nl;
        while ((nl = memchr(start, '\n', s->len - (size_t)(start - s->buf)))) {
            *nl = 0;
            part_line(p, is_err, start);
            start = nl + 1;
        }
        s->len -= (size_t)(start - s->buf);
        memmove(s->buf, start, s->len);
        if (s->len == sizeof s->buf - 1) {       /* a line longer than the buffer: pass it on */
            s->buf[s->len] = 0;
            part_line(p, is_err, s->buf);
            s->len = 0;
        }
    }
    if (final && s->len) {
        s->buf[s->len] = 0;
        part_line(p, is_err, s->buf);
        s->len = 0;
    }
}

static void close_stdin(struct part *p)
{
    if (p->in_fd >= 0) {
        close(p->in_fd);
        p->in_fd = -1;
    }
}

/* Polls every part's output for up to ms, relays it, reaps the exited. */
static void pump_parts(struct part *parts, int n, int ms)
{
    struct pollfd fds[2 * INI_MAX_CLUSTERS];
    int k = 0;
    for (int i = 0; i < n; i++) {
        fds[k++] = (struct pollfd){ .fd = parts[i].out.fd, .events = POLLIN };
        fds[k++] = (struct pollfd){ .fd = parts[i].err.fd, .events = POLLIN };
    }
    poll(fds, (nfds_t)k, ms);
    for (int i = 0; i < n; i++) {
        struct part *p = &parts[i];
        pump_stream(p, &p->out, 0, 0);
        pump_stream(p, &p->err, 1, 0);
        if (p->running && waitpid(p->pid, &p->wstatus, WNOHANG) == p->pid) {
            p->running = 0;
            /* What it wrote before it went is still in the pipes. */
            fcntl(p->out.fd, F_SETFL, 0);
            fcntl(p->err.fd, F_SETFL, 0);
            pump_stream(p, &p->out, 0, 1);
            pump_stream(p, &p->err, 1, 1);
            close_stdin(p);
        }
    }
}

static int parts_running(const struct part *parts, int n)
{
    int r = 0;
    for (int i = 0; i < n; i++)
        r += parts[i].running;
    return r;
}

/* Tells every part to stop (end of file on its stdin), waits for them to
 * clean up, then ends what is left of ssh or srun. */
static void stop_parts(struct part *parts, int n)
{
    for (int i = 0; i < n; i++)
        close_stdin(&parts[i]);
    int64_t deadline = now_ms() + PART_STOP_MS;
    int sent_term = 0;
    while (parts_running(parts, n)) {
        pump_parts(parts, n, 20);
        if (!sent_term && now_ms() > deadline) {
            for (int i = 0; i < n; i++)
                if (parts[i].running) {
                    cli_error("host %s did not stop within %d s; ending its launcher", part_name(&parts[i]),
                              PART_STOP_MS / 1000);
                    kill(-parts[i].pid, SIGTERM);
                }
            sent_term = 1;
            deadline = now_ms() + 3000;
        } else if (sent_term && now_ms() > deadline) {
            for (int i = 0; i < n; i++)
                if (parts[i].running)
                    kill(-parts[i].pid, SIGKILL);
        }
    }
}

/* The allocation's nodes, as `scontrol show hostnames` expands them. */
static int slurm_nodes(char nodes[][INI_HOST_LEN], int max, char *err, size_t errlen)
{
    const char *list = getenv("SLURM_JOB_NODELIST") ? getenv("SLURM_JOB_NODELIST") : getenv("SLURM_NODELIST");
    if (!list) {
        snprintf(err, errlen, "--launch slurm: not inside a Slurm allocation (no SLURM_JOB_NODELIST)");
        return -1;
    }
    char cmd[4096] = "scontrol show hostnames";
    append_word(cmd, sizeof cmd, list);
    FILE *f = popen(cmd, "r");
    if (!f) {
        snprintf(err, errlen, "scontrol: %s", strerror(errno));
        return -1;
    }
    int n = 0;
    char line[INI_HOST_LEN];
    while (n < max && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (line[0])
            snprintf(nodes[n++], INI_HOST_LEN, "%s", line);
    }
    int st = pclose(f);
    if (st != 0 || n == 0) {
        snprintf(err, errlen, "`scontrol show hostnames %s` failed (status %d)", list, st);
        return -1;
    }
    return n;
}

/* The parts of a run: clusters grouped by host (ssh), or one cluster per
 * allocated node (slurm).  Returns how many, or -1 with a reason. */
static int plan_parts(const struct ini_config *cfg, enum remote_engine engine, struct part *parts,
                      char *err, size_t errlen)
{
    int n = 0;
    if (engine == ENGINE_SLURM) {
        static char nodes[INI_MAX_CLUSTERS * 4][INI_HOST_LEN];
        int n_nodes = slurm_nodes(nodes, INI_MAX_CLUSTERS * 4, err, errlen);
        if (n_nodes < 0)
            return -1;
        if (n_nodes < cfg->n_clusters) {
            snprintf(err, errlen, "the Slurm allocation has %d node%s for %d clusters (one cluster per node)",
                     n_nodes, n_nodes == 1 ? "" : "s", cfg->n_clusters);
            return -1;
        }
        for (int c = 0; c < cfg->n_clusters; c++) {
            snprintf(parts[n].host, sizeof parts[n].host, "%s", nodes[c]);
            snprintf(parts[n].clusters, sizeof parts[n].clusters, "%d", c);
            n++;
        }
        return n;
    }
    for (int c = 0; c < cfg->n_clusters; c++) {
        int k = 0;
        while (k < n && strcmp(parts[k].host, cfg->clusters[c].host))
            k++;
        if (k == n)
            snprintf(parts[n++].host, sizeof parts[0].host, "%s", cfg->clusters[c].host);
        size_t used = strlen(parts[k].clusters);
        snprintf(parts[k].clusters + used, sizeof parts[k].clusters - used, "%s%d", used ? "," : "", c);
    }
    return n;
}

/* argv that starts part p: ini-cluster itself, ssh HOST 'cd DIR && exec ...', or srun. */
static void engine_argv(enum remote_engine engine, const struct remote_opts *o, const struct part *p,
                        char *const *part, char **argv, int max, char *cmd, size_t cmdlen,
                        char *ssh_buf, size_t ssh_len)
{
    int n = 0;
    if (engine == ENGINE_SLURM) {
        static const char *const srun[] = { "srun", "--nodes=1", "--ntasks=1", "--overlap", "--quiet",
                                            "--kill-on-bad-exit=1", "--input=all" };
        for (size_t i = 0; i < sizeof srun / sizeof srun[0]; i++)
            argv[n++] = (char *)srun[i];
        static char nodelist[INI_HOST_LEN + 16];
        snprintf(nodelist, sizeof nodelist, "--nodelist=%s", p->host);
        argv[n++] = nodelist;
        static char chdir_arg[PATH_MAX + 16];
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof cwd)) {
            snprintf(chdir_arg, sizeof chdir_arg, "--chdir=%s", cwd);
            argv[n++] = chdir_arg;
        }
    } else if (p->host[0]) {
        const char *ssh = o->ssh ? o->ssh : getenv("INI_SSH") ? getenv("INI_SSH") : "ssh";
        n = split_words(ssh, ssh_buf, ssh_len, argv, max - 8);
        argv[n++] = "-o";
        argv[n++] = "BatchMode=yes";
        argv[n++] = (char *)p->host;
        char cwd[PATH_MAX];
        cmd[0] = 0;
        if (getcwd(cwd, sizeof cwd)) {
            snprintf(cmd, cmdlen, "cd");
            append_word(cmd, cmdlen, cwd);
            size_t used = strlen(cmd);
            snprintf(cmd + used, cmdlen - used, " 2>/dev/null; exec");
        }
        /* sshd passes no environment (AcceptEnv): the library path the
         * programs may need goes along on the command line, as srun's
         * environment does by itself. */
        const char *llp = getenv("LD_LIBRARY_PATH");
        if (llp && *llp) {
            static char kv[PATH_MAX + 32];
            snprintf(kv, sizeof kv, "LD_LIBRARY_PATH=%s", llp);
            append_word(cmd, cmdlen, "env");
            append_word(cmd, cmdlen, kv);
        }
        for (char *const *a = part; *a; a++)
            append_word(cmd, cmdlen, *a);
        argv[n++] = cmd;
        argv[n] = NULL;
        return;
    }
    for (char *const *a = part; *a && n < max - 1; a++)
        argv[n++] = *a;
    argv[n] = NULL;
}

static void own_path(char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    out[n > 0 ? n : 0] = 0;
}

/* CLOCK_ROUNDS rounds of "clock" over part p's channel, the least-delay
 * sample into b (cluster_clock.h); 0, or -1 when it did not answer. */
static int measure_part(struct part *p, struct clock_best *b)
{
    clock_best_init(b);
    for (int k = 0; k < CLOCK_ROUNDS; k++) {
        p->clk_got = 0;
        int64_t t0 = clock_realtime_ns();
        if (p->in_fd < 0 || write(p->in_fd, CLOCK_REQUEST "\n", sizeof CLOCK_REQUEST) != (ssize_t)sizeof CLOCK_REQUEST)
            return -1;
        int64_t give_up = now_ms() + 2000;
        while (!p->clk_got && p->running && now_ms() < give_up)
            pump_parts(p, 1, 20);
        if (!p->clk_got)
            return -1;
        clock_sample(b, t0, p->clk_theirs, p->clk_t1);
    }
    return 0;
}

/* Each INI's part (its cluster's), as an index into the entries write_clocks
 * makes (entry[part], -1: a part left out). */
static void ini_hosts(const struct ini_config *cfg, const struct part *parts, int n, const int *entry, int *host_of_ini)
{
    for (int i = 0; i < cfg->n_inis; i++)
        host_of_ini[i] = -1;
    for (int k = 0; k < n; k++) {
        char copy[sizeof parts[k].clusters];
        snprintf(copy, sizeof copy, "%s", parts[k].clusters);
        for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
            for (int i = 0; i < cfg->n_inis; i++)
                if (cfg->inis[i].cluster == atoi(t))
                    host_of_ini[i] = entry[k];
    }
}

/* RUN_DIR/clocks.tsv: every part's clock against the head's, each named as
 * the head names it (its traces carry that name: INI_TRACE_HOST).  With
 * cfg (the run's end), the INIs' own measurements over their links
 * replace the channel's where they have them (cluster_clock.h). */
static void write_clocks(const struct remote_opts *o, const struct ini_config *cfg, const struct part *parts, int n)
{
    static struct clock_entry e[INI_MAX_CLUSTERS];
    static int host_of_ini[INI_MAX_INIS];
    int entry[INI_MAX_CLUSTERS];
    char err[512], note[256] = "over the launcher's channel to each host (ssh or srun)";
    int m = 0;
    for (int i = 0; i < n; i++) {
        entry[i] = -1;
        if (parts[i].clk_start.rtt_ns < 0)
            continue;
        snprintf(e[m].host, sizeof e[m].host, "%.31s", part_name(&parts[i]));   /* INI_TRACE_HOST_LEN */
        e[m].start = parts[i].clk_start;
        e[m].end = parts[i].clk_end;
        entry[i] = m++;
    }
    if (cfg) {
        ini_hosts(cfg, parts, n, entry, host_of_ini);
        clock_from_inis(o->run_dir, e, m, host_of_ini, cfg->n_inis, note, sizeof note);
    }
    if (clock_write_note(o->run_dir, e, m, note, err, sizeof err) < 0)
        cli_error("%s", err);
}

/* Every part's clock at the start; one that does not answer is named (its
 * traces cannot then be put on the run's clock). */
static void measure_clocks(const struct remote_opts *o, struct part *parts, int n)
{
    for (int i = 0; i < n; i++) {
        clock_best_init(&parts[i].clk_end);
        if (measure_part(&parts[i], &parts[i].clk_start) < 0)
            cli_error("host %s: clock offset not measured: no answer to the clock request", part_name(&parts[i]));
    }
    write_clocks(o, NULL, parts, n);
}

/* Starts every host's part, each command line logged in
 * RUN_DIR/launcher.log; 0, or 1 with what was started stopped. */
static int start_parts(enum remote_engine engine, const struct remote_opts *o, struct part *parts, int n,
                       const char *tag)
{
    char err[1024], self[PATH_MAX];
    struct run_secrets secrets;
    if (secrets_draw(&secrets, err, sizeof err) < 0) {
        cli_error("%s", err);
        return 1;
    }
    own_path(self, sizeof self);
    const char *launcher = o->remote_launcher ? o->remote_launcher : self;
    char logpath[PATH_MAX + 32];
    snprintf(logpath, sizeof logpath, "%s/launcher.log", o->run_dir);
    FILE *log = fopen(logpath, "a");
    for (int i = 0; i < n; i++) {
        struct part *p = &parts[i];
        p->in_fd = p->out.fd = p->err.fd = -1;
        char *part[96], *argv[160], ssh_buf[1024];
        static char cmd[16384];
        part_argv(o, p->host[0] || engine == ENGINE_SLURM ? launcher : self, p, tag, part, 96);
        engine_argv(engine, o, p, part, argv, 160, cmd, sizeof cmd, ssh_buf, sizeof ssh_buf);
        if (log) {
            fprintf(log, "host %s (clusters %s):", part_name(p), p->clusters);
            for (char **a = argv; *a; a++)
                fprintf(log, " %s", *a);
            fprintf(log, "\n");
            fflush(log);
        }
        /* The run's epoch and key: the part's first line (cluster_secret.h). */
        if (start_part(p, argv, err, sizeof err) < 0 || secrets_send(p->in_fd, &secrets) < 0) {
            cli_error("host %s: %s", part_name(p), p->in_fd < 0 ? err : "cannot hand it the run's secrets");
            stop_parts(parts, i + (p->in_fd >= 0));
            if (log)
                fclose(log);
            explicit_bzero(&secrets, sizeof secrets);
            return 1;
        }
    }
    if (log)
        fclose(log);
    explicit_bzero(&secrets, sizeof secrets);
    return 0;
}

/* What to do about ssh's or srun's last words, by what they say. */
static const char *hint_for(enum remote_engine engine, const char *said)
{
    static const char *const hints[][2] = {
        { "Host key verification failed", "the host's key is not known here: connect once with ssh and accept "
          "it (or ssh-keyscan the host into ~/.ssh/known_hosts); a lab's hosts: --ssh \"$(ini-lab ssh)\"" },
        { "Permission denied", "ssh must log in without a password (BatchMode): install your key there "
          "(ssh-copy-id), or name one with --ssh \"ssh -i KEY\"" },
        { "Could not resolve hostname", "the name is not known here: check the configuration's host names" },
        { "Connection refused", "no sshd answers there: start it, or give the port with --ssh \"ssh -p PORT\"" },
        { "timed out", "the host does not answer: is it up and reachable from here?" },
        { "No route to host", "the host does not answer: is it up and reachable from here?" },
        { "not found", "ini-cluster is not at this path there: install it at the same path on every host, or "
          "name its path there with --remote-launcher" },
        { "No such file or directory", "ini-cluster is not at this path there: install it at the same path on "
          "every host, or name its path there with --remote-launcher" },
    };
    for (size_t k = 0; k < sizeof hints / sizeof hints[0]; k++)
        if (strstr(said, hints[k][0]))
            return hints[k][1];
    return engine == ENGINE_SLURM ? "check the allocation (salloc -N, one node per cluster) and that slurmd "
                                    "runs on that node"
                                  : "check that `ssh -o BatchMode=yes HOST true` works from here, or give the "
                                    "ssh command with --ssh";
}

/* A part that ended before it was up because ssh or srun failed (ssh's
 * status 255, the remote shell's 127, or srun with words of its own): one
 * line with the host, what they said last (the lines before it passed
 * over) and a hint; 1.  Else 0, its held lines left. */
static int transport_failed(enum remote_engine engine, struct part *p)
{
    int st = WIFEXITED(p->wstatus) ? WEXITSTATUS(p->wstatus) : -1;
    if (!p->n_held || (engine != ENGINE_SLURM && (!p->host[0] || (st != 255 && st != 127))))
        return 0;
    const char *said = p->held[p->n_held - 1];
    cli_error("host %s: %s failed: %s (hint: %s)", part_name(p), engine == ENGINE_SLURM ? "srun" : "ssh", said,
              hint_for(engine, said));
    p->n_held = 0;
    return 1;
}

/* One line for a part that ended before it was up (its own messages, if
 * any, were shown as they came). */
static void part_failed(enum remote_engine engine, struct part *p)
{
    if (transport_failed(engine, p))
        return;
    release_held(p);
    char how[64];
    cli_error("host %s (clusters %s) failed while starting: %s exited with %s", part_name(p), p->clusters,
              engine == ENGINE_SLURM ? "srun" : p->host[0] ? "ssh" : "its launcher",
              describe_status(p->wstatus, how, sizeof how));
}

/* Waits until every part says READY: 0, else the exit status.  Once one
 * fails the others get GRACE_MS to be up or fail too, so that every host
 * that cannot start is named (one line each). */
static int wait_parts_ready(enum remote_engine engine, struct part *parts, int n)
{
    int exit_code = 0;
    int64_t ready_deadline = now_ms() + LAUNCH_READY_MS + READY_EXTRA_MS, grace = 0;
    for (;;) {
        pump_parts(parts, n, 20);
        int settled = 0;
        for (int i = 0; i < n; i++) {
            settled += parts[i].ready || !parts[i].running;
            if (!parts[i].ready && !parts[i].running && !grace) {
                exit_code = 1;
                grace = now_ms() + GRACE_MS;
            }
        }
        if (exit_code && (settled == n || now_ms() > grace || launch_stop_signal)) {
            for (int i = 0; i < n; i++)
                if (!parts[i].ready && !parts[i].running)
                    part_failed(engine, &parts[i]);
            return exit_code;
        }
        if (settled == n)
            return 0;
        if (launch_stop_signal) {
            cli_error("interrupted while starting; stopping every host");
            return 128 + launch_stop_signal;
        }
        if (now_ms() > ready_deadline) {
            for (int i = 0; i < n; i++)
                if (!parts[i].ready)
                    cli_error("host %s (clusters %s) not ready after %d s", part_name(&parts[i]), parts[i].clusters,
                              (LAUNCH_READY_MS + READY_EXTRA_MS) / 1000);
            return 1;
        }
    }
}

/* Relays the parts' output until they end, one fails, a signal comes or
 * --timeout expires; the run's exit status. */
static int supervise_parts(const struct remote_opts *o, struct part *parts, int n)
{
    int exit_code = 0;
    int64_t deadline = o->timeout_s ? now_ms() + o->timeout_s * 1000 : 0;
    while (parts_running(parts, n)) {
        pump_parts(parts, n, 20);
        for (int i = 0; i < n; i++)
            if (parts[i].ended && !parts[i].end_done) {
                /* Its programs are done: its clock again (drift), then stop it. */
                parts[i].end_done = 1;
                measure_part(&parts[i], &parts[i].clk_end);
                close_stdin(&parts[i]);
            }
        for (int i = 0; i < n && !exit_code; i++) {
            int code = parts[i].running ? 0 : status_to_exit_code(parts[i].wstatus);
            if (code) {
                cli_error("host %s (clusters %s) failed (status %d); stopping every host", part_name(&parts[i]),
                          parts[i].clusters, code);
                exit_code = code;
            }
        }
        if (!exit_code && launch_stop_signal) {
            cli_error("interrupted; stopping every host");
            exit_code = 128 + launch_stop_signal;
        }
        if (!exit_code && deadline && now_ms() > deadline) {
            cli_error("programs still running after %ld s (--timeout); stopping every host", o->timeout_s);
            exit_code = 124;
        }
        if (exit_code)
            break;
    }
    return exit_code;
}

int remote_run(const struct ini_config *cfg, enum remote_engine engine, const struct remote_opts *o)
{
    static struct part parts[INI_MAX_CLUSTERS];
    char err[1024];
    int n = plan_parts(cfg, engine, parts, err, sizeof err);
    if (n < 0)
        cli_bad_arg("%s", err);
    if (make_run_dir(o->run_dir, 0, err, sizeof err) < 0)
        cli_bad_arg("%s", err);

    /* One tag for the whole run, unique across the hosts' /dev/shm. */
    char tag[LAUNCH_TAG_LEN];
    srand((unsigned)(getpid() ^ now_ms()));
    snprintf(tag, sizeof tag, "%x%04x", (unsigned)getpid() & 0xfffff, (unsigned)rand() & 0xffff);
    if (start_parts(engine, o, parts, n, tag))
        return 1;

    /* Every part READY, then "go" to all: no program sends before every
     * INI of the machine can receive. */
    int exit_code = wait_parts_ready(engine, parts, n);
    if (exit_code) {
        stop_parts(parts, n);
        printf("run directory: %s\n", o->run_dir);
        return exit_code;
    }
    measure_clocks(o, parts, n);
    for (int i = 0; i < n; i++)
        if (write(parts[i].in_fd, "go\n", 3) != 3)
            cli_error("host %s: cannot send go: %s", part_name(&parts[i]), strerror(errno));

    exit_code = supervise_parts(o, parts, n);
    stop_parts(parts, n);
    write_clocks(o, cfg, parts, n);
    printf("run directory: %s\n", o->run_dir);
    return exit_code;
}

/* ---- the host part ---- */

/* A program's two output files, relayed up to the head line by line. */
struct relay {
    struct follower fo, fe;
    char prefix[16];
};

static void relay_pump(struct relay *r, int n, int final)
{
    for (int i = 0; i < n; i++) {
        follower_pump(&r[i].fo, final);
        follower_pump(&r[i].fe, final);
    }
}

/* What the head says on our stdin, waiting up to ms for it: a "clock"
 * line is answered at once (cluster_clock.h), "go" sets *saw_go; 1 once
 * the head closed our stdin, else 0. */
static int head_says(int ms, int *saw_go)
{
    static char line[64];
    static size_t len;
    struct pollfd pfd = { .fd = 0, .events = POLLIN };
    if (poll(&pfd, 1, ms) <= 0)
        return 0;
    char buf[256];
    ssize_t r = read(0, buf, sizeof buf);
    if (r <= 0)
        return r < 0 && errno == EINTR ? 0 : 1;
    for (ssize_t i = 0; i < r; i++) {
        if (buf[i] != '\n') {
            if (len < sizeof line - 1)
                line[len++] = buf[i];
            continue;
        }
        line[len] = 0;
        len = 0;
        if (!strcmp(line, CLOCK_REQUEST)) {
            printf(CLOCK_REPLY "%lld\n", (long long)clock_realtime_ns());
            fflush(stdout);
        } else {
            *saw_go = 1;
        }
    }
    return 0;
}

/* The programs are done: CTL_END, then the head's clock requests answered
 * until it closes our stdin (or END_WAIT_MS). */
static void end_with_head(void)
{
    printf(CTL_END "\n");
    fflush(stdout);
    int go = 1;
    int64_t give_up = now_ms() + END_WAIT_MS;
    while (!head_says(20, &go) && !launch_stop_signal && now_ms() < give_up)
        ;
}

/* host-run's --cluster list into selected; a bad cluster exits 2. */
static void select_host_clusters(const struct ini_config *cfg, const char *clusters, int *selected)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", clusters ? clusters : "");
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int c = atoi(t);
        if (c < 0 || c >= cfg->n_clusters)
            cli_bad_arg("host-run: --cluster %s: no cluster %s", clusters, t);
        selected[c] = 1;
    }
}

/* The daemon: --inid, else inid next to this executable. */
static void host_inid_path(const struct remote_opts *o, char *inid, size_t len)
{
    if (o->inid) {
        snprintf(inid, len, "%s", o->inid);
        return;
    }
    char self[PATH_MAX];
    own_path(self, sizeof self);
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = 0;
    snprintf(inid, len, "%s/inid", self);
}

/* This host's daemons up and READY said to the head; 0, or the exit
 * status with everything torn down. */
static int host_bring_up(struct launch *L, const struct remote_opts *o)
{
    char err[1024];
    int rc = 0;
    if (launch_create_segments(L, err, sizeof err) < 0 ||
        launch_start_daemons(L, o->daemon, 0, err, sizeof err) < 0) {
        cli_error("%s", err);
        rc = 1;
    } else if ((rc = launch_wait_ready(L, LAUNCH_READY_MS)) != 0) {
        rc = rc > 0 ? 128 + rc : 1;
    }
    if (rc) {
        launch_teardown(L);
        return rc;
    }
    launch_show_warnings(L);
    printf(CTL_READY "\n");
    fflush(stdout);
    return 0;
}

/* Waits for the head's go; 0, or 1 with the daemons stopped (a daemon
 * died, a signal came or the head is gone). */
static int wait_for_go(struct launch *L)
{
    int go = 0;
    while (!go) {
        struct daemon *dead = launch_poll_daemons(L);
        if (dead)
            launch_report_deaths(L, dead, "before the programs started");
        if (dead || launch_stop_signal || head_says(go ? 0 : 10, &go)) {
            launch_stop_daemons(L, LAUNCH_STOP_MS);
            launch_teardown(L);
            return 1;
        }
    }
    return 0;
}

/* The program of every selected cluster, its output relayed; how many,
 * or -1 with everything stopped. */
static int start_host_programs(const struct ini_config *cfg, struct launch *L, const struct remote_opts *o,
                               const int *selected, struct program *progs, struct relay *relay)
{
    char err[1024];
    int n = 0;
    for (int c = 0; c < cfg->n_clusters; c++) {
        if (!selected[c])
            continue;
        /* stdin stays /dev/null: ours is the head's control channel. */
        if (program_start(&progs[n], L, o->daemon, c, o->program, 0, err, sizeof err) < 0) {
            cli_error("cannot start the program of cluster %d: %s", c, err);
            programs_stop(progs, n);
            launch_stop_daemons(L, LAUNCH_STOP_MS);
            launch_teardown(L);
            return -1;
        }
        struct relay *r = &relay[n];
        snprintf(r->prefix, sizeof r->prefix, "[c%d] ", c);
        follower_init(&r->fo, progs[n].out, r->prefix, stdout);
        follower_init(&r->fe, progs[n].err, r->prefix, stderr);
        n++;
    }
    return n;
}

/* Relays the programs' output until they end, a daemon dies for good,
 * the head goes or a signal comes; the programs' exit status. */
static int supervise_host_programs(struct launch *L, struct program *progs, struct relay *relay, int n)
{
    int exit_code = 0, running = n, go = 1;
    int64_t others_deadline = 0;
    while (running) {
        running -= programs_poll(progs, n, &exit_code, &others_deadline);
        struct daemon *dead = launch_poll_daemons(L);
        if (dead && supervise_restart(L, dead))
            dead = NULL;                /* back, and the run goes on */
        if (dead) {
            launch_report_deaths(L, dead, "while the programs were running");
            exit_code = 1;
            break;
        }
        if (head_says(0, &go) || launch_stop_signal) {
            if (!exit_code)
                exit_code = launch_stop_signal ? 128 + launch_stop_signal : 1;
            break;
        }
        if (others_deadline && now_ms() > others_deadline)
            break;
        relay_pump(relay, n, 0);
        fflush(NULL);
        sleep_ms(20);
    }
    return exit_code;
}

int remote_host_part(const struct ini_config *cfg, const struct remote_opts *o, const char *clusters,
                     const char *tag, const char *host)
{
    int selected[INI_MAX_CLUSTERS] = { 0 };
    char err[1024];
    select_host_clusters(cfg, clusters, selected);
    if (host && *host)
        setenv("INI_TRACE_HOST", host, 1);   /* our daemons' and programs' traces name us as the head does */
    setenv("INI_CLOCK_SYNC", "1", 1);        /* our daemons measure their clocks against the other hosts' INIs */
    if (!tag)
        cli_bad_arg("host-run: --tag is required");
    if (make_run_dir(o->run_dir, 1, err, sizeof err) < 0)
        cli_bad_arg("%s", err);
    struct run_secrets secrets;
    if (secrets_receive(0, &secrets, READY_EXTRA_MS, err, sizeof err) < 0 ||
        secrets_apply(&secrets, cfg, o->run_dir, err, sizeof err) < 0)
        cli_bad_arg("host-run: %s", err);
    explicit_bzero(&secrets, sizeof secrets);
    char inid[PATH_MAX];
    host_inid_path(o, inid, sizeof inid);
    static struct launch L;
    launch_init(&L, cfg, o->config, o->run_dir, tag, inid, selected);
    L.af_packet = 0;    /* real hosts on a real LAN: no emulated network */

    int rc = host_bring_up(&L, o);
    if (rc)
        return rc;
    if (wait_for_go(&L))
        return 1;

    static struct program progs[INI_MAX_CLUSTERS];
    static struct relay relay[INI_MAX_CLUSTERS];
    int n = start_host_programs(cfg, &L, o, selected, progs, relay);
    if (n < 0)
        return 1;
    int exit_code = supervise_host_programs(&L, progs, relay, n);
    programs_stop(progs, n);
    relay_pump(relay, n, 1);
    if (!exit_code)
        end_with_head();
    if (launch_stop_daemons(&L, LAUNCH_STOP_MS) && !exit_code)
        exit_code = 1;
    launch_teardown(&L);
    launch_print_counters(&L, stdout);
    fflush(NULL);
    return exit_code;
}

/* ---- up / status / down on every host ---- */

/* `status` across hosts, one table: each host's lines about its daemons
 * ("inid ...", "supervisor ...") with the host in front, then its rows of
 * the live figures under one header with a host column. */
static struct {
    FILE *states, *rows;
    char *states_buf, *rows_buf;
    size_t states_len, rows_len;
    char header[256];
} merged;

static void status_line(const struct part *p, const char *line)
{
    if (!strncmp(line, "run directory: ", 15))
        return;                             /* each host's own: the head prints the run's */
    if (strstr(line, " INI cluster ") || !strncmp(line, " INI ", 5)) {
        snprintf(merged.header, sizeof merged.header, "%s", line);
        return;
    }
    if (!strncmp(line, "inid ", 5) || !strncmp(line, "supervisor ", 11) || !merged.header[0])
        fprintf(merged.states, "host %s: %s\n", part_name(p), line);
    else
        fprintf(merged.rows, "%-12s %s\n", part_name(p), line);
}

static void status_merge_begin(void)
{
    merged.states = open_memstream(&merged.states_buf, &merged.states_len);
    merged.rows = open_memstream(&merged.rows_buf, &merged.rows_len);
    merged.header[0] = 0;
    if (!merged.states || !merged.rows) {
        cli_error("out of memory");
        exit(1);
    }
}

static void status_merge_print(void)
{
    fclose(merged.states);
    fclose(merged.rows);
    fputs(merged.states_buf, stdout);
    if (merged.header[0])
        printf("%-12s %s\n%s", "host", merged.header, merged.rows_buf);
    free(merged.states_buf);
    free(merged.rows_buf);
}

int remote_each_host(const struct ini_config *cfg, const char *cmd, const struct remote_opts *o)
{
    static struct part parts[INI_MAX_CLUSTERS];
    char err[1024], self[PATH_MAX];
    int n = plan_parts(cfg, ENGINE_SSH, parts, err, sizeof err);
    if (n < 0)
        cli_bad_arg("%s", err);
    own_path(self, sizeof self);
    /* One epoch and key for every host's `up`: their INIs talk to each other. */
    struct run_secrets secrets;
    if (secrets_draw(&secrets, err, sizeof err) < 0)
        cli_bad_arg("%s", err);
    int worst = 0, table = !strcmp(cmd, "status");
    if (table)
        status_merge_begin();
    for (int i = 0; i < n; i++) {
        struct part *p = &parts[i];
        p->in_fd = p->out.fd = p->err.fd = -1;
        char dir[PATH_MAX + INI_HOST_LEN + 16];
        snprintf(dir, sizeof dir, "%s/host-%s", o->run_dir, part_name(p));
        char *part[64];
        int k = 0;
        part[k++] = (char *)(p->host[0] ? (o->remote_launcher ? o->remote_launcher : self) : self);
        part[k++] = (char *)cmd;
        part[k++] = (char *)o->config;
        part[k++] = "--run-dir";
        part[k++] = dir;
        part[k++] = "--launch";
        part[k++] = "local";
        if (!strcmp(cmd, "up")) {
            part[k++] = "--secrets";
            part[k++] = "stdin";
            part[k++] = "--cluster";
            part[k++] = p->clusters;
            daemon_flags(o, part, &k, 64);
        }
        part[k] = NULL;
        char *argv[160], ssh_buf[1024];
        static char line[16384];
        engine_argv(ENGINE_SSH, o, p, part, argv, 160, line, sizeof line, ssh_buf, sizeof ssh_buf);
        p->table = table;
        if (start_part(p, argv, err, sizeof err) < 0) {
            cli_error("host %s: %s", part_name(p), err);
            worst = worst ? worst : 1;
            continue;
        }
        if (!strcmp(cmd, "up") && secrets_send(p->in_fd, &secrets) < 0)
            cli_error("host %s: cannot hand it the run's secrets", part_name(p));
        close_stdin(p);
        while (p->running)
            pump_parts(p, 1, 20);
        int code = status_to_exit_code(p->wstatus);
        if (!code || !transport_failed(ENGINE_SSH, p))
            release_held(p);                /* the host's own messages named it already */
        if (code && !worst)
            worst = code;
    }
    if (table)
        status_merge_print();
    explicit_bzero(&secrets, sizeof secrets);
    printf("run directory: %s\n", o->run_dir);
    return worst;
}
