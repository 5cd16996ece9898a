/*
 * cn_vtime.c - a compute node as an emulated processor (cn_vtime.h).
 *
 * The node's inputs are its rings from the cluster's INIs and the events
 * nodes of its own process post to it (ini_vt_post_local: a message inside
 * the cluster).  A delivered record carries its arrival stamp in its last
 * word (vt_shm.h), which the INI writes once the delivery's event is
 * charged (until then it reads as "never").  The earliest stamp among the
 * rings' next records and the local list's head is the node's next input;
 * records of one ring arrive in stamp order, so a ring's next record is
 * its earliest, and the local list is kept sorted.
 */
#include "cn_vtime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "ini_assert.h"
#include "cn_internal.h"
#include "vt_shm.h"

int cn_vt_attach(struct cn_vt *v, int n_pes_total, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    const char *name = getenv(INI_VT_ENV);
    if (!name || !*name)
        return 0;
    if (ini_vt_costs_from_env(&v->costs, err, errlen) < 0)
        return -1;
    const char *mode = getenv("INI_VT_COMPUTE"), *k = getenv("INI_VT_K");
    if (mode && *mode && strcmp(mode, "declared") && strcmp(mode, "measured")) {
        snprintf(err, errlen, "INI_VT_COMPUTE=%s: expected declared or measured", mode);
        return -1;
    }
    v->compute = mode && !strcmp(mode, "measured") ? CN_VT_MEASURED : CN_VT_DECLARED;
    double kk = 1.0;
    if (k && *k) {
        char *end;
        kk = strtod(k, &end);
        if (*end || !(kk > 0 && kk <= 1e6)) {
            snprintf(err, errlen, "INI_VT_K=%s: expected a factor above 0", k);
            return -1;
        }
    }
    if (!(v->m = ini_vt_shm_attach(name, err, errlen)))
        return -1;
    v->cycles_per_cpu_ns = kk * (double)v->m->hz / 1e9;
    const char *plant = getenv("INI_VT_PLANT_EARLY");
    v->plant_early = plant ? strtoull(plant, NULL, 10) : 0;
    v->n_pes_total = n_pes_total;
    return 0;
}

void cn_vt_group(struct cn_vt *v, const int *pes, int n, int cluster)
{
    for (int k = 0; k < n; k++)
        ini_vt_slot_group(v->m, ini_vt_pe_slot(pes[k]), (uint32_t)cluster + 1);
}

void cn_vt_detach(struct cn_vt *v)
{
    ini_vt_shm_detach(v->m);
    v->m = NULL;
}

void cn_vt_pe_start(struct ini_pe *pe)
{
    struct cn_vt_pe *n = &pe->vt;
    if (n->state != 0)
        return;
    ini_vt_node_start(&n->node, pe->cn->vt.m, ini_vt_pe_slot(pe->id));
    n->state = 1;
    if (pe->cn->vt.compute == CN_VT_MEASURED)
        n->cpu_mark = ini_thread_cpu_ns();
}

void cn_vt_pe_stop(struct ini_pe *pe)
{
    if (pe->vt.state == 2)
        return;
    if (pe->vt.state == 0)
        pe->vt.node = (struct ini_vt_node){ .m = pe->cn->vt.m, .slot = ini_vt_pe_slot(pe->id) };
    ini_vt_node_stop(&pe->vt.node);
    pe->vt.state = 2;
}

/* Cycles the node computed since its last event: what it declared, or
 * its thread's CPU time times K. */
static uint64_t burst_cycles(struct ini_pe *pe)
{
    struct cn_vt_pe *n = &pe->vt;
    uint64_t c = n->declared;
    n->declared = 0;
    if (pe->cn->vt.compute == CN_VT_MEASURED) {
        uint64_t now = ini_thread_cpu_ns();
        c += (uint64_t)((double)(now - n->cpu_mark) * pe->cn->vt.cycles_per_cpu_ns + 0.5);
        n->cpu_mark = now;
    }
    return c;
}

/* ---- the node's inputs (vt_node.h struct ini_vt_inputs) ---- */

