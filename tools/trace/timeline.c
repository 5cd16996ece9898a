/*
 * timeline.c - `ini-trace timeline RUN_DIR -o FILE.json [--from S]
 * [--to S] [--sample N]`: the run as Chrome trace events (the JSON that
 * Perfetto's UI and chrome://tracing open), every host on the run's one
 * clock (run_graph.h).
 *
 * Tracks: one process per cluster; in it a thread track per INI (its
 * services, which never overlap), per compute node's protocol work
 * (handlers and actions; in MGS one protocol thread serves every node of
 * the cluster, so they never overlap either) and per compute thread
 * (compute, then a wait for each blocking request).  A message is
 *
 *   send      async: handed to the INI, until the INI took it (t1)
 *   queue     async: in the sending INI's queue (t1 to its service start)
 *   service   on the sending INI's track (its service start to done)
 *   wire      async: from the sending INI to the receiving INI's queue
 *   queue     async: in the receiving INI's queue
 *   service   on the receiving INI's track
 *   receive   async: in the node's ring until its handler ran
 *   handler   on the node's protocol track
 *
 * joined by one flow (trace-event phases s, t, f) from the action that
 * sent it, through both services and the handler, to the action that
 * processed it (left out, and counted on stdout, when the CPUs' clocks
 * put one of its points before the one it follows).  Times are
 * microseconds (ts, dur) with ns resolution.
 * --from/--to keep what overlaps the window (seconds on the run's clock);
 * --sample N keeps every Nth message (and the INI services of those), so
 * a large run stays openable.  Without them, each INI track has one
 * service slice per record of its trace, so the slices' count and their
 * union equal `ini-trace report`'s messages and busy time
 * (tools/inimeasure/check_timeline.py checks both).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "mgs_internal.h"      /* the names of MGS's message types and request kinds */
#include "ini_cn.h"           /* the library's request kinds and barrier handler */
#include "report.h"
#include "run_graph.h"

#define PID(c) ((c) + 1)
#define TID_INI(i) (100 + (i))
#define TID_PE(pe) (1000 + (pe))
#define TID_THREAD(t) (3000 + (t))

struct tl {
    FILE *o;
    const struct run_graph *g;
    double from, to;            /* ns window */
    int sample;
    int first;                  /* no event written yet */
    int *ini_cluster;           /* per INI file: its cluster */
    int flows_out_of_order;     /* flows left out: clock skew put a point before the one it follows */
    double worst_skew_ns;       /* the most a point lay before its predecessor */
    bool library;               /* the library wrote the nodes' records (library_run) */
};

/* Names of message types and request kinds: MGS's, or for a run whose
 * records the compute-node library wrote (INI_CN_HDR_LIBRARY, any
 * program: ini_cn.h, "Any program traced") its handler ids and request
 * kinds.  The barrier's are the library's in every run. */
static bool library_run(const struct run_graph *g)
{
    for (int f = 0; f < g->cn->n_files; f++)
        if (g->cn->files[f].info.flags & INI_CN_HDR_LIBRARY)
            return true;
    return false;
}

static const char *req_name(const struct tl *t, int kind)
{
    switch (kind) {
    case INI_CN_REQ_WAIT: return "poll/wait";
    case INI_CN_REQ_SEND: return "sends";
    case INI_CN_REQ_MARK: return "mark";
    default: return t->library && kind == INI_CN_REQ_BARRIER ? "barrier" : mgs_req_name(kind);
    }
}

/* buf: at least 16 bytes */
static const char *type_name(const struct tl *t, int type, char *buf)
{
    if (!t->library)
        return mgs_msg_name(type);
    if (type == INI_CN_BARRIER_HANDLER)
        return "barrier";
    snprintf(buf, 16, "h%d", type);
    return buf;
}

static bool in_window(const struct tl *t, double a, double b)
{
    return b >= t->from && a <= t->to;
}

static void sep(struct tl *t)
{
    fputs(t->first ? "\n" : ",\n", t->o);
    t->first = 0;
}

static void meta(struct tl *t, const char *what, int pid, int tid, const char *name, int sort)
{
    sep(t);
    fprintf(t->o, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s\"}}", what, pid, tid,
            name);
    sep(t);
    fprintf(t->o, "{\"ph\":\"M\",\"name\":\"%s_sort_index\",\"pid\":%d,\"tid\":%d,\"args\":{\"sort_index\":%d}}",
            what[0] == 'p' ? "process" : "thread", pid, tid, sort);
}

