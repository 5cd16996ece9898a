/*
 * stack.c - an INI's protocol stack, assembled (see stack.h).
 */
#include "stack.h"

#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "lwip/init.h"

/* lwIP is one per process (NO_SYS: its state is global): the first stack
 * opened initialises it, and the stacks of a process share it. */
static int lwip_ready;

void ini_stack_params_default(struct ini_stack_params *p)
{
    memset(p, 0, sizeof(*p));
    ini_swp_params_default(&p->swp);
    p->pool_name = "ini_mbufs";
    p->n_mbufs = INI_STACK_MBUFS;
    p->pool_cache = 256;
}

_Static_assert(RTE_PKTMBUF_HEADROOM == 128 && RTE_MBUF_DEFAULT_BUF_SIZE == 2048 + 128,
               "stack_defaults.h ini_stack_mbuf_room counts DPDK's headroom and default size");

struct rte_mempool *ini_stack_pool_create(const char *name, unsigned n, uint16_t room, unsigned cache)
{
    return rte_pktmbuf_pool_create(name, n, cache, INI_MBUF_PRIV_SIZE, room, (int)rte_socket_id());
}

int ini_stack_open(struct ini_stack *st, const struct ini_stack_params *p, char *err, size_t errlen)
{
    memset(st, 0, sizeof(*st));
    const struct ini_swp_params *t = &p->swp;
    if (t->me < 0 || t->me >= INI_SWP_MAX_INIS) {
        snprintf(err, errlen, "INI id %d out of range 0..%d", t->me, INI_SWP_MAX_INIS - 1);
        return -1;
    }
    st->pool = p->pool;
    if (!st->pool) {
        uint16_t room = p->mbuf_room ? p->mbuf_room : (uint16_t)ini_stack_mbuf_room(t->mtu);
        st->pool = ini_stack_pool_create(p->pool_name, p->n_mbufs, room, p->pool_cache);
        if (!st->pool) {
            snprintf(err, errlen, "mbuf pool %s: %s", p->pool_name, rte_strerror(rte_errno));
            return -1;
        }
        st->own_pool = 1;
    }
    if (!lwip_ready) {
        lwip_init();
        lwip_ready = 1;
    }
    if (ini_netif_init(&st->nf, t->ip[t->me], p->mac, t->mtu, st->pool) < 0) {
        snprintf(err, errlen, "lwIP refused the link's netif");
    } else if (!(st->swp = ini_swp_open(t, &st->dg, &st->nf, p->deliver, p->release, p->ctx))) {
        snprintf(err, errlen, "the transport: parameters out of range, no memory, or UDP port %d taken",
                 INI_UDP_PORT);
        ini_netif_close(&st->nf);
    } else {
        return 0;
    }
    if (st->own_pool)
        rte_mempool_free(st->pool);
    memset(st, 0, sizeof(*st));
    return -1;
}

void ini_stack_close(struct ini_stack *st)
{
    ini_swp_close(st->swp);
    st->swp = NULL;
    ini_netif_close(&st->nf);
    if (st->own_pool)
        rte_mempool_free(st->pool);
    st->pool = NULL;
    st->own_pool = 0;
}
