/*
 * inid_limits.h - the daemon's fixed sizes, in a header that needs nothing
 * else, so that the models of the daemon (tools/replay/, the replay of
 * `ini-trace whatif`) take the same numbers the loop is built with instead
 * of copies of them.  inid.h includes it; a model includes it alone.
 */
#ifndef INID_LIMITS_H
#define INID_LIMITS_H

#define INID_QUEUE_SIZE     4096   /* FIFO work queue, power of two */
#define INID_RING_INFLIGHT  64     /* records taken from one PE ring and not yet released */
#define INID_BACKLOG        512    /* deliveries waiting for a PE's ring, per PE */

#endif
