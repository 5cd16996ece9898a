/*
 * swp_durable.c - the transport's durable state (swp.h, swp_internal.h;
 * docs/transport.md, "An INI that restarts"): the region's layout, its
 * checks when a restarted INI finds it again, and the restore.
 *
 * The region is written on the path by the inline write points of
 * swp_internal.h (a message logged before its first frame, released when
 * acknowledged whole, D moved when a delivery is published) through
 * pointers that are always valid: a private region from open, the owner's
 * shared one once attached.  So the path has no branch on whether a
 * region is there.
 */
#include "swp_internal.h"

#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>

/* Entries of a connection's log: every message with a frame in flight,
 * and the one being sent in segments (at most window + 1), in a power of
 * two. */
static uint32_t log_cap(uint32_t window)
{
    uint32_t cap = 2;
    while (cap < window + 1)
        cap <<= 1;
    return cap;
}

static size_t conn_bytes(uint32_t cap)
{
    return sizeof(struct swp_dur_conn) + (size_t)cap * sizeof(struct swp_dur_ent);
}

size_t ini_swp_durable_bytes(const struct ini_swp_params *p)
{
    return sizeof(struct ini_swp_durable_hdr) + (size_t)p->n_inis * conn_bytes(log_cap((uint32_t)p->window));
}

static struct swp_dur_conn *dur_conn(struct ini_swp_durable_hdr *h, int i)
{
    return (struct swp_dur_conn *)((uint8_t *)(h + 1) + (size_t)i * conn_bytes(h->log_cap));
}

/* Points every connection at its part of h. */
static void point_conns(struct ini_swp *s, struct ini_swp_durable_hdr *h, size_t bytes)
{
    s->dh = h;
    s->dur_bytes = bytes;
    s->log_mask = h->log_cap - 1;
    for (int i = 0; i < s->n_inis; i++)
        s->conns[i].dc = dur_conn(h, i);
}

void swp_durable_format(struct ini_swp *s, struct ini_swp_durable_hdr *h, size_t bytes, const uint8_t *epoch)
{
    memset(h, 0, bytes);
    h->magic = INI_SWP_DURABLE_MAGIC;
    h->version = INI_SWP_DURABLE_VERSION;
    h->resumable = 1;
    h->bytes = bytes;
    h->me = (uint32_t)s->me;
    h->n_inis = (uint32_t)s->n_inis;
    h->seq_bits = (uint32_t)s->seq_bits;
    h->window = s->window;
    h->log_cap = log_cap(s->window);
    memcpy(h->epoch, epoch, INI_SWP_EPOCH_LEN);
    point_conns(s, h, bytes);
}

int swp_durable_open(struct ini_swp *s, const struct ini_swp_params *prm)
{
    size_t bytes = ini_swp_durable_bytes(prm);
    s->dur_private = malloc(bytes);
    if (!s->dur_private)
        return -1;
    swp_durable_format(s, s->dur_private, bytes, prm->epoch);
    /* A restarted INI's SYNC goes again after 1 ms, the gap doubling to
     * 100 ms while unanswered (the peer may be restarting too). */
    uint64_t hz = prm->tsc_hz ? prm->tsc_hz : rte_get_tsc_hz();
    s->sync_gap = hz / 1000;
    s->sync_gap_max = hz / 10;
    return 0;
}

void swp_durable_close(struct ini_swp *s)
{
    free(s->dur_private);
    s->dur_private = NULL;
    s->dh = NULL;
}

/* Whether h belongs to this transport and run: 0, or -1 with the field
 * and why in why. */
static int check_header(const struct ini_swp *s, const struct ini_swp_durable_hdr *h, size_t bytes, char *why, size_t len)
{
    const struct ini_swp_durable_hdr *mine = s->dh;
    if (bytes < sizeof(*h) || h->magic != INI_SWP_DURABLE_MAGIC)
        snprintf(why, len, "not a state region (no magic)");
    else if (h->version != INI_SWP_DURABLE_VERSION)
        snprintf(why, len, "version %u, expected %u", h->version, INI_SWP_DURABLE_VERSION);
    else if (h->bytes != bytes || bytes != s->dur_bytes)
        snprintf(why, len, "%zu bytes (its header says %llu), expected %zu", bytes, (unsigned long long)h->bytes,
                 s->dur_bytes);
    else if (h->me != mine->me || h->n_inis != mine->n_inis)
        snprintf(why, len, "INI %u of %u, expected %u of %u", h->me, h->n_inis, mine->me, mine->n_inis);
    else if (h->seq_bits != mine->seq_bits || h->window != mine->window || h->log_cap != mine->log_cap)
        snprintf(why, len, "seq_bits %u, window %u, expected %u and %u", h->seq_bits, h->window, mine->seq_bits,
                 mine->window);
    else if (memcmp(h->epoch, mine->epoch, INI_SWP_EPOCH_LEN) != 0)
        snprintf(why, len, "another run's (epoch)");
    else if (!h->resumable)
        snprintf(why, len, "marked not resumable (messages were held outside the rings)");
    else
        return 0;
    return -1;
}

