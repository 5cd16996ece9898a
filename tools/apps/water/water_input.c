/*
 * water_input.c - the ten input fields (spec 1) and the velocity data file
 * random.in (spec 5.2), with validation.
 *
 * Unlike the reference, which carries on after a bad read, every problem is
 * reported as one line and the caller exits with status 2: a malformed run
 * would otherwise print plausible-looking garbage. Fields are parsed with
 * strtod/strtol, which convert like scanf's %lf/%ld, but a field must be a
 * complete number (no trailing characters).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_util.h"
#include "water.h"

static const char *const FIELD_NAMES[10] = {
    "TSTEP", "NMOL", "NSTEP", "NORDER", "NSAVE", "NRST", "NPRINT", "NFMC", "NumProcs", "CUTOFF",
};

/* Splits text at whitespace into at most max tokens (copied into storage);
 * returns the total number of tokens found, which may exceed max. */
static int tokenize(const char *text, char tokens[][64], int max)
{
    int count = 0;
    const char *p = text;
    for (;;) {
        while (*p && isspace((unsigned char)*p))
            p++;
        if (!*p)
            return count;
        const char *start = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
        if (count < max) {
            size_t len = (size_t)(p - start);
            if (len > 63)
                len = 63; /* a longer token cannot be a valid number anyway */
            memcpy(tokens[count], start, len);
            tokens[count][len] = '\0';
        }
        count++;
    }
}

static int parse_double(const char *token, double *value)
{
    char *end;
    errno = 0;
    *value = strtod(token, &end);
    return end != token && *end == '\0' && errno == 0 && isfinite(*value) ? 0 : -1;
}

static int parse_long(const char *token, long *value)
{
    char *end;
    errno = 0;
    *value = strtol(token, &end, 10);
    return end != token && *end == '\0' && errno == 0 ? 0 : -1;
}

int water_parse_input(const char *text, water_input *in, char *err, size_t errlen)
{
    char tokens[10][64];
    int count = tokenize(text, tokens, 10);
    if (count != 10)
        return ini_fail(err, errlen,
                        "input must have 10 fields (TSTEP NMOL NSTEP NORDER NSAVE NRST NPRINT NFMC "
                        "NumProcs CUTOFF), found %d", count);

    double *doubles[10] = { [0] = &in->tstep, [9] = &in->cutoff };
    long *longs[10] = { [1] = &in->nmol,   [2] = &in->nstep, [3] = &in->norder,
                        [4] = &in->nsave,  [5] = &in->nrst,  [6] = &in->nprint,
                        [7] = &in->nfmc,   [8] = &in->nprocs };
    for (int i = 0; i < 10; i++) {
        if (doubles[i] && parse_double(tokens[i], doubles[i]) != 0)
            return ini_fail(err, errlen, "field %d (%s) is not a finite number: '%s'", i + 1,
                            FIELD_NAMES[i], tokens[i]);
        if (longs[i] && parse_long(tokens[i], longs[i]) != 0)
            return ini_fail(err, errlen, "field %d (%s) is not an integer: '%s'", i + 1,
                            FIELD_NAMES[i], tokens[i]);
    }

    if (!(in->tstep > 0.0))
        return ini_fail(err, errlen, "TSTEP must be positive, got %g", in->tstep);
    if (in->nmol < 1)
        return ini_fail(err, errlen, "NMOL must be positive, got %ld", in->nmol);
    long side = water_lattice_side(in->nmol);
    if (side > 2097151 || side * side * side != in->nmol)
        return ini_fail(err, errlen, "NMOL %ld is not a perfect cube (8, 27, 64, 125, 216, 343, 512, ...)",
                        in->nmol);
    if (in->nstep < 0)
        return ini_fail(err, errlen, "NSTEP must be >= 0, got %ld", in->nstep);
    if (in->norder != 6)
        return ini_fail(err, errlen, "NORDER must be 6 (the integrator stores 6 derivatives), got %ld",
                        in->norder);
    if (in->nprint < 1)
        return ini_fail(err, errlen, "NPRINT must be >= 1, got %ld", in->nprint);
    long max_procs = in->nmol < PAR_MAX_THREADS ? in->nmol : PAR_MAX_THREADS;
    if (in->nprocs < 1 || in->nprocs > max_procs)
        return ini_fail(err, errlen, "NumProcs must be between 1 and %ld (at most NMOL and at most %d), got %ld",
                        max_procs, PAR_MAX_THREADS, in->nprocs);
    if (in->cutoff < 0.0)
        return ini_fail(err, errlen, "CUTOFF must be >= 0 (0 means half the box), got %g", in->cutoff);
    return 0;
}

int water_load_random(const char *path, long nmol, double **numbers, char *err, size_t errlen)
{
    *numbers = NULL;
    FILE *file = fopen(path, "r");
    if (!file)
        return ini_fail(err, errlen, "cannot open velocity data file %s: %s", path, strerror(errno));

    /* 1 discarded number, then 3 atoms x 3 directions per molecule. The
     * array grows as numbers arrive, so a huge NMOL costs no memory up front. */
    size_t needed = (size_t)nmol <= (SIZE_MAX - 1) / 9 ? 1 + 9 * (size_t)nmol : SIZE_MAX;
    size_t count = 0, capacity = 0;
    double *values = NULL, value;
    while (count < needed && fscanf(file, "%lf", &value) == 1) {
        if (count == capacity) {
            capacity = capacity ? 2 * capacity : 8192;
            double *grown = realloc(values, capacity * sizeof *values);
            if (!grown) {
                free(values);
                fclose(file);
                return ini_fail(err, errlen, "out of memory reading %s", path);
            }
            values = grown;
        }
        values[count++] = value;
    }
    bool unreadable = count < needed && !feof(file);
    fclose(file);
    if (count < needed) {
        free(values);
        if (unreadable)
            return ini_fail(err, errlen, "velocity data file %s: number %zu is not a number", path,
                            count + 1);
        return ini_fail(err, errlen,
                        "velocity data file %s is too short: it holds %zu numbers, NMOL %ld needs %zu "
                        "(1 + 9 per molecule; this file supports at most %zu molecules)",
                        path, count, nmol, needed, count > 0 ? (count - 1) / 9 : 0);
    }
    *numbers = values;
    return 0;
}
