/*
 * cluster_reap.c - see cluster_reap.h.
 */
#include "cluster_reap.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cluster_supervise.h"
#include "cluster_telemetry.h"
#include "cluster_util.h"

#define SHM_DIR   "/dev/shm"
#define NETNS_DIR "/var/run/netns"
#define WAKE_DIR  "/tmp"
#define MAX_TAGS  256
#define TAG_LEN   24
#define PATH_MAX_LEN 512

int become_subreaper(void)
{
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* The pids whose parent is us (from /proc/PID/stat), up to max. */
static int list_children(pid_t *out, int max)
{
    pid_t self = getpid();
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < max) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = 0;
        /* "PID (comm) S PPID ...": after the last ')'. */
        char *p = strrchr(buf, ')');
        char state;
        long ppid;
        if (p && sscanf(p + 1, " %c %ld", &state, &ppid) == 2 && ppid == self)
            out[n++] = (pid_t)pid;
    }
    closedir(d);
    return n;
}

int reap_descendants(int grace_ms)
{
    enum { MAX = 1024 };
    static pid_t kids[MAX];
    int found = 0, seen_any = 0;
    int64_t kill_at = 0;
    for (int round = 0; round < 1000; round++) {
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        int n = list_children(kids, MAX);
        if (n == 0)
            break;
        if (!seen_any) {
            seen_any = 1;
            kill_at = now_ms() + grace_ms;
        }
        int sig = now_ms() >= kill_at ? SIGKILL : SIGTERM;
        for (int i = 0; i < n; i++) {
            /* Its own group too: a setsid'd process leads one. */
            if (kill(-kids[i], sig) < 0)
                kill(kids[i], sig);
        }
        if (found < n)
            found = n;
        sleep_ms(10);
    }
    return found;
}

/* What each directory may hold of a run. */
enum left_kind { LEFT_NETNS, LEFT_SHM, LEFT_WAKE, LEFT_DPDK };

/* A tag is "HEX" or "HEX" plus one letter (cluster_launch's pick_tag).
 * What a run leaves is named PREFIX TAG then -lan or -cN (namespaces,
 * segments), -iN (an INI's state region, in /dev/shm), -N.wake (a daemon's doorbell FIFO in /tmp: inid's when its
 * run directory's path is too long for one, the fake daemon's always) or
 * -N (a daemon's DPDK runtime directory, its EAL file prefix; accepted in
 * DPDK's directory only). */
static int tag_of(const char *name, const char *prefix, enum left_kind kind, char *tag, size_t len)
{
    size_t pl = strlen(prefix);
    if (strncmp(name, prefix, pl) != 0)
        return -1;
    const char *t = name + pl, *dash = strchr(t, '-');
    if (!dash || dash == t || (size_t)(dash - t) >= len)
        return -1;
    for (const char *c = t; c < dash; c++) {
        int hex = (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f');
        if (!hex && !(c == dash - 1 && c > t && *c >= 'g' && *c <= 'z'))
            return -1;          /* not a launcher's tag: not ours to touch */
    }
    size_t digits = strspn(dash + 1, "0123456789");
    int wake = digits > 0 && strcmp(dash + 1 + digits, ".wake") == 0;
    if (kind == LEFT_DPDK) {
        if (!digits || dash[1 + digits])
            return -1;
    } else if (!wake && strcmp(dash, "-lan") != 0 &&
               ((dash[1] != 'c' && dash[1] != 'i') || !dash[2] ||
                strspn(dash + 2, "0123456789") != strlen(dash + 2))) {
        return -1;
    }
    memcpy(tag, t, (size_t)(dash - t));
    tag[dash - t] = 0;
    return 0;
}

/* Any live user process under the tag's pid counts: a launcher, or
 * another tool that named segments after its pid.  A reused pid only
 * delays the cleanup; it never removes what a live process uses.  Kernel
 * threads (an empty command line) do not count: they hold the low pids
 * that a wrapped-around pid counter hands to launchers again. */
static int is_launcher(pid_t pid)
{
    if (!process_alive(pid))
        return 0;
    char path[64], c = 0;
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;               /* cannot tell: keep the run */
    size_t got = fread(&c, 1, 1, f);
    fclose(f);
    return got == 1;
}

/* Some live process has `--tag TAG` on its command line (a daemon), or
 * is the supervisor of an `up` tagged TAG (cluster_supervise.h): between
 * a daemon's death and its restart no daemon carries the tag. */
static int tag_in_use(const char *tag)
{
    char sv[SUPERVISE_NAME_LEN];
    supervise_name(sv, sizeof sv, tag);
    DIR *d = opendir("/proc");
    if (!d)
        return 1;
    int used = 0;
    struct dirent *e;
    while (!used && (e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0 || pid == getpid())
            continue;
        used = (process_has_arg((pid_t)pid, tag) && process_has_arg((pid_t)pid, "--tag")) ||
               (process_comm_is((pid_t)pid, sv) && process_alive((pid_t)pid));   /* not a zombie */
    }
    closedir(d);
    return used;
}

static int tag_alive(const char *tag)
{
    char *end;
    unsigned long pid = strtoul(tag, &end, 16);
    if (*end == 0 && pid > 0 && pid < 1u << 22 && is_launcher((pid_t)pid))
        return 1;
    size_t n = strlen(tag);
    /* HEX plus a suffix letter g-z (pick_tag); a tag ending in a hex digit
     * has none, and its prefix is not a pid (tag 2d3 is pid 0x2d3, never
     * 0x2d; tag 4eb is pid 0x4eb, never 0x4e, which is a live process here:
     * read so, a dead run's tag 4eb was kept as alive). */
    if (n > 1 && tag[n - 1] >= 'g' && tag[n - 1] <= 'z') {
        char prefix[TAG_LEN];
        snprintf(prefix, sizeof prefix, "%.*s", (int)(n - 1), tag);
        pid = strtoul(prefix, &end, 16);
        if (*end == 0 && pid > 0 && pid < 1u << 22 && is_launcher((pid_t)pid))
            return 1;
    }
    return tag_in_use(tag);
}

/* Adds the tags of DIR's entries of a run (tag_of) to tags[]. */
static int collect(const char *dir, const char *prefix, enum left_kind kind, char tags[][TAG_LEN], int n)
{
    DIR *d = opendir(dir);
    if (!d)
        return n;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < MAX_TAGS) {
        char tag[TAG_LEN];
        if (tag_of(e->d_name, prefix, kind, tag, sizeof tag) < 0)
            continue;
        int dup = 0;
        for (int i = 0; i < n && !dup; i++)
            dup = strcmp(tags[i], tag) == 0;
        if (!dup)
            snprintf(tags[n++], TAG_LEN, "%s", tag);
    }
    closedir(d);
    return n;
}