static void slice(struct tl *t, int pid, int tid, const char *name, const char *cat, double a, double b,
                  int msg)
{
    if (!in_window(t, a, b) || b < a)
        return;
    sep(t);
    fprintf(t->o, "{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f", name,
            cat, pid, tid, a / 1e3, (b - a) / 1e3);
    if (msg >= 0)
        fprintf(t->o, ",\"args\":{\"msg\":%d}", msg);
    fputs("}", t->o);
}

/* An async slice (overlaps others of its kind): b and e with an id. */
static void async(struct tl *t, int pid, const char *name, double a, double b, int msg)
{
    if (!in_window(t, a, b) || b < a)
        return;
    sep(t);
    fprintf(t->o, "{\"ph\":\"b\",\"name\":\"%s\",\"cat\":\"msg\",\"id\":\"0x%x\",\"pid\":%d,\"tid\":0,\"ts\":%.3f}",
            name, (unsigned)msg, pid, a / 1e3);
    sep(t);
    fprintf(t->o, "{\"ph\":\"e\",\"name\":\"%s\",\"cat\":\"msg\",\"id\":\"0x%x\",\"pid\":%d,\"tid\":0,\"ts\":%.3f}",
            name, (unsigned)msg, pid, b / 1e3);
}

/* A flow point inside a slice that starts at ts (1 ns in, so that it
 * binds to that slice). */
static void flow(struct tl *t, char ph, int pid, int tid, double ts, int msg)
{
    sep(t);
    fprintf(t->o, "{\"ph\":\"%c\",\"name\":\"message\",\"cat\":\"flow\",\"id\":%d,\"pid\":%d,\"tid\":%d,\"ts\":%.3f%s}",
            ph, msg, pid, tid, (ts + 1) / 1e3, ph == 'f' ? ",\"bp\":\"e\"" : "");
}

static int ini_global(const struct tl *t, int file)
{
    return t->g->ini->files[file].info.ini_id;
}

struct flow_point {
    char ph;                    /* s, t or f */
    int pid, tid;
    double ts;                  /* ns */
};

/* One message's slices and its flow. */
static void message(struct tl *t, int k)
{
    const struct run_graph *g = t->g;
    const struct rg_msg *m = &g->msgs[k];
    char name[64], tbuf[16];
    const char *ty = type_name(t, m->type, tbuf);
    int src = PID(m->src_cluster), dst = m->dst_cluster >= 0 ? PID(m->dst_cluster) : src;
    double last = m->send;
    if (m->out_file >= 0) {
        const struct rg_ini *o = &g->inis[m->out_file];
        int tid = TID_INI(ini_global(t, m->out_file));
        if (!isnan(m->send))
            async(t, src, "send", m->send, o->t1[m->out_i], k);
        async(t, src, "queue", o->t1[m->out_i], o->s[m->out_i], k);
        snprintf(name, sizeof name, "%s %s", ty, m->in_file >= 0 ? "out" : "local");
        slice(t, src, tid, name, "service", o->s[m->out_i], o->done[m->out_i], k);
        last = o->done[m->out_i];
    }
    if (m->in_file >= 0) {
        const struct rg_ini *in = &g->inis[m->in_file];
        int tid = TID_INI(ini_global(t, m->in_file));
        async(t, dst, "wire", last, in->t1[m->in_i], k);
        async(t, dst, "queue", in->t1[m->in_i], in->s[m->in_i], k);
        snprintf(name, sizeof name, "%s in", ty);
        slice(t, dst, tid, name, "service", in->s[m->in_i], in->done[m->in_i], k);
        last = in->done[m->in_i];
    }
    if (m->recv >= 0) {
        const struct rg_recv *r = &g->recvs[m->recv];
        async(t, dst, "receive", last, r->t0, k);
        snprintf(name, sizeof name, "handler %s", ty);
        slice(t, dst, TID_PE(r->pe), name, "handler", r->t0, r->t1, k);
    }
    /* the flow, when all of it is in the window */
    if (m->cause < 0 || m->action < 0 || isnan(m->send) || m->send < t->from || g->actions[m->action].t0 > t->to)
        return;
    struct flow_point pt[5];
    int n = 0;
    pt[n++] = (struct flow_point){ 's', src, TID_PE(g->actions[m->cause].pe), m->send - 1 };
    if (m->out_file >= 0)
        pt[n++] = (struct flow_point){ 't', src, TID_INI(ini_global(t, m->out_file)), g->inis[m->out_file].s[m->out_i] };
    if (m->in_file >= 0)
        pt[n++] = (struct flow_point){ 't', dst, TID_INI(ini_global(t, m->in_file)), g->inis[m->in_file].s[m->in_i] };
    if (m->recv >= 0)
        pt[n++] = (struct flow_point){ 't', dst, TID_PE(g->recvs[m->recv].pe), g->recvs[m->recv].t0 };
    pt[n++] = (struct flow_point){ 'f', dst, TID_PE(g->actions[m->action].pe), g->actions[m->action].t0 };
    /* Each point is stamped by the TSC of the CPU its thread ran on, and
     * this machine's virtual CPUs' TSCs differ by up to microseconds: a
     * thread that moved between its handler's start and its action's can
     * put the action first.  A flow whose points go backwards is left out
     * (and counted) rather than drawn as an arrow back in time. */
    for (int i = 1; i < n; i++)
        if (pt[i].ts < pt[i - 1].ts) {
            t->flows_out_of_order++;
            t->worst_skew_ns = fmax(t->worst_skew_ns, pt[i - 1].ts - pt[i].ts);
            return;
        }
    for (int i = 0; i < n; i++)
        flow(t, pt[i].ph, pt[i].pid, pt[i].tid, pt[i].ts, k);
}

