/*
 * water_main.c - the `water` program: SPLASH-2 water-nsquared as described
 * in WATER_SPEC.md. Reads the ten input fields from stdin and the velocity
 * data file (--random FILE, else the first of: random.in in the current
 * directory, as the reference reads it; the copy installed beside the
 * program, BINDIR/../share/ini/water/random.in; the repository's,
 * build/bin/../../tools/apps/water/data/random.in), sets up the shared system,
 * runs P threads through par.h and prints the reference's output.
 *
 * With --mgs the shared-memory interface is the MGS implementation of par.h
 * (docs/mgs.md) and the program runs under the launcher, once per cluster:
 *     ini-cluster run CONFIG -- build/bin/water --mgs [--input FILE] < input
 * NumProcs must equal the configuration's number of compute nodes.  The
 * launcher gives cluster 0's program its own stdin (the others get
 * /dev/null), so cluster 0 reads the input from --input FILE, else from its
 * stdin, else from the launcher's stdin (/proc/PPID/fd/0), and sends the
 * text to the other
 * clusters; every cluster then runs the same set-up (cluster 0's writes are
 * published, the others' are a dry run that yields the same addresses).
 * Every cluster prints to its own stdout; cluster 0's is the program's.
 * Outside the launcher --mgs runs MGS in this one process (one cluster of
 * NumProcs threads, no INIs), the 1xP layout.
 *
 * Exit status: 0 on success, 2 for malformed input or a missing/short data
 * file (one line on stderr), 1 if the threads or memory cannot be obtained.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cli.h"
#include "mgs.h"
#include "water.h"

#define MAX_INPUT_BYTES (1 << 20) /* the input is ten numbers; anything huge is a mistake */

static const char usage_text[] =
    "usage: water [--random FILE] [--full] [--deterministic] [--mgs] [--input FILE] < input\n"
    "       water --help | --version\n"
    "  input: TSTEP NMOL NSTEP NORDER NSAVE NRST NPRINT NFMC NumProcs CUTOFF\n"
    "         (standard: 1.5e-16 512 3 6 -1 3000 3 0 1 6.212752)\n"
    "  --random FILE    velocity data file (default: random.in in the current directory,\n"
    "                   else the copy installed or built beside this program)\n"
    "  --full           after each energy block also print\n"
    "                   \"FULL step TEN POTA POTR POTRF XTT AVGT XVIR\" with %.17g\n"
    "  --deterministic  fixed-order reductions: results independent of thread timing\n"
    "  --work-scale K   in virtual time, emulated cycles per declared instruction (default 1)\n"
    "  --mgs            run on the MGS shared memory, under ini-cluster run (NumProcs =\n"
    "                   the configuration's compute nodes)\n"
    "  --input FILE     read the input from FILE instead of stdin\n";

static int bad_input(const char *message)
{
    cli_error("%s", message);
    return WATER_EXIT_BAD_INPUT;
}

/* Reads all of `in` into a NUL-terminated buffer; NULL if too long. */
static char *read_all(FILE *in)
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
        size_t got = fread(text + length, 1, capacity - 1 - length, in);
        length += got;
        if (got == 0)
            break;
    }
    if (text)
        text[length] = '\0';
    return text;
}

static char *read_stdin(void)
{
    return read_all(stdin);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *text = read_all(f);
    fclose(f);
    return text;
}

