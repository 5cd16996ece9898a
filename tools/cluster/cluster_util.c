/*
 * cluster_util.c - process and file helpers of the launcher (see
 * cluster_util.h).
 */
#include "cluster_util.h"
#include "clock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* In the child after fork: report errno through the pipe and die.  Only
 * async-signal-safe calls from here on. */
static void child_fail(int report_fd, int stage)
{
    int msg[2] = { stage, errno };
    ssize_t unused = write(report_fd, msg, sizeof msg);
    (void)unused;
    _exit(127);
}

enum { STAGE_NETNS = 1, STAGE_OUT, STAGE_ERR, STAGE_EXEC, STAGE_STDIN };

static const char *stage_name(int stage)
{
    switch (stage) {
    case STAGE_NETNS: return "entering network namespace";
    case STAGE_OUT:   return "opening output file";
    case STAGE_ERR:   return "opening error file";
    case STAGE_STDIN: return "opening /dev/null";
    default:          return "exec";
    }
}

pid_t spawn_process(char *const argv[], const struct spawn_opts *o, char *err, size_t errlen)
{
    int report[2];
    if (pipe2(report, O_CLOEXEC) < 0) {
        snprintf(err, errlen, "%s: pipe: %s", argv[0], strerror(errno));
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "%s: fork: %s", argv[0], strerror(errno));
        close(report[0]);
        close(report[1]);
        return -1;
    }
    if (pid == 0) {
        close(report[0]);
        /* The launcher ignores SIGPIPE and catches INT/TERM; a program must
         * start with the defaults (ignored signals survive exec). */
        signal(SIGPIPE, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (o->detach)
            setsid();
        else
            setpgid(0, 0);
        if (o->die_with_parent) {
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (getppid() != parent)   /* the launcher died before prctl */
                _exit(127);
        }
        if (o->netns_path) {
            int fd = open(o->netns_path, O_RDONLY | O_CLOEXEC);
            if (fd < 0 || setns(fd, CLONE_NEWNET) < 0)
                child_fail(report[1], STAGE_NETNS);
            close(fd);
        }
        int devnull = o->keep_stdin ? 0 : open("/dev/null", O_RDONLY);
        if (devnull < 0 || (!o->keep_stdin && dup2(devnull, 0) < 0))
            child_fail(report[1], STAGE_STDIN);
        if (o->out_path) {
            int fd = open(o->out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0 || dup2(fd, 1) < 0)
                child_fail(report[1], STAGE_OUT);
            if (!o->err_path && dup2(fd, 2) < 0)
                child_fail(report[1], STAGE_OUT);
        }
        if (o->err_path) {
            int fd = open(o->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0 || dup2(fd, 2) < 0)
                child_fail(report[1], STAGE_ERR);
        }
        for (char *const *e = o->env; e && *e; e++)
            putenv(*e);
        execvp(argv[0], argv);
        child_fail(report[1], STAGE_EXEC);
    }
    close(report[1]);
    int msg[2];
    ssize_t n;
    do
        n = read(report[0], msg, sizeof msg);
    while (n < 0 && errno == EINTR);
    close(report[0]);
    if (n == (ssize_t)sizeof msg) {
        waitpid(pid, NULL, 0);
        snprintf(err, errlen, "%s: %s: %s", argv[0], stage_name(msg[0]), strerror(msg[1]));
        return -1;
    }
    return pid;
}

/* Last non-empty line of a file, for error messages. */
static void last_line(const char *path, char *buf, size_t len)
{
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (line[0] && (size_t)snprintf(buf, len, "%s", line) >= len)
            memcpy(buf + len - 4, "...", 4);   /* shortened, visibly */
    }
    fclose(f);
}

