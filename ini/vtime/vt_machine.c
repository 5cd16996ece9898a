/*
 * vt_machine.c - the turn of the emulated machine (vt_machine.h says why).
 *
 * Every change of who holds the turn happens under the machine's mutex,
 * in pick(): a scan of the slots for the earliest (time, id) among the
 * waiting ones, held back by every computing slot's clock plus lookahead.
 * The chosen slot is woken on its own futex word; a slot that finds
 * itself chosen at once does not sleep at all.
 */
#include "vt_machine.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ini_assert.h"

static void futex_wait(_Atomic uint32_t *word, uint32_t val)
{
    syscall(SYS_futex, word, FUTEX_WAIT, val, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE, 1, NULL, NULL, 0);
}

size_t ini_vt_size(uint32_t n_slots)
{
    return sizeof(struct ini_vt_machine) + (size_t)n_slots * sizeof(struct ini_vt_slot);
}

int ini_vt_init(struct ini_vt_machine *m, uint32_t n_slots, uint64_t hz, char *err, size_t errlen)
{
    if (n_slots == 0 || n_slots > INI_VT_MAX_SLOTS) {
        snprintf(err, errlen, "virtual time: %u processors (1 to %u)", n_slots, INI_VT_MAX_SLOTS);
        return -1;
    }
    if (hz == 0) {
        snprintf(err, errlen, "virtual time: a clock rate of 0 Hz");
        return -1;
    }
    memset(m, 0, ini_vt_size(n_slots));
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    int rc = pthread_mutex_init(&m->lock, &a);
    pthread_mutexattr_destroy(&a);
    if (rc) {
        snprintf(err, errlen, "virtual time: the machine's lock: %s", strerror(rc));
        return -1;
    }
    m->n_slots = n_slots;
    m->hz = hz;
    m->turn = -1;
    for (uint32_t i = 0; i < n_slots; i++) {
        struct ini_vt_slot *s = &m->slots[i];
        atomic_init(&s->next, INI_VT_NEVER);
        atomic_init(&s->inbox, INI_VT_NEVER);
        snprintf(s->name, sizeof s->name, "processor %u", i);
    }
    m->magic = INI_VT_MAGIC;
    return 0;
}

void ini_vt_slot_init(struct ini_vt_machine *m, uint32_t id, const char *name, uint64_t lookahead)
{
    INI_ASSERT(id < m->n_slots);
    snprintf(m->slots[id].name, sizeof m->slots[id].name, "%s", name);
    m->slots[id].lookahead = lookahead;
}

/* A process that died holding the lock left the machine as it was between
 * two whole steps (every step writes its slot, then picks): take it over. */
static void lock(struct ini_vt_machine *m)
{
    if (pthread_mutex_lock(&m->lock) == EOWNERDEAD)
        pthread_mutex_consistent(&m->lock);
}

static void unlock(struct ini_vt_machine *m)
{
    pthread_mutex_unlock(&m->lock);
}

void ini_vt_slot_group(struct ini_vt_machine *m, uint32_t id, uint32_t group)
{
    INI_ASSERT(id < m->n_slots);
    lock(m);
    m->slots[id].group = group;
    unlock(m);
}

/* A waiting slot's next event: its own or its earliest input, but never
 * before its clock: an input that arrived while it was busy (a handler,
 * a service) waits until the slot is free. */
static uint64_t key_of(const struct ini_vt_slot *s)
{
    uint64_t next = atomic_load_explicit(&s->next, memory_order_relaxed);
    uint64_t inbox = atomic_load_explicit(&s->inbox, memory_order_relaxed);
    uint64_t clock = atomic_load_explicit(&s->clock, memory_order_relaxed);
    uint64_t k = next < inbox ? next : inbox;
    return k < clock ? clock : k;
}

/* The earliest time a computing slot still allows to a slot of `group`
 * (0: any slot), over all but `except`; INI_VT_NEVER when none computes.
 * An absent slot holds time at 0.  A computing slot of the same group
 * allows nothing from its clock on (vt_machine.h, ini_vt_slot_group). */
