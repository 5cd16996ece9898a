/*
 * em3d_main.c - the `em3d` program (man/man1/em3d.1, docs/em3d.md): the
 * options, the machine, the graph, the reference, one version, the report.
 *
 * Where it runs decides how:
 *   outside the launcher   seq, and simple and ghost over plain threads,
 *                          on the layout of --layout (clusters emulated:
 *                          they only decide which edges count as
 *                          inter-cluster)
 *   under ini-cluster run  simple and ghost on MGS, get, put and bulk on
 *                          the compute-node API, the layout the
 *                          configuration's; one process per cluster
 * Every process builds the same graph from the options and computes the
 * same sequential reference before the run, then checks its own vertices
 * against it.
 *
 * Exit status: 0 when the values equal the reference, 1 when they differ
 * or the run failed, 2 for bad options (one line on stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "em3d.h"
#include "ini_cn.h"
#include "mgs.h"
#include "par.h"

static const char usage_text[] =
    "usage: em3d [--variant V] [--nodes N] [--degree D] [--inter F] [--intra F] [--steps S]\n"
    "            [--seed N] [--window W] [--layout CxP] [--work-scale K] [--graph random|local]\n"
    "            [--radius R]\n"
    "       em3d --help | --version\n"
    "  --variant V   simple or ghost (shared memory: MGS under ini-cluster run, threads\n"
    "                outside it), get, put or bulk (active messages, under ini-cluster run),\n"
    "                seq (the sequential reference alone); default ghost\n"
    "  --nodes N     vertices per compute node, even: half E, half H (default 500)\n"
    "  --degree D    in-edges of every vertex (default 20)\n"
    "  --inter F     share of edges from another cluster, 0..1 (default 0.2)\n"
    "  --intra F     share from another compute node of the same cluster (default 0)\n"
    "  --steps S     steps, each an E and an H half-step (default 10)\n"
    "  --seed N      the graph's seed (default 1)\n"
    "  --window W    get: requests in flight per compute node (default 64)\n"
    "  --layout CxP  outside the launcher: C clusters of P compute nodes (default 2x2);\n"
    "                under it the configuration gives the layout\n"
    "  --graph G     random (default: sources drawn by --inter and --intra) or local:\n"
    "                each node a b x b block of a 2-D torus (b x b = N/2), each cluster a\n"
    "                block of its nodes', sources within grid distance R (Chebyshev); the\n"
    "                shares crossing nodes and clusters then follow from the geometry\n"
    "  --radius R    local: the sources' greatest distance, 1..b (default 2)\n"
    "  --work-scale K  in virtual time, emulated cycles per declared instruction\n"
    "                (default 1; the update's 13 + 7 x degree instructions a vertex)\n"
    "Prints the check against the sequential reference and a line\n"
    "  RESULT variant=V ... seconds=T us_per_edge=U check=ok|FAILED\n"
    "Exit status: 0 values equal to the reference, 1 they differ or the run failed, 2 bad input.\n";

struct options {
    int variant, window, clusters, per_cluster, layout_given, shares_given, radius_given;
    struct em3d_params prm;
};

static void parse_layout(const char *flag, const char *s, struct options *o)
{
    char extra;
    if (sscanf(s, "%dx%d%c", &o->clusters, &o->per_cluster, &extra) != 2 || o->clusters < 1 || o->per_cluster < 1 ||
        o->clusters * (long)o->per_cluster > EM3D_MAX_PES)
        cli_bad_arg("%s: '%s' is not CxP (C clusters of P compute nodes, at most %d in all)", flag, s, EM3D_MAX_PES);
    o->layout_given = 1;
}

static void parse_args(int argc, char **argv, struct options *o)
{
    *o = (struct options){ .variant = EM3D_GHOST, .window = 64, .clusters = 2, .per_cluster = 2,
                           .prm = { .nodes = 500, .degree = 20, .inter = 0.2, .steps = 10, .seed = 1,
                                    .work_scale = 1, .radius = 2 } };
    const char *a;
    for (int i = 0; (a = cli_next_arg(argc, argv, &i));) {
        if (!strcmp(a, "--variant"))
            o->variant = cli_parse_choice(a, cli_value(argc, argv, &i), em3d_variant_names);
        else if (!strcmp(a, "--nodes"))
            o->prm.nodes = (int)cli_parse_long(a, cli_value(argc, argv, &i), 2, EM3D_MAX_NODES);
        else if (!strcmp(a, "--degree"))
            o->prm.degree = (int)cli_parse_long(a, cli_value(argc, argv, &i), 1, EM3D_MAX_DEGREE);
        else if (!strcmp(a, "--inter"))
            o->prm.inter = cli_parse_double(a, cli_value(argc, argv, &i), 0, 1), o->shares_given = 1;
        else if (!strcmp(a, "--intra"))
            o->prm.intra = cli_parse_double(a, cli_value(argc, argv, &i), 0, 1), o->shares_given = 1;
        else if (!strcmp(a, "--graph"))
            o->prm.graph = cli_parse_choice(a, cli_value(argc, argv, &i), em3d_graph_names);
        else if (!strcmp(a, "--radius"))
            o->prm.radius = (int)cli_parse_long(a, cli_value(argc, argv, &i), 1, 1 << 20), o->radius_given = 1;
        else if (!strcmp(a, "--steps"))
            o->prm.steps = (int)cli_parse_long(a, cli_value(argc, argv, &i), 1, 1000000);
        else if (!strcmp(a, "--seed"))
            o->prm.seed = (uint64_t)cli_parse_long(a, cli_value(argc, argv, &i), 0, INT64_MAX);
        else if (!strcmp(a, "--window"))
            o->window = (int)cli_parse_long(a, cli_value(argc, argv, &i), 1, 1 << 20);
        else if (!strcmp(a, "--layout"))
            parse_layout(a, cli_value(argc, argv, &i), o);
        else if (!strcmp(a, "--work-scale"))
            o->prm.work_scale = cli_parse_double(a, cli_value(argc, argv, &i), 1e-6, 1e6);
        else if (a[0] == '-')
            cli_unknown_option(a);
        else
            cli_bad_arg("%s: unexpected argument", a);
    }
    if (o->prm.nodes % 2)
        cli_bad_arg("--nodes: %d is odd (half the vertices are E, half H)", o->prm.nodes);
    if (o->prm.graph == EM3D_GRAPH_LOCAL && o->shares_given)
        cli_bad_arg("--inter, --intra: the local graph's shares come from its geometry (--radius), not given");
    if (o->prm.graph != EM3D_GRAPH_LOCAL && o->radius_given)
        cli_bad_arg("--radius: only with --graph local");
    if (o->prm.graph == EM3D_GRAPH_LOCAL)
        o->prm.inter = o->prm.intra = 0;   /* drawn by the geometry; RESULT reports the edges */
}

