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

#endif
