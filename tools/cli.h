/*
 * cli.h - what the programs in tools/ share about their command lines:
 * a bad flag or value gets one line on stderr, "PROGRAM: what is wrong",
 * and exit status 2; numbers are checked whole and against a range.  And
 * how the test programs run on compute nodes report what went wrong.
 */
#include <stdint.h>

#ifndef INI_CLI_H
#define INI_CLI_H

/* Names the program in the messages (call first thing in main). */
void cli_init(const char *program);
void cli_bad_arg(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* The integer s, in min..max, else "FLAG: 'S' is not an integer in MIN..MAX". */
long cli_parse_long(const char *flag, const char *s, long min, long max);
/* The finite number s, in min..max, else "FLAG: 'S' is not a number in MIN..MAX". */
double cli_parse_double(const char *flag, const char *s, double min, double max);

#define CLI_MAX_REPORTS 10      /* error lines printed per PE */
/* Counts an error of PE pe in *errors and prints it, "PROGRAM: PE N: ...",
 * while at most CLI_MAX_REPORTS were; says once that the rest are only
 * counted. */
void cli_pe_error(int pe, uint64_t *errors, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
