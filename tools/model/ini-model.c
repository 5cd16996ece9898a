/*
 * ini-model - solves the INI contention model of thesis chapter 6
 * (equations 6.1 to 6.10, see model.h and docs/model.md), or the LoPC or
 * LoGPC model of the same workload (seed 001), and prints the ten
 * unknowns and the INI utilisation.
 *
 *   ini-model [--model mva|lopc|logpc] [--cv2 C]
 *             [--N N | --sweep N=FIRST..LAST]
 *             [--W W] [--o o] [--O O] [--l l] [--L L]
 *             [--format text|csv|json]
 *
 * Parameters not given take the values of thesis figure 6-3 (W = 41789,
 * o = 742, O = 2336, l = L = 0 cycles) and N = 1, so `ini-model --sweep
 * N=1..8` reproduces the model curve of that figure.  Options are matched
 * exactly and case-sensitively (--o and --O, --l and --L differ); a value
 * may follow as the next argument or after '='.  Every row is solved
 * before anything is printed, so a failure never leaves half a table (or
 * broken JSON) on stdout.
 *
 * Exit status: 0 success, 1 the solver failed, 2 invalid arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "model.h"

enum format { FORMAT_TEXT, FORMAT_CSV, FORMAT_JSON };

static const char *const USAGE =
    "usage: ini-model [--model mva|lopc|logpc] [--cv2 C]\n"
    "                 [--N N | --sweep N=FIRST..LAST] [--W W] [--o o] [--O O]\n"
    "                 [--l l] [--L L] [--format text|csv|json]\n"
    "       ini-model --help | --version\n"
    "  model  mva: thesis chapter 6 (default); lopc: LogP cycle + C_r = o,\n"
    "         INIs contention-free; logpc: lopc + open M/G/1 INI queues\n"
    "  cv2    logpc only: squared coefficient of variation of O (default 1:\n"
    "         exponential, as chapter 6; 0: constant, as LoGPC's channels)\n"
    "  N  compute nodes per INI            (default 1)\n"
    "  W  work between requests            (default 41789)\n"
    "  o  handler overhead on a PE         (default 742)\n"
    "  O  INI processing time per message  (default 2336)\n"
    "  l  intra-cluster latency            (default 0)\n"
    "  L  inter-cluster latency            (default 0)\n"
    "Times are in cycles (any common unit).  Defaults are thesis figure 6-3.\n";

/* One row of output: the field name as printed, its value and meaning. */
struct field {
    const char *name;
    double value;
    const char *meaning;
};

#define FIELD_COUNT 11

static void fields_of(const struct model_result *r, struct field f[FIELD_COUNT])
{
    const struct field all[FIELD_COUNT] = {
        { "R",      r->R,      "round trip of a compute/request cycle" },
        { "lambda", r->lambda, "requests per unit time from one PE (1/R)" },
        { "R_w",    r->R_w,    "residence time of the compute thread" },
        { "R_q",    r->R_q,    "response time of a request handler" },
        { "R_y",    r->R_y,    "response time of a reply handler" },
        { "R_o",    r->R_o,    "residence time of a message at an INI" },
        { "Q_q",    r->Q_q,    "requests queued at a PE" },
        { "Q_y",    r->Q_y,    "replies queued at a PE" },
        { "Q_o",    r->Q_o,    "messages queued at an INI (queue length)" },
        { "U_q",    r->U_q,    "PE utilisation by request handlers" },
        { "U_o",    r->U_o,    "INI utilisation (4 N lambda O)" },
    };
    memcpy(f, all, sizeof all);
}

/* The formats of a table of rows, one per N: the text table and CSV differ
 * in nothing else. */
struct row_formats {
    const char *n_name;     /* the heading of the N column */
    const char *name;       /* each field's heading */
    const char *n;          /* N */
    const char *value;      /* each field's value */
};

static void print_rows(int first, const struct model_result *rows, int count, const struct row_formats *fmt)
{
    struct field f[FIELD_COUNT];
    fields_of(&rows[0], f);
    printf(fmt->n_name, "N");
    for (int i = 0; i < FIELD_COUNT; i++)
        printf(fmt->name, f[i].name);
    putchar('\n');
    for (int n = 0; n < count; n++) {
        fields_of(&rows[n], f);
        printf(fmt->n, first + n);
        for (int i = 0; i < FIELD_COUNT; i++)
            printf(fmt->value, f[i].value);
        putchar('\n');
    }
}

