/*
 * bench_kernel.c - the everyday alternative: kernel UDP sockets over the
 * loopback interface, blocking, one process per side pinned to the same
 * cores as the DPDK layers.  send() per message, recv() blocking (the
 * next ones with MSG_DONTWAIT, up to a burst).  The receive buffer is
 * raised to 16 MB so that a flood of 64 KB messages at the bandwidth depth
 * cannot overflow it (the credits of the engine bound what is in flight).
 */
#include "bench.h"

#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static struct {
    int fd;
    struct bench_eng eng;
} K;

static uint8_t k_src[BENCH_MAX_MSG], k_rx[BENCH_MAX_MSG + 64];

static int k_send(void *ctx, const uint8_t h[BENCH_HDR], uint32_t len)
{
    memcpy(k_src, h, BENCH_HDR);
    return send(K.fd, k_src, len, 0) == (ssize_t)len ? 0 : -1;
}

static void k_flush(void *ctx) { }

static int k_poll(void *ctx)
{
    int n = 0;
    for (int flags = 0; n < 32; flags = MSG_DONTWAIT) {
        ssize_t r = recv(K.fd, k_rx, sizeof(k_rx), flags);
        if (r < BENCH_HDR)
            break;
        bench_deliver(&K.eng, k_rx, (uint32_t)r);
        n++;
    }
    return n;
}

static const struct bench_ops k_ops = { k_send, k_flush, k_poll, NULL, 0 };

static int udp_socket(struct sockaddr_in *addr)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0)
        return -1;
    int sz = 16 << 20;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)) < 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
    struct timeval tv = { 0, 100000 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    memset(addr, 0, sizeof(*addr));
    addr->sin_family = AF_INET;
    addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof(*addr);
    if (bind(fd, (struct sockaddr *)addr, sizeof(*addr)) < 0 ||
        getsockname(fd, (struct sockaddr *)addr, &al) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int k_fd[2];

/* The side `role` keeps its own socket; ctl is not needed (the sockets
 * are connected to each other before the fork). */
static const char *k_up(int role, int ctl)
{
    (void)ctl;
    close(k_fd[1 - role]);
    K.fd = k_fd[role];
    return NULL;
}

int bench_kernel_layer(const struct bench_setup *s, struct layer_result *r)
{
    struct sockaddr_in a[2];
    k_fd[0] = udp_socket(&a[0]);
    k_fd[1] = udp_socket(&a[1]);
    if (k_fd[0] < 0 || k_fd[1] < 0 || connect(k_fd[0], (struct sockaddr *)&a[1], sizeof(a[1])) < 0 ||
        connect(k_fd[1], (struct sockaddr *)&a[0], sizeof(a[0])) < 0) {
        snprintf(r->err, sizeof(r->err), "kernel UDP sockets: %s", strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < sizeof(k_src); i++)
        k_src[i] = (uint8_t)(i * 13 + 1);
    static const struct bench_peer peer = { "kernel UDP", k_up, &K.eng, &k_ops, 0 };
    int rc = bench_run_pair(s, &peer, r);
    close(k_fd[0]);
    close(k_fd[1]);
    return rc;
}
