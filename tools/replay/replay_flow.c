/*
 * replay_flow.c - what the replay takes from an INI's loop beyond the
 * messages' own services (replay_internal.h): the transport's window and
 * its acks, and the cost of a turn itself.  The rules it shares with the
 * daemon and the stack are replay_rules.h's.
 *
 * Both come from the run's counters (ini<ID>.counters.json beside each
 * trace, written by inid when it stops), not from the trace: the window
 * and ACK timer as configured, the busy time and the turns that did work.
 * A run whose counters lack them (written before they were recorded) is
 * replayed without either, as before.
 *
 * The window, as stack/swp*.c keeps it: a connection (one sending INI to
 * one receiving INI) has at most `window` slots unacknowledged (a message
 * takes one, or its segments); a message that finds it full waits, and
 * so does every later message for that connection (inid_loop.c's stall
 * list), while others go on; the waiting ones are tried again at the
 * start of each turn.  A compute node's records stay in its ring until
 * acknowledged, and the INI takes none more than INID_RING_INFLIGHT past
 * the oldest it holds (inid_loop.c poll_pes): a node whose messages wait
 * for one full window holds back its messages to every other INI too.
 * The receiver acknowledges at once when half a window waits, on its ACK
 * timer otherwise, or on its own next message to
 * the sender (piggy-backed); an ack leaves when its turn ends (a turn
 * without O sends what it made then) and its slots come free when the
 * sender's loop takes the frame.
 *
 * A turn's own cost: the busy time of the run's INI that no message's
 * service covers (polling the rings and ports, acks, timers, the
 * dilation of all that), divided by the turns that did work.  Without it
 * the replay's INIs are as busy as their services only: in a uniform
 * dilation run of EM3D's put, half of the INIs' busy time.
 */
#include "replay_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "am_hdr.h"
#include "file_util.h"
#include "replay_rules.h"

/* ---- the run's counters ---- */

/* A counters file read whole: its text and its name for messages. */
struct counters {
    char *text;
    char shown[TRACE_SHOWN_LEN];
};

/* The counters file beside trace file f, "<dir>/ini<ID>.counters.json",
 * read whole (the groups read come last) into c: 1, or 0 when there is
 * none (a run from before inid wrote them, or a trace copied alone), or -1
 * with the reason in err when it is there but cannot be read (a FIFO, too
 * large, unreadable) or is not one JSON object (cut short, garbage). */
static int counters_read(const struct trace_file *f, struct counters *c, char *err, size_t errlen)
{
    char path[sizeof(f->path) + 16], why[128];
    size_t n = strlen(f->path);
    c->text = NULL;
    if (n < 6 || strcmp(f->path + n - 6, ".trace") != 0)
        return 0;
    snprintf(path, sizeof path, "%.*s.counters.json", (int)(n - 6), f->path);
    if (access(path, F_OK) != 0)
        return 0;
    ini_path_for_message(path, c->shown, sizeof c->shown);
    size_t len;
    c->text = ini_read_regular(path, 1 << 26, &len, why, sizeof why);
    if (!c->text)
        return ini_fail(err, errlen, "%s: %s", c->shown, why);
    /* inid writes one JSON object; a file cut short or replaced by
     * anything else is damaged, not absent: say so rather than replay
     * without it. */
    while (len > 0 && strchr(" \t\r\n", c->text[len - 1]))
        len--;
    size_t lead = strspn(c->text, " \t\r\n");
    if (lead >= len || c->text[lead] != '{' || c->text[len - 1] != '}')
        return ini_fail(err, errlen, "%s: damaged: not one JSON object (cut short, or not an INI's counters file)",
                        c->shown);
    return 1;
}

/* The number at "key" in the top-level object "group" of counters c
 * (ini/daemon/inid_loop.c writes one group per line at two spaces' indent), which
 * must lie in [lo, hi]: 1 with it in *v, 0 when the file has no such
 * counter, -1 with err naming the file and the counter when its value is
 * not a number in that range (a damaged or hand-edited file must not set
 * the replay's window or costs to nonsense). */
