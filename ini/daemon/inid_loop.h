/*
 * inid_loop.h - the protocol loop of an INI on its lcore (inid_loop.c),
 * and the transport's delivery callback, which runs inside it.
 */
#ifndef INI_INID_LOOP_H
#define INI_INID_LOOP_H

#include "inid.h"

/* Runs turns until d->stop (a signal); arg is the struct inid.  0. */
int inid_loop(void *arg);
/* Transport callback (swp.h): a message for one of this cluster's PEs
 * (0: taken, -1: not now, the transport offers it again). */
int inid_transport_deliver(void *ctx, int src_ini, struct pbuf *p, uint16_t off, struct ini_rx_meta *rx);

/* The pieces of a turn, for the virtual-time loop (inid_vtime.c), which
 * serves one input per event: retries (backlogs, stalled work), one
 * record of PE pe (1 if taken), one received frame, the queue run to
 * completion, the ports flushed (frames still waiting returned), the
 * load published. */
int inid_turn_retry(struct inid *d, uint64_t now);
int inid_take_record(struct inid *d, int pe, uint64_t now);
/* Whether a record of PE pe could be taken now (its in-flight list and
 * the work queue have room). */
int inid_record_room(const struct inid *d, int pe);
void inid_take_frame(struct inid *d, struct rte_mbuf *m, uint64_t now);
/* Whether one more received frame fits (the work queue has room beside
 * what is stalled): the receive faults may pass on several in one event. */
int inid_frame_room(const struct inid *d);
int inid_run_queue(struct inid *d, uint64_t now);
int inid_flush(struct inid *d);
void inid_publish_load(struct inid *d);

#endif
