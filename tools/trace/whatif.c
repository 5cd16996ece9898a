/*
 * whatif.c - `ini-trace whatif RUN_DIR [--inis-per-cluster K] [--policy P]
 * [--service-scale X] [--O US] [--model mva|logpc] [--format F]`: the run
 * replayed with other INIs (replay.h), its predicted INI tables in the
 * report's formats, and optionally chapter 6's model solved with the
 * parameters measured in the run.
 *
 * The model's parameters from the run (docs/traces.md): N, compute nodes
 * per INI; O, the mean service of an INI pass (the replay's, so as asked);
 * o, the mean time the protocol thread spent on a message; W, the compute
 * between round trips: the threads' compute intervals summed, over the
 * round trips, which are the INI passes over 4 (a round trip is four INI
 * visits); L, the wire's least latency.  The model's run time is the
 * round trips per thread times its cycle R.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "config.h"
#include "model.h"
#include "replay.h"

struct model_out {
    bool on;
    struct model_params p;
    struct model_result res;
    double cycles;          /* round trips per thread */
    char why[256];
};

/* The model's parameters from the run and the replay's report. */
static void model_solve_run(struct model_out *m, const struct run_graph *g, const struct replay_result *rr,
                            const struct report *rep)
{
    double compute = 0, handler = 0;
    int threads = 0, handlers = 0, last_thread = -100, last_cluster = -1;
    for (int q = 0; q < g->n_reqs; q++) {
        const struct rg_req *x = &g->reqs[q];
        if (!isnan(x->resumed))
            compute += x->submit - x->resumed;
        if (x->thread != last_thread || x->cluster != last_cluster)
            threads += x->thread >= 0;     /* counted once per run of records */
        last_thread = x->thread;
        last_cluster = x->cluster;
    }
    int pes = 0, inis = 0;
    for (int c = 0; c < rep->n_clusters; c++) {
        pes += rep->clusters[c].n_pes;
        inis += rep->clusters[c].n_inis;
    }
    for (int a = 0; a < g->n_actions; a++)
        if (g->actions[a].kind == INI_CN_ACT_MSG) {
            handler += g->actions[a].t1 - g->actions[a].t0;
            handlers++;
        }
    double trips = (double)rr->passes / 4;
    m->cycles = pes ? trips / pes : 0;
    m->p.N = inis ? (int)lround((double)pes / inis) : 1;
    m->p.W = trips > 0 ? compute / trips : 0;
    m->p.o = handlers ? handler / handlers : 0;
    m->p.O = rep->all.service_ns;
    m->p.L = rr->wire_ns;
    (void)threads;
    if (m->p.N < 1)
        m->p.N = 1;
    m->on = model_solve(&m->p, &m->res, m->why, sizeof(m->why)) == MODEL_OK;
}

