/*
 * fabric.c - the out-of-line part of the compute-node/INI hand-off (see
 * fabric.h): ringing an INI's doorbell FIFO, which happens only while that
 * INI sleeps.
 */
#include "fabric.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

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
    if (write(f, &b, 1) < 0 && errno != EAGAIN)
        return -1;
    return 0;
}
