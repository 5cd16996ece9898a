/*
 * commands.c - what the commands of ini-trace share (commands.h): their
 * operand, loading a run, the --format-only command line, and the run's
 * program time.
 */
#include "commands.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "file_util.h"
#include "run_graph.h"

const char *cmd_operand(const char *a, const char *dir)
{
    if (a[0] == '-' && a[1])
        cli_unknown_option(a);
    if (dir)
        cli_bad_arg("%s: unexpected argument (one RUN_DIR)", a);
    return a;
}

void cmd_load(struct run_files *rf, const char *dir)
{
    char err[TRACE_ERR_LEN];
    if (!dir)
        cli_bad_arg("no RUN_DIR given");
    if (run_files_load(rf, dir, err, sizeof(err)) < 0)
        cli_bad_arg("%s", err);
}

void cmd_clock_note(FILE *o, const struct run_files *rf, const char *what, double size_ns)
{
    if (rf->ini.n_files && rf->ini.files[0].info.clock == INI_TRACE_CLOCK_VIRTUAL) {
        fprintf(o, "clock: virtual time: every stamp on the emulated machine's clock (%.3f MHz), no offset to be "
                   "uncertain of\n", (double)rf->ini.files[0].info.tsc_hz / 1e6);
        return;
    }
    cmd_clock_table_note(o, &rf->clocks, what, size_ns);
}

void cmd_clock_table_note(FILE *o, const struct clock_table *t, const char *what, double size_ns)
{
    if (t->n == 0) {
        fprintf(o, "clock: no clocks.tsv: every host's clock taken as the launcher's (uncertainty unknown)\n");
        return;
    }
    if (t->n == 1) {
        fprintf(o, "clock: one host (%s): every stamp on its own clock, no offset to be uncertain of\n", t->host[0]);
        return;
    }
    int which;
    double u = (double)clock_table_uncertainty(t, &which);
    fprintf(o, "clock: %d host%s on the launcher's clock (clocks.tsv), offsets uncertain by up to +-%.1f us "
               "(host %s)\n", t->n, t->n == 1 ? "" : "s", u / 1e3, t->host[which]);
    if (t->how[0])
        fprintf(o, "clock: measured %s\n", t->how);
    if (!what)
        fprintf(o, "clock: report reads each INI on its own clock: no figure of it depends on the offsets\n");
    else if (!isnan(size_ns) && 2 * u > size_ns)
        fprintf(o, "clock: warning: two hosts' offsets may be off by up to %.1f us together, more than %s "
                   "(%.1f us): read what crosses hosts with care\n", 2 * u / 1e3, what, size_ns / 1e3);
}

double run_program_time_ns(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return NAN;
    double lo = INFINITY, hi = -INFINITY;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "time-c", 6) != 0 || !strstr(e->d_name, ".txt"))
            continue;
        char path[2048];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        char why[128];
        int fd = ini_open_regular(path, 1 << 16, why, sizeof why);  /* a FIFO here must not hang us */
        FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
        if (fd >= 0 && !f)
            close(fd);
        double s, t;
        if (f && fscanf(f, "%lf %lf", &s, &t) == 2 && t >= s) {
            lo = fmin(lo, s);
            hi = fmax(hi, t);
        }
        if (f)
            fclose(f);
    }
    closedir(d);
    return hi >= lo ? hi - lo : NAN;
}

const char *cmd_format_only(int argc, char **argv, const char *const *formats, int *fmt)
{
    const char *dir = NULL;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (cli_common_flag(a))
            continue;
        if (!strcmp(a, "--format"))
            *fmt = cli_parse_choice(a, cli_value(argc, argv, &i), formats);
        else
            dir = cmd_operand(a, dir);
    }
    return dir;
}