static uint64_t ring_stamp(struct ini_pe *pe, int i)
{
    struct ini_rec *rec = ini_ring_peek(&pe->in[i]);
    if (!rec)
        return INI_VT_NEVER;
    return atomic_load_explicit(ini_vt_delivery_stamp(rec->data, rec->len), memory_order_acquire);
}

/* The ring whose next record is the earliest (the lowest index on a tie). */
static uint64_t earliest_ring(struct ini_pe *pe, int *ring)
{
    uint64_t best = INI_VT_NEVER;
    *ring = -1;
    for (int i = 0; i < pe->cn->n_inis; i++) {
        uint64_t s = ring_stamp(pe, i);
        if (s < best) {
            best = s;
            *ring = i;
        }
    }
    return best;
}

/* The earliest of the node's local events (ini_vt_post_local). */
static uint64_t local_stamp(struct ini_pe *pe)
{
    uint64_t next = atomic_load_explicit(&pe->vt.local_next, memory_order_acquire);
    return next ? next - 1 : INI_VT_NEVER;
}

static uint64_t input_earliest(void *ctx)
{
    int ring;
    uint64_t r = earliest_ring(ctx, &ring), l = local_stamp(ctx);
    return l < r ? l : r;
}

/* Takes the head of the node's local events (the turn is held). */
static struct ini_vt_event *local_pop(struct ini_pe *pe)
{
    struct ini_vt_event *ev = pe->vt.local;
    pe->vt.local = ev->next;
    atomic_store_explicit(&pe->vt.local_next, pe->vt.local ? pe->vt.local->at + 1 : 0, memory_order_release);
    ev->next = NULL;
    return ev;
}

/* Runs the earliest input's handler (a ring's record before a local event
 * of the same time); its cycles: what it declared (or its CPU time times
 * K). */
static uint64_t input_serve(void *ctx, uint64_t at)
{
    struct ini_pe *pe = ctx;
    int ring;
    (void)at;
    uint64_t r = earliest_ring(pe, &ring);
    burst_cycles(pe);                    /* what came before is the burst's, already charged */
    if (local_stamp(pe) < r) {
        struct ini_vt_event *ev = local_pop(pe);
        pe->in_handler++;
        ev->fn(pe, ev);
        pe->in_handler--;
    } else {
        uint64_t end;
        struct ini_rec *rec = ini_ring_next(&pe->in[ring], &end);
        cn_handle_record(pe, ring, rec, end);
    }
    pe->vt.served++;
    return burst_cycles(pe);
}

static const struct ini_vt_inputs *inputs_of(struct ini_pe *pe, struct ini_vt_inputs *in)
{
    *in = (struct ini_vt_inputs){ input_earliest, input_serve, pe };
    return in;
}

/* ---- the calls ---- */

int cn_vt_enter(struct ini_pe *pe)
{
    struct ini_vt_inputs in;
    cn_vt_pe_start(pe);
    pe->vt.served = 0;
    if (ini_vt_node_enter(&pe->vt.node, burst_cycles(pe), inputs_of(pe, &in)) < 0)
        return -1;
    return (int)pe->vt.served;
}

int cn_vt_wait(struct ini_pe *pe)
{
    struct ini_vt_inputs in;
    uint64_t before = pe->vt.served;
    if (ini_vt_node_wait(&pe->vt.node, inputs_of(pe, &in)) < 0)
        return -1;
    return (int)(pe->vt.served - before);
}

void cn_vt_leave(struct ini_pe *pe)
{
    ini_vt_node_leave(&pe->vt.node);
    if (pe->cn->vt.compute == CN_VT_MEASURED)
        pe->vt.cpu_mark = ini_thread_cpu_ns();
}

int cn_vt_yield(struct ini_pe *pe, int ini)
{
    struct ini_vt_node *n = &pe->vt.node;
    struct ini_vt_inputs in;
    /* The INI takes no record before its own clock, so the node waits
     * till then.  (It once moved a hand-over's latency plus a cycle at a
     * time: behind an INI busy with 64 KB messages of the thesis's costs,
     * 440,000 cycles each, as many hand-overs a message.) */
    int id = pe->cn->cfg.clusters[pe->cn->cluster].inis[ini];
    uint32_t slot = ini_vt_ini_slot(pe->cn->vt.n_pes_total, id);
    uint64_t busy = atomic_load_explicit(&n->m->slots[slot].clock, memory_order_relaxed);
    uint64_t until = n->clock + (uint64_t)pe->cn->vt.costs.handover + 1;
    return ini_vt_node_until(n, busy > until ? busy : until, inputs_of(pe, &in), !pe->in_handler);
}

