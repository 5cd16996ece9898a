/*
 * vt_machine.h - the emulated machine's clocks and the order of its events,
 * for the virtual-time mode (docs/architecture.md, "Virtual time").
 *
 * Every emulated processor (each compute node, each INI) has a slot here,
 * in one shared segment per run, holding its clock in cycles of the
 * emulated machine.  The machine's events run one at a time, in the order
 * of (virtual time, slot id): the processor whose next event is the
 * earliest holds "the turn", does that event (serves a message, runs a
 * handler, sends), and hands the turn on.  Nothing here reads the host's
 * clock, so the same program, configuration and seed give the same order
 * of events, on any host, under any load.
 *
 * Why one event at a time, and not a quantum barrier (the Wisconsin Wind
 * Tunnel) or null messages per channel (Chandy-Misra-Bryant): this host has
 * two cores for up to 16 compute threads and 16 daemons, so an emulation
 * that runs events in parallel gains at most a factor of two, and a
 * quantum no longer than the least latency (a compute node's hand-over to
 * its INI: a few hundred cycles) would mean a barrier of all processors
 * every few hundred cycles.  Handing the turn over costs one futex wake
 * and wait (a few microseconds here) per event instead.  What does run in
 * parallel is what needs no order: compute bursts.  A compute node that
 * returns to the program's code is "computing": its host thread runs
 * freely from its clock c, and since anything it sends arrives no sooner
 * than its lookahead L after it is sent (the hand-over to its INI), events
 * before c + L may still run meanwhile, and only those.  When it next
 * calls the library it states when its burst ends in virtual time and
 * waits for the turn like everyone else.  Messages that reach it before
 * then are handled as the interrupts they were on Alewife: at their own
 * arrival time, pushing the burst's end later.  Which events ran while a
 * burst's host code ran changes nothing: each could not have been
 * affected by the burst's end, and each slot serves its inputs in the
 * order of their stamps.
 *
 * The states of a slot
 *   ABSENT     not yet arrived: holds virtual time at 0, as a computing
 *              slot would, so the machine starts once every processor
 *              has come (and a slot that never comes must be done)
 *   WAITING    in ini_vt_wait_turn: its next event is min(next, inbox),
 *              where `next` is its own (a burst's end, a timer) and
 *              `inbox` the earliest stamp posted to it since it last ran,
 *              but not before its clock (an input that came while it was
 *              busy waits for it); UINT64_MAX: nothing due (a node
 *              blocked on a reply)
 *   RUNNING    holds the turn (at most one slot)
 *   COMPUTING  runs host code from `clock`; no event at or after
 *              clock + lookahead may run until it waits again
 *   DONE       gone (its program ended); never scheduled again
 *
 * The rules that keep it conservative: only the turn's holder sends, and
 * it posts each message's stamp to the receiver (ini_vt_post) after the
 * bytes are where the receiver will find them (its ring, its port), so a
 * processor given the turn at time t finds every input stamped t or
 * earlier already there.  A stamp earlier than the sender's own clock, or
 * than the time of the event the machine is at, is a causality violation:
 * ini_vt_post refuses it and names it.
 *
 * Locking: one process-shared mutex guards the choice of the next holder
 * (a scan of the slots: 128 at most); each slot sleeps on its own futex
 * word.  The segment's owner (the launcher, or a test) initialises it with
 * ini_vt_init; every processor attaches by mapping it.
 */
#ifndef INI_VT_MACHINE_H
#define INI_VT_MACHINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define INI_VT_MAGIC    0x56544d31u   /* "VTM1" */
#define INI_VT_NEVER    UINT64_MAX    /* no event due */
#define INI_VT_MAX_SLOTS 256          /* 128 compute nodes and 128 INIs */
#define INI_VT_FRAME_STAMP 8          /* bytes of send time behind every frame on a link */

enum ini_vt_state {
    INI_VT_ABSENT = 0,
    INI_VT_WAITING,
    INI_VT_RUNNING,
    INI_VT_COMPUTING,
    INI_VT_DONE,
};

/* How a wait for the turn ended. */
enum ini_vt_grant {
    INI_VT_GRANTED = 0,   /* the turn, at the time returned */
    INI_VT_STUCK,         /* every processor waits and nothing is due */
    INI_VT_VIOLATION,     /* a causality violation stopped the machine */
};

