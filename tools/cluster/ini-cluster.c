/*
 * ini-cluster - the launcher: runs a program on every cluster of a machine
 * configuration, with one inid daemon per INI node in between.
 *
 *   ini-cluster run CONFIG [options] -- PROGRAM ARGS...
 *   ini-cluster up CONFIG [--cluster C,...] [--run-dir DIR] [daemon options]
 *   ini-cluster status CONFIG [--run-dir DIR]
 *   ini-cluster down CONFIG [--run-dir DIR]
 *   ini-cluster gen CLUSTERS PES_PER_CLUSTER INIS_PER_CLUSTER [--mode M] [-o FILE]
 *   ini-cluster cleanup      (what launchers killed with SIGKILL left)
 *
 * Design.  One thread, fork/exec/waitpid, and polling every few
 * milliseconds: the launcher's work is a short sequence of steps, each of
 * which is either done or undone, never a hot path.  `run` is
 *
 *   1. validate everything it was given (config, flags, program, daemon
 *      binary, af_packet prerequisites) - any error: one line, exit 2, and
 *      nothing has been created yet;
 *   2. make the run directory, pick a tag (the pid in hex: unique among
 *      live runs), create every cluster's shared segment, build the
 *      af_packet network (cluster_net.c), start one inid per INI with its
 *      output in RUN_DIR/ini<ID>.log, and wait until each daemon marks
 *      itself READY in its segment (cluster_launch.c);
 *   3. start PROGRAM once per cluster with INI_CONFIG, INI_CLUSTER,
 *      INI_SEGMENT, INI_RUN_DIR and INI_TAG in its environment, stdout and
 *      stderr in RUN_DIR/cluster<C>.out/.err (cluster_program.h, the
 *      contract for every way of launching); while they run, the launcher
 *      echoes every cluster's stdout and stderr from those files (cluster
 *      0's stdout as it is, the rest prefixed "[cC] "; libini makes a
 *      program's stdout line-buffered, so lines come as they are written
 *      and survive an interrupted run), and watches the daemons: a daemon that
 *      dies ends the run, naming the daemon and how it died;
 *   4. stop the daemons (SIGTERM, 10 s, then SIGKILL), unlink the segments,
 *      remove the network, print each INI's counters summary and, last,
 *      "run directory: DIR".
 *
 * Exit status: the first non-zero status of a program (128 + signal if one
 * was killed), else 0; 2 for bad input; 124 when --timeout expired; 1 when
 * the INI side failed (daemon not ready, died, or failed at shutdown);
 * 128 + signal when the launcher itself was interrupted.  Every path out
 * after step 2 goes through launch_teardown(), so nothing is left behind.
 * Children lead their own process groups (a terminal's Ctrl-C reaches only
 * the launcher, which stops things in order) and, under `run`, get SIGTERM
 * if the launcher dies.
 *
 * `up` forks a supervisor, which performs step 2 with detached daemons,
 * records them (and itself) in RUN_DIR/state and stays to restart a daemon
 * that dies (cluster_supervise.h); `up` prints the environment once it is
 * ready.  `status` and `down` find them in the state.  See docs/launcher.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cluster_clock.h"
#include "cluster_gen.h"
#include "cluster_input.h"
#include "cluster_launch.h"
#include "cluster_reap.h"
#include "cluster_secret.h"
#include "cluster_supervise.h"
#include "cluster_net.h"
#include "cluster_program.h"
#include "cluster_telemetry.h"
#include "cluster_remote.h"
#include "cluster_util.h"
#include "capture.h"
#include "config.h"
#include "file_util.h"
#include "cluster_vtime.h"

#define DEFAULT_TIMEOUT_S   600
#define CONFIG_WAIT_MS      10000   /* a configuration stream must yield data within this */

static const char *usage_text =
    "usage: ini-cluster run CONFIG [--run-dir DIR] [--policy P] [--ini-policy P] [--idle MODE]\n"
    "                          [--trace MODE] [--fault SPEC] [--knob SPEC] [--segment on|off]\n"
    "                          [--capture] [--capture-limit SIZE] [--capture-ring N] [--capture-snap BYTES]\n"
    "                          [--timeout SEC] [--time real|virtual] [--vt-costs NAME]\n"
    "                          [--vt-compute declared|measured] [--vt-k K] [--vt-hz HZ]\n"
    "                          [--eal ARGS] [--launch local|ssh|slurm] [--ssh CMD] [--remote-launcher PATH]\n"
    "                          -- PROGRAM ARGS...\n"
    "       ini-cluster up CONFIG [--cluster C,...] [--run-dir DIR] [--policy P] [--ini-policy P]\n"
    "                          [--idle MODE] [--trace MODE] [--fault SPEC] [--segment on|off]\n"
    "                          [--capture] [--capture-limit SIZE] [--capture-ring N] [--capture-snap BYTES]\n"
    "       ini-cluster status CONFIG [--run-dir DIR]\n"
    "       ini-cluster top CONFIG [--run-dir DIR]\n"
    "       ini-cluster down CONFIG [--run-dir DIR]\n"
    "       ini-cluster gen CLUSTERS PES_PER_CLUSTER INIS_PER_CLUSTER [--mode memif|af_packet|pci]\n"
    "                          [--hosts H1,H2,...] [--device DEV,...] [-o FILE]\n"
    "       ini-cluster cleanup\n"
    "       ini-cluster --help | --version\n"
    "policies: static, round-robin, load-aware; idle: poll, adaptive, auto;\n"
    "trace: off, summary, detailed.  See docs/launcher.md.\n";

/* ---- options ---- */

struct options {
    const char *config;
    const char *run_dir;
    const char *inid;          /* --inid PATH: another daemon binary (tests) */
    const char *clusters;      /* up: --cluster list */
    struct daemon_opts daemon;
    long timeout_s;
    char **program;            /* run: argv after "--" */
    /* across hosts (cluster_remote.h) */
    const char *eal;           /* --eal "ARGS" for every daemon's EAL */
    char eal_buf[1024];
    const char *launch;        /* --launch local|ssh|slurm */
    const char *ssh;           /* --ssh "CMD ARGS" */
    const char *remote_launcher;
    const char *tag, *host;    /* host-run: the head's tag, this host's name */
    const char *secrets;       /* up --secrets stdin: the head's epoch and key (cluster_secret.h) */
    struct vtime_opts vt;      /* run: --time virtual (cluster_vtime.h) */
};