static int is_message_variant(int v) { return v == EM3D_GET || v == EM3D_PUT || v == EM3D_BULK; }

/* The machine: attaches (messages: *cn; MGS: par.h over it) and fills the
 * layout.  The mode's name, or exit 2 / 1 after a message. */
static const char *machine(struct options *o, struct ini_cn **cn)
{
    char err[512];
    struct em3d_params *p = &o->prm;
    int launched = getenv("INI_CONFIG") != NULL && o->variant != EM3D_SEQ;
    if (!launched) {
        if (is_message_variant(o->variant))
            cli_bad_arg("--variant %s: runs under ini-cluster run (messages between clusters)",
                        em3d_variant_names[o->variant]);
        em3d_layout_even(p, o->clusters, o->per_cluster);
        return o->variant == EM3D_SEQ ? "sequential" : "threads";
    }
    if (o->layout_given)
        cli_bad_arg("--layout: under ini-cluster run the configuration gives the layout");
    if (ini_cn_check_config_env(err, sizeof err) != 0)
        cli_bad_arg("%s", err);
    if (is_message_variant(o->variant)) {
        if (!(*cn = ini_cn_attach_env(err, sizeof err))) {
            cli_error("%s", err);
            exit(1);
        }
        const struct ini_config *cfg = ini_cn_config(*cn);
        p->n_clusters = cfg->n_clusters;
        p->n_pes = cfg->n_pes;
        for (int pe = 0; pe < cfg->n_pes; pe++)
            p->cluster_of[pe] = cfg->pes[pe].cluster;
        return "messages";
    }
    par_use_mgs();
    if (mgs_start(err, sizeof err) != 0) {
        cli_error("MGS: %s", err);
        exit(1);
    }
    p->n_clusters = mgs_n_clusters();
    p->n_pes = mgs_total_threads();
    for (int t = 0; t < p->n_pes; t++)
        p->cluster_of[t] = mgs_cluster_of_thread(t);
    return "mgs";
}