static void print_text(const char *dir, const struct replay_result *rr, const struct report *rep,
                       const struct model_out *m, double prog_ns)
{
    const char *pol = rr->policy >= 0 ? ini_policy_name((enum ini_policy)rr->policy) : "as the run";
    printf("ini-trace whatif: %s\n", dir);
    char inis[32];
    snprintf(inis, sizeof inis, "%d", rr->inis_per_cluster);
    printf("  replayed with %s INIs per cluster, policy %s, service x%.3g%s; O of the run %.1f us; "
           "least wire latency %.1f us\n", rr->inis_per_cluster ? inis : "as many", pol,
           isnan(rr->service_factor) ? 1.0 : rr->service_factor, isnan(rr->service_factor) ? " (O replaced)" : "",
           rr->O_run_us, rr->wire_ns / 1e3);
    if (rr->window)
        printf("  the transport's window of %d slots per connection and its acks modelled; a turn's own cost %.1f us "
               "(the run's counters)\n", rr->window, rr->turn_cost_ns / 1e3);
    else if (!isnan(rr->turn_cost_ns))
        printf("  a turn's own cost %.1f us (the run's counters); the window not modelled (not in the counters)\n",
               rr->turn_cost_ns / 1e3);
    else
        printf("  the window and a turn's own cost not modelled (no counters beside the traces)\n");
    printf("  %llu messages, %llu INI passes; %llu events kept at their measured time (nothing in the run caused them)\n",
           (unsigned long long)rr->msgs, (unsigned long long)rr->passes, (unsigned long long)rr->anchored);
    if (rr->span_ns > 0)
        printf("  program span (first request to last completion): measured %.4f s, replayed %.4f s (%+.1f%%)\n",
               rr->span_ns / 1e9, rr->replay_span_ns / 1e9, 100 * (rr->replay_span_ns / rr->span_ns - 1));
    else   /* no request recorded: no span to compare (an untraced program, or one that never waited) */
        printf("  program span: none (the compute nodes' traces hold no request: nothing waited for a reply)\n");
    if (!isnan(prog_ns))
        printf("  run time (time-c*.txt): measured %.4f s, predicted %.4f s\n", prog_ns / 1e9,
               (prog_ns + rr->replay_span_ns - rr->span_ns) / 1e9);
    if (m->on)
        printf("  model %s: N = %d, W = %.1f us, o = %.2f us, O = %.1f us, L = %.1f us: R = %.1f us, "
               "INI utilization %.3f, queue %.3f; run time %.4f s for %.0f round trips per node\n",
               model_kind_name(m->p.kind), m->p.N, m->p.W / 1e3, m->p.o / 1e3, m->p.O / 1e3, m->p.L / 1e3,
               m->res.R / 1e3, m->res.U_o, m->res.Q_o, m->cycles * m->res.R / 1e9, m->cycles);
    else if (m->why[0])
        printf("  model %s: no solution: %s\n", model_kind_name(m->p.kind), m->why);
    printf("\n");
    report_print(stdout, rep, REPORT_TEXT);
}

static void print_json(const char *dir, const struct replay_result *rr, const struct report *rep,
                       const struct model_out *m, double prog_ns)
{
    printf("{\"whatif\": {\"run\": ");
    report_json_str(stdout, dir);
    printf(", \"inis_per_cluster\": %d, \"policy\": ", rr->inis_per_cluster);
    report_json_str(stdout, rr->policy >= 0 ? ini_policy_name((enum ini_policy)rr->policy) : "as run");
    printf(", ");
    report_json_num(stdout, "service_factor", rr->service_factor, true);
    report_json_num(stdout, "O_run_us", rr->O_run_us, true);
    report_json_num(stdout, "wire_ns", rr->wire_ns, true);
    printf("\"messages\": %llu, \"passes\": %llu, \"anchored\": %llu, ", (unsigned long long)rr->msgs,
           (unsigned long long)rr->passes, (unsigned long long)rr->anchored);
    report_json_num(stdout, "span_s", rr->span_ns / 1e9, true);
    report_json_num(stdout, "replay_span_s", rr->replay_span_ns / 1e9, true);
    report_json_num(stdout, "run_time_s", prog_ns / 1e9, true);
    report_json_num(stdout, "predicted_run_time_s", (prog_ns + rr->replay_span_ns - rr->span_ns) / 1e9, false);
    if (m->on) {
        printf(", \"model\": {\"kind\": \"%s\", \"N\": %d, ", model_kind_name(m->p.kind), m->p.N);
        report_json_num(stdout, "W_ns", m->p.W, true);
        report_json_num(stdout, "o_ns", m->p.o, true);
        report_json_num(stdout, "O_ns", m->p.O, true);
        report_json_num(stdout, "L_ns", m->p.L, true);
        report_json_num(stdout, "R_ns", m->res.R, true);
        report_json_num(stdout, "utilization", m->res.U_o, true);
        report_json_num(stdout, "queue", m->res.Q_o, true);
        report_json_num(stdout, "run_time_s", m->cycles * m->res.R / 1e9, false);
        printf("}");
    }
    printf("},\n\"report\": ");
    report_print(stdout, rep, REPORT_JSON);
    printf("}\n");
}