static int parse_long(const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static const char *const SEGMENT_MODES[] = { "off", "on", NULL };

/* Which flags a command accepts. */
enum { F_RUNDIR = 1, F_DAEMON = 2, F_TIMEOUT = 4, F_CLUSTER = 8, F_PROGRAM = 16, F_HOSTS = 32, F_PART = 64 };

/* The value of flag NAME: after its '=' (value), else the next argument,
 * *i advanced to it; exits 2 when there is none or it is empty. */
static const char *take_value(const char *cmd, const char *name, const char *value, int *i, int argc,
                              char **argv)
{
    if (!value) {
        if (*i + 1 >= argc || !strcmp(argv[*i + 1], "--"))
            cli_bad_arg("%s: %s: needs a value", cmd, name);
        value = argv[++*i];
    }
    if (!*value)
        cli_bad_arg("%s: %s: empty value", cmd, name);
    return value;
}

/* --eal "ARGS": words separated by blanks, handed to every daemon's EAL. */
static void eal_option(const char *cmd, struct options *o)
{
    if (strlen(o->eal) >= sizeof o->eal_buf)
        cli_bad_arg("%s: --eal: longer than %zu characters", cmd, sizeof o->eal_buf - 1);
    snprintf(o->eal_buf, sizeof o->eal_buf, "%s", o->eal);
    o->daemon.n_eal_args = 0;
    for (char *save = NULL, *w = strtok_r(o->eal_buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (o->daemon.n_eal_args == INI_MAX_EAL_ARGS)
            cli_bad_arg("%s: --eal: more than %d arguments", cmd, INI_MAX_EAL_ARGS);
        o->daemon.eal_args[o->daemon.n_eal_args++] = w;
    }
}

/* The options of a machine across hosts (docs/launcher.md): --eal ARGS
 * (F_DAEMON), --launch, --ssh, --remote-launcher (F_HOSTS), --tag and
 * --host (F_PART, host-run only).  1 if NAME was one of them. */
static int parse_hosts_option(const char *cmd, const char *name, unsigned accepted, struct options *o,
                              const char *value, int *i, int argc, char **argv)
{
    const char **slot = !strcmp(name, "--eal") && (accepted & F_DAEMON) ? &o->eal
                      : !strcmp(name, "--launch") && (accepted & F_HOSTS) ? &o->launch
                      : !strcmp(name, "--ssh") && (accepted & F_HOSTS) ? &o->ssh
                      : !strcmp(name, "--remote-launcher") && (accepted & F_HOSTS) ? &o->remote_launcher
                      : !strcmp(name, "--tag") && (accepted & F_PART) ? &o->tag
                      : !strcmp(name, "--host") && (accepted & F_PART) ? &o->host
                      : !strcmp(name, "--secrets") && (accepted & F_HOSTS) ? &o->secrets : NULL;
    if (!slot)
        return 0;
    *slot = take_value(cmd, name, value, i, argc, argv);
    if (slot == &o->eal)
        eal_option(cmd, o);
    if (slot == &o->secrets && strcmp(o->secrets, "stdin"))
        cli_bad_arg("%s: --secrets: only \"stdin\" (where a head across hosts writes them)", cmd);
    if (slot == &o->launch) {
        static const char *const engines[] = { "local", "ssh", "slurm", NULL };
        cli_parse_choice("--launch", o->launch, engines);
    }
    return 1;
}

/* --capture-limit SIZE, --capture-ring N, --capture-snap BYTES (tcpdump's
 * -C, -W, -s; ini/daemon/capture.h), checked here as inid checks them; any of
 * them implies --capture. */
static void capture_option(const char *name, const char *value, struct daemon_opts *d)
{
    char err[256];
    uint64_t limit;
    uint32_t n;
    const char **slot = !strcmp(name, "--capture-limit") ? &d->capture_limit
                      : !strcmp(name, "--capture-ring") ? &d->capture_ring : &d->capture_snap;
    int rc = slot == &d->capture_limit ? ini_capture_parse_limit(value, &limit, err, sizeof err)
           : slot == &d->capture_ring ? ini_capture_parse_ring(value, &n, err, sizeof err)
           : ini_capture_parse_snap(value, &n, err, sizeof err);
    if (rc < 0)
        cli_bad_arg("%s", err);
    *slot = value;
    d->capture = 1;
}

/* --fault SPEC: checked as inid checks it; one specification per run. */
static void fault_option(const char *cmd, const char *value, struct daemon_opts *d)
{
    /* inid takes one specification: the faults go together in it. */
    if (d->n_faults)
        cli_bad_arg("%s: --fault given twice (put all faults in one: "
                    "drop=0.01,dup=0.01,...)", cmd);
    struct ini_fault_cfg f;
    char why[256];
    ini_fault_defaults(&f);
    if (ini_fault_parse(value, &f, why, sizeof why) < 0)
        cli_bad_arg("--fault: %s", why);
    d->faults[d->n_faults++] = value;
}

/* --knob SPEC: checked as inid checks it; one specification per run. */
static void knob_option(const char *cmd, const char *value, struct daemon_opts *d)
{
    struct ini_knobs k;
    char why[256];
    memset(&k, 0, sizeof k);
    if (d->knobs)
        cli_bad_arg("%s: --knob given twice (put all knobs in one: O=50,gap=2,...)", cmd);
    if (ini_knobs_parse(value, &k, why, sizeof why) < 0)
        cli_bad_arg("--knob: %s", why);
    d->knobs = value;
}

/* The daemons' options (F_DAEMON): --inid and what is handed to inid.
 * 1 if NAME was one of them. */
static int parse_daemon_option(const char *cmd, const char *name, const char *value, int *i, int argc,
                               char **argv, struct options *o)
{
    static const char *const with_value[] = {
        "--inid", "--policy", "--ini-policy", "--idle", "--trace", "--fault", "--knob", "--segment",
        "--capture-limit", "--capture-ring", "--capture-snap", NULL,
    };
    struct daemon_opts *d = &o->daemon;
    if (!strcmp(name, "--capture") && !value) {
        d->capture = 1;
        return 1;
    }
    int k = 0;
    while (with_value[k] && strcmp(name, with_value[k]))
        k++;
    if (!with_value[k])
        return 0;
    value = take_value(cmd, name, value, i, argc, argv);
    if (!strcmp(name, "--inid")) {
        o->inid = value;
    } else if (!strcmp(name, "--policy") || !strcmp(name, "--ini-policy")) {
        if (ini_policy_parse(value) < 0)
            cli_bad_arg("%s: '%s' is not a policy (static, round-robin, load-aware)", name, value);
        *(!strcmp(name, "--policy") ? &d->policy : &d->ini_policy) = value;
    } else if (!strcmp(name, "--idle")) {
        d->idle = ini_idle_mode_names[cli_parse_choice(name, value, ini_idle_mode_names)];
    } else if (!strcmp(name, "--trace")) {
        d->trace = ini_trace_mode_names[cli_parse_choice(name, value, ini_trace_mode_names)];
    } else if (!strcmp(name, "--fault")) {
        fault_option(cmd, value, d);
    } else if (!strcmp(name, "--knob")) {
        knob_option(cmd, value, d);
    } else if (!strcmp(name, "--segment")) {
        d->segment = SEGMENT_MODES[cli_parse_choice(name, value, SEGMENT_MODES)];
    } else {
        capture_option(name, value, d);
    }
    return 1;
}

/* One "--flag VALUE" or "--flag=VALUE" of argv[*i]; exits 2 if the
 * command does not take it. */
static void parse_flag(const char *cmd, int argc, char **argv, int *i, unsigned accepted, struct options *o)
{
    const char *a = argv[*i];
    char name[64];
    const char *value = NULL;
    const char *eq = strchr(a, '=');
    if (eq) {
        snprintf(name, sizeof name, "%.*s", (int)(eq - a), a);
        value = eq + 1;
    } else {
        snprintf(name, sizeof name, "%s", a);
    }
    if (!strcmp(name, "--run-dir") && (accepted & F_RUNDIR)) {
        o->run_dir = take_value(cmd, name, value, i, argc, argv);
    } else if ((accepted & F_DAEMON) && parse_daemon_option(cmd, name, value, i, argc, argv, o)) {
        return;
    } else if (!strcmp(name, "--timeout") && (accepted & F_TIMEOUT)) {
        value = take_value(cmd, name, value, i, argc, argv);
        if (parse_long(value, 0, 10L * 365 * 86400, &o->timeout_s) < 0)
            cli_bad_arg("--timeout: '%s' is not a number of seconds (0: no limit)", value);
    } else if ((accepted & F_TIMEOUT) && !strncmp(name, "--", 2) && (!strcmp(name, "--time") ||
               !strncmp(name, "--vt-", 5))) {
        vtime_option(&o->vt, name, take_value(cmd, name, value, i, argc, argv));
    } else if (!strcmp(name, "--cluster") && (accepted & F_CLUSTER)) {
        o->clusters = take_value(cmd, name, value, i, argc, argv);
    } else if (!parse_hosts_option(cmd, name, accepted, o, value, i, argc, argv)) {
        cli_bad_arg("%s: %s: unknown option", cmd, a);
    }
}

/* Parses `CONFIG [flags]` (and `-- PROGRAM ARGS` when F_PROGRAM). */
static void parse_options(const char *cmd, int argc, char **argv, unsigned accepted, struct options *o)
{
    memset(o, 0, sizeof *o);
    o->timeout_s = DEFAULT_TIMEOUT_S;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (cli_common_flag(a))
            continue;
        if (!strcmp(a, "--")) {
            if (!(accepted & F_PROGRAM))
                cli_bad_arg("%s: unexpected '--'", cmd);
            if (i + 1 >= argc)
                cli_bad_arg("%s: no program after '--'", cmd);
            o->program = argv + i + 1;
            break;
        }
        if (a[0] != '-' || a[1] == 0) {
            if (o->config)
                cli_bad_arg("%s: %s: unexpected argument%s", cmd, a,
                            accepted & F_PROGRAM ? " (the program goes after '--')" : "");
            o->config = a;
            continue;
        }
        parse_flag(cmd, argc, argv, &i, accepted, o);
    }
    if (!o->config)
        cli_bad_arg("%s: no configuration file given", cmd);
    if ((accepted & F_PROGRAM) && !o->program)
        cli_bad_arg("%s: no program given (ini-cluster run CONFIG [options] -- PROGRAM ARGS...)", cmd);
}

/* ---- shared steps ---- */

static struct ini_config cfg;   /* large: not on the stack */

/* The configuration's text when it is not a regular file (a pipe from
 * `<(...)`, a FIFO): read once, here; NULL for a regular file. */
static char *config_text;

static void load_config_or_exit(const char *path)
{
    char err[1024];
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        char why[256], shown[256];
        free(config_text);
        config_text = read_stream_bounded(path, INI_CONFIG_MAX_BYTES, CONFIG_WAIT_MS, why, sizeof why);
        if (!config_text)
            cli_bad_arg("%s: file: %s", ini_path_for_message(path, shown, sizeof shown), why);
        if (ini_config_load_text(config_text, path, &cfg, err, sizeof err) < 0)
            cli_bad_arg("%s", err);
        return;
    }
    if (ini_config_load(path, &cfg, err, sizeof err) < 0)
        cli_bad_arg("%s", err);
}

