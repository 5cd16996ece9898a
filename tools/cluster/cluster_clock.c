/*
 * cluster_clock.c - each host's clock offset, written to RUN_DIR/clocks.tsv
 * (cluster_clock.h).  The exchange itself is cluster_remote.c's (it owns
 * the channel to each host part); this is the arithmetic and the file.
 */
#include "cluster_clock.h"

#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int64_t clock_realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void clock_best_init(struct clock_best *b)
{
    *b = (struct clock_best){ 0, -1, 0 };
}

void clock_sample(struct clock_best *b, int64_t t0, int64_t theirs, int64_t t1)
{
    int64_t rtt = t1 - t0;
    if (rtt < 0 || (b->rtt_ns >= 0 && rtt >= b->rtt_ns))
        return;
    b->rtt_ns = rtt;
    b->at_ns = t0 + rtt / 2;
    b->offset_ns = b->at_ns - theirs;
}

int64_t clock_uncertainty_ns(const struct clock_best *b)
{
    return b->rtt_ns < 0 ? 0 : (b->rtt_ns + 1) / 2;
}

void clock_local(struct clock_entry *e)
{
    /* The name the traces of this run carry (ini_trace_host_name). */
    const char *given = getenv("INI_TRACE_HOST");
    if (given && *given)
        snprintf(e->host, sizeof e->host, "%.31s", given);
    else if (gethostname(e->host, sizeof e->host - 1) != 0)
        snprintf(e->host, sizeof e->host, "localhost");
    e->host[sizeof e->host - 1] = '\0';
    e->start = (struct clock_best){ 0, 0, clock_realtime_ns() };
    e->end = e->start;
}

static void write_entry(FILE *f, const struct clock_entry *e)
{
    const struct clock_best *end = e->end.rtt_ns >= 0 ? &e->end : &e->start;
    fprintf(f, "%s\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\n", e->host, (long long)e->start.offset_ns,
            (long long)clock_uncertainty_ns(&e->start), (long long)e->start.at_ns, (long long)end->offset_ns,
            (long long)clock_uncertainty_ns(end), (long long)end->at_ns);
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
    fprintf(f, "host\toffset_ns\tuncertainty_ns\tat_ns\tend_offset_ns\tend_uncertainty_ns\tend_at_ns\n");
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++)
            seen |= strcmp(e[j].host, e[i].host) == 0;
        if (!seen)
            write_entry(f, &e[i]);
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
