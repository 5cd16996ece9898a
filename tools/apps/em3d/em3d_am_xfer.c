/*
 * em3d_am_xfer.c - how the message versions move values (em3d_am.h).
 *
 *   get   the reader sends one request (kind, ghost slot, vertex) per ghost
 *         to its owner, at most `window` unanswered; the owner's handler
 *         answers with (kind, slot, value).  The owner's values of that
 *         kind do not change during the half-step (it updates the other
 *         kind), so the answer is the value of the last half-step.
 *   put   after updating its vertices of a kind, the owner sends each new
 *         value to each PE of another cluster that reads it, one message
 *         (kind, slot, value) per value and reader.
 *   bulk  the same values, one message per reader (more when they do not
 *         fit in stack.max_message): (kind, first slot, count) and the
 *         values of the owner's run of the reader's slots, in order.
 * Put and bulk readers know how many values to expect (their ghost lists)
 * and wait for that many before they update; a barrier after every
 * half-step keeps an owner from sending the next values of a kind while
 * a reader still reads the last ones.  Messages carry no order assumption
 * (round-robin and load-aware let them overtake each other).
 */
#include "em3d_am.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "trace_cn.h"

struct get_msg { uint32_t kind, slot, vertex; };
struct value_msg { uint32_t kind, slot; double value; };
struct bulk_hdr { uint32_t kind, first, count, pad; };

int am_send(struct am_run *r, struct ini_pe *pe, int dst, uint16_t handler, const void *buf, uint32_t len,
            uint32_t cause)
{
    struct am_pe *s = &r->pe[ini_pe_local(pe)];
    amt_cause(s, handler, cause);
    if (ini_send(pe, dst, handler, buf, len) != 0) {
        cli_pe_error(s->id, &s->errors, "cannot send to PE %d: %s", dst,
                     errno == EPIPE ? "the INIs stopped" : "bad message");
        return -1;
    }
    s->sent++;
    return 0;
}

int am_wait(struct am_run *r, struct ini_pe *pe, double *since, uint64_t progress, uint64_t *last, const char *what)
{
    struct am_pe *s = &r->pe[ini_pe_local(pe)];
    if (progress != *last) {
        *last = progress;
        *since = em3d_now();
    }
    if (ini_wait(pe, 1000) < 0) {
        cli_pe_error(s->id, &s->errors, "the INIs stopped while %s", what);
        return -1;
    }
    if (em3d_now() - *since > AM_STALL_S) {
        cli_pe_error(s->id, &s->errors, "nothing came for %.0f s while %s", AM_STALL_S, what);
        return -1;
    }
    return 0;
}

/* ---- handlers (on the receiving PE's thread) ---- */

static void on_get(struct ini_pe *pe, int src_pe, const void *data, uint32_t len, void *arg)
{
    struct am_run *r = arg;
    struct am_pe *s = &r->pe[ini_pe_local(pe)];
    struct get_msg m;
    if (len != sizeof m || (memcpy(&m, data, sizeof m), m.kind > 1) || m.vertex >= (uint32_t)r->g->total ||
        em3d_owner(r->g, m.vertex) != s->id) {
        cli_pe_error(s->id, &s->errors, "bad request from PE %d (%u bytes)", src_pe, len);
        return;
    }
    struct amt_act a;
    uint32_t act = amt_begin(r, s, INI_CN_ACT_MSG, src_pe, ini_pe_handling_seq(pe), &a);
    struct value_msg v = { m.kind, m.slot, r->val[m.kind][m.vertex] };
    am_send(r, pe, src_pe, H_VALUE, &v, sizeof v, act);
    amt_end(s, &a);
}

/* A value (or a bulk message's values) of `kind` has come, in action
 * act: its contribution to the fill's join, the last one when the fill
 * has begun and has them all. */
static void value_came(struct am_run *r, struct am_pe *s, int kind, uint32_t act)
{
    int last = s->filling[kind] && s->got[kind] >= (uint64_t)s->gh[kind].n;
    amt_join(s, AMT_JOIN_FILL, amt_fill_key(s, kind), act, last);
    if (last)
        s->fill_done = act;
    if (r->variant == EM3D_GET)
        s->get_cause = act;     /* the next request goes once this answer is in */
}

