/*
 * critical.c - `ini-trace critical RUN_DIR [--format text|json]`: the
 * critical path of each barrier step (critical.h), as a table.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "critical.h"
#include "report.h"

static void text_row(const char *label, const struct crit_step *s)
{
    double len = s->end - s->start;
    printf("%-6s %10.3f %10.3f", label, s->start / 1e6, len / 1e6);
    for (int k = 0; k < CRIT_KINDS; k++)
        printf(" %8.1f%%", len > 0 ? 100 * s->seg[k] / len : 0);
    printf(" %6d\n", s->messages);
}

static void print_text(const char *dir, const struct crit_result *r)
{
    printf("ini-trace critical: %s\n", dir);
    static const char *const what[] = { "each step between barriers", "each step between the program's marks",
                                        "the run (no barrier or mark: one step)" };
    printf("Critical path of %s: the share of the step each kind of segment took "
           "(times in ms on the run's clock)\n", what[r->ends]);
    printf("%-6s %10s %10s", "step", "start", "length");
    for (int k = 0; k < CRIT_KINDS; k++)
        printf(" %9s", crit_seg_name(k));
    printf(" %6s\n", "msgs");
    char label[16];
    for (int j = 0; j < r->n_steps; j++) {
        snprintf(label, sizeof label, "%d", j);
        text_row(label, &r->steps[j]);
    }
    text_row("all", &r->total);
    double len = r->total.end - r->total.start;
    double q = len > 0 ? r->total.seg[CRIT_QUEUE] / len : 0;
    printf("On the critical path %.1f%% of the run was spent queued at INIs and %.1f%% in their service: "
           "no INI count can shorten this run by more than the first along this path (more INIs remove queueing, "
           "not service).\n", 100 * q, len > 0 ? 100 * r->total.seg[CRIT_SERVICE] / len : 0);
}

static void json_step(const struct crit_step *s, int index)
{
    printf("{\"step\": %d, ", index);
    report_json_num(stdout, "start_ms", s->start / 1e6, true);
    report_json_num(stdout, "length_ms", (s->end - s->start) / 1e6, true);
    printf("\"messages\": %d, \"ms\": {", s->messages);
    for (int k = 0; k < CRIT_KINDS; k++)
        report_json_num(stdout, crit_seg_name(k), s->seg[k] / 1e6, k + 1 < CRIT_KINDS);
    double len = s->end - s->start;
    printf("}, ");
    report_json_num(stdout, "queue_share", len > 0 ? s->seg[CRIT_QUEUE] / len : 0, false);
    printf("}");
}

static void print_json(const char *dir, const struct crit_result *r)
{
    printf("{\"run\": ");
    report_json_str(stdout, dir);
    printf(",\n \"steps\": [");
    for (int j = 0; j < r->n_steps; j++) {
        printf("%s\n  ", j ? "," : "");
        json_step(&r->steps[j], j);
    }
    printf("],\n \"all\": ");
    json_step(&r->total, -1);
    printf("}\n");
}

int cmd_critical(int argc, char **argv)
{
    int fmt = 0;
    static const char *const formats[] = { "text", "json", NULL };
    const char *dir = cmd_format_only(argc, argv, formats, &fmt);
    struct run_files rf;
    cmd_load(&rf, dir);
    struct crit_result r;
    char err[TRACE_ERR_LEN];
    if (critical_run(&rf.g, &r, err, sizeof(err)) < 0) {
        run_files_free(&rf);
        cli_error("%s", err);
        return 1;
    }
    if (fmt)
        print_json(dir, &r);
    else
        print_text(dir, &r);
    /* The wire share rests on the offsets: each wire segment between hosts
     * is one host's stamp minus another's. */
    cmd_clock_note(fmt ? stderr : stdout, &rf, "a message's mean time on the wire between hosts",
                   rg_wire_between_hosts(&rf.g).mean_ns);
    critical_free(&r);
    run_files_free(&rf);
    return fflush(stdout) == 0 ? 0 : 2;
}