/* Removes a DPDK runtime directory: the files EAL and telemetry put in it
 * (sockets, the config), then the directory.  1 if it is gone. */
static int remove_runtime_dir(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char file[PATH_MAX_LEN + 256];
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        unlink(file);
    }
    closedir(d);
    return rmdir(path) == 0;
}

int reap_runtime_dir(const char *tag, int ini)
{
    char path[PATH_MAX_LEN];
    tel_runtime_dir(path, sizeof path, tag, ini);
    return remove_runtime_dir(path);
}

/* Removes DIR's entries of TAG: segments and FIFOs by unlink, namespaces
 * by ip, DPDK runtime directories with what they hold. */
static int remove_tag(const char *dir, const char *prefix, enum left_kind kind, const char *tag)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int removed = 0;
    struct dirent *e;
    char names[64][64];
    int n = 0;
    while ((e = readdir(d)) != NULL && n < 64) {
        char t[TAG_LEN];
        if (tag_of(e->d_name, prefix, kind, t, sizeof t) == 0 && strcmp(t, tag) == 0)
            snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    }
    closedir(d);
    /* Namespaces: clusters first, the LAN (holding the bridge) last. */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            int lan = strstr(names[i], "-lan") != NULL;
            if (lan != pass)
                continue;
            char path[PATH_MAX_LEN];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            if (kind == LEFT_NETNS) {
                char *argv[] = { "ip", "netns", "del", names[i], NULL };
                char why[256];
                removed += run_command(argv, NULL, "/dev/null", why, sizeof why) == 0;
            } else if (kind == LEFT_DPDK) {
                removed += remove_runtime_dir(path);
            } else {
                removed += unlink(path) == 0;
            }
        }
    return removed;
}

int cleanup_stale_runs(FILE *out)
{
    static char tags[MAX_TAGS][TAG_LEN];
    char dpdk[PATH_MAX_LEN];
    tel_runtime_base(dpdk, sizeof dpdk);
    int n = collect(SHM_DIR, "ini-", LEFT_SHM, tags, 0);
    int may_netns = geteuid() == 0 && access(NETNS_DIR, W_OK) == 0;
    if (may_netns)
        n = collect(NETNS_DIR, "ini-", LEFT_NETNS, tags, n);
    n = collect(WAKE_DIR, "ini-", LEFT_WAKE, tags, n);
    n = collect(dpdk, "ini-", LEFT_DPDK, tags, n);
    int cleaned = 0;
    for (int i = 0; i < n; i++) {
        if (tag_alive(tags[i]))
            continue;
        int ns = may_netns ? remove_tag(NETNS_DIR, "ini-", LEFT_NETNS, tags[i]) : 0;
        int segs = remove_tag(SHM_DIR, "ini-", LEFT_SHM, tags[i]);
        int fifos = remove_tag(WAKE_DIR, "ini-", LEFT_WAKE, tags[i]);
        int dirs = remove_tag(dpdk, "ini-", LEFT_DPDK, tags[i]);
        if (ns + segs + fifos + dirs == 0)
            continue;
        cleaned++;
        if (out)
            fprintf(out, "ini-cluster: removed what run %s left after its launcher or daemons died: "
                         "%d network namespace(s), %d segment(s), %d doorbell FIFO(s), %d DPDK runtime "
                         "director%s\n", tags[i], ns, segs, fifos, dirs, dirs == 1 ? "y" : "ies");
    }
    return cleaned;
}