static uint64_t compute_bound(const struct ini_vt_machine *m, int except, uint32_t group)
{
    uint64_t bound = INI_VT_NEVER;
    for (uint32_t i = 0; i < m->n_slots; i++) {
        const struct ini_vt_slot *s = &m->slots[i];
        uint32_t state = atomic_load_explicit(&s->state, memory_order_acquire);
        if ((int)i == except || (state != INI_VT_COMPUTING && state != INI_VT_ABSENT))
            continue;
        uint64_t c = atomic_load_explicit(&s->clock, memory_order_relaxed);
        uint64_t ahead = group && s->group == group ? 0 : s->lookahead;
        uint64_t b = c + ahead < c ? INI_VT_NEVER : c + ahead;
        if (b < bound)
            bound = b;
    }
    return bound;
}

/* The waiting slot with the earliest (key, id), or -1 when none has
 * anything due. */
static int earliest_waiting(const struct ini_vt_machine *m, uint64_t *key)
{
    int best = -1;
    *key = INI_VT_NEVER;
    for (uint32_t i = 0; i < m->n_slots; i++) {
        const struct ini_vt_slot *s = &m->slots[i];
        if (atomic_load_explicit(&s->state, memory_order_acquire) != INI_VT_WAITING)
            continue;
        uint64_t k = key_of(s);
        if (k < *key) {
            *key = k;
            best = (int)i;
        }
    }
    return best;
}

static int any_computing(const struct ini_vt_machine *m)
{
    return compute_bound(m, -1, 0) != INI_VT_NEVER;
}

static int all_done(const struct ini_vt_machine *m)
{
    for (uint32_t i = 0; i < m->n_slots; i++)
        if (atomic_load_explicit(&m->slots[i].state, memory_order_acquire) != INI_VT_DONE)
            return 0;
    return 1;
}

/* Stops the machine: every waiting slot wakes and is told `how`. */
static void stop(struct ini_vt_machine *m, enum ini_vt_grant how)
{
    atomic_store_explicit(&m->stopped, how, memory_order_release);
    m->turn = -1;
    for (uint32_t i = 0; i < m->n_slots; i++) {
        atomic_store_explicit(&m->slots[i].wake, 1, memory_order_release);
        futex_wake(&m->slots[i].wake);
    }
}

/* Under the lock, with nobody holding the turn: gives it to the earliest
 * waiting slot, unless a computing slot holds that time back.  `self`, the
 * caller's slot (-1: none), is awake: chosen again, it is not woken.  When
 * nothing is due and nothing computes, the machine is stuck (unless every
 * slot is done: then it has simply ended). */
static void pick(struct ini_vt_machine *m, int self)
{
    INI_ASSERT(m->turn < 0);
    if (atomic_load_explicit(&m->stopped, memory_order_acquire))
        return;
    uint64_t key;
    int best = earliest_waiting(m, &key);
    if (best < 0 || key == INI_VT_NEVER) {
        if (!any_computing(m) && !all_done(m)) {
            snprintf(m->why, sizeof m->why, "virtual time: every processor waits and nothing is due at cycle %llu (a deadlock)",
                     (unsigned long long)m->now);
            stop(m, INI_VT_STUCK);
        }
        return;
    }
    if (key >= compute_bound(m, -1, m->slots[best].group))
        return;                  /* a computing slot may yet send before it */
    struct ini_vt_slot *s = &m->slots[best];
    INI_ASSERT(key >= atomic_load_explicit(&s->clock, memory_order_relaxed));
    if (key > m->now)
        m->now = key;
    m->turn = best;
    atomic_store_explicit(&s->state, INI_VT_RUNNING, memory_order_relaxed);
    atomic_store_explicit(&s->inbox, INI_VT_NEVER, memory_order_relaxed);
    atomic_store_explicit(&s->clock, key, memory_order_relaxed);
    s->events++;
    atomic_store_explicit(&s->wake, 1, memory_order_release);
    if (best != self)            /* the caller, chosen again, is not asleep */
        futex_wake(&s->wake);
}

/* Under the lock: `id` stops holding the turn (or computing). */
static void release(struct ini_vt_machine *m, uint32_t id, enum ini_vt_state to)
{
    struct ini_vt_slot *s = &m->slots[id];
    if (m->turn == (int)id)
        m->turn = -1;
    atomic_store_explicit(&s->state, to, memory_order_release);
    if (m->turn < 0)
        pick(m, (int)id);
    if (m->turn >= 0 && m->turn != (int)id)
        m->handovers++;
}