static int counter_get(const struct counters *c, const char *group, const char *key, double lo, double hi,
                       double *v, char *err, size_t errlen)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\n  \"%s\": {", group);
    const char *g = strstr(c->text, pat);
    if (!g)
        return 0;
    g += strlen(pat);
    const char *end = strchr(g, '}');
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *k = strstr(g, pat);
    if (!k || !end || k > end)
        return 0;
    k += strlen(pat);
    char *after;
    *v = strtod(k, &after);
    if (after == k || !(*v >= lo && *v <= hi))
        return ini_fail(err, errlen, "%s: %s.%s: '%.*s' is not a number in [%g, %g]", c->shown, group, key,
                        (int)strcspn(k, ",}\n"), k, lo, hi);
    return 1;
}

/* The window, ACK timer and segment size in one INI's counters: 1, 0 when
 * absent, -1 on a bad one. */
static int flow_of_ini(const struct counters *c, double *w, double *ack_us, double *seg, char *err, size_t errlen)
{
    int rc = counter_get(c, "stack", "window", 1, REPLAY_WINDOW_LIMIT, w, err, errlen);
    if (rc == 1)
        rc = counter_get(c, "stack", "ack_timeout_us", 0, 1e9, ack_us, err, errlen);
    if (rc == 1)
        rc = counter_get(c, "stack", "segment_bytes", 0, 1 << 20, seg, err, errlen);
    return rc;
}

/* Its busy cycles and the turns that did work (the dilation's turns in a
 * run from before work_turns): 1 when both are there and some turn did
 * work, 0 when not, -1 on a bad one. */
static int turns_of_ini(const struct counters *c, double *busy, double *turns, char *err, size_t errlen)
{
    int rc = counter_get(c, "busy", "cycles", 0, 1e19, busy, err, errlen);
    if (rc != 1)
        return rc;
    rc = counter_get(c, "loop", "work_turns", 0, 1e18, turns, err, errlen);
    if (rc == 0)
        rc = counter_get(c, "dilation", "turns", 0, 1e18, turns, err, errlen);
    return rc == 1 ? *turns > 0 : rc;      /* no turn that did work: no cost to spread */
}

/* A virtual-time INI's passes' own cycles and its work turns: 1 (both 0
 * when its counters predate them), -1 on a bad one. */
static int passes_of_ini(const struct counters *c, double *pass, double *turns, char *err, size_t errlen)
{
    int rc = counter_get(c, "busy", "pass_cycles", 0, 1e19, pass, err, errlen);
    if (rc == 1)
        rc = counter_get(c, "loop", "work_turns", 0, 1e18, turns, err, errlen);
    if (rc == 0)
        *pass = *turns = 0;
    return rc < 0 ? -1 : 1;
}