static bool stdin_is_dev_null(void)
{
    struct stat st;
    return fstat(0, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

/* --mgs, cluster 0: the input text (see the header comment); NULL if none. */
static char *read_mgs_input(const char *input_path)
{
    if (input_path)
        return read_file(input_path);
    if (!stdin_is_dev_null())
        return read_stdin();
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/0", (int)getppid());
    return read_file(path);
}

/* --mgs: attaches MGS; cluster 0 reads the input and shares it, the others
 * receive it.  Returns the text (malloc'ed), or NULL after a message. */
static char *mgs_input(const char *input_path)
{
    char err[512];
    par_use_mgs();
    if (mgs_start(err, sizeof err) != 0) {
        cli_error("--mgs: %s", err);
        return NULL;
    }
    if (mgs_cluster() != 0) {
        size_t len;
        char *text = mgs_receive_blob(&len);
        if (text && len == 0) {
            free(text);
            return NULL;   /* cluster 0 had no input and says why */
        }
        return text;
    }
    char *text = read_mgs_input(input_path);
    /* The others wait for the text: send it even when empty. */
    mgs_broadcast_blob(text ? text : "", text ? strlen(text) : 0);
    if (!text || !*text) {
        cli_error("--mgs: no input on cluster 0's stdin or the launcher's; use --input FILE");
        free(text);
        return NULL;
    }
    return text;
}

/* The data file when --random is not given: random.in in the current
 * directory, else the copies found relative to this executable (installed:
 * share/ini/water/ beside bin/; built: the repository's tools/apps/water/data/
 * two levels above build/bin/).  No path of the build machine is compiled
 * in.  NULL, with the places tried in err, when there is none. */
static const char *default_random(char *path, size_t len, char *err, size_t errlen)
{
    char tried[3 * 4096];
    size_t tried_len = sizeof tried;
    if (access("random.in", R_OK) == 0)
        return "random.in";
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(err, errlen, "no data file random.in in the current directory: give one with --random FILE");
        return NULL;
    }
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    *slash = 0;
    static const char *const beside[] = { "../share/ini/water/random.in", "../../tools/apps/water/data/random.in" };
    snprintf(tried, tried_len, "random.in in the current directory");
    for (size_t k = 0; k < sizeof beside / sizeof beside[0]; k++) {
        snprintf(path, len, "%s/%s", exe, beside[k]);
        if (access(path, R_OK) == 0)
            return path;
        size_t used = strlen(tried);
        snprintf(tried + used, tried_len - used, ", %s", path);
    }
    snprintf(err, errlen, "no data file random.in (tried %.400s): give one with --random FILE", tried);
    return NULL;
}

/* --work-scale's value: emulated cycles per declared instruction. */
static double work_scale(const char *v)
{
    char *end;
    double k = strtod(v, &end);
    if (*end || !(k > 0 && k <= 1e6))
        cli_bad_arg("--work-scale %s: expected cycles per instruction above 0, at most 1e6", v);
    return k;
}

int main(int argc, char **argv)
{
    const char *random_path = NULL, *input_path = NULL;
    bool use_mgs = false;
    water_options opt = { .out = stdout, .work_scale = WATER_WORK_SCALE_DEFAULT };
    cli_init("water", usage_text);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (cli_common_flag(arg) || !strcmp(arg, "-H")) {   /* -H: SPLASH-2's help flag */
            cli_help();
        } else if (!strcmp(arg, "--random")) {
            random_path = cli_value(argc, argv, &i);
        } else if (!strcmp(arg, "--full")) {
            opt.full = true;
        } else if (!strcmp(arg, "--deterministic")) {
            opt.deterministic = true;
        } else if (!strcmp(arg, "--work-scale")) {
            opt.work_scale = work_scale(cli_value(argc, argv, &i));
        } else if (!strcmp(arg, "--mgs")) {
            use_mgs = true;
        } else if (!strcmp(arg, "--input")) {
            input_path = cli_value(argc, argv, &i);
        } else if (arg[0] == '-') {
            cli_unknown_option(arg);
        } else {
            cli_bad_arg("%s: unexpected argument (the input comes on stdin or with --input)", arg);
        }
    }

    char err[512];
    char *text;
    if (use_mgs && getenv("INI_CONFIG")) {
        text = mgs_input(input_path);
        if (!text)
            return WATER_EXIT_BAD_INPUT;
    } else {
        if (use_mgs)
            par_use_mgs();   /* outside the launcher: one cluster, no INIs */
        text = input_path ? read_file(input_path) : read_stdin();
        if (!text)
            return bad_input(input_path ? "cannot read the --input file (missing or longer than 1 MiB)"
                                        : "cannot read the input from stdin (missing or longer than 1 MiB)");
    }
    water_input in;
    int rc = water_parse_input(text, &in, err, sizeof err);
    free(text);
    if (rc != 0)
        return bad_input(err);
    double *random;
    char found[4096];
    if (!random_path && !(random_path = default_random(found, sizeof found, err, sizeof err)))
        return bad_input(err);
    if (water_load_random(random_path, in.nmol, &random, err, sizeof err) != 0)
        return bad_input(err);

    water_print_parameters(stdout, &in);
    if (par_init((int)in.nprocs) != 0) {
        cli_error("cannot prepare %ld threads", in.nprocs);
        free(random);
        return 1;
    }
    water_system *sys = water_system_create(&in, random, &opt);
    free(random);
    if (!sys) {
        cli_error("out of memory or locks for the shared system");
        par_finalize();
        return 1;
    }
    water_print_constants(stdout, sys);
    water_print_lattice(stdout, sys);
    fflush(stdout);
    if (par_run(water_worker, sys) != 0) {
        cli_error("cannot start %ld threads", in.nprocs);
        par_finalize();
        return 1;
    }
    water_print_footer(stdout, sys);
    par_finalize();
    return fflush(stdout) == 0 ? 0 : 1;
}