static void print_csv(const struct replay_result *rr, const struct report *rep, const struct model_out *m,
                      double prog_ns)
{
    printf("whatif\ninis_per_cluster,policy,service_factor,O_run_us,messages,passes,span_s,replay_span_s,"
           "run_time_s,predicted_run_time_s,model,model_R_ns,model_utilization,model_queue,model_run_time_s\n");
    printf("%d,%s,%.6g,%.6g,%llu,%llu,%.6f,%.6f,", rr->inis_per_cluster,
           rr->policy >= 0 ? ini_policy_name((enum ini_policy)rr->policy) : "as run", rr->service_factor,
           rr->O_run_us, (unsigned long long)rr->msgs, (unsigned long long)rr->passes, rr->span_ns / 1e9,
           rr->replay_span_ns / 1e9);
    if (isnan(prog_ns))
        printf(",,");
    else
        printf("%.6f,%.6f,", prog_ns / 1e9, (prog_ns + rr->replay_span_ns - rr->span_ns) / 1e9);
    if (m->on)
        printf("%s,%.3f,%.6f,%.6f,%.6f\n\n", model_kind_name(m->p.kind), m->res.R, m->res.U_o, m->res.Q_o,
               m->cycles * m->res.R / 1e9);
    else
        printf(",,,,\n\n");
    report_print(stdout, rep, REPORT_CSV);
}

int cmd_whatif(int argc, char **argv)
{
    struct replay_params p = { 0, -1, 1.0, NAN };
    const char *dir = NULL;
    int fmt = REPORT_TEXT, model = -1;
    static const char *const formats[] = { "text", "csv", "json", NULL };
    static const char *const models[] = { "mva", "lopc", "logpc", NULL };
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (cli_common_flag(a))
            continue;
        if (!strcmp(a, "--inis-per-cluster"))
            p.inis_per_cluster = (int)cli_parse_long(a, cli_value(argc, argv, &i), 1, INI_MAX_INIS_PER_CLUSTER);
        else if (!strcmp(a, "--policy"))
            p.policy = cli_parse_choice(a, cli_value(argc, argv, &i), ini_policy_names);
        else if (!strcmp(a, "--service-scale"))
            p.service_scale = cli_parse_double(a, cli_value(argc, argv, &i), 1e-3, 1e3);
        else if (!strcmp(a, "--O"))
            p.O_us = cli_parse_double(a, cli_value(argc, argv, &i), 0, 1e7);
        else if (!strcmp(a, "--model"))
            model = cli_parse_choice(a, cli_value(argc, argv, &i), models);
        else if (!strcmp(a, "--format"))
            fmt = cli_parse_choice(a, cli_value(argc, argv, &i), formats);
        else
            dir = cmd_operand(a, dir);
    }
    char err[TRACE_ERR_LEN];
    struct run_files rf;
    cmd_load(&rf, dir);
    struct replay_result rr;
    struct report rep;
    if (replay_run(&rf.g, &p, &rr, err, sizeof(err)) < 0 || report_build(&rep, &rr.run, err, sizeof(err)) < 0) {
        run_files_free(&rf);
        cli_error("%s", err);
        return 1;
    }
    struct model_out m = { .p.kind = MODEL_MVA };
    if (model >= 0) {
        model_kind_parse(models[model], &m.p.kind);
        m.p.cv2 = 1;
        model_solve_run(&m, &rf.g, &rr, &rep);
    }
    double prog = run_program_time_ns(dir);
    if (fmt == REPORT_JSON)
        print_json(dir, &rr, &rep, &m, prog);
    else if (fmt == REPORT_CSV)
        print_csv(&rr, &rep, &m, prog);
    else
        print_text(dir, &rr, &rep, &m, prog);
    /* The replay takes each message's wire time between hosts from the run. */
    cmd_clock_note(fmt == REPORT_TEXT ? stdout : stderr, &rf, "a message's mean time on the wire between hosts",
                   rg_wire_between_hosts(&rf.g).mean_ns);
    report_free(&rep);
    replay_free(&rr);
    run_files_free(&rf);
    return fflush(stdout) == 0 ? 0 : 2;
}