/* The configuration every process of the run reads: a regular file's own
 * absolute path, or, for one read from a stream (config_text), the copy
 * made in the run directory; call it once the directory is claimed. */
static void config_for_processes_or_exit(const char *path, const char *run_dir, char *out, size_t len)
{
    char err[1024];
    if (config_text) {
        if (write_run_config(run_dir, config_text, out, len, err, sizeof err) < 0)
            cli_bad_arg("%s", err);
        return;
    }
    if (!realpath(path, out))
        cli_bad_arg("%s: %s", path, strerror(errno));
}

static void absolute_path(const char *path, char *out, size_t len)
{
    if (path[0] == '/') {
        snprintf(out, len, "%s", path);
        return;
    }
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        cli_bad_arg("cannot get the current directory: %s", strerror(errno));
    if ((size_t)snprintf(out, len, "%s/%s", cwd, path) >= len)
        cli_bad_arg("%s: path too long", path);
}

/* The daemon: --inid, else build/bin/inid next to this executable. */
static void find_inid_or_exit(const char *override, char *out, size_t len)
{
    if (override) {
        char abs[PATH_MAX];
        absolute_path(override, abs, sizeof abs);
        if (find_executable(abs, out, len) < 0)
            cli_bad_arg("--inid %s: not an executable file", override);
        return;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n < 0)
        cli_bad_arg("cannot read /proc/self/exe: %s", strerror(errno));
    self[n] = 0;
    snprintf(out, len, "%s/inid", dirname(self));
    if (access(out, X_OK) < 0)
        cli_bad_arg("the daemon %s is missing (run make)", out);
}

/* A tag not used by a live or stale run: the pid in hex, with a suffix if
 * a crashed run with the same pid left a segment or namespace behind.  The
 * suffix is a letter g-z, never a hex digit: "4eb" is pid 0x4eb, never pid
 * 0x4e with suffix b (cluster_reap.c tells a run's liveness by its pid). */
static void pick_tag(char *tag, size_t len)
{
    for (int attempt = 0;; attempt++) {
        if (attempt == 0)
            snprintf(tag, len, "%x", (unsigned)getpid());
        else
            snprintf(tag, len, "%x%c", (unsigned)getpid(), 'g' + (attempt - 1) % 20);
        char seg[64], shm[128], ns[64], ns_path[256];
        ini_segment_name(seg, sizeof seg, tag, 0);
        snprintf(shm, sizeof shm, "/dev/shm%s", seg);
        net_lan_name(ns, sizeof ns, tag);
        net_ns_path(ns_path, sizeof ns_path, ns);
        if ((access(shm, F_OK) < 0 && access(ns_path, F_OK) < 0) || attempt > 20)
            return;
    }
}

/* The run's epoch and, with the MAC on and no key_file, its run key
 * (cluster_secret.h): drawn here, or read from stdin where a head across
 * hosts started this launcher with --secrets stdin. */
static void set_run_secrets(const char *run_dir, const char *from)
{
    struct run_secrets s;
    char err[PATH_MAX + 128];
    if ((from ? secrets_receive(0, &s, 30000, err, sizeof err) : secrets_draw(&s, err, sizeof err)) < 0 ||
        secrets_apply(&s, &cfg, run_dir, err, sizeof err) < 0)
        cli_bad_arg("%s", err);
    explicit_bzero(&s, sizeof s);
}

static const char *stop_signal_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal";
}

static void on_stop_signal(int sig)
{
    launch_stop_signal = sig;
}

static void install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;   /* no SA_RESTART: sleeps end early */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);   /* a closed stdout must not skip the cleanup */
}

/* Steps 2 of the header comment; on failure prints why, tears down and
 * returns the exit status (1, or 128 + signal). */
static int bring_up(struct launch *L, const struct daemon_opts *d, int detach)
{
    char err[1024];
    int rc = 0;
    if (launch_create_segments(L, err, sizeof err) < 0 ||
        launch_network_up(L, err, sizeof err) < 0 ||
        launch_start_daemons(L, d, detach, err, sizeof err) < 0) {
        cli_error("%s", err);
        rc = 1;
    } else {
        int w = launch_wait_ready(L, LAUNCH_READY_MS);
        if (w == 0)
            launch_show_warnings(L);
        if (w > 0) {
            cli_error("interrupted by %s while starting; stopping", stop_signal_name(w));
            rc = 128 + w;
        } else if (w < 0) {
            rc = 1;
        }
    }
    if (rc)
        launch_teardown(L);
    return rc;
}

/* ---- run ---- */

/* After the daemons: any child left is a program's descendant that started
 * its own session and was handed to us as subreaper. */
