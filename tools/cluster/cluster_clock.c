/*
 * cluster_clock.c - each host's clock offset, written to RUN_DIR/clocks.tsv
 * (cluster_clock.h).
 */
#include "cluster_clock.h"

#include "cli.h"
#include "file_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

char *const clock_probe_argv[] = { "sh", "-c", "hostname; date +%s%N", NULL };

static int64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Runs argv, its stdout into out (NUL-terminated); its exit status, or -1. */
static int run_capture(char *const *argv, char *out, size_t len)
{
    int fd[2];
    if (pipe(fd) < 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    ini_read_fd(fd[0], out, len);
    close(fd[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int clock_measure(char *const *argv, struct clock_entry *e, char *err, size_t errlen)
{
    e->rtt_ns = -1;
    for (int k = 0; k < CLOCK_MEASURE_SAMPLES; k++) {
        char out[512], host[256];
        long long theirs;
        int64_t t0 = realtime_ns();
        int st = run_capture(argv, out, sizeof out);
        int64_t t1 = realtime_ns();
        if (st != 0 || sscanf(out, "%255s %lld", host, &theirs) != 2) {
            snprintf(err, errlen, "%s: cannot read the host's clock (status %d)", argv[0], st);
            return -1;
        }
        if (e->rtt_ns < 0 || t1 - t0 < e->rtt_ns) {
            snprintf(e->host, sizeof e->host, "%s", host);
            e->rtt_ns = t1 - t0;
            e->offset_ns = t0 + (t1 - t0) / 2 - theirs;
        }
    }
    return 0;
}

void clock_local(struct clock_entry *e)
{
    if (gethostname(e->host, sizeof e->host - 1) != 0)
        snprintf(e->host, sizeof e->host, "localhost");
    e->host[sizeof e->host - 1] = '\0';
    e->offset_ns = e->rtt_ns = 0;
}

int clock_write(const char *run_dir, const struct clock_entry *e, int n, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/clocks.tsv", run_dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "host\toffset_ns\trtt_ns\n");
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++)
            seen |= strcmp(e[j].host, e[i].host) == 0;
        if (!seen)
            fprintf(f, "%s\t%lld\t%lld\n", e[i].host, (long long)e[i].offset_ns, (long long)e[i].rtt_ns);
    }
    if (fclose(f) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

void clock_write_local(const char *run_dir)
{
    struct clock_entry here;
    char err[512];
    clock_local(&here);
    if (clock_write(run_dir, &here, 1, err, sizeof err) < 0)
        cli_error("%s", err);
}
