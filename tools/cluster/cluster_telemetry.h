/*
 * cluster_telemetry.h - the launcher's client of inid's telemetry socket
 * (ini/daemon/inid_telemetry.c): `ini-cluster status` and `ini-cluster top` read
 * each daemon's live figures from it.
 *
 * The socket is DPDK's (rte_telemetry, protocol v2): a SOCK_SEQPACKET unix
 * socket RUNTIME/dpdk/<file prefix>/dpdk_telemetry.v2, where RUNTIME is
 * /var/run for root, else $XDG_RUNTIME_DIR or /tmp (as DPDK's EAL picks
 * it), and inid's file prefix is ini-<TAG>-<ID>.  On connect the server
 * sends one JSON object describing itself; then each request is one
 * command ("/ini/stats") and each reply one JSON object {"/ini/stats":
 * {...}}.  The replies' keys used here are unique within their reply, so
 * a flat search for "key": is enough to read them.
 */
#ifndef CLUSTER_TELEMETRY_H
#define CLUSTER_TELEMETRY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One reading of one INI. */
struct tel_sample {
    uint64_t tsc, tsc_hz;
    uint64_t msgs;            /* sent + delivered + local */
    uint64_t bytes;           /* sent + delivered payload bytes */
    uint64_t retx;            /* retransmissions: timer + NAK */
    uint64_t queue, stalled;  /* now */
    uint64_t busy_cycles;
    uint64_t restarts;        /* the INI's incarnation: times it was restarted */
    uint64_t resyncs;         /* its peers' restarts it resynchronised with */
};

/* DPDK's runtime directory, RUNTIME/dpdk; that of INI `ini` of the run
 * tagged `tag` in it (ini-TAG-ID); and its telemetry socket. */
void tel_runtime_base(char *buf, size_t len);
void tel_runtime_dir(char *buf, size_t len, const char *tag, int ini);
void tel_socket_path(char *buf, size_t len, const char *tag, int ini);

/* Reads /ini/stats, /ini/queue and /ini/util of one INI.  0, or -1 with
 * a one-line reason in err. */
int tel_sample(const char *tag, int ini, struct tel_sample *s, char *err, size_t errlen);

/* The value of the first "key": NUMBER in json; -1 if absent. */
int tel_json_u64(const char *json, const char *key, uint64_t *out);

/* Prints the table of live figures, one row per INI, from two samples
 * (a before b); ok[k] says whether both samples of row k were read. */
struct tel_row {
    int ini, cluster, ok;
    struct tel_sample a, b;
    char err[160];
};
void tel_print_rows(FILE *out, const struct tel_row *rows, int n);

#endif