static void tracks(struct tl *t)
{
    const struct run_graph *g = t->g;
    char name[128];
    for (int c = 0; c < 64; c++) {
        int here = 0;
        for (int f = 0; f < g->ini->n_files; f++)
            here |= g->ini->files[f].info.cluster_id == c;
        if (!here)
            continue;
        snprintf(name, sizeof name, "cluster %d", c);
        meta(t, "process_name", PID(c), 0, name, c);
        for (int f = 0; f < g->ini->n_files; f++)
            if (g->ini->files[f].info.cluster_id == c) {
                snprintf(name, sizeof name, "INI %d", ini_global(t, f));
                meta(t, "thread_name", PID(c), TID_INI(ini_global(t, f)), name, ini_global(t, f));
            }
        for (int pe = 0; pe < g->max_pe && pe < 4096; pe++)
            if (g->pe_cluster[pe] == c) {
                snprintf(name, sizeof name, "PE %d protocol", pe);
                meta(t, "thread_name", PID(c), TID_PE(pe), name, 1000 + pe);
            }
    }
}

/* Where each request's wait ends on its thread's track: its completion,
 * or the thread's return if that came first.  The completion is stamped
 * by the protocol thread before it releases the compute thread, but on
 * another core: TSC skew between this machine's virtual CPUs has put the
 * return up to tens of us before it, and slices of one track must nest.
 * NULL when out of memory (the completion is used). */
/* Requests in order of thread, then submission; arg: the graph. */
static int by_thread(const void *a, const void *b, void *arg)
{
    const struct run_graph *g = arg;
    const struct rg_req *x = &g->reqs[*(const int *)a], *y = &g->reqs[*(const int *)b];
    int c;
    if ((c = rg_cmp_int(x->cluster, y->cluster)) || (c = rg_cmp_int(x->thread, y->thread)))
        return c;
    return rg_cmp_double(x->submit, y->submit);
}

static double *wait_ends(const struct run_graph *g)
{
    size_t n = (size_t)(g->n_reqs ? g->n_reqs : 1);
    double *end = malloc(n * sizeof(*end));
    int *order = malloc(n * sizeof(*order));
    if (!end || !order) {
        free(end);
        free(order);
        return NULL;
    }
    for (int q = 0; q < g->n_reqs; q++) {
        end[q] = g->reqs[q].complete;
        order[q] = q;
    }
    qsort_r(order, (size_t)g->n_reqs, sizeof(*order), by_thread, (void *)g);
    for (int k = 1; k < g->n_reqs; k++) {
        const struct rg_req *p = &g->reqs[order[k - 1]], *r = &g->reqs[order[k]];
        if (p->cluster == r->cluster && p->thread == r->thread && !isnan(r->resumed) && r->resumed < end[order[k - 1]])
            end[order[k - 1]] = fmax(r->resumed, p->submit);
    }
    free(order);
    return end;
}

/* The compute threads: compute, then the wait of each request. */
static void threads(struct tl *t)
{
    const struct run_graph *g = t->g;
    bool *named = calloc(4096, 1);
    double *end = wait_ends(g);
    char name[128];
    for (int q = 0; q < g->n_reqs; q++) {
        const struct rg_req *r = &g->reqs[q];
        int th = r->thread < 0 ? 4095 : r->thread % 4095, pid = PID(r->cluster), tid = TID_THREAD(th);
        if (named && !named[th]) {
            named[th] = true;
            if (r->thread < 0)
                snprintf(name, sizeof name, "main thread (cluster %d)", r->cluster);
            else
                snprintf(name, sizeof name, "thread %d", r->thread);
            meta(t, "thread_name", pid, tid, name, 3000 + th);
        }
        /* from its return (a few ns of TSC skew between cores can put
         * that before the completion of what it waited for) */
        double from = r->resumed;
        if (r->pred >= 0 && g->reqs[r->pred].thread == r->thread)
            from = fmax(from, g->reqs[r->pred].complete);
        if (!isnan(r->resumed))
            slice(t, pid, tid, "compute", "compute", from, r->submit, -1);
        snprintf(name, sizeof name, "wait: %s", req_name(t, r->kind));
        slice(t, pid, tid, name, "wait", r->submit, end ? end[q] : r->complete, -1);
    }
    free(end);
    free(named);
}