static void print_text(const struct model_params *p, int first,
                       const struct model_result *rows, int count)
{
    static const char *const title[] = {
        [MODEL_MVA] = "INI contention model (thesis ch. 6)",
        [MODEL_LOPC] = "LoPC (seed 001: LogP cycle + C_r = o, INIs contention-free)",
        [MODEL_LOGPC] = "LoGPC (seed 001: LoPC + M/G/1 INI queues closed by rate)",
    };
    printf("# %s: W=%g o=%g O=%g l=%g L=%g", title[p->kind], p->W, p->o, p->O, p->l, p->L);
    if (p->kind == MODEL_LOGPC)
        printf(" cv2=%g", p->cv2);
    putchar('\n');
    if (count == 1) {
        struct field f[FIELD_COUNT];
        printf("N       = %d\n", first);
        fields_of(&rows[0], f);
        for (int i = 0; i < FIELD_COUNT; i++)
            printf("%-7s = %-12.6g  %s\n", f[i].name, f[i].value, f[i].meaning);
        return;
    }
    print_rows(first, rows, count, &(const struct row_formats){ "%4s", " %12s", "%4d", " %12.6g" });
}

static void print_csv(int first, const struct model_result *rows, int count)
{
    print_rows(first, rows, count, &(const struct row_formats){ "%s", ",%s", "%d", ",%.10g" });
}

/* Values are finite (the solver guarantees it), so %.10g is valid JSON. */
static void print_json(const struct model_params *p, int first,
                       const struct model_result *rows, int count)
{
    printf("{\"model\":\"%s\","
           "\"parameters\":{\"W\":%.10g,\"o\":%.10g,\"O\":%.10g,\"l\":%.10g,\"L\":%.10g,\"cv2\":%.10g},"
           "\"results\":[", model_kind_name(p->kind), p->W, p->o, p->O, p->l, p->L, p->cv2);
    struct field f[FIELD_COUNT];
    for (int n = 0; n < count; n++) {
        fields_of(&rows[n], f);
        printf("%s\n{\"N\":%d", n ? "," : "", first + n);
        for (int i = 0; i < FIELD_COUNT; i++)
            printf(",\"%s\":%.10g", f[i].name, f[i].value);
        putchar('}');
    }
    printf("\n]}\n");
}

/* What the options asked for, and which were given (each at most once). */
struct model_opts {
    struct model_params p;
    int seen_time[5];               /* --W, --o, --O, --l, --L */
    int seen_n, seen_sweep, seen_format, seen_model, seen_cv2;
    int first, last;                /* the N of the first and last row */
    enum format format;
};

static const char *const time_flags[5] = { "--W", "--o", "--O", "--l", "--L" };

static double *time_of(struct model_params *p, int t)
{
    double *const times[5] = { &p->W, &p->o, &p->O, &p->l, &p->L };
    return times[t];
}

/* The "given" mark of flag, *time_index set for a time; NULL: unknown. */
static int *seen_of(struct model_opts *o, const char *flag, int *time_index)
{
    *time_index = -1;
    for (int t = 0; t < 5; t++)
        if (!strcmp(flag, time_flags[t]))
            *time_index = t;
    return *time_index >= 0 ? &o->seen_time[*time_index]
         : !strcmp(flag, "--N") ? &o->seen_n
         : !strcmp(flag, "--sweep") ? &o->seen_sweep
         : !strcmp(flag, "--format") ? &o->seen_format
         : !strcmp(flag, "--model") ? &o->seen_model
         : !strcmp(flag, "--cv2") ? &o->seen_cv2 : NULL;
}

static int parse_cv2(const char *value, double *cv2, char *why, size_t why_len)
{
    int bad = value[0] == '-' ? 1 : model_parse_time(value, cv2, why, why_len);
    if (value[0] == '-')
        snprintf(why, why_len, "'%s' is negative; cv2 must be in [0, %g]", value, MODEL_MAX_CV2);
    else if (!bad && *cv2 > MODEL_MAX_CV2) {
        bad = 1;
        snprintf(why, why_len, "'%s' exceeds %g", value, MODEL_MAX_CV2);
    }
    return bad;
}