static void end_escaped_descendants(void)
{
    int n = reap_descendants(PROGRAM_STOP_MS);
    if (n)
        cli_error("%d process(es) of the programs had left their process groups (own session) "
                  "and were still running; ended them", n);
}

static int start_programs(struct launch *L, const struct options *o, struct program *progs)
{
    for (int c = 0; c < cfg.n_clusters; c++) {
        char why[1024];
        /* On one host, cluster 0's program reads the launcher's stdin. */
        if (program_start(&progs[c], L, &o->daemon, c, o->program, c == 0, why, sizeof why) < 0) {
            cli_error("cannot start the program of cluster %d: %s", c, why);
            programs_stop(progs, c);
            return -1;
        }
    }
    return 0;
}

/* `run`'s run directory, absolute: --run-dir, else a new
 * runs/run-DATE-TIME-PID under the current directory. */
static void run_dir_of(const char *given, char *out, size_t len)
{
    if (given) {
        absolute_path(given, out, len);
        return;
    }
    char stamp[32], rel[128];
    time_t t = time(NULL);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&t));
    snprintf(rel, sizeof rel, "runs/run-%s-%d", stamp, (int)getpid());
    absolute_path(rel, out, len);
}

/* `run` with the clusters on several hosts (cluster_remote.c). */
static int run_across_hosts(struct options *o, enum remote_engine engine)
{
    char config_abs[PATH_MAX], run_dir[PATH_MAX];
    if (!realpath(o->config, config_abs))
        cli_bad_arg("%s: %s", o->config, strerror(errno));
    run_dir_of(o->run_dir, run_dir, sizeof run_dir);
    /* The program's path must be the same on every host: make it absolute
     * when it names a file here; a bare name is searched on each host. */
    static char program[PATH_MAX];
    if (strchr(o->program[0], '/')) {
        absolute_path(o->program[0], program, sizeof program);
        o->program[0] = program;
    }
    static char inid_abs[PATH_MAX];
    if (o->inid) {
        absolute_path(o->inid, inid_abs, sizeof inid_abs);
        o->inid = inid_abs;
    }
    install_signal_handlers();
    struct remote_opts r = {
        .config = config_abs, .run_dir = run_dir, .daemon = &o->daemon, .inid = o->inid,
        .eal = o->eal, .ssh = o->ssh, .remote_launcher = o->remote_launcher,
        .timeout_s = o->timeout_s, .program = o->program,
    };
    return remote_run(&cfg, engine, &r);
}

/* `ini-cluster host-run`: one host's part of a run across hosts, started
 * by the head over ssh or srun (cluster_remote.h). */
static int cmd_host_run(int argc, char **argv)
{
    struct options o;
    parse_options("host-run", argc, argv, F_RUNDIR | F_DAEMON | F_PROGRAM | F_CLUSTER | F_PART, &o);
    load_config_or_exit(o.config);
    if (!o.run_dir || o.run_dir[0] != '/')
        cli_bad_arg("host-run: --run-dir must be an absolute path");
    install_signal_handlers();
    struct remote_opts r = { .config = o.config, .run_dir = o.run_dir, .daemon = &o.daemon,
                             .inid = o.inid, .eal = o.eal, .program = o.program };
    return remote_host_part(&cfg, &r, o.clusters, o.tag, o.host);
}

static void default_up_dir(const char *config, char *out, size_t len);

/* up / status / down with clusters on other hosts: each host's own. */
static int each_host(const char *cmd, struct options *o)
{
    char config_abs[PATH_MAX], run_dir[PATH_MAX];
    if (!realpath(o->config, config_abs))
        cli_bad_arg("%s: %s", o->config, strerror(errno));
    if (o->run_dir)
        absolute_path(o->run_dir, run_dir, sizeof run_dir);
    else
        default_up_dir(o->config, run_dir, sizeof run_dir);
    struct remote_opts r = { .config = config_abs, .run_dir = run_dir, .daemon = &o->daemon,
                             .inid = o->inid, .eal = o->eal, .ssh = o->ssh,
                             .remote_launcher = o->remote_launcher };
    return remote_each_host(&cfg, cmd, &r);
}

/* Step 1 and the run directory of step 2 for a run on this host: the
 * program's and the daemon's paths, the run directory made and claimed,
 * the configuration every process reads.  Bad input exits 2. */
static void prepare_local_run(const struct options *o, char *inid, char *config_abs, char *run_dir)
{
    char program[PATH_MAX], err[1024];
    if (find_executable(o->program[0], program, sizeof program) < 0)
        cli_bad_arg("%s: no such program (or not executable)", o->program[0]);
    find_inid_or_exit(o->inid, inid, PATH_MAX);
    if (cfg.net_mode == INI_NET_AF_PACKET && net_check_prerequisites(err, sizeof err) < 0)
        cli_bad_arg("%s: %s", o->config, err);

    run_dir_of(o->run_dir, run_dir, PATH_MAX);
    if (make_run_dir(run_dir, 0, err, sizeof err) < 0 || claim_run_dir(run_dir, 1, err, sizeof err) < 0)
        cli_bad_arg("%s", err);
    config_for_processes_or_exit(o->config, run_dir, config_abs, PATH_MAX);
    clock_write_local(run_dir);
    cleanup_stale_runs(stderr);
    /* Descendants that leave the programs' process groups come back to us. */
    if (become_subreaper() < 0)
        cli_error("cannot become a child subreaper (%s): a program's child that starts its own "
                  "session may outlive the run", strerror(errno));
}

/* Why the programs must stop now: the exit status to give (*exit_code),
 * and 1; 0 while the run goes on. */
static int run_must_stop(struct launch *L, struct program *progs, int running, long timeout_s,
                         int64_t deadline, int64_t others_deadline, int *exit_code)
{
    struct daemon *dead = launch_poll_daemons(L);
    if (dead && supervise_restart(L, dead))
        dead = NULL;                /* back, and the run goes on */
    if (dead) {
        launch_report_deaths(L, dead, "while the programs were running");
        *exit_code = 1;
    } else if (!running) {
        return 1;
    } else if (launch_stop_signal) {
        cli_error("interrupted by %s; stopping", stop_signal_name(launch_stop_signal));
        *exit_code = 128 + launch_stop_signal;
    } else if (deadline && now_ms() > deadline) {
        cli_error("programs still running after %ld s (--timeout); stopping", timeout_s);
        *exit_code = 124;
    } else if (others_deadline && now_ms() > others_deadline) {
        cli_error("a program failed %d s ago; stopping the others", OTHERS_GRACE_MS / 1000);
    } else {
        return 0;
    }
    programs_stop(progs, cfg.n_clusters);
    return 1;
}

/* Step 3: supervise.  Every cluster's output is shown as it comes,
 * cluster 0's stdout as it is (the program's own output, as when it runs
 * alone), the rest prefixed by their cluster.  The programs' exit status. */