void em3d_report(const struct em3d_graph *g, int variant, const char *mode, const struct em3d_result *res)
{
    const struct em3d_params *p = &g->prm;
    double edges = (double)(g->edges_inter + g->edges_intra + g->edges_local);
    /* Time per edge as seed 004 counts it: a PE's time over the edges it
     * processes; the sequential reference processes them all. */
    double per_pe_edges = (double)p->steps * p->nodes * p->degree * (variant == EM3D_SEQ ? p->n_pes : 1);
    printf("em3d: %s (%s), %d clusters, %d compute nodes, %d vertices each, degree %d, %d steps, seed %llu; "
           "edges %.1f%% inter-cluster, %.1f%% intra-cluster (drawn)\n",
           em3d_variant_names[variant], mode, p->n_clusters, p->n_pes, p->nodes, p->degree, p->steps,
           (unsigned long long)p->seed, 100.0 * g->edges_inter / edges, 100.0 * g->edges_intra / edges);
    if (variant == EM3D_SEQ)
        printf("em3d: check: this is the reference\n");
    else if (res->mismatches == 0)   /* messages: each cluster checks its own nodes' values */
        printf("em3d: check: %llu values%s equal to the sequential reference's (exact comparison)\n",
               (unsigned long long)res->checked, strcmp(mode, "messages") ? "" : " of this cluster");
    else
        printf("em3d: check: FAILED: %llu of %llu values differ from the sequential reference's (largest "
               "difference %.3g)\n",
               (unsigned long long)res->mismatches, (unsigned long long)res->checked, res->maxdiff);
    printf("RESULT variant=%s mode=%s clusters=%d pes=%d nodes=%d degree=%d inter=%.4f intra=%.4f steps=%d "
           "seed=%llu edges_inter=%llu edges_intra=%llu edges_local=%llu seconds=%.6f us_per_edge=%.6f check=%s "
           "clock=%s\n",
           em3d_variant_names[variant], mode, p->n_clusters, p->n_pes, p->nodes, p->degree, p->inter, p->intra,
           p->steps, (unsigned long long)p->seed, (unsigned long long)g->edges_inter,
           (unsigned long long)g->edges_intra, (unsigned long long)g->edges_local, res->seconds,
           res->seconds * 1e6 / per_pe_edges, variant == EM3D_SEQ ? "reference" : res->mismatches ? "FAILED" : "ok",
           res->virtual_clock ? "virtual" : "host");
    struct em3d_grid gr;
    char err[256];
    /* A line of its own, so RESULT stays as its readers parse it; halo:
     * the other clusters' cells of one kind a cluster can read (em3d_grid_halo). */
    if (p->graph == EM3D_GRAPH_LOCAL && em3d_grid_layout(p, &gr, err, sizeof err) == 0)
        printf("GRAPH graph=local radius=%d grid=%dx%d block=%d cluster=%dx%d clusters=%dx%d halo=%llu\n", p->radius,
               gr.w, gr.h, gr.b, gr.px, gr.py, gr.cx, gr.cy, (unsigned long long)em3d_grid_halo(&gr, p->radius));
}

int main(int argc, char **argv)
{
    struct options o;
    struct ini_cn *cn = NULL;
    char err[512];
    cli_init("em3d", usage_text);
    parse_args(argc, argv, &o);
    const char *mode = machine(&o, &cn);
    if (em3d_params_check(&o.prm, err, sizeof err) != 0)
        cli_bad_arg("%s", err);
    struct em3d_graph g;
    double *ref[2];
    struct em3d_result res = { 0 };
    if (em3d_graph_build(&g, &o.prm) != 0 || em3d_reference(&g, o.prm.steps, ref, &res.seconds) != 0) {
        cli_error("out of memory for the graph");
        return 1;
    }
    int cluster = cn ? ini_cn_cluster(cn) : par_using_mgs() ? mgs_cluster() : 0;
    int rc = 0;
    if (o.variant == EM3D_SEQ)
        res.checked = 2u * (uint64_t)g.total;
    else if (cn)
        rc = em3d_run_am(cn, &g, ref, o.variant, o.window, &res);
    else
        rc = em3d_run_par(&g, ref, o.variant, &res);
    /* Under the launcher cluster 0's output is the run's; the others say
     * only whether their values were right. */
    if (rc >= 0 && cluster == 0)
        em3d_report(&g, o.variant, mode, &res);
    else if (rc >= 0)
        printf("em3d: cluster %d: check: %llu of %llu values differ from the reference's\n", cluster,
               (unsigned long long)res.mismatches, (unsigned long long)res.checked);
    if (cn)
        ini_cn_detach(cn);
    free(ref[0]);
    free(ref[1]);
    em3d_graph_free(&g);
    return rc == 0 && fflush(stdout) == 0 ? 0 : 1;
}
