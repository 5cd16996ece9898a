/*
 * vt_shm.c - the run's machine in a POSIX shared-memory object (vt_shm.h).
 */
#include "vt_shm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void name_slots(struct ini_vt_machine *m, int n_pes, int n_inis, const struct ini_vt_costs *c)
{
    uint64_t ini_la = (uint64_t)(c->wire < c->deliver ? c->wire : c->deliver);
    char name[24];
    for (int p = 0; p < n_pes; p++) {
        snprintf(name, sizeof name, "pe %d", p);
        ini_vt_slot_init(m, ini_vt_pe_slot(p), name, (uint64_t)c->handover);
    }
    for (int i = 0; i < n_inis; i++) {
        snprintf(name, sizeof name, "ini %d", i);
        ini_vt_slot_init(m, ini_vt_ini_slot(n_pes, i), name, ini_la);
    }
}

struct ini_vt_machine *ini_vt_shm_create(const char *name, int n_pes, int n_inis, uint64_t hz,
                                         const struct ini_vt_costs *costs, char *err, size_t errlen)
{
    uint32_t n = (uint32_t)(n_pes + n_inis);
    size_t bytes = ini_vt_size(n);
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "virtual time: cannot create %s: %s", name, strerror(errno));
        return NULL;
    }
    void *mem = MAP_FAILED;
    if (ftruncate(fd, (off_t)bytes) == 0)
        mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int e = errno;
    close(fd);
    if (mem == MAP_FAILED) {
        shm_unlink(name);
        snprintf(err, errlen, "virtual time: cannot map %s (%zu bytes): %s", name, bytes, strerror(e));
        return NULL;
    }
    struct ini_vt_machine *m = mem;
    if (ini_vt_init(m, n, hz, err, errlen) < 0) {
        munmap(mem, bytes);
        shm_unlink(name);
        return NULL;
    }
    name_slots(m, n_pes, n_inis, costs);
    return m;
}

struct ini_vt_machine *ini_vt_shm_attach(const char *name, char *err, size_t errlen)
{
    int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(err, errlen, "virtual time: cannot open %s: %s", name, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    void *mem = MAP_FAILED;
    if ((size_t)st.st_size >= sizeof(struct ini_vt_machine))
        mem = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    struct ini_vt_machine *m = mem;
    if (mem == MAP_FAILED || m->magic != INI_VT_MAGIC || ini_vt_size(m->n_slots) > (size_t)st.st_size) {
        if (mem != MAP_FAILED)
            munmap(mem, (size_t)st.st_size);
        snprintf(err, errlen, "virtual time: %s is not a virtual-time machine", name);
        return NULL;
    }
    return m;
}

void ini_vt_shm_detach(struct ini_vt_machine *m)
{
    if (m)
        munmap(m, ini_vt_size(m->n_slots));
}

int ini_vt_costs_from_env(struct ini_vt_costs *c, char *err, size_t errlen)
{
    const char *name = getenv(INI_VT_COSTS_ENV);
    if (!name || !*name)
        name = "thesis";
    if (ini_vt_costs_named(name, c) < 0) {
        snprintf(err, errlen, "%s: unknown cost set '%s' (" INI_VT_COST_SETS ")", INI_VT_COSTS_ENV, name);
        return -1;
    }
    return 0;
}
