/*
 * fuzz_trace.c - libFuzzer harness of the trace reader
 * (tools/trace/trace_file.c): the input becomes a run directory's trace
 * files, read with trace_run_load and, when they load, turned into the
 * report (tools/trace/report.c) as `ini-trace report` does.
 *
 * Input: byte 0 bit 0 set: two files, ini0.trace and ini1.trace, split
 * at the 16-bit big-endian offset in bytes 1-2; else one, ini0.trace,
 * from byte 1 on.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"
#include "trace_file.h"

static char dir[64];
static FILE *devnull;

static void put(const char *name, const uint8_t *bytes, size_t n)
{
    char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    if (!f)
        abort();
    if (n && fwrite(bytes, 1, n, f) != n)
        abort();
    fclose(f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(dir, sizeof dir, "/tmp/fuzz_trace.%d", (int)getpid());
    mkdir(dir, 0700);
    devnull = fopen("/dev/null", "w");
    return devnull ? 0 : 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char p1[128];
    snprintf(p1, sizeof p1, "%s/ini1.trace", dir);
    if ((data[0] & 1) && size >= 3) {
        size_t cut = (size_t)(data[1] << 8 | data[2]);
        if (cut > size - 3)
            cut = size - 3;
        put("ini0.trace", data + 3, cut);
        put("ini1.trace", data + 3 + cut, size - 3 - cut);
    } else {
        unlink(p1);
        put("ini0.trace", data + 1, size - 1);
    }
    struct trace_run run;
    char err[TRACE_ERR_LEN];
    if (trace_run_load(&run, dir, err, sizeof err) == 0) {
        struct report rep;
        if (report_build(&rep, &run, err, sizeof err) == 0) {
            report_print(devnull, &rep, (enum report_format)(data[0] >> 1 & 1));
            report_free(&rep);
        }
        trace_run_free(&run);
    } else if (err[0] == '\0') {
        abort();                         /* a refusal says why */
    }
    return 0;
}
