/*
 * cluster_telemetry.c - reading inid's live figures from its DPDK
 * telemetry socket (see cluster_telemetry.h).  Called by the launcher's
 * status and top commands only: one short connection per INI and reading,
 * with a one-second receive timeout, so a stuck daemon cannot stall them.
 */
#include "cluster_telemetry.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#define TEL_BUF 65536   /* DPDK 22.11 replies are at most 16 KiB */

void tel_runtime_base(char *buf, size_t len)
{
    const char *base = "/var/run";
    if (getuid() != 0) {
        const char *xdg = getenv("XDG_RUNTIME_DIR");
        base = xdg && *xdg ? xdg : "/tmp";
    }
    snprintf(buf, len, "%s/dpdk", base);
}

void tel_runtime_dir(char *buf, size_t len, const char *tag, int ini)
{
    char base[192];
    tel_runtime_base(base, sizeof base);
    snprintf(buf, len, "%s/ini-%s-%d", base, tag, ini);
}

void tel_socket_path(char *buf, size_t len, const char *tag, int ini)
{
    char dir[256];
    tel_runtime_dir(dir, sizeof dir, tag, ini);
    snprintf(buf, len, "%s/dpdk_telemetry.v2", dir);
}

int tel_json_u64(const char *json, const char *key, uint64_t *out)
{
    char pat[96];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(json, pat);
    if (!p)
        return -1;
    p += strlen(pat);
    while (*p == ' ')
        p++;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(p, &end, 10);
    if (end == p || errno)
        return -1;
    *out = v;
    return 0;
}

/* Sends cmd and reads its reply into buf; 0 or -1. */
static int request(int fd, const char *cmd, char *buf, size_t len)
{
    if (send(fd, cmd, strlen(cmd), 0) < 0)
        return -1;
    ssize_t n = recv(fd, buf, len - 1, 0);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    return 0;
}

int tel_sample(const char *tag, int ini, struct tel_sample *s, char *err, size_t errlen)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    tel_socket_path(sa.sun_path, sizeof sa.sun_path, tag, ini);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return -1;
    }
    struct timeval tv = { 1, 0 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    static char buf[TEL_BUF];
    int rc = -1;
    memset(s, 0, sizeof *s);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        snprintf(err, errlen, "%s: %s", sa.sun_path, strerror(errno));
        goto out;
    }
    /* The server's greeting: {"version": ..., "pid": ..., ...} */
    if (recv(fd, buf, sizeof buf - 1, 0) <= 0) {
        snprintf(err, errlen, "%s: no greeting", sa.sun_path);
        goto out;
    }
    uint64_t sent = 0, delivered = 0, local = 0, bsent = 0, bdelivered = 0, rt = 0, rn = 0;
    if (request(fd, "/ini/stats", buf, sizeof buf) < 0 ||
        tel_json_u64(buf, "msgs_sent", &sent) < 0 || tel_json_u64(buf, "msgs_delivered", &delivered) < 0 ||
        tel_json_u64(buf, "local", &local) < 0 || tel_json_u64(buf, "bytes_sent", &bsent) < 0 ||
        tel_json_u64(buf, "bytes_delivered", &bdelivered) < 0 ||
        tel_json_u64(buf, "retx_timer", &rt) < 0 || tel_json_u64(buf, "retx_nak", &rn) < 0) {
        snprintf(err, errlen, "%s: no answer to /ini/stats", sa.sun_path);
        goto out;
    }
    /* Since issue 34: absent from an older daemon's reply, then 0. */
    tel_json_u64(buf, "restarts", &s->restarts);
    tel_json_u64(buf, "resyncs", &s->resyncs);
    s->msgs = sent + delivered + local;
    s->bytes = bsent + bdelivered;
    s->retx = rt + rn;
    if (request(fd, "/ini/queue", buf, sizeof buf) < 0 || tel_json_u64(buf, "queue", &s->queue) < 0 ||
        tel_json_u64(buf, "stalled", &s->stalled) < 0) {
        snprintf(err, errlen, "%s: no answer to /ini/queue", sa.sun_path);
        goto out;
    }
    if (request(fd, "/ini/util", buf, sizeof buf) < 0 || tel_json_u64(buf, "busy_cycles", &s->busy_cycles) < 0 ||
        tel_json_u64(buf, "tsc", &s->tsc) < 0 || tel_json_u64(buf, "tsc_hz", &s->tsc_hz) < 0 || !s->tsc_hz) {
        snprintf(err, errlen, "%s: no answer to /ini/util", sa.sun_path);
        goto out;
    }
    rc = 0;
out:
    close(fd);
    return rc;
}

void tel_print_rows(FILE *out, const struct tel_row *rows, int n)
{
    /* "queued" is a count now and "busy" the loop's share: neither is the
     * report's queue length or utilization (docs/traces.md). */
    fprintf(out, "%4s %7s %10s %9s %6s %7s %6s %9s %12s %8s %7s\n", "INI", "cluster", "msgs/s", "MB/s", "queued",
            "stalled", "busy", "retx", "msgs total", "restarts", "resyncs");
    for (int k = 0; k < n; k++) {
        const struct tel_row *r = &rows[k];
        if (!r->ok) {
            fprintf(out, "%4d %7d   no telemetry: %s\n", r->ini, r->cluster, r->err);
            continue;
        }
        double secs = r->b.tsc > r->a.tsc ? (double)(r->b.tsc - r->a.tsc) / (double)r->b.tsc_hz : 0;
        double rate = secs > 0 ? (double)(r->b.msgs - r->a.msgs) / secs : 0;
        double mbs = secs > 0 ? (double)(r->b.bytes - r->a.bytes) / secs / 1e6 : 0;
        double busy = r->b.tsc > r->a.tsc
                    ? 100.0 * (double)(r->b.busy_cycles - r->a.busy_cycles) / (double)(r->b.tsc - r->a.tsc) : 0;
        fprintf(out, "%4d %7d %10.0f %9.2f %6" PRIu64 " %7" PRIu64 " %5.1f%% %9" PRIu64 " %12" PRIu64 " %8" PRIu64
                " %7" PRIu64 "\n", r->ini, r->cluster, rate, mbs, r->b.queue, r->b.stalled, busy, r->b.retx, r->b.msgs,
                r->b.restarts, r->b.resyncs);
    }
}
