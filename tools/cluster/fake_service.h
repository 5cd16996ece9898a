/*
 * fake_service.h - the INI service of cluster-fake-inid (the forwarding
 * stand-in) for the ablation of the calibrated mode (docs/experiments.md,
 * "The stack as the INI's service"): the same O server as inid's knob
 * stage (ini/daemon/inid_knobs.h, the virtual clock, O fixed or exponential,
 * asleep or spinning) in front of a forwarder with no network stack, and
 * the same per-message trace (ini/trace/trace.h), so that ini-trace report and
 * the chapter 5 tables read a stand-in's run as an inid's.
 *
 * The stand-in works in turns, as inid does: a turn takes the records that
 * were in a ring when it began (fake_service_limit), all stamped with the
 * turn's start (their arrival in the INI's queue), then serves them in
 * order, each with O before it is handed on (it leaves at the end of its
 * service, as inid flushes after O).  A message for the INI's own cluster
 * gets no O, as in inid.  Off (no O, no trace) it costs one test a message.
 */
#ifndef FAKE_SERVICE_H
#define FAKE_SERVICE_H

#include <stdint.h>

#include "config.h"
#include "inid_knobs.h"
#include "msg.h"
#include "ring.h"
#include "trace.h"

struct fake_service {
    int on;                      /* O or a trace */
    uint64_t tsc_hz;
    struct inid_knobs knobs;     /* O, as inid's */
    struct ini_trace trace;
};

/* The service of INI `me` of cfg, with inid's --knob, --trace, --policy
 * and --ini-policy values (each may be NULL); exits 2 on a bad one, as
 * inid does.  0, or -1 after saying why. */
int fake_service_init(struct fake_service *s, const struct ini_config *cfg, const struct ini_node_cfg *me,
                      const char *knob, const char *trace, const char *pe_policy, const char *ini_policy);

/* The start of a turn (TSC). */
static inline uint64_t fake_service_turn(void)
{
    return rte_rdtsc();
}

/* What a turn may take from ring c: the bytes published when it began. */
static inline uint64_t fake_service_limit(const struct ini_ring_cons *c)
{
    return atomic_load_explicit(&c->ring->tail, memory_order_acquire);
}

/* A message's service before it is handed on: O on the virtual clock for
 * an inter-cluster message (inter != 0) that arrived at `arrive`.  Returns
 * when its processing began (for its record). */
static inline uint64_t fake_service_serve(struct fake_service *s, uint64_t arrive, int inter)
{
    if (!s->on)
        return 0;
    uint64_t begun = rte_rdtsc();
    if (inter)
        inid_knobs_spend_O(&s->knobs, arrive, begun);
    return begun;
}

/* Its trace record once handed on: kind (ini/trace/trace.h), its AM header, the
 * peer INI (INI_TRACE_NO_PEER for local), arrival and dequeue stamps, and
 * the queue it found: the messages its turn took before it. */
void fake_service_record(struct fake_service *s, int kind, const struct ini_am_hdr *h, int peer, uint64_t arrive,
                         uint64_t begun, uint32_t qlen);

/* The run's end: RUN_DIR/ini<ID>.trace written (when tracing). */
void fake_service_end(struct fake_service *s, const char *run_dir, int id);

#endif