int run_command(char *const argv[], const char *netns_path, const char *log_path,
                char *err, size_t errlen)
{
    char cmd[512] = "";
    for (char *const *a = argv; *a; a++) {
        size_t used = strlen(cmd);
        snprintf(cmd + used, sizeof cmd - used, "%s%s", used ? " " : "", *a);
    }
    /* Appending: open the log in the child ourselves rather than through
     * spawn_process, which truncates. */
    pid_t pid = fork_logged(cmd, netns_path, log_path, err, errlen);
    if (pid < 0)
        return -1;
    if (pid == 0) {
        signal(SIGPIPE, SIG_DFL);
        int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
        int devnull = open("/dev/null", O_RDONLY);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        if (devnull >= 0)
            dup2(devnull, 0);
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            snprintf(err, errlen, "%s: waitpid: %s", cmd, strerror(errno));
            return -1;
        }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    char why[256], how[64];
    last_line(log_path, why, sizeof why);
    if (why[0] == '+' || !why[0])   /* the command said nothing */
        snprintf(why, sizeof why, "%s", describe_status(st, how, sizeof how));
    snprintf(err, errlen, "%s: %s", cmd, why);
    return -1;
}

pid_t fork_logged(const char *shown, const char *netns_path, const char *log_path, char *err, size_t errlen)
{
    FILE *log = fopen(log_path, "a");
    if (log) {
        fprintf(log, "+ %s\n", shown);
        fclose(log);
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "%s: fork: %s", shown, strerror(errno));
        return -1;
    }
    if (pid == 0 && netns_path) {
        int fd = open(netns_path, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || setns(fd, CLONE_NEWNET) < 0)
            _exit(FORK_LOGGED_NO_NETNS);
    }
    return pid;
}

const char *describe_status(int st, char *buf, size_t len)
{
    if (WIFEXITED(st))
        snprintf(buf, len, "status %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        snprintf(buf, len, "signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
        snprintf(buf, len, "wait status 0x%x", st);
    return buf;
}

int status_to_exit_code(int st)
{
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return 1;
}

void print_tail(FILE *out, const char *path, int lines, const char *indent)
{
    FILE *f = lines > 0 ? fopen(path, "r") : NULL;
    if (!f)
        return;
    /* Keep the last `lines` lines in a small ring of line buffers. */
    enum { MAXL = 64, WIDTH = 400 };
    static char ring[MAXL][WIDTH];
    if (lines > MAXL)
        lines = MAXL;
    long n = 0;
    char buf[WIDTH];
    while (fgets(buf, sizeof buf, f)) {
        size_t l = strlen(buf);
        int complete = l > 0 && buf[l - 1] == '\n';
        buf[strcspn(buf, "\n")] = 0;
        snprintf(ring[n % lines], WIDTH, "%s", buf);
        n++;
        /* Skip the rest of an overlong line. */
        int c = 0;
        while (!complete && (c = fgetc(f)) != EOF && c != '\n')
            ;
    }
    fclose(f);
    long first = n > lines ? n - lines : 0;
    for (long i = first; i < n; i++)
        fprintf(out, "%s%s\n", indent, ring[i % lines]);
}

void follower_init(struct follower *f, const char *path, const char *prefix, FILE *out)
{
    snprintf(f->path, sizeof f->path, "%s", path);
    f->prefix = prefix;
    f->out = out;
    f->offset = 0;
    f->partial_len = 0;
}

static void follower_emit(struct follower *f, const char *s, size_t n)
{
    fprintf(f->out, "%s%.*s\n", f->prefix, (int)n, s);
}

void follower_pump(struct follower *f, int final)
{
    FILE *in = fopen(f->path, "r");
    if (in) {
        if (fseek(in, f->offset, SEEK_SET) == 0) {
            char buf[8192];
            size_t n;
            while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
                f->offset += (long)n;
                for (size_t i = 0; i < n; i++) {
                    if (buf[i] == '\n') {
                        follower_emit(f, f->partial, f->partial_len);
                        f->partial_len = 0;
                    } else if (f->partial_len == sizeof f->partial) {
                        /* An overlong line goes out in pieces. */
                        follower_emit(f, f->partial, f->partial_len);
                        f->partial[0] = buf[i];
                        f->partial_len = 1;
                    } else {
                        f->partial[f->partial_len++] = buf[i];
                    }
                }
            }
        }
        fclose(in);
    }
    if (final && f->partial_len) {
        follower_emit(f, f->partial, f->partial_len);
        f->partial_len = 0;
    }
    fflush(f->out);
}

