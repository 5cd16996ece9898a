/*
 * stack.h - an INI's protocol stack, assembled: the link over DPDK
 * (netif_dpdk.h), the transport's UDP port (dgram.h, lwIP's boundary) and
 * the transport (swp.h), in the process's one lwIP, over one mbuf pool.
 * inid, the unit tests' two-INI harness and both of ini-bench's layers
 * that run the stack open it here, from one parameter struct whose
 * defaults are written once (ini_stack_params_default).
 *
 *   ini_stack_params_default(&p);           every default
 *   ... p.swp.me, n_inis, ip[], connect[]; p.mac; what differs ...
 *   ini_stack_open(&st, &p, err, sizeof err);
 *   ... the owner adds its ports' queues and peers to st.nf (netif_dpdk.h)
 *   per turn: ini_stack_poll, ini_stack_input for every frame received,
 *             ini_swp_send for every message, ini_stack_flush at the end;
 *             ini_stack_timers about every 100 ms
 *
 * The owner reads the transport through swp.h's accessors (st.swp is
 * opaque), the link's and IP's counters from st.nf.stats and
 * ini_dgram_ip_stats.
 */
#ifndef INI_STACK_H
#define INI_STACK_H

#include <stddef.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "dgram.h"
#include "netif_dpdk.h"
#include "stack_defaults.h"       /* INI_STACK_MBUFS, ini_stack_mbuf_room */
#include "swp.h"

struct ini_stack_params {
    struct ini_swp_params swp;       /* the transport's; the link's address is swp.ip[swp.me], its MTU swp.mtu */
    uint8_t mac[6];                  /* the link's Ethernet address */
    /* mbufs for receive and transmit: a pool made with INI_MBUF_PRIV_SIZE
     * private bytes (ini_stack_pool_create), which stacks of one process
     * may share; NULL: the stack makes its own (and frees it at close):
     * pool_name, n_mbufs of mbuf_room bytes of data room each (0: the
     * MTU's, ini_stack_mbuf_room), a per-lcore cache of pool_cache. */
    struct rte_mempool *pool;
    const char *pool_name;
    unsigned n_mbufs, pool_cache;
    uint16_t mbuf_room;
    /* The owner's callbacks (swp.h): a message for this INI, a message
     * sent that may be given back. */
    ini_deliver_fn deliver;
    ini_release_fn release;
    void *ctx;
};

struct ini_stack {
    struct ini_netif nf;             /* the link: the owner adds its ports' queues and peers */
    struct ini_dgram dg;             /* the transport's UDP port */
    struct ini_swp *swp;             /* the transport: swp.h's functions and accessors */
    struct rte_mempool *pool;        /* the mbufs, given or made */
    int own_pool;                    /* made by ini_stack_open: freed by ini_stack_close */
};

/* Every default: the transport's (ini_swp_params_default), a pool of the
 * stack's own of INI_STACK_MBUFS mbufs; no INIs, no callbacks. */
void ini_stack_params_default(struct ini_stack_params *p);
/* A pool of n mbufs of `room` bytes of data room with the private area
 * the stack's pbufs live in; NULL (rte_errno says why). */
struct rte_mempool *ini_stack_pool_create(const char *name, unsigned n, uint16_t room, unsigned cache);

/* Opens a stack: its pool (unless given), lwIP (once per process), the
 * link, the transport and its UDP port.  0, or -1 with one line in err
 * saying what failed (then nothing is left open). */
int  ini_stack_open(struct ini_stack *st, const struct ini_stack_params *p, char *err, size_t errlen);
/* Closes the transport (frames it held freed) and the link (frames
 * queued and never sent freed, its mbufs back in the pool), and frees the
 * pool if it made it. */
void ini_stack_close(struct ini_stack *st);

/* The turn's work of the transport: acks taken, timers (swp.h). */
static inline int ini_stack_poll(struct ini_stack *st, uint64_t now)
{
    return ini_swp_poll(st->swp, now);
}

/* A frame received on one of the ports (the stack owns m from here;
 * meta, the owner's, describes it: dgram.h struct ini_rx_meta). */
static inline void ini_stack_input(struct ini_stack *st, struct rte_mbuf *m, struct ini_rx_meta *meta)
{
    ini_dgram_input(&st->dg, m, meta);
}

/* Sends what the link queued; returns the frames still waiting (a full
 * port): the owner should not go idle while any do. */
static inline int ini_stack_flush(struct ini_stack *st)
{
    return ini_netif_flush(&st->nf);
}

/* lwIP's timers (IP reassembly ageing): about every 100 ms. */
static inline void ini_stack_timers(struct ini_stack *st)
{
    ini_dgram_timers(&st->dg);
}

#endif
