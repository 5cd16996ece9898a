/*
 * fabric.c - the out-of-line part of the compute-node/INI hand-off (see
 * fabric.h): ringing an INI's doorbell FIFO, which happens only while that
 * INI sleeps, and the consumer's half of sleeping.
 *
 * A FIFO whose reader died raises SIGPIPE on write, which would kill the
 * ringer (an INI ringing a dead memif peer, a program ringing a dead INI).
 * The write runs with SIGPIPE blocked in the calling thread, and a SIGPIPE
 * it raised is taken back before unblocking: EPIPE is reported instead,
 * whatever the process's own SIGPIPE disposition.  Two more system calls
 * per ring, paid only while the consumer sleeps.
 */
#include "fabric.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

/* write() of one byte with SIGPIPE turned into EPIPE for this thread. */
static ssize_t write_no_sigpipe(int fd, const void *buf, size_t len)
{
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    ssize_t n = write(fd, buf, len);
    int e = errno;
    if (n < 0 && e == EPIPE && !sigismember(&old, SIGPIPE)) {
        /* Ours, pending while blocked: take it back. */
        const struct timespec zero = { 0, 0 };
        while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return n;
}

int ini_fabric_ring_fifo(int *fd, const char *path)
{
    int f = __atomic_load_n(fd, __ATOMIC_ACQUIRE);
    if (f < 0) {
        int nfd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (nfd < 0)
            return 0;
        int expected = -1;
        if (!__atomic_compare_exchange_n(fd, &expected, nfd, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            close(nfd);
        f = __atomic_load_n(fd, __ATOMIC_ACQUIRE);
    }
    char b = 1;
    if (write_no_sigpipe(f, &b, 1) >= 0 || errno == EAGAIN)
        return 0;
    if (errno != EPIPE)
        return -1;
    /* The reader is gone: the INI died, and the launcher restarts it on a
     * new FIFO at the same path (docs/transport.md, "An INI that
     * restarts").  A descriptor kept on the old FIFO would ring nobody for
     * the rest of the run, and the restarted INI, asleep, would see a
     * compute node's message only at its next timeout (100 ms with memif
     * peers).  Open the path again and put the new FIFO under the old
     * number: dup3 replaces it atomically, so a thread writing through the
     * number meanwhile writes to one FIFO or the other, never to a file
     * that took the number after a close.  While the INI is down the open
     * fails (ENXIO, no reader; ENOENT between its unlink and mkfifo) and
     * the old descriptor stays, to be tried again at the next ring. */
    int nfd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (nfd < 0)
        return -1;
    int r = dup3(nfd, f, O_CLOEXEC);
    close(nfd);
    if (r < 0 || (write_no_sigpipe(f, &b, 1) < 0 && errno != EAGAIN))
        return -1;
    return 0;
}

int ini_fabric_sleep(_Atomic uint32_t *const sleeping[], int n, uint32_t on, int (*pending)(void *ctx),
                     void (*sleep)(void *ctx), void *ctx)
{
    for (int k = 0; k < n; k++)
        atomic_store_explicit(sleeping[k], on, memory_order_relaxed);
    /* Pairs with the producer's fence between publishing and reading the
     * announcement (ini_fabric_wake_pe, ini_fabric_consumer_sleeps). */
    atomic_thread_fence(memory_order_seq_cst);
    int slept = !pending(ctx);
    if (slept)
        sleep(ctx);
    for (int k = 0; k < n; k++)
        atomic_store_explicit(sleeping[k], 0, memory_order_relaxed);
    return slept;
}

/* ini_fabric_sleep_futex's sleep: on the bell, while it still shows the
 * value read before the announcement. */
struct futex_sleep {
    _Atomic uint32_t *bell;
    uint32_t seen;
    uint64_t timeout_us;
    int (*pending)(void *ctx);
    void *ctx;
};

static int futex_pending(void *arg)
{
    struct futex_sleep *f = arg;
    return f->pending(f->ctx);
}

static void futex_sleep(void *arg)
{
    struct futex_sleep *f = arg;
    ini_doorbell_wait(f->bell, f->seen, f->timeout_us);
}

int ini_fabric_sleep_futex(_Atomic uint32_t *bell, _Atomic uint32_t *const sleeping[], int n, uint32_t on,
                           int (*pending)(void *ctx), void *ctx, uint64_t timeout_us)
{
    struct futex_sleep f = { bell, atomic_load_explicit(bell, memory_order_acquire), timeout_us, pending, ctx };
    return ini_fabric_sleep(sleeping, n, on, futex_pending, futex_sleep, &f);
}