static int supervise_programs(struct launch *L, struct program *progs, long timeout_s)
{
    static struct follower follow_out[INI_MAX_CLUSTERS], follow_err[INI_MAX_CLUSTERS];
    static char prefixes[INI_MAX_CLUSTERS][16];
    for (int c = 0; c < cfg.n_clusters; c++) {
        snprintf(prefixes[c], sizeof prefixes[c], "[c%d] ", c);
        follower_init(&follow_out[c], progs[c].out, c ? prefixes[c] : "", stdout);
        follower_init(&follow_err[c], progs[c].err, prefixes[c], stderr);
    }
    int64_t deadline = timeout_s ? now_ms() + timeout_s * 1000 : 0;
    int64_t others_deadline = 0;
    int exit_code = 0, running = cfg.n_clusters;
    for (;;) {
        running -= programs_poll(progs, cfg.n_clusters, &exit_code, &others_deadline);
        if (run_must_stop(L, progs, running, timeout_s, deadline, others_deadline, &exit_code))
            break;
        for (int c = 0; c < cfg.n_clusters; c++) {
            follower_pump(&follow_out[c], 0);
            follower_pump(&follow_err[c], 0);
        }
        sleep_ms(20);
    }
    for (int c = 0; c < cfg.n_clusters; c++) {
        follower_pump(&follow_out[c], 1);
        follower_pump(&follow_err[c], 1);
    }
    programs_end_groups(progs, cfg.n_clusters);
    return exit_code;
}

/* Whether the run has a knob on, from the configuration or --knob SPEC
 * (already checked by knob_option).  The virtual-time loop charges none
 * of them to a clock: an O knob made a 2 x 2 x 1 ini-synth run's virtual
 * time 8.4% shorter, not longer. */
static int knobs_on(const struct ini_config *c, const char *spec)
{
    struct ini_knobs k = c->knobs;
    char why[256];
    if (spec && ini_knobs_parse(spec, &k, why, sizeof why) < 0)
        return 1;
    return k.O_us > 0 || k.gap_us > 0 || k.per_byte_ns > 0 || k.latency_us > 0 || k.overhead_us > 0 || k.dilate > 0;
}

static int cmd_run(int argc, char **argv)
{
    struct options o;
    parse_options("run", argc, argv, F_RUNDIR | F_DAEMON | F_TIMEOUT | F_PROGRAM | F_HOSTS, &o);
    load_config_or_exit(o.config);
    enum remote_engine engine = remote_pick_engine(&cfg, o.launch);
    if (engine != ENGINE_LOCAL && o.vt.virtual_time)
        cli_bad_arg("--time virtual: one host only (the machine's clocks are in this host's shared memory)");
    if (o.vt.virtual_time && knobs_on(&cfg, o.daemon.knobs))
        cli_bad_arg("--time virtual: the knobs (O, gap, per_byte, latency, overhead, dilate; %s) are not modelled in "
                    "virtual time: the cost set (--vt-costs) is the INI's service",
                    o.daemon.knobs ? "--knob" : cfg.path);
    if (engine != ENGINE_LOCAL)
        return run_across_hosts(&o, engine);

    char inid[PATH_MAX], config_abs[PATH_MAX], run_dir[PATH_MAX];
    prepare_local_run(&o, inid, config_abs, run_dir);

    install_signal_handlers();
    char tag[LAUNCH_TAG_LEN];
    pick_tag(tag, sizeof tag);
    set_run_secrets(run_dir, o.secrets);
    static struct launch L;
    launch_init(&L, &cfg, config_abs, run_dir, tag, inid, NULL);
    L.link_slack = o.vt.virtual_time ? INI_VT_FRAME_STAMP : 0;
    static struct vtime_run vt;
    char err[1024];
    if (vtime_start(&vt, &o.vt, &cfg, tag, err, sizeof err) < 0) {
        cli_error("%s", err);
        return 1;
    }

    int rc = bring_up(&L, &o.daemon, 0);
    if (rc) {
        vtime_finish(&vt, run_dir, stdout);
        printf("run directory: %s\n", run_dir);
        return rc;
    }

    static struct program progs[INI_MAX_CLUSTERS];
    if (start_programs(&L, &o, progs) < 0) {
        vtime_programs_ended(&vt);
        launch_stop_daemons(&L, LAUNCH_STOP_MS);
        launch_teardown(&L);
        vtime_finish(&vt, run_dir, stdout);
        printf("run directory: %s\n", run_dir);
        return 1;
    }
    int exit_code = supervise_programs(&L, progs, o.timeout_s);
    vtime_programs_ended(&vt);

    /* Step 4. */
    if (launch_stop_daemons(&L, LAUNCH_STOP_MS) && !exit_code)
        exit_code = 1;
    launch_teardown(&L);
    end_escaped_descendants();
    launch_print_counters(&L, stdout);
    if (vtime_finish(&vt, run_dir, stdout) && !exit_code)
        exit_code = 1;
    printf("run directory: %s\n", run_dir);
    return exit_code;
}

/* ---- up / status / top / down ---- */

#define STATUS_SAMPLE_MS 500

/* Two readings of every running daemon's telemetry, ms apart, and the
 * table of rates between them on out (cluster_telemetry.h). */
static void live_figures(const struct launch *L, int ms, FILE *out)
{
    static struct tel_row rows[INI_MAX_INIS];
    int n = 0;
    for (int k = 0; k < L->n_daemons; k++) {
        const struct daemon *d = &L->daemons[k];
        if (!d->running)
            continue;
        struct tel_row *r = &rows[n++];
        r->ini = d->ini;
        r->cluster = d->cluster;
        r->ok = tel_sample(L->tag, d->ini, &r->a, r->err, sizeof r->err) == 0;
    }
    if (!n)
        return;
    sleep_ms(ms);
    for (int k = 0; k < n; k++)
        if (rows[k].ok)
            rows[k].ok = tel_sample(L->tag, rows[k].ini, &rows[k].b, rows[k].err, sizeof rows[k].err) == 0;
    tel_print_rows(out, rows, n);
}

/* up's run directory when --run-dir is not given: one place per
 * configuration name, whatever the current directory, so that status, top
 * and down find the machine from anywhere: /run/ini/NAME for root (where
 * the systemd unit ini-cluster@NAME keeps it), else
 * $XDG_RUNTIME_DIR/ini/NAME, else /tmp/ini-UID/NAME, for CONFIG NAME.cfg.
 * Two configurations of one name share it: the state records which one is
 * up (same_machine_or_exit). */
static void default_up_dir(const char *config, char *out, size_t len)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", config);
    char *base = basename(copy);
    size_t n = strlen(base);
    if (n > 4 && !strcmp(base + n - 4, ".cfg"))
        base[n - 4] = 0;
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    struct stat st;
    if (geteuid() == 0 && stat("/run", &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(out, len, "/run/ini/%s", base);
    else if (geteuid() != 0 && xdg && xdg[0] == '/')
        snprintf(out, len, "%s/ini/%s", xdg, base);
    else
        snprintf(out, len, "/tmp/ini-%u/%s", (unsigned)geteuid(), base);
}

/* The state in run_dir is of the machine brought up from `config`, else
 * exit 2 saying which configuration it belongs to.  A configuration read
 * from a stream has its copy in the run directory and is not compared. */
static void same_machine_or_exit(const struct launch *L, const char *config, const char *run_dir)
{
    char mine[PATH_MAX], copy[PATH_MAX + 16];
    snprintf(copy, sizeof copy, "%s/config.cfg", run_dir);
    if (config_text || !strcmp(L->config_path, copy) || !realpath(config, mine) ||
        !strcmp(mine, L->config_path))
        return;
    cli_bad_arg("%s holds the machine of %s, not of %s (configurations of the same name share the "
                "default run directory: give --run-dir)", run_dir, L->config_path, mine);
}

static void parse_clusters_or_exit(const char *list, int *selected)
{
    if (!list) {
        for (int c = 0; c < cfg.n_clusters; c++)
            selected[c] = 1;
        return;
    }
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", list);
    char *save = NULL;
    int any = 0;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        long c;
        if (parse_long(t, 0, cfg.n_clusters - 1, &c) < 0)
            cli_bad_arg("--cluster: '%s' is not a cluster of %s (0..%d)", t, cfg.path,
                        cfg.n_clusters - 1);
        selected[c] = 1;
        any = 1;
    }
    if (!any)
        cli_bad_arg("--cluster: empty list");
}

