/*
 * inid_knobs.h - the emulation knobs of an INI (docs/config.md, `knobs`):
 * one stage of the daemon's loop, with its own state.
 *
 * The knobs change one communication parameter each, as the thesis's
 * chapter 6 does: O (extra service time per message at each INI it
 * passes), Δg and ΔG (least gap between two messages leaving the INI, per
 * message and per byte) and ΔL (time added before a received message is
 * delivered).  They emulate a slower machine; the product path never needs
 * them, so with every knob off (zero, the default) the stage costs a few
 * tests of its state per message and nothing else.
 *
 * Where the loop (ini/daemon/inid_loop.c) applies them:
 *
 *   sending       inid_knobs_tx_wait()     before the transport's send: Δg/ΔG
 *                                          may keep the message back (it
 *                                          stalls, as on a full window)
 *                 inid_knobs_spend_O()     after the send: the INI is busy O
 *                 inid_knobs_tx_sent()     then the gap starts
 *   receiving     inid_knobs_hold_slot()   the transport's deliver callback,
 *                 inid_knobs_hold()        which runs inside the stack's
 *                                          receive, only hands the message over
 *                 inid_knobs_next_due()    the loop, once the receive has
 *                 inid_knobs_release()     returned (after each frame and
 *                                          after the transport's poll),
 *                                          takes what is due, spends its O
 *                                          and delivers it, in order
 *   sleeping      inid_knobs_deadline()    the adaptive idle mode wakes up
 *                                          for the stage's next event
 *
 * O and the virtual clock.  inid_knobs_spend() is the one place where the
 * INI is made busier: "a piece of work began at `begun` for a message that
 * arrived at `arrive`; now spend `extra` cycles more".  It keeps the
 * service clock of a dedicated INI processor (docs/config.md, how O is
 * spent): a message's service starts when it arrived or when the previous
 * one's ended, whichever is later, and lasts its real work plus the extra
 * time; the INI waits (spins or sleeps) only until that end, so a late
 * wake-up is caught up instead of lengthening every later service.  O is
 * one caller (extra = O, fixed or drawn); uniform dilation the other.
 *
 * Uniform dilation (knobs `dilate` K and `beta`; docs/config.md).  Every
 * turn of the loop that did work lasts K*beta times its own CPU time, as
 * on an INI processor K*beta times slower; a turn with nothing to do costs
 * nothing more.  The loop calls
 *
 *   inid_knobs_turn_begin()  at the start of every turn: the thread's CPU
 *                            clock (ini/util/clock.h says why CPU time)
 *   inid_knobs_dilate()      at the end of a turn that did work, before
 *                            it flushes what the turn made: the virtual
 *                            clock's end is start + K*beta * CPU time
 *                            (extra = that minus the turn's TSC span), and
 *                            the INI waits asleep until then
 *
 * While it waits, the stage calls the loop's poll hook every
 * INID_DILATE_POLL_US: records and frames that arrive join the work queue
 * with their arrival time, as a dedicated INI's FIFO fills while its
 * processor works, so the trace sees their queueing (without it, they would
 * arrive when the wait ends and their wait would count nowhere).  The hook
 * only queues: the work is the next turn's.  The loop then stretches the
 * stamps its trace records took during the turn over the dilated turn.
 * Only when dilation is on does the loop read the CPU clock (the loop is
 * built twice, with the calls and without: off, it costs nothing).
 *
 * Held deliveries.  ΔL, and O on the receive side, need the loop to take
 * the message after the stack's receive has returned: the deliver callback
 * puts it in a queue of INID_HELD entries in arrival order, with the stamps its
 * trace record needs, and the transport acknowledges it at once (ΔL does
 * not delay acks).  With ΔL an entry is due ΔL after it was held; with O
 * alone, at once.
 */
#ifndef INI_INID_KNOBS_H
#define INI_INID_KNOBS_H

#include <stdint.h>

#include <rte_cycles.h>

#include "config.h"
#include "clock.h"

struct pbuf;

#define INID_HELD 4096     /* held deliveries, power of two */
#define INID_DILATE_POLL_US 100   /* a dilation wait looks for arrivals this often */

/* A received message held by the stage: the message (AM header at offset
 * off of p, whose owner the stage is until it is released), and what its
 * trace record and its service need. */
struct inid_held {
    struct pbuf *p;
    uint64_t due;             /* TSC: deliver from then on */
    uint64_t t_arrive;        /* the frame entered the work queue */
    uint64_t t_start;         /* its processing began */
    uint64_t t_in_ip, t_in_udp;   /* detailed traces: module boundaries */
    uint32_t qlen;            /* work queue length at the frame's arrival */
    uint16_t off;
    uint16_t src_ini;
    uint8_t pe;               /* local index of the destination PE */
    uint8_t delayed;          /* held for ΔL (1) or only for O (0) */
};

