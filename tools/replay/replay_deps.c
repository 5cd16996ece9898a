/*
 * replay_deps.c - the dependencies of a replay that the records do not
 * state directly (replay_internal.h):
 *
 *   which completion a request follows (run_graph.c says: rg_req.pred);
 *   joins: each group of JOIN records (cluster, site, key), closed by its
 *     LAST record, makes the LAST record's action wait for every earlier
 *     contribution of the group, at the same offsets as in the run.
 */
#include "replay_internal.h"

#include <math.h>
#include <stdlib.h>

/* Which completion a request follows: the graph knows (run_graph.c). */
int replay_requests(struct replay *r)
{
    const struct run_graph *g = r->g;
    int n = g->n_reqs, *pred = malloc(((size_t)n + 1) * sizeof(int));
    r->req_submit = malloc(((size_t)n + 1) * sizeof(double));
    r->req_complete = malloc(((size_t)n + 1) * sizeof(double));
    r->req_pred = pred;
    if (!pred || !r->req_submit || !r->req_complete)
        return -1;
    for (int q = 0; q < n; q++) {
        pred[q] = g->reqs[q].pred;
        r->req_submit[q] = r->req_complete[q] = NAN;
    }
    return replay_csr(&r->req_next, n, n, pred);
}

/* Joins by cluster, site, key, time; arg: the graph. */
static int cmp_join(const void *a, const void *b, void *arg)
{
    const struct run_graph *g = arg;
    const struct rg_join *x = &g->joins[*(const int *)a], *y = &g->joins[*(const int *)b];
    int c;
    if ((c = rg_cmp_int(x->cluster, y->cluster)) || (c = rg_cmp_int(x->site, y->site)) ||
        (c = rg_cmp_u64(x->key, y->key)))
        return c;
    return rg_cmp_double(x->t, y->t);
}

static bool same_key(const struct run_graph *g, int i, int j)
{
    const struct rg_join *x = &g->joins[i], *y = &g->joins[j];
    return x->cluster == y->cluster && x->site == y->site && x->key == y->key;
}

int replay_joins(struct replay *r)
{
    const struct run_graph *g = r->g;
    int n = g->n_joins, *order = malloc(((size_t)n + 1) * sizeof(int)), *own = malloc(((size_t)n + 1) * sizeof(int));
    r->join_completer = malloc(((size_t)n + 1) * sizeof(int));
    r->join_off = calloc((size_t)n + 1, sizeof(double));
    if (!order || !own || !r->join_completer || !r->join_off) {
        free(order), free(own);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        order[i] = i;
        r->join_completer[i] = own[i] = -1;
    }
    qsort_r(order, (size_t)n, sizeof(int), cmp_join, (void *)g);
    for (int k = 0; k < n;) {
        int e = k;         /* the group: k .. e, closed by its LAST record at e */
        while (e < n && same_key(g, order[e], order[k]) && !g->joins[order[e]].last)
            e++;
        if (e == n || !same_key(g, order[e], order[k])) {
            k = e;         /* contributions nothing closed (the run ended first) */
            continue;
        }
        const struct rg_join *last = &g->joins[order[e]];
        int c = last->action;
        for (int j = k; j < e && c >= 0; j++) {
            const struct rg_join *x = &g->joins[order[j]];
            int a = x->action;
            /* only earlier actions: a nested action never waits for its parent's end */
            if (a < 0 || a == c || g->actions[a].t0 >= g->actions[c].t0)
                continue;
            r->join_completer[order[j]] = c;
            r->join_off[order[j]] = (x->t - g->actions[a].t0) - (last->t - g->actions[c].t0);
            own[order[j]] = a;
            r->as[c].pending++;
        }
        k = e + 1;
    }
    int rc = replay_csr(&r->join_out, g->n_actions, n, own);
    free(order), free(own);
    return rc;
}
