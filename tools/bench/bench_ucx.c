/*
 * bench_ucx.c - a peer beside the INI: UCX active messages (UCP AM), what
 * a user of this machine could pick instead, measured by the same engine
 * and tests as every other layer.  Two layers:
 *
 *   ucx-am-tcp  UCX_TLS=tcp over the loopback device
 *   ucx-am-sm   UCX_TLS=sm (shared memory: posix/sysv segments, CMA)
 *
 * Processes: as bench_kernel.c, a client (measuring) and a server, forked
 * and pinned to the benchmark's two cores, busy-polling their UCP worker
 * (ucp_worker_progress in the engine's poll).  Each creates its context
 * and worker after the fork with the transport in its environment, and
 * the two exchange worker addresses over a socketpair.
 *
 * A message is one ucp_am_send_nbx: the engine's 8-byte header as the AM
 * header, the rest of the message as its data.  Sends complete
 * asynchronously, so each goes from its own buffer of a ring of
 * UCX_SLOTS (header and data stay untouched until UCX is done with them);
 * a send finding its slot still busy reports "no room" and the engine
 * polls.  On receive, eager data is taken where UCX put it (as the
 * reliable layer takes a reassembled datagram, without a copy out);
 * rendezvous data (large messages) is fetched into a receive buffer with
 * ucp_am_recv_data_nbx, and the message counts when that completes.
 *
 * Built only when pkg-config finds ucx (tools/bench/module.mk defines
 * BENCH_HAVE_UCX); otherwise, or when UCX cannot set up the transport on
 * this machine, the layers are reported as skipped, with the reason.
 */
#include "bench.h"

#include <stdio.h>
#include <string.h>

#if BENCH_HAVE_UCX

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

#define UCX_AM_ID  7
#define UCX_SLOTS  64
#define UCX_RX_PEND 256

static struct {
    ucp_context_h ctx;
    ucp_worker_h worker;
    ucp_ep_h ep;
    struct bench_eng eng;
    struct {
        void *req;                        /* NULL: free */
        uint8_t hdr[BENCH_HDR];
    } slot[UCX_SLOTS];
    unsigned next;
    /* rendezvous receives in flight: the header of each */
    struct {
        uint8_t hdr[BENCH_HDR];
        uint32_t len;
    } rx[UCX_RX_PEND];
    unsigned rx_next;
    const char *tls;                      /* UCX_TLS of this run */
} U;

static uint8_t *u_data;                   /* UCX_SLOTS x BENCH_MAX_MSG */
static uint8_t u_rxbuf[BENCH_MAX_MSG];

static int slot_free(unsigned i)
{
    void *r = U.slot[i].req;
    if (!r)
        return 1;
    if (ucp_request_check_status(r) == UCS_INPROGRESS)
        return 0;
    ucp_request_free(r);
    U.slot[i].req = NULL;
    return 1;
}

static int u_send(void *ctx, const uint8_t h[BENCH_HDR], uint32_t len)
{
    unsigned i = U.next % UCX_SLOTS;
    if (!slot_free(i))
        return -1;
    memcpy(U.slot[i].hdr, h, BENCH_HDR);
    uint8_t *data = u_data + (size_t)i * BENCH_MAX_MSG;
    ucp_request_param_t prm = { .op_attr_mask = 0 };
    ucs_status_ptr_t r = ucp_am_send_nbx(U.ep, UCX_AM_ID, U.slot[i].hdr, BENCH_HDR, data, len - BENCH_HDR, &prm);
    if (UCS_PTR_IS_ERR(r))
        return -1;
    U.slot[i].req = UCS_PTR_IS_PTR(r) ? r : NULL;
    U.next++;
    return 0;
}

static void u_flush(void *ctx) { }

static int u_poll(void *ctx)
{
    return (int)ucp_worker_progress(U.worker);
}

static const struct bench_ops u_ops = { u_send, u_flush, u_poll, NULL, 0 };

static void rndv_done(void *request, ucs_status_t status, size_t length, void *user_data)
{
    unsigned k = (unsigned)(uintptr_t)user_data;
    if (status == UCS_OK)
        bench_deliver(&U.eng, U.rx[k].hdr, U.rx[k].len);
    ucp_request_free(request);
}

