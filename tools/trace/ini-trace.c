/*
 * ini-trace - the trace post-processor (thesis section 4.4.2).
 *
 *   ini-trace report RUN_DIR [--format text|csv|json]
 *
 * Reads every RUN_DIR/ini<ID>.trace the daemons wrote and prints the
 * thesis's tables: the send and receive time breakdown by module and
 * message length (5.1, 5.2), INI performance per cluster (5.3 / 5.4) and
 * the misrouting rates (5.6 / 5.7).  Definitions: docs/traces.md.
 *
 * The work is in trace_file.c (loading, validation) and report.c (the
 * numbers); this is only the command line.  Exit status: 0, or 2 with one
 * line on stderr for bad arguments and for a missing, corrupt or
 * inconsistent run.
 */
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "trace_file.h"

static int usage(const char *why)
{
    if (why)
        fprintf(stderr, "ini-trace: %s\n", why);
    fprintf(stderr, "usage: ini-trace report RUN_DIR [--format text|csv|json]\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        printf("usage: ini-trace report RUN_DIR [--format text|csv|json]\n");
        return 0;
    }
    if (argc < 2 || strcmp(argv[1], "report") != 0)
        return usage(argc < 2 ? "missing command" : "unknown command (expected: report)");
    const char *dir = NULL;
    enum report_format fmt = REPORT_TEXT;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        if (!strcmp(a, "--format")) {
            if (++i >= argc)
                return usage("--format needs a value");
            val = argv[i];
        } else if (!strncmp(a, "--format=", 9)) {
            val = a + 9;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "ini-trace: unknown option %s\n", a);
            return usage(NULL);
        } else if (dir) {
            return usage("more than one RUN_DIR");
        } else {
            dir = a;
            continue;
        }
        if (!strcmp(val, "text"))
            fmt = REPORT_TEXT;
        else if (!strcmp(val, "csv"))
            fmt = REPORT_CSV;
        else if (!strcmp(val, "json"))
            fmt = REPORT_JSON;
        else
            return usage("--format: expected text, csv or json");
    }
    if (!dir)
        return usage("missing RUN_DIR");

    char err[TRACE_ERR_LEN];
    struct trace_run run;
    if (trace_run_load(&run, dir, err, sizeof(err)) < 0) {
        fprintf(stderr, "ini-trace: %s\n", err);
        return 2;
    }
    struct report rep;
    if (report_build(&rep, &run, err, sizeof(err)) < 0) {
        fprintf(stderr, "ini-trace: %s\n", err);
        trace_run_free(&run);
        return 2;
    }
    report_print(stdout, &rep, fmt);
    report_free(&rep);
    trace_run_free(&run);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "ini-trace: error writing the report\n");
        return 2;
    }
    return 0;
}