int replay_flow_setup(struct replay *r, char *err, size_t errlen)
{
    const struct run_graph *g = r->g;
    double *cost = calloc((size_t)r->n_clusters + 1, sizeof(double));
    int *n_cost = calloc((size_t)r->n_clusters + 1, sizeof(int)), window = 0, rc = 0;
    double seg = 0;             /* a segment's bytes of message, 0: messages whole */
    if (!cost || !n_cost)
        rc = ini_fail(err, errlen, "out of memory");
    for (int f = 0; rc == 0 && f < g->ini->n_files; f++) {
        const struct trace_file *tf = &g->ini->files[f];
        struct counters c;
        double w = 0, ack_us = 0, s = 0, busy = 0, turns = 0;
        int found = counters_read(tf, &c, err, errlen);
        int flow = found == 1 ? flow_of_ini(&c, &w, &ack_us, &s, err, errlen) : 0;
        /* In virtual time a turn's own cost is the cost model's per-pass
         * charge, which the counters give apart (busy.pass_cycles over the
         * work turns; absent before 2026-12-03 and with a set whose
         * per_pass is 0: the cost is known, 0). */
        int virt = tf->info.clock == INI_TRACE_CLOCK_VIRTUAL;
        double pass = 0;
        int cost_known = virt ? (found == 1 ? passes_of_ini(&c, &pass, &turns, err, errlen) : 1)
                         : found == 1 && flow >= 0 ? turns_of_ini(&c, &busy, &turns, err, errlen) : 0;
        if (flow == 1) {
            window = (int)w;
            seg = s;
            r->ack_timeout = ack_us * 1e3;
        }
        if (cost_known == 1) {
            double svc = 0;
            for (uint64_t i = 0; !virt && i < tf->n; i++)      /* virtual time needs no service sum */
                svc += g->inis[f].done[i] - g->inis[f].s[i];
            cost[tf->info.cluster_id] += virt ? (turns > 0 ? pass * 1e9 / (double)tf->info.tsc_hz / turns : 0)
                                              : fmax(busy * 1e9 / (double)tf->info.tsc_hz - svc, 0) / turns;
            n_cost[tf->info.cluster_id]++;
        }
        rc = found < 0 || flow < 0 || cost_known < 0 ? -1 : 0;
        free(c.text);
    }
    if (rc < 0) {
        free(cost);
        free(n_cost);
        return -1;
    }
    double sum = 0;
    int n = 0;
    for (int i = 0; i < r->n_inis; i++) {
        int c = r->inis[i].cluster;
        r->inis[i].turn_cost = n_cost[c] ? cost[c] / n_cost[c] * r->p.service_scale : 0;
        sum += r->inis[i].turn_cost;
        n += n_cost[c] > 0;
    }
    r->res->turn_cost_ns = n ? sum / n : NAN;
    free(cost);
    free(n_cost);
    r->window = window;
    r->res->window = window;
    r->turn_out = malloc(((size_t)g->n_msgs + 1) * sizeof(int));
    if (!r->turn_out)
        return ini_fail(err, errlen, "out of memory");
    if (window == 0)
        return 0;
    r->conns = calloc((size_t)r->n_inis * (size_t)r->n_inis, sizeof(*r->conns));
    r->rings = calloc((size_t)r->n_inis * (size_t)g->max_pe + 1, sizeof(*r->rings));
    if (!r->conns || !r->rings)
        return ini_fail(err, errlen, "out of memory");
    for (int m = 0; m < g->n_msgs; m++) {
        uint32_t len = g->msgs[m].len + (uint32_t)sizeof(struct ini_am_hdr);
        r->ms[m].slots = replay_window_cost((uint32_t)seg, len);
        if (r->ms[m].slots > window)
            r->ms[m].slots = window;
    }
    return 0;
}

void replay_flow_free(struct replay *r)
{
    for (int k = 0; r->conns && k < r->n_inis * r->n_inis; k++) {
        free(r->conns[k].stall.v);
        free(r->conns[k].sent.v);
    }
    for (int k = 0; r->rings && k < r->n_inis * r->g->max_pe; k++)
        free(r->rings[k].q.v);
    free(r->conns);
    free(r->rings);
    free(r->acks);
    free(r->turn_out);
}

/* ---- the compute nodes' rings ---- */

static struct ring_sim *ring_of(struct replay *r, int msg)
{
    return &r->rings[r->ms[msg].out_ini * r->g->max_pe + r->g->msgs[msg].src_pe];
}

int replay_flow_submit(struct replay *r, int msg, double now)
{
    if (!r->window)
        return sim_take(r, msg, now);
    struct ring_sim *q = ring_of(r, msg);
    if (fifo_push(&q->q, msg) < 0)
        return -1;
    if (q->taken != q->q.tail - 1 || q->taken - q->q.head >= REPLAY_RING_INFLIGHT)
        return 0;                               /* behind what the INI may not take yet */
    q->taken++;
    return sim_take(r, msg, now);
}

int replay_flow_release(struct replay *r, int msg, double now)
{
    if (!r->window)
        return 0;
    struct ring_sim *q = ring_of(r, msg);
    r->ms[msg].released = true;
    while (q->q.head != q->taken && r->ms[fifo_at(&q->q, q->q.head)].released)
        q->q.head++;
    int rc = 0;
    while (rc == 0 && q->taken != q->q.tail && q->taken - q->q.head < REPLAY_RING_INFLIGHT)
        rc = sim_take(r, fifo_at(&q->q, q->taken++), now);
    return rc;
}

/* ---- the window ---- */

static int new_ack(struct replay *r, int conn, int slots)
{
    struct ack_sim *a = replay_grow(r->acks, (size_t)r->n_acks, &r->cap_acks, sizeof(*a), 1024);
    if (!a)
        return -1;
    r->acks = a;
    r->acks[r->n_acks] = (struct ack_sim){ conn, slots };
    return r->n_acks++;
}

