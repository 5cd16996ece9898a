/*
 * water_main.c - the `water` program: SPLASH-2 water-nsquared as described
 * in WATER_SPEC.md. Reads the ten input fields from stdin and the velocity
 * data file (random.in in the current directory unless --random names
 * another), sets up the shared system, runs P threads through par.h and
 * prints the reference's output.
 *
 * Exit status: 0 on success, 2 for malformed input or a missing/short data
 * file (one line on stderr), 1 if the threads or memory cannot be obtained.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "water.h"

#define MAX_INPUT_BYTES (1 << 20) /* the input is ten numbers; anything huge is a mistake */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: water [--random FILE] [--full] [--deterministic] < input\n"
            "  input: TSTEP NMOL NSTEP NORDER NSAVE NRST NPRINT NFMC NumProcs CUTOFF\n"
            "         (standard: 1.5e-16 512 3 6 -1 3000 3 0 1 6.212752)\n"
            "  --random FILE    velocity data file (default: random.in in the current directory)\n"
            "  --full           after each energy block also print\n"
            "                   \"FULL step TEN POTA POTR POTRF XTT AVGT XVIR\" with %%.17g\n"
            "  --deterministic  fixed-order reductions: results independent of thread timing\n");
}

static int bad_input(const char *message)
{
    fprintf(stderr, "water: %s\n", message);
    return WATER_EXIT_BAD_INPUT;
}

/* Reads all of stdin into a NUL-terminated buffer; NULL if too long. */
static char *read_stdin(void)
{
    size_t capacity = 4096, length = 0;
    char *text = malloc(capacity);
    while (text) {
        if (length + 1 == capacity) {
            if (capacity >= MAX_INPUT_BYTES) {
                free(text);
                return NULL;
            }
            char *grown = realloc(text, capacity * 2);
            if (!grown)
                free(text);
            text = grown;
            capacity *= 2;
            continue;
        }
        size_t got = fread(text + length, 1, capacity - 1 - length, stdin);
        length += got;
        if (got == 0)
            break;
    }
    if (text)
        text[length] = '\0';
    return text;
}

int main(int argc, char **argv)
{
    const char *random_path = "random.in";
    water_options opt = { .out = stdout };
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "-h") || !strcmp(arg, "-H") || !strcmp(arg, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(arg, "--random") && i + 1 < argc) {
            random_path = argv[++i];
        } else if (!strcmp(arg, "--full")) {
            opt.full = true;
        } else if (!strcmp(arg, "--deterministic")) {
            opt.deterministic = true;
        } else {
            fprintf(stderr, "water: unknown or incomplete option '%s' (try --help)\n", arg);
            return WATER_EXIT_BAD_INPUT;
        }
    }

    char err[512];
    char *text = read_stdin();
    if (!text)
        return bad_input("cannot read the input from stdin (missing or longer than 1 MiB)");
    water_input in;
    int rc = water_parse_input(text, &in, err, sizeof err);
    free(text);
    if (rc != 0)
        return bad_input(err);
    double *random;
    if (water_load_random(random_path, in.nmol, &random, err, sizeof err) != 0)
        return bad_input(err);

    water_print_parameters(stdout, &in);
    if (par_init((int)in.nprocs) != 0) {
        fprintf(stderr, "water: cannot prepare %ld threads\n", in.nprocs);
        free(random);
        return 1;
    }
    water_system *sys = water_system_create(&in, random, &opt);
    free(random);
    if (!sys) {
        fprintf(stderr, "water: out of memory or locks for the shared system\n");
        par_finalize();
        return 1;
    }
    water_print_constants(stdout, sys);
    water_print_lattice(stdout, sys);
    fflush(stdout);
    if (par_run(water_worker, sys) != 0) {
        fprintf(stderr, "water: cannot start %ld threads\n", in.nprocs);
        par_finalize();
        return 1;
    }
    water_print_footer(stdout, sys);
    par_finalize();
    return fflush(stdout) == 0 ? 0 : 1;
}
