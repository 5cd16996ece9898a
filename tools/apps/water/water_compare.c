/*
 * water_compare.c - test helper: compares the full-precision "FULL" lines
 * (written by `water --full`) of two files number by number.
 *
 *   water_compare [--tol REL] EXPECTED ACTUAL
 *
 * Lines not starting with "FULL " are ignored. Both files must have the same
 * FULL lines (same steps, 8 fields each). Numbers are converted with strtod,
 * which rounds correctly, so a decimal %.17g/%.17e text identifies its double
 * exactly; with the default --tol 0 every value must be bit-identical.
 * Prints the largest relative difference |a - e| / |e| and exits 0 if it is
 * within the tolerance, 1 if not, 2 on unreadable or mismatched files.  The
 * command line is every program's (cli.h): --help, --version, and a bad
 * flag or operand as one line with exit status 2.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_LINES 100000
#define FIELDS 8 /* step TEN POTA POTR POTRF XTT AVGT XVIR */

static const char *const NAMES[FIELDS] = { "step", "TEN", "POTA", "POTR", "POTRF", "XTT", "AVGT", "XVIR" };

/* Reads the FULL lines of path into values[line][field]; returns the line count or -1. */
static long read_full_lines(const char *path, double (*values)[FIELDS])
{
    FILE *f = fopen(path, "r");
    if (!f) {
        cli_error("cannot open %s", path);
        return -1;
    }
    char line[4096];
    long n = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "FULL ", 5) != 0)
            continue;
        if (n == MAX_LINES) {
            cli_error("too many FULL lines in %s", path);
            fclose(f);
            return -1;
        }
        char *p = line + 5, *end;
        for (int k = 0; k < FIELDS; k++, p = end) {
            values[n][k] = strtod(p, &end);
            if (end == p) {
                cli_error("%s: FULL line %ld has fewer than %d numbers", path,
                        n + 1, FIELDS);
                fclose(f);
                return -1;
            }
        }
        n++;
    }
    fclose(f);
    return n;
}

static const char usage_text[] =
    "usage: water_compare [--tol REL] EXPECTED ACTUAL\n"
    "       water_compare --help | --version\n"
    "  compares the FULL lines (water --full) of two outputs number by number\n"
    "  --tol REL  largest relative difference allowed (default 0: bit-identical)\n"
    "  exit status 0 within the tolerance, 1 if not, 2 on unreadable or mismatched files\n";

int main(int argc, char **argv)
{
    double tol = 0.0;
    const char *files[2];
    int n_files = 0;
    cli_init("water_compare", usage_text);
    const char *a;
    for (int i = 0; (a = cli_next_arg(argc, argv, &i));) {
        if (!strcmp(a, "--tol"))
            tol = cli_parse_double(a, cli_value(argc, argv, &i), 0.0, 1e6);
        else if (a[0] == '-' && a[1])
            cli_unknown_option(a);
        else if (n_files == 2)
            cli_bad_arg("%s: unexpected argument (EXPECTED and ACTUAL are given)", a);
        else
            files[n_files++] = a;
    }
    if (n_files != 2)
        cli_bad_arg("expected two files, EXPECTED and ACTUAL");
    double (*expected)[FIELDS] = malloc(sizeof(double[MAX_LINES][FIELDS]));
    double (*actual)[FIELDS] = malloc(sizeof(double[MAX_LINES][FIELDS]));
    if (!expected || !actual)
        return 2;
    long ne = read_full_lines(files[0], expected);
    long na = read_full_lines(files[1], actual);
    if (ne < 0 || na < 0)
        return 2;
    if (ne == 0 || ne != na) {
        cli_error("%ld FULL lines expected, %ld found", ne, na);
        return 2;
    }
    double worst = 0.0;
    long worst_line = 0;
    int worst_field = 1;
    for (long i = 0; i < ne; i++) {
        if (expected[i][0] != actual[i][0]) {
            cli_error("line %ld is step %.0f, expected step %.0f", i + 1,
                    actual[i][0], expected[i][0]);
            return 2;
        }
        for (int k = 1; k < FIELDS; k++) {
            double e = expected[i][k], a = actual[i][k];
            double rel = e != 0.0 ? fabs(a - e) / fabs(e) : fabs(a);
            if (rel > worst || isnan(rel)) {
                worst = isnan(rel) ? INFINITY : rel;
                worst_line = i;
                worst_field = k;
            }
        }
    }
    printf("max relative difference %.3e (step %.0f %s)%s\n", worst, expected[worst_line][0],
           NAMES[worst_field], worst == 0.0 ? ", all values bit-identical" : "");
    free(expected);
    free(actual);
    return worst <= tol ? 0 : 1;
}