int replay_flow_admit(struct replay *r, int msg, bool retry)
{
    struct m_sim *ms = &r->ms[msg];
    ms->piggy = -1;
    if (!r->window)
        return 1;
    struct conn_sim *c = &r->conns[ms->out_ini * r->n_inis + ms->in_ini];
    if ((!fifo_empty(&c->stall) && !retry) || c->in_flight + ms->slots > r->window)
        return fifo_push(&c->stall, msg) < 0 ? -1 : 0;
    c->in_flight += ms->slots;
    if (fifo_push(&c->sent, msg) < 0)
        return -1;
    /* What the receiver has of ours unacknowledged rides along. */
    struct conn_sim *back = &r->conns[ms->in_ini * r->n_inis + ms->out_ini];
    if (back->unacked) {
        ms->piggy = new_ack(r, ms->in_ini * r->n_inis + ms->out_ini, back->unacked);
        back->unacked = 0;
        if (ms->piggy < 0)
            return -1;
    }
    return 1;
}

/* The first waiting message of connection c, if the window has room. */
static int stalled_fits(const struct replay *r, const struct conn_sim *c)
{
    if (fifo_empty(&c->stall))
        return -1;
    int msg = fifo_at(&c->stall, c->stall.head);
    return c->in_flight + r->ms[msg].slots <= r->window ? msg : -1;
}

int replay_flow_next_stalled(struct replay *r, int ini)
{
    for (int k = 0; r->window && k < r->n_inis; k++) {
        struct conn_sim *c = &r->conns[ini * r->n_inis + k];
        int msg = stalled_fits(r, c);
        if (msg >= 0) {
            c->stall.head++;
            return msg;
        }
    }
    return -1;
}

bool replay_flow_stalled_ready(const struct replay *r, int ini)
{
    for (int k = 0; r->window && k < r->n_inis; k++)
        if (stalled_fits(r, &r->conns[ini * r->n_inis + k]) >= 0)
            return true;
    return false;
}

/* ---- acks ---- */

/* When an ack made now at INI `ini` leaves: at once, or when the turn it
 * was made in ends (a turn without O, or the timer's, taken at the turn). */
static double ack_leaves(const struct replay *r, int ini, double now)
{
    const struct ini_sim *x = &r->inis[ini];
    return x->busy ? fmax(now, x->until) : now;
}

static int bare_ack(struct replay *r, int conn, double now)
{
    struct conn_sim *c = &r->conns[conn];
    int k = new_ack(r, conn, c->unacked);
    c->unacked = 0;
    return k < 0 ? -1 : sim_push(r, ack_leaves(r, conn % r->n_inis, now) + r->wire, EV_ACK_AVAIL, k);
}

int replay_flow_delivered(struct replay *r, int msg, double now)
{
    if (!r->window)
        return 0;
    struct m_sim *ms = &r->ms[msg];
    if (ms->piggy >= 0 && replay_flow_ack_taken(r, ms->piggy, now) < 0)
        return -1;
    int conn = ms->out_ini * r->n_inis + ms->in_ini;
    struct conn_sim *c = &r->conns[conn];
    c->unacked += ms->slots;
    if (c->unacked >= replay_ack_threshold(r->window))
        return bare_ack(r, conn, now);
    if (c->ack_timer)
        return 0;
    c->ack_timer = true;
    return sim_push(r, now + r->ack_timeout, EV_ACK_TIMER, conn);
}

int replay_flow_ack_timer(struct replay *r, int conn, double now)
{
    struct conn_sim *c = &r->conns[conn];
    c->ack_timer = false;
    return c->unacked ? bare_ack(r, conn, now) : 0;
}

/* An ack taken by the sending INI: its slots free, and the messages all
 * of whose slots it covers given back to their rings. */
int replay_flow_ack_taken(struct replay *r, int ack, double now)
{
    struct conn_sim *c = &r->conns[r->acks[ack].conn];
    int left = r->acks[ack].slots, rc = 0;
    c->in_flight = left > c->in_flight ? 0 : c->in_flight - left;
    while (rc == 0 && left > 0 && !fifo_empty(&c->sent)) {
        int msg = fifo_at(&c->sent, c->sent.head), need = r->ms[msg].slots - c->sent_acked;
        if (need > left) {
            c->sent_acked += left;
            break;
        }
        left -= need;
        c->sent_acked = 0;
        c->sent.head++;
        rc = replay_flow_release(r, msg, now);
    }
    return rc;
}
