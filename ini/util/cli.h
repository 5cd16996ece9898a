/*
 * cli.h - the command-line skeleton of every program of the project
 * (inid, the tools, water): one way to ask for help, one way to ask for the
 * version, one way to report bad input.
 *
 * It sits on ini/'s floor, the lowest floor with a program (inid), so that
 * inid and water include it without looking up to tools/.  It is linked
 * into each program as an object of its own (CLI_OBJ), not into libini: a
 * program's contract, with unprefixed names and exit() on bad input, which
 * no library may impose on the program that links it.
 *
 *   --help, -h    the program's usage text on stdout, exit status 0
 *   --version     "PROGRAM VERSION" on stdout, exit status 0 (VERSION is
 *                 the project's one version, the top-level VERSION file)
 *   bad input     one line "PROGRAM: what: why" on stderr, exit status 2
 *                 (an unknown flag, a missing or malformed value, a file
 *                 that does not load), before anything is started
 *
 * Failures at run time (a daemon that dies, a message that arrives
 * corrupted) keep each program's documented status, usually 1, but are
 * printed the same way, with cli_error().
 *
 * A main follows this skeleton:
 *
 *     cli_init("ini-ping", usage_text);
 *     const char *a;
 *     for (int i = 0; (a = cli_next_arg(argc, argv, &i));) {   // --help, --version: exit 0
 *         if (!strcmp(a, "--count"))
 *             count = cli_parse_long(a, cli_value(argc, argv, &i), 1, 1000);
 *         else
 *             cli_unknown_option(a);      // exits 2
 *     }
 *
 * A program parsing with getopt_long gives it the option string ":" (so a
 * missing value is ':', not '?'), puts CLI_COMMON_OPTIONS in its table and
 * passes every result it does not handle to cli_common_option().  getopt's
 * own messages are turned off by cli_init().
 */
#include <stdint.h>

#ifndef INI_CLI_H
#define INI_CLI_H

/* Names the program in every message and gives the text --help prints
 * (starting "usage: PROGRAM", ending with a newline).  First thing in main. */
void cli_init(const char *program, const char *usage);
/* The name given to cli_init(). */
const char *cli_program(void);
/* The project's version string, e.g. "0.1.0". */
const char *cli_version_string(void);

/* The usage text on stdout; exit 0. */
void cli_help(void) __attribute__((noreturn));
/* "PROGRAM VERSION" on stdout; exit 0. */
void cli_version(void) __attribute__((noreturn));
/* --help or -h: cli_help(); --version: cli_version(); anything else: 0. */
int cli_common_flag(const char *arg);
/* The option loop: the argument after argv[*i], *i advanced to it, once
 * cli_common_flag has answered it; NULL when there is none.  A loop over
 * argv[1..] starts with *i = 0; a flag's value is taken with cli_value. */
const char *cli_next_arg(int argc, char **argv, int *i);

/* For getopt_long tables: the options every program has, and the values
 * getopt_long returns for them (outside the range of characters). */
enum { CLI_OPT_HELP = 0x100, CLI_OPT_VERSION };
#define CLI_COMMON_OPTIONS \
    { "help", no_argument, NULL, CLI_OPT_HELP }, { "version", no_argument, NULL, CLI_OPT_VERSION }
/* getopt_long's result c for an option the program does not handle:
 * CLI_OPT_HELP and CLI_OPT_VERSION exit 0; ':' is "ARG: needs a value" and
 * anything else "ARG: unknown option", ARG being the element of argv that
 * getopt_long just read; exit 2. */
void cli_common_option(int c, char **argv) __attribute__((noreturn));

/* Bad input: "PROGRAM: " and the formatted what and why on stderr; exit 2. */
void cli_bad_arg(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* "PROGRAM: ARG: unknown option"; exit 2. */
void cli_unknown_option(const char *arg) __attribute__((noreturn));
/* The value after the flag argv[*i], advancing *i past it; exit 2 with
 * "PROGRAM: FLAG: needs a value" when there is none. */
const char *cli_value(int argc, char **argv, int *i);
/* The integer s, in min..max, else "FLAG: 'S' is not an integer in MIN..MAX". */
long cli_parse_long(const char *flag, const char *s, long min, long max);
/* The finite number s, in min..max, else "FLAG: 'S' is not a number in MIN..MAX". */
double cli_parse_double(const char *flag, const char *s, double min, double max);
/* The index of s in the NULL-terminated choices, else
 * "FLAG: 'S' is not one of A, B, C". */
int cli_parse_choice(const char *flag, const char *s, const char *const *choices);

/* A failure at run time: "PROGRAM: " and the formatted message on stderr;
 * the caller decides the exit status. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define CLI_MAX_REPORTS 10      /* error lines printed per PE */
/* Counts an error of PE pe in *errors and prints it, "PROGRAM: PE N: ...",
 * while at most CLI_MAX_REPORTS were; says once that the rest are only
 * counted. */
void cli_pe_error(int pe, uint64_t *errors, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
