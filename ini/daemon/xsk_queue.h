/*
 * xsk_queue.h - whether an AF_XDP socket's buffer pool is bound to a
 * network device's receive queue (xsk_queue.c), asked of the kernel's
 * netdev generic-netlink family.  The INI's port reopening
 * (inid_port_reopen) waits on it: the kernel unbinds a closed socket's
 * pool in a deferred work item, and a new socket cannot bind until it has.
 */
#ifndef INI_XSK_QUEUE_H
#define INI_XSK_QUEUE_H

/* 1: a pool is bound to receive queue QUEUE of interface IFINDEX (in the
 * caller's network namespace); 0: none; -1: the kernel cannot say (no
 * netdev family, or one without queues' XSK attribute: before Linux 6.13
 * or so). */
int ini_xsk_queue_bound(unsigned ifindex, unsigned queue);

#endif
