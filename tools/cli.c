/*
 * cli.c - command-line helpers shared by the programs in tools/ (cli.h).
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static const char *program_name = "ini";

void cli_init(const char *program)
{
    program_name = program;
}

void cli_bad_arg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", program_name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

long cli_parse_long(const char *flag, const char *s, long min, long max)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        cli_bad_arg("%s: '%s' is not an integer in %ld..%ld", flag, s, min, max);
    return v;
}

double cli_parse_double(const char *flag, const char *s, double min, double max)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < min || v > max)
        cli_bad_arg("%s: '%s' is not a number in %g..%g", flag, s, min, max);
    return v;
}

void cli_pe_error(int pe, uint64_t *errors, const char *fmt, ...)
{
    if ((*errors)++ >= CLI_MAX_REPORTS) {
        if (*errors == CLI_MAX_REPORTS + 1)
            fprintf(stderr, "%s: PE %d: further errors counted, not shown\n", program_name, pe);
        return;
    }
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: PE %d: %s\n", program_name, pe, line);
}