/* `up`'s output is a shell script: per cluster one export line (also in
 * RUN_DIR/cluster<C>.env, to source), everything else a comment. */
static void print_up_env(const struct launch *L, const struct daemon_opts *d, const int *selected, pid_t sup)
{
    int first = 0;
    while (!selected[first])
        first++;
    printf("# ini-cluster up: every daemon ready.  A program of cluster C runs with the line of\n"
           "# cluster C in its environment, e.g.  . %s/cluster%d.env; PROGRAM\n", L->run_dir, first);
    for (int c = 0; c < cfg.n_clusters; c++) {
        if (!selected[c])
            continue;
        /* The line of cluster c: what `run` gives its program (cluster_program.h). */
        static struct program_env env;
        static char line[PROGRAM_ENV_MAX * (4 * (PATH_MAX + 32) + 32)];
        program_env(&env, L, d, c);
        program_env_line(&env, line, sizeof line);
        printf("%s   # cluster %d\n", line, c);
        char path[PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/cluster%d.env", L->run_dir, c);
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "%s\n", line);
            fclose(f);
        } else {
            cli_error("cannot write %s: %s", path, strerror(errno));
        }
    }
    printf("# supervisor: pid %d, restart = { max = %d; window_s = %d; }; its decisions in %s/launcher.log\n",
           (int)sup, cfg.restart.max, cfg.restart.window_s, L->run_dir);
    printf("# run directory: %s\n", L->run_dir);
}

/* `up` after the fork: waits for the supervisor's word (a signal meanwhile
 * is passed on to it, which stops the bring-up and tears it down); prints
 * the environment when it came, else the supervisor's exit status. */
static int up_wait_supervisor(const struct launch *L, pid_t sup, int fd, const struct daemon_opts *d,
                              const int *selected)
{
    char c;
    ssize_t n;
    int passed = 0;
    while ((n = read(fd, &c, 1)) < 0 && errno == EINTR)
        if (launch_stop_signal && !passed++)
            kill(sup, launch_stop_signal);
    close(fd);
    if (n == 1) {
        print_up_env(L, d, selected, sup);
        return 0;
    }
    int st = 0;
    while (waitpid(sup, &st, 0) < 0 && errno == EINTR)
        ;
    printf("run directory: %s\n", L->run_dir);
    int code = status_to_exit_code(st);
    return code ? code : 1;
}

/* --cluster's list into selected; in memif mode only all of them. */
static void select_up_clusters_or_exit(const char *list, int *selected)
{
    parse_clusters_or_exit(list, selected);
    /* memif links every INI to the INIs of all other clusters, through
     * sockets named after this run: a cluster brought up alone waits for
     * peers that will never come. */
    if (cfg.net_mode == INI_NET_MEMIF)
        for (int c = 0; c < cfg.n_clusters; c++)
            if (!selected[c])
                cli_bad_arg("--cluster: in memif mode every INI is linked to the INIs of all other "
                            "clusters, so all clusters come up together (cluster %d is missing); "
                            "leave out --cluster, or use af_packet", c);
}

/* The run directory of `up`, made and claimed: a previous `up` in it is
 * refused while it lives, and what a dead one left is cleaned up. */
static void claim_up_dir_or_exit(const char *config, const char *run_dir)
{
    char err[1024];
    static struct launch old;
    if (launch_read_state(&old, &cfg, run_dir, err, sizeof err) == 0) {
        same_machine_or_exit(&old, config, run_dir);
        for (int k = 0; k < old.n_daemons; k++)
            if (old.daemons[k].running)
                cli_bad_arg("already up in %s (inid %d, pid %d); run ini-cluster down first", run_dir,
                      old.daemons[k].ini, (int)old.daemons[k].pid);
        launch_teardown(&old);
        char state[PATH_MAX + 16];
        snprintf(state, sizeof state, "%s/state", run_dir);
        unlink(state);
    } else if (errno != ENOENT) {
        cli_bad_arg("%s", err);
    }
    if (make_run_dir(run_dir, 1, err, sizeof err) < 0 || claim_run_dir(run_dir, 0, err, sizeof err) < 0)
        cli_bad_arg("%s", err);
    char state_path[PATH_MAX + 16];
    snprintf(state_path, sizeof state_path, "%s/state", run_dir);
    if (access(state_path, F_OK) == 0)   /* another `up` finished between our check and our lock */
        cli_bad_arg("already up in %s; run ini-cluster down first", run_dir);
    cleanup_stale_runs(stderr);
    if (config_text) {                  /* a copy from an earlier `up` of this directory */
        char old_copy[PATH_MAX + 16];
        snprintf(old_copy, sizeof old_copy, "%s/config.cfg", run_dir);
        unlink(old_copy);
    }
}

/* The supervisor (cluster_supervise.h) brings the machine up, so that the
 * daemons are its children, and says "1" on the pipe once it is ready; it
 * stays, and `up` prints the environment and goes.  Both return here. */
