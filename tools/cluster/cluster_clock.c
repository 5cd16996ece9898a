/*
 * cluster_clock.c - each host's clock offset, written to RUN_DIR/clocks.tsv
 * (cluster_clock.h).  The exchange itself is cluster_remote.c's (it owns
 * the channel to each host part); this is the arithmetic and the file.
 */
#include "cluster_clock.h"

#include "cli.h"
#include "config.h"   /* INI_MAX_CLUSTERS */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
    return clock_write_note(run_dir, e, n, NULL, err, errlen);
}

int clock_write_note(const char *run_dir, const struct clock_entry *e, int n, const char *note, char *err,
                     size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/clocks.tsv", run_dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "host\toffset_ns\tuncertainty_ns\tat_ns\tend_offset_ns\tend_uncertainty_ns\tend_at_ns\n");
    if (note)
        fprintf(f, "# %s\n", note);
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

/* ---- the INIs' own measurements ---- */

/* The least round trip between two hosts: add offset to host b's clock to
 * get host a's (a < b), at on a's clock; rtt < 0: none. */
static struct clock_best link_start[INI_MAX_CLUSTERS][INI_MAX_CLUSTERS], link_end[INI_MAX_CLUSTERS][INI_MAX_CLUSTERS];

/* One sample of host a measuring host b into the table, kept if its round
 * trip is the least between the two. */
static void link_keep(struct clock_best tab[][INI_MAX_CLUSTERS], int a, int b, struct clock_best s)
{
    if (s.rtt_ns < 0 || a == b || a < 0 || b < 0)
        return;
    if (a > b) {     /* b measured a: the other way round, at on b's clock */
        int t = a;
        a = b;
        b = t;
        s.at_ns -= s.offset_ns;
        s.offset_ns = -s.offset_ns;
    }
    struct clock_best *x = &tab[a][b];
    if (x->rtt_ns < 0 || s.rtt_ns < x->rtt_ns)
        *x = s;
}

/* RUN_DIR/ini<id>.clock into the tables; absent or malformed lines are
 * passed over (that INI then measured nothing). */
static void link_read(const char *run_dir, int id, const int *host_of_ini, int n_inis)
{
    char path[4096], line[256];
    snprintf(path, sizeof path, "%s/ini%d.clock", run_dir, id);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        long long v[7];
        if (sscanf(line, "%lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) != 7 ||
            v[0] < 0 || v[0] >= n_inis)
            continue;    /* the header */
        int a = host_of_ini[id], b = host_of_ini[v[0]];
        link_keep(link_start, a, b, (struct clock_best){ v[1], v[2], v[3] });
        link_keep(link_end, a, b, (struct clock_best){ v[4], v[5], v[6] });
    }
    fclose(f);
}

/* Host h's offset to host g over the link in tab (add to h's clock to get
 * g's, at on g's clock); 0, or -1 when none was measured. */
static int link_between(struct clock_best tab[][INI_MAX_CLUSTERS], int h, int g, struct clock_best *out)
{
    if (h == g)
        return -1;
    struct clock_best s = h < g ? tab[h][g] : tab[g][h];
    if (s.rtt_ns < 0)
        return -1;
    if (h < g) {     /* stored as g's clock from h's: turn it round */
        s.at_ns -= s.offset_ns;
        s.offset_ns = -s.offset_ns;
    }
    *out = s;
    return 0;
}

/* Every host's offset to r by the path of least total round trip over the
 * links (a slow link between two hosts goes round by a third: 2.4 ms
 * direct against 28 us by way of another host, measured on the lab):
 * path[h] = { add to h's clock to get r's, the round trips' sum, at on
 * r's clock }, rtt < 0 where no path.  Bellman-Ford over n <= 64 hosts. */
static void link_paths(struct clock_best tab[][INI_MAX_CLUSTERS], int n, int r, struct clock_best *path)
{
    for (int h = 0; h < n; h++)
        clock_best_init(&path[h]);
    path[r] = (struct clock_best){ 0, 0, 0 };
    for (int round = 0, changed = 1; changed && round < n; round++) {
        changed = 0;
        for (int h = 0; h < n; h++)
            for (int g = 0; g < n; g++) {
                struct clock_best x;
                if (path[g].rtt_ns < 0 || link_between(tab, h, g, &x) < 0)
                    continue;
                int64_t rtt = x.rtt_ns + path[g].rtt_ns;
                if (h == r || (path[h].rtt_ns >= 0 && rtt >= path[h].rtt_ns))
                    continue;
                path[h] = (struct clock_best){ x.offset_ns + path[g].offset_ns, rtt, x.at_ns + path[g].offset_ns };
                changed = 1;
            }
    }
}

/* The host with the least round trip over the channel among those with INIs. */
static int pick_reference(const struct clock_entry *e, int n, const int *host_of_ini, int n_inis)
{
    int r = -1;
    for (int i = 0; i < n_inis; i++) {
        int h = host_of_ini[i];
        if (h >= 0 && h < n && e[h].start.rtt_ns >= 0 && (r < 0 || e[h].start.rtt_ns < e[r].start.rtt_ns))
            r = h;
    }
    return r;
}

/* A drift the end's measurement does not resolve (the change from the
 * start within both uncertainties): the end keeps the start's offset,
 * within the start's error and twice the end's of the truth then.  An
 * end measured while the hosts tear down can be noisy (round trips of
 * 0.4-1.7 ms on the lab under load, an offset off by 51 us) where the
 * start's is not (18-37 us), and its noise would be read as drift. */
static void settle_end(struct clock_entry *h)
{
    struct clock_best *s = &h->start, *e = &h->end;
    int64_t us = clock_uncertainty_ns(s), ue = clock_uncertainty_ns(e);
    int64_t change = e->offset_ns - s->offset_ns;
    if (e->rtt_ns < 0 || change > us + ue || -change > us + ue)
        return;
    e->offset_ns = s->offset_ns;
    e->rtt_ns = 2 * (us + 2 * ue);
}

/* Host h on r's clock: the link's offset to r, shifted by r's to the launcher. */
static void put_on_ref(struct clock_entry *h, const struct clock_entry *r, const struct clock_best *ls,
                       const struct clock_best *le)
{
    int64_t shift = r->start.offset_ns;
    h->start = (struct clock_best){ ls->offset_ns + shift, ls->rtt_ns, ls->at_ns + shift };
    if (le)
        h->end = (struct clock_best){ le->offset_ns + shift, le->rtt_ns, le->at_ns + shift };
    else
        clock_best_init(&h->end);
    settle_end(h);
}

int clock_from_inis(const char *run_dir, struct clock_entry *e, int n, const int *host_of_ini, int n_inis,
                    char *note, size_t notelen)
{
    for (int a = 0; a < INI_MAX_CLUSTERS; a++)
        for (int b = 0; b < INI_MAX_CLUSTERS; b++) {
            clock_best_init(&link_start[a][b]);
            clock_best_init(&link_end[a][b]);
        }
    n = n > INI_MAX_CLUSTERS ? INI_MAX_CLUSTERS : n;
    for (int i = 0; i < n_inis; i++)
        link_read(run_dir, i, host_of_ini, n_inis);
    int r = pick_reference(e, n, host_of_ini, n_inis), linked = 0;
    if (r < 0)
        return 0;
    static struct clock_best ps[INI_MAX_CLUSTERS], pe[INI_MAX_CLUSTERS];
    link_paths(link_start, n, r, ps);
    link_paths(link_end, n, r, pe);
    struct clock_entry ref = e[r];
    for (int h = 0; h < n; h++)
        if (h != r && ps[h].rtt_ns >= 0) {
            put_on_ref(&e[h], &ref, &ps[h], pe[h].rtt_ns >= 0 ? &pe[h] : NULL);
            linked++;
        }
    if (!linked)
        return 0;
    int64_t ref_rtt = ref.start.rtt_ns;
    for (int h = 0; h < n; h++)
        if (h != r && ps[h].rtt_ns < 0) {
            e[h].start.rtt_ns += ref_rtt;     /* its error against r: both channels' */
            if (e[h].end.rtt_ns >= 0)
                e[h].end.rtt_ns += ref_rtt;
        }
    /* r itself: the run's clock, exact against itself, shifted once. */
    e[r].start.rtt_ns = 0;
    e[r].end = e[r].start;
    e[r].end.at_ns = ref.end.rtt_ns >= 0 ? ref.end.at_ns : ref.start.at_ns;
    snprintf(note, notelen, "over the INIs' links: %d host%s against host %s, whose offset to the launcher "
             "(+-%lld ns over its channel) shifts every host alike", linked, linked == 1 ? "" : "s", e[r].host,
             (long long)clock_uncertainty_ns(&ref.start));
    return linked;
}