/* The delivery the dead INI was in: published, D moves past it. */
static void settle_intent(struct ini_swp *s, struct ini_swp_durable_hdr *h, ini_swp_published_fn published)
{
    struct ini_swp_intent *in = &h->intent;
    if (in->armed && in->conn < h->n_inis && published(s->ctx, in->where, in->mark))
        dur_conn(h, (int)in->conn)->delivered = in->d_after & s->seq_mask;
    in->armed = 0;
}

/* c's send side at its first logged message, every logged message to be
 * replayed from there. */
static void send_side_at_log(struct ini_swp *s, struct swp_conn *c)
{
    struct swp_dur_conn *dc = c->dc;
    uint32_t first = dc->head != dc->tail ? dc->log[dc->head & s->log_mask].first : dc->next_seq;
    c->snd_una = c->snd_nxt = c->timed_nxt = first & s->seq_mask;
    c->replay = dc->head;
    s->n_replay -= c->replaying;
    c->replaying = dc->head != dc->tail;
    s->n_replay += c->replaying;
}

/* Connection c where its region says: the receive side at D, the send
 * side at its log, no DATA until the peer's answer to our SYNC. */
static void restore_conn(struct ini_swp *s, struct swp_conn *c)
{
    c->rcv_nxt = c->ack_sent = c->dc->delivered & s->seq_mask;
    send_side_at_log(s, c);
    c->unsynced = 1;
    s->n_unsynced++;
}

int ini_swp_durable_attach(struct ini_swp *s, void *mem, size_t bytes, const void *base, int resume,
                           ini_swp_published_fn published, char *err, size_t errlen)
{
    struct ini_swp_durable_hdr *h = mem;
    char why[160];
    if (!resume) {
        if (bytes != s->dur_bytes) {
            snprintf(err, errlen, "a region of %zu bytes, expected %zu", bytes, s->dur_bytes);
            return -1;
        }
        uint8_t epoch[INI_SWP_EPOCH_LEN];
        memcpy(epoch, s->dh->epoch, sizeof epoch);
        swp_durable_format(s, h, bytes, epoch);
        s->base = base;
        return 0;
    }
    if (check_header(s, h, bytes, why, sizeof why) < 0) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    s->base = base;
    settle_intent(s, h, published);
    h->incarnation++;
    point_conns(s, h, bytes);
    for (int i = 0; i < s->n_inis; i++)
        if (s->conns[i].peer >= 0)
            restore_conn(s, &s->conns[i]);
    s->sync_due = 0;                /* the first turn sends SYNC */
    return 0;
}

struct ini_swp_intent *ini_swp_intent(struct ini_swp *s)
{
    return &s->dh->intent;
}

void ini_swp_durable_unresumable(struct ini_swp *s)
{
    s->dh->resumable = 0;
}

uint32_t ini_swp_incarnation(const struct ini_swp *s)
{
    return s->dh->incarnation;
}

void ini_swp_durable_logged(struct ini_swp *s, ini_swp_logged_fn fn, void *ctx)
{
    for (int i = 0; i < s->n_inis; i++) {
        struct swp_conn *c = &s->conns[i];
        if (c->peer < 0)
            continue;
        struct swp_dur_conn *dc = c->dc;
        for (uint32_t k = dc->head; k != dc->tail; k++) {
            struct swp_dur_ent *e = &dc->log[k & s->log_mask];
            void *cookie = (void *)(uintptr_t)e->cookie;
            if (fn(ctx, c->peer, e->off, &cookie)) {
                e->cookie = (uint64_t)(uintptr_t)cookie;
            } else if (k == dc->head) {
                dc->head++;         /* acknowledged and given back before the log moved */
            } else {
                c->stats.sync_errors++;     /* a hole in the log: cannot be (docs/transport.md) */
            }
        }
        send_side_at_log(s, c);
    }
}
