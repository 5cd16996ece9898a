/*
 * ini-trace - the trace post-processor (thesis section 4.4.2).
 *
 *   ini-trace report RUN_DIR [--format text|csv|json] [--csv-dir DIR] [--partial]
 *   ini-trace whatif RUN_DIR [--inis-per-cluster K] [--policy P] [--service-scale X]
 *             [--O US] [--model mva|lopc|logpc] [--format text|csv|json]
 *   ini-trace timeline RUN_DIR -o FILE.json [--from S] [--to S] [--sample N]
 *   ini-trace critical RUN_DIR [--format text|json]
 *   ini-trace profile RUN_DIR [--format text|csv|json]
 *
 * Reads every RUN_DIR/ini<ID>.trace the daemons wrote and prints the
 * thesis's tables: the send and receive time breakdown by module and
 * message length (5.1, 5.2), INI performance per cluster (5.3 / 5.4) and
 * the misrouting rates (5.6 / 5.7).  Definitions: docs/traces.md.
 *
 * The work is in trace_file.c (loading, validation) and report.c (the
 * numbers); the other commands are in commands.h's files; this is only
 * the command line.  Exit status: 0, or 2 with one
 * line on stderr for bad arguments and for a missing, corrupt or
 * inconsistent run.  A run with an INI's trace file missing is refused
 * (the tables would silently leave its messages out) unless --partial
 * is given; then the missing files are named on stderr and the report is
 * made from the others.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cn_file.h"
#include "commands.h"
#include "report.h"
#include "trace_file.h"

static const char usage_text[] =
    "usage: ini-trace report RUN_DIR [--format text|csv|json] [--csv-dir DIR] [--partial]\n"
    "       ini-trace whatif RUN_DIR [--inis-per-cluster K] [--policy static|round-robin|load-aware]\n"
    "                 [--service-scale X] [--O US] [--model mva|lopc|logpc] [--format text|csv|json]\n"
    "       ini-trace timeline RUN_DIR -o FILE.json [--from S] [--to S] [--sample N]\n"
    "       ini-trace critical RUN_DIR [--format text|json]\n"
    "       ini-trace profile RUN_DIR [--format text|csv|json]\n"
    "       ini-trace --help | --version\n"
    "(see docs/traces.md)\n";

/* Across hosts (clocks.tsv with two or more), the offsets' uncertainty,
 * though no figure of the report uses them; stderr unless text. */
static void report_clock(const char *dir, enum report_format fmt)
{
    struct clock_table t;
    char err[TRACE_ERR_LEN];
    if (clock_table_load(&t, dir, err, sizeof(err)) < 0)
        cli_error("%s", err);
    else if (t.n >= 2)
        cmd_clock_table_note(fmt == REPORT_TEXT ? stdout : stderr, &t, NULL, NAN);
}

/* An INI that ran without a trace file: an error, or with --partial a
 * line on stderr naming the files the report goes without. */
static void report_missing_or_exit(struct trace_run *run, int partial)
{
    enum { SHOW = 8 };
    int missing[SHOW];
    int n = trace_run_missing(run, missing, SHOW);
    if (n == 0)
        return;
    char names[SHOW * 24] = "";
    size_t used = 0;
    for (int i = 0; i < n && i < SHOW; i++)
        used += (size_t)snprintf(names + used, sizeof(names) - used, "%sini%d.trace", i ? ", " : "", missing[i]);
    const char *more = n > SHOW ? ", ..." : "";
    if (partial) {
        cli_error("%s: %d trace file(s) missing (%s%s): reporting without them (--partial)", run->shown, n,
                  names, more);
        return;
    }
    trace_run_free(run);
    cli_bad_arg("%s: %d INI(s) ran without a trace file: %s%s missing (--partial reports without them)",
                run->shown, n, names, more);
}

int main(int argc, char **argv)
{
    cli_init("ini-trace", usage_text);
    if (argc < 2)
        cli_bad_arg("no command given (ini-trace report RUN_DIR)");
    static const struct { const char *name; int (*fn)(int, char **); } commands[] = {
        { "whatif", cmd_whatif }, { "timeline", cmd_timeline }, { "critical", cmd_critical },
        { "profile", cmd_profile },
    };
    for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++)
        if (!strcmp(argv[1], commands[k].name))
            return commands[k].fn(argc, argv);
    if (cli_common_flag(argv[1]) || strcmp(argv[1], "report") != 0)
        cli_bad_arg("%s: unknown command (expected: report, whatif, timeline, critical, profile)", argv[1]);
    const char *dir = NULL, *csv_dir = NULL;
    enum report_format fmt = REPORT_TEXT;
    int partial = 0;
    static const char *const formats[] = { "text", "csv", "json", NULL };  /* enum report_format */
    const char *a;
    for (int i = 1; (a = cli_next_arg(argc, argv, &i));) {
        if (!strcmp(a, "--format"))
            fmt = (enum report_format)cli_parse_choice(a, cli_value(argc, argv, &i), formats);
        else if (!strcmp(a, "--csv-dir"))
            csv_dir = cli_value(argc, argv, &i);
        else if (!strncmp(a, "--csv-dir=", 10))
            csv_dir = a + 10;
        else if (!strncmp(a, "--format=", 9))
            fmt = (enum report_format)cli_parse_choice("--format", a + 9, formats);
        else if (!strcmp(a, "--partial"))
            partial = 1;
        else if (a[0] == '-' && a[1])
            cli_unknown_option(a);
        else if (dir)
            cli_bad_arg("%s: unexpected argument (one RUN_DIR)", a);
        else
            dir = a;
    }
    if (!dir)
        cli_bad_arg("report: no RUN_DIR given");

    char err[TRACE_ERR_LEN];
    struct trace_run run;
    if (trace_run_load(&run, dir, err, sizeof(err)) < 0)
        cli_bad_arg("%s", err);
    report_missing_or_exit(&run, partial);
    struct report rep;
    if (report_build(&rep, &run, err, sizeof(err)) < 0) {
        trace_run_free(&run);
        cli_bad_arg("%s", err);
    }
    if (csv_dir) {
        /* One file per table; stdout says where they went. */
        if (report_write_csv_dir(&rep, csv_dir, err, sizeof(err)) < 0) {
            report_free(&rep);
            trace_run_free(&run);
            cli_error("%s", err);
            return 1;
        }
        printf("ini-trace: wrote %s/{send_breakdown,receive_breakdown,clusters,misrouting,pe_split}.csv\n",
               csv_dir);
    } else {
        report_print(stdout, &rep, fmt);
    }
    report_clock(dir, fmt);
    report_free(&rep);
    trace_run_free(&run);
    if (fflush(stdout) != 0) {
        cli_error("error writing the report");
        return 2;
    }
    return 0;
}