static ucs_status_t am_recv(void *arg, const void *header, size_t header_length, void *data, size_t length,
                            const ucp_am_recv_param_t *param)
{
    if (header_length < BENCH_HDR)
        return UCS_OK;
    if (!(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
        bench_deliver(&U.eng, header, (uint32_t)(header_length + length));
        return UCS_OK;
    }
    unsigned k = U.rx_next++ % UCX_RX_PEND;
    memcpy(U.rx[k].hdr, header, BENCH_HDR);
    U.rx[k].len = (uint32_t)(header_length + length);
    ucp_request_param_t prm = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.recv_am = rndv_done,
        .user_data = (void *)(uintptr_t)k,
    };
    ucs_status_ptr_t r = ucp_am_recv_data_nbx(U.worker, data, u_rxbuf,
                                              length < sizeof(u_rxbuf) ? length : sizeof(u_rxbuf), &prm);
    if (!UCS_PTR_IS_PTR(r) && !UCS_PTR_IS_ERR(r))
        bench_deliver(&U.eng, U.rx[k].hdr, U.rx[k].len);     /* completed at once */
    return UCS_OK;
}

/* Context, worker, endpoint to the peer (addresses over ctl).  NULL on
 * success, else what failed. */
static const char *ucx_up(int role, int ctl)
{
    const char *tls = U.tls;
    setenv("UCX_TLS", tls, 1);
    if (!strcmp(tls, "tcp"))
        setenv("UCX_NET_DEVICES", "lo", 1);
    setenv("UCX_WARN_UNUSED_ENV_VARS", "n", 1);
    ucp_params_t prm = { .field_mask = UCP_PARAM_FIELD_FEATURES, .features = UCP_FEATURE_AM };
    ucp_config_t *cfg;
    if (ucp_config_read(NULL, NULL, &cfg) != UCS_OK)
        return "ucp_config_read failed";
    ucs_status_t st = ucp_init(&prm, cfg, &U.ctx);
    ucp_config_release(cfg);
    if (st != UCS_OK)
        return "ucp_init failed";
    ucp_worker_params_t wp = { .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                               .thread_mode = UCS_THREAD_MODE_SINGLE };
    if (ucp_worker_create(U.ctx, &wp, &U.worker) != UCS_OK)
        return "ucp_worker_create failed";
    ucp_address_t *addr;
    size_t alen;
    if (ucp_worker_get_address(U.worker, &addr, &alen) != UCS_OK)
        return "ucp_worker_get_address failed";
    uint64_t n = alen, peer_n;
    if (bench_write_full(ctl, &n, sizeof(n)) < 0 || bench_write_full(ctl, addr, alen) < 0 ||
        bench_read_full(ctl, &peer_n, sizeof(peer_n)) < 0 || peer_n > 65536)
        return "address exchange failed";
    static uint8_t peer[65536];
    if (bench_read_full(ctl, peer, (size_t)peer_n) < 0)
        return "address exchange failed";
    ucp_worker_release_address(U.worker, addr);
    ucp_ep_params_t ep = { .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
                           .address = (const ucp_address_t *)peer };
    if (ucp_ep_create(U.worker, &ep, &U.ep) != UCS_OK)
        return "ucp_ep_create failed (transport not available here?)";
    ucp_am_handler_param_t hp = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                      UCP_AM_HANDLER_PARAM_FIELD_ARG,
        .id = UCX_AM_ID, .cb = am_recv, .arg = NULL,
    };
    if (ucp_worker_set_am_recv_handler(U.worker, &hp) != UCS_OK)
        return "ucp_worker_set_am_recv_handler failed";
    u_data = calloc(UCX_SLOTS, BENCH_MAX_MSG);
    if (!u_data)
        return "out of memory";
    for (size_t i = 0; i < (size_t)UCX_SLOTS * BENCH_MAX_MSG; i++)
        u_data[i] = (uint8_t)(i * 13 + 1);
    /* Both ends ready before the first message. */
    char b = 'r';
    if (bench_write_full(ctl, &b, 1) < 0 || bench_read_full(ctl, &b, 1) < 0)
        return "handshake failed";
    return NULL;
}

int bench_ucx_layer(const struct bench_setup *s, const char *tls, struct layer_result *r)
{
    char name[96];
    snprintf(name, sizeof(name), "UCX (UCX_TLS=%s)", tls);
    U.tls = tls;
    const struct bench_peer peer = { name, ucx_up, &U.eng, &u_ops, 5 };
    return bench_run_pair(s, &peer, r);
}

#else   /* no UCX at build time */

int bench_ucx_layer(const struct bench_setup *s, const char *tls, struct layer_result *r)
{
    memset(r, 0, sizeof(*r));
    r->skipped = 1;
    snprintf(r->err, sizeof(r->err), "UCX was not found when ini-bench was built (make deps: libucx-dev)");
    return -1;
}

#endif
