/*
 * bench_ofi.c - a peer beside the INI: libfabric's reliable datagrams over
 * UDP (the `udp;ofi_rxd` provider stack: RXD's reliability, segmentation
 * and flow control on top of plain UDP sockets, FI_EP_RDM), measured by the
 * same engine and tests as every other layer (layer ofi-rxd-udp).  It is
 * the closest published design to the INI's own: a reliable protocol in
 * user space over UDP/IP.
 *
 * Processes: as bench_kernel.c, a client (measuring) and a server, forked
 * and pinned to the benchmark's two cores, over the loopback device (the
 * provider's 127.0.0.1 domain), busy-polling their completion queue (RXD
 * progresses manually, inside fi_cq_read).  Each opens fabric, domain,
 * address vector, completion queue and endpoint after the fork; the two
 * exchange endpoint names over a socketpair.
 *
 * Sends complete asynchronously: each goes from its own buffer of a ring
 * of OFI_SLOTS, freed by its send completion; a send whose slot is busy
 * (or that the provider refuses with -FI_EAGAIN) reports "no room" and
 * the engine polls.  OFI_RECVS receives of the largest message are posted
 * and reposted as they complete; the message is taken where it landed.
 *
 * Built only when pkg-config finds libfabric (tools/bench/module.mk
 * defines BENCH_HAVE_OFI); otherwise, or when the provider is missing,
 * the layer is reported as skipped, with the reason.
 */
#include "bench.h"

#include <stdio.h>
#include <string.h>

#if BENCH_HAVE_OFI

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#define OFI_SLOTS 64
#define OFI_RECVS 64

struct ofi_op {
    struct fi_context2 ctx;           /* first: the completion's op_context */
    int busy;
    int is_recv;
    uint8_t *buf;
};

static struct {
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    fi_addr_t peer;
    struct bench_eng eng;
    struct ofi_op tx[OFI_SLOTS], rx[OFI_RECVS];
    unsigned next;
} O;

static int post_recv(struct ofi_op *op)
{
    ssize_t r;
    while ((r = fi_recv(O.ep, op->buf, BENCH_MAX_MSG, NULL, FI_ADDR_UNSPEC, &op->ctx)) == -FI_EAGAIN) {
        struct fi_cq_msg_entry e;
        (void)fi_cq_read(O.cq, &e, 0);          /* progress only */
    }
    return r == 0 ? 0 : -1;
}

static int o_poll(void *ctx)
{
    struct fi_cq_msg_entry e[16];
    ssize_t n = fi_cq_read(O.cq, e, 16);
    if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry err;
        memset(&err, 0, sizeof(err));
        fi_cq_readerr(O.cq, &err, 0);
        struct ofi_op *op = err.op_context;
        if (op && op->is_recv)
            post_recv(op);
        else if (op)
            op->busy = 0;
        return 0;
    }
    if (n <= 0)
        return 0;
    for (ssize_t i = 0; i < n; i++) {
        struct ofi_op *op = e[i].op_context;
        if (e[i].flags & FI_RECV) {
            if (e[i].len >= BENCH_HDR)
                bench_deliver(&O.eng, op->buf, (uint32_t)e[i].len);
            post_recv(op);
        } else {
            op->busy = 0;
        }
    }
    return (int)n;
}

static int o_send(void *ctx, const uint8_t h[BENCH_HDR], uint32_t len)
{
    struct ofi_op *op = &O.tx[O.next % OFI_SLOTS];
    if (op->busy)
        return -1;
    memcpy(op->buf, h, BENCH_HDR);
    ssize_t r = fi_send(O.ep, op->buf, len, NULL, O.peer, &op->ctx);
    if (r != 0)
        return -1;                            /* -FI_EAGAIN: the engine polls */
    op->busy = 1;
    O.next++;
    return 0;
}

static void o_flush(void *ctx) { }

static const struct bench_ops o_ops = { o_send, o_flush, o_poll, NULL, 0 };