static void actions(struct tl *t)
{
    const struct run_graph *g = t->g;
    char name[128], tbuf[16];
    for (int a = 0; a < g->n_actions; a++) {
        const struct rg_action *x = &g->actions[a];
        if (x->kind == INI_CN_ACT_REQ)
            snprintf(name, sizeof name, "request %s", x->req >= 0 ? req_name(t, g->reqs[x->req].kind) : "?");
        else
            snprintf(name, sizeof name, "on %s", x->msg >= 0 ? type_name(t, g->msgs[x->msg].type, tbuf) : "?");
        slice(t, PID(x->cluster), TID_PE(x->pe), name, "action", x->t0, x->t1, -1);
    }
}

/* Services of INI records no compute node's trace names (none in a
 * complete run): still busy time, so they are drawn. */
static void unmatched(struct tl *t)
{
    const struct run_graph *g = t->g;
    for (int f = 0; f < g->ini->n_files; f++)
        for (uint64_t i = 0; i < g->ini->files[f].n; i++)
            if (g->inis[f].msg[i] < 0)
                slice(t, PID(g->ini->files[f].info.cluster_id), TID_INI(ini_global(t, f)), "unnamed", "service",
                      g->inis[f].s[i], g->inis[f].done[i], -1);
}

int cmd_timeline(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    double from = -INFINITY, to = INFINITY;
    int sample = 1;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (cli_common_flag(a))
            continue;
        if (!strcmp(a, "-o"))
            out = cli_value(argc, argv, &i);
        else if (!strcmp(a, "--from"))
            from = cli_parse_double(a, cli_value(argc, argv, &i), 0, 1e6) * 1e9;
        else if (!strcmp(a, "--to"))
            to = cli_parse_double(a, cli_value(argc, argv, &i), 0, 1e6) * 1e9;
        else if (!strcmp(a, "--sample"))
            sample = (int)cli_parse_long(a, cli_value(argc, argv, &i), 1, 1000000);
        else
            dir = cmd_operand(a, dir);
    }
    if (dir && !out)
        cli_bad_arg("timeline: no output file given (-o FILE.json)");
    if (to <= from)
        cli_bad_arg("--to: the window ends before it starts");
    struct run_files rf;
    cmd_load(&rf, dir);
    FILE *o = fopen(out, "w");
    if (!o) {
        run_files_free(&rf);
        cli_bad_arg("%s: %s", out, strerror(errno));
    }
    struct tl t = { .o = o, .g = &rf.g, .from = from, .to = to, .sample = sample, .first = 1, .library = library_run(&rf.g) };
    fprintf(o, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"run\":");
    report_json_str(o, dir);
    fprintf(o, ",\"clock\":\"us since the run's first anchor, every host on the launcher's clock (clocks.tsv)\","
               "\"sample\":%d,\"ini_ns_per_cycle\":{", sample);
    for (int f = 0; f < rf.ini.n_files; f++)
        fprintf(o, "%s\"%d\":%.12g", f ? "," : "", rf.ini.files[f].info.ini_id, rf.g.inis[f].ns_per_tsc);
    fprintf(o, "}},\n\"traceEvents\":[");
    tracks(&t);
    threads(&t);
    actions(&t);
    unmatched(&t);
    for (int k = 0; k < rf.g.n_msgs; k += sample)
        message(&t, k);
    fprintf(o, "\n]}\n");
    int bad = ferror(o) | (fclose(o) != 0);
    int n_msgs = rf.g.n_msgs;
    if (bad) {
        run_files_free(&rf);
        cli_error("%s: write error", out);
        return 1;
    }
    cmd_clock_note(stdout, &rf, "the shortest wire span it draws between hosts", rg_wire_between_hosts(&rf.g).min_ns);
    run_files_free(&rf);
    printf("ini-trace: wrote %s: %d messages%s\n", out, (n_msgs + sample - 1) / sample,
           sample > 1 ? " (sampled)" : "");
    if (t.flows_out_of_order)
        printf("ini-trace: %d message(s) drawn without their flow: a point stamped up to %.3f us before the one it "
               "follows (the CPUs' clocks differ)\n", t.flows_out_of_order, t.worst_skew_ns / 1e3);
    return 0;
}
