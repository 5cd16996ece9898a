/*
 * cli.c - the command-line skeleton (cli.h).  One program name and one
 * usage text per process, set by cli_init() before anything can fail.
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef INI_VERSION
#error "INI_VERSION: build with the Makefile (ini/module.mk defines it from VERSION)"
#endif

static const char *program_name = "ini";
static const char *usage_text = "";

void cli_init(const char *program, const char *usage)
{
    program_name = program;
    usage_text = usage;
    opterr = 0;     /* getopt's errors go through cli_common_option() */
}

const char *cli_program(void)
{
    return program_name;
}

const char *cli_version_string(void)
{
    return INI_VERSION;
}

void cli_help(void)
{
    fputs(usage_text, stdout);
    exit(fflush(stdout) == 0 ? 0 : 1);
}

void cli_version(void)
{
    printf("%s %s\n", program_name, INI_VERSION);
    exit(fflush(stdout) == 0 ? 0 : 1);
}

int cli_common_flag(const char *arg)
{
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h"))
        cli_help();
    if (!strcmp(arg, "--version"))
        cli_version();
    return 0;
}

const char *cli_next_arg(int argc, char **argv, int *i)
{
    if (++*i >= argc)
        return NULL;
    cli_common_flag(argv[*i]);
    return argv[*i];
}

void cli_common_option(int c, char **argv)
{
    if (c == CLI_OPT_HELP)
        cli_help();
    if (c == CLI_OPT_VERSION)
        cli_version();
    const char *arg = optind > 0 ? argv[optind - 1] : "?";
    if (c == ':')
        cli_bad_arg("%s: needs a value", arg);
    cli_unknown_option(arg);
}

static void vreport(const char *fmt, va_list ap)
{
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    /* One write, so that lines of concurrent processes (the launcher's
     * clusters share a terminal) do not interleave. */
    fprintf(stderr, "%s: %s\n", program_name, line);
}

void cli_bad_arg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(fmt, ap);
    va_end(ap);
    exit(2);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(fmt, ap);
    va_end(ap);
}

void cli_unknown_option(const char *arg)
{
    cli_bad_arg("%s: unknown option", arg);
}

const char *cli_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc)
        cli_bad_arg("%s: needs a value", argv[*i]);
    return argv[++*i];
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

int cli_parse_choice(const char *flag, const char *s, const char *const *choices)
{
    char list[256] = "";
    size_t len = 0;
    for (int k = 0; choices[k]; k++) {
        if (!strcmp(s, choices[k]))
            return k;
        int n = snprintf(list + len, sizeof list - len, "%s%s", k ? ", " : "", choices[k]);
        if (n > 0 && (size_t)n < sizeof list - len)
            len += (size_t)n;
    }
    cli_bad_arg("%s: '%s' is not one of %s", flag, s, list);
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
