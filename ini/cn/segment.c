/*
 * segment.c - create, attach and lay out a cluster's shared segment
 * (see segment.h).
 */
#include "segment.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

void ini_segment_name(char *buf, size_t len, const char *tag, int cluster)
{
    snprintf(buf, len, "/ini-%s-c%d", tag, cluster);
}

static uint64_t layout_bytes(uint32_t n_pes, uint32_t n_inis, uint64_t ring_size, uint64_t *rings_off)
{
    uint64_t off = (sizeof(struct ini_segment) + 4095) & ~4095ull;
    *rings_off = off;
    return off + (uint64_t)n_pes * n_inis * 2 * (sizeof(struct ini_ring) + ring_size);
}

uint64_t ini_segment_bytes(const struct ini_config *cfg, int cluster, uint64_t ring_size)
{
    const struct ini_cluster_cfg *cl = &cfg->clusters[cluster];
    uint64_t rings_off;
    return layout_bytes((uint32_t)cl->n_pes, (uint32_t)cl->n_inis, ring_size, &rings_off);
}

struct ini_segment *ini_segment_create(const char *name, const struct ini_config *cfg,
                                       int cluster, uint64_t ring_size)
{
    const struct ini_cluster_cfg *cl = &cfg->clusters[cluster];
    uint64_t rings_off;
    uint64_t bytes = layout_bytes((uint32_t)cl->n_pes, (uint32_t)cl->n_inis, ring_size, &rings_off);

    shm_unlink(name);
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0)
        return NULL;
    /* Allocated now, not sparse: a /dev/shm too small for the segment is
     * an error here (ENOSPC), not a SIGBUS in whoever first touches a page
     * that does not fit, mid-run. */
    int rc = posix_fallocate(fd, 0, (off_t)bytes);
    if (rc != 0) {
        close(fd);
        shm_unlink(name);
        errno = rc;
        return NULL;
    }
    struct ini_segment *seg = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (seg == MAP_FAILED)
        return NULL;

    /* The allocation zero-fills: only non-zero fields need writing. */
    seg->version = INI_SEG_VERSION;
    seg->cluster = (uint32_t)cluster;
    seg->bytes = bytes;
    seg->ring_size = ring_size;
    seg->rings_offset = rings_off;
    seg->n_pes = (uint32_t)cl->n_pes;
    seg->n_inis = (uint32_t)cl->n_inis;
    for (int i = 0; i < cl->n_pes; i++)
        seg->pe_ids[i] = cl->pes[i];
    for (int i = 0; i < cl->n_inis; i++)
        seg->ini_ids[i] = cl->inis[i];
    for (int p = 0; p < cl->n_pes; p++)
        for (int i = 0; i < cl->n_inis; i++) {
            ini_ring_init(ini_segment_ring(seg, p, i, INI_TO_INI), ring_size);
            ini_ring_init(ini_segment_ring(seg, p, i, INI_TO_PE), ring_size);
        }
    atomic_thread_fence(memory_order_release);
    seg->magic = INI_SEG_MAGIC;
    return seg;
}

struct ini_segment *ini_segment_attach(const char *name, int cluster, char *err, size_t errlen)
{
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0) {
        snprintf(err, errlen, "segment %s: %s", name, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || (size_t)st.st_size < sizeof(struct ini_segment)) {
        snprintf(err, errlen, "segment %s: too small", name);
        close(fd);
        return NULL;
    }
    struct ini_segment *seg = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (seg == MAP_FAILED) {
        snprintf(err, errlen, "segment %s: mmap: %s", name, strerror(errno));
        return NULL;
    }
    if (seg->magic != INI_SEG_MAGIC || seg->version != INI_SEG_VERSION ||
        seg->bytes != (uint64_t)st.st_size) {
        snprintf(err, errlen, "segment %s: not an INI segment of this version", name);
        munmap(seg, (size_t)st.st_size);
        return NULL;
    }
    if (cluster >= 0 && seg->cluster != (uint32_t)cluster) {
        snprintf(err, errlen, "segment %s: belongs to cluster %u, not %d", name, seg->cluster, cluster);
        munmap(seg, (size_t)st.st_size);
        return NULL;
    }
    return seg;
}

/* The process holding the flock on fd, from /proc/locks ("N: FLOCK
 * ADVISORY WRITE PID MAJ:MIN:INODE 0 EOF", major and minor in hex), and its
 * command name; 0 when it cannot be told. */
static pid_t lock_holder(int fd, char *comm, size_t len)
{
    struct stat st;
    FILE *f = fstat(fd, &st) == 0 ? fopen("/proc/locks", "r") : NULL;
    if (!f)
        return 0;
    char line[256], kind[16];
    int pid = 0, found = 0;
    unsigned maj, min;
    unsigned long ino;
    while (!found && fgets(line, sizeof line, f))
        found = !strstr(line, "->") &&
                sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%lu", kind, &pid, &maj, &min, &ino) == 5 &&
                !strcmp(kind, "FLOCK") && ino == st.st_ino && maj == major(st.st_dev) && min == minor(st.st_dev);
    fclose(f);
    if (!found || pid <= 0)
        return 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/comm", pid);
    comm[0] = 0;
    FILE *c = fopen(path, "r");
    if (c) {
        if (fgets(comm, (int)len, c))
            comm[strcspn(comm, "\n")] = 0;
        fclose(c);
    }
    return pid;
}

int ini_segment_claim(const char *name, char *err, size_t errlen)
{
    int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "segment %s: %s", name, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        char comm[32];
        pid_t holder = e == EWOULDBLOCK ? lock_holder(fd, comm, sizeof comm) : 0;
        if (holder > 0)
            snprintf(err, errlen, "segment %s: already attached by another program, pid %d (%s): one program "
                                  "per cluster (run this one with another cluster's INI_CLUSTER and "
                                  "INI_SEGMENT, or stop that one)", name, (int)holder, comm);
        else if (e == EWOULDBLOCK)
            snprintf(err, errlen, "segment %s: already attached by another program: one program per cluster "
                                  "(run this one with another cluster's INI_CLUSTER and INI_SEGMENT, "
                                  "or stop that one)", name);
        else
            snprintf(err, errlen, "segment %s: lock: %s", name, strerror(e));
        close(fd);
        return -1;
    }
    return fd;
}

void ini_segment_detach(struct ini_segment *seg)
{
    if (seg)
        munmap(seg, seg->bytes);
}

int ini_segment_unlink(const char *name)
{
    return shm_unlink(name);
}

void ini_doorbell_ring(_Atomic uint32_t *word)
{
    atomic_fetch_add_explicit(word, 1, memory_order_release);
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, 1 << 30, NULL, NULL, 0);
}

void ini_doorbell_wait(_Atomic uint32_t *word, uint32_t seen, uint64_t timeout_us)
{
    struct timespec ts = { (time_t)(timeout_us / 1000000), (long)(timeout_us % 1000000) * 1000 };
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, seen, timeout_us ? &ts : NULL, NULL, 0);
}