static int parse_format(const char *value, enum format *format, char *why, size_t why_len)
{
    static const char *const names[] = { [FORMAT_TEXT] = "text", [FORMAT_CSV] = "csv", [FORMAT_JSON] = "json" };
    for (int k = 0; k < 3; k++)
        if (!strcmp(value, names[k])) {
            *format = (enum format)k;
            return 0;
        }
    snprintf(why, why_len, "'%s' is not text, csv or json", value);
    return 1;
}

/* The value of one option into o; nonzero, why said, if it is bad. */
static int parse_value(struct model_opts *o, const int *seen, int time_index, const char *value,
                       char *why, size_t why_len)
{
    int bad;
    if (time_index >= 0)
        return model_parse_time(value, time_of(&o->p, time_index), why, why_len);
    if (seen == &o->seen_n)
        return model_parse_n(value, &o->first, why, why_len);
    if (seen == &o->seen_sweep)
        return model_parse_sweep(value, &o->first, &o->last, why, why_len);
    if (seen == &o->seen_model) {
        bad = model_kind_parse(value, &o->p.kind);
        if (bad)
            snprintf(why, why_len, "'%s' is not mva, lopc or logpc", value);
        return bad;
    }
    if (seen == &o->seen_cv2)
        return parse_cv2(value, &o->p.cv2, why, why_len);
    return parse_format(value, &o->format, why, why_len);
}

/* The options, each "--flag value" or "--flag=value"; a bad one exits 2. */
static void parse_args(int argc, char **argv, struct model_opts *o)
{
    char why[256];
    for (int i = 0; cli_next_arg(argc, argv, &i);) {
        if (strncmp(argv[i], "--", 2) != 0)
            cli_bad_arg("%s: unexpected argument", argv[i]);

        /* Split "--flag=value"; otherwise the value is the next argument. */
        char flag[32];
        const char *value;
        const char *eq = strchr(argv[i], '=');
        size_t flag_len = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
        if (flag_len >= sizeof flag)
            cli_unknown_option(argv[i]);
        memcpy(flag, argv[i], flag_len);
        flag[flag_len] = '\0';

        int time_index;
        int *seen = seen_of(o, flag, &time_index);
        if (!seen)
            cli_unknown_option(flag);
        if (*seen)
            cli_bad_arg("%s: given twice", flag);
        *seen = 1;
        if (eq)
            value = eq + 1;
        else if (i + 1 < argc)
            value = argv[++i];
        else
            cli_bad_arg("%s: needs a value", flag);

        if (parse_value(o, seen, time_index, value, why, sizeof why))
            cli_bad_arg("%s: %s", flag, why);
        if (seen == &o->seen_n)
            o->last = o->first;
    }
    if (o->seen_n && o->seen_sweep)
        cli_bad_arg("--N and --sweep cannot be combined");
    if (o->seen_cv2 && o->p.kind != MODEL_LOGPC)
        cli_bad_arg("--cv2 applies to --model logpc only");
    if (!o->seen_cv2)
        o->p.cv2 = 1;      /* exponential O, chapter 6's assumption */
}

/* Every row, N = first..last, into rows; 0, or -1 said. */
static int solve_rows(struct model_params *p, int first, struct model_result *rows, int count)
{
    char why[256];
    for (int n = 0; n < count; n++) {
        p->N = first + n;
        if (model_solve(p, &rows[n], why, sizeof why) != MODEL_OK) {
            cli_error("N=%d: %s", p->N, why);
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct model_opts o = {
        .p = { .N = 1, .W = 41789, .o = 742, .l = 0, .L = 0, .O = 2336 },
        .first = 1, .last = 1, .format = FORMAT_TEXT,
    };
    char why[256];

    cli_init("ini-model", USAGE);
    parse_args(argc, argv, &o);
    struct model_params *p = &o.p;
    int first = o.first;
    p->N = first;
    if (model_validate(p, why, sizeof why) != MODEL_OK)
        cli_bad_arg("%s", why);

    int count = o.last - first + 1;
    struct model_result *rows = malloc((size_t)count * sizeof *rows);
    if (!rows) {
        cli_error("out of memory for %d rows", count);
        return 1;
    }
    if (solve_rows(p, first, rows, count) < 0) {
        free(rows);
        return 1;
    }

    if (o.format == FORMAT_CSV)
        print_csv(first, rows, count);
    else if (o.format == FORMAT_JSON)
        print_json(p, first, rows, count);
    else
        print_text(p, first, rows, count);
    free(rows);
    return 0;
}
