/*
 * bench_pair.c - the two-process frame of the peer layers (kernel UDP, UCX,
 * libfabric): a client and a server, each forked, pinned to its core and
 * brought up by the layer's own `up`, run the engine's suite against each
 * other; the client's result comes back to the parent through a pipe.
 *
 * Each layer keeps only what is its own (its bring-up and its bench_ops);
 * the fork, the pinning, the skip report, the quiescing and the reaping are
 * here once, so the three peers cannot drift apart in how they are measured.
 */
#include "bench.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* All len bytes through read or write, resuming after signals; 0, or -1
 * on an error or end of file.  Writing, p is only read (the cast in
 * bench_write_full). */
static int transfer_full(int fd, uint8_t *p, size_t len, int writing)
{
    while (len) {
        ssize_t n = writing ? write(fd, p, len) : read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int bench_write_full(int fd, const void *buf, size_t len)
{
    return transfer_full(fd, (uint8_t *)(uintptr_t)buf, len, 1);
}

int bench_read_full(int fd, void *buf, size_t len)
{
    return transfer_full(fd, buf, len, 0);
}

/* In the forked child of `role` (0 client, 1 server): never returns. */
static void run_side(const struct bench_setup *s, const struct bench_peer *peer, int role, int ctl, int out)
{
    bench_pin_cpu(s->cores[role]);
    struct layer_result res;
    memset(&res, 0, sizeof(res));
    const char *why = peer->up(role, ctl);
    if (why) {
        if (role == 1)
            _exit(1);
        res.skipped = 1;
        snprintf(res.err, sizeof(res.err), "%s: %s", peer->name, why);
        _exit(bench_write_full(out, &res, sizeof(res)) == 0 ? 0 : 1);
    }
    bench_eng_init(peer->eng, peer->ops, NULL);
    if (role == 1) {
        bench_serve(peer->eng);
        if (peer->drain_ms)
            bench_drain(peer->eng, peer->drain_ms);
        _exit(0);
    }
    bench_run_suite(peer->eng, &s->p, &res);
    bench_send_kind(peer->eng, BK_STOP);
    if (peer->drain_ms)
        bench_drain(peer->eng, peer->drain_ms);
    _exit(bench_write_full(out, &res, sizeof(res)) == 0 ? 0 : 1);
}

int bench_run_pair(const struct bench_setup *s, const struct bench_peer *peer, struct layer_result *r)
{
    memset(r, 0, sizeof(*r));
    int ctl[2], out[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, ctl) < 0 || pipe(out) < 0) {
        snprintf(r->err, sizeof(r->err), "%s: socketpair: %s", peer->name, strerror(errno));
        return -1;
    }
    bench_tsc_hz();
    fflush(NULL);
    pid_t pid[2];
    for (int role = 1; role >= 0; role--) {
        pid[role] = fork();
        if (pid[role] == 0) {
            close(out[0]);
            close(ctl[role]);
            run_side(s, peer, role, ctl[1 - role], out[1]);
        }
    }
    close(out[1]);
    close(ctl[0]);
    close(ctl[1]);
    int got = pid[0] > 0 && bench_read_full(out[0], r, sizeof(*r)) == 0;
    close(out[0]);
    int st;
    if (pid[0] > 0)
        waitpid(pid[0], &st, 0);
    if (pid[1] > 0) {
        if (!got || r->skipped)
            kill(pid[1], SIGKILL);
        waitpid(pid[1], &st, 0);
    }
    if (!got) {
        memset(r, 0, sizeof(*r));
        snprintf(r->err, sizeof(r->err), "the %s client failed", peer->name);
        return -1;
    }
    return r->ok ? 0 : -1;
}