static int up_fork_supervisor(struct launch *L, const struct daemon_opts *d, const int *selected)
{
    char err[1024];
    int ready[2];
    if (pipe2(ready, O_CLOEXEC) < 0)
        cli_bad_arg("pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t sup = fork();
    if (sup < 0)
        cli_bad_arg("fork: %s", strerror(errno));
    if (sup > 0) {
        close(ready[1]);
        return up_wait_supervisor(L, sup, ready[0], d, selected);
    }
    close(ready[0]);
    supervise_up_become(L);
    int rc = bring_up(L, d, 1);
    if (rc)
        return rc;
    if (launch_write_state(L, err, sizeof err) < 0) {
        cli_error("%s", err);
        launch_stop_daemons(L, LAUNCH_STOP_MS);
        launch_teardown(L);
        return 1;
    }
    supervise_up_detach_output(L);
    if (write(ready[1], "1", 1) != 1)
        return 1;                       /* up is gone: it said nothing; down still works */
    close(ready[1]);
    return supervise_up(L);
}

static int cmd_up(int argc, char **argv)
{
    struct options o;
    parse_options("up", argc, argv, F_RUNDIR | F_DAEMON | F_CLUSTER | F_HOSTS, &o);
    load_config_or_exit(o.config);
    if (!o.clusters && ini_config_has_hosts(&cfg) && (!o.launch || strcmp(o.launch, "local")))
        return each_host("up", &o);
    int selected[INI_MAX_CLUSTERS] = { 0 };
    select_up_clusters_or_exit(o.clusters, selected);

    char inid[PATH_MAX], config_abs[PATH_MAX], run_dir[PATH_MAX], err[1024];
    find_inid_or_exit(o.inid, inid, sizeof inid);
    if (cfg.net_mode == INI_NET_AF_PACKET && net_check_prerequisites(err, sizeof err) < 0)
        cli_bad_arg("%s: %s", o.config, err);
    if (o.run_dir)
        absolute_path(o.run_dir, run_dir, sizeof run_dir);
    else
        default_up_dir(o.config, run_dir, sizeof run_dir);
    claim_up_dir_or_exit(o.config, run_dir);
    config_for_processes_or_exit(o.config, run_dir, config_abs, sizeof config_abs);

    install_signal_handlers();
    char tag[LAUNCH_TAG_LEN];
    pick_tag(tag, sizeof tag);
    set_run_secrets(run_dir, o.secrets);
    static struct launch L;
    launch_init(&L, &cfg, config_abs, run_dir, tag, inid, selected);
    if (ini_config_has_hosts(&cfg))
        L.af_packet = 0;    /* a host of a machine across hosts: its real LAN, no emulated one */
    return up_fork_supervisor(&L, &o.daemon, selected);
}

/* Reads the state of a previous `up`; exits when there is none. */
static void read_up_state_or_exit(struct launch *L, const struct options *o, char *run_dir,
                                  size_t len, int absent_status)
{
    char err[1024];
    load_config_or_exit(o->config);
    if (o->run_dir)
        absolute_path(o->run_dir, run_dir, len);
    else
        default_up_dir(o->config, run_dir, len);
    if (launch_read_state(L, &cfg, run_dir, err, sizeof err) < 0) {
        if (errno == ENOENT) {
            cli_error("nothing is up in %s", run_dir);
            exit(absent_status);
        }
        cli_error("%s", err);
        exit(1);
    }
    same_machine_or_exit(L, o->config, run_dir);
}

/* Is this status or down one of every host's?  Yes when the configuration
 * names hosts, unless --launch local: what the head itself runs on each
 * host for that host's run directory (RUN_DIR/host-NAME). */
static int across_hosts(const struct options *o)
{
    if (o->launch)
        return strcmp(o->launch, "local") != 0;
    load_config_or_exit(o->config);
    return ini_config_has_hosts(&cfg);
}

/* What status and down work on: the options, the state of the `up`
 * here and its run directory. */
struct up_here {
    struct options o;
    struct launch L;
    char run_dir[PATH_MAX];
};

/* status's and down's start: the options into h->o; then either every
 * host's own answer (1, its exit status in *rc) or the state of the `up`
 * here in h (0; none: exit absent_status). */
static int status_or_down_start(const char *cmd, int argc, char **argv, int absent_status, struct up_here *h,
                                int *rc)
{
    parse_options(cmd, argc, argv, F_RUNDIR | F_HOSTS, &h->o);
    if (across_hosts(&h->o)) {
        *rc = each_host(cmd, &h->o);
        return 1;
    }
    read_up_state_or_exit(&h->L, &h->o, h->run_dir, sizeof h->run_dir, absent_status);
    return 0;
}

static int cmd_status(int argc, char **argv)
{
    static struct up_here h;
    struct launch *L = &h.L;
    int rc;
    if (status_or_down_start("status", argc, argv, 1, &h, &rc))
        return rc;
    int healthy = 1;
    for (int k = 0; k < L->n_daemons; k++) {
        struct daemon *d = &L->daemons[k];
        const char *state = "not running";
        if (d->running) {
            char err[512];
            struct ini_segment *seg = ini_segment_attach(L->segs[d->cluster].name, d->cluster,
                                                         err, sizeof err);
            uint32_t s = seg ? atomic_load(&seg->inis[d->index].state) : INI_SEG_ABSENT;
            state = s == INI_SEG_READY ? "running, ready"
                  : s == INI_SEG_STOPPED ? "running, stopping" : "running, not ready";
            if (seg)
                ini_segment_detach(seg);
        }
        if (strcmp(state, "running, ready"))
            healthy = 0;
        printf("inid %d (cluster %d) pid %d: %s\n", d->ini, d->cluster, (int)d->pid, state);
    }
    if (L->supervisor && supervise_up_alive(L))
        printf("supervisor pid %d: running\n", (int)L->supervisor);
    else if (L->supervisor)
        printf("supervisor pid %d: not running: a daemon that dies is not restarted (why it ended: %s/launcher.log)\n",
               (int)L->supervisor, h.run_dir);
    live_figures(L, STATUS_SAMPLE_MS, stdout);
    printf("run directory: %s\n", h.run_dir);
    return healthy ? 0 : 1;
}

/* `top`: the live figures again every second, until interrupted.  On a
 * terminal it redraws in place as top(1) does: the screen is cleared once,
 * each frame is composed in memory while the previous one stays on screen
 * (the sampling takes the second), then written in one go from the top
 * left corner, each line ending with erase-to-end-of-line and the frame
 * with erase-below, so nothing flickers and the table is always shown.
 * Into a pipe or file it prints one frame after another. */
static int cmd_top(int argc, char **argv)
{
    struct options o;
    parse_options("top", argc, argv, F_RUNDIR, &o);
    static struct launch L;
    char run_dir[PATH_MAX];
    read_up_state_or_exit(&L, &o, run_dir, sizeof run_dir, 1);
    install_signal_handlers();
    int tty = isatty(STDOUT_FILENO);
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);     /* a frame leaves in one write */
    if (tty)
        printf("\033[?25l\033[H\033[2Jini-cluster top: %s: first reading...\n", run_dir);  /* cursor off, clear */
    fflush(stdout);
    while (!launch_stop_signal) {
        char *frame = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&frame, &len);
        if (!f)
            cli_bad_arg("top: %s", strerror(errno));
        live_figures(&L, 1000, f);
        time_t t = time(NULL);
        char when[32];
        strftime(when, sizeof when, "%H:%M:%S", localtime(&t));
        fclose(f);
        if (launch_stop_signal) {
            free(frame);
            break;
        }
        if (tty)
            fputs("\033[H", stdout);                   /* home */
        printf("ini-cluster top: %s, %s (Ctrl-C to stop)%s\n", run_dir, when, tty ? "\033[K" : "");
        for (char *line = frame, *nl; line < frame + len; line = nl + 1) {
            nl = memchr(line, '\n', (size_t)(frame + len - line));
            if (!nl)
                nl = frame + len;
            printf("%.*s%s\n", (int)(nl - line), line, tty ? "\033[K" : "");
        }
        if (tty)
            fputs("\033[J", stdout);                   /* erase below */
        else
            putchar('\n');
        fflush(stdout);
        free(frame);
    }
    if (tty)
        fputs("\033[?25h", stdout);                     /* cursor back */
    fflush(stdout);
    return 0;
}

static int cmd_down(int argc, char **argv)
{
    static struct up_here h;
    struct launch *L = &h.L;
    int rc;
    if (status_or_down_start("down", argc, argv, 0, &h, &rc))
        return rc;
    install_signal_handlers();
    /* The supervisor first, so that nobody restarts what we stop; then
     * the state again: a restart may have changed a pid. */
    if (supervise_up_alive(L)) {
        supervise_up_stop(L, LAUNCH_STOP_MS + 2000);
        read_up_state_or_exit(L, &h.o, h.run_dir, sizeof h.run_dir, 0);
    }
    int was_running = 0;
    for (int k = 0; k < L->n_daemons; k++)
        was_running += L->daemons[k].running;
    int bad = launch_stop_daemons(L, LAUNCH_STOP_MS);
    launch_teardown(L);
    char state[PATH_MAX + 16];
    snprintf(state, sizeof state, "%s/state", h.run_dir);
    unlink(state);
    launch_print_counters(L, stdout);
    printf("stopped %d daemon%s\n", was_running, was_running == 1 ? "" : "s");
    printf("run directory: %s\n", h.run_dir);
    return bad ? 1 : 0;
}

/* ---- gen ---- */

