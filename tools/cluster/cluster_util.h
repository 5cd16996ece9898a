/*
 * cluster_util.h - process and file helpers of the launcher (ini-cluster):
 * spawning a program with its output redirected (optionally inside a network
 * namespace), describing how a process ended, reading the tail of a log,
 * following a growing output file, and the run directory.
 *
 * Everything here is plain fork/exec/waitpid: the launcher is one thread
 * that polls its children, so none of these helpers blocks for long.
 */
#ifndef CLUSTER_UTIL_H
#define CLUSTER_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* How a child is started. */
struct spawn_opts {
    const char *out_path;     /* stdout goes here (created, truncated); NULL: inherit */
    const char *err_path;     /* stderr goes here; NULL: same file as stdout */
    const char *netns_path;   /* setns() into this network namespace first; NULL: none */
    char *const *env;         /* "NAME=VALUE" entries added to the environment, NULL-terminated */
    int detach;               /* setsid(): survives the launcher (ini-cluster up) */
    int die_with_parent;      /* SIGTERM when the launcher dies (ini-cluster run) */
    int keep_stdin;           /* inherit the launcher's stdin instead of /dev/null */
};

/* Starts argv[0] (searched in PATH) and returns its pid once exec has
 * succeeded; -1 with a one-line reason in err if the child could not be set
 * up or exec failed (reported through a close-on-exec pipe, so a missing
 * program is an error here, not a mysterious exit status 127 later).
 * Without detach the child leads its own process group, so a Ctrl-C at the
 * terminal reaches only the launcher, which then stops everything in order. */
pid_t spawn_process(char *const argv[], const struct spawn_opts *opts, char *err, size_t errlen);

/* Runs argv to completion with stdout and stderr appended to log_path;
 * returns 0, or -1 with "CMD...: last line of its output" in err. */
int run_command(char *const argv[], const char *netns_path, const char *log_path,
                char *err, size_t errlen);

/* The start of a set-up step run in a child: "+ SHOWN" appended to the log
 * at log_path, then fork.  In the child (0 returned) the network namespace
 * at netns_path, when given, is entered first; exit status
 * FORK_LOGGED_NO_NETNS when it cannot be.  In the parent: the child's pid,
 * or -1 with "SHOWN: fork: why" in err. */
#define FORK_LOGGED_NO_NETNS 126
pid_t fork_logged(const char *shown, const char *netns_path, const char *log_path, char *err, size_t errlen);

/* "status 3", "signal 9 (Killed)". */
const char *describe_status(int wstatus, char *buf, size_t len);
/* The shell convention: exit code, or 128 + signal. */
int status_to_exit_code(int wstatus);

/* Prints the last `lines` lines of path to out, each prefixed by indent. */
void print_tail(FILE *out, const char *path, int lines, const char *indent);

/* Follows a file another process appends to, printing complete lines to
 * `out` with `prefix` in front as they appear. */
struct follower {
    char path[4096];
    const char *prefix;
    FILE *out;
    long offset;
    char partial[4096];    /* an unfinished last line */
    size_t partial_len;
};
void follower_init(struct follower *f, const char *path, const char *prefix, FILE *out);
/* Prints what was appended since the last call; with `final`, also an
 * unfinished last line. */
void follower_pump(struct follower *f, int final);

/* Makes dir (and its parents).  When it exists it must be empty unless
 * allow_nonempty.  Returns 0, or -1 with a one-line reason in err. */
int make_run_dir(const char *dir, int allow_nonempty, char *err, size_t errlen);
/* Claims dir for this launcher: an exclusive flock on DIR/launcher.lock,
 * held as long as the returned descriptor is open (close-on-exec: the
 * daemons do not hold it).  With only_lock, anything in dir besides the
 * lock file means another launcher used it already.  -1 with err set when
 * another launcher holds or used it. */
int claim_run_dir(const char *dir, int only_lock, char *err, size_t errlen);

/* Appends word to the string in buf (len bytes in all) in single quotes,
 * as a POSIX shell reads it back ('\'' for a quote in it): for command
 * lines given to ssh and for the environment lines of `up`.  A word that
 * does not fit is cut, still quoted; buf never overflows. */
void shell_quote(char *buf, size_t len, const char *word);

/* Searches PATH like execvp; 0 if `prog` names an executable file. */
int find_executable(const char *prog, char *out, size_t len);

/* Monotonic clock in milliseconds; sleep in milliseconds. */
int64_t now_ms(void);
void sleep_ms(int ms);

/* Is pid a live (non-zombie) process? */
int process_alive(pid_t pid);
/* Does /proc/PID/cmdline contain the argument `arg`?  Guards against pid
 * reuse when stopping daemons the launcher did not start itself. */
int process_has_arg(pid_t pid, const char *arg);
/* Is /proc/PID/comm (the process's name, 15 characters at most) name? */
int process_comm_is(pid_t pid, const char *name);

#endif