static void on_value(struct ini_pe *pe, int src_pe, const void *data, uint32_t len, void *arg)
{
    struct am_run *r = arg;
    struct am_pe *s = &r->pe[ini_pe_local(pe)];
    struct value_msg m;
    if (len != sizeof m || (memcpy(&m, data, sizeof m), m.kind > 1) || m.slot >= (uint32_t)s->gh[m.kind].n ||
        em3d_owner(r->g, s->gh[m.kind].vertex[m.slot]) != src_pe) {
        cli_pe_error(s->id, &s->errors, "bad value from PE %d (%u bytes)", src_pe, len);
        return;
    }
    struct amt_act a;
    uint32_t act = amt_begin(r, s, INI_CN_ACT_MSG, src_pe, ini_pe_handling_seq(pe), &a);
    s->gh[m.kind].val[m.slot] = m.value;
    s->got[m.kind]++;
    value_came(r, s, (int)m.kind, act);
    amt_end(s, &a);
}

static void on_bulk(struct ini_pe *pe, int src_pe, const void *data, uint32_t len, void *arg)
{
    struct am_run *r = arg;
    struct am_pe *s = &r->pe[ini_pe_local(pe)];
    struct bulk_hdr h;
    const struct em3d_ghosts *gh = NULL;
    if (len >= sizeof h) {
        memcpy(&h, data, sizeof h);
        gh = h.kind <= 1 ? &s->gh[h.kind] : NULL;
    }
    if (!gh || src_pe < 0 || src_pe >= r->g->prm.n_pes || len != sizeof h + (uint64_t)h.count * sizeof(double) ||
        h.first < (uint32_t)gh->first[src_pe] || h.count > (uint32_t)(gh->first[src_pe + 1] - h.first)) {
        cli_pe_error(s->id, &s->errors, "bad bulk message from PE %d (%u bytes)", src_pe, len);
        return;
    }
    struct amt_act a;
    uint32_t act = amt_begin(r, s, INI_CN_ACT_MSG, src_pe, ini_pe_handling_seq(pe), &a);
    memcpy(&s->gh[h.kind].val[h.first], (const char *)data + sizeof h, (size_t)h.count * sizeof(double));
    s->got[h.kind] += h.count;
    value_came(r, s, (int)h.kind, act);
    amt_end(s, &a);
}

int am_register(struct am_run *r)
{
    uint32_t max = (uint32_t)ini_cn_config(r->cn)->stack.max_message;
    if (max < sizeof(struct bulk_hdr) + sizeof(double)) {
        cli_error("stack.max_message %u: the messages need %zu bytes", max, sizeof(struct bulk_hdr) + sizeof(double));
        return -1;
    }
    r->bulk_values = (max - (uint32_t)sizeof(struct bulk_hdr)) / sizeof(double);
    if (ini_cn_register(r->cn, H_GET, on_get, r) || ini_cn_register(r->cn, H_VALUE, on_value, r) ||
        ini_cn_register(r->cn, H_BULK, on_bulk, r)) {
        cli_error("cannot register the handlers");
        return -1;
    }
    return 0;
}

/* ---- the three ways ---- */

static int fetch(struct am_run *r, struct ini_pe *pe, int kind)
{
    struct am_pe *s = &r->pe[ini_pe_local(pe)];
    const struct em3d_ghosts *gh = &s->gh[kind];
    uint64_t sent = 0, last = UINT64_MAX;
    double since = 0;
    s->got[kind] = 0;
    while (s->got[kind] < (uint64_t)gh->n) {
        if (sent < (uint64_t)gh->n && sent - s->got[kind] < (uint64_t)r->window) {
            struct get_msg m = { (uint32_t)kind, (uint32_t)sent, gh->vertex[sent] };
            if (am_send(r, pe, em3d_owner(r->g, m.vertex), H_GET, &m, sizeof m, s->get_cause) != 0)
                return -1;
            sent++;
            ini_poll(pe);   /* answers and others' requests between sends */
            continue;
        }
        if (am_wait(r, pe, &since, s->got[kind], &last, "waiting for answers") != 0)
            return -1;
    }
    return 0;
}

/* The FILL request's pick-up: the node asks for (get) or waits for (put,
 * bulk) the ghosts of `kind`; its join contribution is the last when
 * they are all in already. */
