/*
 * fuzz_trace.c - libFuzzer harness of the trace reader
 * (tools/trace/trace_file.c): the input becomes a run's trace files, read
 * from memory with trace_run_load_mem (the same header and record checks
 * as trace_run_load, which reads them from a directory; nothing is written
 * per input) and, when they load, turned into the report
 * (tools/trace/report.c) as `ini-trace report` does.
 *
 * Input: byte 0 bit 0 set: two files, ini0.trace and ini1.trace, split
 * at the 16-bit big-endian offset in bytes 1-2; else one, ini0.trace,
 * from byte 1 on.  Bit 1: the report's format (text or CSV).  Bit 2: the
 * files in the other order (a directory lists them in any).  Bit 3 (with
 * bit 0): the second file is a compute node's trace, cn0.trace
 * (tools/trace/cn_file.c), and a run that loads is joined into its graph
 * (run_graph.c), replayed as it ran and with two INIs per cluster
 * (replay.c) and walked for its critical path (critical_path.c), as
 * `ini-trace whatif` and `critical` do; every refusal in one line.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "critical.h"
#include "replay.h"
#include "report.h"
#include "trace_file.h"

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    devnull = fopen("/dev/null", "w");
    return devnull ? 0 : 1;
}

/* A refusal must say why, in one line. */
static void one_line(const char *err)
{
    if (err[0] == '\0' || strchr(err, '\n'))
        abort();
}

/* The INI trace and the compute node's, joined, replayed, walked. */
static void with_cn(const struct trace_image *img, struct trace_run *run)
{
    struct cn_run cn;
    struct clock_table clocks = { 0 };
    struct run_graph g;
    char err[TRACE_ERR_LEN] = "";
    if (cn_run_load_mem(&cn, "/fuzz/run", img, 2, err, sizeof err) < 0) {
        one_line(err);
        return;
    }
    if (run_graph_build(&g, run, &cn, &clocks, err, sizeof err) == 0) {
        for (int k = 0; k < 2; k++) {
            struct replay_params p = { k ? 2 : 0, -1, 1.0, NAN };
            struct replay_result r;
            err[0] = '\0';
            if (replay_run(&g, &p, &r, err, sizeof err) == 0) {
                struct report rep;
                if (report_build(&rep, &r.run, err, sizeof err) == 0)
                    report_free(&rep);
                replay_free(&r);
            } else {
                one_line(err);
            }
        }
        struct crit_result cr;
        if (critical_run(&g, &cr, err, sizeof err) == 0)
            critical_free(&cr);
        run_graph_free(&g);
    } else {
        one_line(err);
    }
    cn_run_free(&cn);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct trace_image img[2];
    int n;
    if ((data[0] & 1) && size >= 3) {
        size_t cut = (size_t)(data[1] << 8 | data[2]);
        if (cut > size - 3)
            cut = size - 3;
        int first = (data[0] >> 2) & 1;
        img[first] = (struct trace_image){ "ini0.trace", data + 3, cut };
        img[!first] = (struct trace_image){ data[0] & 8 ? "cn0.trace" : "ini1.trace", data + 3 + cut, size - 3 - cut };
        n = 2;
    } else {
        img[0] = (struct trace_image){ "ini0.trace", data + 1, size - 1 };
        n = 1;
    }
    struct trace_run run;
    char err[TRACE_ERR_LEN];
    err[0] = '\0';
    if (trace_run_load_mem(&run, "/fuzz/run", img, n, err, sizeof err) == 0) {
        if (n == 2 && (data[0] & 8))
            with_cn(img, &run);
        struct report rep;
        if (report_build(&rep, &run, err, sizeof err) == 0) {
            report_print(devnull, &rep, (enum report_format)(data[0] >> 1 & 1));
            report_free(&rep);
        }
        trace_run_free(&run);
    } else {
        one_line(err);
    }
    return 0;
}