/* "a,b,c" into at most max words (in buf); exits on an empty word. */
static int split_list_or_exit(const char *flag, const char *list, char *buf, size_t len,
                              const char **words, int max)
{
    if (strlen(list) >= len)
        cli_bad_arg("gen: %s: list too long", flag);
    snprintf(buf, len, "%s", list);
    int n = 0;
    for (char *w = buf, *comma; w; w = comma ? comma + 1 : NULL) {
        comma = strchr(w, ',');
        if (comma)
            *comma = 0;
        if (!*w)
            cli_bad_arg("gen: %s: empty name in '%s'", flag, list);
        if (n == max)
            cli_bad_arg("gen: %s: more than %d names", flag, max);
        words[n++] = w;
    }
    return n;
}

/* gen's arguments: the machine's three numbers and its options. */
struct gen_args {
    long v[3];
    const char *out_path;
    int mode, mode_given;
    const char *hosts[INI_MAX_CLUSTERS], *devices[INI_MAX_INIS_PER_CLUSTER];
    int n_hosts, n_devices;
};

static void parse_gen_args(int argc, char **argv, struct gen_args *g)
{
    static const char *const names[] = { "CLUSTERS", "PES_PER_CLUSTER", "INIS_PER_CLUSTER" };
    static char hosts_buf[4096], devices_buf[1024];
    int n = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (cli_common_flag(a)) {
            continue;
        } else if (!strcmp(a, "--hosts") || !strcmp(a, "--device")) {
            if (i + 1 >= argc)
                cli_bad_arg("gen: %s: needs a value", a);
            if (!strcmp(a, "--hosts"))
                g->n_hosts = split_list_or_exit(a, argv[++i], hosts_buf, sizeof hosts_buf, g->hosts,
                                                INI_MAX_CLUSTERS);
            else
                g->n_devices = split_list_or_exit(a, argv[++i], devices_buf, sizeof devices_buf, g->devices,
                                                  INI_MAX_INIS_PER_CLUSTER);
        } else if (!strcmp(a, "-o") || !strcmp(a, "--mode")) {
            if (i + 1 >= argc)
                cli_bad_arg("gen: %s: needs a value", a);
            if (!strcmp(a, "-o"))
                g->out_path = argv[++i];
            else
                g->mode = cli_parse_choice("--mode", argv[++i], ini_net_mode_names), g->mode_given = 1;
        } else if (!strncmp(a, "--mode=", 7)) {
            g->mode = cli_parse_choice("--mode", a + 7, ini_net_mode_names), g->mode_given = 1;
        } else if (a[0] == '-' && a[1]) {
            cli_bad_arg("gen: %s: unknown option", a);
        } else {
            if (n == 3)
                cli_bad_arg("gen: %s: unexpected argument", a);
            if (parse_long(a, 1, 1 << 20, &g->v[n]) < 0)
                cli_bad_arg("gen: %s: '%s' is not a positive number", names[n], a);
            n++;
        }
    }
    if (n < 3)
        cli_bad_arg("gen: expected CLUSTERS PES_PER_CLUSTER INIS_PER_CLUSTER");
    if (g->n_hosts && !g->mode_given)
        g->mode = INI_NET_AF_PACKET;   /* across hosts: kernel interfaces on a LAN */
}

/* -o onto a device, FIFO or the like: written in place, never replaced. */
static int gen_write_in_place(const char *out_path, const struct gen_machine *m)
{
    char err[PATH_MAX + 256];
    FILE *out = fopen(out_path, "w");
    if (!out)
        cli_bad_arg("%s: %s", out_path, strerror(errno));
    int rc = gen_write(out, m, err, sizeof err);
    if (rc < 0 && ferror(out)) {
        cli_error("%s: %s", out_path, err);
        fclose(out);
        return 1;
    }
    if (fclose(out) != 0 && rc == 0) {
        cli_error("%s: cannot write the configuration: %s", out_path, strerror(errno));
        return 1;
    }
    if (rc < 0)
        cli_bad_arg("gen: %s", err);
    return 0;
}

/* To stdout, or to a regular file -o by atomic replace (FILE.tmp, rename),
 * the file then loaded back as a check. */
static int gen_write_replacing(const char *out_path, const struct gen_machine *m)
{
    char err[PATH_MAX + 256];
    FILE *out = stdout;
    char tmp[PATH_MAX + 16];
    if (out_path) {
        snprintf(tmp, sizeof tmp, "%s.tmp", out_path);
        out = fopen(tmp, "w");
        if (!out)
            cli_bad_arg("%s: %s", out_path, strerror(errno));
    }
    int rc = gen_write(out, m, err, sizeof err);
    if (rc < 0 && ferror(out)) {   /* a write error, not bad arguments */
        cli_error("%s: %s", out_path ? tmp : "stdout", err);
        if (out_path) {
            fclose(out);
            unlink(tmp);
        }
        return 1;
    }
    if (out_path) {
        if (fclose(out) != 0 && rc == 0) {
            snprintf(err, sizeof err, "%s: %s", tmp, strerror(errno));
            rc = -1;
        }
        if (rc < 0) {
            unlink(tmp);
        } else if (rename(tmp, out_path) < 0) {
            unlink(tmp);
            cli_bad_arg("%s: %s", out_path, strerror(errno));
        }
    }
    if (rc < 0)
        cli_bad_arg("gen: %s", err);
    if (out_path && ini_config_load(out_path, &cfg, err, sizeof err) < 0) {
        cli_error("gen wrote a configuration that does not load: %s", err);
        return 1;
    }
    return 0;
}

static int cmd_gen(int argc, char **argv)
{
    static struct gen_args g = { .mode = INI_NET_MEMIF };
    parse_gen_args(argc, argv, &g);
    const struct gen_machine m = {
        .n_clusters = (int)g.v[0], .pes_per_cluster = (int)g.v[1], .inis_per_cluster = (int)g.v[2],
        .mode = (enum ini_net_mode)g.mode, .hosts = g.hosts, .n_hosts = g.n_hosts,
        .devices = g.devices, .n_devices = g.n_devices,
    };
    /* Atomic replace (write FILE.tmp, rename) is for regular files; a
     * device, FIFO or the like is written in place, never replaced. */
    struct stat st;
    if (g.out_path && stat(g.out_path, &st) == 0 && !S_ISREG(st.st_mode))
        return gen_write_in_place(g.out_path, &m);
    return gen_write_replacing(g.out_path, &m);
}

/* Removes what launchers killed with SIGKILL left (cluster_reap.h). */
static int cmd_cleanup(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (!cli_common_flag(argv[i]))
            cli_bad_arg("cleanup: %s: unexpected argument (cleanup takes none)", argv[i]);
    int n = cleanup_stale_runs(stdout);
    printf("%d stale run(s) cleaned\n", n);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(int argc, char **argv);
    } commands[] = {
        { "run", cmd_run }, { "up", cmd_up }, { "status", cmd_status }, { "top", cmd_top },
        { "down", cmd_down }, { "gen", cmd_gen }, { "cleanup", cmd_cleanup }, { "host-run", cmd_host_run },
    };
    cli_init("ini-cluster", usage_text);
    if (argc < 2)
        cli_bad_arg("no command given (ini-cluster --help)");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "help"))
        cli_help();
    cli_common_flag(cmd);
    /* Line-buffered even into a pipe: the launcher's lines interleave with
     * the programs' and must come out whole and in order. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        if (!strcmp(cmd, commands[k].name))
            return commands[k].run(argc - 2, argv + 2);
    cli_bad_arg("%s: unknown command (run, up, status, top, down, gen, cleanup)", cmd);
}