enum ini_vt_grant ini_vt_wait_turn(struct ini_vt_machine *m, uint32_t id, uint64_t next, uint64_t *at)
{
    INI_ASSERT(id < m->n_slots);
    struct ini_vt_slot *s = &m->slots[id];
    lock(m);
    /* Stopped before this call (another slot's causality violation, say):
     * stop() has woken everyone already and will not again, so waiting
     * now would be for ever. */
    enum ini_vt_grant was = atomic_load_explicit(&m->stopped, memory_order_acquire);
    if (was != INI_VT_GRANTED) {
        unlock(m);
        return was;
    }
    /* A `next` before the clock (an input that came while the slot was
     * busy, as a node's hint may see it) means "due at once": key_of
     * takes the later of the two. */
    atomic_store_explicit(&s->wake, 0, memory_order_relaxed);
    atomic_store_explicit(&s->next, next, memory_order_relaxed);
    release(m, id, INI_VT_WAITING);
    unlock(m);
    while (!atomic_load_explicit(&s->wake, memory_order_acquire))
        futex_wait(&s->wake, 0);
    enum ini_vt_grant how = atomic_load_explicit(&m->stopped, memory_order_acquire);
    if (how != INI_VT_GRANTED)
        return how;
    *at = atomic_load_explicit(&s->clock, memory_order_relaxed);
    return INI_VT_GRANTED;
}

void ini_vt_arrive_computing(struct ini_vt_machine *m, uint32_t id)
{
    lock(m);
    INI_ASSERT(atomic_load_explicit(&m->slots[id].state, memory_order_relaxed) == INI_VT_ABSENT);
    atomic_store_explicit(&m->slots[id].state, INI_VT_COMPUTING, memory_order_release);
    if (m->turn < 0)
        pick(m, -1);
    unlock(m);
}

void ini_vt_compute(struct ini_vt_machine *m, uint32_t id)
{
    lock(m);
    INI_ASSERT(m->turn == (int)id);
    release(m, id, INI_VT_COMPUTING);
    unlock(m);
}

uint64_t ini_vt_charge(struct ini_vt_machine *m, uint32_t from, uint64_t cycles)
{
    struct ini_vt_slot *s = &m->slots[from];
    INI_ASSERT(m->turn == (int)from);
    uint64_t t = atomic_load_explicit(&s->clock, memory_order_relaxed) + cycles;
    atomic_store_explicit(&s->clock, t, memory_order_relaxed);
    s->busy += cycles;
    return t;
}

int ini_vt_post(struct ini_vt_machine *m, uint32_t from, uint32_t to, uint64_t stamp)
{
    INI_ASSERT(from < m->n_slots && to < m->n_slots);
    struct ini_vt_slot *s = &m->slots[from], *r = &m->slots[to];
    uint64_t clock = atomic_load_explicit(&s->clock, memory_order_relaxed);
    if (stamp < clock + s->lookahead) {
        lock(m);
        snprintf(m->why, sizeof m->why,
                 stamp < clock ? "virtual time: causality: %s sent to %s a message stamped %llu, before its own clock %llu"
                               : "virtual time: causality: %s sent to %s a message stamped %llu, sooner than its lookahead after its clock %llu",
                 s->name, r->name, (unsigned long long)stamp, (unsigned long long)clock);
        stop(m, INI_VT_VIOLATION);
        unlock(m);
        return -1;
    }
    uint64_t cur = atomic_load_explicit(&r->inbox, memory_order_relaxed);
    while (stamp < cur && !atomic_compare_exchange_weak_explicit(&r->inbox, &cur, stamp, memory_order_release,
                                                                 memory_order_relaxed))
        ;
    return 0;
}

void ini_vt_done(struct ini_vt_machine *m, uint32_t id)
{
    lock(m);
    atomic_store_explicit(&m->slots[id].next, INI_VT_NEVER, memory_order_relaxed);
    release(m, id, INI_VT_DONE);
    unlock(m);
}

const char *ini_vt_why(const struct ini_vt_machine *m)
{
    return atomic_load_explicit(&m->stopped, memory_order_acquire) ? m->why : "";
}