/* The provider's loopback domain, else its first. */
static struct fi_info *pick(struct fi_info *list)
{
    for (struct fi_info *i = list; i; i = i->next)
        if (i->domain_attr && i->domain_attr->name && !strcmp(i->domain_attr->name, "lo"))
            return i;
    return list;
}

static const char *ofi_up(int role, int ctl)
{
    struct fi_info *hints = fi_allocinfo(), *list = NULL;
    if (!hints)
        return "fi_allocinfo failed";
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_MSG;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    hints->fabric_attr->prov_name = strdup("udp;ofi_rxd");
    int rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    if (rc != 0 || !list)
        return "provider udp;ofi_rxd not available";
    struct fi_info *info = pick(list);
    if (info->ep_attr->max_msg_size < BENCH_MAX_MSG)
        return "provider's largest message is under 65,000 bytes";
    struct fi_av_attr av = { .type = FI_AV_TABLE };
    struct fi_cq_attr cq = { .format = FI_CQ_FORMAT_MSG, .size = 4096 };
    if (fi_fabric(info->fabric_attr, &O.fabric, NULL) || fi_domain(O.fabric, info, &O.domain, NULL) ||
        fi_av_open(O.domain, &av, &O.av, NULL) || fi_cq_open(O.domain, &cq, &O.cq, NULL) ||
        fi_endpoint(O.domain, info, &O.ep, NULL) || fi_ep_bind(O.ep, &O.av->fid, 0) ||
        fi_ep_bind(O.ep, &O.cq->fid, FI_TRANSMIT | FI_RECV) || fi_enable(O.ep))
        return "opening the endpoint failed";
    fi_freeinfo(list);
    uint8_t name[256], peer[256];
    size_t nlen = sizeof(name);
    if (fi_getname(&O.ep->fid, name, &nlen))
        return "fi_getname failed";
    uint64_t n = nlen, peer_n;
    if (bench_write_full(ctl, &n, sizeof(n)) < 0 || bench_write_full(ctl, name, nlen) < 0 ||
        bench_read_full(ctl, &peer_n, sizeof(peer_n)) < 0 || peer_n > sizeof(peer) ||
        bench_read_full(ctl, peer, (size_t)peer_n) < 0)
        return "address exchange failed";
    if (fi_av_insert(O.av, peer, 1, &O.peer, 0, NULL) != 1)
        return "fi_av_insert failed";
    uint8_t *mem = calloc(OFI_SLOTS + OFI_RECVS, BENCH_MAX_MSG);
    if (!mem)
        return "out of memory";
    for (size_t i = 0; i < (size_t)OFI_SLOTS * BENCH_MAX_MSG; i++)
        mem[i] = (uint8_t)(i * 13 + 1);
    for (int i = 0; i < OFI_SLOTS; i++)
        O.tx[i].buf = mem + (size_t)i * BENCH_MAX_MSG;
    for (int i = 0; i < OFI_RECVS; i++) {
        O.rx[i].buf = mem + (size_t)(OFI_SLOTS + i) * BENCH_MAX_MSG;
        O.rx[i].is_recv = 1;
        if (post_recv(&O.rx[i]) < 0)
            return "fi_recv failed";
    }
    char b = 'r';
    if (bench_write_full(ctl, &b, 1) < 0 || bench_read_full(ctl, &b, 1) < 0)
        return "handshake failed";
    return NULL;
}

int bench_ofi_layer(const struct bench_setup *s, struct layer_result *r)
{
    static const struct bench_peer peer = { "libfabric (udp;ofi_rxd)", ofi_up, &O.eng, &o_ops, 20 };
    return bench_run_pair(s, &peer, r);
}

#else   /* no libfabric at build time */

int bench_ofi_layer(const struct bench_setup *s, struct layer_result *r)
{
    memset(r, 0, sizeof(*r));
    r->skipped = 1;
    snprintf(r->err, sizeof(r->err), "libfabric was not found when ini-bench was built (make deps: libfabric-dev)");
    return -1;
}

#endif