struct ini_vt_slot {
    _Atomic uint64_t next;      /* its own next event; INI_VT_NEVER none */
    _Atomic uint64_t inbox;     /* earliest stamp posted since it last ran */
    _Atomic uint64_t clock;     /* its clock: the time of its last event or burst start */
    _Atomic uint32_t state;     /* enum ini_vt_state */
    _Atomic uint32_t wake;      /* futex word: 1 once the turn is given */
    uint64_t lookahead;         /* least latency of anything it sends */
    uint32_t group;             /* shares memory with the slots of its group (0: none) */
    uint64_t events;            /* turns it was given */
    uint64_t busy;              /* cycles charged to it (ini_vt_charge): its work */
    _Atomic uint64_t frames;    /* an INI's: frames other INIs have sent it, so far */
    char name[24];              /* "pe 3", "ini 1": for messages */
};

struct ini_vt_machine {
    uint32_t magic;
    uint32_t n_slots;
    uint64_t hz;                /* emulated cycles per second */
    pthread_mutex_t lock;       /* process-shared, robust */
    int32_t turn;               /* the holder; -1 nobody */
    _Atomic uint32_t stopped;   /* enum ini_vt_grant once the machine stopped */
    uint64_t now;               /* the time of the last event given */
    uint64_t handovers;         /* turns given to another slot than the last */
    char why[160];              /* what stopped it, one line */
    struct ini_vt_slot slots[];
};

/* Bytes a machine of n slots takes. */
size_t ini_vt_size(uint32_t n_slots);

/* Initialises a machine of n slots in `mem` (ini_vt_size bytes, zeroed or
 * not), every slot ABSENT, at time 0.  `hz`: emulated
 * cycles per second.  0, or -1 with a one-line message in err. */
int ini_vt_init(struct ini_vt_machine *m, uint32_t n_slots, uint64_t hz, char *err, size_t errlen);

/* Names slot `id` for messages ("pe 3") and sets its lookahead: the
 * least number of cycles between its clock and the arrival stamp of
 * anything it sends (a compute node's hand-over to its INI).  While it
 * computes, events up to that far past its clock may still run; 0 makes
 * its compute bursts hold every other event. */
void ini_vt_slot_init(struct ini_vt_machine *m, uint32_t id, const char *name, uint64_t lookahead);

/* Slot `id` shares memory with every slot of `group` (1 and up; a
 * cluster's compute nodes, one process): while it computes, no event of
 * its group at or after its clock may run, whatever its lookahead, since
 * that event could change memory its host code is reading (a page MGS
 * maps or takes away), and whether the code saw the change would then
 * depend on the host.  Set before the slot first computes. */
void ini_vt_slot_group(struct ini_vt_machine *m, uint32_t id, uint32_t group);

/* Slot `id` gives up the turn (or stops computing), states its own next
 * event `next` (INI_VT_NEVER: it only waits for input), and waits until it
 * is given the turn.  On INI_VT_GRANTED, *at is the event's time: the
 * earlier of `next` and its earliest posted input, never earlier than its
 * clock; the slot's clock is set to it.  A holder that is still the
 * earliest keeps the turn without sleeping: between two events of one
 * slot there is no hand-over. */
enum ini_vt_grant ini_vt_wait_turn(struct ini_vt_machine *m, uint32_t id, uint64_t next, uint64_t *at);

/* Slot `id` arrives computing: it runs host code from time 0 (a compute
 * node's first burst) without having held the turn. */
void ini_vt_arrive_computing(struct ini_vt_machine *m, uint32_t id);

/* The holder `id` returns to host code that runs from its clock (a
 * compute burst): it gives up the turn; until it waits for the turn again,
 * no event at or after its clock plus its lookahead runs. */
void ini_vt_compute(struct ini_vt_machine *m, uint32_t id);

/* The holder `from` advances its own clock by `cycles` (the cost of what
 * it just did) and returns the new time.  Holds the turn throughout. */
uint64_t ini_vt_charge(struct ini_vt_machine *m, uint32_t from, uint64_t cycles);

/* The holder `from` has put a message stamped `stamp` (its arrival) where
 * slot `to` will find it.  0, or -1 (and the machine stops, every waiter
 * told INI_VT_VIOLATION, ini_vt_why names it) when the stamp is earlier
 * than the sender's clock plus its lookahead: nothing may arrive before
 * it was sent, nor sooner than its sender promised. */
int ini_vt_post(struct ini_vt_machine *m, uint32_t from, uint32_t to, uint64_t stamp);

/* Slot `id` leaves the machine for good (its program ended, or its
 * process is going away); if it held the turn, the turn moves on. */
void ini_vt_done(struct ini_vt_machine *m, uint32_t id);

/* What stopped the machine, or "" while it runs. */
const char *ini_vt_why(const struct ini_vt_machine *m);

#ifdef __cplusplus
}
#endif

#endif