uint64_t cn_vt_send_stamp(struct ini_pe *pe)
{
    uint64_t at = pe->vt.node.clock + (uint64_t)pe->cn->vt.costs.handover;
    /* INI_VT_PLANT_EARLY=N (tests): the node's N-th send is stamped one
     * cycle before it was sent, a causality violation the machine must
     * catch and name. */
    if (pe->cn->vt.plant_early && ++pe->vt.sends == pe->cn->vt.plant_early && at > 0)
        at = pe->vt.node.clock - 1;
    return at;
}

int cn_vt_post_send(struct ini_pe *pe, int ini, uint64_t stamp)
{
    int id = pe->cn->cfg.clusters[pe->cn->cluster].inis[ini];
    return ini_vt_post(pe->vt.node.m, pe->vt.node.slot, ini_vt_ini_slot(pe->cn->vt.n_pes_total, id), stamp);
}

/* ---- the public calls (ini_cn.h) ---- */

int ini_pe_hold(struct ini_pe *pe)
{
    if (!pe->cn->vt.m)
        return 0;
    INI_ASSERT(pe->in_handler == 0);
    if (cn_vt_enter(pe) < 0) {
        errno = EPIPE;
        return -1;
    }
    pe->in_handler = 1;
    pe->vt.held = 1;
    return 0;
}

void ini_pe_release(struct ini_pe *pe)
{
    if (!pe->cn->vt.m)
        return;
    INI_ASSERT(pe->in_handler == 1);
    pe->in_handler = 0;
    pe->vt.held = 0;
    cn_vt_leave(pe);
}

void ini_pe_done(struct ini_pe *pe)
{
    if (!pe->cn->vt.m)
        return;
    pe->in_handler = 0;
    pe->vt.held = 0;
    cn_vt_pe_stop(pe);
}

int ini_vt_post_local(struct ini_pe *from, struct ini_pe *to, uint64_t delay, struct ini_vt_event *ev)
{
    struct cn_vt *v = &from->cn->vt;
    if (!v->m || from->in_handler == 0 || to->cn != from->cn) {
        errno = EINVAL;
        return -1;
    }
    if (delay < (uint64_t)v->costs.handover)
        delay = (uint64_t)v->costs.handover;
    ev->at = from->vt.node.clock + delay;
    ev->order = v->local_order++;
    struct ini_vt_event **p = &to->vt.local;
    while (*p && ((*p)->at < ev->at || ((*p)->at == ev->at && (*p)->order < ev->order)))
        p = &(*p)->next;
    ev->next = *p;
    *p = ev;
    atomic_store_explicit(&to->vt.local_next, to->vt.local->at + 1, memory_order_release);
    if (ini_vt_post(v->m, from->vt.node.slot, ini_vt_pe_slot(to->id), ev->at) < 0) {
        errno = EPIPE;
        return -1;
    }
    return 0;
}

void ini_work_cycles(struct ini_pe *pe, uint64_t cycles)
{
    if (!pe->cn->vt.m)
        return;
    /* Holding the turn outside a handler (ini_pe_hold): the work is the
     * node's event, charged now, so that what it sends next leaves after
     * it.  Otherwise it ends the burst or the handler it belongs to. */
    if (pe->vt.held && pe->in_handler == 1)
        pe->vt.node.clock = ini_vt_charge(pe->cn->vt.m, pe->vt.node.slot, cycles);
    else
        pe->vt.declared += cycles;
}

uint64_t ini_pe_vtime(const struct ini_pe *pe)
{
    return pe->cn->vt.m ? pe->vt.node.clock : 0;
}

uint64_t ini_cn_vtime_hz(const struct ini_cn *cn)
{
    return cn->vt.m ? cn->vt.m->hz : 0;
}