static uint32_t fill_begin(struct am_run *r, struct am_pe *s, int kind, uint64_t *submit)
{
    uint32_t req = amt_req_begin(r, s, submit);
    struct amt_act a;
    uint32_t act = amt_begin(r, s, INI_CN_ACT_REQ, s->id, req, &a);
    s->filling[kind] = 1;
    s->get_cause = act;
    s->fill_done = 0;
    int last = r->variant != EM3D_GET && s->got[kind] >= (uint64_t)s->gh[kind].n;
    if (r->variant == EM3D_GET && s->gh[kind].n == 0)
        last = 1;
    amt_join(s, AMT_JOIN_FILL, amt_fill_key(s, kind), act, last);
    if (last)
        s->fill_done = act;
    amt_end(s, &a);
    return req;
}

static void fill_end(struct am_pe *s, int kind, uint32_t req, uint64_t submit)
{
    s->filling[kind] = 0;
    amt_req_done(s, req, AMT_FILL, s->fill_done, submit);
    s->fills[kind]++;
}

int am_fill(struct am_run *r, struct ini_pe *pe, int kind)
{
    struct am_pe *s = &r->pe[ini_pe_local(pe)];
    uint64_t submit = 0;
    uint32_t req = fill_begin(r, s, kind, &submit);
    if (r->variant == EM3D_GET) {
        if (fetch(r, pe, kind) != 0)
            return -1;
        fill_end(s, kind, req, submit);
        return 0;
    }
    uint64_t want = (uint64_t)s->gh[kind].n, last = UINT64_MAX;
    double since = 0;
    while (s->got[kind] < want)
        if (am_wait(r, pe, &since, s->got[kind], &last, "waiting for the owners' values") != 0)
            return -1;
    s->got[kind] -= want;   /* the next half-step's start from none */
    fill_end(s, kind, req, submit);
    return 0;
}

/* Bulk: this PE's values for reader q's slots first .. end-1. */
static int send_bulk(struct am_run *r, struct ini_pe *pe, int q, int kind, int first, int end, uint32_t cause)
{
    double buf[(65536 + sizeof(struct bulk_hdr)) / sizeof(double)];
    const struct em3d_ghosts *gh = &r->ghosts[q][kind];
    while (first < end) {
        uint32_t n = (uint32_t)(end - first) < r->bulk_values ? (uint32_t)(end - first) : r->bulk_values;
        struct bulk_hdr h = { (uint32_t)kind, (uint32_t)first, n, 0 };
        memcpy(buf, &h, sizeof h);
        double *vals = buf + sizeof h / sizeof(double);
        for (uint32_t i = 0; i < n; i++)
            vals[i] = r->val[kind][gh->vertex[first + i]];
        if (am_send(r, pe, q, H_BULK, buf, (uint32_t)(sizeof h + n * sizeof(double)), cause) != 0)
            return -1;
        first += (int)n;
    }
    return 0;
}

/* The sends of a PUBLISH request, in its pick-up action. */
static int publish(struct am_run *r, struct ini_pe *pe, int kind, uint32_t cause)
{
    const struct em3d_graph *g = r->g;
    int me = r->pe[ini_pe_local(pe)].id;
    for (int q = 0; q < g->prm.n_pes; q++) {
        if (g->prm.cluster_of[q] == r->cluster)
            continue;
        const struct em3d_ghosts *gh = &r->ghosts[q][kind];
        int first = gh->first[me], end = gh->first[me + 1];
        if (r->variant == EM3D_BULK) {
            if (send_bulk(r, pe, q, kind, first, end, cause) != 0)
                return -1;
            continue;
        }
        for (int slot = first; slot < end; slot++) {
            struct value_msg m = { (uint32_t)kind, (uint32_t)slot, r->val[kind][gh->vertex[slot]] };
            if (am_send(r, pe, q, H_VALUE, &m, sizeof m, cause) != 0)
                return -1;
        }
    }
    return 0;
}

int am_publish(struct am_run *r, struct ini_pe *pe, int kind)
{
    struct am_pe *s = &r->pe[ini_pe_local(pe)];
    uint64_t submit = 0;
    uint32_t req = amt_req_begin(r, s, &submit);
    struct amt_act a;
    uint32_t act = amt_begin(r, s, INI_CN_ACT_REQ, s->id, req, &a);
    int rc = publish(r, pe, kind, act);
    amt_end(s, &a);
    amt_req_done(s, req, AMT_PUBLISH, act, submit);
    return rc;
}