static int mkdir_parents(const char *dir)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(tmp, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

int make_run_dir(const char *dir, int allow_nonempty, char *err, size_t errlen)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "run directory %s exists and is not a directory", dir);
            return -1;
        }
        if (!allow_nonempty) {
            DIR *d = opendir(dir);
            if (!d) {
                snprintf(err, errlen, "run directory %s: %s", dir, strerror(errno));
                return -1;
            }
            struct dirent *e;
            int empty = 1;
            while ((e = readdir(d)))
                if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                    empty = 0;
            closedir(d);
            if (!empty) {
                snprintf(err, errlen, "run directory %s exists and is not empty", dir);
                return -1;
            }
        }
        if (access(dir, W_OK) < 0) {
            snprintf(err, errlen, "run directory %s: %s", dir, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (mkdir_parents(dir) < 0) {
        snprintf(err, errlen, "run directory %s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

int claim_run_dir(const char *dir, int only_lock, char *err, size_t errlen)
{
    /* The emptiness check of make_run_dir and the files the run writes
     * later are not atomic together: two launchers could both find the
     * directory empty.  The lock is: exactly one of them gets it. */
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/launcher.lock", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "run directory %s: %s: %s", dir, path, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        close(fd);
        if (e == EWOULDBLOCK)
            snprintf(err, errlen, "run directory %s is in use by another launcher", dir);
        else
            snprintf(err, errlen, "run directory %s: lock: %s", dir, strerror(e));
        return -1;
    }
    if (only_lock) {
        /* A launcher that came and went between our check and our lock. */
        DIR *d = opendir(dir);
        struct dirent *e;
        int other = 0;
        while (d && (e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "launcher.lock"))
                other = 1;
        if (d)
            closedir(d);
        if (other) {
            close(fd);
            snprintf(err, errlen, "run directory %s exists and is not empty", dir);
            return -1;
        }
    }
    char pid[24];
    int n = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    /* The pid is for people; the lock is what counts. */
    if (ftruncate(fd, 0) == 0) {
        ssize_t unused = write(fd, pid, (size_t)n);
        (void)unused;
    }
    return fd;
}

int find_executable(const char *prog, char *out, size_t len)
{
    if (strchr(prog, '/')) {
        size_t n = strlen(prog);
        if (n >= len)
            return -1;
        memcpy(out, prog, n + 1);
        struct stat st;
        return stat(prog, &st) == 0 && S_ISREG(st.st_mode) && access(prog, X_OK) == 0 ? 0 : -1;
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        snprintf(out, len, "%.*s/%s", (int)n, n ? path : ".", prog);
        struct stat st;
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return 0;
        path += n;
        if (*path == ':')
            path++;
    }
    return -1;
}

void shell_quote(char *buf, size_t len, const char *word)
{
    size_t n = strlen(buf);
    if (n + 3 > len)          /* no room for two quotes and the NUL */
        return;
    buf[n++] = '\'';
    /* Each step leaves room for the closing quote and the NUL. */
    for (const char *c = word; *c && n + 6 <= len; c++) {
        if (*c == '\'') {
            memcpy(buf + n, "'\\''", 4);
            n += 4;
        } else {
            buf[n++] = *c;
        }
    }
    buf[n++] = '\'';
    buf[n] = 0;
}

int64_t now_ms(void) { return (int64_t)(ini_mono_ns() / 1000000u); }

void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
    nanosleep(&ts, NULL);   /* an interrupting signal just shortens it */
}

int process_alive(pid_t pid)
{
    if (pid <= 0 || kill(pid, 0) < 0)
        return 0;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    /* "PID (comm) S ...": the state follows the last ')'. */
    char *p = strrchr(buf, ')');
    return !(p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'));
}

int process_has_arg(pid_t pid, const char *arg)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
        if (strcmp(buf + i, arg) == 0)
            return 1;
    return 0;
}

int process_comm_is(pid_t pid, const char *name)
{
    char path[64], comm[32] = "";
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    if (!fgets(comm, sizeof comm, f))
        comm[0] = 0;
    fclose(f);
    comm[strcspn(comm, "\n")] = 0;
    return !strcmp(comm, name);
}