struct inid_knobs {
    /* the knobs (config.h struct ini_knobs) in TSC cycles */
    uint64_t O, gap, latency;
    double per_byte;
    uint64_t tsc_hz;
    uint8_t O_exp, O_sleep;
    uint8_t tx_on;            /* Δg or ΔG */
    uint8_t rx_on;            /* O or ΔL: deliveries go through the queue */
    /* O's state */
    uint64_t rng;             /* exponential O: xorshift64, seeded per INI */
    uint64_t until;           /* the virtual clock: end of the last service (TSC) */
    uint64_t left;            /* when the last wait was over (TSC) */
    /* Δg/ΔG: the next message may leave then (TSC; 0: now) */
    uint64_t next_tx;
    /* uniform dilation */
    struct inid_dilation {
        double factor;            /* K*beta; 0: off */
        uint64_t clock_cost_ns;   /* one CPU-clock read, taken off each turn */
        uint64_t turn_cpu_ns;     /* the thread's CPU clock at the turn's start */
        uint64_t poll_ns;         /* INID_DILATE_POLL_US in ns */
        int (*poll)(void *ctx, uint64_t now);   /* the loop's: queue what arrived */
        void *poll_ctx;
        /* counted (the counters file's "dilation") */
        uint64_t turns, cpu_ns, extra_cycles, polls;
    } dil;
    /* held deliveries, in order */
    uint32_t head, tail;
    struct inid_held held[INID_HELD];
};

/* Sets the knobs of INI ini_id from the configuration. */
void inid_knobs_init(struct inid_knobs *k, const struct ini_knobs *cfg, uint64_t tsc_hz, int ini_id);

/* The INI's service clock: a piece of work for a message that arrived at
 * `arrive` began at `begun`; the INI stays busy `extra` cycles more,
 * counted on the virtual clock (above).  Reads the clock itself. */
void inid_knobs_spend(struct inid_knobs *k, uint64_t arrive, uint64_t begun, uint64_t extra);
/* Uniform dilation: the start of a turn, and the end of one that did
 * work (above).  The turn began at `begun`; its earliest work arrived at
 * `arrive`.  Returns the end of its dilated service (TSC) and sets
 * *work_end to when its own work ended; the INI has waited until then. */
static inline void inid_knobs_turn_begin(struct inid_knobs *k)
{
    k->dil.turn_cpu_ns = ini_thread_cpu_ns();
}
uint64_t inid_knobs_dilate(struct inid_knobs *k, uint64_t arrive, uint64_t begun, uint64_t *work_end);

/* O's length for the next message: O_us, or drawn with that mean. */
uint64_t inid_knobs_draw_O(struct inid_knobs *k);

/* O for one message: 1 if time was spent (the caller flushes what the
 * message made, which should leave at the end of its service, not of the
 * loop turn), 0 when O is off. */
static inline int inid_knobs_spend_O(struct inid_knobs *k, uint64_t arrive, uint64_t begun)
{
    if (!k->O)
        return 0;
    inid_knobs_spend(k, arrive, begun, inid_knobs_draw_O(k));
    return 1;
}

/* Δg/ΔG: 1 if no message may leave yet. */
static inline int inid_knobs_tx_wait(const struct inid_knobs *k)
{
    return k->next_tx && rte_rdtsc() < k->next_tx;
}

/* Δg/ΔG: a message of `bytes` left; the next one waits the gap. */
static inline void inid_knobs_tx_sent(struct inid_knobs *k, uint32_t bytes)
{
    if (k->tx_on)
        k->next_tx = rte_rdtsc() + k->gap + (uint64_t)(k->per_byte * (double)bytes);
}

/* Held deliveries waiting (and the telemetry's "delayed"). */
static inline uint32_t inid_knobs_held(const struct inid_knobs *k)
{
    return k->tail - k->head;
}

/* The deliver callback holds a message: it fills the entry this returns
 * (NULL: the queue is full, refuse the delivery) with everything but
 * `due` and `delayed`, then calls inid_knobs_hold.  The stage owns the
 * pbuf from then on, until the loop releases the entry. */
static inline struct inid_held *inid_knobs_hold_slot(struct inid_knobs *k)
{
    return k->tail - k->head < INID_HELD ? &k->held[k->tail % INID_HELD] : NULL;
}

static inline void inid_knobs_hold(struct inid_knobs *k, struct inid_held *x)
{
    x->delayed = k->latency != 0;
    x->due = x->delayed ? rte_rdtsc() + k->latency : 0;
    k->tail++;
}

/* The oldest held delivery if it is due at `now`, else NULL; the caller
 * delivers it and calls inid_knobs_release, or leaves it for later. */
static inline struct inid_held *inid_knobs_next_due(struct inid_knobs *k, uint64_t now)
{
    if (k->head == k->tail)
        return NULL;
    struct inid_held *x = &k->held[k->head % INID_HELD];
    return x->due <= now ? x : NULL;
}

static inline void inid_knobs_release(struct inid_knobs *k)
{
    k->head++;
}

/* The time the stage next needs the loop (UINT64_MAX: none): the end of
 * the gap, when messages wait for it (`stalled`), or the first held
 * delivery's due time. */
static inline uint64_t inid_knobs_deadline(const struct inid_knobs *k, int stalled)
{
    uint64_t t = UINT64_MAX;
    if (stalled && k->next_tx)
        t = k->next_tx;
    if (k->head != k->tail && k->held[k->head % INID_HELD].due < t)
        t = k->held[k->head % INID_HELD].due;
    return t;
}

#endif
